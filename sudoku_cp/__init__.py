"""sudoku_cp."""
