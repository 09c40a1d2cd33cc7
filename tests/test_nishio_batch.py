"""Many Nishio instances at once: the DAG batch, its JSON Lines, the sets S of many puzzles, names."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.formats import json_dumps, parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.api import make_method, method_name, solve_dag_batch, solve_nishio, solve_nishio_many
from sudoku_cp.nishio.instance import NishioInstance, digit_instances, digit_masks
from sudoku_cp.nishio.random_instances import random_masks
from sudoku_cp.nishio.result import NishioDisagreement
from sudoku_cp.outcome import Status

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (4, 4)]


def mixed_masks(g: Geometry, count: int, seed: int) -> np.ndarray:
    """Random sets of every density, with the empty set and the full grid among them."""
    rng = np.random.default_rng(seed)
    masks = [rng.random((g.n, g.n)) < density for density in np.linspace(0.05, 0.95, count)]
    masks += [np.zeros((g.n, g.n), dtype=bool), np.ones((g.n, g.n), dtype=bool)]
    return np.stack(masks)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_json_lines_are_the_json_of_each_result(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    masks = mixed_masks(g, 30, seed=g.n)
    batch = solve_dag_batch(g, masks, count=g.n <= 16, count_limit=50)
    labels = {"puzzle": np.arange(len(masks)) * 997, "digit": np.arange(len(masks)) % g.n + 1}
    lines = batch.to_json_lines(labels).splitlines(keepends=True)
    assert len(lines) == len(masks) and all(line.endswith("}\n") for line in lines)
    for k, line in enumerate(lines):
        head = {name: int(column[k]) for name, column in labels.items()}
        assert line == json_dumps({**head, **batch.result(k).to_json()}) + "\n"
    assert batch.to_json_lines().splitlines()[0] == json_dumps(batch.result(0).to_json())


def test_json_lines_carry_the_count_and_whether_it_is_exact() -> None:
    g = Geometry(3, 3)
    batch = solve_dag_batch(g, mixed_masks(g, 10, seed=1), count=True, count_limit=1000)
    objects = [json.loads(line) for line in batch.to_json_lines().splitlines()]
    assert objects[-1]["count"] == 1000 and objects[-1]["count_exact"] is False  # the full grid: 46,656
    assert objects[-2]["count"] == 0 and objects[-2]["count_exact"] is True and not objects[-2]["satisfiable"]
    assert all(o["status"] == "ok" and o["method"] == "dag" for o in objects)


def test_many_instances_answer_as_one_at_a_time() -> None:
    instances = []
    for shape in [(2, 3), (3, 3), (3, 2)]:
        g = Geometry(*shape)
        instances += [NishioInstance(g, mask) for mask in mixed_masks(g, 8, seed=7)]
    many = solve_nishio_many(instances, count=True)
    for instance, result in zip(instances, many, strict=True):
        one = solve_nishio(instance, count=True)
        assert result.instance is instance and result.method == "dag"
        assert result.closure is not None and one.closure is not None
        assert np.array_equal(result.closure, one.closure)
        assert result.status is one.status and result.count == one.count
    sat = solve_nishio_many(instances[:5], "sat")
    assert [r.satisfiable for r in sat] == [r.satisfiable for r in many[:5]]


def test_a_batch_checks_its_answers() -> None:
    g = Geometry(2, 2)
    batch = solve_dag_batch(g, random_masks(g, "dense", 40, np.random.default_rng(2)), count=True)
    assert len(batch) == 40
    assert np.array_equal(batch.satisfiable, np.array(batch.counts) > 0)
    assert not (batch.closures & ~batch.masks).any()
    assert np.array_equal(batch.eliminated, batch.masks & ~batch.closures)
    with pytest.raises(ValueError, match="count_limit"):
        solve_dag_batch(g, batch.masks, count=True, count_limit=0)
    assert issubclass(NishioDisagreement, Exception)


def test_digit_masks_of_many_puzzles_are_the_digit_instances_of_each() -> None:
    grids = [parse_grid(line) for line in read_lines(DATA / "norvig_top95.txt", 12)]
    grids.append(parse_grid("1" * 2 + "." * 79))  # contradictory: its sets are still given
    g = grids[0].geometry
    masks = digit_masks(g, np.stack([grid.values.reshape(-1) for grid in grids]))
    assert masks.shape == (len(grids), 9, 9, 9)
    for b, grid in enumerate(grids):
        for d, instance in enumerate(digit_instances(grid), start=1):
            assert np.array_equal(masks[b, d - 1], instance.mask)


def test_old_method_names_are_accepted() -> None:
    assert method_name("xc") == "dlx" and make_method("xc").name == "dlx"
    result = solve_nishio(NishioInstance.full(Geometry(2, 2)), "xc", count=True)
    assert result.method == "dlx" and result.status is Status.SOLVED and result.count is not None
    assert make_method("cpsat").exact
    with pytest.raises(ValueError, match="unknown Nishio method"):
        method_name("simplex")


def test_a_stopped_method_gives_an_unknown_result_with_its_reason() -> None:
    from sudoku_cp.nishio.random_instances import pigeonhole
    from sudoku_cp.outcome import REASON_TIME_LIMIT

    g = Geometry(4, 4)
    result = solve_nishio(NishioInstance(g, pigeonhole(g, 8)), "sat", time_limit=0.0)
    assert result.status is Status.UNKNOWN and result.unknown and result.reason == REASON_TIME_LIMIT
    obj = result.to_json()
    assert obj["status"] == "unknown" and obj["satisfiable"] is None and obj["closure"] is None
    assert obj["error"] == REASON_TIME_LIMIT
    relaxed = solve_nishio(NishioInstance.full(g), "matching")
    assert relaxed.status is Status.UNKNOWN and not relaxed.unknown and relaxed.to_json()["status"] == "ok"


def test_sat_takes_any_python_sat_solver_under_one_name() -> None:
    from sudoku_cp.nishio.sat import DEFAULT_SAT_SOLVER

    assert method_name("sat") == "sat" and make_method("sat").solver == DEFAULT_SAT_SOLVER  # type: ignore[attr-defined]
    assert method_name(f"sat:{DEFAULT_SAT_SOLVER}") == "sat"  # the default's variant is plain sat
    assert method_name("sat:g4") == method_name("sat:glucose41") == "sat:glucose4"  # aliases resolved
    other = "cadical195" if DEFAULT_SAT_SOLVER != "cadical195" else "cadical153"
    assert method_name(f"sat:{other}") == f"sat:{other}"
    rng = np.random.default_rng(3)
    g = Geometry(3, 3)
    for mask in (rng.random((9, 9)) < 0.5, rng.random((9, 9)) < 0.6, rng.random((9, 9)) < 0.3):
        instance = NishioInstance(g, mask)
        reference = solve_nishio(instance, "dag", count=True)
        for name in (f"sat:{other}", "sat:glucose4", "sat:minisat22"):
            result = solve_nishio(instance, name, count=True)
            assert result.method == name and result.status is reference.status
            assert result.closure is not None and reference.closure is not None
            assert np.array_equal(result.closure, reference.closure) and result.count == reference.count


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("sat:nosuch", "unknown python-sat solver 'nosuch'"),
        ("sat:kissat", "ignores assumptions"),  # python-sat's kissat would loop for ever in the closure
        ("dag:cadical153", "only sat takes a variant"),
        ("sat:", "unknown python-sat solver ''"),
    ],
)
def test_bad_sat_solver_names_are_refused(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        method_name(name)
    with pytest.raises(ValueError, match=message):
        make_method(name)
