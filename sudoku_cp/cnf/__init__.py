"""CNF models of whole puzzles: variable maps, encodings and DIMACS text."""
