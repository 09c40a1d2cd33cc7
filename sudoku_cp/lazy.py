"""Imports made on first use, so start-up stays cheap: public names of a package (PEP 562), and
numba's implementation registries without the scipy.linalg its BLAS probe would import."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = ["lazy_names", "numba_registries_without_blas_probe"]


@cache
def numba_registries_without_blas_probe() -> None:
    """Import ``numba.np.arraymath`` now, as numba's first compile or cache load would, but with
    scipy.linalg kept out: that module's BLAS probe imports scipy.linalg, 0.25-0.5 s of every
    command that loads a kernel using no linear algebra (``sudoku-cp rate`` of one puzzle: 1.75
    -> 1.45 s of CPU).  A ``None`` in ``sys.modules`` stands for scipy.linalg during the import;
    numba then takes its own loop for ``np.correlate`` and ``np.convolve``, and still imports
    scipy.linalg when code it compiles calls a BLAS routine.  Nothing is done once either module
    is loaded (the probe has run, or scipy.linalg is there to be found)."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]


def lazy_names(
    package: str, homes: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``: ``homes`` maps each public name
    to the relative module it lives in; a name is imported once and kept in ``namespace``."""

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return getattr_, dir_
