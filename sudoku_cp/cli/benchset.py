"""``sudoku-cp benchset``: a graded set of hard Nishio instances (family x size x seed) in a directory."""

from __future__ import annotations

import argparse

from ..formats import json_dumps
from . import common
from .common import EXIT_OK, EXIT_UNKNOWN, CliError

__all__ = ["add_parser", "run"]

BENCHSET_HELP = """\
Write a graded benchmark set: for each family, size and seed, the family's formula (see
'sudoku-cp reduce --help', formula families) reduced to a Nishio instance, written as the
instance text, DIMACS CNF twice (exactly-one pairwise and --amo, default seqcounter), exact
cover (DLX), a CP-SAT model and the reduction metadata, with the formula's known answer
('expected': sat, unsat or unknown) and its 'reason'.  A manifest lists every entry:
DIR/manifest.json and DIR/manifest.csv (family, parameters, seed, side, |S|, variables,
clauses, expected, reason, file sizes, measured times).  Layout: encodings/families.md.

Entries: --family NAME:SIZES (repeatable; SIZES as 6,8,10 or 6-12:2), or --preset tiny|small;
--seeds 0,1,2 (or 0-4).  Families without a theorem (random) are decided by CaDiCaL within
--time-limit (default 60 s; stopped: 'unknown').  Resumable: an entry already in DIR with the
same request and intact files is kept; run the same command again after an interruption.  A
failed entry is reported (status error or crash) and the others go on.

examples:
  sudoku-cp benchset bench --preset small --seeds 0-2 --jobs 2
  sudoku-cp benchset bench --family tseitin:8-20:4 --family pigeonhole:2,3,4 --seeds 0,1
  sudoku-cp benchset bench --family planted:20,40 --ratio 4.0 --amo ladder --nonempty
  sudoku-cp benchset bench --family random:30,40 --time-limit 10 --json > bench.jsonl

exit codes:
  0  every entry written
  2  usage error or a bad request (unknown family, size or parameter out of range)
  3  some entry failed (its record names why); the others are written"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``benchset``."""
    parser = common.add_command(
        commands,
        "benchset",
        "write a graded set of hard Nishio instances with known answers",
        BENCHSET_HELP,
        exit_codes=False,
    )
    parser.add_argument("directory", metavar="DIR", help="where the set is written (created if missing)")
    parser.add_argument(
        "--family",
        action="append",
        default=[],
        metavar="NAME:SIZES",
        help="a family and its sizes (repeatable)",
    )
    parser.add_argument("--preset", metavar="NAME", help="a built-in set: tiny or small")
    parser.add_argument("--seeds", default="0", metavar="LIST", help="seeds, as 0,1,2 or 0-4 (default: 0)")
    parser.add_argument("--ratio", type=float, metavar="R", help="random, planted, xor: clauses per variable")
    parser.add_argument(
        "--width", type=common.integer(2), metavar="K", help="random, planted, xor: clause width"
    )
    parser.add_argument("--degree", type=common.integer(3), metavar="D", help="tseitin: the graph's degree")
    parser.add_argument("--nonempty", action="store_true", help="Theorem 6.2: S always has a placement")
    parser.add_argument(
        "--fill", choices=("full", "minimal"), default="full", help="cells outside the gadgets"
    )
    parser.add_argument(
        "--amo",
        default="seqcounter",
        metavar="ENC",
        help="the compact exactly-one encoding (default: seqcounter)",
    )
    parser.add_argument(
        "--time-limit",
        type=common.seconds,
        default=60.0,
        metavar="SECONDS",
        help="for deciding a formula no theorem decides (default: 60; 'inf': none)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON record per entry (JSON Lines)")
    common.add_executor_options(parser, "the entries")
    parser.set_defaults(run=run)


def _seeds(text: str) -> list[int]:
    try:
        if "-" in text:
            first, _, last = text.partition("-")
            seeds = list(range(int(first), int(last) + 1))
        else:
            seeds = [int(part) for part in text.split(",")]
    except ValueError:
        raise CliError(f"--seeds {text!r}: expected whole numbers, as 0,1,2 or 0-4") from None
    if not seeds or min(seeds) < 0:
        raise CliError(f"--seeds {text!r}: expected seeds of at least 0")
    return seeds


def _line(record: dict[str, object]) -> str:
    if record["status"] != "ok":
        return f"{record['id']}: {str(record['status']).upper()}: {record['error']}"
    side = record["side"]
    resumed = " (already there)" if record.get("resumed") else ""
    return (
        f"{record['id']}: {side}x{side}, |S| = {record['cells']}, expected {record['expected']} "
        f"({record['reason']}), {record['seconds_total']} s{resumed}"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp benchset``; returns the exit code."""
    from ..cnf.sudoku import AmoEncoding
    from ..reduction.benchset import PRESETS, SetOptions, make_set, parse_sizes, plan, write_manifest

    if args.amo not in {encoding.value for encoding in AmoEncoding}:
        raise CliError(f"--amo {args.amo!r}: choose from {', '.join(e.value for e in AmoEncoding)}")
    families: list[tuple[str, tuple[int, ...]]] = []
    if args.preset is not None:
        if args.preset not in PRESETS:
            raise CliError(f"--preset {args.preset!r}: choose from {', '.join(PRESETS)}")
        families.extend(PRESETS[args.preset])
    for text in args.family:
        try:
            families.append(parse_sizes(text))
        except ValueError as problem:
            raise CliError(f"--family {problem}") from None
    if not families:
        raise CliError("give --family NAME:SIZES or --preset NAME")
    params = {"ratio": args.ratio, "width": args.width, "degree": args.degree}
    entries = plan(families, _seeds(args.seeds), params)
    options = SetOptions(args.nonempty, args.fill, args.amo, args.time_limit)
    records = []
    records_stream = make_set(
        args.directory, entries, options, executor=common.executor(args), notice=common.notice
    )
    with common.progress(len(entries), "benchset") as bar:
        for record in records_stream:
            records.append(record)
            shown = {key: value for key, value in record.items() if key != "request"}
            common.print_line(bar, json_dumps(shown) if args.json else _line(record))
            if bar is not None:
                bar.update(1)
    json_path, csv_path = write_manifest(args.directory, records)
    failed = sum(record["status"] != "ok" for record in records)
    common.notice(
        f"wrote {json_path} and {csv_path}: {len(records)} entries" + (f", {failed} failed" if failed else "")
    )
    return EXIT_UNKNOWN if failed else EXIT_OK
