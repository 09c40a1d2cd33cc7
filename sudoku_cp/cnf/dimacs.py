"""DIMACS CNF text: writing clause blocks fast, for models of any size."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TextIO

import numpy as np

from .sudoku import SudokuCnf

__all__ = ["block_lines", "dimacs_text", "write_dimacs"]


def block_lines(block: np.ndarray) -> str:
    """Clause lines ('l1 l2 ... 0') for an (m, w) block of equal-width clauses."""
    rows, width = block.shape
    if rows == 0:
        return ""
    if width == 0:
        return "0\n" * rows
    tokens = np.empty((rows, width + 1), dtype=object)
    tokens[:, :width] = (
        np.array(list(map(str, block.ravel().tolist())), dtype=object).reshape(rows, width) + " "
    )
    tokens[:, width] = "0\n"
    return "".join(tokens.ravel().tolist())


def write_dimacs(
    out: TextIO, blocks: Iterable[np.ndarray], n_vars: int, n_clauses: int, comments: Sequence[str] = ()
) -> None:
    """Write comments, the 'p cnf' header and every clause block to a text stream."""
    for comment in comments:
        out.write(f"c {comment}\n" if comment else "c\n")
    out.write(f"p cnf {n_vars} {n_clauses}\n")
    for block in blocks:
        out.write(block_lines(block))


def dimacs_text(cnf: SudokuCnf) -> str:
    """The DIMACS text of a Sudoku CNF model, with its header comments."""
    import io

    out = io.StringIO()
    blocks = (block for family in cnf.families for block in family.blocks)
    write_dimacs(out, blocks, cnf.n_vars, cnf.n_clauses, cnf.comments())
    return out.getvalue()
