"""``-o FILE`` and ``--resume``: a batch's JSON Lines written to a file that an interrupted run continues.

Each result is one line, written whole and flushed, so a run stopped at any moment (Ctrl-C, a
killed process, a lost machine) leaves complete lines, at most one cut line at the end.  A run
with ``--resume`` reads the file back: the indices already answered are skipped, a cut last line
and an old summary are dropped, and the new results are appended; the summary at the end counts
the whole file.  The results are in input order, so the file of a resumed run equals the file
of an uninterrupted one (timings aside).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..errors import SudokuCpError

__all__ = ["BatchOutput", "ResultsFile", "add_results_file_options", "open_results_file"]


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


@dataclass
class ResultsFile:
    """An open results file: ``done`` holds the input indices it already answers (0-based) and
    ``statuses`` their statuses, for the summary."""

    stream: TextIO
    done: set[int] = field(default_factory=set)
    statuses: Counter[str] = field(default_factory=Counter)

    def write(self, line: str) -> None:
        """One whole line, flushed at once."""
        self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Flush and close the file."""
        self.stream.close()


def open_results_file(path: str, resume: bool) -> ResultsFile:
    """Open ``path`` for a batch's results: fresh (truncated), or continued with ``resume``."""
    done: set[int] = set()
    statuses: Counter[str] = Counter()
    keep = 0  # bytes of whole result lines: a cut last line and an old summary go
    if resume:
        try:
            with open(path, "rb") as old:
                summary = False
                for number, line in enumerate(old, start=1):
                    if not line.endswith(b"\n"):
                        break  # cut by the interruption
                    result = _read_line(path, number, line)
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
    return ResultsFile(stream, done, statuses)


def _read_line(path: str, number: int, line: bytes) -> tuple[int, str] | None:
    """The 0-based input index and status of a result line; None for a summary line."""
    try:
        obj = json.loads(line)
    except ValueError:
        raise ResultsFileError(f"{path}:{number}: not a JSON line; cannot resume from it") from None
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

    def __init__(self, path: str | None, resume: bool, json_lines: bool) -> None:
        if resume and path is None:
            raise ResultsFileError("--resume needs -o FILE: the results file to continue")
        if resume and not json_lines:
            raise ResultsFileError("--resume needs --json: only JSON Lines results can be resumed")
        self.path = path
        self.file = open_results_file(path, resume=True) if resume and path is not None else None
        self.done: set[int] = self.file.done if self.file is not None else set()

    def statuses(self) -> Counter[str]:
        """How many results of each status a resumed file holds (empty for a fresh one)."""
        return Counter(self.file.statuses) if self.file is not None else Counter()

    def answered(self) -> Iterator[dict[str, Any]]:
        """The result objects a resumed file holds, in order: what the summary counts too."""
        if self.file is None or self.path is None:
            return
        with open(self.path, encoding="utf-8") as old:
            for line in old:
                yield json.loads(line)

    @contextlib.contextmanager
    def writing(
        self, results: Any, total: int, label: str, *, enabled: bool | None = None
    ) -> Iterator[tuple[Callable[[str], None], Any]]:
        """(write, bar): a function that writes one line, and the progress bar of ``total`` items
        (None when none is drawn); ``results``, a generator of the work, is closed at the end."""
        from . import common

        try:
            if self.file is None and self.path is not None:
                self.file = open_results_file(self.path, resume=False)
            with contextlib.closing(results), common.progress(total, label, enabled=enabled) as bar:
                out = self.file
                yield (out.write if out is not None else functools.partial(common.print_line, bar)), bar
        finally:
            if self.file is not None:
                self.file.close()
