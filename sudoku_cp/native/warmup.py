"""Compile every native kernel once after an install, in the background, and say so.

numba compiles a kernel on its first call and keeps the machine code in its cache; after an
install the cache is empty, and a first command paid 5-27 s of compilation (``rate``,
``explain``).  The command line therefore registers ``first_compile_notice`` with
``limits.on_first_compile``: the first time a process compiles, it writes one line on standard
error and starts, once per machine and package version, a background process (``python -m
sudoku_cp.native.warmup``) that runs every command's smallest jobs at low priority, so that the
other commands find their kernels compiled.  The compile itself is never counted against a
time limit (``limits.compiling``).

Files, in the cache folder (``machine_code.cache_folder``): ``warmup-KEY.lock`` while a warm-up
runs (its process id; a dead one's lock is taken over), ``warmup-KEY.done`` once one finished.
KEY is made of the package's sources, Python's and numba's versions.
``SUDOKU_CP_BACKGROUND_COMPILE=0`` turns the background warm-up and the notice off (the
warm-up's own commands and the test suite run with it).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from .machine_code import cache_folder

__all__ = ["ENV_SWITCH", "JOBS", "first_compile_notice", "main", "paths", "start_background"]

#: The environment variable that turns the background warm-up off when it is "0".
ENV_SWITCH = "SUDOKU_CP_BACKGROUND_COMPILE"
_PUZZLE = "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3.."
_EMPTY16 = "." * 256
_LIMIT = ["--time-limit", "20"]
#: The commands the warm-up runs (``sudoku-cp`` arguments): each command's kernels on small grids.
JOBS: tuple[tuple[str, ...], ...] = (
    ("solve", "--backend", "backtrack", _PUZZLE),
    ("count", _PUZZLE),
    ("count", "--backend", "backtrack", "--box", "4x4", _EMPTY16),
    ("rate", _PUZZLE),
    ("explain", _PUZZLE),
    ("nishio", "--puzzle", _PUZZLE, "--all-digits"),
    ("solve", "--backend", "dlx", _PUZZLE),
    ("solve", "--backend", "acs", "--seed", "1", *_LIMIT, _PUZZLE),
    ("solve", "--backend", "hill", "--seed", "1", *_LIMIT, _PUZZLE),
    ("solve", "--backend", "ils", "--seed", "1", *_LIMIT, _PUZZLE),
    ("solve", "--backend", "backtrack", "--box", "4x4", _EMPTY16),
    ("solve", "--backend", "acs", "--seed", "1", *_LIMIT, "--box", "4x4", _EMPTY16),
    ("solve", "--backend", "hill", "--seed", "1", *_LIMIT, "--box", "4x4", _EMPTY16),
    ("verify", "--backend", "backtrack", "--in-process", _PUZZLE),
    ("generate", "--box", "3x3", "--count", "2", "--seed", "1"),
    ("generate", "--box", "3x3", "--count", "2", "--seed", "1", "--symmetric"),
)
_notified = False


def _key() -> str:
    """What the compiled code depends on: the package's sources, Python's and numba's versions."""
    digest = hashlib.sha256(sys.version.encode())
    numba = sys.modules.get("numba")
    digest.update(str(getattr(numba, "__version__", "")).encode())
    package = Path(__file__).resolve().parents[1]
    for source in sorted(package.rglob("*.py")):
        try:
            stat = source.stat()
        except OSError:
            continue
        digest.update(f"{source.relative_to(package)} {stat.st_size} {stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def paths() -> tuple[Path, Path]:
    """The warm-up's lock file and the file that says it finished, for this package and machine."""
    folder = cache_folder()
    key = _key()
    return folder / f"warmup-{key}.lock", folder / f"warmup-{key}.done"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


def _take(lock: Path) -> bool:
    """Create the lock (this process's id in it); False when a live warm-up holds it."""
    for _ in range(2):
        try:
            handle = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and _alive(pid):
                return False
            try:  # a dead warm-up's lock
                lock.unlink()
            except OSError:
                return False
            continue
        with os.fdopen(handle, "w") as out:
            out.write(str(os.getpid()))
        return True
    return False


def start_background() -> bool:
    """Start the background warm-up unless it ran or runs already (or is turned off); True if started."""
    if os.environ.get(ENV_SWITCH) == "0":
        return False
    try:
        lock, done = paths()
        if done.exists():
            return False
        lock.parent.mkdir(parents=True, exist_ok=True)
        if not _take(lock):
            return False
        environment = {**os.environ, ENV_SWITCH: "0"}
        child = subprocess.Popen(  # noqa: S603 - this interpreter, this module
            [sys.executable, "-m", "sudoku_cp.native.warmup", str(lock), str(done)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C on the command must not stop it
            env=environment,
            close_fds=True,
        )
        lock.write_text(str(child.pid))  # the lock belongs to the warm-up from now on
    except OSError:
        return False
    return True


def first_compile_notice() -> None:
    """One line on standard error the first time this process compiles, and the background warm-up."""
    global _notified
    if _notified or os.environ.get(ENV_SWITCH) == "0":
        return
    _notified = True
    started = start_background()
    tail = "; every other command's kernels compile now in the background" if started else ""
    sys.stderr.write(
        "sudoku-cp: compiling native code for this machine (first use after an install; "
        f"not counted against --time-limit){tail}\n"
    )
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    """Run ``JOBS`` one after the other at low priority; write the done file if all of them ran."""
    arguments = sys.argv[1:] if argv is None else argv
    lock, done = (Path(arguments[0]), Path(arguments[1])) if len(arguments) == 2 else paths()
    with contextlib.suppress(OSError):
        os.nice(10)
    environment = {**os.environ, ENV_SWITCH: "0"}
    ok = True
    try:
        for job in JOBS:
            try:
                result = subprocess.run(  # noqa: S603 - this interpreter, this package
                    [sys.executable, "-m", "sudoku_cp", *job],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=environment,
                    timeout=900,
                    check=False,
                )
                ok = ok and result.returncode in (0, 1, 3)
            except subprocess.TimeoutExpired:
                ok = False
        if ok:
            done.write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
