"""Every native backend checked through the audit on every box shape: zero wrong answers.

The native search backends of issue 6 (``backtrack``, ``acs``, ``hill``) are registered by their
own modules; a backend the registry does not know yet is skipped with the reason, so this file
is useful before they land and complete after.  ``pysat`` and ``dlx`` run too, as a baseline
that must pass the same audit.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines, shared_file

from sudoku_cp.audit import BackendSolver, GroundTruth, RunResult, SolverTally, Verdict, audit
from sudoku_cp.backends.base import BackendError
from sudoku_cp.formats import PuzzleItem, format_line, parse_puzzles
from sudoku_cp.geometry import Geometry
from sudoku_cp.random_grids import blank_cells, random_solution

COMPLETE = ("pysat", "dlx", "backtrack")  # exhaustive: must answer every run correctly
STOCHASTIC = ("acs", "hill", "ils")  # incomplete: may time out or give up, never be wrong
SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4)]  # 4x4, 6x6 both ways, 8x8, 9x9, 12x12
OWNERS = {"backtrack": "N1", "acs": "N1", "hill": "N2"}
# Singles propagation reaches a contradiction: no solution, though no two givens are equal.
UNSOLVABLE = ".1.3.982.632157.4..5...4.1.8254..169.....64323469.........4.57..7..9.68.1.487.2.."
EQUAL_GIVENS = "44" + "." * 79


def solver(name: str, isolate: bool = False) -> BackendSolver:
    """The audited backend, or a skip naming who registers it."""
    try:
        return BackendSolver(name, isolate=isolate)
    except BackendError:
        owner = OWNERS.get(name, "its owner")
        pytest.skip(f"backend {name!r} is not in the registry yet ({owner}'s part of issue 6)")


def shape_items(shape: tuple[int, int], count: int, seed: int) -> list[PuzzleItem]:
    """``count`` puzzles of one shape, blanked from random solutions at 30% to 60%."""
    rng = np.random.default_rng(seed)
    geometry = Geometry(*shape)
    lines = [
        format_line(blank_cells(random_solution(geometry, rng), 0.3 + 0.3 * k / max(1, count - 1), rng))
        for k in range(count)
    ]
    return parse_puzzles("\n".join(lines), box=shape)


def check(results: list[RunResult], complete: bool) -> SolverTally:
    """Tally the runs and assert what every backend owes: no wrong answer, no crash."""
    t = SolverTally(results[0].solver)
    for result in results:
        t.add(result)
    bad = [r for r in results if r.verdict in (Verdict.WRONG, Verdict.CRASH)]
    assert not bad, "\n".join(f"#{r.index + 1} run {r.run + 1}: {r.verdict.value}: {r.detail}" for r in bad)
    if complete:
        assert t.verdicts[Verdict.CORRECT] == t.runs, [
            r.detail for r in results if r.verdict is not Verdict.CORRECT
        ]
    return t


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: f"{shape[0]}x{shape[1]}")
@pytest.mark.parametrize("name", COMPLETE + STOCHASTIC)
def test_every_answer_on_every_box_shape_passes_the_audit(name: str, shape: tuple[int, int]) -> None:
    audited = solver(name)
    runs = 3 if name in STOCHASTIC else 1
    results = list(
        audit(
            shape_items(shape, 4, seed=shape[0] * 10 + shape[1]),
            [audited],
            runs=runs,
            seed=11,
            time_limit=10.0,
        )
    )
    tally = check(results, name in COMPLETE)
    # Easy random puzzles: an incomplete solver that solves none of them is broken, not unlucky.
    assert tally.verdicts[Verdict.CORRECT] >= tally.runs // 2, tally.to_json()


@pytest.mark.parametrize("name", COMPLETE + STOCHASTIC)
def test_no_solution_claims_hold_on_contradictory_puzzles(name: str) -> None:
    audited = solver(name)
    items = parse_puzzles(f"{UNSOLVABLE}\n{EQUAL_GIVENS}")
    results = list(audit(items, [audited], runs=2, seed=3, time_limit=1.0))
    check(results, name in COMPLETE)  # stochastic ones may say 'unknown'; never a solution


@pytest.mark.parametrize("name", COMPLETE + STOCHASTIC)
def test_uniqueness_claims_hold_on_multi_solution_puzzles(name: str) -> None:
    audited = solver(name)
    items = parse_puzzles("\n".join(read_lines(DATA / "serg_100.txt", 3)))
    ground = GroundTruth()
    results = list(audit(items, [audited], runs=2, seed=5, time_limit=5.0, unique=True, truth=ground))
    check(results, name in COMPLETE)
    if name in COMPLETE:
        assert {r.claimed.value for r in results} == {"multiple"}


@pytest.mark.parametrize("name", COMPLETE + STOCHASTIC)
def test_hard_9x9_puzzles_pass_the_audit(name: str) -> None:
    audited = solver(name, isolate=True)  # in a worker process, as 'sudoku-cp verify' runs it
    items = parse_puzzles("\n".join(read_lines(DATA / "norvig_top95.txt", 3)))
    limit = 1.0 if name in STOCHASTIC else 10.0  # hard for local search: a short limit keeps this quick
    check(list(audit(items, [audited], seed=7, time_limit=limit, unique=True)), name in COMPLETE)


CORPORA = [
    ("sudoku9/euler96_easy50.txt", None, 10.0),
    ("sudoku9/norvig_top95.txt", 20, 10.0),
    ("acs/general/inst16x16_45_*.txt", None, 20.0),
    ("acs/general/inst25x25_45_*.txt", None, 30.0),
    ("acs/logic-solvable/*.txt", None, 10.0),
]


@pytest.mark.slow
@pytest.mark.parametrize(("pattern", "limit", "seconds"), CORPORA, ids=[c[0] for c in CORPORA])
@pytest.mark.parametrize("name", COMPLETE + STOCHASTIC)
def test_shared_corpora_pass_the_audit(name: str, pattern: str, limit: int | None, seconds: float) -> None:
    """The corpora of issue 6's 'done means': every answer of every solver passes (slow)."""
    audited = solver(name)
    if "*" in pattern:
        folder, glob = pattern.rsplit("/", 1)
        paths = sorted(shared_file(folder).glob(glob))
        items = [
            PuzzleItem(k, 1, item.grid, item.error)
            for k, path in enumerate(paths)
            for item in parse_puzzles(path.read_text())
        ]
    else:
        items = parse_puzzles("\n".join(read_lines(shared_file(pattern), limit)))
    results = list(audit(items, [audited], runs=2 if name in STOCHASTIC else 1, seed=1, time_limit=seconds))
    check(results, name in COMPLETE and "25x25" not in pattern)
