"""The README's ladder of hard instances, end to end on scaled-down sizes.

Each rung is made by one ``sudoku-cp reduce --family ... --size ... --seed ...`` command, exported
by ``sudoku-cp encode --nishio --to cnf --amo seqcounter`` and solved by a program or by
``sudoku-cp nishio --method sat``.  Here the same commands run on a small size of the rungs'
family (and a planted one, for the satisfiable path): the instance is made, its metadata carries
the known answer, and the answer of pysat on the exported DIMACS, of the cadical program (when it
is installed) and of ``nishio --method sat`` all match it; a satisfiable instance's model decodes
back through ``reduce --decode`` to a checked assignment.  No times are asserted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pysat.formula import CNF
from pysat.solvers import Solver
from test_cli import run

#: (family, size, seed): the ladder's family at a size small enough for the default suite, and a planted one.
SCALED = [("tseitin", 8, 1), ("planted", 6, 1)]


@pytest.mark.parametrize(("family", "size", "seed"), SCALED)
def test_ladder_rung_command_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], family: str, size: int, seed: int
) -> None:
    inst, meta, cnf = (str(tmp_path / name) for name in ("rung.nishio", "rung.json", "rung.cnf"))
    code, _, err = run(
        capsys,
        "reduce",
        "--family",
        family,
        "--size",
        str(size),
        "--seed",
        str(seed),
        "-o",
        inst,
        "--meta",
        meta,
    )
    assert code == 0, err
    data = json.loads(Path(meta).read_text())
    expected = data["expected"]
    assert expected == ("sat" if family == "planted" else "unsat"), data["reason"]

    code, _, err = run(capsys, "encode", "--nishio", "--to", "cnf", "--amo", "seqcounter", inst, "-o", cnf)
    assert code == 0, err
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=cnf).clauses) as solver:
        assert solver.solve() == (expected == "sat")
        model = solver.get_model()

    code, out, err = run(capsys, "nishio", inst, "--method", "sat", "--json")
    answer = json.loads(out)
    assert answer["satisfiable"] == (expected == "sat")
    assert code == (0 if expected == "sat" else 1), err

    if expected == "sat":
        assert model is not None
        solution = tmp_path / "model.txt"
        solution.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
        code, out, err = run(capsys, "reduce", "--decode", meta, str(solution))
        assert code == 0 and "s SATISFIABLE" in out, err

    program = shutil.which("cadical")
    if program is not None:  # the program the ladder is measured with: exit 10 sat, 20 unsat
        done = subprocess.run([program, "-q", cnf], capture_output=True, timeout=120, check=False)
        assert done.returncode == (10 if expected == "sat" else 20), done.stdout[-500:]


def test_plain_sat_searches_like_the_cadical_program(tmp_path: Path) -> None:
    """``nishio --method sat``'s solver makes the program's conflicts, one for one, so its time on
    the ladder follows the program's (README, "The ladder"); CaDiCaL 1.9.5 makes 1,047 here."""
    import re

    from sudoku_cp.nishio.cnf import stream_nishio_dimacs
    from sudoku_cp.nishio.sat import DEFAULT_SAT_SOLVER
    from sudoku_cp.reduction.families import family_instance

    program = shutil.which("cadical")
    if program is None:
        pytest.skip("the cadical program is not installed")
    asked = subprocess.run([program, "--version"], capture_output=True, text=True, check=False)
    version = asked.stdout.strip()
    if version not in ("1.5.3", "sc2021"):  # Debian's package 1.5.3 calls itself sc2021
        pytest.skip(f"the cadical program is version {version!r}, not the default's 1.5.3")
    cnf = tmp_path / "tseitin30.cnf"
    stream_nishio_dimacs(family_instance("tseitin", 30, 0).reduction.instance, "seqcounter", cnf)
    done = subprocess.run([program, str(cnf)], capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r"^c\s+conflicts:\s+(\d+)", done.stdout, re.MULTILINE)
    assert done.returncode == 20 and found is not None, done.stdout[-500:]
    with Solver(name=DEFAULT_SAT_SOLVER, bootstrap_with=CNF(from_file=str(cnf)).clauses) as solver:
        assert solver.solve() is False
        assert solver.accum_stats()["conflicts"] == int(found.group(1)) == 2820
