"""The errors the 3-SAT -> Nishio reduction raises on purpose.

``ReductionError`` is bad input (a formula the gadgets cannot take, an unknown fill, an
assignment that falsifies the formula, a set of cells that is no placement); ``MetadataError``
names where in a metadata object the first problem lies.  Both are ``ValueError`` too, which
callers have always caught.  A decoder that contradicts itself raises
``decode.ReductionDecodeError`` instead: that is a bug, not bad input.
"""

from __future__ import annotations

from ..errors import SudokuCpError

__all__ = ["MetadataError", "ReductionError"]


class ReductionError(SudokuCpError, ValueError):
    """The reduction cannot do what was asked with this input."""


class MetadataError(ReductionError):
    """Reduction metadata that is malformed or inconsistent; ``where`` says which part."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what
