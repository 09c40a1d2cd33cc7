"""Fail closed: the DAG's disk cache never serves a damaged or foreign graph, the DAG method stops at
its deadline with an unknown answer, and internal checks raise the project's errors (also under -O)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.rules import chains, graphs_of_board, twosat
from sudoku_cp.deduction.rules.graphs_of_board import ChainWitnessError
from sudoku_cp.deduction.rules.twosat import ImplicationChainError
from sudoku_cp.errors import SudokuCpError
from sudoku_cp.geometry import Geometry
from sudoku_cp.graphs import GraphInternalError, NrGraph
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.nishio import dag as dag_module
from sudoku_cp.nishio import overlay
from sudoku_cp.nishio.dag import DagNishio, build_dag, closure_batch, count_batch
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.method import NishioCount
from sudoku_cp.nishio.overlay import PlacementEnumerationError
from sudoku_cp.outcome import REASON_TIME_LIMIT, Status

ARRAYS = ("masks", "layer", "start", "head", "label")


@pytest.fixture
def small_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A disk cache in tmp_path that also keeps 6x6 graphs (built in milliseconds)."""
    monkeypatch.setenv("SUDOKU_CP_CACHE", str(tmp_path))
    monkeypatch.setattr(dag_module, "DISK_CACHE_MIN_SIDE", 6)
    return tmp_path


def build_uncached() -> dag_module.NishioDag:
    return dag_module._build.__wrapped__(2, 3)  # bypass the in-memory cache, keep the disk one


def only_entry(folder: Path) -> Path:
    (entry,) = folder.iterdir()
    return entry


def same_graph(a: dag_module.NishioDag, b: dag_module.NishioDag) -> bool:
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in ARRAYS)


def test_a_saved_graph_is_read_back_identical(small_cache: Path) -> None:
    built = build_uncached()
    entry = only_entry(small_cache)
    assert (entry / "manifest.json").is_file()
    loaded = dag_module._load_cached(2, 3)
    assert loaded is not None and same_graph(loaded, built)


def test_a_flipped_byte_in_a_cached_array_is_detected_and_rebuilt(small_cache: Path) -> None:
    built = build_uncached()
    entry = only_entry(small_cache)
    # The last label: no length or end-vertex check sees it, only the checksum does.
    data = bytearray((entry / "label.npy").read_bytes())
    data[-1] ^= 0x01
    (entry / "label.npy").write_bytes(bytes(data))
    assert dag_module._load_cached(2, 3) is None
    assert not entry.exists()  # discarded, so the next save can write the entry anew
    rebuilt = build_uncached()
    assert same_graph(rebuilt, built)
    reloaded = dag_module._load_cached(2, 3)
    assert reloaded is not None and same_graph(reloaded, built)


def test_a_truncated_array_file_is_not_used(small_cache: Path) -> None:
    build_uncached()
    entry = only_entry(small_cache)
    data = (entry / "head.npy").read_bytes()
    (entry / "head.npy").write_bytes(data[: len(data) - 7])
    assert dag_module._load_cached(2, 3) is None
    assert list(small_cache.iterdir()) == []


def test_an_entry_whose_manifest_names_other_code_is_not_used(small_cache: Path) -> None:
    build_uncached()
    entry = only_entry(small_cache)
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["key"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))
    assert dag_module._load_cached(2, 3) is None


def test_a_missing_manifest_or_a_plain_file_in_its_place_is_not_used(small_cache: Path) -> None:
    build_uncached()
    entry = only_entry(small_cache)
    (entry / "manifest.json").unlink()
    assert dag_module._load_cached(2, 3) is None
    entry.write_text("not a graph")
    assert dag_module._load_cached(2, 3) is None
    assert not entry.exists()


def test_a_cache_written_by_other_code_is_not_used(
    small_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_uncached()
    theirs = only_entry(small_cache)
    monkeypatch.setattr(dag_module, "_code_hash", lambda: "f" * 64)
    assert dag_module._load_cached(2, 3) is None
    reads: list[Path] = []
    original = dag_module._read_verified

    def counted(path: Path, p: int, q: int) -> dag_module.NishioDag | None:
        reads.append(path)
        return original(path, p, q)

    monkeypatch.setattr(dag_module, "_read_verified", counted)
    rebuilt = build_uncached()
    assert reads == [] and same_graph(rebuilt, built)  # nothing of theirs was even read
    ours = only_entry(small_cache)  # and their entry, never to be read again, is gone
    assert ours != theirs
    assert json.loads((ours / "manifest.json").read_text())["code"] == "f" * 64


def test_an_old_numbered_cache_folder_is_removed_by_a_save(small_cache: Path) -> None:
    old = small_cache / "nishio-dag-v1-2x3"
    old.mkdir()
    (old / "head.npy").write_bytes(b"old")
    other_shape = small_cache / "nishio-dag-v1-3x2"
    other_shape.mkdir()
    build_uncached()
    assert not old.exists() and other_shape.exists()


def test_the_code_hash_follows_the_builders_source(monkeypatch: pytest.MonkeyPatch) -> None:
    ours = dag_module._code_hash.__wrapped__()
    assert ours is not None and len(ours) == 64
    monkeypatch.setattr(dag_module, "_BUILDER_CODE", (*dag_module._BUILDER_CODE, same_graph))
    assert dag_module._code_hash.__wrapped__() != ours


# ---------------------------------------------------------------- the DAG method's time limit


class ExpiresAfter(Deadline):
    """A deadline that passes at its ``checks``-th check (no clock: the test cannot be flaky)."""

    def __init__(self, checks: int) -> None:
        super().__init__(None)
        self.left = checks
        self.phases: list[str] = []

    def check(self, phase: str) -> None:
        self.phases.append(phase)
        self.left -= 1
        if self.left < 0:
            raise TimeLimitReached(phase)


def dense_16x16() -> NishioInstance:
    rng = np.random.default_rng(7)
    return NishioInstance(Geometry(4, 4), rng.random((16, 16)) < 0.85)


@pytest.mark.parametrize("shape", [(4, 5), (5, 5)])
def test_an_expired_deadline_on_a_big_grid_is_unknown_not_an_answer(shape: tuple[int, int]) -> None:
    method = DagNishio()
    instance = NishioInstance.full(Geometry(*shape))
    began = time.perf_counter()
    decision = method.decide(instance, time_limit=0.0)
    assert decision.status is Status.UNKNOWN and decision.reason == REASON_TIME_LIMIT
    assert method.closure(instance, time_limit=0.0) is None
    assert method.count_placements(instance, time_limit=0.0) is None
    assert time.perf_counter() - began < 2.0  # stopped before the graph was built or read


def test_a_deadline_passing_between_chunks_stops_every_question(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dag_module, "_CHUNK_VERTICES", 1000)  # 16x16: 19,442 vertices, 20 chunks a pass
    method = DagNishio()
    instance = dense_16x16()
    full = method._closure(instance, ExpiresAfter(10_000))
    assert full is not None and np.array_equal(full, closure_batch(build_dag(4, 4), instance.mask[None])[0])
    counted = method._count(instance, None, ExpiresAfter(10_000))
    assert counted == NishioCount(count_batch(build_dag(4, 4), instance.mask[None])[0], True)
    for checks in (3, 25):  # in the forward pass, in the backward pass
        deadline = ExpiresAfter(checks)
        assert method._closure(instance, deadline) is None
        assert any("pass" in phase for phase in deadline.phases[2:])  # it got past the build checks
        decision = method._decide(instance, ExpiresAfter(checks))
        assert decision.status is Status.UNKNOWN and decision.reason == REASON_TIME_LIMIT
    assert method._count(instance, None, ExpiresAfter(5)) is None


def test_without_a_time_limit_the_chunked_passes_answer_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dag_module, "_CHUNK_VERTICES", 7)  # chunk edges everywhere in a 9x9 graph
    method = DagNishio()
    rng = np.random.default_rng(3)
    g = Geometry(3, 3)
    dag = build_dag(3, 3)
    for _ in range(20):
        mask = rng.random((9, 9)) < 0.7
        instance = NishioInstance(g, mask)
        expected = closure_batch(dag, mask[None])[0]
        assert np.array_equal(method.closure(instance), expected)
        assert method.count_placements(instance).count == count_batch(dag, mask[None])[0]
        placement = method.find_placement(instance)
        assert (placement is not None) == bool(expected.any())
        if placement is not None:
            assert mask[np.arange(9), placement].all()


# ---------------------------------------------------------------- internal checks raise the project's errors


def xy_board() -> Board:
    """R1C1{1,2}, R1C2{2,3}, R1C3{3,1}: a bivalue cycle, and an XY chain refuting 1 in R1C4."""
    g = Geometry(3, 3)
    board = Board(g, np.zeros(81, dtype=np.int16), np.ones((81, 9), dtype=np.uint8))
    for cell, digits in ((0, [0, 1]), (1, [1, 2]), (2, [2, 0])):
        board.cand[cell] = 0
        board.cand[cell, digits] = 1
    return board


def test_a_witness_walk_failing_its_check_raises_the_chain_error(monkeypatch: pytest.MonkeyPatch) -> None:
    assert chains.find_bivalue_cycle(xy_board()) is not None
    monkeypatch.setattr(graphs_of_board, "is_nonrepetitive_walk", lambda *args, **kwargs: False)
    with pytest.raises(ChainWitnessError, match="fails its check") as raised:
        chains.find_bivalue_cycle(xy_board())
    assert isinstance(raised.value, SudokuCpError) and not isinstance(raised.value, AssertionError)


@pytest.mark.parametrize("cut", [slice(0, 0), slice(0, -1)])
def test_a_missing_or_broken_two_sat_chain_raises_the_rule_error(
    monkeypatch: pytest.MonkeyPatch, cut: slice
) -> None:
    assert twosat.two_sat(xy_board()) is not None
    original = twosat._shortest_chain
    monkeypatch.setattr(twosat, "_shortest_chain", lambda *args: original(*args)[cut])
    with pytest.raises(ImplicationChainError):
        twosat.two_sat(xy_board())


def test_an_enumeration_disagreeing_with_the_formula_raises_the_overlay_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(overlay, "placement_count", lambda geometry: 1 + 2**3)  # 2x2 boxes have 16
    with pytest.raises(PlacementEnumerationError, match="expected 9"):
        overlay._band_table.__wrapped__(2, 2)


def test_an_nr_graph_without_graph_or_edges_raises_the_graph_error() -> None:
    broken = NrGraph.__new__(NrGraph)
    broken._graph = None
    broken._edges = None
    with pytest.raises(GraphInternalError):
        _ = broken.graph


_UNDER_O = """
import sys
import numpy as np
from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.rules import chains, graphs_of_board, twosat
from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.rules import chains, graphs_of_board, twosat
from sudoku_cp.deduction.rules.graphs_of_board import ChainWitnessError
from sudoku_cp.deduction.rules.twosat import ImplicationChainError
from sudoku_cp.errors import SudokuCpError
from sudoku_cp.geometry import Geometry
from sudoku_cp.graphs import GraphInternalError, NrGraph

def board():
    b = Board(Geometry(3, 3), np.zeros(81, dtype=np.int16), np.ones((81, 9), dtype=np.uint8))
    for cell, digits in ((0, [0, 1]), (1, [1, 2]), (2, [2, 0])):
        b.cand[cell] = 0
        b.cand[cell, digits] = 1
    return b

print("optimize", sys.flags.optimize)
twosat._shortest_chain = lambda *args: np.empty(0, np.int64)
graphs_of_board.is_nonrepetitive_walk = lambda *args, **kwargs: False
for rule in (twosat.two_sat, chains.find_bivalue_cycle):
    try:
        rule(board())
    except Exception as error:
        print(type(error).__name__)
    else:
        print("no error")
"""


def test_the_checks_still_raise_under_python_O() -> None:
    done = subprocess.run(
        [sys.executable, "-O", "-c", _UNDER_O], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["optimize", "1", "ImplicationChainError", "ChainWitnessError"]
