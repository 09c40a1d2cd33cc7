"""Solvers of whole puzzles behind one search signature (see base.py)."""
