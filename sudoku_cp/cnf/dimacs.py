"""DIMACS, both ways: writing CNF text, reading CNF text, and reading what a SAT solver answers.

Writing (``write_dimacs``, ``dimacs_text``): ``c`` comment lines, the ``p cnf V C`` header, then one
clause per line ending in ``0``.  Clauses stream out in chunks of about a million literals, each
turned into ASCII by numpy arithmetic on the digits, so a CNF of any size never exists as one
string.  Every CNF the package writes goes through it, so equal models give equal bytes.

Reading CNF (``read_dimacs``), decisions for the cases real files contain:

* lines starting with ``c`` are comments wherever they occur; blank lines are skipped;
* the header is ``p cnf <vars> <clauses>`` with any white space between the fields; it must
  come before the first clause and appear once;
* a line starting with ``%`` ends the formula (the SATLIB tail ``%`` then a lone ``0`` would
  otherwise read as an empty clause);
* clauses are literal sequences ended by ``0``; they may span lines, and a line may hold
  several;
* a literal repeated in a clause is kept once; a clause holding ``v`` and ``-v`` is always
  true and is dropped (it still counts towards the header's clause count); an empty clause
  (a lone ``0``) is kept, so the formula is unsatisfiable;
* variables that occur in no clause still count: ``n_vars`` is the header's number;
* sizes are checked at the header, before any clause is read: at most ``MAX_VARIABLES``
  variables (2**63 - 1, the writer's 64-bit literals; a caller may set a lower cap, as
  ``reduction.formula.parse_dimacs`` does), and no more clauses than the text can hold (each
  needs at least a ``0`` and a separator);
* errors (``ParseError`` with line and column): no header, a malformed or repeated header, a
  header beyond those sizes, a token that is not an integer, a literal beyond the declared
  variables, a last clause with no terminating ``0`` (likely a truncated file, so it is not
  guessed), and a clause count different from the header's.

A UTF-8 byte-order mark at the start of any text read here is ignored.

Reading a solver's answer (``read_solver_answer``, ``parse_solver_output``), three forms:

* SAT competition output: ``s SATISFIABLE`` / ``s UNSATISFIABLE`` / ``s UNKNOWN``, the model in
  ``v`` lines ending with ``0``; ``c`` lines and any other lines are ignored;
* a minisat result file: ``SAT`` / ``UNSAT`` / ``INDET`` (or the long words), then the model
  ending with ``0``;
* a bare list of literals (a model without any status), read as a satisfiable answer; its
  final ``0`` may be left out.

Model literals lie within +-(2**31 - 1), the 32-bit literals of SAT solvers.  Errors are
``SolverProgramError`` naming the line, and its ``line`` attribute holds the number; values in
messages are cut (a model line can be megabytes).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, Literal

import numpy as np

from ..errors import SudokuCpError, excerpt, naming_file
from ..formats import ParseError, strip_bom

__all__ = [
    "MAX_VARIABLES",
    "AnswerForm",
    "ClauseInput",
    "DimacsCnf",
    "DimacsError",
    "SolverAnswer",
    "SolverProgramError",
    "dimacs_text",
    "flat_dimacs_bytes",
    "write_flat_dimacs",
    "normalize_clause",
    "parse_solver_output",
    "read_dimacs",
    "read_solver_answer",
    "solver_answer_form",
    "value_lines",
    "write_dimacs",
]

ClauseInput = Iterable[Sequence[int] | np.ndarray] | np.ndarray
"""Clauses: integer sequences, 1-D arrays (one clause) or 2-D zero-padded arrays (a block of clauses)."""
AnswerForm = Literal["competition", "result", "literals"]
"""The three forms of a solver's answer: SAT competition output, a minisat result file, a literal list."""

_CHUNK_LITERALS = 1 << 20  # literals turned into text at a time: a few MB of text per chunk
_TOKEN = re.compile(r"\S+")
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_COUNT = re.compile(r"[0-9]+", re.ASCII)
#: The most variables a DIMACS text may declare: literals are 64-bit integers here.
MAX_VARIABLES = 2**63 - 1
_MAX_MODEL_LITERAL = 2**31 - 1  # solvers answer with 32-bit literals
_MAX_TOKEN = 24  # characters of a literal worth converting; a longer one is out of range anyway
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


class DimacsError(SudokuCpError, ValueError):
    """Clauses that cannot be written as DIMACS: a literal beyond n_vars, a 0 in a clause, a non-integer."""


class SolverProgramError(SudokuCpError):
    """A solver's answer that cannot be read, or (``backends.program``) a solver program that failed.

    ``line`` is the 1-based line of the answer text the problem is on, when there is one.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


# --------------------------------------------------------------------------------------------- writing


def _literal_bytes(flat: np.ndarray) -> bytes:
    """ASCII DIMACS text of a flat literal array in which each 0 ends a clause ('1 -2 0\\n')."""
    if flat.size == 0:
        return b""
    flat = flat.astype(np.int64, copy=False)
    magnitude = np.abs(flat)
    largest = int(magnitude.max())
    width = len(str(largest))
    if largest < 2**31:  # half the memory and faster digit arithmetic than int64
        magnitude = magnitude.astype(np.int32)
    # One row per literal: a sign column, ``width`` digit columns right-aligned, a separator column;
    # the columns a literal does not use are dropped at the end, in one pass.
    table = np.empty((flat.size, width + 2), dtype=np.uint8)
    table[:, 0] = ord("-")
    digits = np.ones(flat.size, dtype=np.int8)
    rest = magnitude
    for place in range(width):
        rest, table[:, width - place] = np.divmod(rest, 10)
        digits += rest > 0
    table[:, 1 : width + 1] += ord("0")
    table[:, width + 1] = np.where(flat == 0, ord("\n"), ord(" "))
    keep = np.arange(width + 2, dtype=np.int8) >= (width + 1 - digits)[:, None]
    keep[:, 0] = flat < 0
    return table[keep].tobytes()


def _check_range(flat: np.ndarray, n_vars: int) -> None:
    """Raise DimacsError when a literal's variable exceeds ``n_vars``."""
    if flat.size:
        magnitude = np.abs(flat)
        worst = int(magnitude.max())
        if worst > n_vars:
            bad = int(flat[magnitude == worst][0])
            raise DimacsError(f"clause literal {bad} is out of range for n_vars={n_vars}")


def _block_flat(block: np.ndarray) -> np.ndarray:
    """Flat literals with clause-ending zeros for a 2-D block of zero-padded clauses."""
    rows, width = block.shape
    padded = np.zeros((rows, width + 1), dtype=np.int64)
    padded[:, :width] = block
    if width and bool(padded[:, :width].all()):
        return padded.ravel()  # no padding: every row is a full clause
    keep = padded != 0
    keep[:, width] = True
    return padded[keep]


def _integer_array(array: np.ndarray) -> None:
    """Raise DimacsError for an array that does not hold integers."""
    if not np.issubdtype(array.dtype, np.integer):
        raise DimacsError(f"clause array has non-integer dtype {array.dtype}")


def _flat_chunks(clauses: Any, n_vars: int) -> Iterator[tuple[np.ndarray, int]]:
    """(flat literals with clause-ending zeros, clause count) pieces, checked, for any clause input."""
    if isinstance(clauses, np.ndarray):
        if clauses.ndim != 2:
            raise DimacsError(f"a clause array must be 2-D (one clause per row), got {clauses.ndim}-D")
        clauses = [clauses]
    pending: list[int] = []
    pending_clauses = 0

    def flush() -> tuple[np.ndarray, int]:
        nonlocal pending, pending_clauses
        flat = np.array(pending)
        if flat.dtype.kind not in "iu":
            raise DimacsError(f"clause literals must be integers (got values of type {flat.dtype})")
        if int(np.count_nonzero(flat == 0)) != pending_clauses:
            raise DimacsError("literal 0 inside a clause")
        _check_range(flat, n_vars)
        piece = (flat, pending_clauses)
        pending, pending_clauses = [], 0
        return piece

    for clause in clauses:
        if isinstance(clause, np.ndarray):
            _integer_array(clause)
            if clause.ndim == 2:
                if pending_clauses:
                    yield flush()
                step = max(1, _CHUNK_LITERALS // max(1, clause.shape[1]))
                for start in range(0, clause.shape[0], step):
                    part = clause[start : start + step]
                    flat = _block_flat(part)
                    _check_range(flat, n_vars)
                    yield flat, part.shape[0]
                continue
            if clause.ndim != 1:
                raise DimacsError(f"clause array must be 1-D or 2-D, got {clause.ndim}-D")
            pending.extend(clause[clause != 0].tolist())  # zeros in a 1-D clause are padding
        else:
            pending.extend(clause)
        pending.append(0)
        pending_clauses += 1
        if len(pending) >= _CHUNK_LITERALS:
            yield flush()
    if pending_clauses:
        yield flush()


def _count_clauses(clauses: Iterable[Any]) -> int:
    """Clauses in a list of clause sequences, 1-D arrays and 2-D blocks."""
    return sum(item.shape[0] if isinstance(item, np.ndarray) and item.ndim == 2 else 1 for item in clauses)


def _comment_lines(comments: Iterable[str]) -> str:
    """'c' lines: one per line of each comment, trailing blanks dropped ('c' alone for an empty one)."""
    lines = []
    for comment in comments:
        for line in str(comment).splitlines() or [""]:
            lines.append(f"c {line}".rstrip() + "\n")
    return "".join(lines)


def write_dimacs(
    target: str | os.PathLike[str] | IO[str] | IO[bytes],
    clauses: ClauseInput,
    n_vars: int,
    comments: Iterable[str] = (),
    *,
    n_clauses: int | None = None,
) -> int:
    """Write a CNF in DIMACS to a path or a text or binary stream; returns the number of clauses.

    ``clauses`` is any iterable of integer sequences, a 2-D integer array of zero-padded clauses (one
    per row; an all-zero row is the empty clause), or an iterable mixing 1-D arrays (one clause,
    zeros dropped) and 2-D arrays (blocks of clauses).  A one-shot iterator is listed first to count
    its clauses for the header, unless ``n_clauses`` gives the count.  Each comment line becomes a
    ``c`` line.  Raises DimacsError for a literal beyond ``n_vars``, a 0 inside a sequence clause, a
    non-integer, or clauses that do not match ``n_clauses``; a file being written is then removed.
    """
    if n_vars < 0:
        raise DimacsError(f"n_vars must be >= 0, got {n_vars}")
    if n_clauses is None:
        if isinstance(clauses, np.ndarray):
            n_clauses = clauses.shape[0] if clauses.ndim == 2 else 0
        else:
            if not isinstance(clauses, Sequence):
                clauses = list(clauses)
            n_clauses = _count_clauses(clauses)
    head = _comment_lines(comments) + f"p cnf {n_vars} {n_clauses}\n"
    if isinstance(target, (str, os.PathLike)):
        try:
            with naming_file(target), open(target, "wb") as out:
                return _write_all(out, True, head, clauses, n_vars, n_clauses)
        except DimacsError:
            os.remove(target)
            raise
    stream: IO[Any] = target
    binary = isinstance(stream, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(stream, "mode", "")
    return _write_all(stream, binary, head, clauses, n_vars, n_clauses)


def _write_all(
    out: IO[Any], binary: bool, head: str, clauses: ClauseInput, n_vars: int, n_clauses: int
) -> int:
    """Write the head and every clause chunk; check the clause count against the header's."""
    out.write(head.encode("utf-8") if binary else head)
    written = 0
    for flat, count in _flat_chunks(clauses, n_vars):
        text = _literal_bytes(flat)
        out.write(text if binary else text.decode("ascii"))
        written += count
    if written != n_clauses:
        raise DimacsError(f"the header says {n_clauses} clauses but {written} were written")
    return written


def dimacs_text(clauses: ClauseInput, n_vars: int, comments: Iterable[str] = ()) -> str:
    """The DIMACS text of a CNF as one string (for small models; ``write_dimacs`` streams)."""
    out = io.StringIO()
    write_dimacs(out, clauses, n_vars, comments)
    return out.getvalue()


def write_flat_dimacs(
    target: str | os.PathLike[str] | IO[str] | IO[bytes],
    flat: np.ndarray | Iterable[np.ndarray],
    n_vars: int,
    comments: Iterable[str] = (),
    *,
    n_clauses: int | None = None,
) -> int:
    """Write flat literals (each 0 ends a clause) as DIMACS to a path or stream, a chunk of literals at
    a time; returns the number of clauses.  ``flat`` is one array, or an iterable of arrays that
    together form one (each chunk made when needed: then ``n_clauses`` gives the header's count,
    checked at the end).  The bytes equal ``write_dimacs``'s for the same clauses and comments."""
    if isinstance(flat, np.ndarray):
        _integer_array(flat)
        if flat.size and flat[-1] != 0:
            raise DimacsError("the last clause of a flat literal array is not ended by 0")
        n_clauses = int(np.count_nonzero(flat == 0))
        pieces: Iterable[np.ndarray] = [flat]
    elif n_clauses is None:
        raise DimacsError("chunks of flat literals need n_clauses for the header")
    else:
        pieces = flat
    head = _comment_lines(comments) + f"p cnf {n_vars} {n_clauses}\n"
    if isinstance(target, (str, os.PathLike)):
        try:
            with naming_file(target), open(target, "wb") as out:
                _write_flat(out, True, head, pieces, n_vars, n_clauses)
        except DimacsError:
            os.remove(target)
            raise
        return n_clauses
    stream: IO[Any] = target
    binary = isinstance(stream, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(stream, "mode", "")
    _write_flat(stream, binary, head, pieces, n_vars, n_clauses)
    return n_clauses


def _write_flat(
    out: IO[Any], binary: bool, head: str, pieces: Iterable[np.ndarray], n_vars: int, n_clauses: int
) -> None:
    out.write(head.encode("utf-8") if binary else head)
    written = 0
    last = 0
    for piece in pieces:
        _integer_array(piece)
        _check_range(piece, n_vars)
        written += int(np.count_nonzero(piece == 0))
        for start in range(0, piece.size, _CHUNK_LITERALS):
            text = _literal_bytes(piece[start : start + _CHUNK_LITERALS])
            out.write(text if binary else text.decode("ascii"))
        if piece.size:
            last = int(piece[-1])
    if last != 0:
        raise DimacsError("the last clause of the flat literals is not ended by 0")
    if written != n_clauses:
        raise DimacsError(f"the header says {n_clauses} clauses but {written} were written")


def flat_dimacs_bytes(flat: np.ndarray, n_vars: int) -> bytes:
    """The DIMACS bytes of a flat literal array in which each 0 ends a clause: header, then one
    clause per line, no comments (the canonical text certificates hash)."""
    flat = np.asarray(flat)
    _integer_array(flat)
    _check_range(flat, n_vars)
    n_clauses = int(np.count_nonzero(flat == 0))
    if flat.size and flat[-1] != 0:
        raise DimacsError("the last clause of a flat literal array is not ended by 0")
    head = f"p cnf {n_vars} {n_clauses}\n".encode("ascii")
    pieces = [head]
    for start in range(0, flat.size, _CHUNK_LITERALS):
        pieces.append(_literal_bytes(flat[start : start + _CHUNK_LITERALS]))
    return b"".join(pieces)


# ------------------------------------------------------------------------------------- reading CNF


@dataclass(frozen=True, slots=True)
class DimacsCnf:
    """A CNF read from DIMACS: the header's variable count and the clauses kept (normalized)."""

    n_vars: int
    clauses: tuple[tuple[int, ...], ...]


def normalize_clause(literals: Iterable[int]) -> tuple[int, ...] | None:
    """Literals in first-seen order without repeats, or None for a tautology (v and -v both present)."""
    seen: dict[int, None] = {}
    for lit in literals:
        if -lit in seen:
            return None
        seen[lit] = None
    return tuple(seen)


def _header(fields: list[re.Match[str]], line_number: int, max_vars: int, room: int) -> tuple[int, int]:
    """Variable and clause counts of a 'p cnf V C' line; ParseError naming the bad field.

    At most ``max_vars`` variables, and at most ``room`` clauses (what the rest of the text can hold).
    """
    texts = [field.group() for field in fields]
    if len(texts) < 2 or texts[1] != "cnf":
        column = fields[1].start() + 1 if len(fields) > 1 else fields[0].end() + 1
        raise ParseError("header must read 'p cnf <variables> <clauses>'", line_number, column)
    if len(texts) != 4:
        column = fields[4].start() + 1 if len(fields) > 4 else fields[-1].end() + 1
        raise ParseError(
            f"header must have 4 fields 'p cnf <variables> <clauses>', found {len(texts)}",
            line_number,
            column,
        )
    counts = []
    for field, what, most in zip(fields[2:], ("variables", "clauses"), (max_vars, room), strict=True):
        if not _COUNT.fullmatch(field.group()):
            raise ParseError(
                f"header: number of {what} must be a nonnegative integer, not {excerpt(field.group())}",
                line_number,
                field.start() + 1,
            )
        digits = field.group().lstrip("0")
        if len(digits) > len(str(most)) or int(digits or "0") > most:
            why = "the cap" if what == "variables" else "what the rest of the text can hold"
            raise ParseError(
                f"header: {excerpt(field.group(), quote=False)} {what} is more than {most} ({why})",
                line_number,
                field.start() + 1,
            )
        counts.append(int(field.group()))
    return counts[0], counts[1]


def read_dimacs(
    text: str,
    *,
    max_vars: int = MAX_VARIABLES,
    notes: list[tuple[str, int, int]] | None = None,
    on_header: Callable[[int, int, int], None] | None = None,
) -> DimacsCnf:
    """Read DIMACS CNF text (see the module docstring for every case); ParseError with line and column.

    A header declaring more than ``max_vars`` variables is refused before any clause is read, and
    ``on_header(variables, clauses, line)`` is called there (to refuse a formula before reading it).
    ``notes`` collects ``(kind, clause, line)`` for each clause the reader changed: kind 'repeat'
    (a literal repeated, kept once), 'tautology' (dropped) or 'empty' (kept); clause 1-based in
    file order, line where the clause starts.
    """
    text = strip_bom(text)
    header: tuple[int, int] | None = None
    header_line = 0
    clauses: list[tuple[int, ...]] = []
    read = 0  # clauses read, tautologies included
    current: list[int] = []
    current_line = 0
    offset = 0  # characters before the current line
    for line_number, line in enumerate(text.splitlines(keepends=True), start=1):
        offset += len(line)
        fields = list(_TOKEN.finditer(line))
        if not fields:
            continue
        first = fields[0].group()
        if first.startswith("c"):
            continue
        if first.startswith("%"):
            break
        if first == "p":
            if header is not None:
                raise ParseError(
                    f"second header (the first is on line {header_line})", line_number, fields[0].start() + 1
                )
            room = (len(text) - offset + 1) // 2  # each clause: a '0' and a separator (not the last)
            header, header_line = _header(fields, line_number, max_vars, room), line_number
            if on_header is not None:
                on_header(header[0], header[1], line_number)
            continue
        if header is None:
            raise ParseError("clause before the 'p cnf' header", line_number, fields[0].start() + 1)
        n_vars = header[0]
        for field in fields:
            token = field.group()
            if not _INTEGER.fullmatch(token):
                raise ParseError(
                    f"literal must be an integer, not {excerpt(token)}", line_number, field.start() + 1
                )
            # int() of thousands of digits raises; a literal that long is out of range anyway
            lit = int(token) if len(token) <= _MAX_TOKEN else n_vars + 1
            if lit == 0:
                read += 1
                clause = normalize_clause(current)
                if clause is not None:
                    clauses.append(clause)
                if notes is not None:
                    kind = "tautology" if clause is None else "empty" if not current else "repeat"
                    if kind != "repeat" or len(clause or ()) < len(current):
                        notes.append((kind, read, current_line if current else line_number))
                current = []
                continue
            if abs(lit) > n_vars:
                raise ParseError(
                    f"literal {excerpt(token, quote=False)} is beyond the {n_vars} variables of the header",
                    line_number,
                    field.start() + 1,
                )
            if not current:
                current_line = line_number
            current.append(lit)
    if header is None:
        raise ParseError("no 'p cnf <variables> <clauses>' header", 1)
    if current:
        raise ParseError("last clause has no terminating 0 (truncated file?)", current_line)
    if read != header[1]:
        raise ParseError(f"header declares {header[1]} clauses but {read} were read", header_line)
    return DimacsCnf(header[0], tuple(clauses))


# ---------------------------------------------------------------------------- reading solver answers


@dataclass(frozen=True, slots=True)
class SolverAnswer:
    """What a solver answered: satisfiable (None: unknown), the model's literals when SAT, and the form."""

    satisfiable: bool | None
    literals: np.ndarray | None
    form: AnswerForm


def _read_model(lines: list[tuple[int, str]], where: str, n_vars: int | None) -> np.ndarray:
    """The model literals from (line number, literal text) pairs; checks format and range."""
    literals: list[int] = []
    line_of: list[int] = []
    ended_at: int | None = None
    for number, text in lines:
        for token in text.split():
            if not _INTEGER.fullmatch(token):
                raise SolverProgramError(
                    f"malformed model: non-integer token {excerpt(token)} ({where} line {number})", number
                )
            if ended_at is not None:
                shown = excerpt(token, quote=False)
                raise SolverProgramError(
                    f"malformed model: literal {shown} after the terminating 0 ({where} line {number})",
                    number,
                )
            value = int(token) if len(token) <= _MAX_TOKEN else _MAX_MODEL_LITERAL + 1
            if value == 0:
                ended_at = number
                continue
            if abs(value) > _MAX_MODEL_LITERAL or (n_vars is not None and abs(value) > n_vars):
                shown = excerpt(token, quote=False)
                what = (
                    "too large for a 32-bit literal"
                    if abs(value) > _MAX_MODEL_LITERAL
                    else f"out of range for {n_vars} variables"
                )
                raise SolverProgramError(f"model literal {shown} is {what} ({where} line {number})", number)
            literals.append(value)
            line_of.append(number)
    if ended_at is None:
        last = lines[-1][0] if lines else 0
        raise SolverProgramError(f"malformed model: no terminating 0 ({where} line {last})", last or None)
    model = np.array(literals, dtype=np.int64)  # every literal within +-_MAX_MODEL_LITERAL
    positive = np.unique(model[model > 0])
    negative = np.unique(-model[model < 0])
    both = np.intersect1d(positive, negative)
    if both.size:
        variable = int(both[0])
        index = int(np.flatnonzero(np.abs(model) == variable)[1])
        raise SolverProgramError(
            f"model assigns variable {variable} both true and false ({where} line {line_of[index]})",
            line_of[index],
        )
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
                raise SolverProgramError(
                    f"unrecognized status line {excerpt(line)} (solver output line {number})", number
                )
            if status_line is not None and status_line[1] != word:
                raise SolverProgramError(
                    f"conflicting status lines {status_line[1]} (solver output line {status_line[0]}) "
                    f"and {word} (line {number})",
                    number,
                )
            status_line = (number, word)
            status = _STATUS_WORDS[word]
        elif head == "v":
            value_lines.append((number, rest))
    if status_line is None:
        if value_lines:
            first = value_lines[0][0]
            raise SolverProgramError(
                f"solver output has 'v' lines but no 's' line (solver output line {first})", first
            )
        return False, None, None
    if status is True:
        if not value_lines:
            raise SolverProgramError(
                f"solver said SATISFIABLE but printed no 'v' lines (solver output line {status_line[0]})",
                status_line[0],
            )
        return True, True, _read_model(value_lines, "solver output", n_vars)
    if value_lines:
        first = value_lines[0][0]
        raise SolverProgramError(
            f"solver said {status_line[1]} but printed 'v' lines (solver output line {first})", first
        )
    return True, status, None


def _parse_result_file(text: str, n_vars: int | None) -> tuple[bool | None, np.ndarray | None]:
    """(status, model) from a minisat-style result file (text with at least one non-blank line)."""
    numbered = [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1)]
    numbered = [(number, line) for number, line in numbered if line]
    first_number, first = numbered[0]
    word = first.upper()
    if word not in _RESULT_WORDS:
        raise SolverProgramError(
            f"unrecognized result file status {excerpt(first)} (result file line {first_number})",
            first_number,
        )
    status = _RESULT_WORDS[word]
    rest = numbered[1:]
    if status is True:
        if not rest:
            raise SolverProgramError(
                f"result file says SAT but has no model (result file line {first_number})", first_number
            )
        return True, _read_model(rest, "result file", n_vars)
    if rest:
        raise SolverProgramError(
            f"result file says {first} but has more lines (result file line {rest[0][0]})", rest[0][0]
        )
    return status, None


def _describe(status: bool | None) -> str:
    """SAT / UNSAT / UNKNOWN."""
    return {True: "SAT", False: "UNSAT", None: "UNKNOWN"}[status]


def parse_solver_output(
    text: str, result_file_text: str | None = None, *, n_vars: int | None = None
) -> tuple[bool | None, np.ndarray | None]:
    """(satisfiable, model) from a solver program's stdout and optional minisat-style result file.

    ``satisfiable`` is None for UNKNOWN / INDETERMINATE / INDET.  The model is an int32 array of the
    signed literals printed, without the final 0.  With ``n_vars`` every literal's variable must be at
    most ``n_vars``.  Raises SolverProgramError (naming the line) for unreadable or contradictory
    output, or when there is neither an 's' line nor a result file.
    """
    has_status, status, model = _parse_competition(strip_bom(text), n_vars)
    result_file_text = None if result_file_text is None else strip_bom(result_file_text)
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


def _content_lines(text: str) -> list[tuple[int, str]]:
    """(line number, stripped line) of the lines that are neither blank nor 'c' comments."""
    numbered = ((number, raw.strip()) for number, raw in enumerate(text.splitlines(), start=1))
    return [(number, line) for number, line in numbered if line and line.split()[0] != "c"]


def solver_answer_form(text: str, *, literals: bool = True) -> AnswerForm | None:
    """Which form of solver answer a text is in, or None when it is none of them.

    A result file starts (after any 'c' lines) with its status word; competition output has an 's'
    or 'v' line; with ``literals`` a text whose first line starts with an integer is a literal
    list.  Without ``literals`` such a text is not taken for an answer (a caller that also reads
    other files of numbers, such as placements, asks so).
    """
    content = _content_lines(strip_bom(text))
    if not content:
        return None
    first = content[0][1].split()[0]
    if first.upper() in _RESULT_WORDS:
        return "result"
    if any(line.split()[0] in ("s", "v") for _, line in content):
        return "competition"
    if literals and _INTEGER.fullmatch(first):
        return "literals"
    return None


def read_solver_answer(text: str, n_vars: int | None = None, *, literals: bool = True) -> SolverAnswer:
    """Read a solver's answer in any of the three forms (see the module docstring).

    With ``n_vars`` every model literal's variable must be at most ``n_vars``.  ``literals=False``
    refuses bare literal lists.  Raises SolverProgramError naming the line (and holding it in
    ``line``) for empty, unrecognized, unreadable or contradictory text.
    """
    text = strip_bom(text)
    content = _content_lines(text)
    if not content:
        raise SolverProgramError("empty solver output: no 's' line, result or literals")
    form = solver_answer_form(text, literals=literals)
    if form == "competition":
        satisfiable, model = parse_solver_output(text, n_vars=n_vars)
    elif form == "result":
        # 'c' lines before the status word are skipped; blanked, they keep the line numbers.
        kept = "\n".join(line if line.split()[:1] != ["c"] else "" for line in text.splitlines())
        satisfiable, model = parse_solver_output("", kept, n_vars=n_vars)
    elif form == "literals":
        # A model without a status: its final 0 may be missing.
        last_number, last = content[-1]
        ends = last.split()[-1] == "0"
        satisfiable = True
        model = _read_model(content if ends else [*content, (last_number, "0")], "solver output", n_vars)
    else:
        number, line = content[0]
        expected = "SAT competition 's'/'v' lines, a minisat result file (SAT, then literals ending in 0)"
        expected += " or a list of literals" if literals else ""
        raise SolverProgramError(
            f"line {number}: unrecognized solver output {excerpt(line)}: expected {expected}", number
        )
    return SolverAnswer(satisfiable, model, form)


def value_lines(assignment: Sequence[bool], width: int = 78) -> str:
    """An assignment as SAT competition 'v' lines: x1 first, ending in 0, no line over ``width``."""
    literals = [str(v if value else -v) for v, value in enumerate(assignment, start=1)] + ["0"]
    lines, line = [], "v"
    for literal in literals:
        if len(line) + len(literal) + 1 > width:
            lines.append(line)
            line = "v"
        line += " " + literal
    return "\n".join([*lines, line])
