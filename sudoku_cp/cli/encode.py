"""``sudoku-cp encode``: the model of a puzzle (or a Nishio instance) for another solver."""

from __future__ import annotations

import argparse
import sys

from ..errors import naming_file
from ..formats import ParseError
from . import common

__all__ = ["add_parser", "run"]

ENCODE_HELP = """\
Write the model of one puzzle for another solver:
  cnf    DIMACS CNF; 'c' comments give the geometry, the encoding, the variable rule
         x(R,C,D) = (R-1)*n*n + (C-1)*n + D (or the map of the optimized encoding) and the
         size of each constraint family.  Clauses are written as they are made, a chunk at a
         time (bounded memory); a model whose text no SAT solver here could read is refused
         first, with its size (see encodings/cnf.md)
  xc     exact cover in Knuth's DLX format (items line, then one option per line)
  cpsat  a CP-SAT model as protobuf text (--model bool or alldiff)

examples:
  sudoku-cp encode --to cnf --encoding extended --amo seqcounter puzzle.txt -o puzzle.cnf
  sudoku-cp encode --to xc puzzle.txt -o puzzle.dlx
  sudoku-cp encode --to cpsat --model alldiff puzzle.txt -o puzzle.pb.txt
  sudoku-cp encode --nishio --to cnf instance.txt -o instance.cnf   # a single-digit subproblem

A Nishio instance is read in any form 'nishio' reads, the sparse form ('nishio-sparse' header,
one 'R C' line per cell) included, at any side; its models are built from the cells of S and
the CNF and exact cover are written as they are made (a CNF estimated not to fit in memory is
refused first, with the estimate)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``encode``."""
    from ..cnf.sudoku import CnfEncoding

    parser = common.add_command(
        commands, "encode", "write a puzzle as CNF, exact cover or CP-SAT model", ENCODE_HELP
    )
    common.add_puzzle_argument(parser)
    common.add_input_options(parser)
    parser.add_argument(
        "--to", choices=("cnf", "xc", "cpsat"), default="cnf", help="model kind (default: cnf)"
    )
    common.add_encoding_options(parser, CnfEncoding.EXTENDED.value)
    parser.add_argument(
        "--model",
        choices=("bool", "alldiff"),
        default="bool",
        help="CP-SAT model for --to cpsat (default: bool)",
    )
    parser.add_argument(
        "--nishio",
        action="store_true",
        help="PUZZLE is a Nishio instance (see 'sudoku-cp nishio --help'): write its single-digit model; "
        "--amo picks the exactly-one encoding, --model alldiff the integer model (one column per row)",
    )
    parser.add_argument("-o", "--out", metavar="FILE", help="write to FILE (default: standard output)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp encode``; return the exit code."""
    what = _encode_nishio(args) if args.nishio else _encode_puzzle(args)
    if args.out:
        common.out(f"wrote {args.out}: {what}")
    return common.EXIT_OK


def _encode_puzzle(args: argparse.Namespace) -> str:
    puzzle, _ = common.one_puzzle(args, "encode")
    if args.to == "cnf":
        from ..cnf.dimacs import write_dimacs
        from ..cnf.sudoku import encode_cnf

        cnf = encode_cnf(puzzle, args.encoding, args.amo, use="write")  # refused if it cannot fit
        # Clauses are made and written a chunk at a time: memory stays bounded whatever the model.
        write_dimacs(
            args.out or sys.stdout, cnf.blocks(), cnf.n_vars, cnf.comments(), n_clauses=cnf.n_clauses
        )
        return (
            f"DIMACS CNF, {cnf.n_vars} variables, {cnf.n_clauses} clauses "
            f"({cnf.encoding.value}, {cnf.amo.value})"
        )
    if args.to == "xc":
        from ..exact_cover import build_exact_cover, export_dlx

        model = build_exact_cover(puzzle, use="write")
        common.write_text(args.out, export_dlx(model))
        return f"exact cover (DLX format), {model.n_items} items, {model.n_options} options"
    from ..cpsat import build_cpsat_model, export_cpsat_model

    cp = build_cpsat_model(puzzle, args.model, use="write")
    common.write_text(args.out, export_cpsat_model(cp))
    sizes = cp.sizes()
    return f"CP-SAT model ({args.model}), {sizes['variables']} variables, {sizes['constraints']} constraints"


def _encode_nishio(args: argparse.Namespace) -> str:
    """Write the model of a Nishio instance; returns what was written."""
    from ..nishio.text import parse_instance

    text, name = common.read_argument(args.puzzle, literal=False)
    try:
        instance = parse_instance(text, box=args.box)
    except ParseError as problem:
        raise common.CliError(f"{name or args.puzzle}: {problem}") from None
    if args.to == "cnf":
        from ..cnf.sudoku import AmoEncoding
        from ..nishio.cnf import stream_nishio_dimacs

        encoding = AmoEncoding(args.amo or "pairwise")
        # Made and written a chunk of units at a time (refused first if a chunk cannot fit).
        n_vars, n_clauses = stream_nishio_dimacs(instance, encoding, args.out or sys.stdout)
        return (
            f"Nishio DIMACS CNF, {n_vars} variables ({instance.size} cells of S), "
            f"{n_clauses} clauses (exactly-one: {encoding.value})"
        )
    if args.to == "xc":
        from ..nishio.exact_cover import build_nishio_exact_cover, write_nishio_dlx

        model = build_nishio_exact_cover(instance)
        if args.out is None:
            write_nishio_dlx(model, sys.stdout)
        else:
            with naming_file(args.out), open(args.out, "w", encoding="utf-8", newline="\n") as handle:
                write_nishio_dlx(model, handle)
        return f"Nishio exact cover (DLX format), {model.n_items} items, {model.n_options} options"
    from ..nishio.cpsat import build_nishio_cpsat, export_nishio_cpsat

    cp = build_nishio_cpsat(instance, args.model)
    common.write_text(args.out, export_nishio_cpsat(cp))
    sizes = cp.sizes()
    counts = f"{sizes['variables']} variables, {sizes['constraints']} constraints"
    return f"Nishio CP-SAT model ({args.model}), {counts}"
