"""Run an external DIMACS SAT solver program on a CNF and read its answer.

The ``command`` is a shell-like string, split with :func:`shlex.split` and run without a shell:

* ``{cnf}`` in it is replaced by the path of the CNF file written for the run, ``{out}`` by the path of
  a result file the program may write (``"mysolver --in {cnf} --result {out}"``), ``{proof}`` by
  the path of the DRAT proof a prover is asked to write (``"cadical -q --no-binary {cnf} {proof}"``).
* Without ``{cnf}``, the CNF path is appended as the last argument (``"cadical -q"`` runs
  ``cadical -q /tmp/.../problem.cnf``).
* Minisat-style programs (basename starting with ``minisat`` or ``glucose``) print no model on stdout,
  so when the command has neither placeholder, ``{cnf} {out}`` is appended for them
  (``"minisat -verb=0"`` runs ``minisat -verb=0 problem.cnf result.txt``).

Two answer formats are read: the SAT competition format on stdout (``s SATISFIABLE`` /
``s UNSATISFIABLE`` / ``s UNKNOWN``, the model in ``v`` lines ending with ``0``, ``c`` lines and any
other lines ignored) and minisat's result file (``SAT`` / ``UNSAT`` / ``INDET``, then the model
ending with ``0``), both by ``sudoku_cp.cnf.dimacs``. The exit codes 10 (SAT) and 20 (UNSAT) only
cross-check the text. The program runs through ``sudoku_cp.process.run_program``: a time-out, or
output past its cap, kills the program's whole process group and answers "unknown" with the reason,
never "unsatisfiable".
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cnf.dimacs import ClauseInput, SolverProgramError, parse_solver_output, write_dimacs
from ..outcome import REASON_TIME_LIMIT
from ..process import (
    DEFAULT_MAX_OUTPUT,
    CommandError,
    ProgramStartError,
    find_program,
    last_line,
    run_program,
    split_command,
)

__all__ = ["ProgramAnswer", "run_solver_program"]

MINISAT_STYLE = ("minisat", "glucose")
_SAT_EXIT, _UNSAT_EXIT = 10, 20


@dataclass(frozen=True, slots=True)
class ProgramAnswer:
    """What a solver program answered: SAT/UNSAT/unknown, the model when SAT, run time and exit code.

    ``reason`` says why the answer is unknown when the program was stopped (time limit, output cap).
    """

    satisfiable: bool | None
    model: np.ndarray | None
    seconds: float
    exit_code: int | None
    reason: str | None = None


def _command_arguments(command: str, cnf: str, out: str, proof: str = "") -> tuple[list[str], bool]:
    """(argv with placeholders filled in, whether a result file path was passed)."""
    try:
        words = split_command(command, "solver command")
    except CommandError as error:
        raise SolverProgramError(str(error)) from None
    has_cnf = any("{cnf}" in word for word in words)
    has_out = any("{out}" in word for word in words)
    if not has_cnf:
        words.append("{cnf}")
        if not has_out and os.path.basename(words[0]).lower().startswith(MINISAT_STYLE):
            words.append("{out}")
            has_out = True
    filled = [word.replace("{cnf}", cnf).replace("{out}", out).replace("{proof}", proof) for word in words]
    return filled, has_out


def _failure(name: str, code: int, stderr: str) -> SolverProgramError:
    """The error for a program that ended with an abnormal exit code and no readable answer."""
    if code < 0:
        try:
            signal_name = f", {signal.Signals(-code).name}"
        except ValueError:
            signal_name = ""
        return SolverProgramError(
            f"solver program {name!r} crashed (exit code {code}{signal_name}): {last_line(stderr)}"
        )
    return SolverProgramError(f"solver program {name!r} failed (exit code {code}): {last_line(stderr)}")


def run_solver_program(
    command: str,
    clauses: ClauseInput,
    n_vars: int,
    *,
    time_limit: float | None = None,
    comments: Sequence[str] = (),
    n_clauses: int | None = None,
    proof: str = "",
) -> ProgramAnswer:
    """Write the CNF to a temporary file, run the solver program on it and read its answer.

    ``clauses`` is any input of ``write_dimacs``; with ``n_clauses`` (its number of clauses) a
    one-shot iterator of clause blocks is written as it comes, never listed.  ``proof``: the path
    ``{proof}`` in the command stands for.

    A time-out (``time_limit`` seconds of wall time for the program; None or inf: no limit) kills
    the program's process group and gives ``satisfiable=None``, as does standard output past the
    cap of ``sudoku_cp.process`` (64 MiB); ``reason`` says which.  Raises SolverProgramError when
    the program is missing, fails without a readable answer, or answers something unreadable or
    contradicting its exit code.
    """
    with tempfile.TemporaryDirectory(prefix="sudoku_cp_solver_") as folder:
        cnf_path = str(Path(folder) / "problem.cnf")
        out_path = str(Path(folder) / "result.txt")
        argv, uses_out = _command_arguments(command, cnf_path, out_path, proof)
        name = argv[0]
        try:
            find_program(name)
        except ProgramStartError as error:
            raise SolverProgramError(f"solver program {name!r} {error.reason}") from None
        write_dimacs(cnf_path, clauses, n_vars, comments, n_clauses=n_clauses)
        try:
            run = run_program(argv, None, time_limit)
        except ProgramStartError as error:
            raise SolverProgramError(f"solver program {name!r} {error.reason}") from None
        if run.timed_out:
            return ProgramAnswer(None, None, run.seconds, None, REASON_TIME_LIMIT)
        if run.output_too_large:
            reason = f"solver program {name!r} wrote more than {_mib(len(run.stdout))} MiB: stopped"
            return ProgramAnswer(None, None, run.seconds, None, reason)
        code = run.exit_code
        result_text: str | None = None
        if uses_out and os.path.exists(out_path):
            if os.path.getsize(out_path) > DEFAULT_MAX_OUTPUT:
                reason = f"solver program {name!r} wrote a result file over {_mib(DEFAULT_MAX_OUTPUT)} MiB"
                return ProgramAnswer(None, None, run.seconds, code, reason)
            result_text = Path(out_path).read_text(encoding="utf-8", errors="replace")
        normal = code in (0, _SAT_EXIT, _UNSAT_EXIT)
        try:
            satisfiable, model = parse_solver_output(run.stdout_text, result_text, n_vars=n_vars)
        except SolverProgramError as error:
            if not normal:
                raise _failure(name, code, run.stderr_tail) from error
            raise
    if code == _SAT_EXIT and satisfiable is not True or code == _UNSAT_EXIT and satisfiable is not False:
        raise SolverProgramError(
            f"solver program {name!r} exit code {code} ({'SAT' if code == _SAT_EXIT else 'UNSAT'}) "
            f"contradicts its answer {_describe(satisfiable)}"
        )
    return ProgramAnswer(satisfiable, model, run.seconds, code)


def _mib(size: int) -> str:
    """A byte count in MiB, as short as it stays exact enough ('64')."""
    return f"{size / (1 << 20):g}"


def _describe(status: bool | None) -> str:
    """SAT / UNSAT / UNKNOWN."""
    return {True: "SAT", False: "UNSAT", None: "UNKNOWN"}[status]
