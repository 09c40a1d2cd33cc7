"""Human-style deduction: rules that never guess, an engine that explains, rates and generates.

Module map:

- ``board``: the solving state (placed digits, candidates) and contradictions;
- ``step``: one rule application (what it saw, what it places or removes);
- ``rules``: the rule table (``rules.local``: compiled singles, locked candidates, subsets,
  fish, XY-wing; ``rules.aic``: strong-link fishes, X/Y/XY chains and loops; ``rules.wings``:
  XYZ/WXYZ/VWXYZ wings; the matching, bilocation/bivalue chain, 2-SAT, Nishio and uniqueness
  rules beside them; ``rules.scale``: the weights of the measured steps);
- ``engine``: easiest step first until solved or stuck (``deduce``; ``check=True`` proves each
  step); the heaviest step it takes is the rating;
- ``proof``: every placement and elimination of a step confirmed by SAT (``StepProver``);
- ``rate``: the rating (the engine's heaviest step) and levels; ``generate``: the generator
  (unique, minimal puzzles, a target level by rejection);
- ``batch``: explain and rate over many puzzles (one result per input, worker processes);
- ``svg``: a picture per step, with the chain or cycle drawn on the candidates.

Paper: D. Eppstein, "Nonrepetitive paths and cycles in graphs with application to Sudoku",
arXiv cs/0507053 (2005), section 3; Nishio as a rule: Eppstein 2012, section 5.
"""

from __future__ import annotations

__all__: list[str] = []
