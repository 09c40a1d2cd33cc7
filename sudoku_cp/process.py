"""Running an external program: never through a shell, in its own process group, with bounded output.

``run_program(argv, stdin, timeout)`` is the one way sudoku_cp runs another program (a SAT solver
program, an audited Sudoku solver).  The program starts in a new session, so it leads a process
group holding everything it starts; that whole group is killed at the time limit, on Ctrl-C
(``KeyboardInterrupt``, which is then raised again), when the output grows past its cap, and at
the end of every run, so nothing the program left behind outlives it.  A descendant that left the
group and the session (``setsid``) is caught too where Linux allows: while a program runs, this
process is a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so such orphans become its
children, and they are killed and reaped when the program ends.

Output is read in pieces as it comes: standard output is kept up to ``max_output`` bytes (64 MiB
by default; past it the program is killed and the run says ``output_too_large``), standard error
only its last 64 KiB.  Memory stays bounded whatever the program writes.  Once the program itself
ends, what it left behind is killed and the rest of its output read; where an escaped process
cannot be found (no subreaper), its output is awaited at most ``EXIT_GRACE`` seconds more.  The
run is judged by what the program did.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import SudokuCpError
from .limits import Deadline

__all__ = [
    "DEFAULT_MAX_OUTPUT",
    "EXIT_GRACE",
    "CommandError",
    "ProgramRun",
    "ProgramStartError",
    "check_command",
    "ending",
    "find_program",
    "last_line",
    "run_program",
    "split_command",
]

DEFAULT_MAX_OUTPUT = 64 << 20
"""Bytes of standard output kept by default; a program writing more is killed (``output_too_large``)."""
EXIT_GRACE = 1.0
"""Seconds to wait for the pipes to close once the program itself has ended."""
_STDERR_TAIL = 64 << 10  # bytes of standard error kept: the end, where the reason of a failure is
_PIECE = 1 << 16  # bytes read or written at a time
_POLL = 0.1  # seconds between checks that the program is still running while its pipes stay open
_PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
_REAP_ROUNDS = 100  # kill-and-reap rounds for the orphans of one run (each round catches their orphans)
_Known = dict[int, int]  # children of this process when a program started: pid -> start time (ticks)


class ProgramStartError(SudokuCpError):
    """A program that could not be started: ``reason`` is 'not found' or 'could not be started: ...'."""

    def __init__(self, program: str, reason: str) -> None:
        super().__init__(f"program {program!r} {reason}")
        self.program = program
        self.reason = reason


class CommandError(SudokuCpError, ValueError):
    """A command line that cannot be split into words (an unclosed quote), or that has none."""


def find_program(name: str) -> str:
    """The file ``name`` runs (looked up on PATH unless it holds a '/'); ProgramStartError if it cannot run.

    The reason is 'not found', 'is a directory' or 'is not executable', so a bad command is
    named before any run.
    """
    if os.sep not in name and not (os.altsep and os.altsep in name):
        found = shutil.which(name)
        if found is None:
            raise ProgramStartError(name, "not found")
        return found
    if not os.path.exists(name):
        raise ProgramStartError(name, "not found")
    if os.path.isdir(name):
        raise ProgramStartError(name, "is a directory")
    if not os.access(name, os.X_OK):
        raise ProgramStartError(name, "is not executable")
    return name


def split_command(command: str, what: str = "command") -> list[str]:
    """The words of a shell-like command line (``shlex`` rules, no shell); ``what`` names it in errors."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise CommandError(f"cannot split {what} {command!r}: {error}") from None
    if not words:
        raise CommandError(f"empty {what}")
    return words


def check_command(command: str, what: str = "command") -> list[str]:
    """The words of a command whose program can run; CommandError naming the command otherwise.

    Catches, before any run, an empty command, an unclosed quote, and a program that is missing,
    a directory or not executable.  A program word holding '{' (a placeholder filled in per run)
    is not looked up, but one that is a placeholder alone ('{cnf}') is refused: no run can work.
    """
    words = split_command(command, what)
    if re.fullmatch(r"\{[a-z_]*\}", words[0]):  # '{cnf}' alone: the file a run fills in is no program
        raise CommandError(
            f"{what} {command!r}: its first word {words[0]} is a placeholder, not a program "
            "(name the program first, e.g. 'cadical -q {cnf}')"
        )
    if "{" not in words[0]:
        try:
            find_program(words[0])
        except ProgramStartError as error:
            raise CommandError(f"{what} {command!r}: program {words[0]!r} {error.reason}") from None
    return words


@dataclass(frozen=True, slots=True)
class ProgramRun:
    """How one run of a program went: its exit code, what it wrote, and whether it was stopped.

    ``exit_code`` is the process's return code (negative: the signal that ended it, also when this
    module killed it).  ``stdout`` holds at most the cap; ``stderr_tail`` the end of standard error.
    """

    argv: tuple[str, ...]
    exit_code: int
    stdout: bytes
    stderr_tail: str
    seconds: float
    timed_out: bool = False
    output_too_large: bool = False

    @property
    def killed(self) -> bool:
        """True when the run was stopped here (time limit or output cap), not ended by the program."""
        return self.timed_out or self.output_too_large

    @property
    def stdout_text(self) -> str:
        """Standard output decoded as UTF-8 (undecodable bytes replaced)."""
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def ending(self) -> str:
        """How the program ended: 'exit code 3' or 'killed by SIGSEGV'."""
        return ending(self.exit_code)

    @property
    def last_error_line(self) -> str:
        """The last non-empty line of standard error, shortened, or 'no error output'."""
        return last_line(self.stderr_tail)


def ending(code: int) -> str:
    """How a process ended, from its return code: 'exit code 3' or 'killed by SIGSEGV'."""
    if code >= 0:
        return f"exit code {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


def last_line(text: str) -> str:
    """The last non-empty line of a text, shortened to 200 characters, or 'no error output'."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "no error output"
    line = lines[-1]
    return line if len(line) <= 200 else line[:197] + "..."


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and every process of its group (it leads a session of its own)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def _has_ended(process: subprocess.Popen[bytes]) -> bool:
    """Whether the program has ended; it is not reaped, so its group id stays reserved for the kill."""
    if process.returncode is not None:
        return True
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    return process.poll() is not None


def _stat(pid: int | str) -> tuple[int, int, int, int] | None:
    """(parent pid, process group, session, start time in clock ticks) of a process, from /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
        return int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _children() -> set[int]:
    """The pids of this process's children (of every thread), from /proc."""
    me = os.getpid()
    if os.path.exists(f"/proc/{me}/task/{me}/children"):
        pids: set[int] = set()
        for task in os.listdir(f"/proc/{me}/task"):
            # A thread that ended meanwhile has no file any more.
            with contextlib.suppress(OSError), open(f"/proc/{me}/task/{task}/children") as handle:
                pids.update(int(word) for word in handle.read().split())
        return pids
    # A kernel without the children files: every process's parent, the slow way.
    return {
        int(entry) for entry in os.listdir("/proc") if entry.isdigit() and (_stat(entry) or (0,))[0] == me
    }


def _load_prctl() -> Callable[..., int] | None:
    """libc's prctl on Linux, or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


class _Reaper:
    """This process as child subreaper while it runs programs, and the orphans that come to it.

    With ``PR_SET_CHILD_SUBREAPER`` set, a descendant whose parent dies becomes a child of this
    process instead of init's, whatever session or group it moved to.  The setting is on only
    while at least one program runs (runs in several threads are counted), so this process does
    not collect other orphans for good.  The state belongs to one process id: a forked child
    starts afresh (the kernel does not pass the setting on either).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.owner = 0  # the pid this state belongs to
        self.users = 0  # runs going on
        self.active = False  # whether the subreaper setting is on
        self.programs: set[int] = set()  # pids of the programs being run
        self.prctl: Callable[..., int] | None = _load_prctl()

    def _own(self) -> None:
        if self.owner != os.getpid():
            self.owner, self.users, self.active = os.getpid(), 0, False
            self.programs.clear()

    def _set(self, on: bool) -> bool:
        if self.prctl is None:
            return False
        try:
            done = self.prctl(
                ctypes.c_int(_PR_SET_CHILD_SUBREAPER), ctypes.c_ulong(int(on)), *[ctypes.c_ulong(0)] * 3
            )
        except OSError:
            return False
        return done == 0

    def enter(self) -> None:
        """A run begins: the subreaper setting on, if it is not yet."""
        with self.lock:
            self._own()
            if self.users == 0:
                self.active = self._set(True)
            self.users += 1

    def leave(self) -> None:
        """A run ended: the setting off once no run goes on."""
        with self.lock:
            self._own()
            self.users = max(self.users - 1, 0)
            if self.users == 0 and self.active:
                self._set(False)
                self.active = False

    def start(self, argv: list[str], **options: Any) -> tuple[subprocess.Popen[bytes], _Known | None]:
        """Start a program, known as a program (never an orphan) from the start.

        Returns the process and, when orphans can come to this process, its children just before
        (pid: start time, so a pid used again is told apart): none of them can be an orphan of it.
        """
        with self.lock:  # another thread's cleanup must not see the program before it is known
            self._own()
            known = {pid: stat[3] for pid in _children() if (stat := _stat(pid))} if self.active else None
            process = subprocess.Popen(argv, **options)
            self.programs.add(process.pid)
        return process, known

    def forget(self, pid: int) -> None:
        """The program has been reaped."""
        with self.lock:
            self.programs.discard(pid)

    def end_orphans(self, pid: int, known: _Known | None) -> int:
        """Kill and reap the orphans of the program ``pid``; how many.

        An orphan is a child of this process that was not one when the program started
        (``known``) and is neither a program being run (nor in the group or session of another
        one) nor a worker of ``multiprocessing``.  Killing one makes its own children orphans:
        rounds go on until none is left.  A process another thread starts meanwhile by other
        means than run_program or multiprocessing would be taken for an orphan.
        """
        if not self.active or known is None:
            return 0
        ended = 0
        for _ in range(_REAP_ROUNDS):
            with self.lock:
                others = self.programs - {pid}
                orphans = [
                    child
                    for child in _children() - self.programs - _workers()
                    if (stat := _stat(child)) is not None
                    and known.get(child) != stat[3]
                    and stat[1] not in others
                    and stat[2] not in others
                ]
                for child in orphans:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child, signal.SIGKILL)
                for child in orphans:
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(child, 0)
            if not orphans:
                break
            ended += len(orphans)
        return ended


def _workers() -> set[int]:
    """The pids of this process's ``multiprocessing`` workers, when it has any."""
    module = sys.modules.get("multiprocessing")
    if module is None:
        return set()
    return {worker.pid for worker in module.active_children() if worker.pid is not None}


_REAPER = _Reaper()


class _Pipes:
    """The reading and writing side of one run: stdin fed in pieces, stdout capped, stderr's tail kept."""

    def __init__(self, process: subprocess.Popen[bytes], stdin: bytes | None, max_output: int) -> None:
        self.process = process
        self.selector = selectors.DefaultSelector()
        self.stdin = stdin or b""
        self.written = 0
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.max_output = max_output
        self.too_large = False
        if process.stdin is not None:
            if self.stdin:
                os.set_blocking(process.stdin.fileno(), False)
                self.selector.register(process.stdin, selectors.EVENT_WRITE)
            else:
                process.stdin.close()
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:  # both are pipes, as run_program starts every program
                self.selector.register(pipe, selectors.EVENT_READ)

    @property
    def open(self) -> bool:
        """Whether any pipe is still being read or written."""
        return bool(self.selector.get_map())

    def _close(self, pipe: Any) -> None:
        """Stop watching a pipe and close it."""
        self.selector.unregister(pipe)
        with contextlib.suppress(OSError):
            pipe.close()

    def pump(self, seconds: float) -> None:
        """Move what is ready within ``seconds``: feed stdin, read stdout (up to the cap) and stderr."""
        process = self.process
        for key, _ in self.selector.select(seconds):
            pipe = key.fileobj
            if pipe is process.stdin:
                try:
                    self.written += os.write(key.fd, self.stdin[self.written : self.written + _PIECE])
                except BlockingIOError:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    self.written = len(self.stdin)  # the program does not read its input: fine
                if self.written >= len(self.stdin):
                    self._close(pipe)
                continue
            piece = os.read(key.fd, _PIECE)
            if not piece:
                self._close(pipe)
            elif pipe is process.stdout:
                self.stdout += piece
                if len(self.stdout) > self.max_output:
                    del self.stdout[self.max_output :]
                    self.too_large = True
                    return
            else:
                self.stderr += piece
                if len(self.stderr) > 2 * _STDERR_TAIL:
                    del self.stderr[:-_STDERR_TAIL]

    def close(self) -> None:
        """Stop reading and writing: close every pipe still open."""
        for key in list(self.selector.get_map().values()):
            self._close(key.fileobj)
        self.selector.close()


def run_program(
    argv: Sequence[str],
    stdin: bytes | str | None = None,
    timeout: float | None = None,
    *,
    max_output: int = DEFAULT_MAX_OUTPUT,
) -> ProgramRun:
    """Run a program (never a shell) with ``stdin`` as its input; wait at most ``timeout`` seconds.

    ``argv[0]`` is looked up on PATH.  ``stdin=None`` gives the program no input (``/dev/null``);
    ``timeout`` None or ``inf`` means no limit.  At the time limit, or when standard output passes
    ``max_output`` bytes (64 MiB by default), the program's whole process group is killed and the
    run says ``timed_out`` or ``output_too_large``.  On KeyboardInterrupt the group is killed and
    the interrupt raised again.  Raises ProgramStartError when the program is missing or cannot start.

    Nothing the program started outlives the run: its process group is killed when it ends, and
    on Linux this process is a child subreaper while the program runs, so descendants that left
    the group and the session become its children; the new ones (not its children when the
    program started, and neither another program being run nor a ``multiprocessing`` worker)
    are killed and reaped once the program ends.  Where that is not available (not Linux, or
    prctl refused), an escaped process can only be waited for, ``EXIT_GRACE`` seconds at most.
    The run is judged by what the program wrote before it ended.
    """
    words = [os.fspath(word) for word in argv]
    if not words:
        raise ValueError("run_program needs a program to run")
    deadline = Deadline(timeout)
    executable = find_program(words[0])
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    start = time.monotonic()
    _REAPER.enter()
    try:
        try:
            process, known = _REAPER.start(
                [executable, *words[1:]],
                stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, killed whole
            )
        except OSError as error:
            raise ProgramStartError(words[0], f"could not be started: {error.strerror or error}") from None
        try:
            pipes, timed_out = _watch(process, known, data, max_output, deadline)
        finally:
            _REAPER.forget(process.pid)
    finally:
        _REAPER.leave()
    return ProgramRun(
        tuple(words),
        process.returncode,
        bytes(pipes.stdout),
        pipes.stderr[-_STDERR_TAIL:].decode("utf-8", errors="replace"),
        time.monotonic() - start,
        timed_out,
        pipes.too_large,
    )


def _watch(
    process: subprocess.Popen[bytes],
    known: _Known | None,
    data: bytes | None,
    max_output: int,
    deadline: Deadline,
) -> tuple[_Pipes, bool]:
    """Feed and read the program until it ends (or the limit or cap); kill what is left; reap it all."""
    pipes = _Pipes(process, data, max_output)
    timed_out = False
    try:
        ended_at: float | None = None
        while pipes.open and not pipes.too_large:
            remaining = deadline.remaining()
            if remaining == 0.0:
                timed_out = True
                break
            if ended_at is None and _has_ended(process):
                ended_at = time.monotonic()
                # What it left behind goes now; the pipes then close once their buffers are read.
                _kill_group(process)
                _REAPER.end_orphans(process.pid, known)
            elif ended_at is not None and time.monotonic() - ended_at > EXIT_GRACE:
                break  # what still holds the pipes escaped unseen; the program has answered
            pipes.pump(_POLL if remaining is None else min(remaining, _POLL))
        if not pipes.too_large and not timed_out:
            try:
                process.wait(deadline.remaining())
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        # Ends the program at the limit or cap, on an interrupt, and whatever it left behind.
        _kill_group(process)
        pipes.close()
        process.wait()
        _REAPER.end_orphans(process.pid, known)
    return pipes, timed_out
