"""``Generator``: torch's CPU random number generator, an mt19937 engine plus bookkeeping.

What a torch CPU generator holds (``torch.Generator``, ``CPUGeneratorImpl``):

* a 64-bit **seed**, returned by ``initial_seed()``; only its low 32 bits seed the engine,
  so seeds ``s`` and ``s + 2**32`` give the same numbers;
* an **mt19937** engine: 624 words of state, a counter ``left`` of draws before the next
  twist and the index ``next`` of the word to temper next;
* a **cached normal**: the polar transform makes two normals from two uniforms, and the
  serial normal kernel keeps the second one here for the next call (``normal.py``).

``get_state()`` writes all of it into torch's 5056-byte layout, so a state saved by torch
loads here and the other way round.

The engine is NumPy's own ``MT19937`` bit generator (C code), given the 624 words of
``seed_words``: it holds the words and the position, and makes the draws, twisting and
tempering in C. In the student edition, draws taken a few at a time (fewer than
``PYTHON_DRAWS_BELOW``) are made by ``next_draws`` instead, the draw loop of chapter 8 (which
calls ``twist`` and ``temper``), on the state as torch keeps it (the words, ``left``,
``next``); the generator then holds that state in Python until a bulk draw hands it back to
NumPy. Both routes give torch's stream, bit for bit (``tests/test_ch08_rng.py``).
``get_state`` writes the state with ``state_bytes``.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .. import dtypes, factories, pieces
from ..device import CPU
from ..device import device as _device
from ..tensor import Tensor

__all__ = [
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "set_rng_state", "fork_rng", "seed_words", "twist", "temper",
    "next_draws", "state_bytes",
]

STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState) in torch 2.13
DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val: the seed of Generator()
N = 624  # words of mt19937 state
#: Where ``set_state`` reads each field of torch's state bytes (byte offset, NumPy type):
#: ``CPUGeneratorImplState``, little-endian; the words are 624 u64 from byte 24 on.
_FIELDS = {"seed": (0, "<u8"), "left": (8, "<i4"), "seeded": (12, "<i4"), "next": (16, "<u8"),
           "double": (5024, "<f8"), "double_valid": (5040, "<i4"), "float": (5048, "<f4"),
           "float_valid": (5052, "u1")}
_WORDS_AT = 24
#: Draws taken fewer than this many at a time are made by ``next_draws`` where
#: ``PYTHON_DRAWS`` is set.
PYTHON_DRAWS_BELOW = 64


def seed_words(seed: int) -> list[int]:
    """The 624 state words that ``torch.Generator().manual_seed(seed)`` stores: mt19937's
    seeding (``init_genrand``, as ``std::mt19937(seed)`` does), of which only the low 32
    bits of ``seed`` decide.

    Args:
        seed: a Python int; a negative one counts as its 64-bit two's complement.

    Returns:
        A list of 624 ints in ``[0, 2**32)``.

    Raises:
        ValueError: ``seed`` outside ``[-2**63, 2**64 - 1]`` (what torch's 64-bit seed holds).
    """
    # BEGIN PIECE seed_words
    # Word 0 is the low 32 bits of seed; word i is 1812433253 * (w ^ (w >> 30)) + i of the
    # word w before it, mod 2**32.
    if not -(2**63) <= seed < 2**64:
        raise ValueError("Overflow when unpacking long long")
    words = [seed & 0xFFFFFFFF]  # a negative seed counts as its two's complement
    for i in range(1, N):
        w = words[-1]
        words.append((1812433253 * (w ^ (w >> 30)) + i) & 0xFFFFFFFF)
    return words
    # END PIECE


def twist(words: Sequence[int]) -> list[int]:
    """The 624 state words after one mt19937 twist of ``words``: what torch's
    ``mt19937_engine::twist`` (the twist of ``std::mt19937``) leaves in the state. The first
    draw after seeding runs it, and so does every 624th draw after that one, before
    tempering its word.

    Args:
        words: the 624 state words, ints in ``[0, 2**32)`` (a tuple or a list; left as it is).

    Returns:
        A new list of 624 ints in ``[0, 2**32)``.

    Raises nothing on such words; other input (not 624 words, words wider than 32 bits) is
    outside the contract: torch's state cannot hold it.
    """
    # BEGIN PIECE twist
    # For i = 0 .. 623 in this order, indices mod 624, replacing the words in place (so from
    # i = 227 on, word i + 397 is one this twist already replaced, and i = 623 reads the new
    # word 0): y = (s[i] & 0x80000000) | (s[i+1] & 0x7FFFFFFF);
    # s[i] = s[i+397] ^ (y >> 1) ^ (0x9908B0DF if y is odd else 0).
    new = list(words)
    for i in range(N):  # in order: from i = 227 on, word i + 397 is one this loop replaced
        y = (new[i] & 0x80000000) | (new[(i + 1) % N] & 0x7FFFFFFF)
        new[i] = new[(i + 397) % N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    return new
    # END PIECE


def temper(y: int) -> int:
    """The 32-bit raw draw that mt19937 outputs for the state word ``y``: its tempering
    (torch's ``mt19937_engine``, as ``std::mt19937``).

    Args:
        y: a state word, an int in ``[0, 2**32)``.

    Returns:
        An int in ``[0, 2**32)``.
    """
    # BEGIN PIECE temper
    # Two right and two masked left shift-and-xors, each kept within 32 bits.
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)
    # END PIECE


def next_draws(words: Sequence[int], left: int, position: int, n: int,
               twist: Callable[[Sequence[int]], Sequence[int]],
               temper: Callable[[int], int]) -> tuple[list[int], Sequence[int], int, int]:
    """The next ``n`` raw 32-bit draws of an mt19937 state as torch keeps it, and the state
    after them: what torch's ``mt19937_engine`` does for ``n`` calls of its ``operator()``
    (``CPUGeneratorImpl::random()``).

    Args:
        words: the 624 state words, ints in ``[0, 2**32)`` (a tuple; left as it is).
        left: torch's ``left``, in ``1..624`` (1 after ``manual_seed``).
        position: torch's ``next``, in ``0..624`` (0 after ``manual_seed``), with
            ``left + position <= 625``; a state with a larger sum (which ``set_state``
            accepts) makes torch read past its 624 words and is outside the contract.
        n: how many draws, ``n >= 0``.
        twist: the function that twists 624 words (the generator passes its ``twist``).
        temper: the function that makes a draw from a word (the generator passes its
            ``temper``).

    Returns:
        ``(draws, words, left, position)``: a list of ``n`` ints in ``[0, 2**32)``, and the
        state after them (``words`` as given when no twist happened).
    """
    # BEGIN PIECE next_draws
    # Each draw: left -= 1; when left reaches 0, twist and set left = 624, next = 0; then
    # the draw is temper(words[next]), and next += 1.
    draws = []
    for _ in range(n):
        left -= 1
        if left == 0:
            words, left, position = twist(words), N, 0
        draws.append(temper(words[position]))
        position += 1
    return draws, words, left, position
    # END PIECE


def state_bytes(seed: int, words: Sequence[int], left: int, position: int,
                double_normal: float | None, float_normal: float | None) -> bytes:
    """The 5056 bytes of ``torch.Generator.get_state()`` (torch's ``CPUGeneratorImplState``)
    for a CPU generator holding these fields.

    Args:
        seed: the 64-bit seed ``initial_seed()`` returns, an int in ``[0, 2**64)``.
        words: the 624 state words, ints in ``[0, 2**32)``.
        left: torch's ``left``, in ``1..624``.
        position: torch's ``next``, in ``0..624``.
        double_normal: the cached float64 normal, or None when there is none.
        float_normal: the cached float32 normal (a float32 value), or None.

    Returns:
        ``bytes`` of length 5056, laid out as chapter 8's table says (little-endian, every
        byte not listed there zero).
    """
    # BEGIN PIECE state_bytes
    # seed u64, left i32, seeded i32 (1), next u64; 624 words as u64; 8 unused bytes, the
    # double cache f64, 8 unused, its flag i32, 4 pad, the float cache f32, its flag (1 byte),
    # 3 pad. A missing cache is 0 with flag 0; a cached -0.0 keeps its sign.
    import struct

    head = struct.pack("<QiiQ", seed, left, 1, position)
    body = struct.pack(f"<{N}Q", *words)
    tail = struct.pack("<8xd8xi4xf?3x",
                       0.0 if double_normal is None else double_normal,
                       double_normal is not None,
                       0.0 if float_normal is None else float_normal,
                       float_normal is not None)
    return head + body + tail
    # END PIECE


#: Does the generator make draws taken a few at a time with ``next_draws``? Yes in the
#: student edition (where the piece runs the student's answer, or a published chapter's
#: body); no in the reference, whose NumPy route is faster. Asked once, here.
PYTHON_DRAWS = pieces.stubbed(next_draws)


def _seed_value(value: Any) -> int:
    """The 64-bit seed torch stores for ``value``: negative ints as two's complement.

    Raises:
        RuntimeError: not an int (a bool, float or string). TypeError: an int-like object
        that is not a Python int. ValueError: outside [-2**63, 2**64 - 1].
    """
    if isinstance(value, builtins.bool) or not isinstance(value, int):
        if hasattr(value, "__index__") and not isinstance(value, builtins.bool):
            raise TypeError("an integer is required")
        raise RuntimeError(f"manual_seed expected a long, but got {type(value).__name__}")
    if not -(2**63) <= value < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return value % 2**64


class Generator:
    """A CPU random number generator (``torch.Generator``).

    Args:
        device: only ``"cpu"`` (any index); torch without CUDA raises RuntimeError for others.

    A new generator is seeded with 67280421310721, as in torch.
    """

    def __init__(self, device: Any = "cpu") -> None:
        where = device if isinstance(device, _device) else _device(device)
        if where.type == "cuda":
            raise RuntimeError("Cannot get CUDA generator without ATen_cuda library.")
        if where.type != "cpu":
            raise RuntimeError(f"{where.type.upper()} device type not an accelerator.")
        self._device = CPU
        self.manual_seed(DEFAULT_SEED)

    # ----------------------------------------------------------------------- seeding
    def manual_seed(self, seed: int) -> Generator:
        """Seed the engine with ``seed mod 2**32``, remember all 64 bits, clear the cached
        normals. Returns self.

        Raises:
            RuntimeError: a non-int seed. ValueError: a seed outside [-2**63, 2**64 - 1].
        """
        self._seed = _seed_value(seed)
        self._mt: Any = None  # the engine, made on first use (see ``_engine``)
        self._mt_ints: Any = None
        self._python: tuple[Sequence[int], int, int] | None = None  # see ``_state``
        self._after_twist_next = 0  # torch reports next = 0 until the first twist
        self._pending = 0
        self._normal_double: float | None = None
        self._normal_float: float | None = None
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy (64 bits) and return that seed."""
        value = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        """The 64-bit seed last set (an int in [0, 2**64))."""
        return self._seed

    @property
    def device(self) -> _device:
        return self._device

    # ------------------------------------------------------------------------ the state
    # torch's state is (words, left, next). The generator holds it in one of two places:
    # * in Python, ``self._python = (words, left, next)``, after draws made by
    #   ``next_draws`` (the student edition's few draws);
    # * otherwise in the NumPy engine (key = words, pos = next, or pos = 624 when left = 1:
    #   the next draw twists), with ``_after_twist_next``, torch's next while pos is 624, and
    #   ``_pending``, the draws a loaded state serves from its words before its next twist
    #   (``left - 1`` when ``left + next != 625``, see ``set_state``); with none made yet
    #   (``_mt is None``), the state is manual_seed's: seed_words, left 1, next 0.
    @property
    def _engine(self) -> Any:
        """The mt19937 engine (``np.random.MT19937``) holding the state. Made on first use:
        NumPy's random module costs ~10 ms to import, which ``import reftensor`` would
        otherwise pay for its default generator."""
        if self._python is not None:  # the state is in Python: hand it to the engine
            words, left, nxt = self._python
            self._python = None
            self._load(np.array(words, dtype=np.uint32), left, nxt)
        elif self._mt is None:
            self._load(np.array(seed_words(self._seed), dtype=np.uint32), 1, 0)
        return self._mt

    @property
    def _ints(self) -> Any:
        """A NumPy ``Generator`` over the engine: its bulk draws of whole words."""
        self._engine  # noqa: B018 (made on first use)
        return self._mt_ints

    def _load(self, words: np.ndarray, left: int, nxt: int) -> None:
        """Put torch's state (words, left, next) into the engine."""
        if self._mt is None:
            self._mt = np.random.MT19937()
            self._mt_ints = np.random.Generator(self._mt)
        # a state whose left + next != 625 serves left - 1 draws from word next on, then
        # twists; past word 623 torch reads undefined memory (the engine twists there)
        self._pending = 0 if left + nxt == N + 1 else left - 1
        self._mt.state = {"bit_generator": "MT19937",
                          "state": {"key": words, "pos": N if left == 1 else nxt}}
        self._after_twist_next = nxt

    def _state(self) -> tuple[Sequence[int], int, int]:
        """torch's (words, left, next), wherever the generator holds them."""
        if self._python is not None:
            return self._python
        if self._mt is None:
            return tuple(seed_words(self._seed)), 1, 0
        state = self._mt.state["state"]
        pos = int(state["pos"])
        if self._pending:
            left, nxt = self._pending + 1, self._after_twist_next
        elif pos == N:  # the next draw twists; torch's next is where its last draw left it
            left, nxt = 1, self._after_twist_next
        else:
            left, nxt = N + 1 - pos, pos
        return tuple(state["key"].tolist()), left, nxt

    # ------------------------------------------------------------------------ draws
    def _draw32(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs of mt19937 (uint32), torch's ``random()``."""
        if PYTHON_DRAWS and n < PYTHON_DRAWS_BELOW:
            return self._few(n)
        engine = self._engine
        if self._pending:
            return self._from_pending(n)
        if n:
            self._after_twist_next = N
        if n < PYTHON_DRAWS_BELOW:  # NumPy's Generator costs more per call
            return engine.random_raw(n).astype(np.uint32)
        return self._mt_ints.integers(0, 2**32, size=n, dtype=np.uint32)

    def _few(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs, made by ``next_draws`` on torch's state, which the
        generator then holds in Python (``_state``)."""
        given = self._state()
        draws, words, left, nxt = next_draws(given[0], given[1], given[2], n, twist, temper)
        if words is not given[0]:  # twisted: the tuple that the next call gets
            words = tuple(words)
        self._python = (words, left, nxt)
        return np.array(draws, dtype=np.uint32)

    def _draw64(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit values ``(first << 32) | second`` (uint64), torch's
        ``random64()``: two 32-bit outputs each."""
        if not (PYTHON_DRAWS and 2 * n < PYTHON_DRAWS_BELOW):
            ints = self._ints
            if not self._pending:
                if n:
                    self._after_twist_next = N
                return ints.integers(0, 2**64, size=n, dtype=np.uint64)
        words = self._draw32(2 * n).astype(np.uint64)  # a loaded state's pending words,
        return (words[0::2] << np.uint64(32)) | words[1::2]  # or a few draws

    def _from_pending(self, n: int) -> np.ndarray:
        """Draws that a loaded state serves from its words before its next twist (a state
        where ``left + next != 625``, see ``_load``): the engine stands at word ``next``."""
        served = min(n, self._pending)
        head = self._mt.random_raw(served).astype(np.uint32)
        self._pending -= served
        self._after_twist_next += served
        if not self._pending:  # left is 1: the next draw twists
            key = self._mt.state["state"]["key"]
            self._mt.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": N}}
        if served == n:
            return head
        return np.concatenate([head, self._draw32(n - served)])

    # ------------------------------------------------------------------------ state
    def get_state(self) -> Tensor:
        """The generator's state as torch lays it out: a uint8 tensor of 5056 bytes, made by
        ``state_bytes``."""
        words, left, nxt = self._state()
        raw = state_bytes(self._seed, words, left, nxt, self._normal_double,
                          self._normal_float)
        if not isinstance(raw, bytes | bytearray) or len(raw) != STATE_SIZE:
            raise RuntimeError(f"state_bytes gave {type(raw).__name__} of length "
                               f"{len(raw) if hasattr(raw, '__len__') else '?'}; "
                               f"a CPU generator's state is {STATE_SIZE} bytes")
        return factories._from_numpy(np.frombuffer(bytes(raw), np.uint8).copy())

    def set_state(self, new_state: Tensor) -> Generator:
        """Load a state made by ``get_state`` (here or in torch). Returns self.

        The state words and ``next`` are truncated to 32 bits, the flags read as booleans.
        A state whose ``left + next != 625``
        serves its next ``left - 1`` draws from words ``next, next + 1, ...`` and then
        twists, as torch does.

        Raises:
            TypeError: not a uint8 tensor. RuntimeError: not contiguous, not 5056 bytes, or
            fields torch calls an invalid mt19937 state (``seeded == 0``, ``left`` not in
            1..624, ``next > 624``).
        """
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype != dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if not new_state.is_contiguous():
            raise RuntimeError("RNG state must be contiguous")
        if new_state.numel() != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input "
                f"RNG state size to be {new_state.numel()}")
        raw = new_state.numpy().reshape(-1).tobytes()
        field = {name: np.frombuffer(raw, kind, 1, at)[0].item()
                 for name, (at, kind) in _FIELDS.items()}
        nxt = field["next"] & 0xFFFFFFFF  # torch keeps next as a 32-bit count
        left = field["left"]
        if field["seeded"] == 0 or not 0 < left <= N or nxt > N:
            raise RuntimeError("Invalid mt19937 state")
        self._seed = field["seed"]
        self._python = None
        self._load(np.frombuffer(raw, "<u8", N, _WORDS_AT).astype(np.uint32), left, nxt)
        self._normal_double = field["double"] if field["double_valid"] else None
        self._normal_float = field["float"] if field["float_valid"] else None
        return self

    def __repr__(self) -> str:
        return f"<reftensor.Generator object at {id(self):#x}>"


# The generator every random function uses when it gets no ``generator=``
# (``torch.default_generator``); it starts from a seed read from the operating system.
default_generator = Generator()
default_generator.seed()


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator with ``int(seed)`` (``torch.manual_seed``); returns it.

    Raises:
        TypeError/ValueError: ``int(seed)`` fails. ValueError: outside [-2**63, 2**64 - 1].
    """
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the operating system; returns the seed
    (``torch.seed``)."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's 64-bit seed (``torch.initial_seed``)."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state, 5056 uint8 values (``torch.get_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Load a state into the default generator (``torch.set_rng_state``)."""
    default_generator.set_state(new_state)


@contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Save the default generator's state on entry and restore it on exit
    (``torch.random.fork_rng``), so draws inside do not move the stream outside.

    Raises:
        AssertionError: ``devices`` names accelerator devices, as torch without CUDA does.
    """
    if not enabled:
        yield
        return
    if devices:  # torch would fork the CUDA generators here
        raise AssertionError("Torch not compiled with CUDA enabled")
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
