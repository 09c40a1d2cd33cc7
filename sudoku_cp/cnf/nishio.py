"""Transitional: the Nishio CNF model moved to ``sudoku_cp.nishio.cnf``.

The command line still imports it from here; remove this file once ``sudoku_cp/cli`` imports
``sudoku_cp.nishio.cnf``.
"""

from ..nishio.cnf import NISHIO_CNF_ENCODINGS, NishioCnf, encode_nishio_cnf, nishio_dimacs_text

__all__ = ["NISHIO_CNF_ENCODINGS", "NishioCnf", "encode_nishio_cnf", "nishio_dimacs_text"]
