"""Rate 9x9 puzzles with PADS, the pure-Python peer that ``rate_speed.py --pads DIR`` times.

    python benchmarks/pads_rate.py PADS_DIR FILE

PADS is David Eppstein's "Python Algorithms and Data Structures"; its Sudoku module solves a
puzzle by the rules of Eppstein (2005) and names a level from the rules it needed.  PADS_DIR is
a checkout of https://github.com/jfinkels/PADS (a Python 3 port of it); nothing of it is kept
here.  Each line of FILE (81 characters, '.' or '0' for an empty cell) is solved as its command
line solves it (``step`` until no rule applies) and its level printed, one line per puzzle:
easy, moderate, tricky, difficult, evil, fiendish, or unsolved.  The last line on standard
error counts the puzzles and the CPU seconds of the rating alone.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

#: PADS's levels by the sum of 2**level - 1 over the rules a solve used (upper ends, inclusive).
_LEVELS = ((0, "easy"), (5, "moderate"), (9, "tricky"), (17, "difficult"), (33, "evil"))


def main() -> None:
    folder, path = Path(sys.argv[1]), Path(sys.argv[2])
    # The port imports some of its modules by their bare names (``from smawk import ...``).
    sys.path[:0] = [str(folder), str(folder / "pads")]
    from pads import sudoku  # type: ignore[import-not-found]  # noqa: PLC0415

    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    began = time.process_time()
    out = []
    for line in lines:
        grid = sudoku.Sudoku([0 if c in ".0" else int(c) for c in line])
        while sudoku.step(grid):
            pass
        weight = sum((1 << level) - 1 for name, _, level in sudoku.rules if name in grid.rules_used)
        if not grid.complete():
            out.append("unsolved")
        else:
            out.append(next((name for top, name in _LEVELS if weight <= top), "fiendish"))
    spent = time.process_time() - began
    sys.stdout.write("\n".join(out) + "\n")
    sys.stderr.write(f"pads: {len(lines)} puzzles rated in {spent:.2f} CPU s ({len(lines) / spent:.1f}/s)\n")


if __name__ == "__main__":
    main()
