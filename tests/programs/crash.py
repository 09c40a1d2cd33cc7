"""An external solver that reads the puzzle and fails: a message on stderr, exit status 3."""

from __future__ import annotations

import sys

sys.stdin.read()
sys.stderr.write("crash.py: out of cheese\n")
sys.exit(3)
