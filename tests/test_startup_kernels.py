"""Kernel loads stay light in a fresh process: no scipy.linalg for a puzzle that needs chains."""

from __future__ import annotations

import json
import subprocess
import sys

# Generated minimal puzzle (``sudoku-cp generate --box 3x3 --count 2000 --seed 1``, its 27th):
# rated 8.3 by region forcing chains, so its rating loads most rule kernels; the chain graphs'
# kernel (``NrGraph``'s, whose environment is numba.np.arraymath's: it sorts) is loaded too.
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
CHAINS = "..3.1.8..5.......3..736.5.46.5.2..........9.5.7...83...5......6.8.4.........792.."


def test_rating_a_puzzle_with_chains_loads_no_scipy_linalg() -> None:
    # Loading a cached kernel whose environment is numba.np.arraymath's imports that module, and
    # its BLAS probe imported scipy.linalg (0.25-0.5 s of CPU in every process that rated such
    # a puzzle first); lazy._blas_probe_held keeps it out.
    probe = (
        "import json, sys\n"
        "import numpy as np\n"
        "from sudoku_cp.deduction.rate import rate\n"
        "from sudoku_cp.formats import parse_grid\n"
        "from sudoku_cp.graphs.nonrepetitive import NrGraph\n"
        "from sudoku_cp.limits import watch_compilation\n"
        "watch_compilation()\n"
        f"rating = rate(parse_grid({CHAINS!r}))\n"
        "ends = np.array([0, 1], np.int64)\n"
        "NrGraph.of_edges(3, ends, ends + 1, ends, ends, directed=False)\n"
        "print(json.dumps([rating.rating, rating.hardest, 'scipy.linalg' in sys.modules, "
        "'numba.np.arraymath' in sys.modules]))\n"
    )
    for attempt in range(2):
        run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        value, hardest, linalg, arraymath = json.loads(run.stdout)
        assert (value, hardest) == (8.3, "region-forcing-chains")
        assert arraymath  # the chain kernels' environment: the case this test is about
        # The first run may compile (a cold cache: numba's compiler may probe); the second loads.
        if attempt == 1:
            assert not linalg


def test_the_probe_held_back_during_a_load_is_put_back_and_fails_closed() -> None:
    # Inside the hold, scipy.linalg cannot be imported (a load that needs it fails, and is retried
    # by numba's own path); after it, nothing of the hold is left in sys.modules.
    probe = (
        "import json, sys\n"
        "from sudoku_cp.lazy import _blas_probe_held\n"
        "inside = None\n"
        "with _blas_probe_held():\n"
        "    try:\n"
        "        import scipy.linalg\n"
        "        inside = 'imported'\n"
        "    except ImportError:\n"
        "        inside = 'refused'\n"
        "left = 'scipy.linalg' in sys.modules\n"
        "import scipy.linalg\n"
        "print(json.dumps([inside, left, scipy.linalg.__name__]))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["refused", False, "scipy.linalg"]


def test_llvm_lock_callbacks_are_off_during_a_kernel_load_and_back_after() -> None:
    # lazy._lock_events_off: numba's "numba:llvm_lock" events (thousands per kernel load) are
    # not announced while a saved kernel loads, and every callback is back afterwards.
    probe = (
        "import json\n"
        "from llvmlite.binding import ffi\n"
        "from sudoku_cp.deduction.rate import rate\n"
        "from sudoku_cp.formats import parse_grid\n"
        "from sudoku_cp.limits import watch_compilation\n"
        "from sudoku_cp.lazy import _lock_events_off\n"
        "watch_compilation()\n"
        "calls = []\n"
        "mark = (lambda: calls.append(1), lambda: None)\n"
        "ffi.lib._lock.register(*mark)\n"
        "before = len(ffi.lib._lock._cblist)\n"
        "with _lock_events_off(ffi.lib._lock):\n"
        "    ffi.lib.LLVMPY_GetVersionInfo()\n"
        "inside = len(calls)\n"
        f"rating = rate(parse_grid({PUZZLE!r})).rating\n"
        "after = len(ffi.lib._lock._cblist)\n"
        "calls.clear()\n"
        "ffi.lib.LLVMPY_GetVersionInfo()\n"
        "print(json.dumps([inside, rating, before == after, mark in ffi.lib._lock._cblist, len(calls)]))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [0, 2.6, True, True, 1]
