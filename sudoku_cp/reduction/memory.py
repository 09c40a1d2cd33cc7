"""Memory of a reduction, estimated from the formula's sizes before anything is built.

The instance is held as its cells (O(|S|), |S| about 8 per literal), never as an n x n grid, so
the estimate is linear in the formula and the side does not enter.  ``check_reduction_memory``
refuses (``ReductionTooLarge``, one line with the estimate and the memory available) what would
not fit in ``limits.memory_budget``.
"""

from __future__ import annotations

from .errors import ReductionError

__all__ = ["ReductionTooLarge", "check_reduction_memory", "reduction_memory_estimate"]

#: Peak memory of ``reduce_formula`` and of writing its instance and metadata, per literal, clause
#: and variable of the formula given, and the interpreter's own: measured growth (random 3-SAT,
#: 250 to 10,000 variables, ``benchmarks/reduction_scale.py``: about 1.2 kB per literal, clause
#: objects included) rounded up about twice, so an estimate errs on the side of refusing.
_BYTES_PER_LITERAL = 2048
_BYTES_PER_CLAUSE = 1024
_BYTES_PER_VARIABLE = 512
_BYTES_BASE = 96 << 20


class ReductionTooLarge(ReductionError):
    """A formula whose reduction would not fit in memory, refused on an estimate before building."""


def reduction_memory_estimate(num_vars: int, num_clauses: int, literals: int) -> int:
    """Bytes that reducing a formula of these sizes (and writing its instance) is estimated to take."""
    return (
        _BYTES_BASE
        + _BYTES_PER_LITERAL * literals
        + _BYTES_PER_CLAUSE * num_clauses
        + _BYTES_PER_VARIABLE * num_vars
    )


def check_reduction_memory(num_vars: int, num_clauses: int, literals: int) -> None:
    """Raise ``ReductionTooLarge`` (one line: the estimate and the memory available) when reducing a
    formula of these sizes would need more memory than ``limits.memory_budget`` allows."""
    from ..limits import ModelTooLarge, check_memory

    estimate = reduction_memory_estimate(num_vars, num_clauses, literals)
    try:
        check_memory(
            f"reducing {num_vars} variables and {num_clauses} clauses ({literals} literals)", estimate
        )
    except ModelTooLarge as error:
        raise ReductionTooLarge(str(error)) from None
