"""Hard Nishio instances from 3-SAT (Eppstein 2012, Section 6): formulas, random 3-SAT, the reduction.

* ``formula``: the ``Formula`` type, the DIMACS reader, 3-SAT splitting, pysat solving;
* ``random3sat``: seeded uniform (and planted-satisfiable) random 3-SAT;
* ``gadgets``, ``construction``: the gadgets, their packing into a k x k-box grid, ``Reduction``;
* ``decode``: assignments to placements and back, checked; ``svg``: a picture of the layout.
"""

from .construction import Reduction, reduce_formula
from .decode import assignment_from_placement, placement_from_assignment
from .formula import Formula, FormulaCheckError, parse_dimacs, solve_formula, to_3sat
from .random3sat import planted_3sat, random_3sat

__all__ = [
    "Formula",
    "FormulaCheckError",
    "Reduction",
    "assignment_from_placement",
    "parse_dimacs",
    "placement_from_assignment",
    "planted_3sat",
    "random_3sat",
    "reduce_formula",
    "solve_formula",
    "to_3sat",
]
