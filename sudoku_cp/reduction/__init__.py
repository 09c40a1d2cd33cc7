"""Hard Nishio instances from 3-SAT (Eppstein 2012, Section 6): formulas, random 3-SAT, the reduction."""

from .formula import Formula, FormulaCheckError, parse_dimacs, solve_formula, to_3sat
from .random3sat import planted_3sat, random_3sat

__all__ = [
    "Formula",
    "FormulaCheckError",
    "parse_dimacs",
    "planted_3sat",
    "random_3sat",
    "solve_formula",
    "to_3sat",
]
