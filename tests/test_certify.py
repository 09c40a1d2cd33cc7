"""Certificates: the CNFs as specified, claims of every backend certified, every tampering caught.

``encodings/certificates.md`` is the contract: the CNFs are regenerated here by a page of plain
Python written from the specification alone (``_spec_sudoku_text``, ``_spec_nishio_text``) and must
match ours byte for byte, so a third party's script can do the same.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, read_lines

import sudoku_cp as sc
from sudoku_cp.api import BackendOptions, certify_results, solve_items
from sudoku_cp.certify.check import check_certificate, check_certificates
from sudoku_cp.certify.cnf import nishio_cnf, sudoku_cnf
from sudoku_cp.certify.make import certify_closure, certify_sudoku
from sudoku_cp.certify.manifest import CertificateError, ManifestError, write_certificate
from sudoku_cp.checker import given_conflict
from sudoku_cp.cnf.sudoku import encode_cnf
from sudoku_cp.formats import PuzzleItem, format_line
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.random_grids import random_puzzle, random_solution

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)]
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


# ---------------------------------------------------------------- the specification, independently


def _spec_units(n: int, p: int, q: int) -> list[list[list[tuple[int, int]]]]:
    rows = [[(r, c) for c in range(n)] for r in range(n)]
    cols = [[(r, c) for r in range(n)] for c in range(n)]
    boxes = []
    for b in range(n):
        top, left = (b // p) * p, (b % p) * q
        boxes.append([(top + i, left + j) for i in range(p) for j in range(q)])
    return [rows, cols, boxes]


def _spec_text(n_vars: int, clauses: list[list[int]]) -> bytes:
    lines = [f"p cnf {n_vars} {len(clauses)}"] + [" ".join(map(str, c + [0])) for c in clauses]
    return ("\n".join(lines) + "\n").encode()


def _spec_sudoku_text(p: int, q: int, puzzle: list[list[int]], solution: list[list[int]] | None) -> bytes:
    n = p * q

    def x(r: int, c: int, d: int) -> int:
        return r * n * n + c * n + d  # 0-based r, c; 1-based d

    cells = [(r, c) for r in range(n) for c in range(n)]
    clauses = [[x(r, c, d) for d in range(1, n + 1)] for r, c in cells]
    for r, c in cells:
        clauses += [[-x(r, c, a), -x(r, c, b)] for a in range(1, n + 1) for b in range(a + 1, n + 1)]
    for family in _spec_units(n, p, q):
        clauses += [[x(r, c, d) for r, c in unit] for unit in family for d in range(1, n + 1)]
        for unit in family:
            for d in range(1, n + 1):
                for i in range(n):
                    for j in range(i + 1, n):
                        clauses.append([-x(*unit[i], d), -x(*unit[j], d)])
    clauses += [[x(r, c, puzzle[r][c])] for r, c in cells if puzzle[r][c]]
    if solution is not None:
        clauses.append([-x(r, c, solution[r][c]) for r, c in cells])
    return _spec_text(n**3, clauses)


def _spec_nishio_text(p: int, q: int, cells_of_s: set[tuple[int, int]], forced: tuple[int, int]) -> bytes:
    n = p * q
    clauses = []
    for family in _spec_units(n, p, q):
        for unit in family:
            inside = [r * n + c + 1 for r, c in unit if (r, c) in cells_of_s]
            clauses.append(inside)
            clauses += [
                [-inside[i], -inside[j]] for i in range(len(inside)) for j in range(i + 1, len(inside))
            ]
    clauses.append([forced[0] * n + forced[1] + 1])
    return _spec_text(n * n, clauses)


def _puzzles(shape: tuple[int, int], seed: int, count: int) -> list[sc.Grid]:
    """Random puzzles of every status: unique or several solutions, and no solution."""
    geometry = geometry_for_size(shape[0] * shape[1], shape)
    rng = np.random.default_rng(seed)
    made = []
    for k in range(count):
        puzzle = random_puzzle(geometry, [0.3, 0.55, 0.8][k % 3], rng)
        if k % 4 == 3:  # change one given: often no solution (without a direct clash)
            values = puzzle.values.copy()
            given = np.argwhere(values)
            r, c = given[rng.integers(len(given))]
            values[r, c] = values[r, c] % geometry.n + 1
            changed = sc.Grid(geometry, values)
            if given_conflict(changed) is None:
                puzzle = changed
        made.append(puzzle)
    return made


@pytest.mark.parametrize("shape", SHAPES)
def test_sudoku_cnf_is_the_extended_encoding_and_the_specification(shape: tuple[int, int]) -> None:
    for puzzle in _puzzles(shape, 1, 3):
        ours = sudoku_cnf(puzzle)
        assert ours.clauses() == [list(c) for c in encode_cnf(puzzle, "extended", amo="pairwise").clauses()]
        solution = random_solution(puzzle.geometry, np.random.default_rng(2))
        blocked = sudoku_cnf(puzzle, solution)
        spec = _spec_sudoku_text(*shape, puzzle.values.tolist(), solution.values.tolist())
        assert blocked.text() == spec
        assert blocked.sha256() == hashlib.sha256(spec).hexdigest()
        assert gzip.decompress(blocked.gzip()) == spec  # several gzip members read as one file


@pytest.mark.parametrize("shape", SHAPES)
def test_nishio_cnf_is_the_specification(shape: tuple[int, int]) -> None:
    geometry = geometry_for_size(shape[0] * shape[1], shape)
    rng = np.random.default_rng(3)
    for density in (0.0, 0.3, 0.7):
        mask = rng.random((geometry.n, geometry.n)) < density
        cells = {(int(r), int(c)) for r, c in np.argwhere(mask)}
        for forced in list(cells)[:2] or [(0, 0)]:
            cnf = nishio_cnf(geometry, mask, forced)
            assert cnf.text() == _spec_nishio_text(*shape, cells, forced)


def test_gzip_members_read_by_the_gzip_program(tmp_path: Path) -> None:
    if shutil.which("gzip") is None:
        pytest.skip("no gzip program")
    cnf = sudoku_cnf(sc.parse_grid(HARD))
    (tmp_path / "a.cnf.gz").write_bytes(cnf.gzip())
    out = subprocess.run(["gzip", "-dc", str(tmp_path / "a.cnf.gz")], capture_output=True, check=True)
    assert out.stdout == cnf.text()


# ------------------------------------------------------------------- claims of every backend


@pytest.mark.parametrize(
    "backend", ["pysat", "pysat:glucose4", "cpsat", "cpsat:alldiff", "dlx", "backtrack", "program:cadical"]
)
def test_claims_of_every_backend_certified_on_every_shape(backend: str, tmp_path: Path) -> None:
    options = BackendOptions(backend)
    if backend.startswith("program:"):
        if shutil.which("cadical") is None:
            pytest.skip("no cadical program (Debian package cadical)")
        options = BackendOptions("pysat", solver_cmd="cadical -q")
    seen: set[str] = set()
    for index, shape in enumerate(SHAPES):
        puzzles = _puzzles(shape, 10 + index, 8)
        items = [PuzzleItem(k, k + 1, grid) for k, grid in enumerate(puzzles)]
        results = solve_items(items, options, unique=True)
        for item, result in zip(
            items, certify_results(items, results, str(tmp_path), unique=True), strict=True
        ):
            assert result.status is not sc.Status.UNKNOWN, result.error
            if result.status in (sc.Status.SOLVED, sc.Status.UNSAT, sc.Status.MULTIPLE):
                assert result.certificate is not None
                check = check_certificate(result.certificate)
                assert check.holds, check.reason
                manifest = json.loads(Path(result.certificate).read_text())
                assert item.grid is not None and manifest["puzzle"] == format_line(item.grid)
                seen.add(manifest["claim"])
    assert seen == {"unsat", "unique", "multiple"}


def test_reference_checker_agrees_on_a_certificate_folder(tmp_path: Path) -> None:
    for claim, text in (("unique", HARD), ("multiple", "." * 81)):
        write_certificate(tmp_path, certify_sudoku(sc.parse_grid(text), claim, checker="dratify"))
    write_certificate(tmp_path, certify_sudoku(sc.parse_grid("42..3..2.1......", box=(2, 2)), "unsat"))
    ours = [check.verdict for check in check_certificates(sorted(tmp_path.glob("*.json")))]
    reference = [c.verdict for c in check_certificates(sorted(tmp_path.glob("*.json")), checker="dratify")]
    assert ours == reference == ["holds"] * 3


def test_false_claims_are_not_certified() -> None:
    with pytest.raises(CertificateError, match="claim 'unsat' not certified: the puzzle has a solution"):
        certify_sudoku(sc.parse_grid(HARD), "unsat")
    with pytest.raises(CertificateError, match="claim 'unique' not certified: .*second solution"):
        certify_sudoku(sc.parse_grid("." * 16, box=(2, 2)), "unique")
    with pytest.raises(CertificateError, match="claim 'multiple' not certified: .*exactly one"):
        certify_sudoku(sc.parse_grid(HARD), "multiple")
    solution = sc.solve(sc.parse_grid(HARD), "pysat").solution
    assert solution is not None
    values = solution.values.copy()
    values[0, 1], values[0, 2] = values[0, 2], values[0, 1]
    with pytest.raises(CertificateError, match="solution given is wrong"):
        certify_sudoku(sc.parse_grid(HARD), "unique", sc.Grid(solution.geometry, values))


def test_a_wrong_closure_is_not_certified() -> None:
    geometry = geometry_for_size(4, (2, 2))
    mask = np.ones((4, 4), dtype=bool)
    with pytest.raises(CertificateError, match="in a placement but not in the closure"):
        certify_closure(geometry, mask, np.zeros((4, 4), dtype=bool))
    empty_row = mask.copy()
    empty_row[0] = False
    with pytest.raises(CertificateError, match="in the closure but in no placement"):
        certify_closure(geometry, empty_row, empty_row)
    made = certify_closure(geometry, empty_row, np.zeros((4, 4), dtype=bool))
    assert made.manifest["closure"] == [] and len(made.manifest["eliminated"]) == 12


def test_an_expired_deadline_is_unknown_never_a_certificate() -> None:
    spent = Deadline(1e-9)
    with pytest.raises(TimeLimitReached):
        certify_sudoku(sc.parse_grid(HARD), "unique", deadline=spent)


# -------------------------------------------------------------------------------- tampering


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("certificates")
    write_certificate(made, certify_sudoku(sc.parse_grid(HARD), "unique"))
    write_certificate(made, certify_sudoku(sc.parse_grid("42..3..2.1......", box=(2, 2)), "unsat"))
    write_certificate(made, certify_sudoku(sc.parse_grid("." * 16, box=(2, 2)), "multiple"))
    return made


def _copy(folder: Path, tmp_path: Path, claim: str) -> tuple[Path, dict[str, object]]:
    for path in folder.iterdir():
        shutil.copy(path, tmp_path / path.name)
    manifest_path = next(tmp_path.glob(f"{claim}-*.json"))
    return manifest_path, json.loads(manifest_path.read_text())


def _fails(path: Path, manifest: dict[str, object], match: str) -> None:
    path.write_text(json.dumps(manifest))
    check = check_certificate(path)
    assert check.verdict == "fails"
    assert match in check.reason, check.reason


def test_untouched_certificates_hold(folder: Path) -> None:
    assert [check_certificate(p).holds for p in sorted(folder.glob("*.json"))] == [True, True, True]


def test_every_tampering_is_caught(folder: Path, tmp_path: Path) -> None:
    path, manifest = _copy(folder, tmp_path, "unique")
    original = dict(manifest)
    puzzle = str(original["puzzle"])
    _fails(path, {**original, "cnf_sha256": "0" * 64}, "cnf_sha256")
    _fails(path, {**original, "puzzle": "." + puzzle[1:]}, "cnf_sha256")  # another claim, same files
    solution = str(original["solution"])
    _fails(path, {**original, "solution": solution[1] + solution[0] + solution[2:]}, "not a solution")
    _fails(path, {**original, "proof": "../../etc/passwd"}, "file name")
    _fails(path, {**original, "proof": "missing.drat.gz"}, "missing")
    unsat = json.loads(next(tmp_path.glob("unsat-*.json")).read_text())
    _fails(path, {**original, "proof": unsat["proof"]}, "")  # a proof of another formula
    proof = tmp_path / str(original["proof"])
    text = gzip.decompress(proof.read_bytes())
    for damaged in (
        gzip.compress(text[: len(text) // 2]),  # truncated
        proof.read_bytes()[:100],  # a damaged gzip stream
        b"",  # an empty proof
        b"\x61\x02\x04\x00",  # binary DRAT
    ):
        proof.write_bytes(damaged)
        check = check_certificate(_write(path, original))
        assert check.verdict == "fails", damaged[:20]
    cnf = tmp_path / str(original["cnf"])
    cnf.write_bytes(gzip.compress(gzip.decompress(cnf.read_bytes()) + b"1 0\n"))
    assert "SHA-256 differs" in check_certificate(_write(path, original)).reason


def _write(path: Path, manifest: dict[str, object]) -> Path:
    path.write_text(json.dumps(manifest))
    return path


def test_multiple_needs_two_different_solutions(folder: Path, tmp_path: Path) -> None:
    path, manifest = _copy(folder, tmp_path, "multiple")
    pair = list(manifest["solutions"])  # type: ignore[call-overload]
    _fails(path, {**manifest, "solutions": [pair[0], pair[0]]}, "same grid")
    _fails(path, {**manifest, "solutions": [pair[0]]}, "two solutions")


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"{not json", "not JSON"),
        (b'{"format": "sudoku_cp certificate", "version": 2, "claim": "unique", "box": "3x3"}', "version 2"),
        (b'{"format": "something else"}', "not a certificate manifest"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_unreadable_manifests(tmp_path: Path, content: bytes, match: str) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(content)
    with pytest.raises(ManifestError, match=match):
        check_certificate(path)


# ------------------------------------------------------------------------------- the commands


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "sudoku_cp", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=cwd,
    )


def test_solve_certify_then_check_certificate_in_a_fresh_process(tmp_path: Path, folder: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join([HARD, "." * 81, "11" + "." * 79, "42..3..2.1......"]) + "\n")
    certs = tmp_path / "certs"
    run = _cli("solve", "--unique", "--certify", str(certs), "--json", str(corpus))
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line.get("status") for line in lines[:3]] == ["solved", "multiple", "invalid"]
    assert "certificate" in lines[0] and "certificate" in lines[1] and "certificate" not in lines[2]
    assert lines[3]["status"] == "unsat" and "certificate" in lines[3]  # sizes may mix in a batch
    checked = _cli("check-certificate", str(certs), "--json")
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout.splitlines()[-1])["summary"]["holds"] == 3
    bad = certs / "broken.json"
    manifest = json.loads(Path(lines[0]["certificate"]).read_text())
    bad.write_text(json.dumps({**manifest, "cnf_sha256": "0" * 64}))
    checked = _cli("check-certificate", str(certs))
    assert checked.returncode == 4 and "FAILS" in checked.stdout and "broken.json" in checked.stdout
    missing = _cli("check-certificate", str(tmp_path / "nothing.json"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr + missing.stdout


def test_a_false_claim_makes_the_answer_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.api import PuzzleResult

    item = PuzzleItem(0, 1, sc.parse_grid(HARD))
    lying = [PuzzleResult(0, sc.Status.UNSAT, None, 0.0, None, 1)]
    (result,) = certify_results([item], lying, str(tmp_path))
    assert result.status is sc.Status.UNKNOWN
    assert result.error is not None and "claim 'unsat' not certified" in result.error
    assert result.certificate is None and not list(tmp_path.iterdir())


def test_resume_keeps_certificates(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(HARD + "\n" + "." * 81 + "\n")
    out = tmp_path / "out.jsonl"
    certs = tmp_path / "certs"
    first = _cli("solve", "--unique", "--certify", str(certs), "--json", "-o", str(out), str(corpus))
    assert first.returncode == 1, first.stderr  # 'multiple' under --unique
    before = {p.name: p.stat().st_mtime_ns for p in certs.iterdir()}
    again = _cli(
        "solve", "--unique", "--certify", str(certs), "--json", "-o", str(out), "--resume", str(corpus)
    )
    assert again.returncode == 1, again.stderr
    assert {p.name: p.stat().st_mtime_ns for p in certs.iterdir()} == before
    lines = [json.loads(line) for line in out.read_text().splitlines() if "index" in line]
    assert all(check_certificate(line["certificate"]).holds for line in lines)


def _prover(name: str) -> str:
    from sudoku_cp.certify.prove import resolve_prover

    command = resolve_prover(f"{name} -q --no-binary {{cnf}} {{proof}}")
    if shutil.which(command.split()[0]) is None:
        pytest.skip(f"no {name} program (Debian package cadical; kissat: pip install 'sudoku_cp[provers]')")
    return command


@pytest.mark.parametrize("name", ["cadical", "kissat"])
def test_solver_programs_as_second_provers(name: str, tmp_path: Path) -> None:
    prover = _prover(name)
    for claim, text, box in (("unique", HARD, None), ("unsat", "42..3..2.1......", (2, 2))):
        made = certify_sudoku(sc.parse_grid(text, box=box), claim, prover=prover)
        assert made.manifest["solver"]["name"] == name
        check = check_certificate(write_certificate(tmp_path, made), checker="dratify")
        assert check.holds, check.reason


def test_a_proof_the_checker_cannot_read_is_no_certificate(tmp_path: Path) -> None:
    prover = _prover("cadical").replace("--no-binary ", "")  # binary DRAT: our checkers read text only
    run = _cli("solve", "--unique", "--certify", str(tmp_path), "--prover", prover, "--json", HARD)
    assert run.returncode == 3, run.stderr
    line = json.loads(run.stdout.splitlines()[0])
    assert line["status"] == "unknown" and "claim 'unique' not certified" in line["error"]
    assert not list(tmp_path.glob("*.json"))


def test_a_missing_reference_checker_is_one_line(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sudoku_cp.cli import main

    monkeypatch.setitem(sys.modules, "dratify", None)
    assert main(["check-certificate", "--checker", "dratify", str(folder)]) == 2
    assert "dratify is not installed" in capsys.readouterr().err


def test_a_check_past_its_time_limit_is_unknown(folder: Path) -> None:
    (check,) = check_certificates([next(folder.glob("unique-*.json"))], time_limit=1e-9)
    assert check.verdict == "unknown" and "time limit" in check.reason
    run = _cli("check-certificate", "--time-limit", "0.000001", str(folder))
    assert run.returncode == 3 and "unknown" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["count", "--box", "2x2", "42..3..2.1......"],
        ["nishio", "--puzzle", HARD, "--digit", "7", "--json"],
    ],
)
def test_every_certifying_command_takes_the_second_prover(command: list[str], tmp_path: Path) -> None:
    prover = _prover("cadical")
    run = _cli(*command, "--certify", str(tmp_path), "--prover", prover)
    assert run.returncode in (0, 1), run.stderr
    (manifest,) = tmp_path.glob("*.json")
    assert json.loads(manifest.read_text())["solver"]["name"] == "cadical"
    assert check_certificate(manifest).holds


def test_a_9x9_certificate_stays_under_50_kb(tmp_path: Path) -> None:
    lines = [line.split()[0] for line in read_lines(DATA / "clue17_100.txt", 5)]
    for line in lines:
        made = certify_sudoku(sc.parse_grid(line), "unique")
        files = [write_certificate(tmp_path, made), *(tmp_path / name for name in made.files)]
        assert sum(path.stat().st_size for path in files) < 50_000
        proof = gzip.decompress(made.files[made.manifest["proof"]])
        assert b"\nd " not in proof  # the deletions are left out: the proof checked without them


def test_without_deletions_keeps_every_lemma() -> None:
    from sudoku_cp.certify.prove import without_deletions

    assert without_deletions(b"1 2 0\nd 1 2 3 0\nd1 0\nc note\n-1 0\n0\n") == b"1 2 0\nc note\n-1 0\n0\n"


def test_grids_past_side_61_are_written_and_read_as_integers(tmp_path: Path) -> None:
    from sudoku_cp.formats import parse_line

    geometry = geometry_for_size(64, (8, 8))
    first = random_solution(geometry, np.random.default_rng(1))
    second = sc.Grid(geometry, first.values % 64 + 1)  # the digits relabelled: another solution
    assert parse_line(format_line(first), (8, 8)) == first
    manifest = {
        "format": "sudoku_cp certificate",
        "version": 1,
        "claim": "multiple",
        "box": "8x8",
        "puzzle": format_line(sc.Grid.empty(geometry)),
        "solutions": [format_line(first), format_line(second)],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(manifest))
    check = check_certificate(path)
    assert check.holds, check.reason
