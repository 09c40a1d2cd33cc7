"""The one random generator of the compiled searches: splitmix64, with its state in a numpy array.

Reference: G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014, doi:10.1145/2660193.2660195 (the SplitMix64 output function).  Each step adds a
fixed odd constant to a 64-bit counter and returns a bijective mix of it, so every state,
zero included, is valid and one seed gives one stream.

The state is a one-element uint64 array (``seed_state``) that a kernel carries along with the
rest of its search state: a search that runs in chunks draws the same numbers however it is
chunked, so a seed fixes every decision.
"""

from __future__ import annotations

import numba
import numpy as np

from ..limits import watch_compilation

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["next_bits", "seed_state", "uniform", "uniform_below"]

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15  # the splitmix64 increment: 2**64 divided by the golden ratio, odd
# An odd 64-bit multiplier with good spectral scores (Steele & Vigna, "Computationally easy, spectrally
# good multipliers for congruential pseudorandom number generators", 2022; Java's LXM generators use it).
_SEED_MULTIPLIER = 0xD1342543DE82EF95


def seed_state(seed: int) -> np.ndarray:
    """The generator state of an integer seed (any int; taken modulo 2**64).

    The seed is multiplied by an odd constant once, so that nearby seeds start far apart in the
    sequence instead of one step from each other.
    """
    return np.array([(seed * _SEED_MULTIPLIER) & _MASK64], np.uint64)


@numba.njit(cache=True, inline="always")
def next_bits(rng: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """Advance the state in ``rng[0]`` and return 64 random bits."""
    rng[0] += np.uint64(_GOLDEN)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def uniform(rng: np.ndarray) -> float:  # pragma: no cover - compiled
    """A uniform float in [0, 1) with 53 random bits."""
    return float(next_bits(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True, inline="always")
def uniform_below(rng: np.ndarray, m: int) -> int:  # pragma: no cover - compiled
    """A uniform integer in 0..m-1 (m >= 1); the modulo bias is below m / 2**53, negligible here."""
    return np.int64((next_bits(rng) >> np.uint64(11)) % np.uint64(m))  # type: ignore[return-value]
