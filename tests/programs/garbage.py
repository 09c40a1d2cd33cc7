"""An external solver that prints something that is no answer (exit status 0)."""

from __future__ import annotations

import sys

puzzle = sys.stdin.readline().strip()
print("solution: " + puzzle[:10] + "?!")
