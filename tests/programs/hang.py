"""An external solver that never answers; it also starts a child that sleeps, whose pid it writes
to the file named by its first argument, so a test can check the whole process group was killed."""

from __future__ import annotations

import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
if len(sys.argv) > 1:
    with open(sys.argv[1], "a") as pids:
        pids.write(f"{child.pid}\n")
time.sleep(600)
