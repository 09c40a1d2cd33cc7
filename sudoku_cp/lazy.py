"""Imports made on first use, so start-up stays cheap: public names of a package (PEP 562),
numba's implementation registries without the scipy.linalg its BLAS probe would import, and
kernels loaded from numba's cache without those registries."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

__all__ = ["lazy_names", "numba_cache_loads_without_registries", "numba_registries_without_blas_probe"]


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


@cache
def numba_cache_loads_without_registries() -> None:
    """Load kernels from numba's cache without first installing every implementation registry.

    numba refreshes its typing and target contexts before each cache load: the first refresh
    imports and installs the implementations of all it can compile (arrays, typed containers,
    random, jitclass...), 0.3-0.45 s of CPU in every process that only loads saved kernels
    (``sudoku-cp rate`` of one puzzle: 1.0 -> 0.65 s).  A saved kernel is machine code that needs
    only the runtime (NRT) and the C helpers numba installs when its context is made, so the
    load initialises the runtime and reads the cache; a compile (a cache miss) still refreshes
    both contexts first, as numba's compiler always does.  A load that fails this way is
    retried as numba would do it.  Nothing is changed when numba's cache class is not the one
    this was written for (no ``_load_overload``)."""
    try:
        from llvmlite.binding import ffi
        from numba.core.caching import Cache
        from numba.core.runtime import rtsys
    except ImportError:  # pragma: no cover - numba's layout changed: keep its own loads
        return
    if not hasattr(Cache, "_load_overload") or not hasattr(Cache, "_guard_against_spurious_io_errors"):
        return  # pragma: no cover
    full = Cache.load_overload
    llvm_lock = getattr(getattr(ffi, "lib", None), "_lock", None)

    def load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        try:
            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors(), _blas_probe_held(), _lock_events_off(llvm_lock):
                return self._load_overload(sig, target_context)
        except Exception:
            numba_registries_without_blas_probe()  # before the refresh that would probe
            return full(self, sig, target_context)

    Cache.load_overload = load_overload  # type: ignore[method-assign]


@contextlib.contextmanager
def _lock_events_off(lock: Any) -> Iterator[None]:
    """llvmlite's lock without numba's callbacks while a saved kernel is loaded: numba announces
    every acquisition of that lock as a "numba:llvm_lock" event (for its compile timers), and a
    load makes thousands of llvmlite calls (reading which symbols a kernel's module defines):
    0.05-0.07 s of the 0.5 s the kernels of ``rate`` take to load.  No compile runs meanwhile;
    the callbacks are put back after the load.  Nothing is changed when the lock is not the one
    this was written for (no ``_cblist``)."""
    callbacks = getattr(lock, "_cblist", None)
    if not isinstance(callbacks, list) or not callbacks:
        yield
        return
    lock._cblist = []
    try:
        yield
    finally:
        lock._cblist = callbacks


@contextlib.contextmanager
def _blas_probe_held() -> Iterator[None]:
    """scipy.linalg kept out while a saved kernel is loaded, as in
    ``numba_registries_without_blas_probe``: a kernel whose environment belongs to
    ``numba.np.arraymath`` (one using ``np.sort`` or ``np.unique``: the rules' chain graphs) has
    the load import that module, and its BLAS probe imports scipy.linalg (0.25-0.5 s of CPU in
    the first ``rate`` of a puzzle that needs a chain, in every worker process that was not
    forked after one).  The machine code loaded needs no BLAS probe; code numba compiles later
    that calls a BLAS routine still imports scipy.linalg.  An import that fails for lack of
    scipy.linalg fails the fast load, which is then retried as numba would do it."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        yield
        return
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if sys.modules.get("scipy.linalg", 0) is None:
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
