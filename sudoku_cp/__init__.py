"""sudoku_cp: Sudoku grids of any box shape as CNF, exact-cover and CP-SAT models, solved and checked.

Glossary: one name per concept, the same in the code, the command line and JSON (0-based inside
the code, 1-based wherever a user reads it, as in R9C5).

Grids
    * n: side of the grid; p x q: box shape, p rows by q columns, n = p * q.
    * cell: flat index r * n + c; unit: a row, column or box (3n of them); peer: a cell sharing a unit.
    * grid: an (n, n) array of digits 1..n, 0 for an empty cell; puzzle: a grid with blanks.
Models (what a solver is given; ``sudoku-cp encode --to``)
    * model: a puzzle or an instance written for one kind of solver.
    * cnf: the CNF model (``encode_cnf``); its ``CnfEncoding`` picks the constraint families and
      its ``AmoEncoding`` (``amo``) how "at most one" is written.  Both are enums inside the code;
      their string values are accepted once, at the boundary (``make_backend``, ``encode_cnf``).
    * xc: the exact-cover model (``exact_cover.build_exact_cover``), written in Knuth's DLX text
      format (``export_dlx``).
    * bool and alldiff: the two CP-SAT models (``cpsat.CpsatModelKind``): a Boolean per candidate,
      or one integer per cell with all-different (``cpsat:alldiff``).
Engines and answers
    * backend: a solver of whole puzzles that finds up to ``limit`` solutions, by name: ``pysat``,
      ``pysat:<solver>``, ``cpsat``, ``cpsat:alldiff``, ``dlx`` (the native Algorithm X on the xc
      model), ``backtrack``, ``acs``, ``hill``, or a DIMACS solver program; every solution is
      checked before it is returned.
    * method: a way to answer the Nishio questions about an instance (the DAG, SAT, CP-SAT, ...).
    * instance: one digit's open cells S of a grid (``nishio.NishioInstance``); a placement: n
      cells of S, one per row, column and box; the closure S': the cells of S in some placement.
    * status: the outcome of one puzzle (``outcome.Status``): solved, unsat, multiple, unknown,
      invalid.  reason: why an answer is unknown (the time limit, an incomplete backend's cap, a
      solver failure), never "no solution" and never an exception.
    * time_limit: seconds, in every public signature (None: no limit); inside, one
      ``limits.Deadline`` made when the work starts.

A few lines to start::

    import sudoku_cp as sc
    hard = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    puzzle = sc.parse_grid(hard)
    result = sc.solve(puzzle, "pysat", unique=True)      # or "cpsat", "cpsat:alldiff", "dlx"
    print(result.status, sc.format_pretty(result.solution))
    cnf = sc.encode_cnf(puzzle, "extended", "seqcounter")  # families of clauses + variable map
    sc.count_solutions(sc.parse_grid("." * 16), "dlx").count   # 288
"""

from typing import TYPE_CHECKING

from .lazy import lazy_names

if TYPE_CHECKING:  # the names below, for type checkers; at run time each is imported on first use
    from .api import BackendOptions, CountResult, PuzzleResult, count_solutions, solve, solve_items
    from .backends.base import Backend, BackendError, BatchBackend, SearchResult
    from .backends.registry import make_backend
    from .checker import VerificationError, check_solution, solution_problem
    from .cnf.sudoku import AmoEncoding, CnfEncoding, SudokuCnf, encode_cnf
    from .errors import SudokuCpError
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
    from .outcome import Status

#: Where each public name lives.  ``import sudoku_cp`` stays cheap (the command line starts fast);
#: ``sudoku_cp.solve`` imports the engine the first time it is asked for.
_HOMES = {
    "AmoEncoding": ".cnf.sudoku",
    "Backend": ".backends.base",
    "BackendError": ".backends.base",
    "BackendOptions": ".api",
    "BatchBackend": ".backends.base",
    "CnfEncoding": ".cnf.sudoku",
    "CountResult": ".api",
    "ExactCoverModel": ".exact_cover",
    "Geometry": ".geometry",
    "GeometryError": ".geometry",
    "Grid": ".grid",
    "GridFormat": ".formats",
    "ParseError": ".formats",
    "PuzzleItem": ".formats",
    "PuzzleResult": ".api",
    "SearchResult": ".backends.base",
    "Status": ".outcome",
    "SudokuCnf": ".cnf.sudoku",
    "SudokuCpError": ".errors",
    "VerificationError": ".checker",
    "build_exact_cover": ".exact_cover",
    "check_solution": ".checker",
    "count_solutions": ".api",
    "encode_cnf": ".cnf.sudoku",
    "format_ints": ".formats",
    "format_line": ".formats",
    "format_pretty": ".formats",
    "geometry_for_size": ".geometry",
    "grid_to_json": ".formats",
    "make_backend": ".backends.registry",
    "parse_grid": ".formats",
    "parse_puzzles": ".formats",
    "solution_problem": ".checker",
    "solve": ".api",
    "solve_items": ".api",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())

__all__ = [
    "AmoEncoding",
    "Backend",
    "BackendError",
    "BackendOptions",
    "BatchBackend",
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
    "SudokuCpError",
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
