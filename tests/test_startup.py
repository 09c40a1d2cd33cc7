"""Start-up stays light: no solver, OR-tools, numba or scipy is loaded until a command uses one."""

from __future__ import annotations

import json
import subprocess
import sys

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
HEAVY = ("numba", "ortools", "pysat", "scipy", "tqdm", "sudoku_cp.native", "sudoku_cp.nishio.dag")


def _loaded_after(code: str) -> list[str]:
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    loaded: list[str] = json.loads(run.stdout)
    return loaded


def test_building_the_parser_of_every_command_imports_no_heavy_module() -> None:
    assert _loaded_after("from sudoku_cp.cli import build_parser\nbuild_parser()") == []


def test_importing_the_package_imports_no_heavy_module() -> None:
    assert _loaded_after("import sudoku_cp") == []


def test_a_command_line_loads_only_its_own_subcommand_module() -> None:
    # 'solve' must not pay for the audit and reduction packages that verify and reduce import.
    puzzle = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    probe = (
        "import io, json, sys, contextlib\n"
        "from sudoku_cp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['solve', '--json', {puzzle!r}])\n"
        "mine = sorted(m for m in sys.modules if m.startswith(('sudoku_cp.cli.', 'sudoku_cp.audit', "
        "'sudoku_cp.reduction')))\n"
        "print(json.dumps([code, mine]))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    code, loaded = json.loads(run.stdout)
    assert code == 0
    assert loaded == ["sudoku_cp.cli.common", "sudoku_cp.cli.results_file", "sudoku_cp.cli.solve"]


def test_the_graph_package_loads_scipy_sparse_only_when_a_search_needs_it() -> None:
    # scipy.sparse costs 0.15-0.25 s of start-up; every rule module imports sudoku_cp.graphs.
    probe = (
        "import sys\n"
        "import numpy as np\n"
        "from sudoku_cp.graphs import csr_strong_components\n"
        "before = 'scipy.sparse' in sys.modules\n"
        "count, labels = csr_strong_components(np.array([0, 1, 2]), np.array([1, 0]))\n"
        "print(before, 'scipy.sparse' in sys.modules, count, labels.tolist())\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "True", "1", "[0,", "0]"]


def test_rating_a_puzzle_loads_neither_scipy_linalg_nor_scipy_sparse() -> None:
    # numba's first kernel load probes for a BLAS by importing scipy.linalg (0.25-0.5 s of
    # start-up); the rules use none, and their scipy.sparse searches run only when needed.
    puzzle = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    probe = (
        "import io, json, sys, contextlib\n"
        "from sudoku_cp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    code = main(['rate', '--json', {puzzle!r}])\n"
        "rating = json.loads(out.getvalue().splitlines()[0])['rating']\n"
        "watched = ('scipy.linalg', 'scipy.sparse', 'numba.np.arraymath')\n"
        "print(json.dumps([code, rating, sorted(m for m in watched if m in sys.modules)]))\n"
    )
    for attempt in range(2):
        run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        code, rating, loaded = json.loads(run.stdout)
        assert (code, rating) == (0, 2.6)
        # The first run may compile (a cold cache), which installs numba's registries
        # (numba.np.arraymath among them); the second loads every kernel from the cache without them.
        assert loaded == (["numba.np.arraymath"] if attempt == 0 and loaded else [])


def test_a_kernel_cache_load_that_fails_without_the_registries_is_retried_as_numba_does() -> None:
    # The trimmed load (lazy.numba_cache_loads_without_registries) must never lose a kernel: a
    # load that raises is done again by numba's own path, registries and all.
    probe = (
        "import json, sys\n"
        "import numpy as np\n"
        "from numba.core.caching import Cache\n"
        "from sudoku_cp.limits import watch_compilation\n"
        "watch_compilation()\n"
        "inner = Cache._load_overload\n"
        "failed = []\n"
        "def once(self, sig, ctx):\n"
        "    if not failed:\n"
        "        failed.append(1)\n"
        "        raise OSError('simulated')\n"
        "    return inner(self, sig, ctx)\n"
        "Cache._load_overload = once\n"
        "from sudoku_cp.deduction.rate import rate\n"
        "from sudoku_cp.formats import parse_grid\n"
        f"grid = parse_grid({PUZZLE!r})\n"
        "rating = rate(grid).rating\n"
        "print(json.dumps([len(failed), rating, 'numba.np.arraymath' in sys.modules]))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [1, 2.6, True]
