"""sudoku_cp: Sudoku grids of any box shape as CNF, exact-cover and CP-SAT models, solved and checked.

Glossary (0-based inside the code, 1-based wherever a user reads it, as in R9C5):

* n: side of the grid; p x q: box shape, p rows by q columns, n = p * q.
* cell: flat index r * n + c; unit: a row, column or box (3n of them); peer: a cell sharing a unit.
* grid: an (n, n) array of digits 1..n, 0 for an empty cell; puzzle: a grid with blanks.
* backend: a solver of whole puzzles (python-sat, CP-SAT, native Algorithm X, a DIMACS program)
  that finds up to ``limit`` solutions; every solution is checked before it is returned.

A few lines to start::

    import sudoku_cp as sc
    hard = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    puzzle = sc.parse_grid(hard)
    result = sc.solve(puzzle, "pysat", unique=True)      # or "cpsat", "cpsat:alldiff", "dlx"
    print(result.status, sc.format_pretty(result.solution))
    cnf = sc.encode_cnf(puzzle, "extended", "seqcounter")  # families of clauses + variable map
    sc.count_solutions(sc.parse_grid("." * 16), "dlx").count   # 288
"""

from .api import BackendOptions, CountResult, PuzzleResult, count_solutions, solve, solve_items
from .backends.base import Backend, BackendError, SearchResult, Status
from .backends.registry import make_backend
from .cnf.sudoku import AmoEncoding, CnfEncoding, SudokuCnf, encode_cnf
from .exact_cover import ExactCoverModel, build_exact_cover
from .formats import (
    GridFormat,
    ParseError,
    PuzzleItem,
    format_ints,
    format_line,
    format_pretty,
    grid_to_json,
    parse_grid,
    parse_puzzles,
)
from .geometry import Geometry, GeometryError, geometry_for_size
from .grid import Grid
from .verify import VerificationError, check_solution, solution_problem

__all__ = [
    "AmoEncoding",
    "Backend",
    "BackendError",
    "BackendOptions",
    "CnfEncoding",
    "CountResult",
    "ExactCoverModel",
    "Geometry",
    "GeometryError",
    "Grid",
    "GridFormat",
    "ParseError",
    "PuzzleItem",
    "PuzzleResult",
    "SearchResult",
    "Status",
    "SudokuCnf",
    "VerificationError",
    "build_exact_cover",
    "check_solution",
    "count_solutions",
    "encode_cnf",
    "format_ints",
    "format_line",
    "format_pretty",
    "geometry_for_size",
    "grid_to_json",
    "make_backend",
    "parse_grid",
    "parse_puzzles",
    "solution_problem",
    "solve",
    "solve_items",
]

__version__ = "0.1.0"
