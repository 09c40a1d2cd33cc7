"""The rule table: every rule in the engine's order (simplest first), and rule-set selection.

Families (the names ``--rules`` takes): singles, locked, subsets, fish, wings, xchains, als, matching,
aligned, bilocation, chains, bivalue, twosat, nishio, forcing, uniqueness.  The order follows the
weights, which follow Sudoku Explainer's difficulty scale for the patterns it shares with us (see ``rate``);
a rule whose steps weigh what their instance needs (chains by length) has its lightest step's
weight here, and each step carries its own (``Step.weight``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...errors import SudokuCpError
from . import aic, aligned, chains, forcing, matching, nishio, twosat, uniqueness, wings
from .base import Rule, local_finder

__all__ = ["FAMILIES", "RULES", "RuleSetError", "select_rules"]


class RuleSetError(SudokuCpError, ValueError):
    """An unknown rule or family name in a rule selection."""


def _local() -> tuple[Rule, ...]:
    """The compiled rules, from their table (``local.LOCAL_TABLE``)."""
    from .local import LOCAL_TABLE

    return tuple(
        Rule(row.name, row.family, row.description, row.weight, local_finder(row.name), kernel_id)
        for kernel_id, row in enumerate(LOCAL_TABLE)
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
        *_local(),
        *aic.RULES,  # before the other chain rules: a tie of weights goes to the named technique
        *wings.RULES,
        *aligned.RULES,  # after the wings: a tie of weights (6.2) goes to the wing
        *uniqueness.RULES,
        *matching.RULES,
        *chains.RULES,
        *twosat.RULES,
        *nishio.RULES,
        *forcing.RULES,
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
