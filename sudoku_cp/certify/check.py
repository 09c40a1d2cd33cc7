"""Checking certificates: proofs against regenerated CNFs, solutions and witnesses by the rules.

``check_refutation`` is the one place a proof is judged, by one of two checkers that share no
code with the prover: ``sudoku_cp`` (``drat.check_proof``, compiled, streams any proof in
bounded memory) or ``dratify`` (the pure-Python reference, whose verdicts ours equals on every
proof in the tests).  ``check_certificate`` re-checks a certificate from its manifest alone:
nothing the maker computed is believed, the CNFs are regenerated from the claim
(``encodings/certificates.md``, "Checking").
"""

from __future__ import annotations

import gzip
import hashlib
import os
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..checker import solution_problem
from ..errors import excerpt
from ..executor import Executor, Work, run_ordered
from ..formats import ParseError, parse_line
from ..geometry import Geometry, GeometryError, geometry_for_size, parse_box
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, TimeLimitReached
from .checkers import check_refutation, warm_checker
from .cnf import CertificateCnf, formula_cnf, nishio_cnf, parse_canonical, sudoku_cnf
from .manifest import ManifestError, read_manifest

__all__ = [
    "VERDICTS",
    "CertificateCheck",
    "check_certificate",
    "check_certificates",
    "manifest_paths",
    "placement_problem",
]

if TYPE_CHECKING:  # the checker itself (numba) is imported when a proof is checked
    from .drat import ProofVerdict

_READ = 1 << 20

#: The verdicts on a certificate: it holds, it does not, its manifest cannot be read, or a time
#: limit stopped the check (never a verdict on the claim).
VERDICTS = ("holds", "fails", "unreadable", "unknown")


@dataclass(frozen=True, slots=True)
class CertificateCheck:
    """The verdict on one certificate (one of ``VERDICTS``) and why, in one line."""

    path: str
    claim: str | None
    verdict: str
    reason: str
    seconds: float = 0.0

    @property
    def holds(self) -> bool:
        """True when the certificate holds."""
        return self.verdict == "holds"

    def to_json(self) -> dict[str, Any]:
        """The JSON Lines object of ``check-certificate --json``."""
        return {
            "certificate": self.path,
            "claim": self.claim,
            "verdict": self.verdict,
            "reason": self.reason,
            "seconds": round(self.seconds, 6),
        }


class _Fails(Exception):
    """A certificate that does not hold (internal: becomes a CertificateCheck)."""


def manifest_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The manifests named: files as given, and the ``*.json`` files of each folder (sorted)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(sorted(p for p in path.glob("*.json") if not p.name.startswith(".")))
        else:
            found.append(path)
    return found


def check_certificate(
    path: str | os.PathLike[str], *, checker: str = "sudoku_cp", deadline: Deadline | None = None
) -> CertificateCheck:
    """Re-check the certificate whose manifest is ``path``.

    Raises ``ManifestError`` for a file that is not a readable manifest of this version and
    ``TimeLimitReached`` when the deadline stops a proof check; every other problem is a
    certificate that does not hold.
    """
    began = time.perf_counter()
    manifest = read_manifest(path)
    claim = str(manifest["claim"])
    folder = Path(path).parent
    try:
        if claim == "closure":
            reason = _check_closure(manifest, folder, checker, deadline)
        elif claim == "formula":
            reason = _check_formula(manifest, folder, checker, deadline)
        else:
            reason = _check_sudoku(manifest, folder, checker, deadline)
    except _Fails as failure:
        return CertificateCheck(str(path), claim, "fails", str(failure), time.perf_counter() - began)
    return CertificateCheck(str(path), claim, "holds", reason, time.perf_counter() - began)


def _check_one(path: str, checker: str, time_limit: float | None) -> CertificateCheck:
    """``check_certificate`` with every outcome as a verdict: unreadable, unknown (time limit)."""
    began = time.perf_counter()
    try:
        return check_certificate(path, checker=checker, deadline=Deadline(time_limit))
    except ManifestError as error:
        return CertificateCheck(path, None, "unreadable", str(error), time.perf_counter() - began)
    except (TimeLimitReached, ModelTooLarge) as error:  # no verdict: the check could not be made
        return CertificateCheck(path, None, "unknown", str(error), time.perf_counter() - began)


def _check_chunk(chunk: tuple[list[str], str, float | None]) -> list[CertificateCheck]:
    paths, checker, time_limit = chunk
    return [_check_one(path, checker, time_limit) for path in paths]


def _check_crashed(chunk: tuple[list[str], str, float | None], why: str) -> list[CertificateCheck]:
    return [CertificateCheck(path, None, "unknown", f"the check crashed: {why}") for path in chunk[0]]


def check_certificates(
    paths: Iterable[str | os.PathLike[str]],
    *,
    checker: str = "sudoku_cp",
    time_limit: float | None = None,
    executor: Executor | None = None,
    chunk: int = 8,
) -> Iterator[CertificateCheck]:
    """Check each manifest (``manifest_paths``), in order, one verdict each, on ``executor``;
    ``time_limit``: seconds for each certificate (the checker's compilation is not counted)."""
    source = iter([str(path) for path in paths])
    chunks = iter(lambda: list(islice(source, chunk)), [])
    tasks = ((part, checker, time_limit) for part in chunks)
    return run_ordered(
        Work(_check_chunk, _check_crashed, warm_checker, (checker,)), tasks, executor or Executor()
    )


def _geometry(manifest: dict[str, Any]) -> Geometry:
    try:
        p, q = parse_box(manifest["box"])
        return geometry_for_size(p * q, (p, q))
    except GeometryError as error:
        raise _Fails(f'"box": {error}') from None


def _grid(manifest: dict[str, Any], key: str, geometry: Geometry, text: object | None = None) -> Grid:
    value = manifest.get(key) if text is None else text
    if not isinstance(value, str):
        raise _Fails(f'"{key}" must be a grid in one-line form, got {excerpt(value)}')
    try:
        grid = parse_line(value, (geometry.p, geometry.q))
    except ParseError as error:
        raise _Fails(f'"{key}": {error}') from None
    if grid.geometry != geometry:
        raise _Fails(f'"{key}" is a {grid.n}x{grid.n} grid, not one with {geometry.box_label} boxes')
    return grid


def _solution(puzzle: Grid, manifest: dict[str, Any], key: str, text: object | None = None) -> Grid:
    solution = _grid(manifest, key, puzzle.geometry, text)
    problem = solution_problem(puzzle, solution)
    if problem is not None:
        raise _Fails(f'"{key}" is not a solution of the puzzle: {problem}')
    return solution


def _check_sudoku(manifest: dict[str, Any], folder: Path, checker: str, deadline: Deadline | None) -> str:
    geometry = _geometry(manifest)
    puzzle = _grid(manifest, "puzzle", geometry)
    claim = manifest["claim"]
    if claim == "multiple":
        pair = manifest.get("solutions")
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Fails(f'"solutions" must hold two solutions, got {excerpt(pair)}')
        first = _solution(puzzle, manifest, "solutions", pair[0])
        second = _solution(puzzle, manifest, "solutions", pair[1])
        if first == second:
            raise _Fails('the two "solutions" are the same grid')
        return "two different solutions, both valid"
    solution = _solution(puzzle, manifest, "solution") if claim == "unique" else None
    cnf = sudoku_cnf(puzzle, solution)
    verdict = _check_files(manifest, folder, cnf, checker, deadline)
    what = "no second solution" if claim == "unique" else "no solution"
    return f"{what}: {verdict.reason}"


def _file(folder: Path, name: object, key: str) -> Path:
    """The file a manifest names, which must lie in the manifest's folder."""
    if not isinstance(name, str) or not name or name != os.path.basename(name) or name in (".", ".."):
        raise _Fails(f'"{key}" must be a file name in the certificate\'s folder, got {excerpt(name)}')
    path = folder / name
    if not path.is_file():
        raise _Fails(f'"{key}": {name} is missing')
    return path


def _sha256(path: Path) -> str:
    """SHA-256 of a file's content, uncompressed when it is gzip (read in pieces: bounded memory)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as raw:
            packed = raw.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if packed else open(path, "rb") as source:
            while piece := source.read(_READ):
                digest.update(piece)
    except (OSError, EOFError, zlib.error) as error:
        raise _Fails(f"{path.name} cannot be read: {excerpt(str(error), 80, quote=False)}") from None
    return digest.hexdigest()


def _check_files(
    entry: dict[str, Any], folder: Path, cnf: CertificateCnf, checker: str, deadline: Deadline | None
) -> ProofVerdict:
    """Check one (cnf, cnf_sha256, proof) triple against the regenerated ``cnf``."""
    expected = cnf.sha256()
    if entry.get("cnf_sha256") != expected:
        raise _Fails(
            f'"cnf_sha256" {excerpt(entry.get("cnf_sha256"), 20)} is not the hash of the CNF the claim '
            f"regenerates ({expected[:16]}...)"
        )
    cnf_path = _file(folder, entry.get("cnf"), "cnf")
    if _sha256(cnf_path) != expected:
        raise _Fails(f"{cnf_path.name} is not the CNF the claim regenerates (its SHA-256 differs)")
    proof_path = _file(folder, entry.get("proof"), "proof")
    verdict = check_refutation(cnf, proof_path, checker=checker, deadline=deadline)
    if not verdict.holds:
        raise _Fails(f"{proof_path.name}: {verdict.reason}")
    return verdict


def _cells(value: object, key: str, n: int) -> list[tuple[int, int]]:
    """A list of 1-based [R, C] pairs as 0-based tuples."""
    if not isinstance(value, list):
        raise _Fails(f'"{key}" must be a list of [row, column] pairs, got {excerpt(value)}')
    cells = []
    for cell in value:
        ok = isinstance(cell, list) and len(cell) == 2
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= n for v in cell)
        if not ok:
            raise _Fails(f'"{key}" holds {excerpt(cell)}, not a [row, column] pair within 1..{n}')
        cells.append((cell[0] - 1, cell[1] - 1))
    return cells


def _mask(cells: list[tuple[int, int]], n: int) -> np.ndarray:
    mask = np.zeros((n, n), dtype=bool)
    for r, c in cells:
        mask[r, c] = True
    return mask


def placement_problem(geometry: Geometry, inside: np.ndarray, cells: list[tuple[int, int]]) -> str | None:
    """Why ``cells`` is not n cells of S, one per row, column and box (None when it is)."""
    n = geometry.n
    if len(cells) != n:
        return f"{len(cells)} cells, not {n}"
    for r, c in cells:
        if not inside[r, c]:
            return f"R{r + 1}C{c + 1} is not in S"
    for name, keys in (
        ("row", [r for r, _ in cells]),
        ("column", [c for _, c in cells]),
        ("box", [(r // geometry.p) * geometry.p + c // geometry.q for r, c in cells]),
    ):
        if len(set(keys)) != n:
            return f"two cells share a {name}"
    return None


def _check_closure(manifest: dict[str, Any], folder: Path, checker: str, deadline: Deadline | None) -> str:
    geometry = _geometry(manifest)
    n = geometry.n
    instance = _mask(_cells(manifest.get("instance"), "instance", n), n)
    closure = _mask(_cells(manifest.get("closure"), "closure", n), n)
    if (closure & ~instance).any():
        r, c = np.argwhere(closure & ~instance)[0]
        raise _Fails(f"the closure holds R{r + 1}C{c + 1}, which is not in S")
    witnesses = manifest.get("witnesses")
    if not isinstance(witnesses, list):
        raise _Fails(f'"witnesses" must be a list of placements, got {excerpt(witnesses)}')
    covered = np.zeros((n, n), dtype=bool)
    for k, witness in enumerate(witnesses, 1):
        cells = _cells(witness, f"witnesses[{k}]", n)
        problem = placement_problem(geometry, instance, cells)
        if problem is not None:
            raise _Fails(f"witness {k} is not a valid placement inside S: {problem}")
        covered |= _mask(cells, n)
    if (covered != closure).any():
        r, c = np.argwhere(covered != closure)[0]
        where = "is in a witness but not in the closure" if covered[r, c] else "is in no witness"
        raise _Fails(f"R{r + 1}C{c + 1} of the closure {where}")
    eliminated = manifest.get("eliminated")
    if not isinstance(eliminated, list):
        raise _Fails(f'"eliminated" must be a list, got {excerpt(eliminated)}')
    seen = np.zeros((n, n), dtype=bool)
    for entry in eliminated:
        if not isinstance(entry, dict):
            raise _Fails(f'"eliminated" holds {excerpt(entry)}, not an object')
        (r, c), *rest = _cells([entry.get("cell")], "eliminated cell", n)
        if not instance[r, c] or closure[r, c] or seen[r, c]:
            why = "not in S" if not instance[r, c] else "in the closure" if closure[r, c] else "listed twice"
            raise _Fails(f"eliminated cell R{r + 1}C{c + 1} is {why}")
        seen[r, c] = True
        try:
            _check_files(entry, folder, nishio_cnf(geometry, instance, (r, c)), checker, deadline)
        except _Fails as failure:
            raise _Fails(f"eliminated cell R{r + 1}C{c + 1}: {failure}") from None
    missing = instance & ~closure & ~seen
    if missing.any():
        r, c = np.argwhere(missing)[0]
        raise _Fails(f"R{r + 1}C{c + 1} is in S, not in the closure, and has no refutation")
    return (
        f"closure of {int(closure.sum())} cells covered by {len(witnesses)} placements, "
        f"{int(seen.sum())} eliminations refuted"
    )


#: The largest CNF file (uncompressed) a formula certificate may name: it is read whole.
MAX_FORMULA_BYTES = 256 * 2**20


def _check_formula(manifest: dict[str, Any], folder: Path, checker: str, deadline: Deadline | None) -> str:
    """A 'formula' claim: its CNF is its object (not regenerated), canonical, hashed, refuted."""
    path = _file(folder, manifest.get("cnf"), "cnf")
    try:
        with open(path, "rb") as raw:
            packed = raw.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if packed else open(path, "rb") as source:
            text = source.read(MAX_FORMULA_BYTES + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise _Fails(f"{path.name} cannot be read: {excerpt(str(error), 80, quote=False)}") from None
    if len(text) > MAX_FORMULA_BYTES:
        raise _Fails(f"{path.name} is larger than {MAX_FORMULA_BYTES} bytes")
    try:
        variables, clauses = parse_canonical(text)
    except ValueError as error:
        raise _Fails(str(error)) from None
    if manifest.get("variables") != variables or manifest.get("clauses") != len(clauses):
        raise _Fails('"variables" and "clauses" differ from the CNF\'s header')
    cnf = formula_cnf(variables, clauses)
    if cnf.text() != text:
        raise _Fails("the CNF is not in the canonical DIMACS form")
    verdict = _check_files(manifest, folder, cnf, checker, deadline)
    return f"formula of {variables} variables and {len(clauses)} clauses refuted: {verdict.reason}"
