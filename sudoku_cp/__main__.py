"""``python -m sudoku_cp``: the ``sudoku-cp`` command line."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
