"""Native engines, compiled with numba: exact cover (``dlx``), propagation and backtracking
(``propagation``, ``backtrack``), the ant colony (``acs``) and hill climbing (``hillclimb``), the
carving of minimal puzzles for the generator (``carve``), with what they share: the chunked
driver that watches the clock (``chunks``) and the random generator (``prng``).
``NativeInputError`` is what they raise for an input they cannot take.
"""

from __future__ import annotations

from ..errors import SudokuCpError

__all__ = ["NativeInputError"]


class NativeInputError(SudokuCpError, ValueError):
    """An input a native engine cannot take: a bad limit or parameter, malformed options, a grid too big."""
