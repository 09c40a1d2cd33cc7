"""Compiled state and kernels of the research matching (Hall) propagator (``hall_propagator``).

Each watched line (a Sudoku unit: its open cells and missing digits) is a bipartite graph whose
edges are candidate variables; a solution is a perfect matching of every line.  The kernels
keep one matching per line over the candidates not yet false, and:

* repair it by an augmenting path when a matched candidate turns false; when none exists, the
  cells S the search reached can take only |S| - 1 digits (a Hall violation) and the conflict
  clause is "one of S's candidates outside those digits" (all of them false now);
* remove every candidate in no perfect matching (Régin: the cell and digit lie in different
  strongly connected components of the matching's residual graph); its reason is the tight
  Hall set of cells reachable from the digit, recorded with the trail position at the time, so
  the clause is rebuilt when the solver asks for it.

All state lives in two int64 arrays (``static`` and ``state``, laid out by ``layout``) plus the
int8 ``stamp`` array the solver writes each assignment into (``stamp[lit] = fixed``: index v for
true, -v, that is 2V+1-v, for false), so a Python callback per assigned literal costs one numpy
item assignment, and each kernel call passes four arrays.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["CONFLICTS", "PRUNED", "Layout", "backtrack", "build", "new_level", "propagate", "reason"]

# fields of the static header
_V, _L, _C, _E, _MAXK, _PRUNE, _RECCAP, _CELLCAP = range(8)
# offsets of static arrays (header slots 8..)
(_CELL_START, _EDGE_PTR, _EDGE_DIGIT, _EDGE_VAR, _VAR_PTR, _VAR_LINE, _VAR_CELL, _VAR_DIGIT) = range(8, 16)
# offsets of state arrays (header slots 16..)
(
    _KNOWN,
    _TRAIL,
    _POS,
    _MARKS,
    _MATE_CELL,
    _MATE_DIGIT,
    _DIRTY_FLAG,
    _DIRTY,
    _TOUCH_FLAG,
    _TOUCH,
    _SEEN,
    _REC_T,
    _REC_START,
    _REC_LEN,
    _REC_LINE,
    _REASON_REC,
    _REC_CELLS,
    _SCRATCH,
) = range(16, 34)
_HEADER = 40
# scalar fields of the state header
_TRAIL_LEN, _LEVEL, _REC_COUNT, _CELLS_LEN, _N_DIRTY, _N_TOUCH, _VISIT, _CONFLICTS, _PRUNED = range(9)
CONFLICTS = _CONFLICTS
PRUNED = _PRUNED

Layout = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""(static, state, stamp, out): the arrays every kernel takes."""


def build(
    line_sizes: list[int],
    line_edges: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    n_vars: int,
    prune: bool,
    cell_capacity: int = 1 << 22,
) -> Layout:
    """The arrays of a propagator over lines given as (local cell, local digit, variable) edge
    arrays; line l has ``line_sizes[l]`` cells and as many digits."""
    sizes = np.array(line_sizes, dtype=np.int64)
    n_lines = len(sizes)
    cell_start = np.zeros(n_lines + 1, dtype=np.int64)
    np.cumsum(sizes, out=cell_start[1:])
    total_cells = int(cell_start[-1])
    glob_cell = []
    digits = []
    variables = []
    lines = []
    for line, (cells, digit, var) in enumerate(line_edges):
        glob_cell.append(cells + cell_start[line])
        digits.append(digit)
        variables.append(var)
        lines.append(np.full(len(var), line, dtype=np.int64))
    gcell = np.concatenate(glob_cell) if glob_cell else np.zeros(0, np.int64)
    gdigit = np.concatenate(digits) if digits else np.zeros(0, np.int64)
    gvar = np.concatenate(variables) if variables else np.zeros(0, np.int64)
    gline = np.concatenate(lines) if lines else np.zeros(0, np.int64)
    order = np.lexsort((gdigit, gcell))
    edge_ptr = np.zeros(total_cells + 1, dtype=np.int64)
    np.cumsum(np.bincount(gcell, minlength=total_cells), out=edge_ptr[1:])
    edge_digit = gdigit[order]
    edge_var = gvar[order]
    by_var = np.argsort(gvar, kind="stable")
    var_ptr = np.zeros(n_vars + 2, dtype=np.int64)
    np.cumsum(np.bincount(gvar, minlength=n_vars + 1), out=var_ptr[1:])
    var_line = gline[by_var]
    var_cell = gcell[by_var]
    var_digit = gdigit[by_var]
    max_k = int(sizes.max()) if n_lines else 1
    rec_cap = n_vars + 1
    header = np.zeros(_HEADER, dtype=np.int64)
    header[[_V, _L, _C, _E, _MAXK, _PRUNE, _RECCAP, _CELLCAP]] = [
        n_vars,
        n_lines,
        total_cells,
        len(gvar),
        max_k,
        int(prune),
        rec_cap,
        cell_capacity,
    ]
    parts = [cell_start, edge_ptr, edge_digit, edge_var, var_ptr, var_line, var_cell, var_digit]
    offset = _HEADER
    for slot, part in zip(range(_CELL_START, _VAR_DIGIT + 1), parts, strict=True):
        header[slot] = offset
        offset += len(part)
    state_sizes = [
        n_vars + 1,
        n_vars + 1,
        n_vars + 1,
        n_vars + 2,
        total_cells,
        total_cells,
        n_lines,
        n_lines,
        n_lines,
        n_lines,
        total_cells,
        rec_cap,
        rec_cap,
        rec_cap,
        rec_cap,
        n_vars + 1,
        cell_capacity,
        12 * (2 * max_k + 2),
    ]
    state_offset = 16
    for slot, size in zip(range(_KNOWN, _SCRATCH + 1), state_sizes, strict=True):
        header[slot] = state_offset
        state_offset += size
    static = np.concatenate([header, *parts]).astype(np.int64)
    state = np.zeros(state_offset, dtype=np.int64)
    state[header[_MATE_CELL] : header[_MATE_CELL] + 2 * total_cells] = -1
    state[header[_DIRTY_FLAG] : header[_DIRTY_FLAG] + n_lines] = 1
    state[header[_DIRTY] : header[_DIRTY] + n_lines] = np.arange(n_lines)
    state[header[_TOUCH_FLAG] : header[_TOUCH_FLAG] + n_lines] = 1
    state[header[_TOUCH] : header[_TOUCH] + n_lines] = np.arange(n_lines)
    state[_N_DIRTY] = n_lines
    state[_N_TOUCH] = n_lines
    stamp = np.full(2 * n_vars + 1, -1, dtype=np.int8)
    out = np.zeros(len(gvar) + 16, dtype=np.int64)
    return static, state, stamp, out


@numba.njit(cache=True, inline="always")
def _arr(static: np.ndarray, state: np.ndarray, slot: int, size: int) -> np.ndarray:
    start = static[slot]
    return state[start : start + size]


@numba.njit(cache=True, inline="always")
def _line_edges(static: np.ndarray, line: int) -> tuple[int, int, int, int]:
    """The first global cell of ``line``, and where the edge pointers, digits and variables start."""
    return static[static[_CELL_START] + line], static[_EDGE_PTR], static[_EDGE_DIGIT], static[_EDGE_VAR]


@numba.njit(cache=True, inline="always")
def _queues(static: np.ndarray, state: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lines to repair (flags, stack) and the lines to filter (flags, stack)."""
    n_lines = static[_L]
    return (
        _arr(static, state, _DIRTY_FLAG, n_lines),
        _arr(static, state, _DIRTY, n_lines),
        _arr(static, state, _TOUCH_FLAG, n_lines),
        _arr(static, state, _TOUCH, n_lines),
    )


@numba.njit(cache=True)
def _kill(static: np.ndarray, state: np.ndarray, var: int, value: int) -> None:
    """Record ``var`` assigned (value 1 true, -1 false) on the trail; a false one leaves every
    line's matching and marks its lines for repair and pruning."""
    n_vars = static[_V]
    total_cells = static[_C]
    known = _arr(static, state, _KNOWN, n_vars + 1)
    trail = _arr(static, state, _TRAIL, n_vars + 1)
    pos = _arr(static, state, _POS, n_vars + 1)
    known[var] = value
    pos[var] = state[_TRAIL_LEN]
    trail[state[_TRAIL_LEN]] = var
    state[_TRAIL_LEN] += 1
    if value > 0:
        return
    mate_cell = _arr(static, state, _MATE_CELL, total_cells)
    mate_digit = _arr(static, state, _MATE_DIGIT, total_cells)
    dirty_flag, dirty, touch_flag, touch = _queues(static, state)
    o = static[_VAR_PTR]
    start = static[o + var]
    stop = static[o + var + 1]
    cell_start = static[_CELL_START]
    for k in range(start, stop):
        line = static[static[_VAR_LINE] + k]
        cell = static[static[_VAR_CELL] + k]
        digit = static[static[_VAR_DIGIT] + k]
        if touch_flag[line] == 0:
            touch_flag[line] = 1
            touch[state[_N_TOUCH]] = line
            state[_N_TOUCH] += 1
        if mate_cell[cell] == digit:
            mate_cell[cell] = -1
            mate_digit[static[cell_start + line] + digit] = -1
            if dirty_flag[line] == 0:
                dirty_flag[line] = 1
                dirty[state[_N_DIRTY]] = line
                state[_N_DIRTY] += 1


@numba.njit(cache=True)
def _sync(static: np.ndarray, state: np.ndarray, stamp: np.ndarray) -> None:
    """Take in the assignments the solver wrote into ``stamp`` since the last call."""
    n_vars = static[_V]
    known = _arr(static, state, _KNOWN, n_vars + 1)
    size = 2 * n_vars + 1
    for var in range(1, n_vars + 1):
        if known[var] == 0:
            if stamp[var] >= 0:
                _kill(static, state, var, 1)
            elif stamp[size - var] >= 0:
                _kill(static, state, var, -1)


@numba.njit(cache=True)
def new_level(static: np.ndarray, state: np.ndarray, stamp: np.ndarray) -> None:
    """The solver opened a decision level."""
    _sync(static, state, stamp)
    marks = _arr(static, state, _MARKS, static[_V] + 2)
    marks[state[_LEVEL]] = state[_TRAIL_LEN]
    state[_LEVEL] += 1


@numba.njit(cache=True)
def backtrack(static: np.ndarray, state: np.ndarray, stamp: np.ndarray, to: int) -> None:
    """The solver went back to level ``to``: undo every assignment above it."""
    _sync(static, state, stamp)
    if to >= state[_LEVEL]:
        return
    n_vars = static[_V]
    known = _arr(static, state, _KNOWN, n_vars + 1)
    trail = _arr(static, state, _TRAIL, n_vars + 1)
    marks = _arr(static, state, _MARKS, n_vars + 2)
    keep = marks[to]
    size = 2 * n_vars + 1
    for k in range(keep, state[_TRAIL_LEN]):
        var = trail[k]
        known[var] = 0
        stamp[var] = -1
        stamp[size - var] = -1
    state[_TRAIL_LEN] = keep
    state[_LEVEL] = to
    if to == 0:  # the solver asks no reason of a root-level literal: every record can go
        state[_REC_COUNT] = 0
        state[_CELLS_LEN] = 0


@numba.njit(cache=True)
def _augment(static: np.ndarray, state: np.ndarray, line: int, root: int, out: np.ndarray) -> int:
    """Match local cell ``root`` of ``line``: 0 when done, else the length of the conflict clause
    written into ``out``."""
    n_vars = static[_V]
    total_cells = static[_C]
    known = _arr(static, state, _KNOWN, n_vars + 1)
    mate_cell = _arr(static, state, _MATE_CELL, total_cells)
    mate_digit = _arr(static, state, _MATE_DIGIT, total_cells)
    seen = _arr(static, state, _SEEN, total_cells)
    max_k = static[_MAXK]
    scratch = _arr(static, state, _SCRATCH, 12 * (2 * max_k + 2))
    stack_cell = scratch[0 : max_k + 1]
    stack_pos = scratch[max_k + 1 : 2 * max_k + 2]
    via = scratch[2 * max_k + 2 : 3 * max_k + 3]
    reached = scratch[3 * max_k + 3 : 4 * max_k + 4]
    base, edge_ptr, edge_digit, edge_var = _line_edges(static, line)
    state[_VISIT] += 1
    visit = state[_VISIT]
    depth = 0
    stack_cell[0] = root
    stack_pos[0] = static[edge_ptr + base + root]
    n_reached = 1
    reached[0] = root
    while depth >= 0:
        cell = stack_cell[depth]
        stop = static[edge_ptr + base + cell + 1]
        advanced = False
        while stack_pos[depth] < stop:
            e = stack_pos[depth]
            stack_pos[depth] += 1
            var = static[edge_var + e]
            digit = static[edge_digit + e]
            if known[var] < 0 or seen[base + digit] == visit:
                continue
            seen[base + digit] = visit
            other = mate_digit[base + digit]
            if other < 0:
                via[depth] = digit
                for k in range(depth + 1):
                    mate_cell[base + stack_cell[k]] = via[k]
                    mate_digit[base + via[k]] = stack_cell[k]
                return 0
            via[depth] = digit
            depth += 1
            stack_cell[depth] = other
            stack_pos[depth] = static[edge_ptr + base + other]
            reached[n_reached] = other
            n_reached += 1
            advanced = True
            break
        if not advanced:
            depth -= 1
    # Hall violation: the reached cells see only the digits they marked
    length = 0
    for k in range(n_reached):
        cell = reached[k]
        for e in range(static[edge_ptr + base + cell], static[edge_ptr + base + cell + 1]):
            var = static[edge_var + e]
            if known[var] < 0 and seen[base + static[edge_digit + e]] != visit:
                out[length] = var
                length += 1
    return length


@numba.njit(cache=True)
def _prune(static: np.ndarray, state: np.ndarray, line: int, out: np.ndarray, n_out: int) -> int:
    """Régin's filtering of ``line``: write the removed candidates as negative literals into
    ``out`` from ``n_out`` on, each with its reason record; the new length of ``out``."""
    n_vars = static[_V]
    total_cells = static[_C]
    known = _arr(static, state, _KNOWN, n_vars + 1)
    mate_cell = _arr(static, state, _MATE_CELL, total_cells)
    mate_digit = _arr(static, state, _MATE_DIGIT, total_cells)
    max_k = static[_MAXK]
    scratch = _arr(static, state, _SCRATCH, 12 * (2 * max_k + 2))
    span = 2 * max_k + 2
    index = scratch[0:span]
    low = scratch[span : 2 * span]
    on_stack = scratch[2 * span : 3 * span]
    stack = scratch[3 * span : 4 * span]
    call_node = scratch[4 * span : 5 * span]
    call_pos = scratch[5 * span : 6 * span]
    comp = scratch[6 * span : 7 * span]
    digit_rec = scratch[7 * span : 8 * span]
    queue = scratch[8 * span : 9 * span]
    mark = scratch[9 * span : 10 * span]
    base = static[static[_CELL_START] + line]
    k = static[static[_CELL_START] + line + 1] - base
    edge_ptr = static[_EDGE_PTR]
    edge_digit = static[_EDGE_DIGIT]
    edge_var = static[_EDGE_VAR]
    for i in range(k):
        if mate_cell[base + i] < 0:
            return n_out  # not matched (a conflict is pending): nothing to filter
    for node in range(2 * k):
        index[node] = -1
        on_stack[node] = 0
        digit_rec[node] = -1
    # Tarjan, iterative: nodes 0..k-1 cells (arcs to their free candidates' digits),
    # k..2k-1 digits (one arc to the cell matched to them)
    counter = 0
    n_comp = 0
    top = 0
    for start in range(2 * k):
        if index[start] >= 0:
            continue
        depth = -1
        nxt = start
        while True:
            if nxt >= 0:  # enter a new node
                index[nxt] = counter
                low[nxt] = counter
                counter += 1
                stack[top] = nxt
                top += 1
                on_stack[nxt] = 1
                depth += 1
                call_node[depth] = nxt
                call_pos[depth] = static[edge_ptr + base + nxt] if nxt < k else 0
            if depth < 0:
                break
            node = call_node[depth]
            nxt = -1
            while nxt < 0:  # the next arc to an unvisited node, if any
                if node < k:
                    if call_pos[depth] >= static[edge_ptr + base + node + 1]:
                        break
                    e = call_pos[depth]
                    call_pos[depth] += 1
                    digit = static[edge_digit + e]
                    if known[static[edge_var + e]] < 0 or mate_cell[base + node] == digit:
                        continue
                    target = k + digit
                else:
                    if call_pos[depth] == 1:
                        break
                    call_pos[depth] = 1
                    target = mate_digit[base + node - k]
                if index[target] < 0:
                    nxt = target
                elif on_stack[target] == 1 and index[target] < low[node]:
                    low[node] = index[target]
            if nxt >= 0:
                continue
            depth -= 1  # node is done
            if depth >= 0 and low[node] < low[call_node[depth]]:
                low[call_node[depth]] = low[node]
            if low[node] == index[node]:
                while True:
                    top -= 1
                    member = stack[top]
                    on_stack[member] = 0
                    comp[member] = n_comp
                    if member == node:
                        break
                n_comp += 1
    if n_comp == 1:
        return n_out
    rec_cap = static[_RECCAP]
    cell_cap = static[_CELLCAP]
    rec_t = _arr(static, state, _REC_T, rec_cap)
    rec_start = _arr(static, state, _REC_START, rec_cap)
    rec_len = _arr(static, state, _REC_LEN, rec_cap)
    rec_line = _arr(static, state, _REC_LINE, rec_cap)
    reason_rec = _arr(static, state, _REASON_REC, n_vars + 1)
    rec_cells = _arr(static, state, _REC_CELLS, cell_cap)
    t = state[_TRAIL_LEN]
    first = n_out
    for i in range(k):
        for e in range(static[edge_ptr + base + i], static[edge_ptr + base + i + 1]):
            var = static[edge_var + e]
            digit = static[edge_digit + e]
            if known[var] != 0 or mate_cell[base + i] == digit or comp[i] == comp[k + digit]:
                continue
            rec = digit_rec[digit]
            if rec < 0:  # the cells reachable from this digit: a tight Hall set without cell i
                if state[_REC_COUNT] >= rec_cap or state[_CELLS_LEN] + 2 * k > cell_cap:
                    continue
                for node in range(2 * k):
                    mark[node] = 0
                head = 0
                tail = 1
                queue[0] = k + digit
                mark[k + digit] = 1
                rec = state[_REC_COUNT]
                state[_REC_COUNT] += 1
                rec_t[rec] = t
                rec_line[rec] = line
                rec_start[rec] = state[_CELLS_LEN]
                rec_len[rec] = 0
                while head < tail:
                    node = queue[head]
                    head += 1
                    if node >= k:
                        cell = mate_digit[base + node - k]
                        if mark[cell] == 0:
                            mark[cell] = 1
                            queue[tail] = cell
                            tail += 1
                        continue
                    rec_cells[state[_CELLS_LEN]] = node
                    state[_CELLS_LEN] += 1
                    rec_len[rec] += 1
                    for f in range(static[edge_ptr + base + node], static[edge_ptr + base + node + 1]):
                        d = static[edge_digit + f]
                        if known[static[edge_var + f]] >= 0 and mark[k + d] == 0:
                            mark[k + d] = 1
                            queue[tail] = k + d
                            tail += 1
                # then the digits the cells reach (as many): the clause needs no later state
                for node in range(k, 2 * k):
                    if mark[node] == 1:
                        rec_cells[state[_CELLS_LEN]] = node - k
                        state[_CELLS_LEN] += 1
                digit_rec[digit] = rec
            reason_rec[var] = rec
            out[n_out] = -var
            n_out += 1
    state[_PRUNED] += n_out - first
    return n_out


@numba.njit(cache=True)
def propagate(static: np.ndarray, state: np.ndarray, stamp: np.ndarray, out: np.ndarray) -> int:
    """Repair the matchings, then filter: the number of removed candidates written into ``out``
    (negative literals), or minus the length of a conflict clause written there."""
    _sync(static, state, stamp)
    total_cells = static[_C]
    dirty_flag, dirty, touch_flag, touch = _queues(static, state)
    mate_cell = _arr(static, state, _MATE_CELL, total_cells)
    cell_start = static[_CELL_START]
    while state[_N_DIRTY] > 0:
        line = dirty[state[_N_DIRTY] - 1]
        base = static[cell_start + line]
        for i in range(static[cell_start + line + 1] - base):
            if mate_cell[base + i] < 0:
                length = _augment(static, state, line, i, out)
                if length > 0:
                    state[_CONFLICTS] += 1
                    return -length
        state[_N_DIRTY] -= 1
        dirty_flag[line] = 0
    n_out = 0
    if static[_PRUNE]:
        while state[_N_TOUCH] > 0 and n_out == 0:
            state[_N_TOUCH] -= 1
            line = touch[state[_N_TOUCH]]
            touch_flag[line] = 0
            n_out = _prune(static, state, line, out, n_out)
            if state[_N_DIRTY] > 0:
                break
    return n_out


@numba.njit(cache=True)
def reason(static: np.ndarray, state: np.ndarray, var: int, out: np.ndarray) -> int:
    """The reason clause of the removal of ``var`` (its negative literal first), written into
    ``out``: its length."""
    n_vars = static[_V]
    rec_cap = static[_RECCAP]
    rec = _arr(static, state, _REASON_REC, n_vars + 1)[var]
    start = _arr(static, state, _REC_START, rec_cap)[rec]
    size = _arr(static, state, _REC_LEN, rec_cap)[rec]
    line = _arr(static, state, _REC_LINE, rec_cap)[rec]
    held = _arr(static, state, _REC_CELLS, static[_CELLCAP])
    cells = held[start : start + size]
    total_cells = static[_C]
    seen = _arr(static, state, _SEEN, total_cells)
    base, edge_ptr, edge_digit, edge_var = _line_edges(static, line)
    state[_VISIT] += 1
    visit = state[_VISIT]
    for digit in held[start + size : start + 2 * size]:  # the digits the Hall set covers
        seen[base + digit] = visit
    out[0] = -var
    length = 1
    for cell in cells:
        for e in range(static[edge_ptr + base + cell], static[edge_ptr + base + cell + 1]):
            if seen[base + static[edge_digit + e]] != visit:
                out[length] = static[edge_var + e]
                length += 1
    return length


@numba.njit(cache=True)
def choose(
    static: np.ndarray, state: np.ndarray, stamp: np.ndarray, cell_ptr: np.ndarray, cell_vars: np.ndarray
) -> int:
    """A decision: the first possible candidate of the open cell with fewest left among the
    given cells (``cell_vars[cell_ptr[c]:cell_ptr[c + 1]]``), or 0 when all are placed."""
    _sync(static, state, stamp)
    known = _arr(static, state, _KNOWN, static[_V] + 1)
    best = 0
    fewest = 1 << 30
    for c in range(len(cell_ptr) - 1):
        count = 0
        first = 0
        placed = False
        for k in range(cell_ptr[c], cell_ptr[c + 1]):
            value = known[cell_vars[k]]
            if value > 0:
                placed = True
                break
            if value == 0:
                count += 1
                if first == 0:
                    first = cell_vars[k]
        if placed or count == 0:
            continue
        if count < fewest:
            fewest = count
            best = first
            if count <= 2:
                break
    return best
