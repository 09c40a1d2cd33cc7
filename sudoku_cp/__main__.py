"""``python -m sudoku_cp`` and the ``sudoku-cp`` program (``run``)."""

import gc
import sys


def run() -> int:
    """The ``sudoku-cp`` program: the command line's exit code, Ctrl-C during its imports included."""
    import signal

    interrupted: list[int] = []

    def during_imports(signum: int, frame: object) -> None:
        interrupted.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, during_imports)
    try:
        from .cli import main  # numpy and the parser load here: a Ctrl-C may land in them
    except BaseException:
        # numpy turns a KeyboardInterrupt inside its import into an ImportError
        if not interrupted:
            raise
        sys.stderr.write("sudoku-cp: error: interrupted\n")  # as the command line says it, exit 130
        sys.unraisablehook = lambda unraisable: None  # a half-made object's finaliser: not news now
        _exit_interrupted()
    code = main()
    # The command is over: the interpreter's exit need not walk every object for cycles (0.15-0.2 s
    # of CPU, a fifth of a one-puzzle rate); exit handlers and stream flushes run as before.
    gc.freeze()
    if code == 130:
        _exit_interrupted()
    _exit_if_stuck(code)
    return code


def _exit_interrupted() -> None:
    """End an interrupted process with exit 130, after the exit handlers and with its outputs flushed.

    CPython remembers a KeyboardInterrupt that escaped an ``exec`` of a string (dataclasses and
    namedtuple make their methods that way while modules load) even when it is caught later, and
    then ends the process by SIGINT instead of the exit code: so the process ends here itself.
    """
    import atexit
    import os
    from contextlib import suppress

    with suppress(BaseException):
        atexit._run_exitfuncs()  # temporary files, pools: what a normal exit would clean up
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(130)


def _exit_if_stuck(code: int, patience: float = 2.0, interrupted_patience: float = 0.3) -> None:
    """End the process with ``code`` when a thread left behind would keep it from exiting.

    The command has answered and stopped its work in order; a thread that still runs (a process
    pool's manager thread waiting on a pipe of killed workers) would be joined at exit, for ever.
    After ``patience`` seconds the outputs are flushed and the process ends without that join.
    After Ctrl-C (130) a daemon thread still in native code (a CP-SAT search winding down) gets
    ``interrupted_patience`` seconds: the interpreter must not finalise under it.
    """
    import threading
    import time

    main_thread = threading.main_thread()
    end = time.monotonic() + patience
    for thread in threading.enumerate():
        if thread is not main_thread and not thread.daemon:
            thread.join(max(end - time.monotonic(), 0.0))
    watched = [t for t in threading.enumerate() if t is not main_thread and (code == 130 or not t.daemon)]
    end = time.monotonic() + interrupted_patience
    for thread in watched:
        if thread.daemon:
            thread.join(max(end - time.monotonic(), 0.0))
    if not any(thread.is_alive() for thread in watched):
        return
    import os
    from contextlib import suppress

    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    raise SystemExit(run())
