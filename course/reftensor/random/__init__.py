"""Chapter 8: random number generation, reproducing torch's CPU generator bit for bit.

``reftensor.random`` is ``torch.random`` (the generator functions and ``fork_rng``), and the
package holds the samplers, one concept per module:

* ``generator.py``: ``Generator`` (an mt19937 engine, the 64-bit seed, the cached normal,
  torch's 5056-byte state), the default generator and the module-level functions;
* ``fill.py``: how every sampler writes a tensor (memory order, in-place rules);
* ``uniform.py``: ``rand``, ``uniform_`` (floats from the low 24 or 53 bits);
* ``integers.py``: ``random_``, ``randint``, ``randperm`` (modulo and Fisher-Yates);
* ``normal.py``: ``randn``, ``normal_``, ``normal`` (Box-Muller: fill and serial paths);
* ``normal_float32.py``: the float32 Box-Muller kernel of torch's AVX2 and DEFAULT builds;
* ``fma.py``: exact fused multiply-add, and the profile switch between those builds;
* ``discrete.py``: ``bernoulli``, ``exponential_``, ``multinomial``.

``nn.functional.dropout`` draws its mask with ``discrete.py``.
"""

from . import discrete, fill, generator, integers, normal, uniform
from .fma import PROFILES, get_profile, set_profile
from .generator import (
    Generator,
    default_generator,
    fork_rng,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
    "manual_seed", "seed", "set_rng_state", "PROFILES", "get_profile", "set_profile",
    "discrete", "fill", "generator", "integers", "normal", "uniform",
]
