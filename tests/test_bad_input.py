"""Every hostile input of issue 11, through ``sudoku_cp.cli.main``: its exit code and its one-line message.

A bad input is exit 2 with one line on standard error ("sudoku-cp: error: ..."), never a traceback,
never a silent misread, and never a line of megabytes.  README's exit-code table follows this one.

    case                                                        exit  message (part)
    ----------------------------------------------------------  ----  ---------------------------------------
    grid of integers starting with -5 (was: a given 5)             2  line 1, column 1: negative number -5
    grid of integers '-7 7 ...' (was: two 7s)                      2  line 1, column 1: negative number -7
    a minus before a digit in a boxed grid, --format ints/line     2  negative number
    a batch line holding -5                                        2  that line 'invalid: ... negative number'
    an acs cell value -5 (-1 is its blank)                         2  out of range (-1 or 1-9)
    Nishio cell list R-1C2, n=-9; JSON [[-1, 2]]; mask row -x      2  negative number / not a [row, column]
    decode: a model literal 10**23, -2**63 or of 5000 digits       2  too large for a 32-bit literal
    decode: a 5 MB model that cannot be read                       2  one line, its values cut
    reduce: 'p cnf 99999999999 1' (was: a traceback)               2  more than 10000000 (the cap)
    reduce: a clause count the text cannot hold                    2  what the rest of the text can hold
    reduce: a header count or a literal of 5000 digits             2  more than 10000000 / beyond the header
    nishio: JSON "n": 1000000000 (was: 21 s and 98 box shapes)     2  "n" must be an integer in 2..4096
    nishio: n=1000000000 in a cell list                            2  above the largest grid side, 4096
    nishio: JSON n=3360 without a box                              2  box shapes (2x1680, ... 46 in all)
    nishio: JSON "cells": 5; lists nested 3000 deep                2  "cells" must be a list / bad JSON
    reduce --decode: metadata nested 3000 deep, 5000 digits        2  not reduction metadata
    a puzzle of NUL bytes; a file that is not UTF-8                2  not text (control character) / not UTF-8
    an integer of 5000 digits in a grid                            2  too large for a digit
    --box 99999x99999                                              2  usage, then: above the largest, 4096
    a UTF-8 byte-order mark: puzzle file and stdin, Nishio         0  (stripped: read as without it)
      instance, DIMACS, solver output, reduction metadata
    nishio --time-limit -1 / nan, --jobs -2, other bad numbers     2  tests/test_cli_options.py (not repeated)
    solve --jobs 1000                                              0  a note: capped at 4 per core (same file)

Faults of solver programs, Ctrl-C and time limits are tested where they are built (test_program.py,
test_interrupt.py, test_cli_options.py).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ROOT

from sudoku_cp.cli import main
from sudoku_cp.cli.common import MAX_ERROR_LINE
from sudoku_cp.cnf.sudoku import encode_cnf
from sudoku_cp.formats import format_ints, format_pretty, parse_grid
from sudoku_cp.limits import compile_seconds_since, watch_compilation
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.text import instance_text
from sudoku_cp.reduction.construction import reduce_formula
from sudoku_cp.reduction.decode import placement_from_assignment
from sudoku_cp.reduction.formula import Formula

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
BOM = "\ufeff"
INTS = format_ints(parse_grid(HARD))  # starts with '4 0 0 ...'
SMALL_CNF = "c two clauses\np cnf 3 2\n1 -2 3 0\n-1 2 0\n"


def solution_answer() -> str:
    """A SAT competition answer for HARD's CNF (extended encoding): the true cell variables."""
    cnf = encode_cnf(parse_grid(HARD), "extended")
    literals = cnf.varmap.solution_literals(parse_grid(SOLUTION).values)
    return "s SATISFIABLE\nv " + " ".join(map(str, literals.tolist())) + " 0\n"


def reduction_files() -> dict[str, str]:
    """Metadata of SMALL_CNF's reduction and a placement that decodes to x1 = x2 = x3 = true."""
    reduction = reduce_formula(Formula(3, ((1, -2, 3), (-1, 2))))
    cols = placement_from_assignment(reduction, [True] * reduction.formula.num_vars)
    placed = NishioInstance.from_cells(reduction.instance.geometry, list(enumerate(map(int, cols))))
    return {"meta.json": BOM + reduction.metadata_json(), "placement.txt": instance_text(placed)}


@dataclass(frozen=True)
class Case:
    """One hostile input: the command ({name} is the file of that name), its files, what it gives."""

    name: str
    argv: tuple[str, ...]
    code: int
    message: str  # part of the error line; '' for a run that must succeed quietly
    files: dict[str, str | bytes] = field(default_factory=dict)
    stdin: str | None = None
    usage: bool = False  # an option's value: argparse prints its usage lines before the error line
    seconds: float = 10.0  # a refusal is quick


def case(name: str, argv: str, code: int, message: str, **files: str | bytes) -> Case:
    """A case whose command line is one string (files as keyword arguments, '.' for '_' in names)."""
    return Case(name, tuple(argv.split()), code, message, {k.replace("_", "."): v for k, v in files.items()})


CASES = [
    # ------------------------------------------------------------- defect 7: negative numbers
    case("ints grid -5", "solve {p.txt}", 2, "line 1, column 1: negative number -5", p_txt="-5" + INTS[1:]),
    case(
        "ints grid -7 7", "solve {p.txt}", 2, "line 1, column 1: negative number -7", p_txt="-7 7" + INTS[3:]
    ),
    case(
        "boxed grid -5",
        "solve {p.txt}",
        2,
        "line 2, column 1: negative number -5",
        p_txt=format_pretty(parse_grid(HARD)).replace("\n. 3", "\n-5 3", 1),
    ),
    case("--format ints -5", "solve --format ints {p.txt}", 2, "negative number -5", p_txt="-5" + INTS[1:]),
    case("--format line -5", "solve --format line {p.txt}", 2, "negative number -5", p_txt="-5" + HARD[2:]),
    case(
        "acs value -5",
        "solve {p.txt}",
        2,
        "value -5 out of range (-1 or 1-9)",
        p_txt="3\n1\n-5 " + " ".join(["-1"] * 80) + "\n",
    ),
    case("nishio R-1C2", "nishio {i.txt}", 2, "line 2, column 2: negative number", i_txt="n=4\nR-1C2\n"),
    case("nishio n=-9", "nishio {i.txt}", 2, "line 1, column 3: negative number", i_txt="n=-9 R1C1\n"),
    case(
        "nishio JSON [-1, 2]",
        "nishio {i.json}",
        2,
        "not a [row, column] pair",
        i_json='{"n": 4, "cells": [[-1, 2]]}',
    ),
    case(
        "nishio mask -x", "nishio {i.txt}", 2, "line 1, column 2: a minus sign", i_txt="x-x.\n" + "....\n" * 3
    ),
    # ------------------------------------------------- defect 4: tracebacks on huge numbers
    case(
        "decode 10**23",
        f"decode {HARD} {{a.txt}}",
        2,
        "model literal 100000000000000000000000 is too large for a 32-bit literal",
        a_txt="s SATISFIABLE\nv 1 100000000000000000000000 0\n",
    ),
    case(
        "decode bare 10**23",
        f"decode {HARD} {{a.txt}}",
        2,
        "too large",
        a_txt="1 -2 100000000000000000000000 0\n",
    ),
    case(
        "decode -2**63", f"decode {HARD} {{a.txt}}", 2, "too large", a_txt="SAT\n1 -9223372036854775808 0\n"
    ),
    case(
        "decode 5000 digits",
        f"decode {HARD} {{a.txt}}",
        2,
        "7777777777777777777777777777777777777... is too large for a 32-bit literal",
        a_txt="1 " + "7" * 5000 + " 0\n",
    ),
    case(
        "decode 5 MB unreadable",
        f"decode {HARD} {{a.txt}}",
        2,
        "unrecognized solver output 'oops",
        a_txt="oops " * 1_000_000 + "\n",
    ),
    case(
        "decode 5 MB bad token",
        f"decode {HARD} {{a.txt}}",
        2,
        "non-integer token",
        a_txt="s SATISFIABLE\nv " + "1 " * 500_000 + "x" * 1000 + " 0\n",
    ),
    case(
        "reduce 99999999999 variables",
        "reduce {f.cnf}",
        2,
        "99999999999 variables is more than 10000000",
        f_cnf="p cnf 99999999999 1\n1 0\n",
    ),
    case(
        "reduce absurd clause count",
        "reduce {f.cnf}",
        2,
        "what the rest of the text can hold",
        f_cnf="p cnf 3 99999999999\n1 0\n",
    ),
    case(
        "reduce 5000-digit header",
        "reduce {f.cnf}",
        2,
        "line 1, column 7: header",
        f_cnf="p cnf " + "9" * 5000 + " 1\n1 0\n",
    ),
    case(
        "reduce 5000-digit literal",
        "reduce {f.cnf}",
        2,
        "is beyond the 3 variables",
        f_cnf="p cnf 3 1\n" + "9" * 5000 + " 0\n",
    ),
    # ---------------------------------------------- defect 9: sizes, long values, byte-order marks
    case(
        "nishio JSON n=10**9",
        "nishio {i.json}",
        2,
        '"n" must be an integer in 2..4096',
        i_json='{"n": 1000000000, "cells": []}',
    ),
    case(
        "nishio cells n=10**9",
        "nishio {i.txt}",
        2,
        "line 1, column 1: n 1000000000 is above the largest grid side, 4096",
        i_txt="n=1000000000 R1C1\n",
    ),
    case(
        "nishio JSON n=3360",
        "nishio {i.json}",
        2,
        "(2x1680, 3x1120, 4x840, 5x672, 6x560, 7x480, ... 46 in all)",
        i_json='{"n": 3360, "cells": []}',
    ),
    case(
        "nishio JSON cells=5", "nishio {i.json}", 2, '"cells" must be a list', i_json='{"n": 4, "cells": 5}'
    ),
    case(
        "nishio JSON nested",
        "nishio {i.json}",
        2,
        "bad JSON",
        i_json='{"n": 4, "cells": ' + "[" * 3000 + "]" * 3000 + "}",
    ),
    case(
        "reduce --decode nested metadata",
        "reduce --decode {m.json} {p.txt}",
        2,
        "not reduction metadata",
        m_json="[" * 3000,
        p_txt="x\n",
    ),
    case(
        "reduce --decode 5000 digits",
        "reduce --decode {m.json} {p.txt}",
        2,
        "not reduction metadata",
        m_json='{"k": ' + "9" * 5000 + "}",
        p_txt="x\n",
    ),
    case("NUL bytes", "solve {p.txt}", 2, "byte 0 is the control character 0x00", p_txt="\x00" * 81),
    case("not UTF-8", "solve {p.txt}", 2, "is not UTF-8 text (byte 0)", p_txt=b"\xff\xfe" + HARD.encode()),
    case(
        "5000-digit given",
        "solve {p.txt}",
        2,
        "line 1, column 1: '99999999999999999...' is too large",
        p_txt="9" * 5000 + INTS[1:],
    ),
    Case(
        "--box 99999x99999", ("solve", "--box", "99999x99999", HARD), 2, "above the largest, 4096", usage=True
    ),
    case("BOM puzzle file", "solve --output line {p.txt}", 0, "", p_txt=BOM + HARD + "\n"),
    case(
        "BOM Nishio instance",
        "nishio {i.json}",
        0,
        "",
        i_json=BOM + '{"n": 4, "cells": [[1, 1], [2, 3], [3, 2], [4, 4]]}',
    ),
    case("BOM DIMACS", "reduce {f.cnf}", 0, "", f_cnf=BOM + SMALL_CNF),
]
CASES.append(Case("BOM stdin", ("solve", "--output", "line", "-"), 0, "", stdin=BOM + HARD + "\n"))


@pytest.fixture(scope="module")
def generated_files() -> dict[str, dict[str, str]]:
    """Inputs that take a library call to make (built once)."""
    return {"BOM solver output": {"a.txt": BOM + solution_answer()}, "BOM metadata": reduction_files()}


GENERATED = [
    Case("BOM solver output", ("decode", HARD, "{a.txt}"), 0, ""),
    Case("BOM metadata", ("reduce", "--decode", "{meta.json}", "{placement.txt}"), 0, ""),
]


def run_case(
    one: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str, float]:
    """Write the case's files, run its command in process: (exit code, stdout, stderr, seconds)."""
    names = {}
    for name, content in one.files.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        names[name] = str(path)
    argv = [names.get(arg[1:-1], arg) if arg.startswith("{") else arg for arg in one.argv]
    if one.stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(one.stdin))
    watch_compilation()
    start = time.monotonic()
    code = main(argv)
    # A fresh clone compiles numba's kernels on first use (37 s at load 10 for the DAG); compiling
    # never counts against a time limit, nor here: the case's own time is what is checked.
    seconds = time.monotonic() - start - compile_seconds_since(start)
    out, err = capsys.readouterr()
    return code, out, err, seconds


def check_outcome(one: Case, code: int, out: str, err: str, seconds: float) -> None:
    """The exit code, and one short error line naming the problem (or a quiet success)."""
    assert code == one.code, (code, err[:500])
    assert "Traceback" not in err
    assert seconds < one.seconds
    if one.code == 0:
        assert err == "", err[:500]
        return
    lines = err.splitlines()
    if one.usage:  # argparse: 'usage: ...' lines, then 'sudoku-cp solve: error: argument --box: ...'
        assert lines[0].startswith("usage: ") and ": error: argument " in lines[-1], err[:500]
        assert len(lines[-1]) <= MAX_ERROR_LINE and one.message in lines[-1], lines[-1]
        return
    assert len(lines) == 1, err[:500]
    assert lines[0].startswith("sudoku-cp: error: ")
    assert len(lines[0]) <= len("sudoku-cp: error: ") + MAX_ERROR_LINE
    assert one.message in lines[0], lines[0]


@pytest.mark.parametrize("one", CASES, ids=lambda one: one.name)
def test_hostile_input_gets_its_exit_code_and_one_short_line(
    one: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    check_outcome(one, *run_case(one, tmp_path, capsys, monkeypatch))


@pytest.mark.parametrize("one", GENERATED, ids=lambda one: one.name)
def test_a_byte_order_mark_is_stripped_from_generated_inputs(
    one: Case,
    generated_files: dict[str, dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_files = Case(one.name, one.argv, one.code, one.message, dict(generated_files[one.name]))
    check_outcome(with_files, *run_case(with_files, tmp_path, capsys, monkeypatch))


def test_a_batch_line_with_a_negative_number_is_invalid_and_the_others_are_solved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "batch.txt"
    batch.write_text(f"{HARD}\n-5{HARD[2:]}\n{HARD}\n")
    code = main(["solve", "--output", "line", str(batch)])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err
    lines = out.splitlines()
    assert sum(SOLUTION in line for line in lines) == 2
    assert any("line 2" in line and "negative number -5" in line for line in lines), out


def test_the_outputs_read_with_a_byte_order_mark_equal_those_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in (HARD, json.dumps({"n": 4, "cells": [[1, 1], [2, 3], [3, 2], [4, 4]]})):
        outputs = []
        for prefix in ("", BOM):
            path = tmp_path / "input.txt"
            path.write_text(prefix + text, encoding="utf-8")
            command = "solve" if text == HARD else "nishio"
            assert main([command, str(path)]) == 0
            outputs.append(re.sub(r"[0-9.]+ m?s\b", "", capsys.readouterr().out))  # times differ
        assert outputs[0] == outputs[1]


def test_the_real_process_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    """The installed entry point, not just main(): the huge header and the negative grid."""
    cnf, grid = tmp_path / "huge.cnf", tmp_path / "negative.txt"
    cnf.write_text("p cnf 99999999999 1\n1 0\n")
    grid.write_text("-5" + INTS[1:])
    for argv, fragment in (
        (["reduce", str(cnf)], "is more than"),
        (["solve", str(grid)], "negative number -5"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "sudoku_cp", *argv], capture_output=True, text=True, cwd=ROOT, timeout=60
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and fragment in done.stderr and "Traceback" not in done.stderr
