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
``seed_words``: it holds the words and the position, and makes bulk draws (64 or more at a
time), twisting and tempering in C. Draws taken a few at a time (fewer than 64) are made here
instead: ``twist`` renews the 624 words when such draws reach a twist, and ``temper`` makes
each draw from its word, as it does for the draws a loaded state had pending before its next
twist (``set_state``). Both routes give torch's stream, bit for bit.
"""

from __future__ import annotations

import builtins
import os
import struct
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .. import dtypes, factories
from ..device import CPU
from ..device import device as _device
from ..tensor import Tensor

__all__ = [
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "set_rng_state", "fork_rng", "seed_words", "twist", "temper",
]

STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState) in torch 2.13
DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val: the seed of Generator()
N = 624  # words of mt19937 state
_HEADER = struct.Struct("<QiiQ")  # seed, left, seeded, next
_TAIL = struct.Struct("<ddd i 4x f ? 3x")  # unused, cached double normal, unused, its flag,
#                                            cached float normal, its flag


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
        self._after_twist_next = 0  # torch reports next = 0 until the first twist
        self._prefix: np.ndarray | None = None
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

    # ------------------------------------------------------------------------ draws
    @property
    def _engine(self) -> Any:
        """The mt19937 engine (``np.random.MT19937``), seeded with the low 32 bits of the
        seed. Made on first use: NumPy's random module costs ~10 ms to import, which
        ``import reftensor`` would otherwise pay for its default generator."""
        if self._mt is None:
            self._mt = np.random.MT19937()
            words = np.array(seed_words(self._seed), dtype=np.uint32)
            self._mt.state = {"bit_generator": "MT19937",  # pos 624: the first draw twists
                              "state": {"key": words, "pos": N}}
            self._mt_ints = np.random.Generator(self._mt)
        return self._mt

    @property
    def _ints(self) -> Any:
        """A NumPy ``Generator`` over the engine: its bulk draws of whole words."""
        self._engine  # noqa: B018 (made on first use)
        return self._mt_ints

    def _draw32(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs of mt19937 (uint32), torch's ``random()``."""
        if self._prefix is not None:
            return self._from_prefix(n)
        if n:
            self._after_twist_next = N
        if n < 64:  # a few draws: twisted and tempered here
            return self._few(n)
        return self._ints.integers(0, 2**32, size=n, dtype=np.uint32)

    def _few(self, n: int) -> np.ndarray:
        """The next ``n`` (fewer than 624) 32-bit outputs, made in Python: ``twist`` renews
        the engine's words when the draws reach the end of them, ``temper`` makes each draw.
        The engine is left where NumPy's own draws would leave it."""
        engine = self._engine
        state = engine.state["state"]
        key, pos = state["key"], int(state["pos"])
        words = key[pos:pos + n].tolist()  # what is left of these words
        pos += len(words)
        if len(words) < n:  # the draws reach a twist
            key = np.array(twist(tuple(key.tolist())), dtype=np.uint32)
            pos = n - len(words)
            words += key[:pos].tolist()
        engine.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        return np.array([temper(w) for w in words], dtype=np.uint32)

    def _draw64(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit values ``(first << 32) | second`` (uint64), torch's
        ``random64()``: two 32-bit outputs each."""
        if self._prefix is not None or n < 32:  # as 2n 32-bit draws (a loaded state's
            words = self._draw32(2 * n).astype(np.uint64)  # pending words, or a few draws)
            return (words[0::2] << np.uint64(32)) | words[1::2]
        self._after_twist_next = N
        return self._ints.integers(0, 2**64, size=n, dtype=np.uint64)

    def _from_prefix(self, n: int) -> np.ndarray:
        """Draws that a loaded state serves from its words before its next twist (a state
        where ``left + next != 625``, see ``set_state``)."""
        assert self._prefix is not None
        served = min(n, self._pending)
        head, self._prefix = self._prefix[:served], self._prefix[served:]
        self._pending -= served
        self._after_twist_next += served
        if head.shape[0] < served:  # words past 623: undefined in torch; use the engine's
            head = np.concatenate([head, self._engine.random_raw(served - head.shape[0])
                                   .astype(np.uint32)])
        if not self._pending:
            self._prefix = None
        if served == n:
            return head
        return np.concatenate([head, self._draw32(n - served)])

    # ------------------------------------------------------------------------ state
    def _left_next(self) -> tuple[int, int]:
        """torch's ``left`` and ``next`` for the current engine position."""
        if self._prefix is not None:
            return self._pending + 1, self._after_twist_next
        pos = self._engine.state["state"]["pos"]
        if pos == N:  # the next draw twists; torch's next is where its last draw left it
            return 1, self._after_twist_next
        return N + 1 - pos, pos

    def get_state(self) -> Tensor:
        """The generator's state as torch lays it out: a uint8 tensor of 5056 bytes.

        Layout (little-endian): u64 seed, i32 left, i32 seeded (1), u64 next, 624 u64
        state words, then the cached normals (f64 value at byte 5024 with an i32 flag at
        5040; f32 value at 5048 with a bool flag at 5052); padding is zero.
        """
        left, nxt = self._left_next()
        words = self._engine.state["state"]["key"].astype("<u8").tobytes()
        double, single = self._normal_double, self._normal_float
        raw = (_HEADER.pack(self._seed, left, 1, nxt) + words
               + _TAIL.pack(0.0, double or 0.0, 0.0, double is not None,
                            single or 0.0, single is not None))
        assert len(raw) == STATE_SIZE
        return factories.from_numpy(np.frombuffer(raw, np.uint8).copy())

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
        seed_, left, seeded, nxt = _HEADER.unpack_from(raw, 0)
        nxt &= 0xFFFFFFFF  # torch keeps next as a 32-bit count
        if seeded == 0 or not 0 < left <= N or nxt > N:
            raise RuntimeError("Invalid mt19937 state")
        words = np.frombuffer(raw, "<u8", N, _HEADER.size).astype(np.uint32)
        _, double, _, double_ok, single, single_ok = _TAIL.unpack_from(raw, _HEADER.size + 8 * N)
        self._seed = seed_
        self._mt = np.random.MT19937()
        if left + nxt == N + 1:  # the usual case: draws continue at word next
            self._mt.state = {"bit_generator": "MT19937",
                                  "state": {"key": words, "pos": nxt}}
            self._prefix = None
        else:  # left - 1 draws from word next on (past word 623 torch reads undefined memory)
            self._mt.state = {"bit_generator": "MT19937", "state": {"key": words, "pos": N}}
            served = words[nxt:nxt + left - 1].tolist()
            self._prefix = np.array([temper(w) for w in served], dtype=np.uint32) \
                if left > 1 else None
            self._pending = left - 1
        self._after_twist_next = nxt
        self._mt_ints = np.random.Generator(self._mt)
        self._normal_double = double if double_ok else None
        self._normal_float = single if single_ok else None
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
