"""An external solver that claims 'no solution' for every puzzle."""

from __future__ import annotations

import sys

sys.stdin.read()
print("no solution")
