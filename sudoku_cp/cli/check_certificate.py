"""``sudoku-cp check-certificate``: re-check certificates made earlier, by us or anyone."""

from __future__ import annotations

import argparse
import time
from collections import Counter

from ..formats import json_dumps
from . import common
from .common import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNKNOWN, EXIT_WRONG, CliError

__all__ = ["add_parser", "run"]

CHECK_HELP = """\
Re-check certificates (the JSON manifests written by --certify, and the files they name) without
trusting whoever made them: each CNF is regenerated from the claim (encodings/certificates.md)
and its SHA-256 compared with the manifest's and the file's; each DRAT proof is checked against
the regenerated CNF; solutions and Nishio witnesses are checked against the rules and the givens.
A PATH is a manifest or a folder (all its *.json manifests).

One line per certificate:  holds|FAILS|unreadable|unknown  PATH  claim: reason
then a summary; with --json, JSON Lines (certificate, claim, verdict, reason, seconds) and a
last line {"summary": {...}}.

examples:
  sudoku-cp solve --unique --certify certs/ puzzles.txt --json > answers.jsonl
  sudoku-cp check-certificate certs/
  sudoku-cp check-certificate --checker dratify certs/unique-3c9bd2fcf8b99504.json
  sudoku-cp check-certificate certs/ --jobs 2 --time-limit 60 --json

exit codes:
  0  every certificate holds
  2  a manifest cannot be read (missing, not JSON, not a certificate, another version); a bad option
  3  a time limit stopped a check (never a verdict)
  4  some certificate does not hold (named on its line)
  130 interrupted by Ctrl-C"""

_SHOWN = {"holds": "holds", "fails": "FAILS", "unreadable": "unreadable", "unknown": "unknown"}
_EXIT = {"holds": EXIT_OK, "fails": EXIT_WRONG, "unreadable": EXIT_BAD_INPUT, "unknown": EXIT_UNKNOWN}


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``check-certificate``."""
    parser = common.add_command(
        commands,
        "check-certificate",
        "re-check certificates made with --certify",
        CHECK_HELP,
        exit_codes=False,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a manifest (.json) or a folder of them")
    common.add_checker_option(parser, "that checks each proof")
    parser.add_argument(
        "--time-limit",
        type=common.seconds,
        metavar="SECONDS",
        help="time limit per certificate (default: none; 'inf': none)",
    )
    parser.add_argument(
        "--json", action="store_true", help="JSON Lines: one object per certificate, then a summary"
    )
    common.add_executor_options(parser, "the certificates")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp check-certificate``; return the exit code."""
    from ..certify.check import check_certificates, manifest_paths
    from ..certify.checkers import require_checker

    require_checker(args.checker)
    paths = manifest_paths(args.paths)
    if not paths:
        raise CliError(f"no certificate manifests (*.json) in {', '.join(args.paths)}")
    checks = check_certificates(
        paths, checker=args.checker, time_limit=args.time_limit, executor=common.executor(args)
    )
    counts: Counter[str] = Counter()
    start = time.perf_counter()
    enabled = False if args.no_progress else None
    with common.progress(len(paths), "checking", enabled=enabled) as bar:
        for check in checks:
            counts[check.verdict] += 1
            if args.json:
                line = json_dumps(check.to_json())
            else:
                line = f"{_SHOWN[check.verdict]}  {check.path}  {check.claim or '?'}: {check.reason}"
            common.print_line(bar, line)
            if bar is not None:
                bar.update()
    code = common.worst_exit(_EXIT[verdict] for verdict in counts)
    seconds = time.perf_counter() - start
    if args.json:
        summary = {"certificates": len(paths), **{v: counts[v] for v in _EXIT}, "seconds": round(seconds, 6)}
        common.out(json_dumps({"summary": {**summary, "exit_code": code}}))
    else:
        tally = ", ".join(f"{counts[v]} {v}" for v in _EXIT if counts[v])
        common.out(f"summary: {len(paths)} certificates: {tally}; {seconds:.3f} s")
    return code
