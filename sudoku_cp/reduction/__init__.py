"""Hard Nishio instances from 3-SAT (Eppstein 2012, Section 6): formulas, random 3-SAT, the reduction.

* ``formula``: the ``Formula`` type, the DIMACS reader, 3-SAT splitting, pysat solving;
* ``random3sat``: seeded uniform (and planted-satisfiable) random 3-SAT;
* ``families``: cnfgen's formula families (random, planted, Tseitin, pigeonhole, parity, XOR)
  with their known answers and reasons, and their reductions with witness placements;
* ``benchset``: a graded benchmark set of family instances written into a directory;
* ``gadgets``: the three gadgets and ``Layout``, the gadgets placed on one grid (checked);
* ``packing``: ``build_layout``, the smallest grid whose boxes hold every gadget;
* ``construction``: ``Reduction`` and ``reduce_formula`` (Theorems 6.1 and 6.2);
* ``memory``: the memory a reduction needs, estimated from the formula before building;
* ``metadata``: the JSON record of a reduction, written and read back (checked);
* ``decode``: assignments to placements and back, checked;
* ``check``: ``verify_reduction``, both sides decided and decoded both ways;
* ``batch``: ``verify_formulas``, many formulas verified in chunks on an executor;
* ``svg``: a picture of the layout; ``errors``: ``ReductionError`` and ``MetadataError``.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:  # for type checkers; at run time each name is imported on first use
    from .construction import Reduction, reduce_formula
    from .decode import assignment_from_placement, placement_from_assignment
    from .errors import MetadataError, ReductionError
    from .families import make_family_formula, reduce_family
    from .formula import Formula, FormulaCheckError, parse_dimacs, solve_formula, to_3sat
    from .random3sat import planted_3sat, random_3sat

#: Where each public name lives: importing one module of the package (the command line's
#: parser reads ``gadgets.FILLS``) does not load the whole construction.
_HOMES = {
    "Formula": ".formula",
    "FormulaCheckError": ".formula",
    "MetadataError": ".errors",
    "Reduction": ".construction",
    "ReductionError": ".errors",
    "assignment_from_placement": ".decode",
    "make_family_formula": ".families",
    "parse_dimacs": ".formula",
    "placement_from_assignment": ".decode",
    "planted_3sat": ".random3sat",
    "random_3sat": ".random3sat",
    "reduce_family": ".families",
    "reduce_formula": ".construction",
    "solve_formula": ".formula",
    "to_3sat": ".formula",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())

__all__ = [
    "Formula",
    "FormulaCheckError",
    "MetadataError",
    "Reduction",
    "ReductionError",
    "assignment_from_placement",
    "make_family_formula",
    "parse_dimacs",
    "placement_from_assignment",
    "planted_3sat",
    "random_3sat",
    "reduce_family",
    "reduce_formula",
    "solve_formula",
    "to_3sat",
]
