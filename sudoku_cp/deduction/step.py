"""One deduction step: the rule that fired, what it places or removes, and the pattern it saw.

Inside the code everything is 0-based (cell = r * n + c, digit 0..n-1); ``to_json`` and
``describe`` speak the user's 1-based language (R3C5, digit 7).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from ..geometry import Geometry

__all__ = ["Link", "Step", "step_from_record", "steps_from_log", "steps_json"]

#: A chain or cycle edge: (cell a, cell b, digit, graph) where graph names the graph it lies on
#: ("bilocation": a and b are the only places of the digit in a unit; "bivalue": a and b both
#: hold exactly two candidates, one of them the digit; "implication": a 2-SAT arc).
Link = tuple[int, int, int, str]


@dataclass(frozen=True, slots=True)
class Step:
    """A rule application: ``placements`` and ``eliminations`` are (k, 2) int arrays of (cell, digit).

    ``weight``: the step's difficulty on the rating scale (``rate``), set by the rules whose
    steps weigh what their instance needs (chains by their links, wings by their cells) and by
    the engine for every step it records (the rule's weight otherwise).
    """

    rule: str
    placements: np.ndarray
    eliminations: np.ndarray
    cells: tuple[int, ...] = ()
    units: tuple[int, ...] = ()
    digits: tuple[int, ...] = ()
    links: tuple[Link, ...] = ()
    note: str = field(default="")
    weight: float | None = None

    @property
    def progress(self) -> int:
        """Number of placements plus eliminations."""
        return len(self.placements) + len(self.eliminations)

    @property
    def is_nonlocal(self) -> bool:
        """True for a step that shows a chain or cycle (drawn as a picture)."""
        return bool(self.links)

    def to_json(self, geometry: Geometry) -> dict[str, object]:
        """The step as JSON-ready data, 1-based: [row, column, digit] triples and [row, column] cells."""
        n = geometry.n

        def triples(pairs: np.ndarray) -> list[list[int]]:
            # tolist: Python ints at once, not a numpy scalar per number (a step's JSON is made
            # for each of the 60 steps of every explained puzzle)
            return [[c // n + 1, c % n + 1, d + 1] for c, d in pairs.tolist()]

        out: dict[str, object] = {
            "rule": self.rule,
            "placements": triples(self.placements),
            "eliminations": triples(self.eliminations),
            "cells": [[c // n + 1, c % n + 1] for c in self.cells],
            "units": [geometry.unit_name(u) for u in self.units],
            "digits": [d + 1 for d in self.digits],
        }
        if self.links:
            out["links"] = [
                {
                    "from": [a // n + 1, a % n + 1],
                    "to": [b // n + 1, b % n + 1],
                    "digit": d + 1,
                    "graph": kind,
                }
                for a, b, d, kind in self.links
            ]
        if self.note:
            out["note"] = self.note
        if self.weight is not None:
            out["weight"] = self.weight
        return out

    def json_text(self, geometry: Geometry) -> str:
        """``formats.json_dumps(self.to_json(geometry))`` written directly (``steps_json``)."""
        return steps_json((self,), geometry)[1:-1]

    def describe(self, geometry: Geometry) -> str:
        """One line for a player: the rule, what it saw, what it places and removes."""
        name = geometry.cell_name
        seen = []
        if self.digits:
            seen.append(
                "digit" + ("s " if len(self.digits) > 1 else " ") + ",".join(str(d + 1) for d in self.digits)
            )
        if self.units:
            seen.append("in " + ", ".join(geometry.unit_name(u) for u in self.units))
        if self.cells:
            seen.append("at " + " ".join(name(c) for c in self.cells))
        head = self.rule + (f" ({' '.join(seen)})" if seen else "")
        actions = []
        if len(self.placements):
            actions.append("place " + ", ".join(f"{d + 1} at {name(int(c))}" for c, d in self.placements))
        if len(self.eliminations):
            actions.append("remove " + _grouped(self.eliminations, geometry))
        because = f"{self.note}; " if self.note else ""
        return f"{head}: {because}{'; '.join(actions)}"


def steps_json(steps: Sequence[Step], geometry: Geometry) -> str:
    """``formats.json_dumps([step.to_json(geometry) for step in steps])`` written directly:
    explain prints every step of every puzzle, and the dicts and the encoder cost as much again
    as finding the steps of a puzzle whose singles and locked candidates run compiled.  Up to
    side ``_NAMED_SIDE`` every number and name is looked up in tables made once per geometry."""
    n = geometry.n
    names = _json_names(geometry) if n <= _NAMED_SIDE else None
    out = []
    for step in steps:
        if names is not None:
            triples, cells, units, digits = names
            placements = ",".join([triples[c * n + d] for c, d in step.placements.tolist()])
            eliminations = ",".join([triples[c * n + d] for c, d in step.eliminations.tolist()])
            pattern = ",".join([cells[c] for c in step.cells])
            seen = ",".join([units[u] for u in step.units])
            shown = ",".join([digits[d] for d in step.digits])
        else:
            placements = ",".join(
                [f"[{c // n + 1},{c % n + 1},{d + 1}]" for c, d in step.placements.tolist()]
            )
            eliminations = ",".join(
                [f"[{c // n + 1},{c % n + 1},{d + 1}]" for c, d in step.eliminations.tolist()]
            )
            pattern = ",".join([f"[{c // n + 1},{c % n + 1}]" for c in step.cells])
            seen = ",".join([f'"{geometry.unit_name(u)}"' for u in step.units])  # nothing to escape
            shown = ",".join([str(d + 1) for d in step.digits])
        text = (
            f'{{"rule":{_quoted(step.rule)},"placements":[{placements}],"eliminations":[{eliminations}],'
            f'"cells":[{pattern}],"units":[{seen}],"digits":[{shown}]'
        )
        if step.links:
            links = ",".join(
                [
                    f'{{"from":[{a // n + 1},{a % n + 1}],"to":[{b // n + 1},{b % n + 1}],'
                    f'"digit":{d + 1},"graph":{_quoted(kind)}}}'
                    for a, b, d, kind in step.links
                ]
            )
            text += f',"links":[{links}]'
        if step.note:
            text += f',"note":{json.dumps(step.note)}'
        if step.weight is not None:
            text += f',"weight":{_number(step.weight)}'
        out.append(text + "}")
    return "[" + ",".join(out) + "]"


#: Up to this side ``Step.json_text`` looks its numbers and names up in tables (n**3 triples).
_NAMED_SIDE = 25


@cache
def _json_names(geometry: Geometry) -> tuple[list[str], list[str], list[str], list[str]]:
    """The JSON of every (cell, digit) triple, cell, unit name and digit of a geometry, by index."""
    n = geometry.n
    triples = [f"[{c // n + 1},{c % n + 1},{d + 1}]" for c in range(n * n) for d in range(n)]
    cells = [f"[{c // n + 1},{c % n + 1}]" for c in range(n * n)]
    units = [f'"{geometry.unit_name(u)}"' for u in range(3 * n)]  # nothing to escape in them
    return triples, cells, units, [str(d + 1) for d in range(n)]


@cache
def _quoted(name: str) -> str:
    """A rule or graph name as a JSON string (a handful of names, each quoted once)."""
    return json.dumps(name)


def _number(value: float) -> str:
    """A number as ``json.dumps`` writes it (a float subclass such as numpy's by ``float.__repr__``)."""
    return float.__repr__(value) if isinstance(value, float) and math.isfinite(value) else json.dumps(value)


def _grouped(pairs: np.ndarray, geometry: Geometry) -> str:
    """Eliminations grouped by digit: '4 from R1C1 R1C2; 7 from R3C3'."""
    by_digit: dict[int, list[str]] = {}
    for c, d in pairs:
        by_digit.setdefault(int(d), []).append(geometry.cell_name(int(c)))
    return "; ".join(f"{d + 1} from {' '.join(cells)}" for d, cells in sorted(by_digit.items()))


def step_from_record(rule: str, rec: np.ndarray, count: int, note: str = "") -> Step:
    """A step from a kernel record: rows (kind, a, b) with kind 0 placement (cell, digit),
    1 elimination (cell, digit), 2 pattern cell, 3 unit, 4 digit."""
    rows = rec[:count]
    kind = rows[:, 0]
    return Step(
        rule,
        np.ascontiguousarray(rows[kind == 0, 1:]),
        np.ascontiguousarray(rows[kind == 1, 1:]),
        tuple(int(x) for x in rows[kind == 2, 1]),
        tuple(int(x) for x in rows[kind == 3, 1]),
        tuple(int(x) for x in rows[kind == 4, 1]),
        note=note,
    )


def steps_from_log(
    log: np.ndarray, marks: np.ndarray, count: int, used: int, names: dict[int, tuple[str, float]]
) -> list[Step]:
    """The steps ``rules.local.run_local`` recorded: ``count`` rows of ``marks`` over the first
    ``used`` rows of ``log`` (each step's rows grouped by kind: placements, eliminations, cells,
    units, digits), each with its rule's name and weight (``names`` by kernel id).

    The same steps as ``step_from_record`` of each record with the rule's weight set, built from
    one copy of the log: a step's placements and eliminations are slices of it."""
    pairs = log[:used, 1:].copy()  # the log is reused by the next call; the steps keep this copy
    first = log[:used, 1].tolist()
    steps = []
    for rule, at_place, at_elim, at_cell, at_unit, at_digit, end in marks[:count].tolist():
        name, weight = names[rule]
        steps.append(
            Step(
                name,
                pairs[at_place:at_elim],
                pairs[at_elim:at_cell],
                tuple(first[at_cell:at_unit]),
                tuple(first[at_unit:at_digit]),
                tuple(first[at_digit:end]),
                (),
                "",
                weight,  # positional: keywords cost a third more in a frozen dataclass's __init__
            )
        )
    return steps
