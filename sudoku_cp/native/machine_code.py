"""Compiled kernels kept on disk as machine code and loaded without numba.

A command that solves 9x9 puzzles with numba pays about half a second before the first puzzle:
importing numba (0.3 s), then, on the first call, numba's typing and target contexts (0.2 s),
even when the kernel's machine code is in numba's cache.  A kernel whose entry point takes plain
C arguments (pointers and integers) needs none of that: numba compiles it once, this module
saves the object code, and later processes link it in memory with LLVM's JIT linker (llvmlite,
which numba depends on) and call it through ctypes: about 0.06 s.

The saved file holds a header (the entry's symbol, the external symbols the code refers to, a
checksum) and the object code.  Its name carries a key made of the kernel's source files,
llvmlite's version, the processor (the code is compiled for this one) and the Python version,
so any change rebuilds it.  It lives beside numba's cache: in ``$NUMBA_CACHE_DIR`` when set,
else in the package's ``__pycache__``, else in ``$XDG_CACHE_HOME/sudoku_cp`` (``~/.cache``).

The code numba writes around a kernel refers to numba's helper library (raising an exception,
taking the GIL): paths a kernel that never raises never takes.  Those symbols are bound to a
function that stops the process with a message; the Python C API's come from the process.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import SudokuCpError
from ..limits import compiling

__all__ = ["MachineCodeError", "cache_folder", "compile_entry", "load"]

_FORMAT = 1  # bump when the file layout changes
_lock = threading.Lock()
# What must stay alive while loaded code may run: the JIT engines and the stub for numba's helpers.
_alive: list[object] = []
_loaded: dict[str, Callable[..., int]] = {}


class MachineCodeError(SudokuCpError, RuntimeError):
    """Saved machine code that cannot be used (damaged, or without its entry point)."""


def cache_folder() -> Path:
    """Where object files are kept: ``$NUMBA_CACHE_DIR``, the package's ``__pycache__`` or the user cache."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return Path(chosen)
    here = Path(__file__).resolve().parent / "__pycache__"
    if os.access(here if here.exists() else here.parent, os.W_OK):
        return here
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sudoku_cp"


def load(
    name: str,
    sources: Sequence[Path],
    build: Callable[[], tuple[bytes, str, list[str]]],
    arguments: Sequence[tuple[str, str]],
) -> Callable[..., int]:
    """The entry point of kernel ``name`` as a ctypes function, built by ``build`` when not saved.

    ``sources``: the files the code is compiled from (part of the key); ``build()`` returns the
    object code, the entry's symbol and the external symbols the code refers to (as
    ``compile_entry`` does); ``arguments``: the entry's (name, type) pairs, "int64" or a pointer
    such as "uint32*"; it returns int64.  Raises
    ``MachineCodeError`` (or ImportError, OSError, llvmlite's RuntimeError) when the code cannot be
    built or loaded.
    """
    with _lock:
        if name in _loaded:
            return _loaded[name]
        import llvmlite
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
        digest = hashlib.sha256(f"{_FORMAT} {llvmlite.__version__} {cpu} {features} {sys.version}".encode())
        for source in sources:
            digest.update(source.read_bytes())
        path = cache_folder() / f"{name}-{digest.hexdigest()[:20]}.o"
        try:
            header, code = _read(path)
            function = _link(llvm, cpu, features, header, code, arguments)
        except (OSError, MachineCodeError):  # not saved yet, or damaged: build it (again)
            with compiling():  # not counted against any time limit
                code, symbol, externals = build()
            header = {"symbol": symbol, "externals": externals, "sha256": hashlib.sha256(code).hexdigest()}
            _write(path, header, code)
            function = _link(llvm, cpu, features, header, code, arguments)
        _loaded[name] = function
        return function


def _read(path: Path) -> tuple[dict[str, Any], bytes]:
    """The header and object code of a saved file; MachineCodeError when it is damaged."""
    data = path.read_bytes()
    line, _, code = data.partition(b"\n")
    try:
        header = json.loads(line)
    except ValueError as error:
        raise MachineCodeError(f"{path}: unreadable header") from error
    if not isinstance(header, dict) or hashlib.sha256(code).hexdigest() != header.get("sha256"):
        raise MachineCodeError(f"{path}: damaged")
    return header, code


def _write(path: Path, header: dict[str, Any], code: bytes) -> None:
    """Save a file whole or not at all (a private file renamed into place); no error if it cannot be."""
    import tempfile  # only when saving: a few milliseconds of every start-up otherwise

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(json.dumps(header).encode() + b"\n" + code)
        os.chmod(scratch, 0o644)  # as numba's cache files: readable by whoever runs the package
        os.replace(scratch, path)
    except OSError:
        pass


def _never_called() -> None:
    """What numba's helper symbols are bound to: reaching it means a kernel raised, which none does."""
    sys.stderr.write("sudoku_cp: a compiled kernel took an error path of numba's; stopping\n")
    sys.stderr.flush()
    os.abort()


def compile_entry(
    function: Callable[..., int], arguments: Sequence[tuple[str, str]]
) -> tuple[bytes, str, list[str]]:
    """Compile ``function`` with numba as a C entry point: (object code, its symbol, external symbols).

    ``arguments``: its (name, type) pairs as ``load`` takes them; it returns int64.  The kernel it
    calls must never raise: the error paths numba writes around it (calls into numba's helper
    library) are bound to a stub when the code is loaded without numba.
    """
    import numba
    from numba import types

    signature = types.int64(
        *(
            types.CPointer(getattr(types, kind[:-1])) if kind.endswith("*") else getattr(types, kind)
            for _, kind in arguments
        )
    )
    compiled = numba.cfunc(signature)(function)
    library = getattr(compiled, "_library")  # noqa: B009 - numba keeps it private
    text = library.get_llvm_str()
    declared = re.findall(r'^declare [^@]*@"?([\w.$]+)"?\(', text, re.MULTILINE)
    declared += re.findall(r'^@"?([\w.$]+)"? = external ', text, re.MULTILINE)
    externals = sorted({symbol for symbol in declared if not symbol.startswith("llvm.")})
    return bytes(library._get_compiled_object()), compiled.native_name, externals


def _link(
    llvm: Any,
    cpu: str,
    features: str,
    header: dict[str, Any],
    code: bytes,
    arguments: Sequence[tuple[str, str]],
) -> Callable[..., int]:
    """Link object code in memory and return its entry point as a ctypes function."""
    stub = ctypes.CFUNCTYPE(None)(_never_called)
    for symbol in header["externals"]:
        # Known to LLVM already (numba registered its helpers) or in the process: resolved as is.
        if llvm.address_of_symbol(symbol) is None and not hasattr(ctypes.pythonapi, symbol):
            llvm.add_symbol(symbol, ctypes.cast(stub, ctypes.c_void_p).value)
    target = llvm.Target.from_default_triple()
    machine = target.create_target_machine(cpu=cpu, features=features, codemodel="jitdefault")
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
    engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    address = engine.get_function_address(header["symbol"])
    if not address:
        raise MachineCodeError(f"no symbol {header['symbol']} in the object code")
    _alive.extend((engine, stub))
    prototype = ctypes.CFUNCTYPE(
        ctypes.c_int64, *(ctypes.c_void_p if kind.endswith("*") else ctypes.c_int64 for _, kind in arguments)
    )
    function: Callable[..., int] = prototype(address)
    return function
