"""Formula families (``reduction.families``): seeded, validated, their known answers agree with solvers.

Every family at small sizes: the same seed gives the same clauses; the known answer (a theorem,
Gaussian elimination, or CaDiCaL) agrees with pysat on the formula AND with the Nishio SAT method
on the reduced instance; a witness decodes to a placement both checkers accept.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sudoku_cp.nishio.api import make_method
from sudoku_cp.outcome import Status
from sudoku_cp.reduction.decode import assignment_from_placement
from sudoku_cp.reduction.families import (
    FAMILIES,
    FamilyError,
    decide,
    make_family_formula,
    reduce_family,
    solve_xor,
    split_assignment,
    xor_system,
)
from sudoku_cp.reduction.formula import Formula, solve_formula, to_3sat

#: Small sizes of every family: each reduces to an instance the SAT method decides in well under a second.
SMALL = {
    "random": (4, 5, 6),
    "planted": (4, 5, 6),
    "tseitin": (4, 6),
    "pigeonhole": (1, 2),
    "parity": (2, 3, 4),
    "xor": (4, 5, 7),
}
CASES = [(family, size, seed) for family, sizes in SMALL.items() for size in sizes for seed in (0, 1)]


def test_every_family_has_small_cases() -> None:
    assert set(SMALL) == set(FAMILIES)


@pytest.mark.parametrize(("family", "size", "seed"), CASES)
def test_known_answer_agrees_with_solvers_on_formula_and_instance(family: str, size: int, seed: int) -> None:
    made = decide(make_family_formula(family, size, seed))
    assert made.expected in ("sat", "unsat")
    satisfiable, _ = solve_formula(made.formula)
    assert made.expected == ("sat" if satisfiable else "unsat"), made.reason
    reduced = reduce_family(made)
    decision = make_method("sat").decide(reduced.reduction.instance, 60)
    assert decision.status is (Status.SOLVED if satisfiable else Status.UNSAT)
    if made.answer.witness is not None:
        assert reduced.placement is not None
        assert made.formula.satisfied_by(made.answer.witness)
        decoded = assignment_from_placement(reduced.reduction, reduced.placement)
        assert made.formula.satisfied_by(decoded)
    metadata = reduced.metadata()
    assert metadata["expected"] == made.expected and metadata["reason"] == made.reason
    assert metadata["family"]["family"] == family


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_same_seed_same_formula_other_seed_usually_other(family: str) -> None:
    size = SMALL[family][-1]
    state = random.getstate()
    a = make_family_formula(family, size, 3)
    assert random.getstate() == state  # cnfgen's global seeding is undone
    b = make_family_formula(family, size, 3)
    assert a.formula.to_dimacs() == b.formula.to_dimacs()
    assert a.expected == b.expected and a.answer.witness == b.answer.witness
    if family not in ("pigeonhole", "parity"):  # those have no randomness
        others = {make_family_formula(family, size, seed).formula.to_dimacs() for seed in range(4, 8)}
        assert len(others) > 1


def test_fixed_formula_bytes_per_seed() -> None:
    """The clauses of one seed stay those of today's cnfgen (a change of generator is a new formula)."""
    made = make_family_formula("tseitin", 6, 5)
    assert made.formula.num_vars == 9 and made.formula.num_clauses == 24
    again = make_family_formula("tseitin", 6, 5)
    assert made.formula.clauses == again.formula.clauses


def test_planted_witness_through_theorem_6_2() -> None:
    made = make_family_formula("planted", 5, 2)
    reduced = reduce_family(made, nonempty=True)
    assert reduced.placement is not None
    cells = {(r, int(c)) for r, c in enumerate(reduced.placement)}
    assert cells & set(reduced.reduction.witness_cells)
    assert reduced.known_answer()["expected_for"].startswith("Theorem 6.2")


def test_wide_planted_witness_is_extended_through_the_split() -> None:
    made = make_family_formula("planted", 7, 1, width=5, ratio=3.0)
    assert made.formula is not made.generated and made.formula.num_vars > 7
    assert made.answer.witness is not None and made.formula.satisfied_by(made.answer.witness)
    assert made.answer.witness[:7] == made.answer.witness[:7]


def test_split_assignment_matches_to_3sat_numbering() -> None:
    generated = Formula(6, ((1, 2, 3, 4, 5, 6), (-1, -2, -3, -4), (6,)))
    formula = to_3sat(generated)
    for bits in range(64):
        values = [bool(bits >> i & 1) for i in range(6)]
        if generated.satisfied_by(values):
            extended = split_assignment(generated, formula, values)
            assert formula.satisfied_by(extended)


def test_xor_system_and_gaussian_elimination() -> None:
    made = make_family_formula("xor", 12, 4, ratio=0.7)
    system = xor_system(made.formula)
    assert system is not None and len(system) == round(0.7 * 12)
    solution = solve_xor(made.formula.num_vars, system)
    satisfiable, _ = solve_formula(made.formula)
    assert (solution is not None) == satisfiable
    inconsistent = [((1, 2), 0), ((2, 3), 0), ((1, 3), 1)]
    assert solve_xor(3, inconsistent) is None
    assert xor_system(Formula(3, ((1, 2, 3),))) is None  # one clause of a parity is not the parity


def test_parity_answer_follows_the_size() -> None:
    assert make_family_formula("parity", 6, 0).expected == "sat"
    assert make_family_formula("parity", 7, 0).expected == "unsat"


def test_decide_leaves_unknown_on_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.reduction import families

    monkeypatch.setattr(families, "solve_formula", lambda *args, **kwargs: (None, None))
    made = families.decide(make_family_formula("random", 10, 0), time_limit=0.01)
    assert made.expected == "unknown" and "time limit" in made.reason


@pytest.mark.parametrize(
    ("family", "size", "params", "words"),
    [
        ("nosuch", 5, {}, "unknown family 'nosuch'"),
        ("tseitin", 2, {}, "out of range 4.."),
        ("tseitin", 5, {}, "size * degree must be even"),
        ("pigeonhole", 61, {}, "out of range 1..60"),
        ("pigeonhole", 3, {"ratio": 2.0}, "takes no parameter ratio"),
        ("random", 10, {"ratio": -1.0}, "ratio -1.0 is out of range"),
        ("random", 10, {"width": 9}, "width 9 is out of range"),
        ("random", 4, {"width": 5}, "width 5 needs at least 5 variables"),
        ("random", 5, {"ratio": 100.0}, "family random size 5"),
        ("xor", 100_000, {}, "out of range 3..20000"),
    ],
)
def test_bad_requests_are_one_line_family_errors(
    family: str, size: int, params: dict[str, float], words: str
) -> None:
    with pytest.raises(FamilyError) as raised:
        make_family_formula(family, size, 0, **params)
    assert words in str(raised.value) and "\n" not in str(raised.value)


# ------------------------------------------------------------------------------------ reduce --family


def test_reduce_family_writes_instance_metadata_formula_and_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from sudoku_cp.cli import main
    from sudoku_cp.nishio.text import parse_instance
    from sudoku_cp.reduction.formula import parse_dimacs

    out, meta, cnf, witness = (str(tmp_path / name) for name in ("i.nishio", "i.json", "f.cnf", "w.txt"))
    args = ["reduce", "--family", "planted", "--size", "6", "--seed", "3", "-o", out, "--meta", meta]
    code = main([*args, "--write-formula", cnf, "--witness", witness, "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["expected"] == "sat" and summary["reason"] == "planted assignment"
    data = json.loads(Path(meta).read_text())
    assert data["expected"] == "sat" and data["family"]["seed"] == 3
    made = make_family_formula("planted", 6, 3)
    assert parse_dimacs(Path(cnf).read_text()) == made.formula
    instance = parse_instance(Path(out).read_text())
    assert instance.size == summary["cells"]
    assert main(["reduce", "--decode", meta, witness]) == 0
    assert "s SATISFIABLE" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--family", "nosuch", "--size", "3"], "unknown family 'nosuch'"),
        (["--family", "tseitin", "--size", "3"], "size 3 is out of range"),
        (["--family", "tseitin"], "needs --size N"),
        (["--size", "3", "f.cnf"], "--size goes with --family"),
        (["--family", "tseitin", "--size", "6", "--witness", "w", "-o", "o"], "no model is known"),
        (["--family", "tseitin", "--size", "6", "f.cnf"], "makes its own formula"),
    ],
)
def test_reduce_family_bad_input_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    from sudoku_cp.cli import main

    monkey = pytest.MonkeyPatch()
    monkey.chdir(tmp_path)
    try:
        assert main(["reduce", *args]) == 2
    finally:
        monkey.undo()
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_reduce_family_certify_writes_a_formula_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from sudoku_cp.cli import main

    out, meta, proofs = str(tmp_path / "i.nishio"), str(tmp_path / "i.json"), tmp_path / "certs"
    args = ["reduce", "--family", "tseitin", "--size", "6", "-o", out, "--meta", meta, "--json"]
    assert main([*args, "--certify", str(proofs)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["expected"] == "unsat" and Path(summary["certificate"]).exists()
    assert main(["check-certificate", summary["certificate"]]) == 0


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("family", "size"),
    [("tseitin", 40), ("pigeonhole", 8), ("parity", 11), ("xor", 100), ("planted", 150), ("random", 100)],
)
def test_known_answers_of_medium_formulas_agree_with_cadical(family: str, size: int) -> None:
    for seed in range(3):
        made = make_family_formula(family, size, seed)
        satisfiable, _ = solve_formula(made.formula, time_limit=300)
        assert satisfiable is not None
        if made.expected != "unknown":
            assert made.expected == ("sat" if satisfiable else "unsat"), made.name
