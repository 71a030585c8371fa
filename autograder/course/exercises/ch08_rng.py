"""Chapter 8 exercises: random number generation. Every right answer is what torch 2.13's CPU
generator does.

Where an exercise gives the student raw 32-bit draws, the reference puts exactly those draws
into a real ``torch.Generator``: ``set_state`` with state words whose tempered values are the
draws (``_untemper``), ``left = 624`` and ``next = 0``, so torch's next draws are ``draws``
in order; then it runs the torch function. Seeds and draws are drawn from booleans and
``sampled_from`` only: Hypothesis's ``integers()`` also draws constants collected from loaded
modules, which would make the cases differ between the grader's process and the notebook's
kernel.
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass

from hypothesis import strategies as st

from .spec import Case, Exercise, register

CHAPTER = "ch08_rng"
STATE_SIZE = 5056  # bytes of a CPU generator's state
WORDS_AT = 24  # offset of the 624 state words (u64 each) in the state bytes
MASK32 = 0xFFFFFFFF


def _torch():
    import torch  # imported only where references are computed

    return torch


def _pick(draw: st.DrawFn, options):
    return draw(st.sampled_from(list(options)))


def _uint(draw: st.DrawFn, bits: int) -> int:
    """An unsigned integer of ``bits`` bits, made of booleans."""
    flags = draw(st.lists(st.booleans(), min_size=bits, max_size=bits))
    return sum(bit << k for k, bit in enumerate(flags))


# ---------------------------------------------------------------- torch generators
def _state_fields(state: bytes) -> tuple[int, int, int, int, tuple[int, ...]]:
    """(seed, left, seeded, next, words) of a CPU generator's state bytes."""
    seed, left, seeded, nxt = struct.unpack_from("<QiiQ", state, 0)
    return seed, left, seeded, nxt, struct.unpack_from("<624Q", state, WORDS_AT)


def state_of(generator) -> bytes:
    """The generator's state as bytes."""
    return generator.get_state().numpy().tobytes()


def _untemper(z: int) -> int:
    """The state word whose mt19937 tempering gives ``z``: each tempering step is undone by
    iterating it to its fixed point (a shift by s fixes s more bits per round)."""
    y = z
    for shift, mask in ((-18, MASK32), (15, 0xEFC60000), (7, 0x9D2C5680), (-11, MASK32)):
        x = y  # solve x ^ (shifted(x) & mask) == y
        for _ in range(32 // abs(shift) + 1):
            x = y ^ (((x << shift) if shift > 0 else (x >> -shift)) & mask)
        y = x
    return y


def generator_with_draws(torch, draws):
    """A ``torch.Generator`` whose next raw 32-bit draws are ``draws`` (at most 623 of them):
    the state words are the untempered draws, ``left = 624`` and ``next = 0``, so no twist
    happens before the 624th draw."""
    if len(draws) > 623:
        raise ValueError("at most 623 draws fit before the next twist")
    g = torch.Generator()
    state = bytearray(state_of(g))
    words = [_untemper(d) for d in draws] + [0] * (624 - len(draws))
    struct.pack_into("<iiQ", state, 8, 624, 1, 0)
    struct.pack_into("<624Q", state, WORDS_AT, *words)
    g.set_state(torch.tensor(list(state), dtype=torch.uint8))
    return g


def raw_from_torch(torch, generator, n: int) -> list[int]:
    """The next ``n`` raw 32-bit draws of a torch generator, read from torch itself:
    ``random_(-2**63, None)`` on int64 returns whole ``random64`` values, ``(first << 32) |
    second``, as two's complement."""
    pairs = torch.empty((n + 1) // 2, dtype=torch.int64).random_(-2 ** 63, None,
                                                                  generator=generator)
    out = []
    for v in pairs.tolist():
        v %= 2 ** 64
        out += [v >> 32, v & MASK32]
    return out[:n]


# ---------------------------------------------------------------- seeds
def _seed(draw: st.DrawFn, *, valid_only: bool = False) -> int:
    kinds = ["small", "small", "word", "word", "word", "high", "high", "high", "negative",
             "negative", "negative_small", "negative_small", "top"]
    if not valid_only:
        kinds += ["out"]
    kind = _pick(draw, kinds)
    if kind == "small":
        return _uint(draw, 8)
    if kind == "word":
        return _uint(draw, 32)
    if kind == "high":  # at least 2**32: the low 32 bits reach the state
        return _uint(draw, 32) + 2 ** 32 * (1 + _uint(draw, 31))
    if kind == "negative":
        return -1 - _uint(draw, 63)
    if kind == "negative_small":
        return -1 - _uint(draw, 8)
    if kind == "top":
        return 2 ** 64 - 1 - _uint(draw, 8)
    return (2 ** 64 + _uint(draw, 8) if _pick(draw, (0, 1)) else -2 ** 63 - 1 - _uint(draw, 8))


# ---------------------------------------------------------------- seed_words
@st.composite
def _seed_cases(draw: st.DrawFn) -> Case:
    return Case(args=(_seed(draw),))


def _seed_words_reference(c: Case) -> list[int]:
    torch = _torch()
    (seed,) = c.args
    return list(_state_fields(state_of(torch.Generator().manual_seed(seed)))[4])


register(Exercise(
    name="seed_words",
    chapter=CHAPTER,
    signature="seed_words(seed) -> list of the 624 state words (ints) after manual_seed(seed); "
              "raises ValueError where torch does",
    fixed=(Case(args=(0,)), Case(args=(42,)), Case(args=(2 ** 32 + 42,)), Case(args=(-1,)),
           # a common mistake's smallest failing case: the visible test catches it
           Case(args=(-9223372036854775809,))),
    edge=(Case(args=(2 ** 64 - 1,)), Case(args=(-2 ** 63,)), Case(args=(2 ** 63,)),
          Case(args=(2 ** 32,)), Case(args=(2 ** 64,)), Case(args=(-2 ** 63 - 1,))),
    strategy=_seed_cases,
    reference=_seed_words_reference,
    truth=lambda c: (f"g = torch.Generator().manual_seed({c.args[0]}); the 624 u64 words at "
                     "byte 24 of g.get_state()"),
    hidden_examples=60,
))


# ---------------------------------------------------------------- temper
@st.composite
def _temper_cases(draw: st.DrawFn) -> Case:
    return Case(args=(_uint(draw, 32),))


def _temper_reference(c: Case) -> int:
    torch = _torch()
    (y,) = c.args
    g = torch.Generator()
    state = bytearray(state_of(g))
    struct.pack_into("<iiQ", state, 8, 624, 1, 0)
    struct.pack_into("<624Q", state, WORDS_AT, *([y] * 624))
    g.set_state(torch.tensor(list(state), dtype=torch.uint8))
    # range 2**32 >= 2**28: one random64 = (draw1 << 32) | draw2, kept modulo 2**32 = draw2
    return torch.randint(0, 2 ** 32, (1,), generator=g).item()


register(Exercise(
    name="temper",
    chapter=CHAPTER,
    signature="temper(y) -> int; y a 32-bit state word, the result the draw torch outputs "
              "for it",
    fixed=(Case(args=(0,)), Case(args=(1,)), Case(args=(123456789,)),
           Case(args=(0x80000000,))),
    edge=(Case(args=(MASK32,)), Case(args=(0x9908B0DF,)), Case(args=(0x00000800,)),
          Case(args=(0x7FFFFFFF,))),
    strategy=_temper_cases,
    reference=_temper_reference,
    truth=lambda c: (f"a generator whose 624 state words are all {c.args[0]} (g.set_state with "
                     "left=624, next=0); torch.randint(0, 2**32, (1,), generator=g).item()"),
    hidden_examples=60,
))


# ---------------------------------------------------------------- twist
#: Word values with a notable bit pattern: the top bit alone (what the upper mask keeps), the low
#: 31 bits (the lower mask), odd and even ones (MATRIX_A or not), all ones, MATRIX_A itself.
NOTABLE_WORDS = (0, 1, 2, 0x80000000, 0x80000001, 0x7FFFFFFF, 0xFFFFFFFE, MASK32, 0x9908B0DF)
#: Word positions a twist treats differently: the ends (the last word reads the new word 0),
#: and each side of 227 = 624 - 397 (from there on, word i + 397 is one this twist replaced).
NOTABLE_PLACES = (0, 1, 2, 226, 227, 228, 396, 397, 398, 622, 623)


def _seeded_words(seed: int, draws: int = 0) -> tuple[int, ...]:
    """The 624 words of ``manual_seed(seed)`` (a 32-bit seed), after ``draws`` raw draws: from
    NumPy's legacy ``RandomState``, a second implementation of mt19937 that seeds the same
    words (not from torch: the cases are made where torch is not imported)."""
    import numpy as np

    rng = np.random.RandomState(seed)
    if draws:
        rng.randint(0, 2 ** 32, draws, dtype=np.uint64)
    return tuple(int(w) for w in rng.get_state()[1])


def _sparse(values: dict[int, int], fill: int = 0) -> tuple[int, ...]:
    words = [fill] * 624
    for place, value in values.items():
        words[place] = value
    return tuple(words)


def _sparse_text(values: dict[int, int], fill: int = 0) -> str:
    return f"[{fill:#x}] * 624" + "".join(f", words[{place}] = {value:#x}"
                                          for place, value in sorted(values.items()))


def _twist_case(words: tuple[int, ...], made: str = "") -> Case:
    """A twist case; ``made`` (context "made") says how its words were made, for messages."""
    return Case(args=(words,), context=(("made", made),) if made else ())


@dataclass(frozen=True)
class _StateExercise(Exercise):
    """An exercise whose argument is 624 words: its messages say how the words were made
    (``seed_words(42)``, ``[0x0] * 624, words[0] = 0x1``) rather than list them."""

    def call_text(self, case: Case) -> str:
        made = dict(case.context).get("made")
        if made:
            return f"{self.name}(words), words = {made}"
        text = repr(case.args[0])
        return f"{self.name}({text[:120]}...) (624 words)" if len(text) > 120 else \
            super().call_text(case)


@st.composite
def _twist_cases(draw: st.DrawFn) -> Case:
    kind = _pick(draw, ("stream", "stream", "seeded", "seeded", "sparse", "sparse", "constant"))
    if kind == "seeded":
        seed, draws = _uint(draw, 32), _pick(draw, (0, 0, 624))
        made = f"seed_words({seed})" + (f" after {draws} draws (one twist)" if draws else "")
        return _twist_case(_seeded_words(seed, draws), made)
    if kind == "constant":
        value = _pick(draw, NOTABLE_WORDS)
        return _twist_case((value,) * 624, f"[{value:#x}] * 624")
    if kind == "sparse":
        fill = _pick(draw, (0, 0, 0, MASK32, 0x80000000))
        values = {_pick(draw, NOTABLE_PLACES): _pick(draw, NOTABLE_WORDS)
                  for _ in range(_pick(draw, (1, 2, 3)))}
        return _twist_case(_sparse(values, fill), _sparse_text(values, fill))
    # a stream of random words, with some notable ones at notable places
    stream = random.Random(_uint(draw, 32))
    words = [stream.getrandbits(32) for _ in range(624)]
    for _ in range(_pick(draw, (0, 0, 1, 4))):
        words[_pick(draw, NOTABLE_PLACES)] = _pick(draw, NOTABLE_WORDS)
    return _twist_case(tuple(words))


def _twist_reference(c: Case) -> list[int]:
    torch = _torch()
    (words,) = c.args
    g = torch.Generator()
    state = bytearray(state_of(g))
    struct.pack_into("<iiQ", state, 8, 1, 1, 624)  # left = 1: the next draw twists first
    struct.pack_into("<624Q", state, WORDS_AT, *words)
    g.set_state(torch.tensor(list(state), dtype=torch.uint8))
    torch.rand(1, generator=g)  # float32: one raw draw
    _, left, _, nxt, twisted = _state_fields(state_of(g))
    assert (left, nxt) == (624, 1), (left, nxt)  # exactly one twist, one word drawn
    return list(twisted)


register(_StateExercise(
    name="twist",
    chapter=CHAPTER,
    signature="twist(words) -> list of the 624 state words after one twist; words a tuple of "
              "624 ints in [0, 2**32)",
    fixed=(
        _twist_case(_seeded_words(42), "seed_words(42)"),
        _twist_case(_seeded_words(0), "seed_words(0)"),
        # the last word reads the new word 0, whose low bits the twist changed
        _twist_case(_sparse({0: 1}), _sparse_text({0: 1})),
        # words from 227 on read words this twist replaced (here word 0, now 0x40000000)
        _twist_case(_sparse({0: 0x80000000}), _sparse_text({0: 0x80000000})),
        _twist_case((MASK32,) * 624, "[0xffffffff] * 624"),
    ),
    edge=(
        _twist_case((0,) * 624, "[0x0] * 624"),
        _twist_case((0x80000000,) * 624, "[0x80000000] * 624"),
        _twist_case((0x7FFFFFFF,) * 624, "[0x7fffffff] * 624"),
        _twist_case(_sparse({623: 1}), _sparse_text({623: 1})),
        _twist_case(_sparse({1: 1, 397: 0x80000000}), _sparse_text({1: 1, 397: 0x80000000})),
        _twist_case(_sparse({226: 0x80000001, 227: 3}, MASK32),
                    _sparse_text({226: 0x80000001, 227: 3}, MASK32)),
        _twist_case(_seeded_words(7, 624), "seed_words(7) after 624 draws (one twist)"),
    ),
    strategy=_twist_cases,
    reference=_twist_reference,
    truth=lambda c: ("g = torch.Generator(); g.set_state(a state with these 624 words (u64 at "
                     "byte 24), left = 1 and next = 624, so that its next draw twists); "
                     "torch.rand(1, generator=g); the 624 u64 words at byte 24 of "
                     "g.get_state()"),
    hidden_examples=40,
))


# ---------------------------------------------------------------- next_draws
COUNTS = (0, 1, 2, 3, 5, 10, 63, 64, 100, 623, 624, 625, 626, 1000, 1247, 1248, 1249, 1300)
#: draws from manual_seed that leave a state at notable counters: fresh (left 1, next 0), just
#: twisted (624, 1), near the end of the words, at it (1, 624), after a second twist
SEEDED_DRAWS = (0, 0, 1, 2, 100, 600, 620, 623, 624, 625, 1000, 1248, 1249)


def _counters(draws: int) -> tuple[int, int]:
    """torch's (left, next) after ``draws`` raw draws from manual_seed."""
    if draws == 0:
        return 1, 0
    used = (draws - 1) % 624 + 1  # words of the last twist used
    return 625 - used, used


def _seeded_state(seed: int, draws: int) -> tuple[tuple[int, ...], int, int, str]:
    """(words, left, next, how they were made) after ``manual_seed(seed)`` and ``draws``
    raw draws (words from NumPy's legacy seeding of the low 32 bits)."""
    made = f"seed_words({seed})" + (f" after {draws} draws" if draws else "")
    return (_seeded_words(seed % 2 ** 32, draws), *_counters(draws), made)


def _random_words(draw: st.DrawFn) -> tuple[tuple[int, ...], str]:
    seed = _uint(draw, 32)
    stream = random.Random(seed)
    return tuple(stream.getrandbits(32) for _ in range(624)), f"random.Random({seed}) words"


def _draws_case(words: tuple[int, ...], left: int, position: int, n: int, made: str) -> Case:
    return Case(args=(words, left, position, n), context=(("made", made),))


@dataclass(frozen=True)
class _DrawsExercise(Exercise):
    """next_draws: its messages say how the 624 words were made rather than list them."""

    def call_text(self, case: Case) -> str:
        _, left, position, n = case.args
        return (f"{self.name}(words, {left}, {position}, {n}, twist, temper), "
                f"words = {dict(case.context).get('made', '624 words')}")


@st.composite
def _next_draws_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, COUNTS) if _pick(draw, (0, 1, 1)) else _uint(draw, 11) % 1400
    if _pick(draw, ("seeded", "seeded", "loaded")) == "seeded":
        words, left, position, made = _seeded_state(_seed(draw, valid_only=True),
                                                    _pick(draw, SEEDED_DRAWS))
        return _draws_case(words, left, position, n, made)
    # a state set_state loaded: any counters whose draws stay within the 624 words
    if _pick(draw, (0, 1)):
        words, made = _random_words(draw)
    else:
        words, _, _, made = _seeded_state(_uint(draw, 32), _pick(draw, (0, 624)))
    left = _pick(draw, (1, 1, 2, 3, 100, 623, 624, 624)) if _pick(draw, (0, 1)) else \
        1 + _uint(draw, 10) % 624
    position = _pick(draw, (0, 1, 624 - left, 625 - left)) if _pick(draw, (0, 1)) else \
        _uint(draw, 10) % (626 - left)
    return _draws_case(words, left, position, n, made)


def _state_with(torch, words, left: int, position: int, seed: int = 0,
                double: float | None = None, single: float | None = None):
    """A ``torch.Generator`` that ``set_state`` gave these fields."""
    raw = bytearray(b"\xa5" * STATE_SIZE)  # bytes torch does not read: it writes zeros there
    struct.pack_into("<QiiQ", raw, 0, seed, left, 1, position)
    struct.pack_into("<624Q", raw, WORDS_AT, *words)
    struct.pack_into("<d", raw, 5024, 0.0 if double is None else double)
    struct.pack_into("<i", raw, 5040, double is not None)
    struct.pack_into("<f", raw, 5048, 0.0 if single is None else single)
    raw[5052] = single is not None
    g = torch.Generator()
    g.set_state(torch.tensor(list(raw), dtype=torch.uint8))
    return g


def _next_draws_reference(c: Case) -> tuple[list[int], list[int], int, int]:
    torch = _torch()
    words, left, position, n = c.args
    draws = raw_from_torch(torch, _state_with(torch, words, left, position), n)
    g = _state_with(torch, words, left, position)
    torch.rand(n, generator=g)  # float32: exactly n raw draws
    _, left_after, _, next_after, words_after = _state_fields(state_of(g))
    return draws, list(words_after), left_after, next_after


_ENGINE: list = []  # one NumPy MT19937, made on first use


def _engine_with(words, position: int):
    """NumPy's mt19937 (C code) holding ``words`` at ``position``."""
    import numpy as np

    if not _ENGINE:
        _ENGINE.append(np.random.MT19937())
    _ENGINE[0].state = {"bit_generator": "MT19937",
                        "state": {"key": np.array(words, dtype=np.uint32), "pos": position}}
    return _ENGINE[0]


def numpy_twist(words) -> list[int]:
    """The 624 words after one twist, from NumPy's mt19937: the twist that grading hands
    ``next_draws``, so that its grade does not depend on the student's ``twist``."""
    engine = _engine_with(words, 624)
    engine.random_raw(1)  # at position 624 the next draw twists first
    return engine.state["state"]["key"].tolist()


def numpy_temper(y: int) -> int:
    """The draw mt19937 outputs for the word ``y``, from NumPy's mt19937."""
    return int(_engine_with([y] * 624, 0).random_raw(1)[0])


def _tempered(words, n: int) -> dict[int, int]:
    """The draw of every word ``next_draws`` can temper in ``n`` draws from ``words``: the
    words and those of the twists ahead, each set tempered by NumPy in one call."""
    table: dict[int, int] = {}
    for _ in range(n // 624 + 2):
        table.update(zip(words, _engine_with(words, 0).random_raw(624).tolist(), strict=True))
        words = numpy_twist(words)
    return table


def _call_next_draws(answer, case: Case):
    """The answer's (draws, words, left, next), its sequences as lists, given NumPy's twist
    and tempering (looked up for the words it can meet)."""
    words, _, _, n = case.args
    table = _tempered(words, n)

    def temper(y: int) -> int:
        return table[y] if y in table else numpy_temper(y)

    draws, words, left, position = answer(*case.args, numpy_twist, temper)
    return list(draws), list(words), left, position


def _seeded_case(seed: int, draws: int, n: int) -> Case:
    words, left, position, made = _seeded_state(seed, draws)
    return _draws_case(words, left, position, n, made)


def _loaded_case(seed: int, left: int, position: int, n: int) -> Case:
    words, _, _, made = _seeded_state(seed, 624)
    return _draws_case(words, left, position, n, made)


register(_DrawsExercise(
    name="next_draws",
    chapter=CHAPTER,
    signature="next_draws(words, left, position, n, twist, temper) -> (draws, words, left, "
              "position): the next n raw 32-bit draws of torch's mt19937 state (624 words, "
              "left, next) and the state after them, twisting and tempering with the functions "
              "given (graded with a right twist and temper: NumPy's)",
    fixed=(
        _seeded_case(42, 0, 5),  # right after manual_seed: the first draw twists
        _seeded_case(5, 620, 10),  # across a twist
        _seeded_case(0, 624, 1),  # left 1, next 624: the draw twists
        _loaded_case(7, 3, 100, 4),  # set_state's counters: two words from 100, then a twist
        _seeded_case(9, 3, 0),
    ),
    edge=(
        _seeded_case(0, 0, 624), _seeded_case(2 ** 64 - 1, 0, 1249),
        _seeded_case(2 ** 64 - 1, 1, 3),  # just twisted: left 624, next 1
        _loaded_case(3, 624, 0, 2),  # twisted words loaded with left 624, next 0
        _loaded_case(11, 1, 300, 2), _seeded_case(1, 1000, 1300),
        _seeded_case(2 ** 32 + 6, 623, 2), _loaded_case(4, 200, 425, 200),
        _seeded_case(-3, 624, 625),
    ),
    strategy=_next_draws_cases,
    reference=_next_draws_reference,
    truth=lambda c: ("g = a torch.Generator whose set_state got these words, left and next; "
                     f"its next {c.args[3]} raw draws (torch.empty(..., dtype=torch.int64)"
                     ".random_(-2**63, None, generator=g), each split in two); then, from the "
                     f"same state, torch.rand({c.args[3]}, generator=g) and the words, left "
                     "and next of g.get_state()"),
    call=_call_next_draws,
    hidden_examples=40,
))


# ---------------------------------------------------------------- draws for the next three
NOTABLE_DRAWS = (0, 1, 2 ** 24 - 1, 2 ** 24, 2 ** 24 - 2 ** 12, 2 ** 24 - 2 ** 11, 2 ** 21 - 1,
                 0xFF000000, 0xFFFFF800, MASK32, 0x80000000, 0x7FFFFFFF, 2 ** 28 - 1, 2 ** 28)


def _some_draws(draw: st.DrawFn, n: int) -> tuple[int, ...]:
    """n 32-bit values: a stream from a drawn seed, with some notable values mixed in."""
    stream = random.Random(_uint(draw, 32))
    out = []
    for _ in range(n):
        if _pick(draw, range(6)) == 0:
            out.append(_pick(draw, NOTABLE_DRAWS))
        else:
            out.append(stream.getrandbits(32))
    return tuple(out)


# ---------------------------------------------------------------- uniform_floats
FLOAT_DTYPES = ("float32", "float64", "float16")
PER_ELEMENT = {"float32": 1, "float64": 2, "float16": 1}


@st.composite
def _uniform_cases(draw: st.DrawFn) -> Case:
    dtype = _pick(draw, FLOAT_DTYPES)
    n = _pick(draw, (1, 2, 3, 4, 5, 6, 8))
    return Case(args=(_some_draws(draw, n * PER_ELEMENT[dtype]), dtype))


def _uniform_reference(c: Case) -> list[float]:
    torch = _torch()
    draws, dtype = c.args
    g = generator_with_draws(torch, draws)
    return torch.rand(len(draws) // PER_ELEMENT[dtype], dtype=getattr(torch, dtype),
                      generator=g).tolist()


register(Exercise(
    name="uniform_floats",
    chapter=CHAPTER,
    signature="uniform_floats(draws, dtype) -> list of floats: torch.rand(n, dtype=dtype) from "
              "a generator whose next raw draws are draws; dtype 'float32', 'float64' or "
              "'float16'",
    fixed=(
        Case(args=((0, 1, 2 ** 24, MASK32), "float32")),
        Case(args=((0x12345678, 0x9ABCDEF0), "float64")),
        Case(args=((2 ** 23, 3 * 2 ** 22, 2 ** 24 + 5), "float32")),
        Case(args=((2 ** 23, 0x00ABCDEF), "float16")),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((16777215, 16775168, 16773120, 16773119), 'float16')),
    ),
    edge=(
        Case(args=((0xFF000000,), "float32")),
        Case(args=((2 ** 24 - 1,), "float32")),
        Case(args=((2 ** 21 - 1, MASK32), "float64")),
        Case(args=((0xFFE00000, 0), "float64")),
        Case(args=((2 ** 24 - 1, 2 ** 24 - 2 ** 11, 2 ** 24 - 2 ** 12, 2 ** 24 - 2 ** 12 - 1),
                   "float16")),
        Case(args=((2 ** 11 + 2 ** 10, 2 ** 11 + 2 ** 10 + 1), "float16")),
    ),
    strategy=_uniform_cases,
    reference=_uniform_reference,
    truth=lambda c: (f"g = a generator whose next raw draws are {c.args[0]}; torch.rand("
                     f"{len(c.args[0]) // PER_ELEMENT[c.args[1]]}, dtype=torch.{c.args[1]}, "
                     "generator=g).tolist()"),
    hidden_examples=60,
))


# ---------------------------------------------------------------- randint_from_draws
RANGES = (1, 2, 3, 6, 10, 100, 1000, 2 ** 24, 2 ** 28 - 1, 2 ** 28, 2 ** 28 + 1, 2 ** 31,
          2 ** 32, 2 ** 32 + 1, 10 ** 12, 2 ** 40 + 3, 2 ** 62, 2 ** 63, 2 ** 64 - 1)
LOWS = (0, 0, 0, 1, -5, -1000, 2 ** 40, -2 ** 40, -2 ** 63)


@st.composite
def _randint_cases(draw: st.DrawFn) -> Case:
    span = _pick(draw, RANGES) if _pick(draw, (0, 1, 1)) else 1 + _uint(draw, 33)
    low = _pick(draw, LOWS)
    high = low + span
    if high > 2 ** 63 - 1:  # keep high an int64: slide the interval down
        low, high = 2 ** 63 - 1 - span, 2 ** 63 - 1
    if low < -2 ** 63:
        low = -2 ** 63
    if _pick(draw, range(16)) == 0:  # an empty interval: torch refuses
        high = max(low - _pick(draw, (0, 1)), -2 ** 63)
    n = _pick(draw, (1, 2, 3, 4, 5))
    return Case(args=(low, high, n, _some_draws(draw, 2 * n)))


def _randint_reference(c: Case) -> list[int]:
    torch = _torch()
    low, high, n, draws = c.args
    g = generator_with_draws(torch, draws)
    return torch.randint(low, high, (n,), generator=g).tolist()


register(Exercise(
    name="randint_from_draws",
    chapter=CHAPTER,
    signature="randint_from_draws(low, high, n, draws) -> list of n ints: torch.randint(low, "
              "high, (n,)) from a generator whose next raw draws are draws (2n of them, not "
              "all used); raises RuntimeError where torch does",
    fixed=(
        Case(args=(0, 10, 3, (7, 13, MASK32, 5, 6, 8))),
        Case(args=(-5, 5, 2, (0x12345678, 0x9ABCDEF0, 1, 2))),
        Case(args=(0, 2 ** 40, 2, (1, 2, 3, 4))),
        Case(args=(100, 100 + 2 ** 28, 1, (0x80000001, 0x90000003))),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=(0, 0, 1, (0, 0))),
    ),
    edge=(
        Case(args=(0, 2 ** 28 - 1, 2, (MASK32, 2 ** 28 - 1, 5, 6))),
        Case(args=(0, 2 ** 28, 2, (MASK32, 2 ** 28 - 1, 5, 6))),
        Case(args=(-2 ** 63, 2 ** 63 - 1, 2, (MASK32, MASK32, 0x80000000, 0))),
        Case(args=(3, 4, 2, (MASK32, 7, 8, 9))),
        Case(args=(5, 5, 1, (1, 2))),
        Case(args=(6, 5, 1, (1, 2))),
    ),
    strategy=_randint_cases,
    reference=_randint_reference,
    truth=lambda c: (f"g = a generator whose next raw draws are {c.args[3]}; torch.randint("
                     f"{c.args[0]}, {c.args[1]}, ({c.args[2]},), generator=g).tolist()"),
    hidden_examples=60,
))


# ---------------------------------------------------------------- randperm_from_draws
@st.composite
def _randperm_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 25, 30))
    return Case(args=(n, _some_draws(draw, n)))


def _randperm_reference(c: Case) -> list[int]:
    torch = _torch()
    n, draws = c.args
    return torch.randperm(n, generator=generator_with_draws(torch, draws)).tolist()


register(Exercise(
    name="randperm_from_draws",
    chapter=CHAPTER,
    signature="randperm_from_draws(n, draws) -> list: torch.randperm(n) from a generator whose "
              "next raw draws are draws (n of them, not all used)",
    fixed=(
        Case(args=(3, (5, 7, 11))),
        Case(args=(5, (0x12345678, 0x9ABCDEF0, 17, 4, 1))),
        Case(args=(8, (1, 2, 3, 4, 5, 6, 7, 8))),
    ),
    edge=(
        Case(args=(0, ())),
        Case(args=(1, (5,))),
        Case(args=(2, (MASK32, 0))),
        Case(args=(4, (0, 0, 0, 0))),
        Case(args=(6, (MASK32,) * 6)),
    ),
    strategy=_randperm_cases,
    reference=_randperm_reference,
    truth=lambda c: (f"g = a generator whose next raw draws are {c.args[1]}; "
                     f"torch.randperm({c.args[0]}, generator=g).tolist()"),
    hidden_examples=60,
))


# ---------------------------------------------------------------- state_bytes
#: cached normals: None (no cache), zeros of both signs, tiny and huge values, infinities
DOUBLES = (0.0, -0.0, 0.17483339327910358, -1.5, 5e-324, -2.2250738585072014e-308, 1e308,
           float("inf"), float("-inf"))
FLOATS = (0.0, -0.0, 2.5, -1.25, 1.401298464324817e-45, 3.4028234663852886e38, float("inf"))


def _state_case(seed: int, words: tuple[int, ...], left: int, position: int,
                double: float | None, single: float | None, made: str) -> Case:
    return Case(args=(seed, words, left, position, double, single), context=(("made", made),))


@dataclass(frozen=True)
class _StateBytesExercise(Exercise):
    def call_text(self, case: Case) -> str:
        seed, _, left, position, double, single = case.args
        return (f"{self.name}({seed}, words, {left}, {position}, {double!r}, {single!r}), "
                f"words = {dict(case.context).get('made', '624 words')}")


@st.composite
def _state_cases(draw: st.DrawFn) -> Case:
    seed = _seed(draw, valid_only=True) % 2 ** 64
    if _pick(draw, ("seeded", "seeded", "loaded")) == "seeded":
        words, left, position, made = _seeded_state(seed, _pick(draw, SEEDED_DRAWS))
    else:  # set_state's fields: any left in 1..624 and next in 0..624
        words, made = _random_words(draw)
        left = _pick(draw, (1, 2, 623, 624)) if _pick(draw, (0, 1)) else 1 + _uint(draw, 10) % 624
        position = _pick(draw, (0, 1, 623, 624)) if _pick(draw, (0, 1)) else _uint(draw, 10) % 625
    double = _pick(draw, DOUBLES) if _pick(draw, (0, 0, 1)) else None
    single = _pick(draw, FLOATS) if _pick(draw, (0, 0, 1)) else None
    return _state_case(seed, words, left, position, double, single, made)


def _state_bytes_reference(c: Case) -> list[int]:
    torch = _torch()
    seed, words, left, position, double, single = c.args
    return list(state_of(_state_with(torch, words, left, position, seed, double, single)))


def _call_state_bytes(answer, case: Case):
    """The answer's bytes as a list of ints (one per byte)."""
    raw = answer(*case.args)
    return list(raw) if isinstance(raw, bytes | bytearray) else raw


def _seeded_state_case(seed: int, draws: int, double: float | None = None,
                       single: float | None = None) -> Case:
    words, left, position, made = _seeded_state(seed, draws)
    return _state_case(seed % 2 ** 64, words, left, position, double, single, made)


register(_StateBytesExercise(
    name="state_bytes",
    chapter=CHAPTER,
    signature="state_bytes(seed, words, left, position, double_normal, float_normal) -> bytes: "
              "the 5056 bytes of get_state() for a CPU generator holding these fields (None: "
              "no cached normal)",
    fixed=(
        _seeded_state_case(42, 0),
        _seeded_state_case(3, 700, 0.17483339327910358),
        _seeded_state_case(2 ** 64 - 1, 5, -0.0),
        _state_case(7, _seeded_words(7, 624), 10, 3, None, 2.5, "seed_words(7) after 624 draws"),
    ),
    edge=(
        _seeded_state_case(0, 623), _seeded_state_case(0, 624), _seeded_state_case(9, 625),
        _seeded_state_case(2 ** 63, 1248, float("-inf"), -0.0),
        _seeded_state_case(2 ** 40 + 3, 1, 5e-324, 1.401298464324817e-45),
        _state_case(1, _seeded_words(1), 624, 624, None, None, "seed_words(1)"),
    ),
    strategy=_state_cases,
    reference=_state_bytes_reference,
    truth=lambda c: ("g = torch.Generator(); g.set_state(a state holding these fields, with "
                     "0xa5 in every byte torch does not read); list(g.get_state().numpy()"
                     ".tobytes())"),
    call=_call_state_bytes,
    hidden_examples=40,
))


# ---------------------------------------------------------------- order_changes
# A training run: torch.manual_seed(0); data = torch.Generator().manual_seed(1) when mode is
# "dedicated"; then per epoch: torch.manual_seed(100 + epoch) when mode is "reseed";
# order = torch.randperm(ITEMS, generator=data or the global generator); then the epoch's
# calls, all on the global generator:
#   ("dropout", p, numel, training)  F.dropout(torch.ones(numel), p, training)
#   ("rand", k)                       torch.rand(k)
#   ("rand64", k)                     torch.rand(k, dtype=torch.float64)
#   ("randint", high, k)              torch.randint(0, high, (k,))
ITEMS = 20
MODES = ("global", "global", "global", "global", "dedicated", "reseed")


def _call(draw: st.DrawFn) -> tuple:
    kind = _pick(draw, ("dropout", "dropout", "rand", "rand64", "randint"))
    if kind == "dropout":
        return ("dropout", _pick(draw, (0.0, 0.1, 0.5, 0.5, 1.0)), _pick(draw, (0, 2, 3, 4)),
                _pick(draw, (True, True, True, False)))
    if kind == "randint":
        return ("randint", _pick(draw, (10, 2 ** 40)), _pick(draw, (1, 2, 3, 4)))
    return (kind, _pick(draw, (1, 2, 3, 4)))


def _changed(draw: st.DrawFn, call: tuple) -> tuple:
    """The call with one of its settings changed (or a new random call)."""
    if call[0] == "dropout":
        part = _pick(draw, (1, 1, 2, 3))
        options = {1: (0.0, 0.1, 0.5, 1.0), 2: (0, 2, 3, 4), 3: (True, False)}[part]
        return call[:part] + (_pick(draw, [o for o in options if o != call[part]]),) + \
            call[part + 1:]
    return _call(draw)


@st.composite
def _run_pair(draw: st.DrawFn) -> tuple:
    epochs = [[_call(draw) for _ in range(_pick(draw, (1, 2, 3)))]
              for _ in range(_pick(draw, (2, 3, 4)))]
    other = [list(calls) for calls in epochs]
    for _ in range(_pick(draw, (1, 1, 2))):
        e = _pick(draw, range(len(other)))
        what = _pick(draw, ("change", "change", "add", "remove", "move"))
        if what == "change" and other[e]:
            i = _pick(draw, range(len(other[e])))
            other[e][i] = _changed(draw, other[e][i])
        elif what == "remove" and other[e]:
            other[e].pop(_pick(draw, range(len(other[e]))))
        elif what == "move" and other[e] and e + 1 < len(other):
            other[e + 1].insert(0, other[e].pop())
        else:
            other[e].insert(_pick(draw, range(len(other[e]) + 1)), _call(draw))
    return tuple(map(tuple, epochs)), tuple(map(tuple, other))


@st.composite
def _order_cases(draw: st.DrawFn) -> Case:
    run_a, run_b = draw(_run_pair())
    return Case(args=(_pick(draw, MODES), run_a, run_b))


def _training_orders(torch, mode: str, run) -> list[list[int]]:
    import torch.nn.functional as F

    torch.manual_seed(0)
    data = torch.Generator().manual_seed(1) if mode == "dedicated" else None
    orders = []
    for epoch, calls in enumerate(run):
        if mode == "reseed":
            torch.manual_seed(100 + epoch)
        orders.append(torch.randperm(ITEMS, generator=data).tolist())
        for call in calls:
            if call[0] == "dropout":
                F.dropout(torch.ones(call[2]), call[1], call[3])
            elif call[0] == "rand":
                torch.rand(call[1])
            elif call[0] == "rand64":
                torch.rand(call[1], dtype=torch.float64)
            else:
                torch.randint(0, call[1], (call[2],))
    return orders


def _order_reference(c: Case) -> list[bool]:
    torch = _torch()
    mode, run_a, run_b = c.args
    with torch.random.fork_rng(devices=[]):  # leave the grader's global generator as it was
        first = _training_orders(torch, mode, run_a)
        second = _training_orders(torch, mode, run_b)
    return [p != q for p, q in zip(first, second, strict=True)]


def _call_text(call) -> str:
    if call[0] == "dropout":
        return f"F.dropout(torch.ones({call[2]}), {call[1]}, training={call[3]})"
    if call[0] == "rand":
        return f"torch.rand({call[1]})"
    if call[0] == "rand64":
        return f"torch.rand({call[1]}, dtype=torch.float64)"
    return f"torch.randint(0, {call[1]}, ({call[2]},))"


def _run_text(mode: str, run) -> str:
    lines = ["torch.manual_seed(0)"]
    if mode == "dedicated":
        lines.append("data = torch.Generator().manual_seed(1)")
    for epoch, calls in enumerate(run):
        if mode == "reseed":
            lines.append(f"torch.manual_seed({100 + epoch})")
        gen = ", generator=data" if mode == "dedicated" else ""
        lines.append(f"order{epoch} = torch.randperm({ITEMS}{gen})")
        lines += [_call_text(call) for call in calls]
    return "; ".join(lines)


def _order_truth(c: Case) -> str:
    mode, run_a, run_b = c.args
    return (f"run A: {_run_text(mode, run_a)}. Run B: {_run_text(mode, run_b)}. "
            "[A's order{e} != B's order{e} for each epoch e]")


register(Exercise(
    name="order_changes",
    chapter=CHAPTER,
    signature="order_changes(mode, run_a, run_b) -> list of bools, one per epoch: whether the "
              "epoch's randperm differs between the two runs",
    fixed=(
        Case(args=("global", ((("dropout", 0.1, 4, True),), (("dropout", 0.1, 4, True),)),
                   ((("dropout", 0.5, 4, True),), (("dropout", 0.5, 4, True),)))),
        Case(args=("global", ((("rand", 2),), (), ()), ((("rand", 3),), (), ()))),
        Case(args=("dedicated", ((("rand", 2),), (), ()), ((("rand", 3),), (), ()))),
        Case(args=("global", ((("rand", 2),), (("randint", 10, 1),), ()),
                   ((), (("rand", 2), ("randint", 10, 1)), ()))),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=("global", ((("dropout", 0.5, 4, False),), ()),
                   ((("dropout", 0.5, 4, True),), ()))),
    ),
    edge=(
        Case(args=("global", ((("dropout", 0.0, 4, True),), ()),
                   ((("dropout", 1.0, 4, True),), ()))),
        Case(args=("global", ((("dropout", 0.5, 4, False),), ()),
                   ((("dropout", 0.5, 4, True),), ()))),
        Case(args=("global", ((("dropout", 0.5, 2, True),), ()), ((("rand", 4),), ()))),
        Case(args=("global", ((("rand64", 2),), ()), ((("randint", 10, 4),), ()))),
        Case(args=("global", ((("randint", 2 ** 40, 1),), ()), ((("randint", 10, 1),), ()))),
        Case(args=("reseed", ((("rand", 2),), (), ()), ((("rand", 3),), (), ()))),
        Case(args=("global", ((("dropout", 0.5, 0, True),), ()), ((), ()))),
    ),
    strategy=_order_cases,
    reference=_order_reference,
    truth=_order_truth,
    hidden_examples=60,
))


# ---------------------------------------------------------------- normal_from_draws
#: sizes around the rule of 16 (the fill path from 16 contiguous elements, its tail block)
NORMAL_SIZES = (0, 1, 2, 3, 5, 8, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 63)
#: cached normals the generator may hold: none, both zeros, ordinary values
CACHED = (None, None, None, 0.5, -1.25, 0.0, -0.0, 2.0)


def _normal_case(n: int, contiguous: bool, draws, cached: float | None) -> Case:
    return Case(args=(n, contiguous, tuple(draws), cached))


@st.composite
def _normal_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, NORMAL_SIZES)
    contiguous = _pick(draw, (True, True, False))
    return _normal_case(n, contiguous, _some_draws(draw, 2 * n + 32), _pick(draw, CACHED))


@dataclass(frozen=True)
class _NormalExercise(Exercise):
    def call_text(self, case: Case) -> str:
        n, contiguous, draws, cached = case.args
        return (f"{self.name}({n}, {contiguous}, draw, {cached!r}), draw(k) giving the next k "
                f"of {list(draws)}")


def _normal_reference(c: Case) -> tuple[list[float], float | None, int]:
    torch = _torch()
    n, contiguous, draws, cached = c.args
    words = [_untemper(d) for d in draws] + [0] * (624 - len(draws))
    g = _state_with(torch, words, 624, 0, double=cached)
    t = torch.empty(n, dtype=torch.float64) if contiguous else \
        torch.empty(n, 2, dtype=torch.float64)[:, 0]
    t.normal_(generator=g)
    state = state_of(g)
    valid = struct.unpack_from("<i", state, 5040)[0]
    after = struct.unpack_from("<d", state, 5024)[0] if valid else None
    return t.tolist(), after, _state_fields(state)[3]


def _call_normal(answer, case: Case):
    """The answer's (values, cached, draws used), given ``draw`` over the case's draws."""
    n, contiguous, draws, cached = case.args
    used = [0]

    def draw(k: int) -> list[int]:
        if not 0 <= k <= len(draws) - used[0]:
            raise ValueError(f"draw({k}) asks for more draws than torch uses here")
        used[0] += k
        return list(draws[used[0] - k:used[0]])

    values, cached = answer(n, contiguous, draw, cached)
    return list(values), cached, used[0]


def _fixed_draws(n: int, start: int = 0x9E3779B9) -> tuple[int, ...]:
    stream = random.Random(start)
    return tuple(stream.getrandbits(32) for _ in range(2 * n + 32))


register(_NormalExercise(
    name="normal_from_draws",
    chapter=CHAPTER,
    signature="normal_from_draws(n, contiguous, draw, cached) -> (values, cached): "
              "torch.randn(n, dtype=torch.float64) (normal_ on a contiguous or strided float64 "
              "tensor) from a generator whose raw draws come from draw(k) and whose cached "
              "normal is cached",
    fixed=(
        _normal_case(2, True, _fixed_draws(2), None),
        _normal_case(3, True, _fixed_draws(3), None),
        _normal_case(3, False, _fixed_draws(3), 0.5),
        _normal_case(16, True, _fixed_draws(16), None),
        # the common mistakes' smallest failing cases: the visible test catches them
        _normal_case(17, True, _fixed_draws(17), None),
        _normal_case(16, False, _fixed_draws(16), None),
        _normal_case(16, True, _fixed_draws(16), -1.25),
        _normal_case(1, True, (0, 0, 0, 0) + _fixed_draws(1)[4:], None),
    ),
    edge=(
        _normal_case(0, True, _fixed_draws(0), 0.5),
        _normal_case(1, True, _fixed_draws(1), -0.0),
        _normal_case(15, True, _fixed_draws(15), None),
        _normal_case(31, True, _fixed_draws(31), 2.0),
        _normal_case(32, True, _fixed_draws(32), None),
        _normal_case(33, False, _fixed_draws(33), None),
        _normal_case(63, True, _fixed_draws(63), None),
        _normal_case(16, True, (MASK32,) * 64, None),
        _normal_case(2, False, (0,) * 36, None),
    ),
    strategy=_normal_cases,
    reference=_normal_reference,
    truth=lambda c: (f"g = a generator whose next raw draws are {list(c.args[2])} and whose "
                     f"cached double normal is {c.args[3]!r}; t = torch.empty({c.args[0]}, "
                     "dtype=torch.float64)" + ("" if c.args[1] else f" (strided: torch.empty("
                                               f"{c.args[0]}, 2, dtype=torch.float64)[:, 0])")
                     + "; t.normal_(generator=g); (t.tolist(), g's cached double normal or "
                     "None, how many raw draws g used)"),
    call=_call_normal,
    hidden_examples=60,
))


# ---------------------------------------------------------------- multinomial_from_draws
def _heap_fix(a: list, first: int, hole: int, length: int, value, less) -> None:
    """libstdc++'s ``__adjust_heap`` (the hole sifted down, then ``value`` pushed up)."""
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if less(a[first + second], a[first + second - 1]):
            second -= 1
        a[first + hole] = a[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[first + hole] = a[first + second - 1]
        hole = second - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole, parent = parent, (parent - 1) // 2
    a[first + hole] = value


def _heap_select(a: list, first: int, middle: int, last: int, less) -> None:
    n = middle - first
    for parent in range((n - 2) // 2, -1, -1) if n >= 2 else ():
        _heap_fix(a, first, parent, n, a[first + parent], less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            value, a[i] = a[i], a[first]
            _heap_fix(a, first, 0, n, value, less)


def _sort_heap(a: list, first: int, last: int, less) -> None:
    while last - first > 1:
        last -= 1
        value, a[last] = a[last], a[first]
        _heap_fix(a, first, 0, last - first, value, less)


def _partition(a: list, first: int, last: int, less) -> int:
    """The median of the second, middle and last elements moved to ``first``; Hoare's
    partition of the rest around it (libstdc++'s ``__unguarded_partition_pivot``)."""
    x, y, z = first + 1, first + (last - first) // 2, last - 1
    if less(a[x], a[y]):
        pick = y if less(a[y], a[z]) else z if less(a[x], a[z]) else x
    else:
        pick = x if less(a[x], a[z]) else z if less(a[y], a[z]) else y
    a[first], a[pick] = a[pick], a[first]
    pivot, first = first, first + 1
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _insertion_sort(a: list, first: int, last: int, less) -> None:
    for i in range(first + 1, last):
        value, j = a[i], i
        if less(value, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
            continue
        while less(value, a[j - 1]):
            a[j] = a[j - 1]
            j -= 1
        a[j] = value


def _std_sort(a: list, first: int, last: int, less) -> None:
    """libstdc++'s ``std::sort``: introsort down to ranges of 16, then insertion sort."""
    def loop(first: int, last: int, depth: int) -> None:
        while last - first > 16:
            if depth == 0:
                _heap_select(a, first, last, last, less)
                _sort_heap(a, first, last, less)
                return
            depth -= 1
            cut = _partition(a, first, last, less)
            loop(cut, last, depth)
            last = cut

    if last - first > 1:
        loop(first, last, 2 * ((last - first).bit_length() - 1))
        _insertion_sort(a, first, min(last, first + 16), less)
        for i in range(first + 16, last):  # the rest: unguarded linear inserts
            value, j = a[i], i
            while less(value, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = value


def _nth_element(a: list, nth: int, less) -> None:
    """libstdc++'s ``std::nth_element`` (introselect) on the whole list."""
    first, last = 0, len(a)
    if nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def torch_topk(scores, k: int) -> list[int]:
    """``torch.topk(torch.tensor(scores), k).indices.tolist()`` on the CPU, without torch:
    its kernel's steps (``std::partial_sort`` when ``64 * k <= n``, else
    ``std::nth_element`` and ``std::sort`` of the first ``k - 1``) on (score, index) pairs,
    nan the largest; the ``topk`` that grading hands ``multinomial_from_draws``."""
    def before(x, y) -> bool:  # torch's comparator for the largest: nan first
        return (x[0] != x[0] and y[0] == y[0]) or x[0] > y[0]

    a = [(float(s), i) for i, s in enumerate(scores)]
    if k * 64 <= len(a):
        _heap_select(a, 0, k, len(a), before)
        _sort_heap(a, 0, k, before)
    elif k:
        _nth_element(a, k - 1, before)
        _std_sort(a, 0, k - 1, before)
    return [i for _, i in a[:k]]


#: probabilities each float dtype holds exactly: zeros, ties, tiny and large weights
WEIGHTS = (0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.25, 3.0, 0.1, 1e-3, 7.5, 2.0 ** -20)
#: probabilities the kernel refuses while it samples (with replacement)
BAD_WEIGHTS = (-1.0, -0.0 - 2.0 ** -20, float("inf"), float("-inf"), float("nan"))


def _multinomial_case(rows, dtype: str, k: int, replacement: bool, draws,
                      one_d: bool = False) -> Case:
    return Case(args=(tuple(tuple(r) for r in rows), dtype, k, replacement, tuple(draws)),
                context=(("one_d", one_d and len(rows) == 1),))


def _needed(rows, k: int, replacement: bool) -> int:
    """The raw draws torch takes: two per probability for the race, two per sample else."""
    return 2 * len(rows) * (k if replacement and k > 1 else len(rows[0]))


def _weights_row(draw: st.DrawFn, n: int, dtype: str) -> list[float]:
    kind = _pick(draw, ("mixed", "mixed", "zeros", "one", "ties", "random"))
    if kind == "one":  # one nonzero probability
        row = [0.0] * n
        row[_pick(draw, range(n))] = _pick(draw, WEIGHTS[3:])
        return row
    if kind == "ties":
        return [_pick(draw, WEIGHTS[3:])] * n
    if kind == "random":  # arbitrary values of the dtype
        stream = random.Random(_uint(draw, 32))
        import numpy as np

        cast = np.float32 if dtype == "float32" else np.float64
        return [float(cast(stream.random() * 4.0)) for _ in range(n)]
    row = [_pick(draw, WEIGHTS) for _ in range(n)]
    if kind == "zeros" or not any(row):  # mostly zeros, at least one positive
        row = [0.0] * n
        row[_pick(draw, range(n))] = 1.0
        if n > 1 and _pick(draw, (0, 1)):
            row[_pick(draw, range(n))] = 0.5
    return row


@st.composite
def _multinomial_cases(draw: st.DrawFn) -> Case:
    dtype = _pick(draw, ("float32", "float64"))
    rows = _pick(draw, (1, 1, 1, 2, 3))
    n = _pick(draw, (1, 2, 3, 4, 5, 6, 8, 10, 16, 20) if rows == 1 else (1, 2, 3, 5, 8, 12))
    probs = [_weights_row(draw, n, dtype) for _ in range(rows)]
    replacement = _pick(draw, (True, False))
    if replacement:
        k = _pick(draw, (1, 2, 3, 5, 8, 20, 50)) if _pick(draw, (0, 1)) else 1 + _uint(draw, 5)
        if k > 1 and _pick(draw, (0, 0, 0, 1)):  # a row the kernel refuses as it samples
            row = probs[_pick(draw, range(rows))]
            if _pick(draw, (0, 1)):
                row[_pick(draw, range(n))] = _pick(draw, BAD_WEIGHTS)
            else:
                row[:] = [0.0] * n
    else:
        k = 1 + _uint(draw, 6) % n
    draws = list(_some_draws(draw, _needed(probs, k, replacement)))
    if draws and _pick(draw, (0, 0, 0, 1)):  # u = 0: a 53-bit uniform of zero (q = 0)
        at = 2 * _pick(draw, range(len(draws) // 2))
        draws[at:at + 2] = [_pick(draw, (0, 0xFF000000, 0x80E00000)), 0]
    return _multinomial_case(probs, dtype, k, replacement, draws, _pick(draw, (True, False)))


@dataclass(frozen=True)
class _MultinomialExercise(Exercise):
    def call_text(self, case: Case) -> str:
        rows, dtype, k, replacement, draws = case.args
        return (f"{self.name}({[list(r) for r in rows]}, {dtype!r}, {k}, {replacement}, draw, "
                f"topk), draw(k) giving the next k of {list(draws)}, topk as torch.topk's "
                "indices")


def _multinomial_reference(c: Case) -> tuple[list[list[int]], int]:
    torch = _torch()
    rows, dtype, k, replacement, draws = c.args
    g = generator_with_draws(torch, draws)
    p = torch.tensor([list(r) for r in rows], dtype=getattr(torch, dtype))
    if c.ctx("one_d"):
        samples = [torch.multinomial(p[0], k, replacement, generator=g).tolist()]
    else:
        samples = torch.multinomial(p, k, replacement, generator=g).tolist()
    return samples, _state_fields(state_of(g))[3]  # next: the raw draws used


def _call_multinomial(answer, case: Case):
    """The answer's (samples, draws used), given ``draw`` over the case's draws and
    ``torch_topk``."""
    rows, dtype, k, replacement, draws = case.args
    used = [0]

    def draw(count: int) -> list[int]:
        if not 0 <= count <= len(draws) - used[0]:
            raise ValueError(f"draw({count}) asks for more draws than torch uses here")
        used[0] += count
        return list(draws[used[0] - count:used[0]])

    samples = answer([list(r) for r in rows], dtype, k, replacement, draw, torch_topk)
    return [list(s) for s in samples], used[0]


def _multinomial_truth(c: Case) -> str:
    rows, dtype, k, replacement, draws = c.args
    p = f"torch.tensor({list(rows[0]) if c.ctx('one_d') else [list(r) for r in rows]}, " \
        f"dtype=torch.{dtype})"
    return (f"g = a generator whose next raw draws are {list(draws)}; torch.multinomial({p}, "
            f"{k}, {replacement}, generator=g).tolist() (as a list of rows), and how many raw "
            "draws g used")


def _draws_for(rows, k: int, replacement: bool, start: int = 0x2545F491) -> tuple[int, ...]:
    stream = random.Random(start)
    return tuple(stream.getrandbits(32) for _ in range(_needed(rows, k, replacement)))


def _mcase(rows, dtype: str, k: int, replacement: bool, draws=None, one_d: bool = False) -> Case:
    return _multinomial_case(rows, dtype, k, replacement,
                             _draws_for(rows, k, replacement) if draws is None else draws, one_d)


register(_MultinomialExercise(
    name="multinomial_from_draws",
    chapter=CHAPTER,
    signature="multinomial_from_draws(rows, dtype, num_samples, replacement, draw, topk) -> "
              "list of rows of samples: torch.multinomial(p, num_samples, replacement) for the "
              "2-d p of dtype 'float32' or 'float64' holding rows, from a generator whose raw "
              "draws come from draw(k); topk(scores, k) gives torch.topk's indices; raises "
              "RuntimeError where torch's kernel does while it samples",
    fixed=(
        _mcase([[1.0, 2.0, 0.5, 0.0]], "float32", 1, False, one_d=True),
        _mcase([[1.0, 2.0, 0.5, 0.25]], "float64", 3, False),
        _mcase([[1.0, 2.0, 0.5, 0.0], [0.0, 0.0, 1.0, 3.0]], "float32", 5, True),
        _mcase([[0.5, 0.25, 0.25]], "float64", 1, True),
        # the common mistakes' smallest failing cases: the visible test catches them
        _mcase([[0.0, 1.0, 0.0, 0.0, 0.0, 0.0]], "float64", 6, False),
        _mcase([[0.0, 1.0]], "float64", 2, True, (0, 0, 5, 6)),
        _mcase([[1.0, 0.0, 1.0]], "float32", 1, False, (9, 9, 0, 0, 5, 6)),
        _mcase([[1.0, float("nan")]], "float64", 2, True),
        # q rounded to float32 ties two scores that differ in float64
        _mcase([[1.0, 1.0]], "float32", 1, False, (0x12345, 0x6789ABCE, 0x12345, 0x6789ABCD)),
        _mcase([[1.0] * 4], "float64", 1, False, (5, 7) * 4),  # argmax, not topk(scores, 1)
    ),
    edge=(
        _mcase([[3.0]], "float32", 1, False),
        _mcase([[3.0]], "float64", 4, True, one_d=True),
        _mcase([[1.0] * 10], "float32", 10, False),
        _mcase([[0.0] * 7 + [1.0]], "float64", 8, False),
        _mcase([[1.0, 1.0], [0.0, 0.0]], "float32", 3, True),
        _mcase([[1.0, 0.5, 1.0]], "float64", 2, False, (9, 9, 0xFF000000, 0, 5, 6)),
        _mcase([[float("inf"), -1.0]], "float32", 2, True),
        _mcase([[2.0 ** -20, 1.0, 2.0 ** -20]], "float32", 30, True),
        _mcase([[0.1] * 3, [0.25, 0.0, 0.0]], "float32", 3, False),
    ),
    strategy=_multinomial_cases,
    reference=_multinomial_reference,
    truth=_multinomial_truth,
    call=_call_multinomial,
    hidden_examples=60,
))


# ---------------------------------------------------------------- bernoulli_from_draws
#: the dtypes of p: a tensor's, or "float" for a number p (bernoulli_(0.3))
P_DTYPES = ("float", "float64", "float32", "float16", "bfloat16")
#: self's dtypes (the samples do not depend on it) and values it may hold before the call
SELF_VALUES = {"float32": (7.0, -2.5, 0.0, 1.0, 0.5), "float64": (7.0, -2.5, 0.0, 1.0, 0.5),
               "float16": (7.0, -2.5, 0.0, 1.0), "bfloat16": (7.0, -2.5, 0.0, 1.0),
               "int64": (7, 0, 1, -3), "int32": (7, 0, 1, -3), "uint8": (7, 0, 1, 200),
               "bool": (True, False)}
#: probabilities every dtype holds exactly (bfloat16 keeps 8 significant bits)
PROBS = (0.0, 0.0, 1.0, 1.0, 0.5, 0.25, 0.75, 0.375, 2.0 ** -24, 255 / 256, 1 / 256)
#: more probabilities for float32 and float64 p (and a number p)
FINE_PROBS = (0.3, 0.1, 0.999, 1e-8, 1 - 2.0 ** -24, 2.0 ** -53, 1 - 2.0 ** -53)
#: probabilities torch's kernel refuses as it reaches them (values of every dtype)
BAD_PROBS = (1.5, -0.5, float("nan"), float("inf"), float("-inf"), -(2.0 ** -20), 1 + 2.0 ** -7)


def _held(p: float, dtype: str) -> float:
    """``p`` rounded to the dtype (float32 and float64 only: the others draw from PROBS)."""
    import numpy as np

    return float(np.float32(p)) if dtype == "float32" else p


def _bernoulli_draws(dtype: str) -> int:
    """The raw draws torch takes per element: two for a double p, one for a float one."""
    return 2 if dtype in ("float", "float64") else 1


def _hitting(p: float, dtype: str, high: int) -> list[int]:
    """Draws whose uniform is exactly ``p`` (its low bits), ``high`` in the bits torch
    drops: ``u < p`` is then false."""
    if _bernoulli_draws(dtype) == 1:
        return [(high << 24) | int(p * 2 ** 24)]
    m = int(p * 2 ** 53)
    return [(high << 21) | (m >> 32), m & MASK32]


def _bernoulli_case(values, probs, dtype: str, draws, self_dtype: str = "float32",
                    layout: str = "flat") -> Case:
    return Case(args=(tuple(values), tuple(probs), dtype, tuple(draws)),
                context=(("self_dtype", self_dtype), ("layout", layout)))


@st.composite
def _bernoulli_cases(draw: st.DrawFn) -> Case:
    dtype = _pick(draw, P_DTYPES)
    self_dtype = _pick(draw, SELF_VALUES)
    n = _pick(draw, (0, 1, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 31))
    pool = PROBS + (FINE_PROBS if dtype in ("float", "float64", "float32") else ())
    if dtype == "float":
        probs = [_held(_pick(draw, pool), "float64")] * n
    else:
        probs = [_held(_pick(draw, pool), dtype) for _ in range(n)]
        if n and _pick(draw, (0, 0, 0, 1)):  # a p the kernel refuses when it gets there
            probs[_pick(draw, range(n))] = _pick(draw, BAD_PROBS)
    values = [_pick(draw, SELF_VALUES[self_dtype]) for _ in range(n)]
    per = _bernoulli_draws(dtype)
    draws = list(_some_draws(draw, per * n))
    for i, p in enumerate(probs):  # now and then a uniform equal to p
        if 0 <= p < 1 and _pick(draw, (0, 0, 0, 0, 1)) and (p * 2 ** (24 if per == 1
                                                                       else 53)).is_integer():
            draws[per * i:per * i + per] = _hitting(p, dtype, _pick(draw, (0, 1, 0xFF, 0x7FF)
                                                                    if per == 2 else (0, 0xFF)))
    layout = "flat"
    if n == 1 and _pick(draw, (0, 1)):
        layout = "0-d"
    elif n in (6, 8, 12, 16, 24) and _pick(draw, (0, 1)):
        layout = "transposed"  # self (and p) laid out column-major: the same memory order
    return _bernoulli_case(values, probs, dtype, draws, self_dtype, layout)


@dataclass(frozen=True)
class _BernoulliExercise(Exercise):
    def call_text(self, case: Case) -> str:
        values, probs, dtype, draws = case.args
        return (f"{self.name}(values, {list(probs)}, {dtype!r}, draw) with values = "
                f"{list(values)}, draw(k) giving the next k of {list(draws)}")


def _message(error: Exception) -> str:
    """The first sentence of torch's message (its 'Could this error message be improved?'
    tail dropped)."""
    return str(error).split("  (Could this error message be improved?")[0]


def _bernoulli_reference(c: Case) -> tuple[list[float], str | None, int]:
    torch = _torch()
    values, probs, dtype, draws = c.args
    g = generator_with_draws(torch, draws)
    self_dtype, layout = getattr(torch, c.ctx("self_dtype")), c.ctx("layout")

    def laid_out(items, d):
        t = torch.tensor(list(items), dtype=d)
        if layout == "0-d":
            return t.reshape(())
        if layout == "transposed":  # memory order is the list's order
            return t.reshape(2, len(items) // 2).t()
        return t

    t = laid_out(values, self_dtype)
    error = None
    try:
        if dtype == "float":
            t.bernoulli_(probs[0] if probs else 0.5, generator=g)
        else:
            t.bernoulli_(laid_out(probs, getattr(torch, dtype)), generator=g)
    except RuntimeError as exc:
        error = _message(exc)
    after = (t.t() if layout == "transposed" else t).reshape(-1).tolist()
    return [float(v) for v in after], error, _state_fields(state_of(g))[3]


def _call_bernoulli(answer, case: Case):
    """The values after the answer wrote into them (as floats), its RuntimeError's message
    or None, and the draws it used."""
    values, probs, dtype, draws = case.args
    used = [0]

    def draw(k: int) -> list[int]:
        if not 0 <= k <= len(draws) - used[0]:
            raise ValueError(f"draw({k}) asks for more draws than torch uses here")
        used[0] += k
        return list(draws[used[0] - k:used[0]])

    written = list(values)
    error = None
    try:
        answer(written, list(probs), dtype, draw)
    except NotImplementedError:  # (a RuntimeError) an unanswered exercise is no answer
        raise
    except RuntimeError as exc:
        error = str(exc)
    return [float(v) for v in written], error, used[0]


def _bernoulli_truth(c: Case) -> str:
    values, probs, dtype, draws = c.args
    self_dtype, layout = c.ctx("self_dtype"), c.ctx("layout")
    shape = {"flat": "", "0-d": ".reshape(())",
             "transposed": f".reshape(2, {len(values) // 2}).t()"}[layout]
    p = repr(probs[0] if probs else 0.5) if dtype == "float" else \
        f"torch.tensor({list(probs)}, dtype=torch.{dtype}){shape}"
    return (f"g = a generator whose next raw draws are {list(draws)}; t = torch.tensor("
            f"{list(values)}, dtype=torch.{self_dtype}){shape}; t.bernoulli_({p}, generator=g)"
            "; (t's elements in memory order as floats, the first sentence of the "
            "RuntimeError's message or None, how many raw draws g used)")


def _bdraws(n: int, per: int, start: int = 0x5DEECE66) -> tuple[int, ...]:
    stream = random.Random(start)
    return tuple(stream.getrandbits(32) for _ in range(per * n))


def _bcase(probs, dtype: str, draws=None, values=None, self_dtype: str = "float32",
           layout: str = "flat") -> Case:
    n = len(probs)
    return _bernoulli_case([7.0] * n if values is None else values, probs, dtype,
                           _bdraws(n, _bernoulli_draws(dtype)) if draws is None else draws,
                           self_dtype, layout)


register(_BernoulliExercise(
    name="bernoulli_from_draws",
    chapter=CHAPTER,
    signature="bernoulli_from_draws(values, probs, dtype, draw) -> None: "
              "self.bernoulli_(p) on the CPU for self's elements values (a list it writes "
              "each sample into, 1 or 0) and the probabilities probs, in the order of torch's "
              "loop; dtype is p's ('float64', 'float32', 'float16', 'bfloat16', or 'float' "
              "for a number p); raw draws from draw(k); raises RuntimeError where torch's "
              "kernel does, with the first sentence of its message",
    fixed=(
        _bcase([0.5, 0.25, 0.75, 0.5], "float"),
        _bcase([0.5, 0.25, 0.75, 0.5], "float32"),
        _bcase([0.5, 0.25, 0.75, 0.5], "float64", self_dtype="float64"),
        _bcase([0.5, 0.0, 1.0], "float16", values=[True, True, False], self_dtype="bool"),
        # the common mistakes' smallest failing cases: the visible test catches them
        _bcase([0.5], "float64", (0x100000, 0)),  # 53 bits: u = 0.5, not below p
        _bcase([0.5], "float32", (0x12800000,)),  # 24 bits: u = 0.5, not below p
        _bcase([0.5], "float", (0x80000000, 0x80000000)),  # u < p by the low bits only
        _bcase([0.5], "float32", (0x00FFFFFF,)),  # the high bits would give u < p
        _bcase([0.0, 0.0], "float", (0, 0, 0, 0)),  # u = 0 is not below p = 0
        _bcase([1.0, 1.0, 2.0, 1.0], "float32"),  # a bad p stops the loop there
        _bcase([0.5, float("nan")], "float64"),
        _bcase([0.25, 0.5], "float64", (1, 0xFFFFFFFF, 0, 0x1)),  # the first word high
    ),
    edge=(
        _bcase([], "float"),
        _bcase([], "float32", self_dtype="int64", values=[]),
        _bcase([0.5], "bfloat16", layout="0-d"),
        _bcase([1.0], "float", (MASK32, MASK32), layout="0-d"),
        _bcase([2.0 ** -24, 255 / 256], "bfloat16", (1, 0xFFFFFF)),
        _bcase([2.0 ** -53, 1 - 2.0 ** -53], "float64", (0, 1, 0x1FFFFF, MASK32)),
        _bcase([0.25, 0.75, 0.5, 1.0, 0.0, 0.375], "float16", values=[1, 0, 7, 200, 0, 1],
               self_dtype="uint8", layout="transposed"),
        _bcase([float("inf")], "float32"),
        _bcase([-0.5, 0.5], "float64"),
        _bcase([0.3, 0.3, 0.3], "float", values=[7, 0, -3], self_dtype="int32"),
    ),
    strategy=_bernoulli_cases,
    reference=_bernoulli_reference,
    truth=_bernoulli_truth,
    call=_call_bernoulli,
    hidden_examples=60,
))
