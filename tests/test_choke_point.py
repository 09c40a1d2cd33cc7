"""Issue 24.7: one table of backends, one signature, one place where answers are checked and decided.

* the table (``backends.registry.TABLE``) yields the names, the command line's help and each
  backend's completeness; a backend registered in a test is made, named and helped like the others;
* every backend answers through ``Backend.solve_arrays``; what it answers passes the checker in
  one place (``Backend.search_arrays``) before ``api`` decides statuses: a wrong solution is never
  shown, a forgotten puzzle is unknown;
* digits are range-checked before any cast (65537 is not 1);
* the DAG's batch closures and counts honour a time limit (unknown, never a number).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from sudoku_cp.backends import registry
from sudoku_cp.backends.registry import (
    BACKEND_NAMES,
    TABLE,
    backend_name,
    backends_help,
    is_complete,
    make_backend,
)

EXPECTED_NAMES = (
    "pysat",
    "pysat:<solver>",
    "cpsat",
    "cpsat:alldiff",
    "dlx",
    "backtrack",
    "acs",
    "acs:<settings>",
    "hill",
    "hill:<settings>",
    "ils",
    "ils:<settings>",
)


# --- the table -------------------------------------------------------------------------------


def test_the_table_yields_the_names_in_their_order() -> None:
    assert BACKEND_NAMES == EXPECTED_NAMES
    assert registry.backend_names() == EXPECTED_NAMES
    assert tuple(form for entry in TABLE.values() for form in entry.forms) == BACKEND_NAMES


def test_the_table_yields_completeness() -> None:
    assert {family for family, entry in TABLE.items() if not entry.complete} == {"acs", "hill", "ils"}
    for spec in ("acs", "hill", "ils"):
        assert not is_complete(make_backend(spec)) and not is_complete(spec)
    for spec in ("pysat", "pysat:glucose4", "cpsat", "cpsat:alldiff", "dlx", "backtrack"):
        assert is_complete(make_backend(spec)) and is_complete(spec)
    assert not is_complete("nosuch")  # unknown families prove nothing


def test_the_table_yields_the_help_of_solve_and_of_the_program() -> None:
    text = backends_help()
    for entry in TABLE.values():
        for form, _ in entry.help:
            assert f"\n  {form} " in text or f"\n  {form}\n" in text
    shown = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "solve", "--help"], capture_output=True, text=True, check=True
    ).stdout
    words = " ".join(shown.split())
    assert "backends (--backend):" in shown and "--solver-cmd CMD" in shown
    assert "ant colony system" in words and "iterated local search" in words
    assert ", ".join(BACKEND_NAMES) in words  # --backend's own help lists them
    assert words.count("[incomplete") == 3


def test_every_name_and_option_makes_its_backend() -> None:
    assert make_backend("pysat:glucose4").name == "pysat:glucose4"
    assert make_backend("acs:bve=0,ants=20").name == "acs"
    assert make_backend("cpsat:alldiff").name == "cpsat:alldiff"
    assert make_backend(solver_cmd="minisat", trust_solver=True).name == "program:minisat"
    assert backend_name("pysat", batch=True) == "pysat:minicard"
    assert backend_name("pysat", batch=True, side=25) == "pysat:cadical195"
    assert backend_name(solver_cmd="kissat") == "program:kissat"
    from sudoku_cp.backends.base import BackendError

    for bad in ("nosuch", "dlx:x", "cpsat:nosuch", "program"):
        with pytest.raises(BackendError):
            make_backend(bad)
