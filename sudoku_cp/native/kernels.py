"""What the ``backtrack`` kernels and their driver share, without numba: codes, state, tables.

The two compiled kernels (``bitset``: any box shape; ``bitset9``: 9x9) take the same batch and
return the same statuses, and keep their whole search in arrays so that the driver
(``sudoku_cp.native.backtrack``) can call them again to resume.  This module holds that
contract (statuses, per-puzzle outcomes, rule flags, the resumable state vector) and the
arrays each kernel reads, so that the driver can make them before it knows whether a kernel
comes from numba or from machine code saved by an earlier process (``machine_code``).

The 9x9 layout (``bitset9``): word ``3d + b`` holds the cells of band b (bit 9r + c: row r of
the band, column c) where digit d + 1 may still go; then three words of placed cells, three
of bivalue cells and nine of folded digit boards (``WORDS``).  Its lookup tables are one array
(``tables9``) at the offsets below.
"""

from __future__ import annotations

from itertools import permutations
from typing import NamedTuple

import numpy as np

from .chunks import BUDGET, FLUSH

__all__ = [
    "BUDGET",
    "DONE",
    "ENTRY9_ARGUMENTS",
    "ENTRY_ARGUMENTS",
    "EXHAUSTED",
    "FLUSH",
    "GROW",
    "LEVEL_WORDS",
    "LIMIT",
    "MODE_START",
    "PENDING",
    "RULES_ALL",
    "RULE_LOCKED",
    "RULE_SCORE",
    "STATE_SIZE",
    "S_MODE",
    "S_PUZZLE",
    "S_QUEUED",
    "S_SOLUTIONS",
    "S_TOP",
    "T_COLUMNS",
    "T_PEERS",
    "T_SEGMENTS",
    "T_SHRINK",
    "T_SINGLE",
    "TABLE9_SIZE",
    "Tables",
    "WORDS",
    "Work",
    "Work9",
    "tables9",
]

# Statuses of a kernel call: DONE (every puzzle answered) or why it returned early: BUDGET (the
# node budget is spent), FLUSH (the solution buffer is full), GROW (the stack of states is full).
DONE = 0
GROW = -3

# Per-puzzle outcome (``done``): still searching, exhausted (the count is exact), limit reached.
PENDING, EXHAUSTED, LIMIT = 0, 1, 2

#: Rule flags: locked candidates; scored guesses (else the first cell with fewest candidates).
RULE_LOCKED = 1
RULE_SCORE = 2
RULES_ALL = RULE_LOCKED | RULE_SCORE

# The resumable state vector: puzzle being searched, search mode, stack height, work still due
# in the node being propagated (the general kernel: cells queued for rule 1; the 9x9 kernel:
# band and stack steps), solutions in the buffer.
S_PUZZLE, S_MODE, S_TOP, S_QUEUED, S_SOLUTIONS = range(5)
STATE_SIZE = 5
#: The first mode of a puzzle (set it up); the others (propagate, branch, pop) are the kernels'.
MODE_START = 0

#: Words of the 9x9 state: 27 digit-band words, 3 placed-cell words, 3 bivalue-cell words, and
#: 9 folded digit boards the stack step is known to leave as they are (it depends on them alone).
WORDS = 42
#: Words of a stacked 9x9 level: the first 30 words of the state and the index of the word that
#: lost the guessed digit.
LEVEL_WORDS = 31
#: The C entry points' arguments, in order (``bitset.entry_object``, ``bitset9.entry_object``):
#: the kernel's arrays as pointers ("int8*": a pointer to int8) with the lengths their shapes need,
#: and its scalars; each entry returns the kernel's status as int64.
_RESULTS = (  # the arguments both entry points end with
    ("out", "int16*"),
    ("rows", "int64"),
    ("owner", "int64*"),
    ("counts", "int64*"),
    ("done", "int8*"),
    ("nodes", "int64*"),
    ("budget", "int64"),
    ("rules", "int64"),
)
ENTRY_ARGUMENTS = (
    ("givens", "int8*"),
    ("puzzles", "int64"),
    ("p", "int64"),
    ("q", "int64"),
    ("peers", "uint16*"),
    ("peer_count", "int64"),
    ("units", "uint16*"),
    ("cell_units", "uint16*"),
    ("unit_bits", "uint64*"),
    ("limit", "int64"),
    ("keep", "int64"),
    ("cur", "uint64*"),
    ("queue", "int32*"),
    ("dirty", "uint64*"),
    ("dirty_words", "int64"),
    ("seg", "uint64*"),
    ("seg_words", "int64"),
    ("job_unit", "int64*"),
    ("job_bits", "uint64*"),
    ("jobs", "int64"),
    ("stack", "uint64*"),
    ("stack_cell", "int32*"),
    ("levels", "int64"),
    ("state", "int64*"),
    *_RESULTS,
)
ENTRY9_ARGUMENTS = (
    ("givens", "int8*"),
    ("puzzles", "int64"),
    ("table", "uint32*"),
    ("limit", "int64"),
    ("keep", "int64"),
    ("words", "uint32*"),
    ("stack", "uint32*"),
    ("levels", "int64"),
    ("state", "int64*"),
    *_RESULTS,
)
# Offsets of the 9x9 tables in their one array.
T_SHRINK, T_COLUMNS, T_SEGMENTS, T_SINGLE, T_PEERS = 0, 512, 1024, 1536, 2048
TABLE9_SIZE = T_PEERS + 27


class Tables(NamedTuple):
    """A geometry as the general kernel reads it (unsigned indices: no negative-index checks).

    ``peers`` (n*n, 3n-p-q-1) uint16: the other cells of each cell's units; ``units`` (3n, n)
    uint16: rows, columns, boxes; ``cell_units`` (n*n, 3) uint16: each cell's row r, column
    n + c and box 2n + b; ``unit_bits`` (n*n,) uint64: those three units as bits of one word
    (zero when 3n > 64, where the dirty units take several words).
    """

    p: int
    q: int
    peers: np.ndarray
    units: np.ndarray
    cell_units: np.ndarray
    unit_bits: np.ndarray


class Work(NamedTuple):
    """The general kernel's search state, all of it resumable.

    ``cur`` (n*n,) uint64 candidates; ``queue`` (n*n,) int32 cells queued for rule 1; ``dirty``
    (ceil(3n/64),) uint64 units to read for rule 2; ``seg`` (n(p+q) + 4n,) uint64 and
    ``job_unit`` (2n(p+q), 3) int64 / ``job_bits`` (2n(p+q),) uint64: rule 3's segments and its
    eliminations (the digits ``job_bits`` leave unit ``job_unit[0]`` except its cells whose unit
    number ``job_unit[1]`` is ``job_unit[2]``); ``stack`` (L, n*n) uint64 and ``stack_cell`` (L,)
    int32: the states pushed under the guesses (without the guessed digit) and the guessed cells;
    ``state`` (STATE_SIZE,) int64.
    """

    cur: np.ndarray
    queue: np.ndarray
    dirty: np.ndarray
    seg: np.ndarray
    job_unit: np.ndarray
    job_bits: np.ndarray
    stack: np.ndarray
    stack_cell: np.ndarray
    state: np.ndarray


class Work9(NamedTuple):
    """The 9x9 kernel's search state, all of it resumable.

    ``words`` (WORDS,) uint32: the node being searched; ``stack`` (L, LEVEL_WORDS) uint32: the
    states pushed under the guesses (without the guessed digit); ``state`` (STATE_SIZE,) int64,
    its ``S_QUEUED`` slot holding the band and stack steps still due (27 + 9 bits) when a
    budget stopped a node.
    """

    words: np.ndarray
    stack: np.ndarray
    state: np.ndarray


def tables9() -> np.ndarray:
    """The 9x9 kernel's lookup tables in one read-only uint32 array (offsets ``T_*``).

    For a 9-bit row of a band (3 boxes of 3 cells): ``shrink`` its nonempty boxes (3 bits) and
    ``single`` the row itself when it has one cell, else 0.  For a 9-bit pattern of segments (bit
    3r + k: row r and box k of a band, or band r and column k of a stack), the segments in some
    perfect matching of rows to boxes: ``segments`` their cells as a band word (the band step's
    lookup), ``columns`` the same segments as bits 9r + k (the stack step's, for a stack's
    columns in three folded band words); 0 when there is no perfect matching.  ``peers`` (27):
    the row and box mates of each cell of a band.
    """
    bits = np.arange(512)
    table = np.zeros(TABLE9_SIZE, np.uint32)
    boxes = (bits[:, None] >> (3 * np.arange(3))) & 7
    table[T_SHRINK : T_SHRINK + 512] = ((boxes != 0) << np.arange(3)).sum(axis=1)
    table[T_SINGLE : T_SINGLE + 512] = np.where(bits & (bits - 1) == 0, bits, 0)
    matched = np.zeros(512, np.int64)
    for perm in permutations(range(3)):
        matching = sum(1 << (3 * r + k) for r, k in enumerate(perm))
        matched |= np.where(bits & matching == matching, matching, 0)
    kept = (matched[:, None] >> np.arange(9)) & 1  # (512, 9): segment s kept
    slot = np.arange(9)
    table[T_SEGMENTS : T_SEGMENTS + 512] = kept @ (7 << (9 * (slot // 3) + 3 * (slot % 3)))
    table[T_COLUMNS : T_COLUMNS + 512] = kept @ (1 << (9 * (slot // 3) + slot % 3))
    cells = np.arange(27)
    row, box = cells // 9, (cells % 9) // 3
    mates = ((row[:, None] == row) | (box[:, None] == box)) & (cells[:, None] != cells)
    table[T_PEERS:] = mates.astype(np.int64) @ (1 << cells)
    table.setflags(write=False)
    return table
