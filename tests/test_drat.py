"""Our DRAT checker (``sudoku_cp.certify.drat``) gives dratify's verdict on every proof here.

Every case runs both checkers and requires the same verdict (and the same failing step) as well as
the expected one: valid CaDiCaL proofs (Sudoku uniqueness CNFs of several box shapes, SATLIB,
pigeonhole), hand-written RAT proofs, corruptions that provably break a proof, parser corner
cases, a seeded random differential test, gzip and file handling, the deadline, and the same
proofs streamed in tiny pieces with tiny work budgets (pauses, resumed RAT checks, compactions).
"""

from __future__ import annotations

import functools
import gzip
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from sudoku_cp.certify import drat
from sudoku_cp.certify.drat import ProofVerdict, check_proof, check_proof_reference
from sudoku_cp.cnf.sudoku import encode_cnf
from sudoku_cp.geometry import Geometry
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.random_grids import blank_cells, random_solution

DATA = Path(__file__).parent / "data"
Clauses = list[list[int]]


# --- helpers ----------------------------------------------------------------------------------


def flat(clauses: Clauses) -> np.ndarray:
    return np.array([lit for clause in clauses for lit in [*clause, 0]], np.int64)


def dimacs(clauses: Clauses, n_vars: int) -> str:
    return f"p cnf {n_vars} {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)


def n_vars_of(clauses: Clauses) -> int:
    return max((abs(lit) for clause in clauses for lit in clause), default=0)


def both(clauses: Clauses, proof: bytes, n_vars: int | None = None) -> tuple[ProofVerdict, ProofVerdict]:
    """Both verdicts, after checking that they agree (verdict and failing step)."""
    nv = n_vars_of(clauses) if n_vars is None else n_vars
    ours = check_proof(flat(clauses), nv, proof)
    ref = check_proof_reference(dimacs(clauses, nv), proof)
    assert ours.holds == ref.holds, f"ours {ours} reference {ref} on {proof[:200]!r}"
    assert ours.failed_step == ref.failed_step, f"ours {ours} reference {ref} on {proof[:200]!r}"
    if ours.holds:
        assert ours.steps == ref.steps, (ours, ref)
    return ours, ref


def text(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def cadical_proof(clauses: Clauses) -> list[str]:
    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as solver:
        assert solver.solve() is False
        return [line.strip() for line in solver.get_proof()]


def read_satlib(name: str) -> Clauses:
    """A SATLIB file of tests/data/satlib or tests/data/drat (comments, header, '%' tail skipped)."""
    path = DATA / "satlib" / name
    if not path.exists():
        path = DATA / "drat" / name
    clauses: Clauses = []
    pending: list[int] = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "cp":
            continue
        if line[0] == "%":
            break
        for token in line.split():
            if token == "0":
                clauses.append(pending)
                pending = []
            else:
                pending.append(int(token))
    return clauses


@functools.cache
def sudoku_case(box: tuple[int, int], index: int = 0) -> tuple[Clauses, int, list[str]]:
    """The uniqueness CNF of a puzzle (extended encoding, givens, the solution blocked) and
    CaDiCaL's proof: 9x9 from forum_hardest_200, other shapes blanked from a seeded random grid
    until the CNF is unsatisfiable (the puzzle unique; such small puzzles are refuted by unit
    propagation alone, so their proofs are trivial)."""
    import sudoku_cp as sc

    if box == (3, 3):
        line = (DATA / "forum_hardest_200.txt").read_text().splitlines()[index].split()[0]
        puzzle = sc.parse_grid(line)
        solution = sc.solve(puzzle, "pysat", unique=True).solution
        assert solution is not None
        values = solution.values
        clauses = [list(c) for c in encode_cnf(puzzle, "extended", amo="pairwise").clauses()]
    else:
        geometry = Geometry(*box)
        for seed in range(100):
            rng = np.random.default_rng(seed * 1000 + index)
            full = random_solution(geometry, rng)
            puzzle = blank_cells(full, 0.55, rng)
            values = full.values
            clauses = [list(c) for c in encode_cnf(puzzle, "extended", amo="pairwise").clauses()]
            n = geometry.n
            blocked = [
                *clauses,
                [-(r * n * n + c * n + int(values[r, c])) for r in range(n) for c in range(n)],
            ]
            with Solver(name="cadical195", bootstrap_with=blocked) as solver:
                if not solver.solve():
                    break
        else:  # pragma: no cover
            raise AssertionError(f"no unique puzzle found for box {box}")
    n = box[0] * box[1]
    clauses.append([-(r * n * n + c * n + int(values[r, c])) for r in range(n) for c in range(n)])
    return clauses, n**3, cadical_proof(clauses)


@functools.cache
def satlib_case(name: str) -> tuple[Clauses, list[str]]:
    clauses = read_satlib(name)
    return clauses, cadical_proof(clauses)


@functools.cache
def php_case(holes: int) -> tuple[Clauses, list[str]]:
    clauses = [list(c) for c in PHP(holes).clauses]
    return clauses, cadical_proof(clauses)


# Four clauses over 1, 2: unsatisfiable, but not by unit propagation alone.
SQUARE: Clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]


# --- valid proofs -----------------------------------------------------------------------------

BOXES = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)]


@pytest.mark.parametrize("box", BOXES, ids=[f"{p}x{q}" for p, q in BOXES])
def test_cadical_proofs_of_sudoku_uniqueness_hold(box: tuple[int, int]) -> None:
    clauses, n_vars, proof = sudoku_case(box)
    ours, _ = both(clauses, text(proof), n_vars)
    assert ours.holds, ours


@pytest.mark.parametrize("index", [1, 2])
def test_more_9x9_uniqueness_proofs_hold(index: int) -> None:
    clauses, n_vars, proof = sudoku_case((3, 3), index)
    assert both(clauses, text(proof), n_vars)[0].holds


@pytest.mark.parametrize("name", ["uuf50-01.cnf", "uuf50-02.cnf", "uuf50-03.cnf"])
def test_cadical_proofs_of_satlib_uuf_instances_hold(name: str) -> None:
    clauses, proof = satlib_case(name)
    assert both(clauses, text(proof), 50)[0].holds


@pytest.mark.parametrize("holes", [3, 4, 5])
def test_cadical_proofs_of_pigeonhole_formulas_hold(holes: int) -> None:
    clauses, proof = php_case(holes)
    assert both(clauses, text(proof))[0].holds


# --- RAT ---------------------------------------------------------------------------------------

# An extension variable 51 <-> (1 or 2) before a real proof: RAT steps that are not RUP.
DEFINITION = ["-51 1 2 0", "51 -1 0", "51 -2 0"]


def test_definitions_by_rat_before_a_valid_proof_hold() -> None:
    clauses, proof = satlib_case("uuf50-01.cnf")
    ours, _ = both(clauses, text(DEFINITION + proof), 50)
    assert ours.holds


def test_a_rat_step_with_several_resolution_candidates_holds() -> None:
    # after the definition, 51's negation sits in three clauses; every resolvent is a tautology
    clauses, proof = satlib_case("uuf50-01.cnf")
    steps = ["-51 1 2 0", "-51 1 2 3 0", "-51 1 2 -4 0", "51 -1 0", "51 -2 0", "d -51 1 2 3 0"]
    assert both(clauses, text(steps + proof), 50)[0].holds


def test_vacuous_rat_on_a_fresh_variable() -> None:
    ours, _ = both(SQUARE, b"3 0\n2 0\n0\n")
    assert ours.holds


def test_a_clause_neither_rup_nor_rat_fails_at_its_step() -> None:
    # (-51) after the definition: its resolvents (-51 -1), (-51 -2) are not RUP on uuf50-01
    clauses, proof = satlib_case("uuf50-01.cnf")
    ours, _ = both(clauses, text([*DEFINITION, "-51 0", *proof]), 50)
    assert not ours.holds and ours.failed_step == 4


def test_rat_is_on_the_first_literal_only() -> None:
    # (1 3) with 3 fresh: RAT on 3, but not on its first literal 1 (the resolvent with (-1 2) is
    # (1 3 2), not RUP in this satisfiable formula)
    clauses = [[-1, 2], [2, 4]]
    assert both(clauses, b"3 1 0\n", 4)[0].failed_step is None
    assert both(clauses, b"1 3 0\n", 4)[0].failed_step == 1


def test_a_rat_pivot_against_a_unit_clause_fails() -> None:
    # the unit (-1) is a candidate: the resolvent is the lemma itself
    assert both([[-1], [2, 3]], b"1 4 0\n", 4)[0].failed_step == 1


# --- the root assignment -----------------------------------------------------------------------


def test_a_formula_refuted_by_unit_propagation_needs_no_proof() -> None:
    formula = [[1], [-1, 2], [-2, 3], [-3, -1]]
    assert both(formula, b"")[0].holds
    assert both(formula, b"5 0\n")[0].holds  # no empty clause needed
    assert not both(formula, b"5 x\n")[0].holds  # but the text must parse
    assert not both(formula, b"5\n")[0].holds


def test_a_formula_with_the_empty_clause_needs_no_proof() -> None:
    assert both([[1, 2], []], b"", 2)[0].holds


def test_unit_lemmas_extend_the_root_and_survive_deleting_their_reason() -> None:
    # 1 at the root implies 2 by (-1 2); deleting (-1 2) later keeps 2 at the root
    formula = [[-1, 2], [1, 6], [1, -6], [-2, 3, 4], [-2, 3, -4], [-2, -3, 5], [-2, -3, -5]]
    ours, _ = both(formula, b"1 0\nd -1 2 0\n3 0\n0\n")
    assert ours.holds
    assert not both(formula, b"d -1 2 0\n1 0\n3 0\n0\n")[0].holds


def test_deleting_units_is_ignored_and_deleting_missing_clauses_too() -> None:
    assert both(SQUARE, b"d 1 0\nd 1 1 0\nd 7 8 0\nd 0\n1 0\n0\n")[0].holds


def test_deletion_matches_the_literal_set_and_formula_clauses() -> None:
    # deleting (2 1) as (1 2 2) removes (1 2): 1 is no longer RUP
    ours, _ = both(SQUARE, b"d 2 1 2 0\n1 0\n0\n")
    assert not ours.holds and ours.failed_step == 2


def test_duplicated_clauses_need_as_many_deletions() -> None:
    formula = [*SQUARE, [1, 2]]
    assert both(formula, b"d 1 2 0\n1 0\n0\n")[0].holds
    assert not both(formula, b"d 1 2 0\nd 2 1 0\n1 0\n0\n")[0].holds


def test_tautologies_and_true_literals_are_rup() -> None:
    assert both(SQUARE, b"3 -3 0\n1 0\n1 4 0\n0\n")[0].holds


def test_repeated_literals_in_a_lemma_count_once() -> None:
    assert both(SQUARE, b"1 1 1 0\n0\n")[0].holds


def test_a_tautological_formula_clause_is_dropped() -> None:
    # with (1 -1) kept, it would be a RAT candidate of pivot 1 and refuse the lemma (1)
    assert both([[1, -1], [2, 3]], b"1 0\n", 3)[0].failed_step is None


# --- corruptions --------------------------------------------------------------------------------


def _base() -> tuple[Clauses, int, list[str]]:
    # 9x9: the unique puzzles of smaller shapes are refuted by unit propagation alone
    return sudoku_case((3, 3))


def test_base_proof_needs_a_proof() -> None:
    clauses, n_vars, proof = _base()
    assert len(proof) > 5
    assert not both(clauses, b"", n_vars)[0].holds
    assert not both(clauses, b"0\n", n_vars)[0].holds


def test_truncated_proofs_fail() -> None:
    clauses, n_vars, proof = _base()
    assert not both(clauses, text(proof[:-1]), n_vars)[0].holds
    assert not both(clauses, text(proof[: len(proof) // 2]), n_vars)[0].holds


def test_a_proof_cut_mid_clause_fails() -> None:
    clauses, n_vars, proof = _base()
    cut = next(i for i, line in enumerate(proof) if len(line.split()) >= 3 and not line.startswith("d"))
    partial = " ".join(proof[cut].split()[:1])
    ours, _ = both(clauses, text([*proof[:cut], partial]), n_vars)
    assert not ours.holds and "terminated" in ours.reason


def _first_breaking(clauses: Clauses, n_vars: int, variants: Iterator[list[str]]) -> list[str]:
    """The first variant our checker rejects at a step (confirmed with the reference by the caller)."""
    for lines in variants:
        if check_proof(flat(clauses), n_vars, text(lines)).failed_step is not None:
            return lines
    raise AssertionError("no variant breaks the proof")  # pragma: no cover


def test_a_flipped_literal_in_a_needed_lemma_fails() -> None:
    clauses, n_vars, proof = _base()

    def flips() -> Iterator[list[str]]:
        for i in range(len(proof) - 2, -1, -1):
            tokens = proof[i].split()
            if tokens[0] != "d" and len(tokens) >= 2:
                yield [*proof[:i], " ".join([str(-int(tokens[0])), *tokens[1:]]), *proof[i + 1 :]]

    lines = _first_breaking(clauses, n_vars, flips())
    ours, _ = both(clauses, text(lines), n_vars)
    assert not ours.holds and ours.failed_step is not None


def test_a_dropped_needed_lemma_fails() -> None:
    clauses, n_vars, proof = _base()
    drops = ([*proof[:i], *proof[i + 1 :]] for i in range(len(proof) - 2, -1, -1) if proof[i][0] != "d")
    lines = _first_breaking(clauses, n_vars, drops)
    ours, _ = both(clauses, text(lines), n_vars)
    assert not ours.holds and ours.failed_step is not None


def test_deleting_the_blocking_clause_early_fails() -> None:
    # without the blocking clause the formula is satisfiable (by the solution): no proof holds
    clauses, n_vars, proof = _base()
    blocking = "d " + " ".join(map(str, reversed(clauses[-1]))) + " 0"
    ours, _ = both(clauses, text([blocking, *proof]), n_vars)
    assert not ours.holds


def test_a_proof_for_another_formula_fails() -> None:
    clauses, n_vars, _ = _base()
    _, _, other = sudoku_case((3, 3), 1)
    assert not both(clauses, text(other), n_vars)[0].holds
    # a refutation of uuf50-01 checked against the satisfiable uf50-01
    _, proof = satlib_case("uuf50-01.cnf")
    assert not both(read_satlib("uf50-01.cnf"), text(proof), 50)[0].holds
    # a pigeonhole proof against a satisfiable formula over fewer variables
    _, php = php_case(4)
    assert not both(read_satlib("uf20-01.cnf"), text(php), 20)[0].holds


@pytest.mark.parametrize(
    "proof",
    [b"a\x02\x04\x00", b"\x61\x02\x00\x00\x64\x02\x00", b"1 0\n\x000\n", b"\xff\xfe1 0\n0\n"],
    ids=["binary-add", "binary-delete", "nul", "non-ascii"],
)
def test_binary_drat_is_rejected(proof: bytes) -> None:
    ours, _ = both(SQUARE, proof)
    assert not ours.holds and ("byte" in ours.reason or "token" in ours.reason)


def test_garbage_after_the_empty_clause_fails() -> None:
    clauses, n_vars, proof = _base()
    assert not both(clauses, text([*proof, "foo"]), n_vars)[0].holds
    assert not both(clauses, text([*proof, "1 2"]), n_vars)[0].holds
    assert both(clauses, text([*proof, "1 2 0", "c trailing comment"]), n_vars)[0].holds


def test_a_satisfiable_formula_is_never_refuted() -> None:
    formula = read_satlib("uf20-01.cnf")
    assert not both(formula, b"0\n", 20)[0].holds
    assert not both(formula, b"1 2 0\n-1 0\n0\n", 20)[0].holds


# --- parsing ------------------------------------------------------------------------------------

PARSE_CASES = {
    "one-line": (b"1 0 0", True),
    "glued-deletion": (b"d1 2 0\n1 0\n0\n", False),
    "glued-deletion-kept": (b"d1 3 0\n1 0\n0\n", True),
    "crlf": (b"1 0\r\n0\r\n", True),
    "tabs": (b"\t1\t0\n\t0\n", True),
    "minus-zero": (b"1 -0\n-0\n", True),
    "leading-zeros": (b"001 0\n00\n", True),
    "comments": (b"c start\n  c indented\n1 0\nc between\n0\nc end\n", True),
    "clause-across-lines": (b"1\n0\n0\n", True),
    "comment-inside-clause": (b"1\nc note\n0 0\n", True),
    "lone-cr-ends-comment": (b"c note\r9 0\n1 0\n0\n", True),
    "c-inside-line": (b"1 c 0\n0\n", False),
    "d-inside-clause": (b"1 d 2 0\n0\n", False),
    "d-twice": (b"d d 1 2 0\n1 0\n0\n", False),
    "lone-d": (b"1 0\n0\nd\n", False),
    "minus-alone": (b"1 - 0\n0\n", False),
    "unterminated": (b"1 0\n0\n2", False),
    "letters": (b"1 0\nzero\n", False),
    "huge-literal": (b"99999999999 0\n1 0\n0\n", False),
    "fresh-variable-within-bound": (b"1 0\n0\n9 0\n", True),
    "fresh-variable-beyond-bound": (b"1 0\n0\n100 0\n", False),
    "fresh-variable-in-lemma": (b"5 0\n1 0\n0\n", True),
    "empty": (b"", False),
    "only-comments": (b"c nothing\n", False),
}


@pytest.mark.parametrize("name", list(PARSE_CASES))
def test_parsing_agrees_with_dratify(name: str) -> None:
    proof, expected = PARSE_CASES[name]
    assert both(SQUARE, proof)[0].holds is expected


@pytest.mark.parametrize("proof", [b"+1 0\n0\n", b"1 0\n0_0\n", b"c \x00\n1 0\n0\n", b"1 0\x0b0\n"])
def test_our_parser_is_stricter_never_laxer(proof: bytes) -> None:
    assert check_proof_reference(dimacs(SQUARE, 2), proof).holds
    ours = check_proof(flat(SQUARE), 2, proof)
    assert not ours.holds and "line " in ours.reason


def test_variables_beyond_our_cap_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drat, "EXTRA_VARS", 10)
    ours = check_proof(flat(SQUARE), 2, b"13 0\n1 0\n0\n")
    assert not ours.holds and "variable out of range" in ours.reason
    assert check_proof(flat(SQUARE), 2, b"12 0\n1 0\n0\n").holds


def test_a_failing_step_names_its_step_line_and_clause() -> None:
    ours = check_proof(flat(read_satlib("uf20-01.cnf")), 20, b"c x\n1 2 0\n\nd 1 2 0\n-1 0\n")
    assert ours.failed_step == 3 and ours.failed_line == 5
    assert ours.reason == "step 3 (line 5): lemma '-1 0' is neither RUP nor RAT"


def test_random_bytes_never_raise_and_we_are_never_laxer() -> None:
    # whatever the bytes, a verdict; and whatever we accept, dratify accepts too
    rng = random.Random(RANDOM_SEED + 7)
    alphabet = b"0123456789-dc \n\r\t+x_\x00\x0b\xff"
    for case in range(400):
        size = rng.randint(0, 40)
        proof = bytes(rng.choice(alphabet) for _ in range(size))
        ours = check_proof(flat(SQUARE), 2, proof)
        ref = check_proof_reference(dimacs(SQUARE, 2), proof)
        assert ref.holds or not ours.holds, f"case {case}: we accept {proof!r}, dratify does not: {ref}"


def test_damaged_gzip_streams_never_raise() -> None:
    clauses, n_vars, proof = _base()
    packed = gzip.compress(text(proof))
    rng = random.Random(RANDOM_SEED + 8)
    for case in range(60):
        damaged = bytearray(packed)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(2, len(damaged))] = rng.randrange(256)
        if rng.random() < 0.3:
            damaged = damaged[: rng.randrange(2, len(damaged))]
        ours = check_proof(flat(clauses), n_vars, bytes(damaged))
        assert isinstance(ours, ProofVerdict), case
        if ours.holds:  # a change the checksum missed (or none): the text is still a valid proof
            assert check_proof_reference(dimacs(clauses, n_vars), bytes(damaged)).holds, case


# --- random differential test -------------------------------------------------------------------


def _random_case(rng: random.Random) -> tuple[Clauses, int, bytes]:
    n_vars = rng.randint(8, 14)
    clauses = []
    for _ in range(rng.randint(20, 60)):
        width = rng.choice([1, 2, 3, 3, 3, 3, 3, 3, 3, 3]) if rng.random() < 0.3 else 3
        clauses.append([rng.choice([-1, 1]) * rng.randint(1, n_vars) for _ in range(width)])
    if rng.random() < 0.05:
        clauses.append([])

    def random_clause(width: int) -> list[int]:
        return [rng.choice([-1, 1]) * rng.randint(1, n_vars + 2) for _ in range(width)]

    lines: list[str] = []
    solved = None
    if rng.random() < 0.4 and all(clauses):
        with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as solver:
            if solver.solve() is False:
                solved = [line.strip() for line in solver.get_proof()]
    if solved is not None:
        lines = solved
        for _ in range(rng.randint(0, 3)):  # mutate the real proof
            i = rng.randrange(len(lines))
            what = rng.random()
            if what < 0.3:
                del lines[i]
            elif what < 0.6 and lines[i] != "0":
                tokens = lines[i].split()
                j = rng.randrange(1 if tokens[0] == "d" else 0, len(tokens) - 1) if len(tokens) > 1 else 0
                if tokens[j] not in ("d", "0"):
                    tokens[j] = str(-int(tokens[j]))
                lines[i] = " ".join(tokens)
            else:
                lines.insert(i, "d " + " ".join(map(str, rng.choice(clauses))) + " 0")
    else:
        for _ in range(rng.randint(0, 25)):
            what = rng.random()
            if what < 0.55:
                lines.append(" ".join(map(str, random_clause(rng.randint(0, 4)))) + " 0")
            elif what < 0.8:
                victim = list(rng.choice(clauses) or [1])
                rng.shuffle(victim)
                if rng.random() < 0.3:
                    victim.append(victim[0])
                lines.append("d " + " ".join(map(str, victim)) + " 0")
            elif what < 0.9:
                lines.append("d " + " ".join(map(str, random_clause(rng.randint(1, 3)))) + " 0")
            else:
                lines.append("c " + "x" * rng.randint(0, 5))
        if rng.random() < 0.7:
            lines.append("0")
    return clauses, n_vars, text(lines)


RANDOM_SEED = 20261128


def test_random_proofs_agree_with_dratify() -> None:
    holds = 0
    for case in range(300):
        seed = RANDOM_SEED + case
        clauses, n_vars, proof = _random_case(random.Random(seed))
        ours = check_proof(flat(clauses), n_vars, proof)
        ref = check_proof_reference(dimacs(clauses, n_vars), proof)
        message = f"seed {seed}: ours {ours} reference {ref} proof {proof[:300]!r}"
        assert ours.holds == ref.holds, message
        assert ours.failed_step == ref.failed_step, message
        holds += ours.holds
    assert 30 < holds < 270  # both verdicts are well represented


def _tangled_case(rng: random.Random) -> tuple[Clauses, int, bytes]:
    """A denser mix on few variables: short clauses (units, repeats, tautologies, the empty
    clause), lemmas over fresh variables (RAT), deletions of formula clauses and of lemmas in
    any order, stray empty clauses, one-line and CRLF layouts, now and then a malformed tail."""
    nv = rng.randint(3, 8)
    clauses = []
    for _ in range(rng.randint(3, 25)):
        width = rng.choice([1, 2, 2, 3, 3, 4]) if rng.random() < 0.8 else rng.randint(0, 5)
        clauses.append([rng.choice([-1, 1]) * rng.randint(1, nv) for _ in range(width)])
    fresh = rng.randint(0, 4)

    def literal() -> int:
        return rng.choice([-1, 1]) * rng.randint(1, nv + fresh)

    lines: list[str] = []
    added: Clauses = []
    for _ in range(rng.randint(0, 30)):
        what = rng.random()
        if what < 0.5:
            lemma = [literal() for _ in range(rng.choice([0, 1, 1, 2, 2, 2, 3, 3]))]
            if lemma and rng.random() < 0.1:
                lemma.append(lemma[0])
            added.append(lemma)
            lines.append(" ".join(map(str, lemma)) + " 0")
        elif what < 0.75:
            victim = list(rng.choice(clauses + added))
            rng.shuffle(victim)
            lines.append(("d " if rng.random() < 0.8 else "d") + " ".join(map(str, victim)) + " 0")
        elif what < 0.85:
            lines.append("d " + " ".join(str(literal()) for _ in range(rng.randint(1, 3))) + " 0")
        elif what < 0.9:
            lines.append("c x")
        elif what < 0.93:  # variables beyond the formula's, some beyond dratify's bound
            lines.append(" ".join(str(rng.choice([-1, 1]) * rng.randint(1, 40)) for _ in range(2)) + " 0")
        else:
            lines.append("0")
    if rng.random() < 0.03:
        lines.append(rng.choice(["x", "1", "d", "- 0", "1 - 0"]))
    separator = rng.choice(["\n", "\n", " ", "\r\n"])
    proof = separator.join(lines) + ("\n" if rng.random() < 0.8 else "")
    return clauses, max([nv] + [abs(lit) for c in clauses for lit in c]), proof.encode()


def test_tangled_random_proofs_agree_with_dratify() -> None:
    outcomes = {"holds": 0, "step": 0}
    for case in range(600):
        seed = RANDOM_SEED + 10_000 + case
        clauses, n_vars, proof = _tangled_case(random.Random(seed))
        ours = check_proof(flat(clauses), n_vars, proof)
        ref = check_proof_reference(dimacs(clauses, n_vars), proof)
        message = f"seed {seed}: ours {ours} reference {ref} proof {proof[:300]!r}"
        assert ours.holds == ref.holds, message
        # dratify parses the whole text first: a malformed tail hides a failing step from it
        if ref.failed_step is not None or ref.steps:
            assert ours.failed_step == ref.failed_step, message
        outcomes["holds"] += ours.holds
        outcomes["step"] += ours.failed_step is not None
    assert outcomes["holds"] > 100 and outcomes["step"] > 100


# --- streaming: tiny pieces, tiny work budgets, compactions ------------------------------------


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drat, "PIECE_BYTES", 5)
    monkeypatch.setattr(drat, "WORK_BUDGET", 1)
    monkeypatch.setattr(drat, "COMPACT_MIN", 0)


def _streamed_cases() -> Iterator[tuple[str, Clauses, int, bytes]]:
    clauses, n_vars, proof = _base()
    yield "sudoku", clauses, n_vars, text(proof)
    yield "sudoku-cut", clauses, n_vars, text([*proof[:-3], proof[-3].split()[0]])
    yield "sudoku-garbage", clauses, n_vars, text([*proof, "c fine", "oops"])
    uuf, uuf_proof = satlib_case("uuf50-01.cnf")
    # lemmas weakening formula clauses, deleted at once: dead clauses outnumber live ones (compaction)
    churn = [
        f"{c[0]} {c[1]} {c[2]} {k % 150 + 1} 0\nd {k % 150 + 1} {c[2]} {c[1]} {c[0]} 0"
        for k, c in enumerate(uuf * 2)
    ]
    rat = ["-51 1 2 0", "-51 1 2 3 0", "-51 1 2 -4 0", "51 -1 0", "51 -2 0", "c comment " * 20]
    yield "uuf-churn-rat", uuf, 50, text(churn + rat + uuf_proof)
    yield "uuf-rat-fails", uuf, 50, text(churn + rat + ["-51 0"] + uuf_proof)
    for seed in range(RANDOM_SEED, RANDOM_SEED + 40):
        formula, nv, random_proof = _random_case(random.Random(seed))
        yield f"random-{seed}", formula, nv, random_proof
    for seed in range(RANDOM_SEED + 10_000, RANDOM_SEED + 10_100):
        formula, nv, random_proof = _tangled_case(random.Random(seed))
        yield f"tangled-{seed}", formula, nv, random_proof


def test_streaming_in_tiny_pieces_gives_the_same_verdicts(
    tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    rebuilds: list[int] = []
    rebuild = drat._rebuild

    def counted(*args: object) -> None:
        rebuilds.append(1)
        rebuild(*args)

    monkeypatch.setattr(drat, "_rebuild", counted)
    for name, clauses, n_vars, proof in _streamed_cases():
        ours = check_proof(flat(clauses), n_vars, proof)
        ref = check_proof_reference(dimacs(clauses, n_vars), proof)
        assert ours.holds == ref.holds, f"{name}: {ours} {ref}"
        if ref.failed_step is not None or ref.steps:
            assert ours.failed_step == ref.failed_step, f"{name}: {ours} {ref}"
    assert len(rebuilds) >= 3  # the clause store was compacted along the way


def test_streamed_cases_are_meaningful() -> None:
    verdicts = {name: check_proof(flat(c), nv, p).holds for name, c, nv, p in _streamed_cases()}
    assert verdicts["sudoku"] and verdicts["uuf-churn-rat"]
    assert not verdicts["sudoku-cut"] and not verdicts["uuf-rat-fails"] and not verdicts["sudoku-garbage"]


def test_the_clause_store_follows_the_live_clauses(monkeypatch: pytest.MonkeyPatch) -> None:
    # 40,000 lemmas added and deleted again, in pieces of 4 KiB: the store stays near its start
    import io

    monkeypatch.setattr(drat, "PIECE_BYTES", 4096)
    monkeypatch.setattr(drat, "COMPACT_MIN", 0)
    uuf, proof = satlib_case("uuf50-01.cnf")
    churn = [
        f"{c[0]} {c[1]} {c[2]} {k % 90 + 51} 0\nd {k % 90 + 51} {c[2]} {c[1]} {c[0]} 0"
        for k, c in enumerate(uuf * 184)
    ]
    data = text(churn + proof)
    checker = drat._Checker(flat(uuf), 50)
    verdict = drat._check_stream(checker, io.BytesIO(data), None, None)
    assert verdict.holds and verdict.steps > 80_000
    assert checker.st.ca.size < 8 * 3 * len(uuf) + 8192  # not the 160,000 literals added


# --- files, gzip, limits -------------------------------------------------------------------------


def test_gzip_files_and_bytes(tmp_path: Path) -> None:
    clauses, n_vars, proof = _base()
    packed = gzip.compress(text(proof))
    path = tmp_path / "proof.txt"  # detected by its magic bytes, not its name
    path.write_bytes(packed)
    plain = tmp_path / "proof.drat"
    plain.write_bytes(text(proof))
    for source in (path, str(path), packed, plain):
        assert check_proof(flat(clauses), n_vars, source).holds
        assert check_proof_reference(dimacs(clauses, n_vars), source).holds


@pytest.mark.parametrize("damage", ["truncated", "corrupted", "bad-crc"])
def test_a_damaged_gzip_is_a_failed_verdict(tmp_path: Path, damage: str) -> None:
    clauses, n_vars, proof = _base()
    packed = bytearray(gzip.compress(text(proof)))
    if damage == "truncated":
        packed = packed[: len(packed) // 2]
    elif damage == "corrupted":
        packed[20:40] = bytes(20)
    else:
        packed[-8] ^= 0xFF
    path = tmp_path / "proof.drat.gz"
    path.write_bytes(bytes(packed))
    ours = check_proof(flat(clauses), n_vars, path)
    ref = check_proof_reference(dimacs(clauses, n_vars), path)
    assert not ours.holds and not ref.holds
    assert "gzip" in ours.reason or "proof" in ours.reason


def test_a_missing_file_raises_a_sudoku_cp_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.drat"
    with pytest.raises(drat.ProofFileError, match="nowhere.drat"):
        check_proof(flat(SQUARE), 2, missing)
    with pytest.raises(drat.ProofFileError, match="nowhere.drat"):
        check_proof_reference(dimacs(SQUARE, 2), missing)
    with pytest.raises(drat.ProofFileError):
        check_proof(flat(SQUARE), 2, tmp_path)


def test_an_expired_deadline_raises() -> None:
    clauses, n_vars, proof = _base()
    with pytest.raises(TimeLimitReached):
        check_proof(flat(clauses), n_vars, text(proof), deadline=Deadline(0))
    assert check_proof(flat(clauses), n_vars, text(proof), deadline=Deadline(60)).holds


def test_size_limits() -> None:
    clauses, n_vars, proof = _base()
    data = text(proof)
    ours = check_proof(flat(clauses), n_vars, data, max_bytes=len(data) - 1)
    assert not ours.holds and "larger than" in ours.reason
    assert check_proof(flat(clauses), n_vars, data, max_bytes=len(data)).holds
    ref = check_proof_reference(dimacs(clauses, n_vars), data, max_bytes=100)
    assert not ref.holds and "too large" in ref.reason


def test_importing_the_module_loads_no_reference_and_warm_up_runs() -> None:
    import subprocess
    import sys

    code = (
        "import sys, sudoku_cp.certify.drat as d; "
        "print('dratify' in sys.modules, sum(len(k.signatures) for k in (d._parse, d._load, d._check_steps)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "0"]  # nothing imported, nothing compiled
    drat.warm_up()
