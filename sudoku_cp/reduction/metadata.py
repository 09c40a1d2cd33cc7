"""Reduction metadata: the JSON object that records a reduction well enough to decode without rebuilding.

``to_metadata`` writes it (1-based rows, columns and cells; the encoded formula; every gadget),
``metadata_text`` lays it out one gadget per line, ``metadata_object`` reads the JSON text (a
byte-order mark is ignored), and ``read_metadata`` reads the object back, checked: the first
problem raises ``MetadataError`` naming where it is ("metadata clause gadget 2: ..."), values cut.
``Reduction.metadata()`` and ``Reduction.from_metadata()`` are the usual entry points.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import excerpt
from ..formats import strip_bom
from .errors import MetadataError
from .formula import MAX_FORMULA_VARIABLES, Formula
from .gadgets import FILLS, ClauseGadget, EqualityGadget, Layout, VariableGadget, layout_problems
from .packing import MAX_BOX_SIDE

__all__ = [
    "METADATA_FORMAT",
    "METADATA_VERSION",
    "ReductionParts",
    "metadata_object",
    "metadata_text",
    "read_metadata",
    "to_metadata",
]

METADATA_FORMAT = "sudoku-cp reduction"
METADATA_VERSION = 1

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class ReductionParts:
    """What a metadata object records of a reduction: enough to assemble it again; ``cells`` is |S|.

    The witness cells are not stored here: they are those of the witness variable's false state.
    """

    formula: Formula
    layout: Layout
    fill: str
    nonempty: bool
    source_vars: int
    witness_variable: int | None
    cells: int | None


def _one_based(values: Sequence[int]) -> list[int]:
    return [int(v) + 1 for v in values]


def to_metadata(parts: ReductionParts) -> dict[str, Any]:
    """A JSON-ready description (1-based rows, columns, cells): enough to decode without rebuilding."""
    layout = parts.layout
    return {
        "format": METADATA_FORMAT,
        "version": METADATA_VERSION,
        "k": layout.k,
        "n": layout.n,
        "box": f"{layout.k}x{layout.k}",
        "fill": parts.fill,
        "nonempty": parts.nonempty,
        "cells": parts.cells,
        "source_vars": parts.source_vars,
        "witness_variable": parts.witness_variable,
        "witness_cells": [_one_based(cell) for cell in layout.witness_cells(parts.witness_variable)],
        "formula": {
            "num_vars": parts.formula.num_vars,
            "clauses": [list(c) for c in parts.formula.clauses],
        },
        "variables": [
            {
                "variable": v.variable,
                "rows": _one_based(v.rows),
                "true_columns": _one_based(v.true_columns),
                "false_columns": _one_based(v.false_columns),
            }
            for v in layout.variables
        ],
        "clauses": [
            {
                "clause": c.clause + 1,
                "truth_row": c.truth_row + 1,
                "conflict_rows": _one_based(c.conflict_rows),
                "term_columns": [_one_based(pair) for pair in c.term_columns],
                "terminal_column": c.terminal_column + 1,
            }
            for c in layout.clauses
        ],
        "equalities": [
            {
                "variable": e.variable,
                "rows": _one_based(e.rows),
                "first": _one_based(e.first),
                "second": _one_based(e.second),
            }
            for e in layout.equalities
        ],
    }


def metadata_text(data: dict[str, Any]) -> str:
    """A metadata object as JSON text: one key per line, one gadget per line."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = ",\n  ".join(json.dumps(item) for item in value)
            lines.append(f" {json.dumps(key)}: [\n  {items}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


# ---------------------------------------------------------------- reading, checked


def metadata_object(text: str) -> dict[str, Any]:
    """The JSON object of a metadata text; ``MetadataError`` for anything else."""
    try:
        data = json.loads(strip_bom(text))
    except json.JSONDecodeError as problem:
        where = f"line {problem.lineno}, column {problem.colno}"
        raise MetadataError(where, f"not JSON: {problem.msg}") from None
    except (ValueError, RecursionError):  # an integer of thousands of digits, or nesting too deep
        raise MetadataError(
            "metadata", "not JSON that can be read: a number too long or nesting too deep"
        ) from None
    if not isinstance(data, dict):
        raise MetadataError("metadata", "must be a JSON object")
    return data


def _need(data: Any, key: str, kind: type | tuple[type, ...], where: str = "metadata") -> Any:
    """``data[key]``, which must exist and have the type ``kind`` (a bool is no int here)."""
    if not isinstance(data, dict):
        raise MetadataError(where, f"expected a JSON object, got {type(data).__name__}")
    if key not in data:
        raise MetadataError(where, f"missing {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise MetadataError(where, f"{key!r} has the wrong type ({type(value).__name__})")
    return value


def _ints(values: Any, where: str, *, one_based: bool = True) -> tuple[int, ...]:
    """A list of integers, made 0-based unless ``one_based`` is False."""
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise MetadataError(where, "expected a list of integers")
    return tuple(v - 1 for v in values) if one_based else tuple(values)


def _pair(values: Any, where: str) -> tuple[int, int]:
    got = _ints(values, where)
    if len(got) != 2:
        raise MetadataError(where, "expected two columns")
    return got[0], got[1]


def _each(data: dict[str, Any], key: str, noun: str, read: Callable[[Any, str], _T]) -> tuple[_T, ...]:
    """``read(entry, where)`` of each entry of the list ``data[key]``; ``where`` names the entry."""
    return tuple(read(entry, f"metadata {noun} {i + 1}") for i, entry in enumerate(_need(data, key, list)))


def _numbers(entry: Any, key: str, where: str) -> tuple[int, ...]:
    """The 0-based list of rows or columns ``entry[key]``."""
    return _ints(_need(entry, key, list, where), where)


def _two(entry: Any, key: str, where: str) -> tuple[int, int]:
    """The two 0-based rows or columns ``entry[key]``."""
    return _pair(_need(entry, key, list, where), where)


def _formula(data: dict[str, Any]) -> Formula:
    raw = _need(data, "formula", dict)
    num_vars = _need(raw, "num_vars", int, "metadata formula")
    if num_vars > MAX_FORMULA_VARIABLES:
        raise MetadataError(
            "metadata formula",
            f"{excerpt(num_vars)} variables is more than {MAX_FORMULA_VARIABLES}, beyond any reduction",
        )
    clauses = _need(raw, "clauses", list, "metadata formula")
    try:
        return Formula(
            num_vars,
            tuple(_ints(c, f"formula clause {i + 1}", one_based=False) for i, c in enumerate(clauses)),
        )
    except ValueError as error:
        raise MetadataError("metadata formula", str(error)) from None


def _variable_gadget(entry: Any, where: str, k: int) -> VariableGadget:
    rows = _numbers(entry, "rows", where)
    if not rows:
        raise MetadataError(where, "no rows")
    variable = _need(entry, "variable", int, where)
    return VariableGadget(
        variable,
        rows[0] // k,
        rows,
        _numbers(entry, "true_columns", where),
        _numbers(entry, "false_columns", where),
    )


def _clause_gadget(entry: Any, where: str, k: int, formula: Formula) -> ClauseGadget:
    index = _need(entry, "clause", int, where) - 1
    if not 0 <= index < len(formula.clauses):
        raise MetadataError(where, f"clause {excerpt(index + 1)} is not in the formula")
    truth = _need(entry, "truth_row", int, where) - 1
    return ClauseGadget(
        index,
        truth // k,
        formula.clauses[index],
        truth,
        _numbers(entry, "conflict_rows", where),
        tuple(_pair(p, where) for p in _need(entry, "term_columns", list, where)),
        _need(entry, "terminal_column", int, where) - 1,
    )


def _equality_gadget(entry: Any, where: str, k: int) -> EqualityGadget:
    rows = _two(entry, "rows", where)
    variable = _need(entry, "variable", int, where)
    return EqualityGadget(
        variable, rows[0] // k, rows, _two(entry, "first", where), _two(entry, "second", where)
    )


def read_metadata(data: object) -> ReductionParts:
    """The parts a ``to_metadata`` object describes, checked; ``MetadataError`` names the first problem."""
    if not isinstance(data, dict):
        raise MetadataError("metadata", "expected a JSON object")
    if data.get("format") != METADATA_FORMAT:
        raise MetadataError("metadata", f"'format' must be {METADATA_FORMAT!r}")
    if data.get("version") != METADATA_VERSION:
        raise MetadataError(
            "metadata", f"unsupported version {excerpt(data.get('version'))} (expected {METADATA_VERSION})"
        )
    k = _need(data, "k", int)
    if not 2 <= k <= MAX_BOX_SIDE:
        raise MetadataError("metadata", f"'k' must lie in 2..{MAX_BOX_SIDE}, not {excerpt(k)}")
    fill = _need(data, "fill", str)
    if fill not in FILLS:
        raise MetadataError("metadata", f"'fill' must be one of {', '.join(FILLS)}, not {excerpt(fill)}")
    nonempty = _need(data, "nonempty", bool)
    source_vars = _need(data, "source_vars", int)
    formula = _formula(data)
    z = data.get("witness_variable")
    named = isinstance(z, int) and not isinstance(z, bool) and 1 <= z <= formula.num_vars
    if nonempty != (z is not None) or (z is not None and not named):
        raise MetadataError(
            "metadata", "'witness_variable' must name a variable exactly when 'nonempty' is true"
        )
    variables = _each(data, "variables", "variable gadget", lambda v, where: _variable_gadget(v, where, k))
    clauses = _each(data, "clauses", "clause gadget", lambda c, where: _clause_gadget(c, where, k, formula))
    equalities = _each(data, "equalities", "equality gadget", lambda e, where: _equality_gadget(e, where, k))
    layout = Layout(k, variables, clauses, equalities)
    if z is not None and not any(v.variable == z for v in variables):
        raise MetadataError("metadata", f"the witness variable x{z} has no gadget")
    problems = layout_problems(layout, formula.clauses, formula.num_vars)
    if problems:
        raise MetadataError("metadata", problems[0])
    cells = data.get("cells")
    if cells is not None and (not isinstance(cells, int) or isinstance(cells, bool)):
        raise MetadataError("metadata", f"'cells' has the wrong type ({type(cells).__name__})")
    if cells is not None and not 0 <= cells <= layout.n**2:
        raise MetadataError("metadata", f"'cells' must lie in 0..{layout.n**2}, not {excerpt(cells)}")
    return ReductionParts(formula, layout, fill, nonempty, source_vars, z, cells)
