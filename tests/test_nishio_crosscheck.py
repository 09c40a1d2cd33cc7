"""Every Nishio method agrees with every other, on real puzzle states and random sets; the CLI reports it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.cli import main
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.api import (
    NishioDisagreement,
    applicable_methods,
    cross_check,
    solve_nishio,
)
from sudoku_cp.nishio.dag import build_dag, closure_batch
from sudoku_cp.nishio.instance import NishioInstance, digit_instances
from sudoku_cp.nishio.overlay import overlay_batch
from sudoku_cp.nishio.text import instance_text

FAST = ["dag", "overlay", "matching"]
Capture = pytest.CaptureFixture[str]
Mask = np.ndarray


def corpus_instances(name: str, limit: int | None) -> list[NishioInstance]:
    return [i for line in read_lines(DATA / name, limit) for i in digit_instances(parse_grid(line))]


@pytest.mark.parametrize("corpus", ["norvig_top95.txt", "forum_hardest_200.txt", "clue17_100.txt"])
def test_dag_and_overlay_closures_agree_on_every_digit_of_real_puzzles(corpus: str) -> None:
    instances = corpus_instances(corpus, None if corpus == "norvig_top95.txt" else 100)
    masks = np.stack([i.mask for i in instances])
    dag = closure_batch(build_dag(3, 3), masks)
    overlay = overlay_batch(Geometry(3, 3), masks)
    assert np.array_equal(dag, overlay.closure)
    assert dag.any(axis=(1, 2)).all()  # a solvable puzzle has a placement for every digit


def test_every_method_agrees_on_digit_subproblems_of_hard_puzzles() -> None:
    instances = corpus_instances("norvig_hardest.txt", None)[::3]
    for instance in instances:
        check = cross_check(instance, count=True)
        assert set(check.results) == set(applicable_methods(instance))
        assert check.reference.satisfiable


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)])
def test_every_method_agrees_on_random_sets_of_every_box_shape(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    rng = np.random.default_rng(99)
    for k in range(12):
        density = (0.15, 0.4, 0.7, 0.95)[k % 4]
        # Counting every placement of a nearly full 8x8 or 9x9 set (tens of thousands, by every method)
        # is most of this test's time: there the closures are compared, the counts on smaller grids.
        count = g.n < 8 or density < 0.9
        cross_check(NishioInstance(g, rng.random((g.n, g.n)) < density), count=count)


def test_matching_relaxation_keeps_every_cell_of_the_exact_closure() -> None:
    rng = np.random.default_rng(5)
    g = Geometry(3, 3)
    for _ in range(200):
        instance = NishioInstance(g, rng.random((9, 9)) < 0.35)
        exact = solve_nishio(instance, "dag").closure
        relaxed = solve_nishio(instance, "matching").closure
        assert exact is not None and relaxed is not None
        assert not (exact & ~relaxed).any() and not (relaxed & ~instance.mask).any()


def test_a_disagreement_is_reported_with_both_methods_and_the_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.nishio import overlay

    original = overlay.OverlayNishio.closure

    def broken(
        self: overlay.OverlayNishio, instance: NishioInstance, time_limit: float | None = None
    ) -> np.ndarray:
        out = np.array(original(self, instance, time_limit))
        out[0, np.argmax(out[0])] = False  # drop one cell of the true closure
        return out

    monkeypatch.setattr(overlay.OverlayNishio, "closure", broken)
    from sudoku_cp.nishio.api import make_method

    make_method.cache_clear()
    try:
        with pytest.raises(NishioDisagreement, match=r"overlay"):
            cross_check(NishioInstance.full(Geometry(2, 2)), ["dag", "overlay"])
    finally:
        make_method.cache_clear()


def test_json_result_has_the_documented_fields() -> None:
    instance = digit_instances(parse_grid((DATA / "aiescargot.txt").read_text()), [7])[0]
    obj = solve_nishio(instance, "dag", count=True).to_json()
    for key in ("n", "box", "method", "satisfiable", "closure", "eliminated", "count", "seconds"):
        assert key in obj
    assert obj["n"] == 9 and obj["box"] == "3x3" and obj["method"] == "dag"
    cells = obj["closure"]
    assert isinstance(cells, list) and cells == sorted(cells) and min(min(c) for c in cells) >= 1


def test_cli_answers_an_instance_file_and_draws_it(tmp_path: Path, capsys: Capture) -> None:
    from test_nishio_dag import FIGURE_1_LIKE

    path = tmp_path / "fig1.txt"
    path.write_text(FIGURE_1_LIKE)
    svg = tmp_path / "fig1.svg"
    assert main(["nishio", str(path), "--count", "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "R9C5" in out and "placements: 4" in out
    assert svg.read_text().startswith("<svg") and "R9C5 eliminated" in svg.read_text()
    assert main(["nishio", str(path), "--method", "all", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {o["method"] for o in lines} >= set(FAST)
    assert all([9, 5] in o["eliminated"] for o in lines if o["exact"])


def test_cli_names_the_sat_solver_it_was_given(tmp_path: Path, capsys: Capture) -> None:
    from test_nishio_dag import FIGURE_1_LIKE

    path = tmp_path / "fig1.txt"
    path.write_text(FIGURE_1_LIKE)
    answers = {}
    for method in ("dag", "sat", "sat:glucose4", "sat:cd19"):
        assert main(["nishio", str(path), "--method", method, "--json"]) == 0
        answers[method] = json.loads(capsys.readouterr().out)
    assert [answers[m]["method"] for m in answers] == ["dag", "sat", "sat:glucose4", "sat:cadical195"]
    assert all(answers[m]["closure"] == answers["dag"]["closure"] for m in answers)


def test_cli_runs_every_digit_of_a_batch_and_reports_bad_lines(tmp_path: Path, capsys: Capture) -> None:
    lines = read_lines(DATA / "norvig_top95.txt", 5)
    lines.insert(2, "12345")  # a bad line: reported, and the rest answered
    path = tmp_path / "p.txt"
    path.write_text("\n".join(lines) + "\n")
    code = main(["nishio", "--puzzle", str(path), "--all-digits", "--json"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 2
    assert len(out) == 5 * 9 + 1
    assert [o["status"] for o in out].count("invalid") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nishio"], "give an INSTANCE"),
        (["nishio", "--puzzle", "." * 81], "--digit"),
        (["nishio", "--puzzle", "." * 81, "--digit", "10"], "out of range"),
        (["nishio", "/no/such/file"], "no such file"),
        (["nishio", "/no/such/file", "--method", "sat:nosuch"], "unknown python-sat solver 'nosuch'"),
    ],
)
def test_cli_bad_usage_gives_one_line_and_exit_2(argv: list[str], message: str) -> None:
    run = subprocess.run([sys.executable, "-m", "sudoku_cp", *argv], capture_output=True, text=True)
    assert run.returncode == 2
    assert message in run.stderr and "Traceback" not in run.stderr


def test_cli_reports_a_malformed_instance_with_its_line(tmp_path: Path) -> None:
    instance = NishioInstance.full(Geometry(2, 2))
    text = instance_text(instance).replace("xxxx\nxxxx\n", "xxxx\nxxqx\n", 1)
    path = tmp_path / "bad.txt"
    path.write_text(text)
    run = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "nishio", str(path)], capture_output=True, text=True
    )
    assert run.returncode == 2 and "line 2" in run.stderr and "'q'" in run.stderr


@pytest.mark.parametrize(
    ("argv", "golden"),
    [
        (["--to", "cnf", "--amo", "pairwise"], "nishio-4x4.pairwise.cnf"),
        (["--to", "xc"], "nishio-4x4.dlx"),
        (["--to", "cpsat", "--model", "bool"], "nishio-4x4.cpsat-bool.pb.txt"),
        (["--to", "cpsat", "--model", "alldiff"], "nishio-4x4.cpsat-alldiff.pb.txt"),
    ],
)
def test_encode_nishio_writes_the_golden_models(
    argv: list[str], golden: str, tmp_path: Path, capsys: Capture
) -> None:
    from golden import GOLDEN, NISHIO_4X4

    path = tmp_path / "inst.txt"
    path.write_text(NISHIO_4X4)
    out = tmp_path / "model"
    assert main(["encode", "--nishio", str(path), *argv, "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert out.read_text() == (GOLDEN / golden).read_text()


def test_encode_nishio_cnf_is_solved_by_pysat_like_the_dag(tmp_path: Path, capsys: Capture) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver
    from test_nishio_dag import FIGURE_1_LIKE

    path = tmp_path / "fig1.txt"
    path.write_text(FIGURE_1_LIKE)
    assert main(["encode", "--nishio", str(path), "--amo", "seqcounter"]) == 0
    text = capsys.readouterr().out
    cnf = CNF(from_string=text)
    cells = {
        int(v): (int(r) - 1, int(c) - 1)
        for _, _, v, r, c in (line.split() for line in text.splitlines() if line.startswith("c x "))
    }
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as solver:
        placements = []
        while solver.solve():
            model = solver.get_model()
            placements.append(sorted(cells[v] for v in model if v > 0 and v in cells))
            solver.add_clause([-v for v in model if v > 0 and v in cells])
    assert len(placements) == 4  # the count the DAG gives for this state (see the nishio CLI test)
    assert all((8, 4) not in p for p in placements)  # R9C5 is in none of them


def test_encode_nishio_reports_a_bad_instance_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("x..\n...\n")
    run = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "encode", "--nishio", str(path)], capture_output=True, text=True
    )
    assert run.returncode == 2 and "bad.txt" in run.stderr and "Traceback" not in run.stderr


def test_cli_batch_answers_equal_one_instance_at_a_time(tmp_path: Path, capsys: Capture) -> None:
    """The DAG batch path (--json) writes, in input order, what solve_nishio says for each instance."""
    from sudoku_cp.checker import given_conflict
    from sudoku_cp.formats import parse_puzzles
    from sudoku_cp.nishio.api import solve_nishio
    from sudoku_cp.nishio.instance import digit_instances

    lines = read_lines(DATA / "forum_hardest_200.txt", 40)
    lines.insert(7, "12345")  # unreadable
    lines.insert(20, "11" + "." * 79)  # clashing givens
    path = tmp_path / "p.txt"
    path.write_text("\n".join(lines) + "\n")
    code = main(["nishio", "--puzzle", str(path), "--digit", "3", "--digit", "9", "--count", "--json"])
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 2
    expected: list[dict[str, object]] = []
    for item in parse_puzzles(path.read_text()):
        if item.grid is None or given_conflict(item.grid) is not None:
            expected.append({"index": len(expected), "puzzle": item.index, "status": "invalid"})
            continue
        for digit, instance in zip((3, 9), digit_instances(item.grid, (3, 9)), strict=True):
            result = solve_nishio(instance, "dag", count=True)
            expected.append(
                {"index": len(expected), "puzzle": item.index, "digit": digit, **result.to_json()}
            )
    assert len(got) == len(expected) == 40 * 2 + 2
    for have, want in zip(got, expected, strict=True):
        have.pop("seconds", None), want.pop("seconds", None)
        if want["status"] == "invalid":
            assert have["status"] == "invalid" and have["puzzle"] == want["puzzle"] and have["error"]
            assert have["index"] == want["index"]
        else:
            assert have == want
