"""A graded benchmark set: family x size x seed, each entry's instance in every model, one manifest.

``plan`` turns the request (families with their sizes, seeds, shared parameters) into entries,
each checked before any work (``families.validate_request``).  ``make_set`` builds the entries,
one chunk each, where an executor says (this process, ``--jobs`` local processes, a Dask
cluster whose workers see the same directory), and yields one record per entry in plan order,
also for an entry that failed (status "error" or "crash", with the one-line reason).

Layout of a set directory (``encodings/families.md``)::

    DIR/manifest.json, DIR/manifest.csv     one record per entry, in plan order
    DIR/<id>/entry.json                     the entry's record, written last: the entry is done
    DIR/<id>/instance.nishio                the Nishio instance (mask rows; a cell list above side 1024)
    DIR/<id>/pairwise.cnf, <amo>.cnf        DIMACS, exactly-one pairwise and compact (default seqcounter)
    DIR/<id>/instance.dlx                   exact cover (DLX format)
    DIR/<id>/cpsat.pb.txt                   CP-SAT model (protobuf text, Boolean model)
    DIR/<id>/meta.json                      reduction metadata with family, expected and reason
    DIR/<id>/formula.cnf                    the family's 3-CNF, 'c' lines naming family and answer
    DIR/<id>/witness.txt                    the witness placement, when a model is known

Resumable: an entry whose ``entry.json`` records the same request with status "ok" and whose
files still have the recorded sizes is not built again.  Every file is written to a temporary
name and renamed, so an interrupted run leaves no half file under a final name.
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..executor import Executor, Work, run_ordered
from ..formats import json_dumps
from .families import validate_request

__all__ = [
    "MANIFEST_COLUMNS",
    "PRESETS",
    "Entry",
    "SetOptions",
    "entry_done",
    "make_set",
    "parse_sizes",
    "plan",
    "write_manifest",
]

#: Built-in graded sets: (family, sizes); every one is built for each seed.
PRESETS: dict[str, tuple[tuple[str, tuple[int, ...]], ...]] = {
    "tiny": (
        ("tseitin", (6,)),
        ("pigeonhole", (2,)),
        ("parity", (5,)),
        ("planted", (6,)),
        ("random", (6,)),
        ("xor", (6,)),
    ),
    "small": (
        ("tseitin", (6, 8, 10, 12)),
        ("pigeonhole", (2, 3, 4)),
        ("parity", (5, 7)),
        ("planted", (10, 20, 30)),
        ("random", (10, 20, 30)),
        ("xor", (6, 10, 14)),
    ),
}

#: Above this side the instance is written as a cell list, not n lines of n symbols.
MASK_MAX_SIDE = 1024

#: The manifest's columns (CSV header, in order); the JSON manifest has these and ``files``.
MANIFEST_COLUMNS = (
    "id",
    "status",
    "error",
    "family",
    "size",
    "seed",
    "params",
    "nonempty",
    "fill",
    "expected",
    "reason",
    "generated_variables",
    "generated_clauses",
    "variables",
    "clauses",
    "k",
    "side",
    "cells",
    "witness",
    "cnf_pairwise_variables",
    "cnf_pairwise_clauses",
    "compact_encoding",
    "cnf_compact_variables",
    "cnf_compact_clauses",
    "xc_items",
    "xc_options",
    "cpsat_variables",
    "cpsat_constraints",
    "bytes_instance",
    "bytes_cnf_pairwise",
    "bytes_cnf_compact",
    "bytes_xc",
    "bytes_cpsat",
    "bytes_meta",
    "bytes_formula",
    "seconds_formula",
    "seconds_reduce",
    "seconds_instance",
    "seconds_cnf_pairwise",
    "seconds_cnf_compact",
    "seconds_xc",
    "seconds_cpsat",
    "seconds_total",
    "resumed",
)


@dataclass(frozen=True, slots=True)
class SetOptions:
    """What every entry shares: Theorem 6.2, the fill, the compact exactly-one encoding, the time
    limit for deciding a formula no theorem decides (None: no limit)."""

    nonempty: bool = False
    fill: str = "full"
    compact: str = "seqcounter"
    time_limit: float | None = 60.0


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the set: a family request (``params``: the parameters given, checked)."""

    family: str
    size: int
    seed: int
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def id(self) -> str:
        """The entry's directory name: 'tseitin-12-s0', parameters given appended ('-ratio4.5')."""
        tail = "".join(
            f"-{key}{value:g}" if isinstance(value, float) else f"-{key}{value}" for key, value in self.params
        )
        return f"{self.family}-{self.size}-s{self.seed}{tail}"


def parse_sizes(text: str) -> tuple[str, tuple[int, ...]]:
    """'tseitin:6,8,10' or 'tseitin:6-12:2' (first-last:step) as (family, sizes); ValueError says why not."""
    name, colon, rest = text.partition(":")
    if not colon or not name or not rest:
        raise ValueError(f"{text!r}: expected NAME:SIZES, e.g. tseitin:6,8,10 or tseitin:6-12:2")
    sizes: list[int] = []
    try:
        if "-" in rest:
            span, _, step = rest.partition(":")
            first, _, last = span.partition("-")
            stride = int(step) if step else 1
            if stride < 1:
                raise ValueError
            sizes = list(range(int(first), int(last) + 1, stride))
        else:
            sizes = [int(part) for part in rest.split(",")]
    except ValueError:
        raise ValueError(f"{text!r}: sizes must be whole numbers, as 6,8,10 or 6-12:2") from None
    if not sizes:
        raise ValueError(f"{text!r}: no sizes")
    return name, tuple(sizes)


def plan(
    families: Sequence[tuple[str, Sequence[int]]],
    seeds: Sequence[int],
    params: Mapping[str, Any] | None = None,
) -> list[Entry]:
    """The entries, family by family, size by size, seed by seed; each request checked here
    (``FamilyError``), the shared ``params`` given to the families that take them."""
    from .families import FAMILIES, FamilyError

    given = {key: value for key, value in (params or {}).items() if value is not None}
    for key in given:
        if not any(key in spec.params for name, _ in families if (spec := FAMILIES.get(name))):
            raise FamilyError(f"no family of the set takes the parameter {key}")
    entries: list[Entry] = []
    seen: set[str] = set()
    for name, sizes in families:
        spec = FAMILIES.get(name)
        if spec is None:
            raise FamilyError(f"unknown family {name!r}; choose from {', '.join(FAMILIES)}")
        own = tuple(sorted((key, value) for key, value in given.items() if key in spec.params))
        for size in sizes:
            validate_request(name, size, **dict(own))
            for seed in seeds:
                entry = Entry(name, size, seed, own)
                if entry.id not in seen:
                    seen.add(entry.id)
                    entries.append(entry)
    return entries


# ------------------------------------------------------------------------------------------ files


def _write(path: Path, text: str) -> int:
    """Write ``text`` atomically (temporary name, then rename); returns the bytes written."""
    data = text.encode("utf-8")
    temporary = path.with_name(path.name + ".part")
    temporary.write_bytes(data)
    os.replace(temporary, path)
    return len(data)


def _request(entry: Entry, options: SetOptions) -> dict[str, Any]:
    """What an entry was built from: a resumed entry must match it."""
    return {
        "family": entry.family,
        "size": entry.size,
        "seed": entry.seed,
        "params": dict(entry.params),
        "nonempty": options.nonempty,
        "fill": options.fill,
        "compact": options.compact,
        "time_limit": options.time_limit,
    }


def entry_done(directory: str | os.PathLike[str], entry: Entry, options: SetOptions) -> dict[str, Any] | None:
    """The record of an entry built before with the same request, its files intact; else None."""
    folder = Path(directory) / entry.id
    try:
        record = json.loads((folder / "entry.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("status") != "ok":
        return None
    if record.get("request") != json.loads(json_dumps(_request(entry, options))):
        return None
    files = record.get("files")
    if not isinstance(files, dict):
        return None
    for name, size in files.items():
        try:
            if (folder / str(name)).stat().st_size != size:
                return None
        except OSError:
            return None
    return record


@dataclass(frozen=True, slots=True)
class _Chunk:
    directory: str
    entry: Entry
    options: SetOptions


@dataclass
class _Clock:
    seconds: dict[str, float] = field(default_factory=dict)

    def run(self, key: str, make: Callable[[], Any]) -> Any:
        began = time.perf_counter()
        value = make()
        self.seconds[key] = round(time.perf_counter() - began, 4)
        return value


def _head(chunk: _Chunk) -> dict[str, Any]:
    request = _request(chunk.entry, chunk.options)
    shown = {key: request[key] for key in ("family", "size", "seed", "params", "nonempty", "fill")}
    return {"id": chunk.entry.id, **shown, "compact_encoding": chunk.options.compact, "request": request}


def _build(chunk: _Chunk) -> list[dict[str, Any]]:
    """Build one entry, write its files, return its record (status 'error' on a one-line problem)."""
    from ..errors import SudokuCpError
    from ..limits import TimeLimitReached

    began = time.perf_counter()
    try:
        record = _build_files(chunk)
    except (SudokuCpError, TimeLimitReached, ValueError, MemoryError, OSError) as problem:
        return [{**_head(chunk), "status": "error", "error": f"{type(problem).__name__}: {problem}"}]
    record["seconds_total"] = round(time.perf_counter() - began, 4)
    folder = Path(chunk.directory) / chunk.entry.id
    _write(folder / "entry.json", json_dumps(record) + "\n")  # last: the entry is done
    return [record]


def _build_files(chunk: _Chunk) -> dict[str, Any]:
    from ..nishio.cnf import encode_nishio_cnf, write_nishio_dimacs
    from ..nishio.cpsat import build_nishio_cpsat, export_nishio_cpsat
    from ..nishio.exact_cover import build_nishio_exact_cover, export_nishio_dlx
    from ..nishio.text import instance_text
    from .families import decide, make_family_formula, reduce_family

    entry, options = chunk.entry, chunk.options
    folder = Path(chunk.directory) / entry.id
    folder.mkdir(parents=True, exist_ok=True)
    clock = _Clock()
    made = clock.run(
        "seconds_formula",
        lambda: decide(
            make_family_formula(entry.family, entry.size, entry.seed, **dict(entry.params)),
            options.time_limit,
        ),
    )
    reduced = clock.run(
        "seconds_reduce", lambda: reduce_family(made, nonempty=options.nonempty, fill=options.fill)
    )
    instance = reduced.reduction.instance
    files: dict[str, int] = {}
    record: dict[str, Any] = {**_head(chunk), "status": "ok", "error": ""}

    def put(name: str, text: str) -> int:
        files[name] = _write(folder / name, text)
        return files[name]

    form = "mask" if instance.n <= MASK_MAX_SIDE else "cells"
    record["bytes_instance"] = clock.run(
        "seconds_instance", lambda: put("instance.nishio", instance_text(instance, form))
    )
    for key, encoding in (("pairwise", "pairwise"), ("compact", options.compact)):
        name = "pairwise.cnf" if key == "pairwise" else f"{encoding}.cnf"

        def cnf_file(encoding: str = encoding, name: str = name) -> tuple[int, int, int]:
            cnf = encode_nishio_cnf(instance, encoding)
            # Streamed: the pairwise model of a big instance is hundreds of megabytes as one string.
            temporary = folder / (name + ".part")
            write_nishio_dimacs(cnf, temporary)
            os.replace(temporary, folder / name)
            files[name] = (folder / name).stat().st_size
            return files[name], cnf.n_vars, cnf.n_clauses

        size, variables, clauses = clock.run(f"seconds_cnf_{key}", cnf_file)
        record |= {f"bytes_cnf_{key}": size, f"cnf_{key}_variables": variables, f"cnf_{key}_clauses": clauses}

    def xc_file() -> tuple[int, int, int]:
        model = build_nishio_exact_cover(instance)
        return put("instance.dlx", export_nishio_dlx(model)), model.n_items, model.n_options

    record["bytes_xc"], record["xc_items"], record["xc_options"] = clock.run("seconds_xc", xc_file)

    def cpsat_file() -> tuple[int, int, int]:
        model = build_nishio_cpsat(instance, "bool")
        sizes = model.sizes()
        return put("cpsat.pb.txt", export_nishio_cpsat(model)), sizes["variables"], sizes["constraints"]

    record["bytes_cpsat"], record["cpsat_variables"], record["cpsat_constraints"] = clock.run(
        "seconds_cpsat", cpsat_file
    )
    record["bytes_meta"] = put("meta.json", json_dumps(reduced.metadata()) + "\n")
    source = reduced.source
    record["bytes_formula"] = put("formula.cnf", source.formula.to_dimacs(source.dimacs_comments()))
    witness = reduced.placement_text()
    if witness is not None:
        put("witness.txt", witness)
    summary = reduced.summary()
    record |= {
        "params": dict(made.params),  # with the family's defaults
        "expected": summary["expected"],
        "reason": summary["reason"],
        "generated_variables": summary["generated_variables"],
        "generated_clauses": summary["generated_clauses"],
        "variables": summary["variables"],
        "clauses": summary["clauses"],
        "k": summary["k"],
        "side": summary["n"],
        "cells": summary["cells"],
        "witness": witness is not None,
        **clock.seconds,
        "files": files,
        "resumed": False,
    }
    return record


def _crashed(chunk: _Chunk, why: str) -> list[dict[str, Any]]:
    return [{**_head(chunk), "status": "crash", "error": f"the worker failed: {why}"}]


_WORK: Work[_Chunk, dict[str, Any]] = Work(_build, _crashed)


def make_set(
    directory: str | os.PathLike[str],
    entries: Sequence[Entry],
    options: SetOptions = SetOptions(),
    *,
    executor: Executor | None = None,
    notice: Callable[[str], None] | None = None,
) -> Generator[dict[str, Any], None, None]:
    """One record per entry, in plan order: entries done before (same request, files intact) are
    read back with ``resumed`` True, the others built where ``executor`` says (a cluster's workers
    must see ``directory``).  A failed entry gives a record with status 'error' or 'crash'."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    done = {k: entry_done(folder, entry, options) for k, entry in enumerate(entries)}
    pending = [_Chunk(str(folder), entry, options) for k, entry in enumerate(entries) if done[k] is None]
    built = run_ordered(_WORK, pending, executor, notice=notice) if pending else iter(())
    return _merged(entries, done, built)


def _merged(
    entries: Sequence[Entry], done: Mapping[int, dict[str, Any] | None], built: Iterable[dict[str, Any]]
) -> Generator[dict[str, Any], None, None]:
    fresh = iter(built)
    for k in range(len(entries)):
        record = done[k]
        yield {**record, "resumed": True} if record is not None else next(fresh)


def write_manifest(
    directory: str | os.PathLike[str], records: Sequence[Mapping[str, Any]]
) -> tuple[Path, Path]:
    """``manifest.json`` (a list of records, with each entry's files) and ``manifest.csv``
    (``MANIFEST_COLUMNS``; params as JSON), written atomically; returns both paths."""
    folder = Path(directory)
    rows = [{key: record.get(key, "") for key in (*MANIFEST_COLUMNS, "files")} for record in records]
    json_path, csv_path = folder / "manifest.json", folder / "manifest.csv"
    _write(json_path, json.dumps(rows, indent=1) + "\n")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=MANIFEST_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {**row, "params": json.dumps(row["params"], sort_keys=True) if row["params"] != "" else ""}
        )
    _write(csv_path, buffer.getvalue())
    return json_path, csv_path
