"""``python -m sudoku_cp`` and the ``sudoku-cp`` program (``run``)."""

import sys


def run() -> int:
    """The ``sudoku-cp`` program: the command line's exit code, Ctrl-C during its imports included."""
    try:
        from .cli import main  # numpy and the parser load here: a Ctrl-C may land in them
    except KeyboardInterrupt:
        sys.stderr.write("sudoku-cp: error: interrupted\n")  # as the command line says it, exit 130
        return 130
    return main()


if __name__ == "__main__":
    raise SystemExit(run())
