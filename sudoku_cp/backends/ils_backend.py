"""The ILS backend: Musliu & Winter's iterated local search with constraint programming (numba).

An incomplete search: it finds a solution or reports *unknown* (time limit or iteration cap),
never "no solution", except when that is proven before the search: propagation empties a cell,
or a box has no fill of its missing digits inside the propagated domains.  With a time limit,
the search runs until that limit or a cap set in the parameters; without one, it stops after
``DEFAULT_MAX_ITERATIONS`` iterations unless the parameters set a cap.
"""

from __future__ import annotations

import dataclasses

from ..grid import Grid
from ..native.ils import IlsParameters, Perturbation, ils_solve
from .base import no_grids
from .native_base import NativeBackend, NativeRun
from .settings import Setting, parse_settings

__all__ = ["DEFAULT_MAX_ITERATIONS", "IlsBackend", "parse_ils_settings"]

# Without a time limit or a cap of its own, a search gives up after this many iterations (10 to
# 25 s on a 2.6 GHz Xeon, whatever the size), so a puzzle with no solution still ends.
DEFAULT_MAX_ITERATIONS = 20_000_000

_YES_NO = dict.fromkeys(("1", "true", "yes", "on"), True) | dict.fromkeys(("0", "false", "no", "off"), False)
_INTEGER = "an integer"


def _yes_no(raw: str) -> bool:
    """A switch written 1/0, true/false, yes/no or on/off."""
    if raw.lower() in _YES_NO:
        return _YES_NO[raw.lower()]
    raise ValueError(raw)


def _cap(raw: str) -> int | None:
    """A count, or 'none' for no cap."""
    return None if raw.lower() == "none" else int(raw)


# Setting names users write after 'ils:' (the IlsParameters field names).
_SETTINGS = {
    "tenure": Setting("tenure", int, _INTEGER),
    "stall_limit": Setting("stall_limit", int, _INTEGER),
    "perturbation": Setting("perturbation", Perturbation, "refill or swap"),
    "strength": Setting("strength", int, _INTEGER),
    "restart_after": Setting("restart_after", int, _INTEGER),
    "domain_fill": Setting("domain_fill", _yes_no, "0 or 1"),
    "domain_swaps": Setting("domain_swaps", _yes_no, "0 or 1"),
    "max_iterations": Setting("max_iterations", _cap, "an integer or none"),
}


def parse_ils_settings(text: str) -> IlsParameters:
    """ILS parameters from ``key=value`` pairs separated by commas, e.g. ``tenure=5,perturbation=swap``.

    Keys are the fields of ``IlsParameters``: tenure, stall_limit, perturbation (refill or swap),
    strength, restart_after, domain_fill, domain_swaps, max_iterations.  An empty text gives the
    defaults.  Raises BackendError naming the bad setting.
    """
    return parse_settings("ils", text, _SETTINGS, IlsParameters)


@dataclasses.dataclass(eq=False)  # backends compare by identity, as the other ones do
class IlsBackend(NativeBackend):
    """Iterated local search over box permutations; the same seed gives the same run.

    ``default_max_iterations`` caps a search given neither a time limit nor a cap of its own.
    """

    params: IlsParameters = dataclasses.field(default_factory=IlsParameters)
    seed: int = 0
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS
    name = "ils"

    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Find one solution (a local search cannot count: ``limit`` > 1 finds at most one)."""
        params = self.params
        if time_limit is None and params.max_iterations is None:
            params = dataclasses.replace(params, max_iterations=self.default_max_iterations)
        run = ils_solve(puzzle, params, seed=self.seed, time_limit=time_limit)
        stats: dict[str, float | int] = {
            "iterations": run.iterations,
            "perturbations": run.perturbations,
            "restarts": run.restarts,
        }
        if run.solution is None:
            # Only propagation or a box without a fill inside the domains proves there is none.
            return NativeRun(no_grids(puzzle.n), 0, run.contradiction, run.timed_out, stats)
        # Solved by propagation alone (no open cell): every solution must be this one.
        return NativeRun(run.solution[None], 1, run.open_cells == 0, False, stats)
