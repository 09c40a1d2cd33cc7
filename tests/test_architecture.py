"""The package's shape: no import cycle, no upward import, a thin command line that imports no sibling.

Imports are read from the source (module level and inside functions alike), so a lazy import
that would close a circle is caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sudoku_cp"

#: Floors, lowest first: a module may import its own floor and the ones below, never one above.
FLOORS: dict[str, int] = {
    # core: value types, text forms, the checker, limits, pictures, processes
    "errors": 0,
    "outcome": 0,
    "limits": 0,
    "geometry": 0,
    "grid": 0,
    "checker": 0,
    "formats": 0,
    "svg": 0,
    "process": 0,
    "executor": 0,
    "lazy": 0,
    # models (and the candidates they start from)
    "propagation": 1,
    "cnf": 1,
    "exact_cover": 1,
    "cpsat": 1,
    "sat_solvers": 1,
    "random_grids": 1,
    # engines
    "native": 2,
    "backends": 2,
    "nishio": 2,
    "certify": 2,
    "reduction": 2,
    "graphs": 2,
    "deduction": 2,
    # what users call, then what judges engines, then the command line
    "api": 3,
    "audit": 4,
    "fuzz": 4,  # judges solvers as audit does, on cases it makes
    "testing": 4,  # hypothesis strategies over fuzz's cases, for solver authors' tests
    "cli": 5,
}
EXEMPT = {"sudoku_cp", "sudoku_cp.__main__"}  # the facade and the entry point sit above everything


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports (a name imported from a package counts as its module)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".") if is_package else name.split(".")[:-1]
            if node.level:
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            if target in known and target != name and not name.startswith(target + "."):
                out.add(target)
    return out


MODULES = _modules()
GRAPH = {name: _imports(name, path, set(MODULES)) for name, path in MODULES.items()}


def _floor(module: str) -> int | None:
    parts = module.split(".")
    return FLOORS.get(parts[1]) if len(parts) > 1 else None


def test_the_package_has_no_import_cycle() -> None:
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target) :] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles[:5])


def test_every_module_has_a_floor() -> None:
    missing = sorted(m for m in MODULES if m not in EXEMPT and _floor(m) is None)
    assert not missing, f"modules without a floor in FLOORS: {missing}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m not in EXEMPT))
def test_no_module_imports_from_a_higher_floor(module: str) -> None:
    floor = _floor(module)
    upward = sorted(t for t in GRAPH[module] if t not in EXEMPT and (_floor(t) or 0) > (floor or 0))
    assert not upward, f"{module} (floor {floor}) imports from higher floors: {upward}"
    assert "sudoku_cp" not in GRAPH[module], f"{module} imports the facade sudoku_cp/__init__.py"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("sudoku_cp.cli.")))
def test_cli_subcommands_import_only_common_and_the_library(module: str) -> None:
    shared = {"sudoku_cp.cli.common", "sudoku_cp.cli.results_file"}  # helpers, not subcommands
    siblings = {t for t in GRAPH[module] if t.startswith("sudoku_cp.cli")} - shared
    assert not siblings, f"{module} imports other command-line modules: {sorted(siblings)}"
