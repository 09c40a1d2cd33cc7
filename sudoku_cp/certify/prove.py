"""The prover: CaDiCaL 1.9.5 through python-sat, with its DRAT proof logged, or a solver program.

python-sat's CaDiCaL is the default: its Maplesat writes proofs that checkers reject, and
python-sat before 1.9.dev16 truncated CaDiCaL's (the dependency floor).  A second prover is any
DIMACS program that writes a text DRAT proof where ``{proof}`` says, e.g. the Debian ``cadical``
(``"cadical -q --no-binary {cnf} {proof}"``) or kissat (``"kissat -q --no-binary {cnf} {proof}"``).
No prover is trusted: every proof is checked (``drat``) before a certificate is reported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..limits import Deadline, TimeLimitReached, solve_limited
from ..outcome import REASON_TIME_LIMIT
from .cnf import CertificateCnf, split_clauses

__all__ = [
    "PROVER",
    "Decision",
    "decide",
    "program_info",
    "prover_info",
    "resolve_prover",
    "wheel_kissat",
    "without_deletions",
]

#: python-sat's name of the prover.
PROVER = "cadical195"


@cache
def prover_info() -> dict[str, str]:
    """The prover's name and versions, as manifests record them."""
    import pysat

    return {"name": "CaDiCaL", "version": "1.9.5", "via": f"python-sat {pysat.__version__} ({PROVER})"}


@dataclass(frozen=True, slots=True)
class Decision:
    """What the prover found: a model (``model``: the true variables, 1-based, sorted) or a
    refutation (``proof``: DRAT text, ending with the empty clause), and its seconds."""

    model: np.ndarray | None
    proof: bytes | None
    seconds: float

    @property
    def satisfiable(self) -> bool:
        """True when the CNF has a model."""
        return self.model is not None


def decide(
    cnf: CertificateCnf, *, proof: bool = True, deadline: Deadline | None = None, prover: str | None = None
) -> Decision:
    """Decide ``cnf`` with CaDiCaL (or the program ``prover``): a model, or (with ``proof``) a DRAT
    refutation.

    Raises ``TimeLimitReached("certification")`` when the deadline stops the solver: an unfinished
    search is never a refutation; ``SolverProgramError`` when a program fails.
    """
    began = time.perf_counter()
    reduced = _reduced(cnf.flat, cnf.n_vars)
    clauses = reduced if reduced is not None else cnf.clauses()
    if prover is not None:
        return _program(prover, clauses, cnf.n_vars, proof, deadline, began)
    from pysat.solvers import Solver

    with Solver(name=PROVER, bootstrap_with=clauses, with_proof=proof) as solver:
        answer = solve_limited(solver, [], deadline)
        if answer is None:
            raise TimeLimitReached("certification")
        if answer:
            model = np.asarray(solver.get_model() or [], dtype=np.int64)
            return Decision(np.sort(model[model > 0]), None, time.perf_counter() - began)
        lines = solver.get_proof() if proof else None
    text = None
    if lines is not None:
        text = ("\n".join(lines) + ("\n" if lines else "")).encode("ascii")
    return Decision(None, text, time.perf_counter() - began)


#: The largest proof read back from a prover program (it is held in memory to be checked).
MAX_PROGRAM_PROOF = 512 * 2**20


def _program(
    command: str,
    clauses: list[list[int]],
    n_vars: int,
    proof: bool,
    deadline: Deadline | None,
    began: float,
) -> Decision:
    """``decide`` by a solver program writing its DRAT proof into the file ``{proof}`` names."""
    import tempfile
    from pathlib import Path

    from ..backends.program import run_solver_program
    from ..cnf.dimacs import SolverProgramError

    with tempfile.TemporaryDirectory(prefix="sudoku_cp_prover_") as folder:
        path = Path(folder) / "proof.drat"
        left = None if deadline is None else deadline.remaining()
        if left is not None and left <= 0:
            raise TimeLimitReached("certification")
        answer = run_solver_program(command, clauses, n_vars, time_limit=left, proof=str(path))
        if answer.satisfiable is None:
            if answer.reason == REASON_TIME_LIMIT:
                raise TimeLimitReached("certification")
            raise SolverProgramError(f"the prover {command!r} gave no answer: {answer.reason}")
        if answer.satisfiable:
            model = np.asarray(answer.model if answer.model is not None else [], dtype=np.int64)
            return Decision(np.sort(model[model > 0]), None, time.perf_counter() - began)
        text = None
        if proof:
            if not path.is_file():
                raise SolverProgramError(
                    f"the prover {command!r} wrote no proof (is {{proof}} in the command?)"
                )
            if path.stat().st_size > MAX_PROGRAM_PROOF:
                raise SolverProgramError(
                    f"the prover {command!r} wrote a proof over {MAX_PROGRAM_PROOF} bytes"
                )
            text = path.read_bytes()
    return Decision(None, text, time.perf_counter() - began)


def wheel_kissat() -> str | None:
    """The kissat program of the ``passagemath-kissat`` wheel, when it is installed (it is not put
    on PATH: it lives in the wheel's ``sage_wheels/bin``)."""
    import importlib.util
    import os

    spec = importlib.util.find_spec("sage_wheels")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = os.path.join(folder, "bin", "kissat")
        if os.access(path, os.X_OK):
            return path
    return None


def resolve_prover(command: str) -> str:
    """``command`` with a program named ``kissat`` that is not on PATH taken from the
    ``passagemath-kissat`` wheel (``pip install 'sudoku_cp[provers]'``)."""
    import shlex
    import shutil

    from ..process import split_command

    words = split_command(command, "prover command")
    if words[0] == "kissat" and shutil.which("kissat") is None and (found := wheel_kissat()) is not None:
        return shlex.join([found, *words[1:]])
    return command


@cache
def program_info(command: str) -> dict[str, str]:
    """A prover program's name and the first line of its ``--version``, as manifests record them."""
    import os

    from ..process import run_program, split_command

    words = split_command(command, "prover command")
    version = "unknown"
    try:
        run = run_program([words[0], "--version"], None, 5.0)
        lines = run.stdout_text.strip().splitlines()
        version = lines[0].strip() if lines else "unknown"
    except Exception:  # a version is a label: a program that cannot say it still proves
        pass
    return {"name": os.path.basename(words[0]), "version": version, "command": command}


def without_deletions(proof: bytes) -> bytes:
    """A text DRAT proof without its deletion lines (those starting with 'd')."""
    if b"d" not in proof:
        return proof
    lines = proof.split(b"\n")
    return b"\n".join(line for line in lines if not line.lstrip().startswith(b"d"))


def _reduced(flat: np.ndarray, n_vars: int) -> list[list[int]] | None:
    """What the solver is given instead of the whole CNF.

    The CNF's unit clauses are propagated through its binary clauses (the givens exclude their
    peers: most of a Sudoku CNF); the clauses this assignment satisfies are left out and every
    assigned literal is given as a unit.  A model of what is left is a model of the CNF (each
    clause left out holds one of the assigned literals).  A refutation of it is one of the CNF as
    it stands: every clause the solver saw is a clause of the CNF or one of those literals, and a
    DRAT checker sets them all when it propagates the CNF's units at its root (so every lemma
    RUP for the solver is RUP for the checker).  The checker has the last word on every proof.
    None when the units clash (the full CNF is refuted by propagation alone) or nothing would
    be left out.
    """
    ends = np.flatnonzero(flat == 0)
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    lengths = ends - starts
    value = np.zeros(n_vars + 1, dtype=np.int8)
    units = flat[starts[lengths == 1]].astype(np.int64)
    value[np.abs(units)] = np.sign(units)
    if (value[np.abs(units)] != np.sign(units)).any():
        return None
    pairs = starts[lengths == 2]
    first, second = flat[pairs].astype(np.int64), flat[pairs + 1].astype(np.int64)
    derived: list[np.ndarray] = []
    while True:
        false_first = value[np.abs(first)] == -np.sign(first)
        false_second = value[np.abs(second)] == -np.sign(second)
        implied = np.concatenate([second[false_first], first[false_second]])
        implied = implied[value[np.abs(implied)] != np.sign(implied)]
        if implied.size == 0:
            break
        implied = np.unique(implied)
        if (value[np.abs(implied)] != 0).any() or np.intersect1d(implied, -implied).size:
            return None  # a clash: the full CNF is refuted by propagation, let the solver see it all
        value[np.abs(implied)] = np.sign(implied)
        derived.append(implied)
    if not derived:
        return None
    signs = np.sign(flat).astype(np.int8)
    true = (flat != 0) & (value[np.abs(flat)] == signs)
    satisfied = np.zeros(lengths.size, dtype=bool)
    nonempty = lengths > 0
    satisfied[nonempty] = np.add.reduceat(true, starts[nonempty]) > 0
    kept = np.repeat(~satisfied, lengths + 1)
    assigned = np.flatnonzero(value).astype(np.int64)
    literals = (assigned * value[assigned]).tolist()
    return [[literal] for literal in literals] + split_clauses(flat[kept])
