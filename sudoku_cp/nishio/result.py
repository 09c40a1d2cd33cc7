"""One method's answer about one instance (``NishioResult``), its JSON form, and the disagreement error.

The outcome follows ``sudoku_cp.outcome``: ``status`` is ``SOLVED`` when S holds a placement,
``UNSAT`` when it holds none, and ``UNKNOWN`` with a ``reason`` otherwise: the method was stopped
(its closure is then None too), or it does not decide (the matching relaxation, whose closure is
still an answer).  The JSON form keeps the command line's words: ``"status": "ok"`` for an
answered closure, ``"unknown"`` for a stopped method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SudokuCpError
from ..outcome import Status
from .instance import NishioInstance
from .method import NishioCount

__all__ = ["REASON_RELAXATION", "NishioDisagreement", "NishioResult", "json_seconds"]

#: Why the matching relaxation's decision is unknown.
REASON_RELAXATION = "the matching relaxation does not decide whether S holds a placement"

_SATISFIABLE = {Status.SOLVED: True, Status.UNSAT: False}


class NishioDisagreement(SudokuCpError):
    """Two Nishio methods, or one method and the instance, gave contradicting answers (a bug in one)."""


def json_seconds(seconds: float) -> float:
    """Seconds as written in JSON: rounded to the nanosecond (a batch query takes well under 1 us)."""
    return round(seconds, 9)


@dataclass(frozen=True, slots=True, eq=False)
class NishioResult:
    """One method's answer about one instance.

    ``status``/``reason``: the decision (see the module docstring); ``closure``: S' as an (n, n)
    bool mask (S'' for the matching relaxation; None when the method was stopped); ``count``: the
    placement count when asked; ``witness``: a checked placement (column per row) when one was found.
    """

    instance: NishioInstance
    method: str
    exact: bool
    status: Status
    closure: np.ndarray | None
    count: NishioCount | None = None
    witness: np.ndarray | None = None
    seconds: float = 0.0
    reason: str | None = None

    @property
    def satisfiable(self) -> bool | None:
        """S holds a placement (True), holds none (False), or unknown (None)."""
        return _SATISFIABLE.get(self.status)

    @property
    def unknown(self) -> bool:
        """True when the method was stopped (a time limit) before it answered: no closure."""
        return self.closure is None

    @property
    def error(self) -> str | None:
        """Why a stopped method gave no answer (None when it answered)."""
        return self.reason if self.unknown else None

    @property
    def eliminated(self) -> np.ndarray | None:
        """Cells of S outside the closure, as an (n, n) bool mask."""
        return None if self.closure is None else self.instance.mask & ~self.closure

    def to_json(self) -> dict[str, object]:
        """A JSON-ready object: n, box, method, status, satisfiable, closure, eliminated, count, seconds."""
        g = self.instance.geometry
        obj: dict[str, object] = {
            "n": g.n,
            "box": g.box_label,
            "method": self.method,
            "exact": self.exact,
            "status": "unknown" if self.unknown else "ok",
            "satisfiable": self.satisfiable,
            "cells": self.instance.size,
            "closure": _cell_list(self.closure),
            "eliminated": _cell_list(self.eliminated),
        }
        if self.count is not None:
            obj["count"] = self.count.count
            obj["count_exact"] = self.count.complete
        if self.error:
            obj["error"] = self.error
        obj["seconds"] = json_seconds(self.seconds)
        return obj


def _cell_list(mask: np.ndarray | None) -> list[list[int]] | None:
    if mask is None:
        return None
    return [[int(r) + 1, int(c) + 1] for r, c in zip(*np.nonzero(mask), strict=True)]
