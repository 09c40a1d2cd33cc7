"""An external solver wrong on full grids (it changes the first digit) that hangs on every other
puzzle, with a child that sleeps too; both pids go to the file named by its first argument, so
a test can check that no program is left running once the fuzzing run has ended."""

from __future__ import annotations

import os
import subprocess
import sys
import time

line = sys.stdin.readline().strip()
if "." not in line:
    print(("2" if line[0] == "1" else "1") + line[1:])
    sys.exit(0)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1], "a") as pids:
    pids.write(f"{os.getpid()}\n{child.pid}\n")
time.sleep(600)
