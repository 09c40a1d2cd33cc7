"""A single Nishio method's "no placement" claims are confirmed by a different path before they count.

A faked method that drops a usable cell, or says "no placement" when S holds one, must be
caught (an error naming the cell); a claim the confirming path cannot settle in time is unknown
with its reason, never reported.  The DAG's batches (``solve_dag_batch``, ``solve_nishio_many``,
the puzzle batches' JSON Lines) confirm theirs too.
"""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.geometry import Geometry
from sudoku_cp.limits import Deadline
from sudoku_cp.nishio import api, dag
from sudoku_cp.nishio.confirm import DropConfirmer, confirm_drops, confirming_solver
from sudoku_cp.nishio.dag import DagNishio
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.method import NO_PLACEMENT, Decision
from sudoku_cp.nishio.placement import placement_problem
from sudoku_cp.nishio.result import NishioDisagreement
from sudoku_cp.outcome import Status

pytestmark = pytest.mark.timeout(120)

G9 = Geometry(3, 3)


def _placement_mask(g: Geometry) -> np.ndarray:
    """S = one valid placement plus a few cells no placement inside S can use."""
    cols = np.array([0, 3, 6, 1, 4, 7, 2, 5, 8])
    mask = np.zeros((g.n, g.n), dtype=bool)
    mask[np.arange(g.n), cols] = True
    return mask


class _DropsOne(DagNishio):
    """The DAG, but its closure forgets the first cell it keeps outside its own witness placement
    (so the witness check, which exists, cannot see it)."""

    name = "dag"

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        closure = super()._closure(instance, deadline)
        witness = super()._decide(instance, deadline).placement
        if closure is None or witness is None:
            return None
        wrong = closure.copy()
        wrong[np.arange(instance.n), witness] = False
        r, c = np.argwhere(wrong)[0]
        closure = closure.copy()
        closure[r, c] = False
        return closure


class _SaysNone(DagNishio):
    """The DAG, but it says "no placement" always (an empty closure, decision unsat)."""

    name = "dag"

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        return np.zeros(instance.mask.shape, dtype=bool)

    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        return NO_PLACEMENT


def _with_method(monkeypatch: pytest.MonkeyPatch, method: DagNishio) -> None:
    monkeypatch.setattr(api, "make_method", lambda name: method)


def test_a_dropped_usable_cell_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    instance = NishioInstance.full(G9)
    _with_method(monkeypatch, _DropsOne())
    with pytest.raises(NishioDisagreement, match=r"dag drops R1C\d, but a placement uses it"):
        api.solve_nishio(instance)


def test_a_false_no_placement_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    instance = NishioInstance.full(G9)
    _with_method(monkeypatch, _SaysNone())
    with pytest.raises(NishioDisagreement, match=r"dag says no placement inside S, but .* uses R"):
        api.solve_nishio(instance)


def test_an_unconfirmed_claim_is_unknown_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # An empty closure on a grid the confirming call cannot finish in no time at all.
    instance = NishioInstance.full(G9)
    _with_method(monkeypatch, _SaysNone())
    monkeypatch.setattr("sudoku_cp.nishio.confirm.solve_limited", lambda solver, assumptions, deadline: None)
    result = api.solve_nishio(instance, time_limit=30)
    assert result.status is Status.UNKNOWN and result.closure is None
    assert result.reason is not None and result.reason.startswith("unconfirmed: that no placement uses R1C1")


def test_true_claims_are_confirmed_and_answered() -> None:
    mask = _placement_mask(G9)
    mask[0, 1] = True  # R1C2: its row's other cell R1C1 is the only one of column 1 -> no placement
    instance = NishioInstance(G9, mask)
    result = api.solve_nishio(instance)
    assert result.status is Status.SOLVED and result.closure is not None
    assert not result.closure[0, 1] and int(result.closure.sum()) == 9
    empty_row = mask.copy()
    empty_row[4] = False
    assert api.solve_nishio(NishioInstance(G9, empty_row)).status is Status.UNSAT


@pytest.mark.parametrize("method", ["sat", "sat:glucose4", "overlay", "matching", "cpsat", "dlx"])
def test_every_method_is_confirmed(method: str) -> None:
    rng = np.random.default_rng(5)
    for _ in range(5):
        instance = NishioInstance(G9, rng.random((9, 9)) < 0.45)
        result = api.solve_nishio(instance, method)
        assert result.closure is not None
    assert confirming_solver("sat:glucose4") == "minisat22" and confirming_solver("dag") == "glucose4"


def test_the_confirming_path_finds_a_checked_placement() -> None:
    instance = NishioInstance.full(G9)
    wrong = np.zeros((9, 9), dtype=bool)
    verdict = confirm_drops(instance, wrong, "dag")
    assert verdict.confirmed is False and verdict.placement is not None and verdict.cell is not None
    assert placement_problem(instance, verdict.placement) is None
    assert verdict.placement[verdict.cell[0]] == verdict.cell[1]


def test_a_shared_confirmer_agrees_with_the_dag_on_random_sets() -> None:
    rng = np.random.default_rng(11)
    g = Geometry(2, 3)
    masks = rng.random((200, 6, 6)) < 0.5
    closures = dag.closure_batch(dag.build_dag(2, 3), masks)
    rows, cols = np.nonzero(masks.any(axis=0))
    confirmer = DropConfirmer(g, rows, cols)
    try:
        for mask, closure in zip(masks, closures, strict=True):
            keys = np.flatnonzero(mask)
            dropped = np.flatnonzero(mask & ~closure)
            if dropped.size:
                assert confirmer.confirm(keys, dropped).confirmed is True
            kept = np.flatnonzero(closure)
            for key in kept[:3]:  # a kept cell is found through by the same call
                assert confirmer.confirm(keys, np.array([key])).confirmed is False
    finally:
        confirmer.close()


def test_the_dag_batch_catches_a_wrong_drop(monkeypatch: pytest.MonkeyPatch) -> None:
    masks = np.stack([_placement_mask(G9), np.ones((9, 9), dtype=bool)])
    real = dag.closure_batch

    def drops_one(graph: dag.NishioDag, stack: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
        closures = real(graph, stack, deadline).copy()
        closures[1, 4, 4] = False
        return closures

    monkeypatch.setattr(dag, "closure_batch", drops_one)
    with pytest.raises(NishioDisagreement, match=r"instance 1: dag drops R5C5, but a placement uses it"):
        api.solve_dag_batch(G9, masks)
    instances = [NishioInstance(G9, m) for m in masks]
    with pytest.raises(NishioDisagreement, match=r"R5C5"):
        api.solve_nishio_many(instances)


def test_the_dag_batch_confirms_true_drops() -> None:
    rng = np.random.default_rng(3)
    masks = rng.random((300, 9, 9)) < 0.3
    batch = api.solve_dag_batch(G9, masks)
    unconfirmed = api.solve_dag_batch(G9, masks, confirm=False)
    assert np.array_equal(batch.closures, unconfirmed.closures)
    assert batch.eliminated.any()


def test_a_refuted_claim_is_that_instance_s_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.formats import parse_puzzles
    from sudoku_cp.nishio.puzzles import NishioAsk, answer_instance, answer_puzzles

    _with_method(monkeypatch, _SaysNone())
    answer = answer_instance(NishioInstance.full(G9), NishioAsk("dag"), 1)
    assert answer.disagreement is not None and "says no placement inside S" in answer.disagreement
    monkeypatch.undo()
    real = dag.closure_batch

    def drops_first(graph: dag.NishioDag, stack: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
        closures = real(graph, stack, deadline).copy()
        if len(stack) > 1:  # the batch only: a single instance's query is left right
            closures[0] = False
        return closures

    monkeypatch.setattr(dag, "closure_batch", drops_first)
    items = parse_puzzles("." * 81 + "\n" + "." * 81 + "\n")
    puzzles = list(answer_puzzles(items, [1, 2], NishioAsk("dag", json_lines=True)))
    assert [p.lines for p in puzzles] == [(), ()]  # the batch refuted: answered one by one
    assert all(d.disagreement is None and d.results[0].closure is not None for d in puzzles[0].digits)


class _KeepsAll(DagNishio):
    """The DAG, but its closure keeps all of S (an elimination missed)."""

    name = "dag"

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        return instance.mask.copy()


def test_a_kept_cell_without_a_placement_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    mask = _placement_mask(G9)
    mask[0, 1] = True  # R1C2: no placement inside S uses it
    _with_method(monkeypatch, _KeepsAll())
    with pytest.raises(NishioDisagreement, match=r"dag keeps R1C2, but no placement inside S uses it"):
        api.solve_nishio(NishioInstance(G9, mask))


def test_every_kept_cell_gets_a_checked_witness() -> None:
    from sudoku_cp.nishio.confirm import cover_kept

    rng = np.random.default_rng(8)
    for _ in range(20):
        instance = NishioInstance(G9, rng.random((9, 9)) < 0.5)
        closure = make_closure(instance)
        assert cover_kept(instance, closure, "dag").confirmed is True


def make_closure(instance: NishioInstance) -> np.ndarray:
    """The DAG's closure of one instance."""
    return DagNishio().closure(instance)
