"""``-o FILE`` and ``--resume``: a batch's JSON Lines written to a file that an interrupted run continues.

Each result is one line, written whole and flushed, so a run stopped at any moment (Ctrl-C, a
killed process, a lost machine) leaves complete lines, at most one cut line at the end.  A run
with ``--resume`` reads the file back: the indices already answered are skipped, a cut last line
and an old summary are dropped, and the new results are appended; the summary at the end counts
the whole file.  The results are in input order, so the file of a resumed run equals the file
of an uninterrupted one (timings aside).

A JSON Lines results file starts with a header line naming what its results belong to:
``{"sudoku_cp_results": 1, "command": ..., "input": SHA-256, "options": {...}}``, the input's
digest (its puzzles, lines and unreadable lines, or its formulas) and every option that can change
a result (not ``--jobs``, ``--cluster``, ``-o`` or the progress bar).  ``--resume`` refuses a file
whose header names another command, input or options, and a file of results without a header (one
an older sudoku-cp wrote, or an edited one), in one line and before anything is written: resuming
would mix results of two runs under one summary.  Readers skip the header (it has no "index").
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TextIO

import numpy as np

from ..errors import SudokuCpError, excerpt, naming_file
from ..formats import PuzzleItem, grid_rows, json_dumps

__all__ = [
    "HEADER_KEY",
    "BatchOutput",
    "ResultsFile",
    "add_results_file_options",
    "digest_items",
    "digest_texts",
    "open_results_file",
    "run_identity",
]

#: The key of a results file's header line; its value is the header's version.
HEADER_KEY = "sudoku_cp_results"
_VERSION = 1
#: Options that change where or how visibly the work runs, never a result: left out of the identity.
_NOT_RESULTS = frozenset(
    {
        "command",
        "run",
        "started",
        "output_file",
        "resume",
        "jobs",
        "cluster",
        "no_progress",
        "budget",
        "cases",
    }
)


class ResultsFileError(SudokuCpError):
    """An output file that cannot be written or resumed."""


def add_results_file_options(parser: argparse.ArgumentParser, *, short: bool = True) -> None:
    """``-o/--output-file FILE`` and ``--resume`` for a batch command with ``--json`` (without
    ``-o`` when ``short`` is False: a command whose -o names another file)."""
    parser.add_argument(
        *(["-o"] if short else []),
        "--output-file",
        metavar="FILE",
        help="write the JSON Lines to FILE (flushed line by line) instead of standard output",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help=f"with {'-o' if short else '--output-file'}: skip the inputs FILE already answers and "
        "append the rest (an interrupted run goes on where it stopped)",
    )


def _plain(value: object) -> object:
    """An option's value as JSON holds it (enums by value, tuples as lists, other objects as text)."""
    if isinstance(value, Enum):
        return _plain(value.value)
    if isinstance(value, (list, tuple)):
        return [_plain(one) for one in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def digest_items(items: Sequence[PuzzleItem]) -> str:
    """SHA-256 of a batch's puzzles as read: each grid, its line and every unreadable line's error
    (so a comment added elsewhere keeps it, a changed given or a moved puzzle does not)."""
    digest = hashlib.sha256(f"{len(items)} puzzles\n".encode())
    digest.update(np.asarray([item.line for item in items], dtype=np.int64).tobytes())
    for geometry, positions, values in grid_rows(items):
        digest.update(f"{geometry.p}x{geometry.q}\n".encode())
        digest.update(np.ascontiguousarray(positions, dtype=np.int64).tobytes())
        digest.update(np.ascontiguousarray(values, dtype=np.int16).tobytes())
    for item in items:
        if item.error is not None:
            digest.update(f"{item.index}:{item.error}\n".encode())
    return digest.hexdigest()


def digest_texts(texts: Iterable[str]) -> str:
    """SHA-256 of some texts, each one's length first (so no two lists of texts run together)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", errors="surrogatepass")
        digest.update(f"{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def run_identity(
    args: argparse.Namespace,
    input_digest: str,
    *,
    leave_out: Iterable[str] = (),
    contents: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """What a results file's header records: the command, the input's digest, and every option
    that can change a result (``leave_out``: more arguments that cannot, e.g. the input's path,
    whose contents the digest holds).  ``contents`` names options that are files, with the text
    read from each: they are recorded by those texts' digests, not by their paths."""
    skip = _NOT_RESULTS | set(leave_out)
    options = {key: _plain(value) for key, value in sorted(vars(args).items()) if key not in skip}
    for key, texts in (contents or {}).items():
        # a path says nothing of what the file held then: an edited file at the same path differs
        options[key] = [f"sha256:{digest_texts([text])}" for text in texts]
    return {HEADER_KEY: _VERSION, "command": args.command, "input": input_digest, "options": options}


def _shown(value: object) -> str:
    """An option's recorded value in a message: as JSON, cut; 'unset' for None (its default)."""
    return "unset" if value is None else excerpt(json_dumps(value), 30, quote=False)


def _mismatch(path: str, header: Mapping[str, Any], identity: Mapping[str, Any]) -> str | None:
    """Why a results file's header does not belong to this run, or None when it does."""
    if header.get(HEADER_KEY) != _VERSION:
        return f"{path}: a results header of version {excerpt(header.get(HEADER_KEY))}, not {_VERSION}"
    if header.get("command") != identity["command"]:
        command = excerpt(header.get("command"), quote=False)
        return f"{path}: holds results of '{command}', not of '{identity['command']}'"
    if header.get("input") != identity["input"]:
        return f"{path}: holds results of another input (its puzzles or lines differ from this one's)"
    recorded = header.get("options")
    now = json.loads(json_dumps(identity["options"]))
    if recorded != now:
        then: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
        differ = sorted(key for key in set(then) | set(now) if then.get(key) != now.get(key))
        shown = ", ".join(
            f"--{key.replace('_', '-')} {_shown(then.get(key))} then, {_shown(now.get(key))} now"
            for key in differ[:3]
        )
        return f"{path}: made with other options ({shown})"
    return None


@dataclass
class ResultsFile:
    """An open results file: ``done`` holds the input indices it already answers (0-based) and
    ``statuses`` their statuses, for the summary."""

    stream: TextIO
    done: set[int] = field(default_factory=set)
    statuses: Counter[str] = field(default_factory=Counter)
    path: str = "<results>"

    def write(self, line: str) -> None:
        """One whole line, flushed at once (an error names the file: a full disk names none)."""
        with naming_file(self.path):
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        """Flush and close the file."""
        with naming_file(self.path):
            self.stream.close()


def open_results_file(path: str, resume: bool, identity: Mapping[str, Any] | None = None) -> ResultsFile:
    """Open ``path`` for a batch's results: fresh (truncated), or continued with ``resume``.

    With ``identity`` (``run_identity``), a fresh file starts with it as its header line, and a
    resumed one must start with the same header: ResultsFileError otherwise, the file untouched.
    """
    done: set[int] = set()
    statuses: Counter[str] = Counter()
    keep = 0  # bytes of whole result lines: a cut last line and an old summary go
    header = False  # the resumed file has its header line
    if resume:
        try:
            with open(path, "rb") as old:
                summary = False
                for number, line in enumerate(old, start=1):
                    if not line.endswith(b"\n"):
                        break  # cut by the interruption
                    result = _read_line(path, number, line)
                    if isinstance(result, dict):
                        problem = _mismatch(path, result, identity) if identity is not None else None
                        if number != 1 or problem is not None:
                            raise ResultsFileError(
                                f"{problem or f'{path}:{number}: a second results header'}; "
                                "cannot resume from it (use another -o FILE)"
                            )
                        header = True
                        keep = old.tell()
                        continue
                    if identity is not None and not header:
                        raise ResultsFileError(
                            f"{path}: results without a {HEADER_KEY!r} header line (an older sudoku-cp's "
                            "file, or not one of this run): cannot tell they belong to this input and "
                            "these options; cannot resume from it (use another -o FILE)"
                        )
                    if result is None:
                        summary = True
                        continue
                    if summary:
                        raise ResultsFileError(f"{path}:{number}: results after a summary; cannot resume")
                    done.add(result[0])
                    statuses[result[1]] += 1
                    keep = old.tell()
        except FileNotFoundError:
            pass  # nothing to resume: a fresh file
        except OSError as problem:
            raise ResultsFileError(f"cannot read {path} to resume: {problem.strerror or problem}") from None
    try:
        if resume and os.path.exists(path):
            os.truncate(path, keep)
        stream = open(path, "a" if resume else "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
    except OSError as problem:
        raise ResultsFileError(f"cannot write {path}: {problem.strerror or problem}") from None
    results = ResultsFile(stream, done, statuses, path)
    if identity is not None and not header:
        results.write(json_dumps(dict(identity)))
    return results


def _read_line(path: str, number: int, line: bytes) -> tuple[int, str] | dict[str, Any] | None:
    """The 0-based input index and status of a result line; None for a summary line, the object
    for a header line."""
    try:
        obj = json.loads(line)
    except ValueError:
        raise ResultsFileError(f"{path}:{number}: not a JSON line; cannot resume from it") from None
    if isinstance(obj, dict) and HEADER_KEY in obj:
        return obj
    if isinstance(obj, dict) and "summary" in obj:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("index"), int):
        raise ResultsFileError(f"{path}:{number}: a line without an index; cannot resume from it")
    return int(obj["index"]), str(obj.get("status"))


class BatchOutput:
    """Where a batch command writes its lines: the results file of ``-o`` (each line flushed),
    else standard output around the progress bar.

    Made before the work starts: with ``resume`` it reads the file back (``done``, ``answered``);
    a fresh file is opened, and so emptied, only by ``writing``, once the work could start, so an
    error before (an unreachable cluster, say) leaves an old file as it was.  ``--resume`` needs
    ``-o FILE`` and JSON Lines (a text report has no indices to resume from).
    """

    def __init__(
        self, path: str | None, resume: bool, json_lines: bool, identity: Mapping[str, Any] | None = None
    ) -> None:
        self.check(path, resume, json_lines)
        if resume and identity is None:
            raise ResultsFileError("--resume: this command cannot tell its results files apart")
        self.path = path
        self.identity = identity if json_lines else None  # a text report has no header line
        self.file = open_results_file(path, True, self.identity) if resume and path is not None else None
        self.done: set[int] = self.file.done if self.file is not None else set()

    @staticmethod
    def check(path: str | None, resume: bool, json_lines: bool) -> None:
        """Refuse ``--resume`` without ``-o FILE`` or without ``--json`` (before any input is read)."""
        if resume and path is None:
            raise ResultsFileError("--resume needs -o FILE: the results file to continue")
        if resume and not json_lines:
            raise ResultsFileError("--resume needs --json: only JSON Lines results can be resumed")

    def statuses(self) -> Counter[str]:
        """How many results of each status a resumed file holds (empty for a fresh one)."""
        return Counter(self.file.statuses) if self.file is not None else Counter()

    def answered(self) -> Iterator[dict[str, Any]]:
        """The result objects a resumed file holds, in order: what the summary counts too."""
        if self.file is None or self.path is None:
            return
        with open(self.path, encoding="utf-8") as old:
            for line in old:
                obj = json.loads(line)
                if not (isinstance(obj, dict) and HEADER_KEY in obj):
                    yield obj

    @contextlib.contextmanager
    def writing(
        self, results: Any, total: int, label: str, *, enabled: bool | None = None
    ) -> Iterator[tuple[Callable[[str], None], Any]]:
        """(write, bar): a function that writes one line, and the progress bar of ``total`` items
        (None when none is drawn); ``results``, a generator of the work, is closed at the end."""
        from . import common

        try:
            if self.file is None and self.path is not None:
                self.file = open_results_file(self.path, False, self.identity)
            with contextlib.closing(results), common.progress(total, label, enabled=enabled) as bar:
                out = self.file
                yield (out.write if out is not None else functools.partial(common.print_line, bar)), bar
        finally:
            if self.file is not None:
                self.file.close()
