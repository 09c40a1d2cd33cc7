"""The 3-SAT -> Nishio reduction of Eppstein 2012, Section 6 (Theorems 6.1 and 6.2), made executable.

``reduce_formula`` turns a CNF formula into a Nishio instance S on an n x n grid with k x k
boxes (n = k*k) such that S holds a valid placement iff the formula is satisfiable; the gadgets
are those of ``gadgets``, their packing is ``packing`` and the full specification is
``encodings/reduction.md``.  Theorem 6.2 (``nonempty=True``): z is added to every clause and
each resulting 4-clause (a b c z) is split into (a b y) (-y c z) with a fresh y
(``with_witness_variable``).  A ``Reduction`` writes and reads its JSON metadata (``metadata``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..geometry import geometry_for_size
from ..nishio.instance import NishioInstance
from .errors import MetadataError, ReductionError
from .formula import Formula, to_3sat
from .gadgets import FILLS, Layout
from .memory import check_reduction_memory
from .metadata import ReductionParts, metadata_object, metadata_text, read_metadata, to_metadata
from .packing import build_layout

__all__ = ["Reduction", "reduce_formula", "with_witness_variable"]


def with_witness_variable(formula: Formula) -> tuple[Formula, int]:
    """Theorem 6.2: z added to every clause, (a b c z) split into (a b y) (-y c z); returns (formula, z).

    The result is satisfied by z = True (with every y True), and has a model with z = False iff
    the input has a model.  The input must be 3-SAT (clauses of at most 3 literals).
    """
    z = formula.num_vars + 1
    next_var = z + 1
    clauses: list[tuple[int, ...]] = []
    for index, clause in enumerate(formula.clauses, start=1):
        if len(clause) > 3:
            raise ReductionError(
                f"clause {index} has {len(clause)} literals; split the formula to 3-SAT first"
            )
        if len(clause) < 3:
            clauses.append((*clause, z))
        else:
            y = next_var
            next_var += 1
            clauses += [(clause[0], clause[1], y), (-y, clause[2], z)]
    return Formula(next_var - 1, tuple(clauses)), z


@dataclass(frozen=True)
class Reduction:
    """A formula, the Nishio instance it reduces to, and where each gadget lies.

    ``formula`` is the 3-SAT formula actually encoded (with z and the split variables when
    ``nonempty``); ``source_vars`` the number of variables of the formula given, whose values
    are the first of any assignment of ``formula``; ``witness_variable`` is z (Theorem 6.2) and
    ``witness_cells`` the 0-based cells of z's false state: they lie in S' iff the formula given
    is satisfiable, while S always holds a placement.
    """

    formula: Formula
    instance: NishioInstance
    k: int
    nonempty: bool
    witness_cells: tuple[tuple[int, int], ...]
    layout: Layout = field(repr=False)
    fill: str = "full"
    source_vars: int = 0
    witness_variable: int | None = None

    @property
    def n(self) -> int:
        """Side of the grid."""
        return self.k * self.k

    def metadata(self) -> dict[str, Any]:
        """A JSON-ready description (1-based rows, columns, cells): enough to decode without rebuilding."""
        parts = ReductionParts(
            self.formula,
            self.layout,
            self.fill,
            self.nonempty,
            self.source_vars,
            self.witness_variable,
            self.instance.size,
        )
        return to_metadata(parts)

    def metadata_json(self) -> str:
        """``metadata()`` as JSON text: one key per line, one gadget per line."""
        return metadata_text(self.metadata())

    @classmethod
    def from_metadata(cls, data: dict[str, Any]) -> Reduction:
        """The reduction a ``metadata()`` object describes, checked; ``MetadataError`` names any problem."""
        parts = read_metadata(data)
        reduction = _assemble(
            parts.formula,
            parts.layout,
            nonempty=parts.nonempty,
            fill=parts.fill,
            source_vars=parts.source_vars,
            z=parts.witness_variable,
        )
        if parts.cells is not None and parts.cells != reduction.instance.size:
            size = reduction.instance.size
            raise MetadataError(
                "metadata", f"'cells' says {parts.cells} but the gadgets and fill give {size}"
            )
        return reduction

    @classmethod
    def from_metadata_text(cls, text: str) -> Reduction:
        """The reduction a metadata JSON text describes; ``MetadataError`` says where it is wrong."""
        return cls.from_metadata(metadata_object(text))


def _assemble(
    formula: Formula, layout: Layout, *, nonempty: bool, fill: str, source_vars: int, z: int | None
) -> Reduction:
    """The reduction of an encoded formula laid out as ``layout``, S built with ``fill``."""
    geometry = geometry_for_size(layout.n, (layout.k, layout.k), sparse=True)
    rows, cols = layout.cells(fill)
    instance = NishioInstance.from_coordinates(geometry, rows, cols)
    return Reduction(
        formula,
        instance,
        layout.k,
        nonempty,
        layout.witness_cells(z),
        layout,
        fill,
        source_vars,
        z,
    )


def reduce_formula(formula: Formula, *, nonempty: bool = False, fill: str = "full") -> Reduction:
    """The Nishio instance of a formula (Theorem 6.1), or with ``nonempty`` the Theorem 6.2 variant.

    The formula is first split to 3-SAT (``to_3sat``).  ``fill`` is 'full' (every cell outside
    the gadgets' rows, columns and boxes) or 'minimal' (one fixed completion of them).
    """
    if fill not in FILLS:
        raise ReductionError(f"unknown fill {fill!r}; choose from {', '.join(FILLS)}")
    literals = sum(map(len, formula.clauses))
    check_reduction_memory(formula.num_vars, formula.num_clauses, literals + 2 * formula.num_clauses)
    encoded = to_3sat(formula)
    z = None
    if nonempty:
        encoded, z = with_witness_variable(encoded)
    layout = build_layout(encoded, always=() if z is None else (z,))
    return _assemble(encoded, layout, nonempty=nonempty, fill=fill, source_vars=formula.num_vars, z=z)
