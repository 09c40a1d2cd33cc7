"""Certified answers: certificate CNFs, DRAT proofs and their checkers."""
