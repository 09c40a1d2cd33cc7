"""The rule table: every rule in the engine's order (simplest first), and rule-set selection.

Families (the names ``--rules`` takes): singles, locked, subsets, fish, wings, xchains, als, matching,
bilocation, chains, bivalue, twosat, nishio, uniqueness.  The order follows the weights, which
follow Sudoku Explainer's difficulty scale for the patterns it shares with us (see ``rate``);
a rule whose steps weigh what their instance needs (chains by length) has its lightest step's
weight here, and each step carries its own (``Step.weight``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...errors import SudokuCpError
from . import aic, chains, matching, nishio, twosat, uniqueness, wings
from .base import Rule, local_finder

__all__ = ["FAMILIES", "RULES", "RuleSetError", "select_rules"]


class RuleSetError(SudokuCpError, ValueError):
    """An unknown rule or family name in a rule selection."""


def _local(name: str, family: str, weight: float, description: str) -> Rule:
    from .local import LOCAL_RULES

    return Rule(name, family, description, weight, local_finder(name), LOCAL_RULES.index(name))


_LOCAL: tuple[Rule, ...] = (
    _local("hidden-single", "singles", 1.5, "a digit has only one place left in a row, column or box"),
    _local("naked-single", "singles", 2.3, "a cell has only one digit left"),
    _local(
        "pointing",
        "locked",
        2.6,
        "a digit's places in a box all lie on one line: the rest of the line loses it",
    ),
    _local(
        "claiming",
        "locked",
        2.8,
        "a digit's places on a line all lie in one box: the rest of the box loses it",
    ),
    _local(
        "naked-pair",
        "subsets",
        3.0,
        "two cells of a unit share the same two digits: the unit's other cells lose them",
    ),
    _local(
        "x-wing",
        "fish",
        3.2,
        "a digit's places in two rows lie in two columns: those columns lose it elsewhere",
    ),
    _local(
        "hidden-pair",
        "subsets",
        3.4,
        "two digits of a unit fit only the same two cells: those cells lose other digits",
    ),
    _local(
        "naked-triple",
        "subsets",
        3.6,
        "three cells of a unit hold only three digits: the unit's other cells lose them",
    ),
    _local(
        "swordfish",
        "fish",
        3.8,
        "a digit's places in three rows lie in three columns: those columns lose it elsewhere",
    ),
    _local(
        "hidden-triple",
        "subsets",
        4.0,
        "three digits of a unit fit only three cells: those cells lose other digits",
    ),
    _local("xy-wing", "wings", 4.2, "a cell {x,y} sees {x,z} and {y,z}: cells seeing both wings lose z"),
    _local(
        "naked-quad",
        "subsets",
        5.0,
        "four cells of a unit hold only four digits: the unit's other cells lose them",
    ),
    _local(
        "jellyfish",
        "fish",
        5.2,
        "a digit's places in four rows lie in four columns: those columns lose it elsewhere",
    ),
    _local(
        "hidden-quad",
        "subsets",
        5.4,
        "four digits of a unit fit only four cells: those cells lose other digits",
    ),
)


def _ordered(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    """The rules by weight (stable): the engine's order of trial, lightest first."""
    ordered = tuple(sorted(rules, key=lambda rule: rule.weight))
    names = [rule.name for rule in ordered]
    if len(set(names)) != len(names):
        raise RuleSetError("two rules share a name")
    return ordered


# Each rule module adds its own rules here (one entry per module); the weights give the order,
# this list breaks ties.
RULES: tuple[Rule, ...] = _ordered(
    [
        *_LOCAL,
        *aic.RULES,  # before the other chain rules: a tie of weights goes to the named technique
        *wings.RULES,
        *uniqueness.RULES,
        *matching.RULES,
        *chains.RULES,
        *twosat.RULES,
        *nishio.RULES,
    ]
)

#: Family names in the order of their first rule.
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(rule.family for rule in RULES))


def select_rules(names: Iterable[str] | None = None, *, uniqueness: bool = False) -> tuple[Rule, ...]:
    """The rules named (by family or rule name), in the engine's order; all non-uniqueness rules
    when ``names`` is None.  Uniqueness rules come only when named or when ``uniqueness`` is set."""
    if names is None:
        return tuple(rule for rule in RULES if uniqueness or not rule.uniqueness)
    wanted: set[str] = set()
    for name in names:
        name = name.strip()
        if name == "all":
            wanted.update(rule.name for rule in RULES if uniqueness or not rule.uniqueness)
            continue
        hits = {rule.name for rule in RULES if name in (rule.name, rule.family)}
        if not hits:
            known = ", ".join(FAMILIES)
            raise RuleSetError(f"unknown rule or rule family {name!r} (families: {known})")
        wanted |= hits
    if uniqueness:
        wanted.update(rule.name for rule in RULES if rule.uniqueness)
    return tuple(rule for rule in RULES if rule.name in wanted)
