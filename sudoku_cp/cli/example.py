"""``sudoku-cp`` with no arguments: solve the built-in hard puzzle and show how to go on."""

from __future__ import annotations

from importlib import resources

from ..checker import check_solution
from ..formats import format_pretty, parse_puzzles
from . import common
from .common import STATUS_EXIT, CliError

__all__ = ["run"]

_EXAMPLE = "example.txt"


def _side_by_side(left: str, right: str, gap: int = 4) -> str:
    lefts, rights = left.splitlines(), right.splitlines()
    width = max(len(line) for line in lefts)
    return "\n".join(f"{a:<{width}}{' ' * gap}{b}".rstrip() for a, b in zip(lefts, rights, strict=True))


def run() -> int:
    """Solve the built-in hard puzzle, show it beside its checked solution, and a hint."""
    from ..api import solve

    text = resources.files("sudoku_cp").joinpath("data", _EXAMPLE).read_text(encoding="utf-8")
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")), "example")
    puzzle = parse_puzzles(text)[0].grid
    if puzzle is None:
        raise CliError(f"the built-in example {_EXAMPLE} is not a puzzle (a broken install?)")
    result = solve(puzzle, "pysat", unique=True)
    if result.solution is None:
        raise CliError(
            f"the built-in example was not solved: {common.status_text(result, True)}", common.EXIT_UNKNOWN
        )
    solution = check_solution(puzzle, result.solution)
    common.out(title)
    common.out()
    width = len(format_pretty(puzzle).splitlines()[0])
    common.out(f"{'puzzle':<{width}}    solution")
    common.out(_side_by_side(format_pretty(puzzle), format_pretty(solution)))
    common.out()
    common.out(f"{common.status_text(result, True)}, checked (pysat, {result.seconds:.3f} s)")
    common.out(f"try: {common.PROG} --help")
    return STATUS_EXIT[result.status]
