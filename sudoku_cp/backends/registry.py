"""Backends by name, as users write them after ``--backend``: one table, ``TABLE``.

Each entry (``BackendEntry``) gives a family of backends: the forms users write (``pysat``,
``pysat:<solver>``), whether its search is complete (it can prove "no solution", uniqueness and
count), the help lines of the command line, how to make one, and the name a made one reports.
``BACKEND_NAMES``, ``backends_help`` (the command line's ``--help``), ``make_backend``,
``backend_name`` and ``is_complete`` are all read from it, so a new backend is its engine module
and one entry here (or ``register`` for one made elsewhere, e.g. in a test).

A DIMACS solver program is the ``program`` entry, chosen with ``--solver-cmd`` (no name of its own).
Makers import their engine only when called: start-up does not pay for OR-tools, numba or pysat.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Backend, BackendError

if TYPE_CHECKING:
    from ..cnf.sudoku import AmoEncoding, CnfEncoding

__all__ = [
    "BACKEND_NAMES",
    "TABLE",
    "BackendEntry",
    "MakeOptions",
    "backend_name",
    "backend_names",
    "backends_help",
    "entry_of",
    "is_complete",
    "make_backend",
    "register",
]


@dataclass(frozen=True, slots=True)
class MakeOptions:
    """The options a maker may read (each family reads its own; see ``make_backend``)."""

    encoding: CnfEncoding | str | None = None
    amo: AmoEncoding | str | None = None
    workers: int = 1
    seed: int = 0
    solver_cmd: str | None = None
    trust_solver: bool = False


def _plain_label(family: str, variant: str, options: MakeOptions, batch: bool, side: int | None) -> str:
    return family


@dataclass(frozen=True, slots=True)
class BackendEntry:
    """One family of backends.

    ``forms``: what users write after ``--backend`` (``family`` alone, ``family:<...>``); empty for
    a family chosen another way (``program``: ``--solver-cmd``).  ``complete``: the search exhausts
    the space (else it finds a solution or gives up: it cannot count or prove there is none).
    ``help``: (what the user writes, what it does) rows of the ``--help`` text.  ``make(variant,
    options)``: the backend (``variant``: the text after the colon).  ``label``: the name a made
    backend reports, without making it (``backend_name``).
    """

    family: str
    forms: tuple[str, ...]
    complete: bool
    help: tuple[tuple[str, str], ...]
    make: Callable[[str, MakeOptions], Backend]
    label: Callable[[str, str, MakeOptions, bool, int | None], str] = _plain_label


# Makers: each imports its engine when called.


def _cnf_options(options: MakeOptions) -> tuple[CnfEncoding, AmoEncoding]:
    from ..cnf.sudoku import AmoEncoding, CnfEncoding

    return CnfEncoding(options.encoding or CnfEncoding.OPTIMIZED), AmoEncoding(
        options.amo or AmoEncoding.PAIRWISE
    )


def _make_pysat(variant: str, options: MakeOptions) -> Backend:
    from ..sat_solvers import incremental, solver_names
    from .pysat_backend import BATCH_SOLVER, DEFAULT_SOLVER, PysatBackend
    from .pysat_batch import PysatBatchBackend

    encoding, amo = _cnf_options(options)
    # A chosen CNF model, or a solver that solves once (the batch path needs assumptions and
    # blocking clauses): puzzle by puzzle.
    if options.encoding is not None or (variant and variant in solver_names() and not incremental(variant)):
        return PysatBackend(variant or DEFAULT_SOLVER, encoding, amo)
    # Batches ignore the at-most-one encoding: their model uses native cardinality constraints.
    return PysatBatchBackend(variant or DEFAULT_SOLVER, variant or BATCH_SOLVER, amo=amo)


def _label_pysat(family: str, variant: str, options: MakeOptions, batch: bool, side: int | None) -> str:
    from .pysat_backend import BATCH_SOLVER, BIG_SIDE, DEFAULT_SOLVER

    arrays = batch and options.encoding is None and (side is None or side < BIG_SIDE)
    return f"pysat:{variant or (BATCH_SOLVER if arrays else DEFAULT_SOLVER)}"


def _make_cpsat(variant: str, options: MakeOptions) -> Backend:
    from .cpsat_backend import CpsatBackend

    if variant not in ("", "bool", "alldiff"):
        raise BackendError(f"unknown CP-SAT model {variant!r}: use cpsat or cpsat:alldiff")
    return CpsatBackend(variant or "bool", workers=options.workers, seed=options.seed)


def _label_cpsat(family: str, variant: str, options: MakeOptions, batch: bool, side: int | None) -> str:
    return "cpsat" if variant in ("", "bool") else f"cpsat:{variant}"


def _no_variant(family: str, variant: str) -> None:
    if variant:
        raise BackendError(f"unknown backend {family}:{variant}: {family} takes no settings")


def _make_dlx(variant: str, options: MakeOptions) -> Backend:
    from .dlx_backend import DlxBackend

    _no_variant("dlx", variant)
    return DlxBackend()


def _make_backtrack(variant: str, options: MakeOptions) -> Backend:
    from .backtrack_backend import BacktrackBackend

    _no_variant("backtrack", variant)
    return BacktrackBackend()


def _make_acs(variant: str, options: MakeOptions) -> Backend:
    from .acs_backend import AcsBackend, parse_acs_settings

    return AcsBackend(parse_acs_settings(variant), seed=options.seed)


def _make_hill(variant: str, options: MakeOptions) -> Backend:
    from .hill_backend import HillBackend, parse_hill_settings

    return HillBackend(parse_hill_settings(variant), seed=options.seed)


def _make_ils(variant: str, options: MakeOptions) -> Backend:
    from .ils_backend import IlsBackend, parse_ils_settings

    return IlsBackend(parse_ils_settings(variant), seed=options.seed)


def _make_program(variant: str, options: MakeOptions) -> Backend:
    from .program_backend import ProgramBackend

    if options.solver_cmd is None:
        raise BackendError("the program backend is chosen with a solver command (--solver-cmd)")
    encoding, amo = _cnf_options(options)
    return ProgramBackend(options.solver_cmd, encoding=encoding, amo=amo, trust=options.trust_solver)


def _label_program(family: str, variant: str, options: MakeOptions, batch: bool, side: int | None) -> str:
    return f"program:{options.solver_cmd}"


_INCOMPLETE = "incomplete: finds one solution or says unknown, cannot count"

TABLE: dict[str, BackendEntry] = {
    entry.family: entry
    for entry in (
        BackendEntry(
            "pysat",
            ("pysat", "pysat:<solver>"),
            True,
            (
                (
                    "pysat",
                    "python-sat (default for solve): singles propagation over the whole batch, then "
                    "Minicard on each open puzzle's compact exactly-one model; with --encoding, and for "
                    "count, CaDiCaL 1.9.5 on that CNF",
                ),
                (
                    "pysat:<solver>",
                    "any python-sat solver, e.g. pysat:glucose4, pysat:minisat22, pysat:cadical195",
                ),
            ),
            _make_pysat,
            _label_pysat,
        ),
        BackendEntry(
            "cpsat",
            ("cpsat", "cpsat:alldiff"),
            True,
            (
                ("cpsat", "OR-tools CP-SAT on the Boolean model (--workers, --seed)"),
                ("cpsat:alldiff", "CP-SAT with one integer per cell and AllDifferent per unit"),
            ),
            _make_cpsat,
            _label_cpsat,
        ),
        BackendEntry(
            "dlx",
            ("dlx",),
            True,
            (("dlx", "native Algorithm X on the exact-cover model (default for count)"),),
            _make_dlx,
        ),
        BackendEntry(
            "backtrack",
            ("backtrack",),
            True,
            (
                (
                    "backtrack",
                    "native bitset search (numba): naked and hidden singles, locked candidates, "
                    "fewest-candidates guesses; a batch is solved in one compiled call",
                ),
            ),
            _make_backtrack,
        ),
        BackendEntry(
            "acs",
            ("acs", "acs:<settings>"),
            False,
            (
                (
                    "acs",
                    "ant colony system with best value evaporation (Lloyd & Amos; --seed; 10 s unless "
                    "--time-limit); acs:<key=value,...> sets ants, q0, rho, bve (0: off), xi, tau0, rule "
                    "(paper: greedy when q < q0, default; code: as the authors' program), iterations (a "
                    "cap), e.g. --backend acs:bve=0,rule=code",
                ),
            ),
            _make_acs,
        ),
        BackendEntry(
            "hill",
            ("hill", "hill:<settings>"),
            False,
            (
                (
                    "hill",
                    "hill climbing (Jones, Roach & Perkins): box permutations, steepest ascent, greedy "
                    "start, random restarts on plateaus (--seed); hill:<key=value,...> sets w1, w2, "
                    "plateau_size, stall_limit, post_swap, shuffle_digits (0: ascending greedy order), "
                    "max_restarts, max_iterations (none: no cap; without --time-limit restarts stop at "
                    "100000 unless set), e.g. hill:shuffle_digits=0",
                ),
            ),
            _make_hill,
        ),
        BackendEntry(
            "ils",
            ("ils", "ils:<settings>"),
            False,
            (
                (
                    "ils",
                    "iterated local search with constraint programming (Musliu & Winter): propagation, "
                    "boxes filled inside the domains, min-conflicts tabu swaps, box re-fill perturbations "
                    "(--seed); ils:<key=value,...> sets tenure, stall_limit, perturbation (refill or "
                    "swap), strength, restart_after, domain_fill, domain_swaps, max_iterations (without "
                    "--time-limit 20000000 unless set), e.g. ils:tenure=3,strength=2",
                ),
            ),
            _make_ils,
        ),
        BackendEntry(
            "program",
            (),
            True,
            (
                (
                    "--solver-cmd CMD",
                    'any DIMACS SAT program, e.g. "cadical -q", "kissat -q", "minisat"; {cnf} and {out} '
                    "in CMD stand for the CNF file and a result file",
                ),
            ),
            _make_program,
            _label_program,
        ),
    )
}


def _names() -> tuple[str, ...]:
    return tuple(form for entry in TABLE.values() for form in entry.forms)


#: Every form users may write after ``--backend``, in the table's order (the built-in families;
#: ``backend_names`` also has those added by ``register``).
BACKEND_NAMES: tuple[str, ...] = _names()


def backend_names() -> tuple[str, ...]:
    """Every form users may write after ``--backend`` now, registered families included."""
    return _names()


def register(entry: BackendEntry) -> None:
    """Add (or replace) a family in the table, e.g. a backend a test or a plug-in defines."""
    TABLE[entry.family] = entry


def entry_of(spec: str) -> BackendEntry | None:
    """The table entry of a backend name (``acs:bve=0`` -> acs) or of a made backend's name
    (``pysat:glucose4``, ``program:cadical``), or None."""
    return TABLE.get(spec.partition(":")[0])


def is_complete(backend: Backend | str) -> bool:
    """Whether a backend (or a name) searches the whole space, by the table; a family not in the
    table is taken as incomplete (it may not count, nor prove anything by exhausting a search)."""
    entry = entry_of(backend if isinstance(backend, str) else backend.name)
    return entry is not None and entry.complete


_HELP_COLUMN = 19
_HELP_WIDTH = 94


def backends_help() -> str:
    """The ``backends (--backend):`` section of the command line's help, from the table."""
    lines = ["backends (--backend):"]
    indent = " " * _HELP_COLUMN
    for entry in TABLE.values():
        for k, (form, text) in enumerate(entry.help):
            if k == 0 and not entry.complete:
                text = f"[{_INCOMPLETE}] {text}"
            head = f"  {form}".ljust(_HELP_COLUMN - 1) + " "
            if len(head) > _HELP_COLUMN:  # a long form: its text on the next lines
                lines.append(f"  {form}")
                head = indent
            lines.extend(textwrap.wrap(text, _HELP_WIDTH, initial_indent=head, subsequent_indent=indent))
    return "\n".join(lines)


def make_backend(
    spec: str = "pysat",
    *,
    encoding: CnfEncoding | str | None = None,
    amo: AmoEncoding | str | None = None,
    workers: int = 1,
    seed: int = 0,
    solver_cmd: str | None = None,
    trust_solver: bool = False,
) -> Backend:
    """The backend a name stands for, with its options; BackendError for an unknown name.

    ``encoding`` and ``amo`` (an enum or its value) choose the CNF model of the SAT backends;
    without ``encoding``, ``pysat`` and ``pysat:<solver>`` also solve batches all at once
    (``PysatBatchBackend``).  ``solver_cmd`` chooses a DIMACS program instead of ``spec``;
    ``trust_solver`` takes its UNSAT claims unconfirmed (``ProgramBackend(trust=True)``).
    """
    options = MakeOptions(encoding, amo, workers, seed, solver_cmd, trust_solver)
    family, _, variant = spec.partition(":")
    entry = TABLE["program"] if solver_cmd is not None else TABLE.get(family)
    if entry is None or (solver_cmd is None and not entry.forms):
        raise BackendError(f"unknown backend {spec!r}: choose one of {', '.join(backend_names())}")
    return entry.make(variant, options)


def backend_name(
    spec: str = "pysat",
    *,
    encoding: CnfEncoding | str | None = None,
    solver_cmd: str | None = None,
    batch: bool = False,
    side: int | None = None,
) -> str:
    """The name ``make_backend`` would give the backend, without making it (the name is not checked).

    With ``batch``, the name of what solves a batch (``Backend.batch_name``): plain ``pysat``
    batches are solved by Minicard, so their name is ``pysat:minicard``, unless every grid has
    ``side`` ``pysat_backend.BIG_SIDE`` or more (``side``: the smallest): those go one by one to
    the single-puzzle solver.
    """
    options = MakeOptions(encoding=encoding, solver_cmd=solver_cmd)
    family, _, variant = spec.partition(":")
    entry = TABLE["program"] if solver_cmd is not None else TABLE.get(family)
    if entry is None:
        return family
    return entry.label(family, variant, options, batch, side)
