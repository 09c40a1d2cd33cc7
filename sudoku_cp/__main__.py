"""``python -m sudoku_cp`` and the ``sudoku-cp`` program (``run``)."""

import sys


def run() -> int:
    """The ``sudoku-cp`` program: the command line's exit code, Ctrl-C during its imports included."""
    try:
        from .cli import main  # numpy and the parser load here: a Ctrl-C may land in them
    except KeyboardInterrupt:
        sys.stderr.write("sudoku-cp: error: interrupted\n")  # as the command line says it, exit 130
        return 130
    code = main()
    _exit_if_stuck(code)
    return code


def _exit_if_stuck(code: int, patience: float = 2.0) -> None:
    """End the process with ``code`` when a thread left behind would keep it from exiting.

    The command has answered and stopped its work in order; a thread that still runs (a process
    pool's manager thread waiting on a pipe of killed workers) would be joined at exit, for ever.
    After ``patience`` seconds the outputs are flushed and the process ends without that join.
    """
    import threading
    import time

    main_thread = threading.main_thread()
    end = time.monotonic() + patience
    for thread in threading.enumerate():
        if thread is not main_thread and not thread.daemon:
            thread.join(max(end - time.monotonic(), 0.0))
    if all(t is main_thread or t.daemon or not t.is_alive() for t in threading.enumerate()):
        return
    import os
    from contextlib import suppress

    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    raise SystemExit(run())
