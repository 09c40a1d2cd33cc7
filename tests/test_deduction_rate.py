"""The rating scale: the heaviest step of the engine's easiest-first solve, the step explain shows."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.deduction.batch import explain_items
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.generate import generate_puzzles
from sudoku_cp.deduction.rate import LEVELS, STUCK_RATING, level_of, rate, rating_of
from sudoku_cp.deduction.rules import RULES, select_rules
from sudoku_cp.deduction.rules.scale import LOOP_BASE, chain_weight, length_bonus, wing_weight
from sudoku_cp.formats import parse_grid, parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import Status

# Project Euler 96, grid 1 (tests/data sample of euler96_easy50): singles alone solve it.
EASY = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
# magictour top1465, line 1: the local rules are stuck on it.
HARD = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"

# Sudoku Exchange "diabolical" bank (public domain; ../shared/data/sudoku9, lines 1, 7, 11, 12,
# 36, 88, 434) with their Sukaku Explainer ratings, which the scale reproduces exactly, and the
# technique of the hardest step.
EXPLAINER = [
    ("083020090000800100029300008000098700070000060006740000300006980002005000010030540", 7.2, "xy-chain"),
    ("520010007080040032007500100000000700410060059002000000009006200360070080200050043", 5.5, "3-link-fish"),
    ("078040600600000590500610000000000009019402350200000000000038005065000003003090480", 6.7, "y-cycle"),
    ("007000500000080000900070001025108930003000600009000200000503000700000006010207040", 5.5, "wxyz-wing"),
    ("500800001000004000004612300035000608002000500608000190006125900000300000100008002", 6.4, "vwxyz-wing"),
    (
        "200700854600580000100090000000000072028000160970000000000050001000038006863007005",
        5.7,
        "grouped-3-link-fish",
    ),
    ("900600007060070030007000200600508002004000800200301009001000500040050010800009004", 7.1, "xy-cycle"),
]


def test_levels_rise_with_the_rating() -> None:
    lows = [low for _, low in LEVELS]
    assert lows == sorted(lows) and lows[0] == 0.0
    assert level_of(None) == "none"
    assert level_of(0.0) == "easy"
    assert level_of(STUCK_RATING) == "unsolved"


def test_easy_puzzle_is_rated_by_its_hardest_rule() -> None:
    rating = rate(parse_grid(EASY))
    assert rating.status is Status.SOLVED
    weights = {rule.name: rule.weight for rule in RULES}
    assert rating.hardest is not None and rating.rating == weights[rating.hardest]
    assert rating.hardest in ("hidden-single", "naked-single")
    assert rating.level == "easy"


def test_a_puzzle_the_rules_cannot_finish_is_rated_above_every_rule() -> None:
    rating = rate(parse_grid(HARD), select_rules(["singles", "locked"]))
    assert rating.status is Status.STUCK
    assert rating.rating == STUCK_RATING > max(rule.weight for rule in RULES)
    assert rating.level == "unsolved"


def test_a_contradiction_has_no_rating() -> None:
    # Two givens 1 side by side in row 1.
    clash = "11" + "." * 79
    rating = rate(parse_grid(clash))
    assert rating.status is Status.UNSAT and rating.rating is None and rating.level == "none"


@pytest.mark.parametrize("names", [["singles"], ["singles", "locked"], None])
def test_more_rules_never_rate_a_solved_puzzle_harder(names: list[str] | None) -> None:
    rating = rate(parse_grid(EASY), select_rules(names) if names else None)
    assert rating.status is Status.SOLVED and rating.rating is not None and rating.rating <= 2.3


# -- the scale's arithmetic ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "bonus"),
    [(0, 0.0), (4, 0.0), (5, 0.1), (6, 0.1), (7, 0.2), (8, 0.2), (9, 0.3), (12, 0.3), (13, 0.4)]
    + [(16, 0.4), (17, 0.5), (24, 0.5), (25, 0.6), (32, 0.6), (33, 0.7)],
)
def test_length_brackets_grow_by_three_halves_then_four_thirds(length: int, bonus: float) -> None:
    assert length_bonus(length) == bonus


def test_chain_weights() -> None:
    # A turbot fish read as a one-digit forcing chain: 5 links, length 4, no bonus.
    assert chain_weight(True, False, 5) == 6.6
    # Mixed chains: 7 links (3 strong) 7.1, 9 links 7.2, 11 and 13 links 7.3.
    assert [chain_weight(False, False, links) for links in (5, 7, 9, 11, 13, 15)] == [
        7.0,
        7.1,
        7.2,
        7.3,
        7.3,
        7.4,
    ]
    # A loop of L links counts L - 2: a 6-link X or Y loop is 6.5, an 8-link one 6.6.
    assert chain_weight(True, True, 6) == chain_weight(False, True, 6, bivalue=True) == LOOP_BASE
    assert chain_weight(False, True, 8, bivalue=True) == 6.6 and chain_weight(False, True, 8) == 7.1


@pytest.mark.parametrize(
    ("size", "widest", "weight"),
    [(2, 2, 4.2), (2, 3, 4.4), (3, 2, 5.5), (3, 3, 5.6), (3, 4, 5.5), (4, 2, 6.3), (4, 3, 6.4), (4, 5, 6.2)],
)
def test_wing_weights(size: int, widest: int, weight: float) -> None:
    assert wing_weight(size, widest) == weight


# -- one engine: the rating is a step explain shows ---------------------------------------------------


@pytest.mark.parametrize(("line", "explainer", "technique"), EXPLAINER)
def test_ratings_of_known_puzzles_match_sudoku_explainer(line: str, explainer: float, technique: str) -> None:
    rating = rate(parse_grid(line))
    assert rating.status is Status.SOLVED
    assert (rating.rating, rating.hardest) == (explainer, technique)
    assert rating.level == level_of(explainer)


def _checked(grid_line: str, uniqueness: bool) -> int:
    """Explain a puzzle and check every step against its solution; return the steps checked."""
    grid = parse_grid(grid_line)
    solution = deduce(grid, select_rules(["all"]), record=False)
    if solution.status is not Status.SOLVED:
        return 0
    truth = solution.board.values
    deduction = deduce(grid, select_rules(uniqueness=uniqueness))
    for step in deduction.steps:
        for cell, digit in step.placements:
            assert truth[cell] == digit + 1, f"{step.rule} placed {digit + 1} in cell {cell}"
        for cell, digit in step.eliminations:
            assert truth[cell] != digit + 1, (
                f"{step.rule} removed the solution's {digit + 1} from cell {cell}"
            )
        assert step.weight is not None
    return len(deduction.steps)


@pytest.mark.parametrize("uniqueness", [False, True])
def test_every_step_agrees_with_the_solution(uniqueness: bool) -> None:
    lines = [line for line, _, _ in EXPLAINER] + read_lines(DATA / "norvig_top95.txt", 20)
    assert sum(_checked(line, uniqueness) > 0 for line in lines) >= 15


@pytest.mark.parametrize("box", [(2, 3), (3, 2), (2, 4), (3, 4)])
def test_other_box_shapes(box: tuple[int, int]) -> None:
    geometry = geometry_for_size(box[0] * box[1], box)
    rng = np.random.default_rng(5)
    solved = 0
    for made in generate_puzzles(geometry, 3, seed=3):
        truth = made.solution.values.reshape(-1)
        # the generated puzzle, and one with 70 % of its solution given at random
        # (a puzzle the rules finish whatever the generator makes; rules never remove a solution)
        halved = truth * (rng.random(truth.size) < 0.7)
        for grid in (made.puzzle, Grid(geometry, halved.reshape(geometry.n, geometry.n))):
            rating = rate(grid)
            if rating.status is Status.STUCK:  # generated puzzles need not yield to the rules
                assert rating.rating == STUCK_RATING
                continue
            assert rating.status is Status.SOLVED and rating.rating is not None
            assert 0.0 < rating.rating < STUCK_RATING
            deduction = deduce(grid)
            assert (deduction.weight, deduction.hardest) == (rating.rating, rating.hardest)
            for step in deduction.steps:
                assert all(truth[c] == d + 1 for c, d in step.placements)
                assert all(truth[c] != d + 1 for c, d in step.eliminations)
            solved += 1
    assert solved >= 2


def _hardest_step_shown(line: str, uniqueness: bool) -> tuple[float | None, str | None]:
    """rate's rating and hardest rule, after checking explain shows that step with that weight."""
    grid = parse_grid(line)
    rules = select_rules(uniqueness=uniqueness)
    rating = rate(grid, rules)
    explained = deduce(grid, rules)
    assert explained.status is rating.status and explained.counts == rating.counts
    if rating.status is Status.SOLVED and rating.hardest is not None:
        assert explained.hardest_index is not None
        shown = explained.steps[explained.hardest_index]
        assert (shown.rule, shown.weight) == (rating.hardest, rating.rating)
        assert max(step.weight or 0.0 for step in explained.steps) == rating.rating
    return rating.rating, rating.hardest


@pytest.mark.parametrize("uniqueness", [False, True])
def test_every_rated_technique_is_an_explain_step_of_the_same_weight(uniqueness: bool) -> None:
    lines = [line for line, _, _ in EXPLAINER] + read_lines(DATA / "magictour_100.txt", 25)
    hardest = {_hardest_step_shown(line, uniqueness)[1] for line in lines}
    assert {"xy-chain", "3-link-fish", "y-cycle", "wxyz-wing", "vwxyz-wing"} <= hardest


def test_explain_rates_like_rate() -> None:
    lines = "\n".join(line for line, _, _ in EXPLAINER[:3]) + "\n"
    explained = list(explain_items(parse_puzzles(lines)))
    assert [(e.rating, e.hardest) for e in explained] == [(r, t) for _, r, t in EXPLAINER[:3]]
    for e in explained:
        assert e.deduction is not None
        steps = e.to_json()["steps"]
        assert isinstance(steps, list)
        assert any(step["rule"] == e.hardest and step["weight"] == e.rating for step in steps)
        # the step named by number is the first of the rating's weight, and the headline names it
        assert e.hardest_step is not None
        shown = steps[e.hardest_step - 1]
        assert (shown["rule"], shown["weight"]) == (e.hardest, e.rating)
        assert all(step["weight"] < e.rating for step in steps[: e.hardest_step - 1])
        assert e.headline().endswith(f"hardest {e.hardest} (step {e.hardest_step})")


def test_rating_of_reads_the_heaviest_step() -> None:
    grid = parse_grid(EXPLAINER[0][0])
    deduction = deduce(grid, record=False)
    assert rating_of(deduction) == (7.2, "xy-chain") == (deduction.weight, deduction.hardest)
    assert rating_of(deduce(parse_grid(HARD), select_rules(["singles"]))) == (STUCK_RATING, None)


def test_large_grids_rate_by_the_rules_that_search_them() -> None:
    item = parse_puzzles((DATA / "sudoku-25-1.txt").read_text())[0]
    assert item.grid is not None
    deduction = deduce(item.grid, record=False)
    weights = {rule.name: rule.weight for rule in deduction.rules}
    used = [name for name, count in deduction.counts.items() if count]
    value, _ = rating_of(deduction)
    assert value == max(weights[name] for name in used)


@pytest.mark.parametrize(("line", "explainer", "technique"), EXPLAINER[:4])
def test_the_rated_steps_are_proved_by_sat(line: str, explainer: float, technique: str) -> None:
    # check=True proves every step by SAT as it is taken; a refuted one raises StepNotProved
    deduction = deduce(parse_grid(line), check=True)
    assert deduction.status is Status.SOLVED
    assert (deduction.weight, deduction.hardest) == (explainer, technique)


def test_fish_and_wing_weights_follow_the_scale() -> None:
    weights = {rule.name: rule.weight for rule in RULES}
    assert [weights[name] for name in ("turbot-fish", "3-link-fish", "4-link-fish", "5-link-fish")] == [
        4.1,
        5.5,
        5.9,
        6.3,
    ]
    assert weights["grouped-turbot-fish"] == 4.3 and weights["grouped-6-link-fish"] == 6.9
    assert (weights["xyz-wing"], weights["wxyz-wing"], weights["vwxyz-wing"]) == (4.4, 5.5, 6.2)
    assert (weights["x-cycle"], weights["y-cycle"], weights["x-chain"], weights["xy-chain"]) == (
        6.5,
        6.5,
        6.6,
        7.0,
    )


# -- the old ratings kept where the technique is the same -------------------------------------------

#: 80 Sudoku Exchange puzzles with Sukaku Explainer's rating and the two-engine rate's (before the
#: one engine: the rating path of deduction/difficulty.py), default rules.
RATED = DATA / "sudoku_exchange_rated_80.txt"


def _rated_sample() -> list[tuple[str, float, float | None, str | None]]:
    rows = []
    for line in RATED.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        puzzle, explainer, old, hardest = line.split()
        rows.append(
            (
                puzzle,
                float(explainer),
                None if old == "-" else float(old),
                None if hardest == "-" else hardest,
            )
        )
    return rows


def test_the_old_ratings_are_kept_where_the_technique_is_the_same() -> None:
    rows = _rated_sample()
    same_technique = kept = 0
    for puzzle, _, old, hardest in rows:
        rating, name = _hardest_step_shown(puzzle, False)
        if old is not None and old < STUCK_RATING:
            assert rating is not None and rating < STUCK_RATING, "a puzzle the two engines solved is stuck"
        if name == hardest:
            same_technique += 1
            kept += rating == old
    # the one engine takes the lightest step where the rating path had a fixed order of trial
    # (a 3-link fish 5.5 before a WXYZ-wing 5.6): most hardest steps are the same technique
    assert same_technique >= 0.9 * len(rows)
    assert kept == same_technique


def test_the_rating_ranks_the_sample_as_sudoku_explainer() -> None:
    from scipy.stats import spearmanr

    rows = _rated_sample()
    ours = [rate(parse_grid(puzzle)).rating for puzzle, _, _, _ in rows]
    theirs = [explainer for _, explainer, _, _ in rows]
    assert float(spearmanr(ours, theirs)[0]) >= 0.9  # 0.93 here; 0.914 over all 10,000


# Puzzles of other box shapes whose explanations use the measured techniques (made by the
# generator, seed 11), with the rules they need.
SHAPED = [
    ((3, 2), ".2....4.......12.4....5..5.61.3.....", {"xy-chain"}),
    (
        (2, 4),
        ".4....572....14..8.7...3......6..3..7....2.1......5....6.7.8....",
        {"3-link-fish", "wxyz-wing"},
    ),
    (
        (4, 2),
        "..28........5..4......278..6..1.7..46....1....4......5...6..2..3",
        {"xy-chain", "vwxyz-wing", "grouped-turbot-fish"},
    ),
    (
        (3, 4),
        ".1.......5......1......39..6..5...C......5...A.679..4C........68..3..2..57C....3...A1..A.47.5.6."
        "4.....8.9B....3...C...B96C4.7.....1..28..9......",
        {"grouped-3-link-fish", "xy-chain"},
    ),
]


@pytest.mark.parametrize(("box", "line", "techniques"), SHAPED)
def test_the_measured_techniques_on_other_box_shapes_are_proved_by_sat(
    box: tuple[int, int], line: str, techniques: set[str]
) -> None:
    grid = parse_grid(line, box=box)
    deduction = deduce(grid, check=True)  # every step proved by SAT as it is taken
    assert deduction.status in (Status.SOLVED, Status.STUCK)  # a generated puzzle may need more
    assert techniques <= {step.rule for step in deduction.steps}
    assert deduction.weight == max(step.weight or 0.0 for step in deduction.steps)
    rating = rate(grid)
    assert rating.status is deduction.status
    assert rating.rating == (deduction.weight if deduction.status is Status.SOLVED else STUCK_RATING)


# Sudoku Exchange puzzles the chains leave stuck (Sukaku Explainer 8.x: forcing chains).
FORCING = [
    "006000200900000004243000896000591000002080300400203001300000007000907000010408020",
    "700040006000759000900801003000524000030000020400000007501000208080000010209000304",
]


@pytest.mark.parametrize("line", FORCING)
def test_forcing_chains_finish_what_the_chains_leave_and_are_proved_by_sat(line: str) -> None:
    grid = parse_grid(line)
    without = deduce(grid, [rule for rule in select_rules() if rule.family != "forcing"], record=False)
    assert without.status is Status.STUCK
    deduction = deduce(grid, check=True)  # every step proved by SAT as it is taken
    assert deduction.status is Status.SOLVED
    assert deduction.hardest in ("region-forcing-chains", "cell-forcing-chains")
    assert rate(grid).rating == deduction.weight >= 8.2


def test_rate_and_batches_take_a_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.deduction import batch
    from sudoku_cp.limits import Deadline

    easy = parse_grid(EASY)
    assert rate(easy, time_limit=0).status is Status.UNKNOWN
    assert rate(easy, time_limit=Deadline(None)) == rate(easy, time_limit=float("inf")) == rate(easy)
    items = parse_puzzles(f"{EASY}\n{HARD}\n{EASY}\n")
    assert [r.status for r in batch.rate_items(items, time_limit=Deadline(0))] == [Status.UNKNOWN] * 3
    assert [r.status for r in batch.explain_items(items, time_limit=0)] == [Status.UNKNOWN] * 3
    with pytest.raises(ValueError, match="time limit"):
        batch.rate_items(items, time_limit=float("nan"))
    # Seconds are each puzzle's own budget (a Deadline is the whole batch's): every puzzle
    # starts its own clock.
    seen: list[object] = []
    real = batch.rate

    def spy(grid: Grid, rules: object = None, *, time_limit: object = None) -> object:
        seen.append(time_limit)
        return real(grid, rules, time_limit=time_limit)  # type: ignore[arg-type]

    monkeypatch.setattr(batch, "rate", spy)
    assert [r.status for r in batch.rate_items(items, time_limit=600)][0] is Status.SOLVED
    assert len(seen) == 3 and len({id(limit) for limit in seen}) == 3
    assert all(isinstance(limit, Deadline) and limit.seconds == 600 for limit in seen)
    seen.clear()
    shared = Deadline(600)
    list(batch.rate_items(items, time_limit=shared))
    # one end for all (each chunk carries it as a wall-clock time: the same to within clock reads)
    ends = [limit.end for limit in seen if isinstance(limit, Deadline) and limit.end is not None]
    assert len(ends) == 3 and max(ends) - min(ends) < 1.0


def test_json_only_results_carry_the_lines_the_full_results_print_here_and_from_workers() -> None:
    # explain --json asks workers for lines (json_only): each result's line must be the one the
    # full result prints, with no deduction sent; seconds differ from run to run.
    from sudoku_cp.executor import Executor

    lines = "\n".join([line for line, _, _ in EXPLAINER[:4]] + ["1" * 81]) + "\n"
    full = list(explain_items(parse_puzzles(lines)))
    for executor in (None, Executor(jobs=2)):
        short = list(explain_items(parse_puzzles(lines), executor=executor, json_only=True))
        assert len(short) == len(full) == 5
        for a, b in zip(full, short, strict=True):
            assert b.deduction is None and b.json_text is not None
            assert _without_seconds(a.json_line()) == _without_seconds(b.json_line())
            assert (a.status, a.rating, a.hardest_step) == (b.status, b.rating, b.hardest_step)


def test_json_only_ratings_carry_the_lines_the_full_ratings_print_here_and_from_workers() -> None:
    from sudoku_cp.deduction.batch import rate_items
    from sudoku_cp.executor import Executor
    from sudoku_cp.formats import json_dumps

    lines = "\n".join([line for line, _, _ in EXPLAINER[:4]] + ["1" * 81]) + "\n"
    full = list(rate_items(parse_puzzles(lines)))
    for executor in (None, Executor(jobs=2)):
        short = list(rate_items(parse_puzzles(lines), executor=executor, json_only=True))
        assert [json_dumps(r.to_json()) for r in full] == [r.json_line() for r in short]
        assert all(r.json_text is not None and not r.counts for r in short)
        assert [(r.status, r.level) for r in full] == [(r.status, r.level) for r in short]


def _without_seconds(line: str) -> dict[str, object]:
    obj: dict[str, object] = json.loads(line)
    obj.pop("seconds")
    return obj


def test_a_parallel_batch_warms_up_here_and_keeps_one_result_per_puzzle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # --jobs N: the first puzzles are rated in this process (the forked workers inherit their
    # kernels); a rule that fails there is that puzzle's crash result, as in a worker.
    from sudoku_cp.deduction import batch
    from sudoku_cp.executor import Executor

    real = batch.rate
    bad = parse_grid(HARD)

    def failing(grid: Grid, rules: object = None, *, time_limit: object = None) -> object:
        if np.array_equal(grid.values, bad.values):
            raise RuntimeError("a rule's bug")
        return real(grid, rules, time_limit=time_limit)  # type: ignore[arg-type]

    monkeypatch.setattr(batch, "rate", failing)
    items = parse_puzzles("\n".join([EASY, HARD, EASY, EASY]) + "\n")
    results = list(batch.rate_items(items, executor=Executor(jobs=2)))
    assert [r.index for r in results] == [0, 1, 2, 3]
    assert [r.status for r in results] == [Status.SOLVED, Status.CRASH, Status.SOLVED, Status.SOLVED]
    assert results[1].error is not None and "a rule's bug" in results[1].error
