"""Single-digit (Nishio) subproblems: instances, the DAG algorithm, baselines, models, cross-checks."""

from .instance import (
    NishioInstance,
    SolveTimeout,
    digit_instances,
    instance_to_json,
    parse_instance,
    placement_problem,
)
from .method import NishioCount, NishioMethod

__all__ = [
    "NishioCount",
    "NishioInstance",
    "NishioMethod",
    "SolveTimeout",
    "digit_instances",
    "instance_to_json",
    "parse_instance",
    "placement_problem",
]
