"""The ``formula`` claim: a CNF formula (given as DIMACS clauses) has no model.

Used by ``reduce --verify --certify``: an unsatisfiable input formula is certified by a DRAT
refutation of its own CNF, written in the canonical DIMACS form of ``encodings/certificates.md``
(header ``p cnf V M``, the clauses in the formula's order, literals as given).  The CNF is the
object of the claim, so the checker reads it from its file (its hash must be ``cnf_sha256``),
checks that it is canonical DIMACS, and checks the proof against it.
"""

from __future__ import annotations

import gzip
import hashlib
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..limits import Deadline
from .checkers import check_refutation, checker_info
from .cnf import CertificateCnf, compress
from .manifest import FORMAT, VERSION, Certificate, CertificateError, manifest_stem
from .prove import decide, program_info, prover_info

__all__ = ["MAX_CNF_BYTES", "certify_formula", "check_formula", "formula_cnf"]

#: The largest CNF file (uncompressed) a formula certificate may name.
MAX_CNF_BYTES = 256 * 2**20


def formula_cnf(num_vars: int, clauses: Sequence[Sequence[int]]) -> CertificateCnf:
    """The certificate CNF of a formula: its clauses in order, each ended by 0."""
    if any(literal == 0 or abs(literal) > num_vars for clause in clauses for literal in clause):
        raise ValueError(f"a literal is outside 1..{num_vars} or negated")
    parts = [np.asarray([*clause, 0], dtype=np.int32) for clause in clauses]
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    return CertificateCnf(flat, num_vars)


def certify_formula(
    num_vars: int,
    clauses: Sequence[Sequence[int]],
    *,
    source: str | None = None,
    checker: str = "sudoku_cp",
    deadline: Deadline | None = None,
    prover: str | None = None,
) -> Certificate:
    """The certificate that the formula has no model (``source``: its name, recorded as given).
    Raises CertificateError when it has one or the proof does not check, TimeLimitReached on the
    deadline."""
    began = time.perf_counter()
    cnf = formula_cnf(num_vars, clauses)
    stem = manifest_stem("formula", cnf.sha256())
    decision = decide(cnf, proof=True, deadline=deadline, prover=prover)
    if decision.model is not None:
        raise CertificateError("claim 'formula' not certified: the formula has a model")
    if decision.proof is None:
        raise CertificateError("claim 'formula' not certified: the prover wrote no proof")
    verdict = check_refutation(cnf, decision.proof, checker=checker, deadline=deadline)
    if not verdict.holds:
        raise CertificateError(
            f"claim 'formula' not certified: the prover's refutation does not check ({verdict.reason})"
        )
    from .. import __version__

    manifest: dict[str, Any] = {"format": FORMAT, "version": VERSION, "claim": "formula"}
    if source is not None:
        manifest["source"] = source
    manifest["variables"] = int(num_vars)
    manifest["clauses"] = len(clauses)
    manifest["cnf"] = f"{stem}.cnf.gz"
    manifest["cnf_sha256"] = cnf.sha256()
    manifest["proof"] = f"{stem}.drat.gz"
    manifest["solver"] = prover_info() if prover is None else program_info(prover)
    manifest["checker"] = checker_info(checker)
    manifest["seconds"] = round(time.perf_counter() - began, 6)
    manifest["created_by"] = f"sudoku_cp {__version__}"
    files = {manifest["cnf"]: cnf.gzip(), manifest["proof"]: compress(decision.proof)}
    return Certificate(stem, manifest, files)


def _read(folder: Path, name: object, key: str) -> bytes:
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f'"{key}" must be a file name in the manifest\'s folder')
    path = folder / name
    try:
        with open(path, "rb") as source:
            raw = source.read(MAX_CNF_BYTES + 1)
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as packed:
                raw = packed.read(MAX_CNF_BYTES + 1)
    except FileNotFoundError:
        raise ValueError(f"{name}: no such file") from None
    except (OSError, EOFError, zlib.error) as error:
        raise ValueError(f"{name}: cannot be read ({error})") from None
    if len(raw) > MAX_CNF_BYTES:
        raise ValueError(f"{name}: larger than {MAX_CNF_BYTES} bytes")
    return raw


def _parse_canonical(text: bytes) -> tuple[int, list[list[int]]]:
    """(V, clauses) of canonical DIMACS text; ValueError when it is not canonical."""
    try:
        lines = text.decode("ascii").split("\n")
    except UnicodeDecodeError:
        raise ValueError("the CNF is not ASCII text") from None
    if not lines or lines[-1] != "":
        raise ValueError("the CNF does not end with a newline")
    head = lines[0].split(" ")
    if len(head) != 4 or head[:2] != ["p", "cnf"] or not all(part.isdigit() for part in head[2:]):
        raise ValueError("the CNF's first line is not 'p cnf V M'")
    variables, count = int(head[2]), int(head[3])
    clauses = []
    for number, line in enumerate(lines[1:-1], start=2):
        words = line.split(" ")
        if words[-1] != "0" or not all(w.lstrip("-").isdigit() and w not in ("-0", "0") for w in words[:-1]):
            raise ValueError(f"the CNF's line {number} is not a clause ended by ' 0'")
        clause = [int(w) for w in words[:-1]]
        if any(abs(literal) > variables for literal in clause):
            raise ValueError(f"the CNF's line {number} has a literal outside 1..{variables}")
        clauses.append(clause)
    if len(clauses) != count:
        raise ValueError(f"the CNF's header says {count} clauses, it holds {len(clauses)}")
    return variables, clauses


def check_formula(
    manifest: dict[str, Any], folder: Path, *, checker: str = "sudoku_cp", deadline: Deadline | None = None
) -> tuple[bool, str]:
    """(holds, why) for a 'formula' manifest whose files are in ``folder``."""
    try:
        text = _read(folder, manifest.get("cnf"), "cnf")
        digest = hashlib.sha256(text).hexdigest()
        if manifest.get("cnf_sha256") != digest:
            return False, "the CNF's SHA-256 differs from cnf_sha256"
        variables, clauses = _parse_canonical(text)
        if manifest.get("variables") != variables or manifest.get("clauses") != len(clauses):
            return False, "the manifest's variables and clauses differ from the CNF's header"
        cnf = formula_cnf(variables, clauses)
        if cnf.text() != text:
            return False, "the CNF is not in canonical DIMACS form"
        proof = manifest.get("proof")
        _read(folder, proof, "proof")  # names a readable file in the folder
    except ValueError as error:
        return False, str(error)
    verdict = check_refutation(cnf, folder / str(proof), checker=checker, deadline=deadline)
    if not verdict.holds:
        return False, f"the proof does not refute the CNF ({verdict.reason})"
    return True, f"formula of {variables} variables and {len(clauses)} clauses refuted"
