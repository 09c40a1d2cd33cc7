"""The proof checkers a certificate may be checked by, and the one place a proof is judged.

``sudoku_cp`` (``drat.check_proof``: compiled, streams any proof in bounded memory) or ``dratify``
(the pure-Python reference, whose verdicts ours equals on every proof in the tests); neither
shares code with any prover.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SudokuCpError
from ..limits import Deadline
from .cnf import CertificateCnf

if TYPE_CHECKING:  # the checker itself (numba) is imported when a proof is checked
    from .drat import ProofVerdict

__all__ = [
    "CHECKERS",
    "CheckerMissing",
    "check_refutation",
    "checker_info",
    "require_checker",
    "warm_checker",
]

#: The proof checkers: our compiled one (the default) and the reference.
CHECKERS = ("sudoku_cp", "dratify")


class CheckerMissing(SudokuCpError):
    """A proof checker that cannot be used here (dratify not installed, an unknown name)."""


def require_checker(checker: str) -> None:
    """Raise CheckerMissing unless ``checker`` can check proofs in this environment."""
    if checker not in CHECKERS:
        raise CheckerMissing(f"unknown proof checker {checker!r} (one of {', '.join(CHECKERS)})")
    if checker == "dratify":
        import importlib.util

        if importlib.util.find_spec("dratify") is None:
            raise CheckerMissing("the reference checker dratify is not installed (pip install dratify)")


@cache
def checker_info(checker: str) -> dict[str, str]:
    """The checker's name and version, as manifests record them."""
    if checker == "dratify":
        from importlib.metadata import version

        return {"name": "dratify", "version": version("dratify")}
    from .. import __version__

    return {"name": "sudoku_cp.certify.drat", "version": __version__}


def check_refutation(
    cnf: CertificateCnf, proof: bytes | Path, *, checker: str = "sudoku_cp", deadline: Deadline | None = None
) -> ProofVerdict:
    """Whether ``proof`` (bytes, or a file: text or gzip) is a DRAT refutation of ``cnf``."""
    from . import drat

    if checker == "dratify":
        return drat.check_proof_reference(cnf.text().decode("ascii"), proof)
    if checker != "sudoku_cp":
        raise ValueError(f"unknown checker {checker!r} (one of {', '.join(CHECKERS)})")
    return drat.check_proof(cnf.flat, cnf.n_vars, proof, deadline=deadline)


def warm_checker(checker: str) -> None:
    """Compile or load the proof checker before any time limit starts (once per worker)."""
    if checker == "sudoku_cp":
        from .drat import warm_up

        warm_up()
