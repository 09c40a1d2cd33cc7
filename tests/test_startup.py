"""Start-up stays light: no solver, OR-tools, numba or scipy is loaded until a command uses one."""

from __future__ import annotations

import json
import subprocess
import sys

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
