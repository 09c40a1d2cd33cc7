"""Run an external DIMACS SAT solver program on a CNF and read its answer.

The ``command`` is a shell-like string, split with :func:`shlex.split` and run without a shell:

* ``{cnf}`` in it is replaced by the path of the CNF file written for the run, ``{out}`` by the path of
  a result file the program may write (``"mysolver --in {cnf} --result {out}"``).
* Without ``{cnf}``, the CNF path is appended as the last argument (``"cadical -q"`` runs
  ``cadical -q /tmp/.../problem.cnf``).
* Minisat-style programs (basename starting with ``minisat`` or ``glucose``) print no model on stdout,
  so when the command has neither placeholder, ``{cnf} {out}`` is appended for them
  (``"minisat -verb=0"`` runs ``minisat -verb=0 problem.cnf result.txt``).

Two answer formats are read: the SAT competition format on stdout (``s SATISFIABLE`` /
``s UNSATISFIABLE`` / ``s UNKNOWN``, the model in ``v`` lines ending with ``0``, ``c`` lines and any
other lines ignored) and minisat's result file (``SAT`` / ``UNSAT`` / ``INDET``, then the model
ending with ``0``). The exit codes 10 (SAT) and 20 (UNSAT) only cross-check the text. A time-out
kills the program's whole process group and answers "unknown", never "unsatisfiable".
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = [
    "ClauseInput",
    "ProgramAnswer",
    "SolverProgramError",
    "parse_solver_output",
    "run_solver_program",
    "write_dimacs",
]

MINISAT_STYLE = ("minisat", "glucose")
_SAT_EXIT, _UNSAT_EXIT = 10, 20
_CHUNK_LITERALS = 1 << 20
_STATUS_WORDS: dict[str, bool | None] = {
    "SATISFIABLE": True,
    "UNSATISFIABLE": False,
    "UNKNOWN": None,
    "INDETERMINATE": None,
}
_RESULT_WORDS: dict[str, bool | None] = {
    "SAT": True,
    "SATISFIABLE": True,
    "UNSAT": False,
    "UNSATISFIABLE": False,
    "INDET": None,
    "INDETERMINATE": None,
    "UNKNOWN": None,
}
ClauseInput = Iterable[Sequence[int] | np.ndarray] | np.ndarray
"""Clauses: integer sequences, 1-D arrays (one clause) or 2-D zero-padded arrays (a block of clauses)."""
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)


class SolverProgramError(Exception):
    """A solver program could not be run, failed, or gave an answer that cannot be read."""


@dataclass(frozen=True, slots=True)
class ProgramAnswer:
    """What a solver program answered: SAT/UNSAT/unknown, the model when SAT, run time and exit code."""

    satisfiable: bool | None
    model: np.ndarray | None
    seconds: float
    exit_code: int | None


# --------------------------------------------------------------------------------------------- writing


def _literal_text(flat: np.ndarray, n_vars: int) -> str:
    """DIMACS clause lines for a flat literal array where each 0 ends a clause."""
    if flat.size == 0:
        return ""
    flat = flat.astype(np.int64, copy=False)
    if 2 * n_vars + 1 <= 4 * flat.size:
        # One string per possible literal; then a gather and a single join.
        table = np.array([f"{value} " for value in range(-n_vars, n_vars + 1)], dtype=object)
        table[n_vars] = "0\n"
        return "".join(table[flat + n_vars].tolist())
    tokens = np.array([f"{value} " for value in flat.tolist()], dtype=object)
    tokens[flat == 0] = "0\n"
    return "".join(tokens.tolist())


def _check_range(flat: np.ndarray, n_vars: int) -> None:
    """Raise ValueError when a literal's variable exceeds ``n_vars``."""
    if flat.size:
        worst = int(np.abs(flat).max())
        if worst > n_vars:
            bad = int(flat[np.abs(flat) == worst][0])
            raise ValueError(f"clause literal {bad} is out of range for n_vars={n_vars}")


def _block_flat(block: np.ndarray) -> np.ndarray:
    """Flat literals with clause-ending zeros for a 2-D block of zero-padded clauses."""
    rows, width = block.shape
    padded = np.zeros((rows, width + 1), dtype=np.int64)
    padded[:, :width] = block
    keep = padded != 0
    keep[:, width] = True
    return padded[keep]


def _clause_chunks(clauses: Any, n_vars: int) -> Iterable[tuple[str, int]]:
    """(DIMACS text, clause count) pieces for every accepted form of clause input."""
    if isinstance(clauses, np.ndarray):
        if clauses.ndim != 2:
            raise ValueError(f"a clause array must be 2-D (one clause per row), got {clauses.ndim}-D")
        clauses = [clauses]
    pending: list[int] = []
    pending_clauses = 0

    def flush() -> tuple[str, int]:
        nonlocal pending, pending_clauses
        flat = np.array(pending)
        if flat.dtype.kind not in "iu":
            raise ValueError(f"clause literals must be integers (got values of type {flat.dtype})")
        if int(np.count_nonzero(flat == 0)) != pending_clauses:
            raise ValueError("literal 0 inside a clause")
        _check_range(flat, n_vars)
        piece = (_literal_text(flat, n_vars), pending_clauses)
        pending, pending_clauses = [], 0
        return piece

    for clause in clauses:
        if isinstance(clause, np.ndarray):
            if clause.ndim == 2:
                if pending_clauses:
                    yield flush()
                if not np.issubdtype(clause.dtype, np.integer):
                    raise ValueError(f"clause array has non-integer dtype {clause.dtype}")
                step = max(1, _CHUNK_LITERALS // max(1, clause.shape[1]))
                for start in range(0, clause.shape[0], step):
                    part = clause[start : start + step]
                    flat = _block_flat(part)
                    _check_range(flat, n_vars)
                    yield _literal_text(flat, n_vars), part.shape[0]
                continue
            if clause.ndim != 1:
                raise ValueError(f"clause array must be 1-D or 2-D, got {clause.ndim}-D")
            if not np.issubdtype(clause.dtype, np.integer):
                raise ValueError(f"clause array has non-integer dtype {clause.dtype}")
            literals = clause.tolist()
            if 0 in literals:
                literals = [value for value in literals if value]
            pending.extend(literals)
        else:
            pending.extend(clause)
        pending.append(0)
        pending_clauses += 1
        if len(pending) >= _CHUNK_LITERALS:
            yield flush()
    if pending_clauses:
        yield flush()


def write_dimacs(
    path_or_file: str | os.PathLike[str] | IO[str] | IO[bytes],
    clauses: ClauseInput,
    n_vars: int,
    comments: Sequence[str] = (),
) -> None:
    """Write a CNF in DIMACS: 'c' comment lines, the 'p cnf V C' header, one clause per line ending in 0.

    ``clauses`` is any iterable of integer sequences, a 2-D integer array of zero-padded clauses (one per
    row; an all-zero row is the empty clause), or an iterable mixing 1-D arrays (one clause, zeros
    dropped) and 2-D arrays (blocks of clauses). Raises ValueError for a literal beyond ``n_vars`` or a
    0 inside a sequence clause.
    """
    if n_vars < 0:
        raise ValueError(f"n_vars must be >= 0, got {n_vars}")
    pieces: list[str] = []
    n_clauses = 0
    for text, count in _clause_chunks(clauses, n_vars):
        pieces.append(text)
        n_clauses += count
    head = []
    for comment in comments:
        for line in str(comment).splitlines() or [""]:
            head.append(f"c {line}\n" if line else "c\n")
    head.append(f"p cnf {n_vars} {n_clauses}\n")
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "w", encoding="ascii", newline="\n") as out:
            out.write("".join(head))
            out.writelines(pieces)
        return
    stream: IO[Any] = path_or_file
    binary = isinstance(stream, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(stream, "mode", "")
    if binary:
        stream.write("".join(head).encode("ascii"))
        for piece in pieces:
            stream.write(piece.encode("ascii"))
    else:
        stream.write("".join(head))
        stream.writelines(pieces)


# --------------------------------------------------------------------------------------------- reading


def _read_model(lines: list[tuple[int, str]], where: str, n_vars: int | None) -> np.ndarray:
    """The model literals from (line number, literal text) pairs; checks format and range."""
    literals: list[int] = []
    line_of: list[int] = []
    ended_at: int | None = None
    for number, text in lines:
        for token in text.split():
            if not _INTEGER.fullmatch(token):
                raise SolverProgramError(
                    f"malformed model: non-integer token {token!r} ({where} line {number})"
                )
            if ended_at is not None:
                raise SolverProgramError(
                    f"malformed model: literal {token} after the terminating 0 ({where} line {number})"
                )
            value = int(token)
            if value == 0:
                ended_at = number
                continue
            if n_vars is not None and abs(value) > n_vars:
                raise SolverProgramError(
                    f"model literal {value} is out of range for {n_vars} variables ({where} line {number})"
                )
            literals.append(value)
            line_of.append(number)
    if ended_at is None:
        last = lines[-1][0] if lines else 0
        raise SolverProgramError(f"malformed model: no terminating 0 ({where} line {last})")
    model = np.array(literals, dtype=np.int64)
    positive = np.unique(model[model > 0])
    negative = np.unique(-model[model < 0])
    both = np.intersect1d(positive, negative)
    if both.size:
        variable = int(both[0])
        index = int(np.flatnonzero(np.abs(model) == variable)[1])
        raise SolverProgramError(
            f"model assigns variable {variable} both true and false ({where} line {line_of[index]})"
        )
    if np.abs(model).max(initial=0) > np.iinfo(np.int32).max:
        raise SolverProgramError(f"model literal too large for int32 ({where})")
    return model.astype(np.int32)


def _parse_competition(text: str, n_vars: int | None) -> tuple[bool, bool | None, np.ndarray | None]:
    """(has status line, status, model) from SAT competition output."""
    status: bool | None = None
    status_line: tuple[int, str] | None = None
    value_lines: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        head, _, rest = line.partition(" ")
        if head == "s":
            word = rest.strip().upper()
            if word not in _STATUS_WORDS:
                raise SolverProgramError(f"unrecognized status line {line!r} (solver output line {number})")
            if status_line is not None and status_line[1] != word:
                raise SolverProgramError(
                    f"conflicting status lines {status_line[1]} (solver output line {status_line[0]}) "
                    f"and {word} (line {number})"
                )
            status_line = (number, word)
            status = _STATUS_WORDS[word]
        elif head == "v":
            value_lines.append((number, rest))
    if status_line is None:
        if value_lines:
            raise SolverProgramError(
                f"solver output has 'v' lines but no 's' line (solver output line {value_lines[0][0]})"
            )
        return False, None, None
    if status is True:
        if not value_lines:
            raise SolverProgramError(
                f"solver said SATISFIABLE but printed no 'v' lines (solver output line {status_line[0]})"
            )
        return True, True, _read_model(value_lines, "solver output", n_vars)
    if value_lines:
        raise SolverProgramError(
            f"solver said {status_line[1]} but printed 'v' lines (solver output line {value_lines[0][0]})"
        )
    return True, status, None


def _parse_result_file(text: str, n_vars: int | None) -> tuple[bool | None, np.ndarray | None]:
    """(status, model) from a minisat-style result file."""
    numbered = [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1)]
    numbered = [(number, line) for number, line in numbered if line]
    first_number, first = numbered[0]
    word = first.upper()
    if word not in _RESULT_WORDS:
        raise SolverProgramError(
            f"unrecognized result file status {first!r} (result file line {first_number})"
        )
    status = _RESULT_WORDS[word]
    rest = numbered[1:]
    if status is True:
        if not rest:
            raise SolverProgramError(
                f"result file says SAT but has no model (result file line {first_number})"
            )
        return True, _read_model(rest, "result file", n_vars)
    if rest:
        raise SolverProgramError(
            f"result file says {first} but has more lines (result file line {rest[0][0]})"
        )
    return status, None


def parse_solver_output(
    text: str, result_file_text: str | None = None, *, n_vars: int | None = None
) -> tuple[bool | None, np.ndarray | None]:
    """(satisfiable, model) from a solver's stdout and optional minisat-style result file.

    ``satisfiable`` is None for UNKNOWN / INDETERMINATE / INDET. The model is an int32 array of the
    signed literals printed, without the final 0. With ``n_vars`` every literal's variable must be at
    most ``n_vars``. Raises SolverProgramError (naming the line) for unreadable or contradictory output,
    or when there is neither an 's' line nor a result file.
    """
    has_status, status, model = _parse_competition(text, n_vars)
    if result_file_text is not None and result_file_text.strip():
        file_status, file_model = _parse_result_file(result_file_text, n_vars)
        if has_status and status != file_status:
            raise SolverProgramError(
                f"solver output says {_describe(status)} but its result file says {_describe(file_status)}"
            )
        return file_status, file_model if file_model is not None else model
    if not has_status:
        raise SolverProgramError("solver output has no 's' line and no result file")
    return status, model


def _describe(status: bool | None) -> str:
    """SAT / UNSAT / UNKNOWN."""
    return {True: "SAT", False: "UNSAT", None: "UNKNOWN"}[status]


# --------------------------------------------------------------------------------------------- running


def _command_arguments(command: str, cnf: str, out: str) -> tuple[list[str], bool]:
    """(argv with placeholders filled in, whether a result file path was passed)."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise SolverProgramError(f"cannot split solver command {command!r}: {error}") from None
    if not words:
        raise SolverProgramError("empty solver command")
    has_cnf = any("{cnf}" in word for word in words)
    has_out = any("{out}" in word for word in words)
    if not has_cnf:
        words.append("{cnf}")
        if not has_out and os.path.basename(words[0]).lower().startswith(MINISAT_STYLE):
            words.append("{out}")
            has_out = True
    return [word.replace("{cnf}", cnf).replace("{out}", out) for word in words], has_out


def _last_line(data: str) -> str:
    """The last non-empty line of a text, shortened, or a note that there was none."""
    lines = [line.strip() for line in data.splitlines() if line.strip()]
    if not lines:
        return "no error output"
    line = lines[-1]
    return line if len(line) <= 200 else line[:197] + "..."


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and every process of its group (it was started in a new session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def _failure(name: str, code: int, stderr: str) -> SolverProgramError:
    """The error for a program that ended with an abnormal exit code and no readable answer."""
    if code < 0:
        try:
            signal_name = f", {signal.Signals(-code).name}"
        except ValueError:
            signal_name = ""
        return SolverProgramError(
            f"solver program {name!r} crashed (exit code {code}{signal_name}): {_last_line(stderr)}"
        )
    return SolverProgramError(f"solver program {name!r} failed (exit code {code}): {_last_line(stderr)}")


def run_solver_program(
    command: str,
    clauses: ClauseInput,
    n_vars: int,
    *,
    time_limit: float | None = None,
    comments: Sequence[str] = (),
) -> ProgramAnswer:
    """Write the CNF to a temporary file, run the solver program on it and read its answer.

    A time-out (``time_limit`` seconds of wall time for the program) kills the program's process group
    and gives ``satisfiable=None``. Raises SolverProgramError when the program is missing, fails without
    a readable answer, or answers something unreadable or contradicting its exit code.
    """
    with tempfile.TemporaryDirectory(prefix="sudoku_cp_solver_") as folder:
        cnf_path = str(Path(folder) / "problem.cnf")
        out_path = str(Path(folder) / "result.txt")
        argv, uses_out = _command_arguments(command, cnf_path, out_path)
        name = argv[0]
        executable = shutil.which(name)
        if executable is None:
            raise SolverProgramError(f"solver program {name!r} not found")
        write_dimacs(cnf_path, clauses, n_vars, comments)
        start = time.monotonic()
        try:
            process = subprocess.Popen(
                [executable, *argv[1:]],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as error:
            raise SolverProgramError(
                f"solver program {name!r} could not be started: {error.strerror or error}"
            ) from None
        timed_out = False
        try:
            try:
                stdout_bytes, stderr_bytes = process.communicate(timeout=time_limit)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(process)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.communicate(timeout=5.0)
        finally:
            # Also ends anything the program left behind, and the program itself on an interrupt.
            _kill_group(process)
            if process.returncode is None:
                process.wait()
            if timed_out:
                for pipe in (process.stdout, process.stderr):
                    if pipe is not None:
                        pipe.close()
        seconds = time.monotonic() - start
        if timed_out:
            return ProgramAnswer(None, None, seconds, None)
        code = process.returncode
        stdout = stdout_bytes.decode("utf-8", errors="replace")
        stderr = stderr_bytes.decode("utf-8", errors="replace")
        result_text: str | None = None
        if uses_out and os.path.exists(out_path):
            result_text = Path(out_path).read_text(encoding="utf-8", errors="replace")
        normal = code in (0, _SAT_EXIT, _UNSAT_EXIT)
        try:
            satisfiable, model = parse_solver_output(stdout, result_text, n_vars=n_vars)
        except SolverProgramError as error:
            if not normal:
                raise _failure(name, code, stderr) from error
            raise
    if code == _SAT_EXIT and satisfiable is not True or code == _UNSAT_EXIT and satisfiable is not False:
        raise SolverProgramError(
            f"solver program {name!r} exit code {code} ({'SAT' if code == _SAT_EXIT else 'UNSAT'}) "
            f"contradicts its answer {_describe(satisfiable)}"
        )
    return ProgramAnswer(satisfiable, model, seconds, code)
