"""Certifying a batch of claims on any executor; the certificates written by this process.

Workers (this process, ``--jobs`` processes or a Dask cluster) make each certificate in memory
and send it back; this process writes it into the folder (so a cluster needs no shared disk) and
answers each claim, in input order, with a ``Certified``: the manifest's path, or why the claim
could not be certified (false, a proof that does not check) or is unknown (its time limit).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

import numpy as np

from ..executor import Executor, Work, run_ordered
from ..formats import parse_line
from ..geometry import geometry_for_size
from ..limits import Deadline, ModelTooLarge, TimeLimitReached
from .checkers import warm_checker
from .manifest import Certificate, CertificateError, write_certificate

__all__ = ["CHUNK", "Certified", "ClaimItem", "certify_claims"]

#: Claims per chunk sent to a worker.
CHUNK = 16


@dataclass(frozen=True, slots=True)
class ClaimItem:
    """One claim to certify: about a puzzle (``puzzle`` and, for 'unique', ``solution`` in one-line
    form) or, for 'closure', about a Nishio instance (``mask``, ``closure``; ``digit`` optional)."""

    claim: str
    box: tuple[int, int]
    puzzle: str | None = None
    solution: str | None = None
    mask: np.ndarray | None = None
    closure: np.ndarray | None = None
    digit: int | None = None


@dataclass(frozen=True, slots=True)
class Certified:
    """The answer for one claim: ``path`` of the manifest written, or ``error`` (with ``unknown``
    True when a time limit stopped the work rather than the claim failing)."""

    path: str | None
    error: str | None = None
    unknown: bool = False
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class _Made:
    certificate: Certificate | None
    error: str | None = None
    unknown: bool = False


def make_certificate(
    item: ClaimItem, *, checker: str, time_limit: float | None, prover: str | None = None
) -> _Made:
    """Make the certificate of one claim (in memory); a failure or a time limit is an answer."""
    from .make import certify_closure, certify_sudoku

    deadline = Deadline(time_limit)
    try:
        p, q = item.box
        if item.claim == "closure":
            if item.mask is None or item.closure is None:
                raise CertificateError("a closure claim needs its instance and its closure")
            geometry = geometry_for_size(p * q, item.box)
            made = certify_closure(
                geometry,
                item.mask,
                item.closure,
                digit=item.digit,
                checker=checker,
                deadline=deadline,
                prover=prover,
            )
        else:
            if item.puzzle is None:
                raise CertificateError(f"a '{item.claim}' claim needs its puzzle")
            puzzle = parse_line(item.puzzle, item.box)
            solution = None if item.solution is None else parse_line(item.solution, item.box)
            made = certify_sudoku(
                puzzle, item.claim, solution, checker=checker, deadline=deadline, prover=prover
            )
    except (CertificateError, ModelTooLarge) as error:
        why = (
            str(error)
            if isinstance(error, CertificateError)
            else f"claim '{item.claim}' not certified: {error}"
        )
        return _Made(None, why)
    except TimeLimitReached as error:
        return _Made(None, f"claim '{item.claim}' not certified: {error}", unknown=True)
    return _Made(made)


_Chunk = tuple[list[ClaimItem], str, float | None, str | None]


def _run_chunk(chunk: _Chunk) -> list[_Made]:
    items, checker, time_limit, prover = chunk
    return [make_certificate(item, checker=checker, time_limit=time_limit, prover=prover) for item in items]


def _crashed(chunk: _Chunk, why: str) -> list[_Made]:
    return [_Made(None, f"claim '{item.claim}' not certified: {why}", unknown=True) for item in chunk[0]]


def certify_claims(
    items: Iterable[ClaimItem],
    directory: str | os.PathLike[str],
    *,
    checker: str = "sudoku_cp",
    time_limit: float | None = None,
    executor: Executor | None = None,
    chunk: int = CHUNK,
    prover: str | None = None,
) -> Iterator[Certified]:
    """Certify each claim, in input order: write its certificate into ``directory`` and answer
    with the manifest's path, or with why it could not be certified.  ``time_limit``: seconds
    for each claim (the checker's compilation is not counted); ``prover``: a solver program
    command (``prove.decide``) instead of python-sat's CaDiCaL."""
    executor = executor or Executor()
    if executor.cluster is None:
        # Local workers are forked from this process: compiled here once, the checker is theirs.
        warm_checker(checker)
    source = iter(items)
    chunks = iter(lambda: list(islice(source, chunk)), [])
    tasks = ((part, checker, time_limit, prover) for part in chunks)
    made = run_ordered(Work(_run_chunk, _crashed, warm_checker, (checker,)), tasks, executor)
    for one in made:
        if one.certificate is None:
            yield Certified(None, one.error, one.unknown)
            continue
        path = write_certificate(directory, one.certificate)
        yield Certified(str(path), seconds=float(one.certificate.manifest.get("seconds", 0.0)))
