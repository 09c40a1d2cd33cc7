"""Issue 24, item 2: "unsat" and "unique" confirmed by another path than the one that produced them.

* a solver program's UNSAT claims, and a contradiction our propagation finds, are confirmed by
  CaDiCaL on the plain extended encoding (``certify.cnf.sudoku_cnf``), not on the program's CNF;
* ``verify``'s ground truth is not the path of an audited backend unless asked for, and says so.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import run
from test_program import fake_solver
from test_program_faults import dimacs_solver

from sudoku_cp.audit.truth import EXTENDED, GroundTruth, choose_truth
from sudoku_cp.backends import confirm as program_backend  # the confirmation lives in confirm
from sudoku_cp.backends import program_backend as real_program_backend
from sudoku_cp.backends.base import BackendError
from sudoku_cp.backends.program_backend import UNVERIFIED, ProgramBackend
from sudoku_cp.certify.cnf import CertificateCnf, sudoku_clauses
from sudoku_cp.formats import parse_grid
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import REASON_TIME_LIMIT

LIAR = "print('s UNSATISFIABLE')\nsys.exit(20)"
NEVER_RUN = "open(sys.argv[0] + '.ran', 'w').close()\nprint('s UNSATISFIABLE')\nsys.exit(20)"
SOLVABLE_9X9 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
EMPTY_4X4 = "." * 16
# Row 1 holds 1 2 3, so its last cell needs 4, which column 4 already has: no solution, and our
# propagation sees it (no equal givens: nothing simpler catches it first).
CONTRADICTORY_4X4 = "123....4........"


class Spy:
    """Counts the confirmation's SAT calls and keeps the CNFs it was built from."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, stopped: bool = False) -> None:
        self.cnfs: list[CertificateCnf] = []
        self.calls = 0
        real_cnf, real_solve = program_backend.sudoku_cnf, program_backend.solve_limited

        def cnf(puzzle: Grid, solution: Grid | None = None) -> CertificateCnf:
            made = real_cnf(puzzle, solution)
            self.cnfs.append(made)
            return made

        def solve(*args: Any) -> bool | None:
            self.calls += 1
            return None if stopped else real_solve(*args)  # None: what a deadline reached gives

        monkeypatch.setattr(program_backend, "sudoku_cnf", cnf)
        monkeypatch.setattr(program_backend, "solve_limited", solve)


def givens(text: str) -> int:
    return sum(ch != "." for ch in text)


# ------------------------------------------------------------------ the solver-program backend


@pytest.mark.parametrize("text", [SOLVABLE_9X9, EMPTY_4X4])
def test_a_program_always_saying_unsat_is_never_reported_unsat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    spy = Spy(monkeypatch)
    puzzle = parse_grid(text)
    with pytest.raises(BackendError, match=r"claimed UNSAT \(no solution\) but pysat:cadical195 found"):
        ProgramBackend(fake_solver(tmp_path, "liar", LIAR)).search(puzzle, 2, 30)
    # Confirmed on the extended encoding (n^3 variables, every clause of it), not the program's CNF.
    n = puzzle.n
    assert spy.calls == 1 and [c.n_vars for c in spy.cnfs] == [n**3]
    assert spy.cnfs[0].n_clauses == 4 * n * n + 2 * n**3 * (n - 1) + givens(text)


def test_a_false_no_second_solution_claim_is_refuted_with_the_first_blocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(monkeypatch)
    with pytest.raises(BackendError, match=r"no solution beyond the 1 found\) but pysat:cadical195"):
        ProgramBackend(dimacs_solver(tmp_path, 1)).search(parse_grid(EMPTY_4X4), 2, 30)
    assert spy.calls == 1 and spy.cnfs[0].n_clauses == sudoku_clauses(4) + 1  # + the blocking clause


def test_a_true_unique_claim_is_confirmed_and_a_false_count_refuted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(monkeypatch)
    found = ProgramBackend(dimacs_solver(tmp_path, -1)).search(parse_grid(SOLVABLE_9X9), 2, 30)
    assert found.complete and found.count == 1 and found.reason is None and UNVERIFIED not in found.stats
    assert spy.calls == 1 and spy.cnfs[-1].n_clauses == sudoku_clauses(9) + givens(SOLVABLE_9X9) + 1
    # Counting: honest for three runs, then "no more"; the three found are all blocked.
    with pytest.raises(BackendError, match=r"no solution beyond the 3 found"):
        ProgramBackend(dimacs_solver(tmp_path, 3)).search(parse_grid(EMPTY_4X4), 10, 30)


def test_trust_still_skips_the_confirmation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(monkeypatch)
    found = ProgramBackend(fake_solver(tmp_path, "liar", LIAR), trust=True).search(parse_grid(EMPTY_4X4))
    assert found.complete and found.count == 0 and found.stats[UNVERIFIED] == 1 and spy.calls == 0


def test_our_contradiction_is_confirmed_by_a_sat_call_on_the_extended_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(monkeypatch)
    command = fake_solver(tmp_path, "never", NEVER_RUN)
    found = ProgramBackend(command).search(parse_grid(CONTRADICTORY_4X4), 2, 30)
    assert found.complete and found.count == 0 and found.reason is None
    assert not Path(command + ".ran").exists()  # the program is not asked
    assert spy.calls == 1 and spy.cnfs[0].n_vars == 64
    assert spy.cnfs[0].n_clauses == 4 * 16 + 2 * 64 * 3 + givens(CONTRADICTORY_4X4)


def test_a_contradiction_the_extended_encoding_refutes_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A propagation bug, simulated: it calls a solvable puzzle contradictory.
    real = real_program_backend.encode_cnf

    def buggy(*args: Any) -> Any:
        return dataclasses.replace(real(*args), contradiction=True)

    monkeypatch.setattr(real_program_backend, "encode_cnf", buggy)
    with pytest.raises(BackendError, match="our propagation found the puzzle contradictory but pysat"):
        ProgramBackend(fake_solver(tmp_path, "liar", LIAR)).search(parse_grid(SOLVABLE_9X9))


def test_a_confirmation_stopped_by_the_time_limit_is_never_unsat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(monkeypatch, stopped=True)
    command = fake_solver(tmp_path, "liar", LIAR)
    stopped = ProgramBackend(command).search(parse_grid(CONTRADICTORY_4X4), 1, 5)
    assert not stopped.complete and stopped.timed_out and stopped.count == 0
    assert stopped.reason == f"{REASON_TIME_LIMIT} while confirming our propagation's contradiction"
    stopped = ProgramBackend(command).search(parse_grid(EMPTY_4X4), 1, 5)
    assert (
        not stopped.complete and stopped.timed_out and "UNSAT claim of solver program" in str(stopped.reason)
    )
    assert spy.calls == 2


# ------------------------------------------------------------------------- verify's ground truth


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A unique puzzle, one with many solutions and one without (our propagation's contradiction)."""
    path = tmp_path / "corpus.txt"
    path.write_text(f"{SOLVABLE_9X9}\n{EMPTY_4X4}\n{CONTRADICTORY_4X4}\n")
    return path


def verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    """Exit code, JSON summary and stderr of ``verify --unique --in-process --json ...``."""
    code, out, err = run(capsys, "verify", "--unique", "--in-process", "--json", *argv)
    summary = json.loads(out.splitlines()[-1])["summary"]
    assert isinstance(summary, dict)
    return code, summary, err


def test_the_truth_is_never_an_audited_backends_path_unless_asked() -> None:
    assert choose_truth([]) == choose_truth(["dlx", "acs"]) == "pysat"
    assert choose_truth(["dlx", "pysat:glucose4"]) == choose_truth(["pysat"]) == "cpsat"
    assert choose_truth(["cpsat:alldiff"]) == "pysat"
    assert choose_truth(["pysat", "cpsat"]) == choose_truth(["cpsat", "pysat:minisat22"]) == EXTENDED


@pytest.mark.parametrize(
    ("backends", "truth"), [(("pysat",), "cpsat"), (("pysat", "cpsat"), EXTENDED), (("cpsat",), "pysat")]
)
def test_auditing_a_backend_uses_a_truth_of_another_path(
    capsys: pytest.CaptureFixture[str], corpus: Path, backends: tuple[str, ...], truth: str
) -> None:
    argv = [word for name in backends for word in ("--backend", name)]
    code, summary, err = verify(capsys, *argv, str(corpus))
    assert code == 0 and err == ""  # the truth agreed with every answer, and no warning
    assert summary["truth"] == truth and summary["ground_truth"]["backend"] == truth
    assert summary["ground_truth"]["sat_calls"] == 2  # the "unique" and "unsat" claims (two solutions shown)


def test_a_truth_on_an_audited_path_is_used_with_a_warning(
    capsys: pytest.CaptureFixture[str], corpus: Path
) -> None:
    code, summary, err = verify(capsys, "--backend", "pysat:minisat22", "--truth", "pysat", str(corpus))
    assert code == 0 and summary["truth"] == "pysat"
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "sudoku-cp: warning: the ground truth 'pysat' takes the path"
    )
    assert "'pysat:minisat22'" in lines[0]
    code, summary, err = verify(capsys, "--backend", "pysat", "--truth", EXTENDED, str(corpus))
    assert code == 0 and summary["truth"] == EXTENDED and err == ""


def test_the_human_summary_names_the_truth(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, _ = run(capsys, "verify", "--backend", "pysat", "--in-process", str(corpus))
    assert code == 0 and "ground truth: 1 SAT call (truth: cpsat, " in out.splitlines()[-1]


def test_the_extended_truth_agrees_with_python_sat() -> None:
    extended, pysat = GroundTruth(EXTENDED), GroundTruth("pysat")
    for text, count in [(SOLVABLE_9X9, 1), (EMPTY_4X4, 2), (CONTRADICTORY_4X4, 0)]:
        puzzle = parse_grid(text)
        found = extended(puzzle)
        assert found.count == pysat(puzzle).count == count and len(set(found.solutions)) == count
        if count == 1:
            assert found.solutions == pysat(puzzle).solutions
    assert extended.calls == 3


def test_the_library_audit_picks_a_truth_off_the_audited_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.audit import BackendSolver, audit
    from sudoku_cp.audit import truth as truth_module
    from sudoku_cp.formats import PuzzleItem

    made: list[str] = []
    real = truth_module.GroundTruth.__init__

    def spy(self: GroundTruth, backend: str = "pysat", **options: Any) -> None:
        made.append(backend)
        real(self, backend, **options)

    monkeypatch.setattr(truth_module.GroundTruth, "__init__", spy)
    puzzle = parse_grid("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......")
    results = list(audit([PuzzleItem(0, 1, puzzle)], [BackendSolver("pysat")], unique=True))
    assert made == ["cpsat"] and all(result.verdict.value == "correct" for result in results)
