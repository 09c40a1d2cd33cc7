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
from dataclasses import dataclass


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

    records: list[Compile] = []
    stack: list[Compile] = []

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            stack.append(Compile(start=time.perf_counter()))

        def on_end(self, ev: event.Event) -> None:
            record = stack.pop()
            record.total = time.perf_counter() - record.start
            if stack:
                stack[-1].child += record.total
            data = ev.data if isinstance(ev.data, dict) else {}
            func = getattr(data.get("dispatcher"), "py_func", None)
            record.name = f"{func.__module__}.{func.__qualname__}" if func else str(data.get("dispatcher"))
            record.args = str(data.get("args"))
            record.outermost = not stack
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
    print(
        f"compile seconds (outermost compiles): {sum(r.total for r in records if r.outermost):.2f}", file=out
    )
    print("\nslowest (exclusive s, inclusive s, function, signature):", file=out)
    for record in sorted(records, key=lambda r: r.exclusive, reverse=True)[: args.top]:
        print(f"  {record.exclusive:6.2f} {record.total:6.2f}  {record.name}  {record.args[:150]}", file=out)
    by_name: dict[str, list[Compile]] = defaultdict(list)
    for record in records:
        by_name[record.name].append(record)
    multi = {name: rs for name, rs in by_name.items() if len(rs) > 1}
    print(f"\nfunctions compiled for several signatures: {len(multi)}", file=out)
    for name, rs in sorted(multi.items(), key=lambda item: -len(item[1])):
        print(f"  {len(rs)} x {name} ({sum(r.exclusive for r in rs):.2f} s exclusive)", file=out)
        for r in rs:
            print(f"      {r.args[:160]}", file=out)
    modules: dict[str, float] = defaultdict(float)
    for record in records:
        modules[record.name.rsplit(".", 1)[0]] += record.exclusive
    print("\nexclusive seconds per module:", file=out)
    for module, seconds in sorted(modules.items(), key=lambda item: -item[1]):
        print(f"  {seconds:6.2f}  {module}", file=out)
    sys.exit(code)


@dataclass
class Compile:
    """One compile: when it started, its seconds with and without the compiles nested in it."""

    start: float
    total: float = 0.0
    child: float = 0.0
    name: str = ""
    args: str = ""
    outermost: bool = True

    @property
    def exclusive(self) -> float:
        """Seconds of this compile without the callees it compiled inside."""
        return self.total - self.child


if __name__ == "__main__":
    main()
