"""What a command compiles on its first run: every numba specialisation, its signature and seconds.

Runs one ``sudoku-cp`` command in this process on an empty numba cache (a fresh
``NUMBA_CACHE_DIR`` unless one is given) and listens to numba's ``numba:compile`` events, which
fire only when a function is really compiled (not when it is loaded from the cache).  Each line:
the function, its argument types, seconds inclusive and exclusive (without the callees it
compiled inside), and then a summary: functions compiled for more than one signature, and the
total.

usage: python benchmarks/compile_profile.py [--cache DIR] [--top 40] -- solve --backend dlx PUZZLE
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict


def main() -> None:
    """Run the command after ``--`` with a compile listener and print what compiled."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default="", help="NUMBA_CACHE_DIR to use (default: a fresh empty one)")
    parser.add_argument("--top", type=int, default=40, help="lines of the slowest compiles to print")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = [word for word in args.command if word != "--"] if args.command[:1] == ["--"] else args.command
    os.environ["NUMBA_CACHE_DIR"] = args.cache or tempfile.mkdtemp(prefix="numba-profile-")
    os.environ.setdefault("SUDOKU_CP_BACKGROUND_COMPILE", "0")

    from numba.core import event

    records: list[dict[str, object]] = []
    stack: list[dict[str, object]] = []

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            record = {"start": time.perf_counter(), "child": 0.0, "data": ev.data}
            stack.append(record)

        def on_end(self, ev: event.Event) -> None:
            record = stack.pop()
            record["total"] = time.perf_counter() - float(record["start"])  # type: ignore[arg-type]
            if stack:
                stack[-1]["child"] = float(stack[-1]["child"]) + float(record["total"])  # type: ignore[arg-type]
            data = ev.data or record["data"]
            dispatcher = data.get("dispatcher") if isinstance(data, dict) else None
            func = getattr(dispatcher, "py_func", None)
            name = f"{func.__module__}.{func.__qualname__}" if func else str(dispatcher)
            record["name"] = name
            record["args"] = str(data.get("args")) if isinstance(data, dict) else ""
            records.append(record)

    event.register("numba:compile", Listener())
    sys.argv = ["sudoku-cp", *command]
    start = time.perf_counter()
    from sudoku_cp.cli import main as cli_main

    code = cli_main()
    wall = time.perf_counter() - start
    sys.stdout.flush()
    out = sys.stderr
    print(f"\nexit {code}; wall {wall:.2f} s; {len(records)} compiles", file=out)
    top_level = sum(float(r["total"]) for r in records if float(r["total"]) >= 0 and not _nested(r, records))  # type: ignore[arg-type]
    print(f"compile seconds (outermost compiles): {top_level:.2f}", file=out)
    by_name: dict[str, list[dict[str, object]]] = defaultdict(list)
    for record in records:
        by_name[str(record["name"])].append(record)
    print("\nslowest (exclusive s, inclusive s, function, signature):", file=out)
    ranked = sorted(records, key=lambda r: float(r["total"]) - float(r["child"]), reverse=True)  # type: ignore[arg-type]
    for record in ranked[: args.top]:
        exclusive = float(record["total"]) - float(record["child"])  # type: ignore[arg-type]
        print(f"  {exclusive:6.2f} {float(record['total']):6.2f}  {record['name']}  {record['args'][:150]}", file=out)  # type: ignore[arg-type]
    multi = {name: rs for name, rs in by_name.items() if len(rs) > 1}
    print(f"\nfunctions compiled for several signatures: {len(multi)}", file=out)
    for name, rs in sorted(multi.items(), key=lambda item: -len(item[1])):
        seconds = sum(float(r["total"]) - float(r["child"]) for r in rs)  # type: ignore[arg-type]
        print(f"  {len(rs)} x {name} ({seconds:.2f} s exclusive)", file=out)
        for r in rs:
            print(f"      {str(r['args'])[:160]}", file=out)
    modules: dict[str, float] = defaultdict(float)
    for record in records:
        modules[str(record["name"]).rsplit(".", 1)[0]] += float(record["total"]) - float(record["child"])  # type: ignore[arg-type]
    print("\nexclusive seconds per module:", file=out)
    for module, seconds in sorted(modules.items(), key=lambda item: -item[1]):
        print(f"  {seconds:6.2f}  {module}", file=out)
    sys.exit(code)


def _nested(record: dict[str, object], records: list[dict[str, object]]) -> bool:
    """Whether this compile ran inside another (its time is already in the outer one's)."""
    start, end = float(record["start"]), float(record["start"]) + float(record["total"])  # type: ignore[arg-type]
    return any(
        other is not record
        and float(other["start"]) <= start  # type: ignore[arg-type]
        and end <= float(other["start"]) + float(other["total"])  # type: ignore[arg-type]
        and float(other["total"]) > float(record["total"])  # type: ignore[arg-type]
        for other in records
    )


if __name__ == "__main__":
    main()
