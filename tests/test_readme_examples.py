"""Every example of README.md runs: each ``sudoku-cp`` line as written, then the Python blocks.

The README names files a reader has (``puzzle.txt``, ``corpus.txt``, ``formula.cnf``, ``./mysolver``
...); ``STAND_INS`` makes each from the test data, and a file an earlier example writes (``--meta
inst.json``, ``--certify certs/``) is made by running that example first.  An example exits 0
unless its comment says otherwise, as in ``# ... (exit 1)``.  A line that names a file
this test does not know fails here: give the file a stand-in.  Examples that need what a test run
cannot have (a Dask scheduler at ``HOST``) are listed in ``CANNOT_RUN`` with the reason; those that
take long (budgets of half a minute, whole corpora) run in the slow stage, exactly as written.
"""

from __future__ import annotations

import contextlib
import glob
import io
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import DATA, ROOT, SHARED, read_lines

README = ROOT / "README.md"
#: The README's example puzzle (its first command's): unique, a few milliseconds for every backend.
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def _readme_commands() -> list[str]:
    """The ``sudoku-cp`` lines of the README's indented examples, comments dropped."""
    commands = []
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("    sudoku-cp "):
            commands.append(line.strip())
    return commands


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def _arguments(command: str) -> list[str]:
    return shlex.split(command, comments=True)[1:]


# ------------------------------------------------------------------------------------- stand-ins


def _lines(name: str, count: int) -> str:
    return "\n".join(read_lines(DATA / name, count)) + "\n"


def _grid6x6() -> str:
    solution = "123456456123231564564231312645645312"
    rng = np.random.default_rng(3)
    blanks = set(rng.choice(36, 20, replace=False).tolist())
    return "".join("." if k in blanks else s for k, s in enumerate(solution)) + "\n"


def _solver_output(directory: Path) -> str:
    """A SAT solver's model of ``puzzle.txt``'s default CNF, in the competition form."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    from sudoku_cp.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        assert (
            main(["encode", "--to", "cnf", str(directory / "puzzle.txt"), "-o", str(directory / "x.cnf")])
            == 0
        )
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(directory / "x.cnf")).clauses) as solver:
        assert solver.solve()
        model = solver.get_model() or []
    return "s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n"


def _instance() -> str:
    """Digit 7's open cells of the README's puzzle, as the mask text ``nishio`` reads."""
    from sudoku_cp.formats import parse_grid
    from sudoku_cp.nishio.instance import digit_instances
    from sudoku_cp.nishio.text import instance_text

    return instance_text(digit_instances(parse_grid(PUZZLE), [7])[0])


def _placement(directory: Path) -> str:
    """A placement inside ``inst.nishio`` (made by the README's reduce example), one cell a row."""
    from sudoku_cp.nishio.api import make_method
    from sudoku_cp.nishio.text import parse_instance

    instance = parse_instance((directory / "inst.nishio").read_text())
    columns = make_method("sat").find_placement(instance)
    assert columns is not None, "the README's planted formula reduces to an instance with a placement"
    cells = " ".join(f"R{r + 1}C{int(c) + 1}" for r, c in enumerate(columns))
    return f"n={instance.n} box={instance.geometry.box_label}\n{cells}\n"


def _answers(directory: Path) -> str:
    """One answer line per puzzle of ``corpus.txt``: their solutions."""
    from sudoku_cp.api import solve
    from sudoku_cp.formats import format_line, parse_grid

    solutions = [solve(parse_grid(line), "dlx").solution for line in read_lines(directory / "corpus.txt")]
    return "".join(format_line(solution) + "\n" for solution in solutions if solution is not None)


MYSOLVER = """#!{python}
# A solver program for the README's verify and fuzz examples: a puzzle line on standard input
# (or the puzzle, or a file, as the last argument), the solution line on standard output; --seed N
# and a box PxQ are read.
import os
import re
import sys

from sudoku_cp.api import solve
from sudoku_cp.formats import format_line, parse_grid

words, box, path = sys.argv[1:], None, None
while words:
    word = words.pop(0)
    if word == "--seed":
        words.pop(0)
    elif re.fullmatch(r"[0-9]+x[0-9]+", word):
        box = tuple(int(side) for side in word.split("x"))
    else:
        path = word
if path is None:
    text = sys.stdin.read()
else:  # {} stands for the puzzle itself; a file name works too
    text = open(path).read() if os.path.exists(path) else path
result = solve(parse_grid(text.strip(), box=box), "pysat")
print(format_line(result.solution) if result.solution is not None else "none")
"""

#: The files README's examples read, made in the example's directory.
STAND_INS: dict[str, Callable[[Path], str]] = {
    "puzzle.txt": lambda _: PUZZLE + "\n",
    "puzzles.txt": lambda _: _lines("norvig_top95.txt", 5),
    "corpus.txt": lambda _: _lines("euler96_easy10.txt", 3),
    "big.txt": lambda _: _lines("forum_hardest_200.txt", 6),
    "big16x16.txt": lambda _: (DATA / "inst16x16_45_0.txt").read_text(),
    "grid6x6.txt": lambda _: _grid6x6(),
    "solver-output.txt": _solver_output,
    "instance.txt": lambda _: _instance(),
    "formula.cnf": lambda _: (DATA / "satlib" / "uf20-01.cnf").read_text(),
    "placement.txt": _placement,
    "their_output.txt": _answers,
    "./mysolver": lambda _: MYSOLVER.replace("{python}", sys.executable),
}
#: What an example writes (after these options) and so need not exist before it runs.
OUTPUT_OPTIONS = {"-o", "--meta", "--svg", "--html", "--certify", "--witness", "--write-formula"}
#: Examples this test cannot run, and why.
CANNOT_RUN = {
    "tcp://": "needs a Dask scheduler at the address the reader runs",
}
#: Examples that run in the slow stage: their work is the point of the example.
SLOW = {
    "--budget": "a fuzzing budget of half a minute or more",
    "--max-side 25": "fuzzing up to 25x25 for the default budget",
    "--time-limit 10": "the ant colony may use its whole ten seconds",
    "../shared/data/": "a whole corpus",
    "--runs 5": "every puzzle five times through a program",
    "--runs 10": "every puzzle ten times",
    "--count 20": "twenty hard puzzles generated",
}
#: Which files depend on others: made in this order.
ORDER = ["puzzle.txt", "corpus.txt"]


def _reason(command: str, table: dict[str, str]) -> str | None:
    return next((why for key, why in table.items() if key in command), None)


def _inputs(command: str, commands: list[str]) -> list[str]:
    """The files the example reads: the words that name a file (a dot or a slash), outputs left out."""
    words = _arguments(command)
    found = []
    for k, word in enumerate(words):
        if k and words[k - 1] in OUTPUT_OPTIONS:
            continue
        for part in shlex.split(word) if " " in word else [word]:
            if part.startswith("-") or "{" in part or not re.search(r"[./]", part) or part.startswith("../"):
                continue
            if re.fullmatch(r"[\d.]+|[\d]+x[\d]+", part) or part == PUZZLE:
                continue
            found.append(part)
    return found


def _producer(name: str, commands: list[str], before: int) -> str | None:
    """An earlier example that writes ``name`` (the README runs in order)."""
    for command in commands[:before]:
        words = _arguments(command)
        if any(words[k - 1] in OUTPUT_OPTIONS and words[k] == name for k in range(1, len(words))):
            return command
    return None


def _run(command: str, directory: Path) -> tuple[int, str, str]:
    from sudoku_cp.cli import main

    words = []
    for word in _arguments(command):
        word = word.replace("../shared/data/", f"{SHARED}/")
        words.extend(sorted(glob.glob(word)) if "*" in word else [word])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(words)
    return code, out.getvalue(), err.getvalue()


COMMANDS = _readme_commands()


def _params() -> list[Any]:
    params = []
    for index, command in enumerate(COMMANDS):
        marks: list[pytest.MarkDecorator] = []
        if _reason(command, SLOW) is not None:
            marks = [pytest.mark.slow, pytest.mark.timeout(900)]
        params.append(
            pytest.param(index, marks=marks, id=f"{index + 1}:{' '.join(_arguments(command))[:60]}")
        )
    return params


@pytest.mark.parametrize("index", _params())
def test_readme_example_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    command = COMMANDS[index]
    if (why := _reason(command, CANNOT_RUN)) is not None:
        pytest.skip(f"README example not run: {why}")
    if "--cluster local" in command:
        pytest.importorskip("distributed", reason="the dask extra is not installed")
    if "--solver-cmd" in command and "cadical" in command and shutil.which("cadical") is None:
        pytest.skip("the cadical program is not installed")
    if "../shared/data/" in command and not SHARED.exists():
        pytest.skip(f"the shared corpora are absent (expected at {SHARED})")
    monkeypatch.chdir(tmp_path)
    _prepare(command, tmp_path)
    code, out, err = _run(command, tmp_path)
    said = re.search(r"#.*\(exit (\d+)\)", command)  # the README's comment names a non-zero exit
    expected = int(said.group(1)) if said else 0
    assert code == expected, f"{command}\nexit {code}, not {expected}\n{out[-1500:]}\n{err[-1500:]}"
    assert "Traceback" not in err


def _prepare(command: str, directory: Path) -> None:
    """Every file the example reads: a stand-in, or the output of the earlier example that writes it."""
    index = COMMANDS.index(command)
    needed = _inputs(command, COMMANDS)
    for name in ORDER + needed:
        path = directory / name
        if path.exists():
            continue
        producer = _producer(name, COMMANDS, index)
        if producer is not None:
            _prepare(producer, directory)
            code, out, err = _run(producer, directory)
            assert code == 0, f"{producer} (which writes {name})\n{out[-800:]}\n{err[-800:]}"
            continue
        if name.rstrip("/") + "/" == name and name not in STAND_INS:
            continue  # a directory the example writes into
        assert name in STAND_INS, f"README example {command!r} reads {name}: give it a stand-in in STAND_INS"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(STAND_INS[name](directory))
        if name.startswith("./"):
            path.chmod(0o755)


def test_every_readme_example_is_seen() -> None:
    """The parser finds the README's examples (a reformatted README would skip them silently)."""
    assert len(COMMANDS) >= 30 and COMMANDS[0].startswith("sudoku-cp solve")


def test_readme_python_blocks_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The Python blocks in order, in one namespace (the later ones use the earlier ones' names)."""
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in _python_blocks():
            exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - the README's own code
    assert "39168" in out.getvalue()  # the count the README's comment promises
