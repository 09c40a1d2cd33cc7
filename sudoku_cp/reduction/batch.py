"""Many formulas' reductions verified, one formula per chunk on an executor.

``verify_formulas`` takes the formulas of a campaign (``FormulaSource``: a name and the formula,
or why it could not be read) and gives one JSON-ready report per formula, in input order, run
where an executor says (``sudoku_cp.executor``: this process, local worker processes or a Dask
cluster).  A report is ``verify_reduction``'s, headed by the formula's place in the input
("index", from 0, what a resumed run skips) and its name; an unreadable formula gives status
"invalid", two methods that contradict each other "disagree", a formula that killed its worker
repeatedly "crash".  Each formula is a chunk of its own: building and solving take seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from ..executor import Executor, Work, run_ordered
from .formula import Formula

__all__ = ["FormulaSource", "VerifyOptions", "verify_formulas"]


@dataclass(frozen=True, slots=True)
class FormulaSource:
    """One formula to work on, or the one-line reason it could not be read."""

    name: str
    formula: Formula | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    """``verify_reduction``'s options: Theorem 6.2, the fill, the limit per solve, the closures."""

    nonempty: bool = False
    fill: str = "full"
    time_limit: float | None = None
    closure: bool = False


@dataclass(frozen=True, slots=True)
class _Chunk:
    index: int
    source: FormulaSource
    options: VerifyOptions


def _verify(chunk: _Chunk) -> list[dict[str, Any]]:
    """The report of one formula."""
    from ..nishio.result import NishioDisagreement
    from .check import verify_reduction

    source, options = chunk.source, chunk.options
    head: dict[str, Any] = {"index": chunk.index, "formula": source.name}
    if source.formula is None:
        return [{**head, "status": "invalid", "agree": False, "error": source.error}]
    try:
        report = verify_reduction(
            source.formula,
            nonempty=options.nonempty,
            fill=options.fill,
            time_limit=options.time_limit,
            closure=options.closure,
        )
    except NishioDisagreement as error:
        return [{**head, "status": "disagree", "agree": False, "problems": [str(error)]}]
    return [{**head, **report}]


def _crashed(chunk: _Chunk, why: str) -> list[dict[str, Any]]:
    head = {"index": chunk.index, "formula": chunk.source.name}
    return [{**head, "status": "crash", "agree": False, "error": f"the worker failed: {why}"}]


_WORK: Work[_Chunk, dict[str, Any]] = Work(_verify, _crashed)


def verify_formulas(
    sources: Sequence[FormulaSource],
    options: VerifyOptions = VerifyOptions(),
    *,
    executor: Executor | None = None,
    skip: Container[int] = frozenset(),
    notice: Callable[[str], None] | None = None,
) -> Generator[dict[str, Any], None, None]:
    """One report per formula, in input order (those whose index is in ``skip`` left out); a
    cluster is reached in this call, before any work."""
    chunks = (_Chunk(k, source, options) for k, source in enumerate(sources) if k not in skip)
    return run_ordered(_WORK, chunks, executor, notice=notice)
