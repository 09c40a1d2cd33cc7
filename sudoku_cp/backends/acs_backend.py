"""The ant colony backend: Lloyd & Amos' ant colony system with best value evaporation (numba).

The colony is an incomplete search: it finds one solution or runs out of time.  A run that
stops without a solution is *unknown* (``complete=False``), never "no solution"; only the
initial propagation can prove that a puzzle has none.  Without a time limit the colony stops
after ``DEFAULT_TIME_LIMIT`` seconds, the default of the authors' program, so an unsolvable
puzzle cannot hang a batch.
"""

from __future__ import annotations

from ..grid import Grid
from ..limits import check_memory
from ..native.acs import AcsParameters, Q0Rule, acs_solve
from .base import no_grids
from .native_base import NativeBackend, NativeRun
from .settings import Setting, bounded, parse_settings

__all__ = ["DEFAULT_TIME_LIMIT", "MAX_ANTS", "AcsBackend", "parse_acs_settings"]

DEFAULT_TIME_LIMIT = 10.0
#: The most ants a colony may have (the paper uses 10): each holds a copy of the grid's candidates.
MAX_ANTS = 10_000
_BYTES_PER_ANT_CELL = 16  # the ant's candidate mask (8 bytes) and room for the kernel's work

_NUMBER = "a number"
# Setting names users write after 'acs:', and the AcsParameters field each one sets.
_SETTINGS = {
    "ants": Setting("ants", bounded(1, MAX_ANTS), f"an integer in 1..{MAX_ANTS}"),
    "q0": Setting("q0", float, _NUMBER),
    "rho": Setting("rho", float, _NUMBER),
    "bve": Setting("bve", float, _NUMBER),
    "xi": Setting("xi", float, _NUMBER),
    "tau0": Setting("tau0", float, _NUMBER),
    "rule": Setting("q0_rule", Q0Rule, "paper or code"),
    "iterations": Setting("max_iterations", int, "an integer"),
}


def parse_acs_settings(text: str) -> AcsParameters:
    """Colony parameters from ``key=value`` pairs separated by commas, e.g. ``bve=0,rule=code``.

    Keys: ants, q0, rho, bve (0 turns best value evaporation off), xi, tau0, rule (paper: greedy
    when q < q0; code: greedy when q > q0, as the authors' program does), iterations (a cap).
    An empty text gives the paper's defaults.  Raises BackendError naming the bad setting.
    """
    return parse_settings("acs", text, _SETTINGS, AcsParameters)


class AcsBackend(NativeBackend):
    """Ant colony system; finds at most one solution, seeded and reproducible."""

    name = "acs"

    def __init__(
        self,
        parameters: AcsParameters | None = None,
        *,
        seed: int = 0,
        default_time_limit: float | None = DEFAULT_TIME_LIMIT,
    ) -> None:
        self.parameters = parameters or AcsParameters()
        self.seed = seed
        self.default_time_limit = default_time_limit

    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Run the colony once; one solution, or none with ``complete=False`` (unknown)."""
        ants = self.parameters.ants
        check_memory(
            f"an ant colony of {ants} ants on a {puzzle.n}x{puzzle.n} grid",
            ants * puzzle.n**2 * _BYTES_PER_ANT_CELL,
            "use fewer ants (acs:ants=10 is the paper's)",
        )
        run = acs_solve(
            puzzle,
            self.parameters,
            seed=self.seed,
            time_limit=time_limit if time_limit is not None else self.default_time_limit,
        )
        stats: dict[str, float | int] = {"iterations": run.iterations, "cycles": run.cycles}
        if run.solution is None:
            # Only a contradiction found by propagation proves there is no solution.
            return NativeRun(no_grids(puzzle.n), 0, run.contradiction, run.timed_out, stats)
        # Solved by propagation alone (no iteration): every solution must be this one.
        return NativeRun(run.solution[None], 1, run.iterations == 0, False, stats)
