"""Making certificates: each claim re-decided by the prover on the trusted CNF, its proof checked.

Nothing an engine answered is believed here.  A claim (``unsat``, ``unique``, ``multiple``,
``closure``) is decided again by CaDiCaL on the certificate CNFs of ``cnf.py``; a refutation is
checked (``check.check_refutation``) before the certificate is returned.  A claim the prover
finds false, or a proof that does not check, raises ``CertificateError`` naming the claim: the
caller reports it, never a certificate.  Certificates are made in memory (a worker process makes
them, the process that owns the folder writes them with ``manifest.write_certificate``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..checker import solution_problem
from ..cnf.dimacs import SolverProgramError
from ..formats import format_line
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline
from .check import placement_problem
from .checkers import check_refutation, checker_info
from .cnf import CertificateCnf, compress, formula_cnf, nishio_cnf, sudoku_cnf
from .manifest import FORMAT, VERSION, Certificate, CertificateError, manifest_stem
from .prove import Decision, decide, program_info, prover_info, without_deletions

__all__ = ["SUDOKU_CLAIMS", "certify_closure", "certify_formula", "certify_sudoku"]

SUDOKU_CLAIMS = ("unsat", "unique", "multiple")


def _head(claim: str, geometry: Geometry) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "claim": claim, "box": geometry.box_label}


def _tail(manifest: dict[str, Any], checker: str, prover: str | None, began: float) -> dict[str, Any]:
    from .. import __version__

    manifest["solver"] = prover_info() if prover is None else program_info(prover)
    manifest["checker"] = checker_info(checker)
    manifest["seconds"] = round(time.perf_counter() - began, 6)
    manifest["created_by"] = f"sudoku_cp {__version__}"
    return manifest


def _grid_from_model(geometry: Geometry, model: np.ndarray) -> Grid:
    """The grid of a model of the Sudoku CNF (its true variables x(R, C, D))."""
    n = geometry.n
    true = model[(model >= 1) & (model <= n**3)] - 1
    values = np.zeros(n * n, dtype=np.int64)
    values[true // n] = true % n + 1
    return Grid(geometry, values.reshape(n, n))


def _refuted(
    cnf: CertificateCnf, decision: Decision, checker: str, deadline: Deadline | None, stem: str
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Check the prover's refutation of ``cnf``: the manifest's (cnf, cnf_sha256, proof) and the files."""
    if decision.proof is None:
        raise CertificateError("the prover wrote no proof")
    # Deletions only make checking faster: a refutation by RUP lemmas stays one without them, at a
    # third of the size.  A proof that needs them (RAT lemmas) is kept whole; the checker decides.
    proof = without_deletions(decision.proof)
    verdict = check_refutation(cnf, proof, checker=checker, deadline=deadline)
    if not verdict.holds and len(proof) < len(decision.proof):
        proof = decision.proof
        verdict = check_refutation(cnf, proof, checker=checker, deadline=deadline)
    if not verdict.holds:
        raise CertificateError(f"the prover's refutation does not check ({verdict.reason})")
    entry = {"cnf": f"{stem}.cnf.gz", "cnf_sha256": cnf.sha256(), "proof": f"{stem}.drat.gz"}
    return entry, {entry["cnf"]: cnf.gzip(), entry["proof"]: compress(proof, 9)}


def certify_sudoku(
    puzzle: Grid,
    claim: str,
    solution: Grid | None = None,
    *,
    checker: str = "sudoku_cp",
    deadline: Deadline | None = None,
    prover: str | None = None,
) -> Certificate:
    """The certificate of ``claim`` about ``puzzle``: 'unsat', 'unique' (of ``solution``, found
    here when None) or 'multiple'.  Raises CertificateError when the claim is false or its proof
    does not check, and TimeLimitReached when the deadline stops the prover or the checker."""
    if claim not in SUDOKU_CLAIMS:
        raise ValueError(f"unknown Sudoku claim {claim!r} (one of {', '.join(SUDOKU_CLAIMS)})")
    began = time.perf_counter()
    geometry = puzzle.geometry
    line = format_line(puzzle)
    stem = manifest_stem(claim, f"{geometry.box_label} {line}")
    manifest = _head(claim, geometry)
    manifest["puzzle"] = line
    files: dict[str, bytes] = {}
    try:
        if claim == "unsat":
            cnf = sudoku_cnf(puzzle)
            found = decide(cnf, proof=True, deadline=deadline, prover=prover)
            if found.model is not None:
                shown = format_line(_grid_from_model(geometry, found.model))
                raise CertificateError(f"the puzzle has a solution: {shown}")
            entry, files = _refuted(cnf, found, checker, deadline, stem)
            manifest.update(entry)
        else:
            if solution is None:
                found = decide(sudoku_cnf(puzzle), proof=False, deadline=deadline, prover=prover)
                if found.model is None:
                    raise CertificateError("the puzzle has no solution")
                solution = _grid_from_model(geometry, found.model)
            problem = solution_problem(puzzle, solution)
            if problem is not None:
                raise CertificateError(f"the solution given is wrong: {problem}")
            blocked = sudoku_cnf(puzzle, solution)
            if claim == "unique":
                second = decide(blocked, proof=True, deadline=deadline, prover=prover)
                if second.model is not None:
                    shown = format_line(_grid_from_model(geometry, second.model))
                    raise CertificateError(f"the puzzle has a second solution: {shown}")
                entry, files = _refuted(blocked, second, checker, deadline, stem)
                manifest["solution"] = format_line(solution)
                manifest.update(entry)
            else:
                second = decide(blocked, proof=False, deadline=deadline, prover=prover)
                if second.model is None:
                    raise CertificateError("the puzzle has exactly one solution")
                other = _grid_from_model(geometry, second.model)
                problem = solution_problem(puzzle, other)
                if problem is not None or other == solution:
                    why = problem or "the same grid"
                    raise CertificateError(f"the prover's second solution is wrong: {why}")
                manifest["solutions"] = [format_line(solution), format_line(other)]
                manifest.update({"cnf": None, "cnf_sha256": None, "proof": None})
    except (CertificateError, SolverProgramError) as error:
        raise CertificateError(f"claim '{claim}' not certified: {error}") from None
    return Certificate(stem, _tail(manifest, checker, prover, began), files)


def _cell_list(mask: np.ndarray) -> list[list[int]]:
    return [[int(r) + 1, int(c) + 1] for r, c in np.argwhere(mask)]


def certify_closure(
    geometry: Geometry,
    mask: np.ndarray,
    closure: np.ndarray,
    *,
    digit: int | None = None,
    checker: str = "sudoku_cp",
    deadline: Deadline | None = None,
    prover: str | None = None,
) -> Certificate:
    """The certificate that ``closure`` is S' of the Nishio instance S (``mask``; both (n, n) bool):
    witness placements covering it, a checked refutation for every other cell of S.  Raises
    CertificateError naming a cell where the claimed closure is wrong."""
    began = time.perf_counter()
    n = geometry.n
    inside = np.asarray(mask, dtype=bool).reshape(n, n)
    claimed = np.asarray(closure, dtype=bool).reshape(n, n)
    cells = _cell_list(inside)
    key = f"{geometry.box_label} " + ";".join(f"{r},{c}" for r, c in cells) + f" {digit or 0}"
    stem = manifest_stem("closure", key)
    manifest = _head("closure", geometry)
    manifest["instance"] = cells
    if digit is not None:
        manifest["digit"] = int(digit)
    covered = np.zeros((n, n), dtype=bool)
    witnesses: list[list[list[int]]] = []
    eliminated: list[dict[str, Any]] = []
    files: dict[str, bytes] = {}
    for r, c in np.argwhere(inside).tolist():
        if covered[r, c]:
            continue
        cnf = nishio_cnf(geometry, inside, (r, c))
        decision = decide(cnf, proof=True, deadline=deadline, prover=prover)
        if decision.model is not None:
            true = decision.model[(decision.model >= 1) & (decision.model <= n * n)] - 1
            placement = np.zeros((n, n), dtype=bool)
            placement.reshape(-1)[true] = True
            placement &= inside  # cells outside S occur in no clause: the prover sets them freely
            problem = placement_problem(
                geometry, inside, [(int(a), int(b)) for a, b in np.argwhere(placement)]
            )
            if problem is not None:
                raise CertificateError(f"the prover's placement through R{r + 1}C{c + 1} is wrong: {problem}")
            if not claimed[r, c]:
                raise CertificateError(
                    f"claim 'closure' not certified: R{r + 1}C{c + 1} lies in a placement "
                    "but not in the closure"
                )
            covered |= placement
            witnesses.append(_cell_list(placement))
            continue
        name = f"R{r + 1}C{c + 1}"
        if claimed[r, c]:
            raise CertificateError(
                f"claim 'closure' not certified: {name} is in the closure but in no placement"
            )
        try:
            entry, cell_files = _refuted(cnf, decision, checker, deadline, f"{stem}-r{r + 1}c{c + 1}")
        except CertificateError as error:
            raise CertificateError(f"claim 'closure' not certified: {name}: {error}") from None
        files.update(cell_files)
        eliminated.append({"cell": [r + 1, c + 1], **entry})
    if (covered != claimed).any():
        r, c = np.argwhere(covered != claimed)[0]
        raise CertificateError(
            f"claim 'closure' not certified: the closure and the placements differ at R{r + 1}C{c + 1}"
        )
    manifest["closure"] = _cell_list(covered)
    manifest["witnesses"] = witnesses
    manifest["eliminated"] = eliminated
    return Certificate(stem, _tail(manifest, checker, prover, began), files)


def certify_formula(
    num_vars: int,
    clauses: Sequence[Sequence[int]],
    *,
    source: str | None = None,
    checker: str = "sudoku_cp",
    deadline: Deadline | None = None,
    prover: str | None = None,
) -> Certificate:
    """The certificate that a CNF formula has no model (the ``formula`` claim; ``source``: its name,
    recorded as given).  Raises CertificateError when it has one or the proof does not check,
    TimeLimitReached on the deadline."""
    began = time.perf_counter()
    cnf = formula_cnf(num_vars, clauses)
    stem = manifest_stem("formula", cnf.sha256())
    manifest: dict[str, Any] = {"format": FORMAT, "version": VERSION, "claim": "formula"}
    if source is not None:
        manifest["source"] = source
    manifest["variables"] = int(num_vars)
    manifest["clauses"] = len(clauses)
    try:
        decision = decide(cnf, proof=True, deadline=deadline, prover=prover)
        if decision.model is not None:
            raise CertificateError("the formula has a model")
        entry, files = _refuted(cnf, decision, checker, deadline, stem)
    except (CertificateError, SolverProgramError) as error:
        raise CertificateError(f"claim 'formula' not certified: {error}") from None
    manifest.update(entry)
    return Certificate(stem, _tail(manifest, checker, prover, began), files)
