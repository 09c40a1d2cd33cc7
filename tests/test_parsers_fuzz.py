"""Every parser against hostile text: only the documented error escapes, and its message is one short line.

Each parser is fed random text and mutated valid inputs (characters inserted, deleted or replaced;
numbers swapped for huge, negative or malformed ones; NUL, byte-order marks, very long lines; JSON
values replaced by random JSON).  The property: the parser returns, or raises a ``SudokuCpError``
whose message is one line under ``LONGEST`` characters.  Any other exception (``ValueError`` from
``int()`` of thousands of digits, ``OverflowError``, ``RecursionError``, ``TypeError``, ...) is a bug.

The default run keeps ``DEFAULT_EXAMPLES`` per parser (random from the run's seed, see
``tests/conftest.py``); the ``slow`` variant runs ``SLOW_EXAMPLES``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.cnf.dimacs import parse_solver_output, read_dimacs, read_solver_answer
from sudoku_cp.errors import SudokuCpError
from sudoku_cp.formats import GridFormat, format_ints, format_pretty, parse_grid, parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.nishio.cnf import encode_nishio_cnf
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.text import instance_text, parse_instance, read_placement
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.formula import Formula, parse_dimacs

LONGEST = 300
DEFAULT_EXAMPLES = 60
SLOW_EXAMPLES = 3000

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"

# ------------------------------------------------------------------------------------ the property


def check_message(message: str) -> None:
    """One line, shorter than LONGEST."""
    assert "\n" not in message and "\r" not in message, message[:500]
    assert len(message) < LONGEST, message[:500]


def survives(parse: Callable[..., object], *args: object, **options: object) -> object:
    """Run a parser: its result, or None when it raised the documented error (message checked)."""
    try:
        return parse(*args, **options)
    except SudokuCpError as error:
        check_message(str(error))
        return None


# ------------------------------------------------------------------------------------------ inputs


@cache
def grid_seeds() -> tuple[str, ...]:
    hard = parse_grid(HARD)
    return (
        HARD,
        format_pretty(hard),
        format_ints(hard),
        f"{HARD}\n# a comment\n{HARD.replace('4', '.', 1)}\n{HARD[:40]}\n",
        (DATA / "aiescargot.txt").read_text(),
        "1.3.3.1.2.4.4.2.",
        "123456" + "." * 30,
    )


@cache
def nishio_instance() -> NishioInstance:
    rng = np.random.default_rng(5)
    mask = rng.random((9, 9)) < 0.5
    mask[np.arange(9), [0, 3, 6, 1, 4, 7, 2, 5, 8]] = True  # it holds a placement
    return NishioInstance(geometry_for_size(9), mask)


@cache
def placement_answer() -> str:
    """A SAT competition answer for the instance's CNF: one true cell variable per row."""
    instance = nishio_instance()
    cnf = encode_nishio_cnf(instance)
    cells = list(map(tuple, instance.cells()))
    chosen = {cells.index((r, c)) + 1 for r, c in enumerate([0, 3, 6, 1, 4, 7, 2, 5, 8])}
    literals = [v if v in chosen else -v for v in range(1, cnf.n_vars + 1)]
    return "s SATISFIABLE\nv " + " ".join(map(str, literals)) + " 0\n"


@cache
def nishio_seeds() -> tuple[str, ...]:
    instance = nishio_instance()
    return (*(instance_text(instance, form) for form in ("mask", "cells", "json")), "n=6 box=2x3 R1C1 2,3")


@cache
def placement_seeds() -> tuple[str, ...]:
    rows = ["." * 9] * 9
    placement = "\n".join(
        r[:c] + "x" + r[c + 1 :] for r, c in zip(rows, [0, 3, 6, 1, 4, 7, 2, 5, 8], strict=True)
    )
    return (placement + "\n", placement_answer(), "SAT\n1 -2 0\n")


DIMACS_SEEDS = (
    "c a comment\np cnf 3 2\n1 -2 0\n2 3 -1 0\n",
    "p cnf 5 3\n1 2\n 3 0 -4 0\n0\n%\n0\n",
    (DATA / "satlib" / "uf20-01.cnf").read_text(),
)
ANSWER_SEEDS = (
    "s SATISFIABLE\nv 1 -2 3 0\n",
    "c solver\ns SATISFIABLE\nv 1 -2\nv 3 0\n",
    "SAT\n1 -2 3 0\n",
    "1 -2 3 0",
    "s UNSATISFIABLE\n",
    "INDET\n",
)


@cache
def metadata_seed() -> str:
    formula = Formula(4, ((1, -2, 3), (-1, 4), (2, 3, -4), (1, 2, 3, 4)))
    return reduce_formula(formula, nonempty=True).metadata_json()


# ---------------------------------------------------------------------------------------- mutation

# (text, times): the payload is the text repeated, so a failing example prints short.
PAYLOADS = (
    ("-", 1),
    ("-5", 1),
    ("-1", 1),
    ("0", 1),
    ("9", 30),
    ("9", 5000),  # int() of more than 4300 digits raises ValueError
    ("-9223372036854775808", 1),
    ("18446744073709551616", 1),
    ("1e309", 1),
    ("\x00", 1),
    ("\ufeff", 1),
    ("\r", 1),
    ("\n", 1),
    ("x", 20_000),  # a very long line
    ("1 ", 10_000),
    ("p cnf 99999999999 1\n", 1),
    ("s SATISFIABLE\n", 1),
    ("[", 3000),
    ('{"n": 1000000000}', 1),
)
NUMBER = re.compile(r"-?[0-9]+")
HOSTILE_NUMBERS = ("-5", "-1", "0", "9" * 30, "9" * 5000, "-9223372036854775808", "1000000000")
EDIT = st.tuples(
    st.sampled_from(["insert", "delete", "replace", "number"]),
    st.floats(0, 1),
    st.one_of(st.sampled_from(PAYLOADS).map(lambda pair: pair[0] * pair[1]), st.text(max_size=3)),
)


def with_number(text: str, where: float, number_index: int) -> str:
    """The text with one of its numbers (picked by ``where``) replaced by a hostile one."""
    return mutate(text, [("number", where, HOSTILE_NUMBERS[number_index])])


def mutate(text: str, edits: list[tuple[str, float, str]]) -> str:
    """The text after each edit at a relative position; 'number' replaces a number by the payload."""
    for kind, where, payload in edits:
        at = int(where * len(text))
        if kind == "insert":
            text = text[:at] + payload + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + len(payload) + 1 :]
        elif kind == "replace":
            text = text[:at] + payload + text[at + len(payload) :]
        else:
            numbers = list(NUMBER.finditer(text))
            if numbers:
                hit = numbers[int(where * (len(numbers) - 1))]
                text = text[: hit.start()] + payload + text[hit.end() :]
    return text


JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
HUGE_INTEGERS = st.sampled_from([-1, 0, 2**31, 2**63, 10**30, -(10**30), 10**4000])


def replace_json(text: str, path: list[int], value: object) -> str:
    """The JSON text with the node that ``path`` picks (an index per level) replaced by ``value``."""
    data = json.loads(text)
    node = data
    for step in path:
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        children = [(key, child) for key, child in children if isinstance(node, (dict, list))]
        if not children:
            break
        key, child = children[step % len(children)]
        if not isinstance(child, (dict, list)) or step % 3 == 0:
            node[key] = value
            break
        node = child
    return json.dumps(data)


def texts(
    seeds: Callable[[], tuple[str, ...]] | tuple[str, ...], json_seeds: bool = False
) -> st.SearchStrategy[str]:
    """Random text, mutated seeds, and (for JSON seeds) seeds with a node replaced by random JSON."""

    def seed(i: int) -> str:
        texts = seeds() if callable(seeds) else seeds
        return texts[i % len(texts)]

    pick = st.builds(seed, st.integers(0, 63))
    alphabet = st.sampled_from(list('0123456789.-x|+=#, \n\tRCnpcsv{}[]":SATUN%\x00\ufeff'))
    options = [
        st.text(alphabet, max_size=200) | st.text(max_size=60),
        st.builds(mutate, pick, st.lists(EDIT, min_size=1, max_size=4)),
        st.builds(with_number, pick, st.floats(0, 1), st.integers(0, len(HOSTILE_NUMBERS) - 1)),
    ]
    if json_seeds:
        options.append(
            st.builds(
                lambda seed, path, value: (
                    replace_json(seed, path, value) if seed.lstrip().startswith("{") else seed
                ),
                pick,
                st.lists(st.integers(0, 50), min_size=1, max_size=5),
                JSON_VALUE | HUGE_INTEGERS,
            )
        )
    return st.one_of(options)


# ---------------------------------------------------------------------------------------- parsers


def grid_parsers(text: str) -> None:
    for fmt in (None, *GridFormat):
        for box in (None, (2, 3)):
            items = survives(parse_puzzles, text, box=box, fmt=fmt)
            for item in items if isinstance(items, list) else []:
                if item.error is not None:  # a batch line's error is a message too
                    check_message(item.error)
            survives(parse_grid, text, box=box, fmt=fmt)


def nishio_parsers(text: str) -> None:
    survives(parse_instance, text)
    survives(parse_instance, text, box=(2, 3))


def placement_parser(text: str) -> None:
    survives(read_placement, text, nishio_instance())


def dimacs_parsers(text: str) -> None:
    survives(read_dimacs, text)
    survives(parse_dimacs, text)


def answer_parsers(text: str) -> None:
    for n_vars in (None, 3):
        survives(read_solver_answer, text, n_vars)
        survives(read_solver_answer, text, n_vars, literals=False)
        survives(parse_solver_output, text, n_vars=n_vars)
        survives(parse_solver_output, "s SATISFIABLE\n", text, n_vars=n_vars)
        survives(parse_solver_output, "", text, n_vars=n_vars)


def metadata_parser(text: str) -> None:
    survives(Reduction.from_metadata_text, text)


CASES: dict[str, tuple[Callable[[str], None], st.SearchStrategy[str]]] = {
    "grid forms": (grid_parsers, texts(grid_seeds)),
    "nishio instances": (nishio_parsers, texts(nishio_seeds, json_seeds=True)),
    "nishio placements": (placement_parser, texts(placement_seeds)),
    "dimacs": (dimacs_parsers, texts(DIMACS_SEEDS)),
    "solver answers": (answer_parsers, texts(ANSWER_SEEDS)),
    "reduction metadata": (metadata_parser, texts(lambda: (metadata_seed(),), json_seeds=True)),
}


@pytest.mark.parametrize("name", list(CASES))
@settings(max_examples=DEFAULT_EXAMPLES)
@given(data=st.data())
def test_parsers_raise_only_their_error_in_one_short_line(name: str, data: st.DataObject) -> None:
    parse, strategy = CASES[name]
    parse(data.draw(strategy))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
@settings(max_examples=SLOW_EXAMPLES)
@given(data=st.data())
def test_parsers_raise_only_their_error_in_one_short_line_many_examples(
    name: str, data: st.DataObject
) -> None:
    parse, strategy = CASES[name]
    parse(data.draw(strategy))


# ------------------------------------------------------------------------------- the seeds are valid


def test_the_seeds_parse() -> None:
    """The mutations start from valid inputs, so they probe the parsers past their first check."""
    assert parse_grid(HARD).n == 9 and len(parse_puzzles(grid_seeds()[3])) == 3
    assert all(parse_instance(text).n in (6, 9) for text in nishio_seeds())
    assert read_placement(placement_seeds()[0], nishio_instance()).tolist() == [0, 3, 6, 1, 4, 7, 2, 5, 8]
    assert read_placement(placement_answer(), nishio_instance()).tolist() == [0, 3, 6, 1, 4, 7, 2, 5, 8]
    assert all(read_dimacs(text).n_vars in (3, 5, 20) for text in DIMACS_SEEDS)
    assert [read_solver_answer(text).satisfiable for text in ANSWER_SEEDS] == [True] * 4 + [False, None]
    assert Reduction.from_metadata_text(metadata_seed()).formula.num_vars >= 4
