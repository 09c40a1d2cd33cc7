"""Single-digit (Nishio) subproblems: instances, the DAG algorithm, baselines, models, cross-checks.

Module map: ``instance`` (the instance type, instances of puzzle states), ``placement`` (the
placement checker), ``text`` (text forms), ``method`` (the method signature and its answers),
``result`` (one answer and its JSON), ``batch`` (the DAG on many instances, JSON Lines at once),
``api`` (solve, solve many, cross-check), ``puzzles`` (many puzzle states' digits in chunks
on an executor); the methods ``dag``, ``overlay``, ``matching``, ``sat``
(on the CNF model of ``cnf``), ``cpsat`` and ``exact_cover`` (method ``dlx``); ``generate``
(random instances) and ``svg`` (pictures).
"""

from .instance import NishioInstance, digit_instances, digit_masks
from .method import Decision, NishioCount, NishioMethod
from .placement import placement_problem
from .text import instance_to_json, parse_instance

__all__ = [
    "Decision",
    "NishioCount",
    "NishioInstance",
    "NishioMethod",
    "digit_instances",
    "digit_masks",
    "instance_to_json",
    "parse_instance",
    "placement_problem",
]
