"""The hill-climbing backend: Jones, Roach & Perkins' steepest ascent with random restarts (numba).

An incomplete search: it finds a solution or reports *unknown* (time limit, restart or iteration
cap), never "no solution", except in two cases that are proofs: givens that clash, and a puzzle
whose state space is a single state (no box has two empty cells) that is not a solution.  With a
time limit, the search runs until that limit or a cap set in the parameters; without one, it
stops after ``DEFAULT_MAX_RESTARTS`` restarts unless the parameters set a cap.
"""

from __future__ import annotations

import dataclasses

from ..grid import Grid
from ..limits import Deadline
from ..native.hillclimb import HillParameters, build_model, hill_climb
from .base import no_grids
from .native_base import NativeBackend, NativeRun
from .settings import Setting, parse_settings

__all__ = ["DEFAULT_MAX_RESTARTS", "HillBackend", "parse_hill_settings"]

# Without a time limit or a cap of its own, a search gives up after this many restarts (about
# 7 s on a 9x9 grid), so a puzzle with no solution still ends.
DEFAULT_MAX_RESTARTS = 100_000

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _flag(raw: str) -> bool:
    if raw.lower() not in _TRUE + _FALSE:
        raise ValueError(raw)
    return raw.lower() in _TRUE


def _cap(raw: str) -> int | None:
    return None if raw.lower() == "none" else int(raw)


def _setting(field: dataclasses.Field[object]) -> Setting:
    """How a HillParameters field is written: booleans as 0/1/true/false, caps as an integer or 'none'."""
    kind = str(field.type)
    if kind == "bool":
        return Setting(field.name, _flag, "0 or 1")
    if "None" in kind:
        return Setting(field.name, _cap, "an integer or none")
    return Setting(field.name, int, "an integer")


_SETTINGS = {field.name: _setting(field) for field in dataclasses.fields(HillParameters)}


def parse_hill_settings(text: str) -> HillParameters:
    """Hill-climbing parameters from ``key=value`` pairs separated by commas.

    Keys are the fields of ``HillParameters``: w1, w2, plateau_size, stall_limit, post_swap,
    shuffle_digits, max_restarts, max_iterations; e.g. ``shuffle_digits=0,plateau_size=20``.
    An empty text gives the defaults.  Raises BackendError naming the bad setting.
    """
    return parse_settings("hill", text, _SETTINGS, HillParameters)


class HillBackend(NativeBackend):
    """Hill climbing over box permutations; seeded, so the same seed gives the same run."""

    name = "hill"

    def __init__(self, params: HillParameters | None = None, seed: int = 0) -> None:
        self.params = params or HillParameters()
        self.seed = seed

    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Find one solution (a local search cannot count: ``limit`` > 1 finds at most one)."""
        deadline = Deadline(time_limit)  # one budget for the model and the climb
        model = build_model(puzzle.geometry, puzzle.values, deadline)
        params = self.params
        if time_limit is None and params.max_restarts is None and params.max_iterations is None:
            params = dataclasses.replace(params, max_restarts=DEFAULT_MAX_RESTARTS)
        found = hill_climb(model, params, seed=self.seed, time_limit=deadline)
        stats: dict[str, float | int] = {"iterations": found.iterations, "restarts": found.restarts}
        if found.solution is None:
            # With no move at all, the only state was tried and failed: that is a proof.
            return NativeRun(no_grids(puzzle.n), 0, model.moves == 0, found.timed_out, stats)
        # A local search says nothing of other solutions, unless the puzzle had no empty cell.
        return NativeRun(found.solution[None], 1, puzzle.is_complete, False, stats)
