"""The outcome vocabulary every engine shares: a ``Status`` and, for ``unknown``, a reason.

A search that was stopped (time limit, Ctrl-C, an incomplete method's cap, a failing solver
program) answers ``Status.UNKNOWN`` with a reason in words, never "no solution" and never an
exception.  The reasons below are the standard ones; an engine may add detail after them
("time limit reached before uniqueness was decided").
"""

from __future__ import annotations

from enum import Enum

__all__ = ["REASON_CAP", "REASON_INCOMPLETE", "REASON_INTERRUPTED", "REASON_TIME_LIMIT", "Status"]


class Status(Enum):
    """The outcome reported for one puzzle (and, in their own words, for every engine's answer)."""

    SOLVED = "solved"
    UNSAT = "unsat"
    MULTIPLE = "multiple"
    UNKNOWN = "unknown"
    INVALID = "invalid"
    #: A deduction engine's rules make no more progress: no search was stopped and nothing was
    #: guessed, so this is neither unknown nor a claim about the solutions.
    STUCK = "stuck"
    #: The work on this item killed its worker process again and again (or raised): no answer, and
    #: the rest of the batch went on.
    CRASH = "crash"


#: The time limit stopped the engine before it answered.
REASON_TIME_LIMIT = "time limit reached"
#: Ctrl-C (SIGINT) stopped the engine.
REASON_INTERRUPTED = "interrupted"
#: An incomplete engine (ant colony, hill climbing) stopped at its iteration or restart cap.
REASON_CAP = "the search gave up at its iteration or restart cap"
#: An incomplete engine found a solution but cannot decide uniqueness.
REASON_INCOMPLETE = "this backend's search is incomplete: it cannot decide uniqueness"
