"""Issue 25: a Nishio instance larger than the method can take is refused from its header.

Before: a cell list ``n=4096`` was read to its end and built (4.5 s and 1.5 GB in the audit, 6.4 s
for 262,144 cells here) before the DAG refused it; a bad cell further down was reported instead
of the size.  Now the line that tells the side is the one refused, in every text form, and the
rest of the text is never read.
"""

from __future__ import annotations

import json

import pytest

from sudoku_cp.cli import main
from sudoku_cp.formats import ParseError
from sudoku_cp.nishio.text import SPARSE_HEADER, SideLimit, parse_instance

LIMIT = SideLimit(25, "the largest the test allows")
# Each form says its side on line 1; line 3 holds something unreadable that must never be reached.
FORMS = {
    "cells": "n=4096 box=64x64\nR1C1\nnot-a-cell\n",
    "cells, box only": "box=64x64\nR1C1\nnot-a-cell\n",
    "sparse": f"{SPARSE_HEADER} n=4096 box=64x64 cells=2\n1 1\nnot a cell\n",
    "mask rows": "x" + "." * 29 + "\n" + "." * 30 + "\n" + "?" * 30 + "\n",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_side_refused_from_the_line_that_tells_it(form: str) -> None:
    with pytest.raises(ParseError) as problem:
        parse_instance(FORMS[form], limit=LIMIT)
    message = str(problem.value)
    assert "line 1" in message and "larger than 25x25" in message and LIMIT.why in message


def test_json_side_refused_before_its_cells() -> None:
    text = json.dumps({"n": 4096, "box": "64x64", "cells": [[1, 1], "not a cell"]})
    with pytest.raises(ParseError, match="4096x4096 instance is larger than 25x25"):
        parse_instance(text, limit=LIMIT)


def test_sides_within_the_limit_read_as_before() -> None:
    text = "n=9 box=3x3\nR1C1 R2C5\n"
    assert parse_instance(text, limit=LIMIT) == parse_instance(text)
    assert parse_instance(text, limit=LIMIT).n == 9


def test_nishio_command_refuses_a_huge_cell_list_from_its_header(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 4,096 cells, then a bad one: the DAG's refusal names line 1, nothing after it is read
    cells = " ".join(f"R{r}C{c}" for r in range(1, 65) for c in range(1, 65))
    path = tmp_path / "huge.txt"
    path.write_text(f"n=4096 box=64x64\n{cells}\nR0C0 junk\n")
    assert main(["nishio", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "line 1" in err and "larger than 25x25" in err, err
    assert "--method sat" in err
