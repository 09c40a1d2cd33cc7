"""Mutation check of the modules that judge answers (issue 24, item 6): do their tests notice a bug?

For each target module the script makes mutants with ``ast`` (one small change each: a comparison
turned (< to <=, == to !=, in to not in), a constant moved (0 <-> 1, k -> k + 1, True <-> False),
a condition negated, ``and`` <-> ``or``, an arithmetic or bitwise operator swapped, a ``not`` dropped,
a ``return`` or an ``if`` branch deleted), runs a chosen fast subset of tests against each, and
counts the mutants killed (a test failed, the import broke, or the run timed out).  A target may
be restricted to named functions (``Target.functions``, or ``--functions``): dag.py's closure path.
``--sample K`` tests every K-th mutant only (deterministic), for modules whose mutants cost a lot.

Nothing in the working tree is touched: each worker copies ``sudoku_cp``, ``tests`` and
``pyproject.toml`` into a temporary directory, writes the mutant there, and runs pytest with that
copy first on ``sys.path``; the copy's original is written back in a ``finally`` block after each
mutant.  pytest runs in one process (``-n 0``: pyproject's ``-n auto`` would start workers per
mutant) with hypothesis's ``ci`` profile and a fixed seed, so every mutant meets the same examples.
A module holding numba kernels recompiles them for every mutant (its file changed, so numba's
cache of it is stale), whichever function the mutant changed.  Prints a Markdown table (module,
tests, mutants, killed, share, survivors, time) and the machine; progress per mutant on stderr.

Usage: ``python benchmarks/mutation.py [--jobs 2] [--only sudoku_cp/checker.py] [--limit N]
[--sample K] [--functions NAME,...] [--lines N,...]``
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from common import ROOT, load_average, machine


@dataclass(frozen=True)
class Target:
    """The tests run against each mutant of one module (fast, and aimed at it), and what to mutate.

    ``tests``: files or node ids; ``deselect``: node ids left out (slow, or aimed elsewhere);
    ``functions``: only mutate inside these functions ("name" or "Class.method"), None for all.
    """

    tests: tuple[str, ...]
    deselect: tuple[str, ...] = ()
    functions: frozenset[str] | None = None

    def pytest_args(self) -> list[str]:
        """The tests as pytest arguments."""
        return [*self.tests, *(f"--deselect={node}" for node in self.deselect)]

    def describe(self) -> str:
        """The tests in a table cell."""
        shown = ", ".join(Path(test).name for test in self.tests)
        left_out = ", ".join(node.split("::", 1)[1] for node in self.deselect)
        return f"{shown} (without {left_out})" if left_out else shown


#: The closure path of the Nishio DAG: the batch kernels and their Python entry, and the single
#: query's two passes and its entry (the graph's build, the count and the witness walk are not).
DAG_CLOSURE = frozenset(
    {
        "_closure_lanes",
        "_pack_lanes",
        "_closure_many",
        "_as_masks",
        "_chunks",
        "closure_batch",
        "_scan_forward",
        "_scan_backward",
        "DagNishio._allowed",
        "DagNishio._scan",
        "DagNishio._closure",
    }
)

#: Module -> its target.
TARGETS: dict[str, Target] = {
    "sudoku_cp/checker.py": Target(("tests/test_checker.py", "tests/test_checker_oracle.py")),
    "sudoku_cp/audit/judge.py": Target(("tests/test_audit.py", "tests/test_judge_mutation.py")),
    "sudoku_cp/deduction/proof.py": Target(
        (
            "tests/test_deduction_proof.py",
            "tests/test_fail_closed.py",
            "tests/test_deduction_generate.py::test_sat_uniqueness_answers_agree_with_a_brute_force_count",
            "tests/test_proof_mutation.py",
        ),
        deselect=(
            # A random 16x16 puzzle solved step by step (7 s): the 4x4 to 8x8 shapes prove the same code.
            "tests/test_deduction_proof.py::test_random_puzzles_of_other_shapes_pass_the_check[16-box3-4]",
        ),
    ),
    "sudoku_cp/nishio/dag.py": Target(
        ("tests/test_nishio_dag.py", "tests/test_fail_closed_dag.py"),
        deselect=(
            # The 25x25 graph (a count, seconds to read) and a subprocess under python -O (cache, walk).
            "tests/test_nishio_dag.py::test_25x25_graph_and_its_exact_placement_count",
            "tests/test_fail_closed_dag.py::test_the_checks_still_raise_under_python_O",
        ),
        functions=DAG_CLOSURE,
    ),
    "sudoku_cp/reduction/decode.py": Target(
        (
            "tests/test_reduction_decode.py",
            "tests/test_sparse_reduction.py::test_decoded_witnesses_pass_the_checker",
            "tests/test_sparse_reduction.py::test_a_reduction_beyond_the_old_cap_is_built_sparse_and_decodes",
            "tests/test_decode_mutation.py",
        ),
        deselect=(
            # Closures only (no decoding), and the CP-SAT twin of the pysat test (the same decoding).
            "tests/test_reduction_decode.py::test_dag_closure_equals_sat_closure_for_two_clauses",
            "tests/test_reduction_decode.py::test_theorem_62_dag_closure_holds_the_witness_cells_iff_satisfiable",
            "tests/test_reduction_decode.py::test_instance_has_a_placement_iff_formula_is_satisfiable_cpsat",
        ),
    ),
}
#: The hypothesis seed of every run (any fixed one: the same examples for every mutant).
SEED = "24"

_COMPARE_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BINOP_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.LShift: ast.RShift,
    ast.Pow: ast.Mult,
}


@dataclass(frozen=True)
class Mutant:
    """One change: where (line of the original file) and what, and the mutated source."""

    line: int
    what: str
    source: str


def _is_docstring(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    parent = parents.get(node)
    return isinstance(parent, ast.Expr) and isinstance(node, ast.Constant) and isinstance(node.value, str)


def _function_nodes(tree: ast.Module, functions: frozenset[str]) -> set[int]:
    """ids of the nodes inside the bodies (and argument defaults) of the named functions.

    Decorators stay out (``@numba.njit(cache=True)`` is no part of what the function computes).
    """
    inside: set[int] = set()
    found: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{node.name}"
                if name in functions:
                    found.add(name)
                    for part in [*node.body, *node.args.defaults, *node.args.kw_defaults]:
                        if part is not None:
                            inside.update(id(inner) for inner in ast.walk(part))

    visit(tree.body, "")
    if missing := functions - found:
        raise SystemExit(f"no function named {', '.join(sorted(missing))} in the module")
    return inside


def _sites(tree: ast.Module, functions: frozenset[str] | None = None) -> Iterator[tuple[ast.AST, str, str]]:
    """Every (node, kind, description) a mutant can change, in source order (in ``functions`` only,
    when given)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    chosen = None if functions is None else _function_nodes(tree, functions)
    # Annotations are never evaluated here (postponed by `from __future__ import annotations`):
    # changing `str | None` would only make mutants no test can kill.
    annotations = {
        id(inner) for node in ast.walk(tree) for note in _annotations(node) for inner in ast.walk(note)
    }
    for node in ast.walk(tree):
        if id(node) in annotations or (chosen is not None and id(node) not in chosen):
            continue
        if isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                if type(op) in _COMPARE_SWAP:
                    new = _COMPARE_SWAP[type(op)].__name__
                    yield node, f"compare:{index}", f"{type(op).__name__} -> {new}"
        elif isinstance(node, ast.Constant) and not _is_docstring(node, parents):
            if isinstance(node.value, bool):
                yield node, "const", f"{node.value} -> {not node.value}"
            elif isinstance(node.value, int):
                yield node, "const", f"{node.value} -> {_moved(node.value)}"
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            yield node, "negate", f"negate the {type(node).__name__.lower()} condition"
            if isinstance(node, ast.If):
                yield node, "drop-if", "delete the if branch"
        elif isinstance(node, ast.BoolOp):
            yield node, "boolop", "and -> or" if isinstance(node.op, ast.And) else "or -> and"
        elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _BINOP_SWAP:
            new = _BINOP_SWAP[type(node.op)].__name__
            yield node, "binop", f"{type(node.op).__name__} -> {new}"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.Invert):
            yield node, "unary", f"drop {type(node.op).__name__.lower()}"
        elif isinstance(node, ast.Return) and node.value is not None:
            yield node, "drop-return", "delete the return"


def _annotations(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.arg | ast.AnnAssign):
        return [node.annotation] if node.annotation is not None else []
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
        return [node.returns]
    return []


def _moved(value: int) -> int:
    return {0: 1, 1: 0}.get(value, value + 1)


class _Apply(ast.NodeTransformer):
    """Applies one change to the node at ``target`` (its position in a fresh walk)."""

    def __init__(self, target: ast.AST, kind: str) -> None:
        self.target, self.kind = target, kind

    def visit(self, node: ast.AST) -> ast.AST | list[ast.stmt] | None:
        if node is not self.target:
            return super().visit(node)
        kind = self.kind
        if kind.startswith("compare:"):
            assert isinstance(node, ast.Compare)
            index = int(kind.split(":")[1])
            node.ops[index] = _COMPARE_SWAP[type(node.ops[index])]()
        elif kind == "const":
            assert isinstance(node, ast.Constant)
            value = node.value
            assert isinstance(value, int)
            node.value = (not value) if isinstance(value, bool) else _moved(value)
        elif kind == "negate":
            assert isinstance(node, ast.If | ast.While | ast.IfExp)
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif kind == "drop-if":
            assert isinstance(node, ast.If)
            return node.orelse or [ast.Pass()]
        elif kind == "boolop":
            assert isinstance(node, ast.BoolOp)
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif kind == "binop":
            assert isinstance(node, ast.BinOp | ast.AugAssign)
            node.op = _BINOP_SWAP[type(node.op)]()
        elif kind == "unary":
            assert isinstance(node, ast.UnaryOp)
            return node.operand
        elif kind == "drop-return":
            return ast.Pass()
        return node


def mutants(source: str, functions: frozenset[str] | None = None) -> list[Mutant]:
    """All single-change mutants of ``source`` (inside ``functions``, when given) that still compile."""
    tree = ast.parse(source)
    found = []
    for index, (node, kind, what) in enumerate(_sites(tree, functions)):
        fresh = ast.parse(source)  # one tree per mutant: the transformer changes it in place
        sites = enumerate(_sites(fresh, functions))
        target = next(site for position, (site, _, _) in sites if position == index)
        mutated = _Apply(target, kind).visit(fresh)
        assert isinstance(mutated, ast.AST)
        text = ast.unparse(ast.fix_missing_locations(mutated))
        try:
            compile(text, "<mutant>", "exec")
        except SyntaxError:
            continue
        found.append(Mutant(getattr(node, "lineno", 0), what, text))
    return found


class _Workspace:
    """A private copy of the code and tests where one mutant at a time is written."""

    def __init__(self, parent: Path) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mutation-", dir=parent)) / "repo"
        ignore = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc")
        shutil.copytree(ROOT / "sudoku_cp", self.root / "sudoku_cp", ignore=ignore)
        shutil.copytree(ROOT / "tests", self.root / "tests", ignore=ignore)
        shutil.copy(ROOT / "pyproject.toml", self.root / "pyproject.toml")
        shared = ROOT.parent / "shared"
        if shared.exists():  # tests read ../shared/data relative to the repository
            (self.root.parent / "shared").symlink_to(shared)

    def run(self, module: str, source: str | None, tests: list[str], timeout: float) -> bool:
        """True when the tests pass with ``source`` in place of ``module`` (None: the original)."""
        path = self.root / module
        original = path.read_text()
        try:
            if source is not None:
                path.write_text(source)
            env = dict(
                os.environ,
                PYTHONPATH=str(self.root),
                PYTHONDONTWRITEBYTECODE="1",
                SUDOKU_CP_HYPOTHESIS="ci",
                SUDOKU_CP_SEED=SEED,
            )
            # -n 0: no xdist workers (pyproject's addopts asks for -n auto; -p no:xdist would
            # leave that option unknown).
            command = [
                sys.executable,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-n",
                "0",
                "-p",
                "no:cacheprovider",
                *tests,
            ]
            try:
                done = subprocess.run(
                    command, cwd=self.root, env=env, capture_output=True, timeout=timeout, check=False
                )
            except subprocess.TimeoutExpired:
                return False  # a mutant that hangs the tests is caught by their time limit
            return done.returncode == 0
        finally:
            path.write_text(original)


def _check_copy_is_used(workspace: _Workspace) -> None:
    """The copy, not the editable install of the working tree, must be what the tests import."""
    env = dict(os.environ, PYTHONPATH=str(workspace.root))
    shown = subprocess.run(
        [sys.executable, "-c", "import sudoku_cp; print(sudoku_cp.__file__)"],
        cwd=workspace.root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not shown.startswith(str(workspace.root)):
        raise SystemExit(f"the tests would import {shown}, not the copy in {workspace.root}")


@dataclass(frozen=True)
class Checked:
    """What one module's run found: ``made`` mutants, every ``sample``-th tested, the survivors."""

    made: int
    sample: int
    tested: int
    killed: int
    survivors: list[Mutant]


def check_module(
    module: str,
    jobs: int,
    limit: int | None,
    parent: Path,
    *,
    sample: int = 1,
    functions: frozenset[str] | None = None,
    lines: frozenset[int] | None = None,
) -> Checked:
    """The mutants of ``module`` (every ``sample``-th, at most ``limit``; on ``lines`` only, when
    given) against its tests."""
    target = TARGETS[module]
    tests = target.pytest_args()
    made = mutants((ROOT / module).read_text(), functions if functions is not None else target.functions)
    if lines is not None:
        made = [mutant for mutant in made if mutant.line in lines]
    all_mutants = made[::sample][:limit]
    spaces = [_Workspace(parent) for _ in range(jobs)]
    _check_copy_is_used(spaces[0])
    start = time.perf_counter()
    if not spaces[0].run(module, None, tests, timeout=600):
        raise SystemExit(f"the tests of {module} fail without any mutant: fix them first")
    timeout = max(30.0, 5 * (time.perf_counter() - start))
    free = list(spaces)
    lock = threading.Lock()

    def one(mutant: Mutant) -> bool:
        with lock:
            space = free.pop()
        began = time.perf_counter()
        alive = False
        try:
            alive = space.run(module, mutant.source, tests, timeout)
            return alive
        finally:
            with lock:
                free.append(space)
                verdict = "SURVIVED" if alive else "killed"
                took = time.perf_counter() - began
                print(
                    f"{module}:{mutant.line}: {mutant.what}: {verdict} ({took:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )

    with ThreadPoolExecutor(jobs) as pool:
        survived = list(pool.map(one, all_mutants))
    survivors = [m for m, alive in zip(all_mutants, survived, strict=True) if alive]
    return Checked(len(made), sample, len(all_mutants), len(all_mutants) - len(survivors), survivors)


def main() -> None:
    """Run the mutation check and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--only", action="append", choices=sorted(TARGETS), help="a module (repeatable)")
    parser.add_argument("--limit", type=int, help="at most this many mutants per module (a quick try)")
    parser.add_argument("--sample", type=int, default=1, help="test every K-th mutant only (default 1: all)")
    parser.add_argument(
        "--functions",
        help="comma-separated functions to mutate ('name' or 'Class.method'), for every module run",
    )
    parser.add_argument(
        "--lines", help="comma-separated lines: only the mutants there (a re-run of earlier survivors)"
    )
    args = parser.parse_args()
    if args.sample < 1:
        parser.error("--sample must be at least 1")
    functions = frozenset(args.functions.split(",")) if args.functions else None
    lines = frozenset(int(line) for line in args.lines.split(",")) if args.lines else None
    modules = args.only or list(TARGETS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="sudoku-cp-mutation-") as scratch:
        for module in modules:
            start = time.perf_counter()
            checked = check_module(
                module,
                args.jobs,
                args.limit,
                Path(scratch),
                sample=args.sample,
                functions=functions,
                lines=lines,
            )
            rows.append((module, checked, time.perf_counter() - start))
    print(f"Machine: {machine()}; load average {load_average()}; hypothesis seed {SEED}\n")
    print("| module | tests | mutants | killed | share | survivors (line: change) | time |")
    print("|---|---|---:|---:|---:|---|---:|")
    for module, checked, seconds in rows:
        listed = "; ".join(f"{m.line}: {m.what}" for m in checked.survivors) or "none"
        total, killed = checked.tested, checked.killed
        count = f"{total}" if total == checked.made else f"{total} of {checked.made}"
        if checked.sample > 1:
            k = checked.sample
            count += f" (every {k}{ {2: 'nd', 3: 'rd'}.get(k, 'th') })"
        where = functions if functions is not None else TARGETS[module].functions
        name = f"`{module}`" + (f" ({len(where)} functions)" if where is not None else "")
        share = f"{100 * killed / total:.0f} %" if total else "-"
        tests = TARGETS[module].describe()
        print(f"| {name} | {tests} | {count} | {killed} | {share} | {listed} | {seconds:.0f} s |")
    for module, _, _ in rows:
        changed = subprocess.run(
            ["git", "diff", "--stat", "--", module], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        print(f"\n`git diff {module}`: {changed or 'unchanged'}")


if __name__ == "__main__":
    main()
