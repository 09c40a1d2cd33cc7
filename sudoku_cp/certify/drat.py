"""DRAT proof checking: our own forward checker, compiled with numba, and dratify as the reference.

``check_proof`` replays a text DRAT proof against a CNF and answers whether it refutes it.  Its
verdict is meant to equal ``dratify.check_proof(..., engine="python")`` (dratify 0.1.10) on every
proof; ``check_proof_reference`` runs dratify itself so the two can be compared.  The semantics
mirrored (forward checking, one persistent root assignment):

* The formula's clauses lose repeated literals and tautologies are dropped; an empty clause, or a
  conflict when the formula's units are propagated at load, refutes it: every proof that parses
  then holds, an empty one included.
* An added clause (repeated literals dropped, first occurrences kept) must be RUP with respect to
  the live clauses and the root assignment (a literal already true at the root, or a tautology, is
  RUP); otherwise RAT on its first literal: every resolvent with a live clause holding the negated
  pivot, tautologies skipped, must be RUP (no such clause: vacuously RAT).  The empty clause is
  never RAT.  A stored lemma with one non-false literal extends the root assignment, which then
  propagates; a lemma false at the root, or a conflict there, refutes the formula for good (every
  later RUP check succeeds).  The root assignment is never retracted.
* A deletion with at most one distinct literal is ignored, as is one matching no live clause; it
  matches a live clause (formula clauses included) by its set of literals.
* Checking stops at the first empty clause, but the whole text must still parse, and (as dratify
  checks before it starts) no variable may exceed the formula's count plus the proof's length in
  characters.  No empty clause by the end: not a refutation.

Our parser is stricter than dratify's, never laxer: only ASCII, tokens ``-?[0-9]+`` and ``d`` (a
deletion opens a clause and may be glued to its first literal: ``d1 2 0``), spaces and tabs
between tokens, LF or CR ending a line, comment lines starting with ``c``; anything else is
rejected with its byte offset and line.  Literals beyond +-(2**31 - 1) are rejected; a proof may
use variables beyond the formula's, at most ``EXTRA_VARS`` of them (arrays grow per variable).

The proof is a file (plain text, or gzip told by its magic bytes whatever its name) or bytes; a
damaged gzip stream is a verdict that does not hold, an unreadable file a ``ProofFileError``.  It
streams in pieces of ``PIECE_BYTES``: a resumable byte-level parser turns each piece into literal
arrays, then the checking kernel, whose state persists across pieces, replays those steps in calls
of about ``WORK_BUDGET`` units of work so that Ctrl-C and the deadline are noticed between calls.
Memory follows the live clauses: deleted clauses are compacted away.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from dataclasses import dataclass
from typing import IO, Any, NamedTuple, cast

import numba
import numpy as np

from ..errors import SudokuCpError, excerpt
from ..limits import Deadline, TimeLimitReached, watch_compilation

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "COMPACT_MIN",
    "EXTRA_VARS",
    "PIECE_BYTES",
    "WORK_BUDGET",
    "ProofFileError",
    "ProofVerdict",
    "check_proof",
    "check_proof_reference",
    "warm_up",
]

#: Bytes of (decompressed) proof text parsed and checked at a time.
PIECE_BYTES = 4 << 20
#: A proof may introduce at most this many variables beyond the formula's count (every variable
#: costs about 24 bytes of arrays: at most about 100 MiB, never gigabytes for one stray literal).
EXTRA_VARS = 1 << 22
#: Units of work (watch visits, literals scanned, 16 per step) of one call of the checking kernel:
#: a few tens of milliseconds at most, so that Ctrl-C and the deadline are noticed quickly.
WORK_BUDGET = 1_000_000
#: The clause store is compacted when its deleted literals outnumber both its live ones and this.
COMPACT_MIN = 1 << 16
#: The largest literal magnitude accepted (int32).
MAX_LITERAL = 2**31 - 1
#: Proofs beyond this many bytes are refused by the reference checker, which holds everything in memory.
REFERENCE_MAX_BYTES = 256 * 2**20

_PHASE = "proof check"


class ProofFileError(SudokuCpError):
    """A proof file that cannot be read: missing, a directory, unreadable."""


@dataclass(frozen=True, slots=True)
class ProofVerdict:
    """Whether a DRAT proof refutes its formula, with a one-line reason.

    ``steps`` counts the proof steps checked (additions and deletions); ``failed_step`` (1-based)
    and ``failed_line`` locate the step that failed, when one did.
    """

    holds: bool
    reason: str
    steps: int
    failed_step: int | None = None
    failed_line: int | None = None


# ---------------------------------------------------------------------------------------------
# parsing: a byte-level state machine, resumable across pieces
# ---------------------------------------------------------------------------------------------

# Every kernel is compiled without numba's reference counting (_nrt=False): they allocate nothing,
# and counting references to the store's arrays at each call of a helper (once per proof step, or
# more) cost ten times the work of a step.
_KERNEL: dict[str, Any] = {"cache": True, "_nrt": False}
_kernel = numba.njit(**_KERNEL)
_inline_kernel = numba.njit(inline="always", **_KERNEL)

# Indices into the parser's state vector.
(
    _P_LINE,
    _P_LINESTART,
    _P_COMMENT,
    _P_TOK,
    _P_NEG,
    _P_VAL,
    _P_OPEN,
    _P_OPENLINE,
    _P_KIND,
    _P_NLITS,
    _P_NSTEPS,
    _P_CURSTART,
    _P_ERR,
    _P_ERRPOS,
    _P_ERRLINE,
    _P_ERRBYTE,
    _P_OFFSET,
    _P_MAXVAR,
    _P_TOTLITS,
) = range(19)
_P_SIZE = 19
# Token states.
_T_NONE, _T_D, _T_SIGN, _T_NUM = 0, 1, 2, 3
# Parse errors.
_E_BYTE, _E_DINSIDE, _E_TOKEN, _E_RANGE, _E_OPEN = 1, 2, 3, 4, 5


@_kernel
def _parse(buf, final, ps, lits, skind, sstart, slen, sline):  # pragma: no cover - compiled
    """Parse ``buf`` (and, when ``final``, end the text), appending complete steps; stop at an error."""
    line = ps[_P_LINE]
    linestart = ps[_P_LINESTART]
    comment = ps[_P_COMMENT]
    tok = ps[_P_TOK]
    neg = ps[_P_NEG]
    val = ps[_P_VAL]
    opened = ps[_P_OPEN]
    openline = ps[_P_OPENLINE]
    kind = ps[_P_KIND]
    nl = ps[_P_NLITS]
    ns = ps[_P_NSTEPS]
    curstart = ps[_P_CURSTART]
    maxvar = ps[_P_MAXVAR]
    totlits = ps[_P_TOTLITS]
    err = 0
    errpos = 0
    errbyte = 0
    n = buf.shape[0]
    end = n + 1 if final else n  # the final call sees one more, virtual, blank
    i = 0
    while i < end:
        b = int(buf[i]) if i < n else 32
        if comment == 1:
            if b == 10:
                line += 1
                comment = 0
                linestart = 1
            elif b == 13:
                comment = 0
                linestart = 1
            elif not (b == 9 or (b >= 32 and b <= 126)):
                err = _E_BYTE
                errpos = i
                errbyte = b
                break
            i += 1
            continue
        if b == 32 or b == 9 or b == 10 or b == 13:
            if tok == _T_SIGN:
                err = _E_TOKEN
                errpos = i
                break
            if tok == _T_NUM:
                if val == 0:
                    skind[ns] = kind
                    sstart[ns] = curstart
                    slen[ns] = nl - curstart
                    sline[ns] = openline if opened == 1 else line
                    ns += 1
                    curstart = nl
                    opened = 0
                    kind = 0
                else:
                    lits[nl] = -val if neg == 1 else val
                    nl += 1
                    totlits += 1
                    if val > maxvar:
                        maxvar = val
                    if opened == 0:
                        opened = 1
                        openline = line
            tok = _T_NONE
            neg = 0
            val = 0
            if b == 10:
                line += 1
                linestart = 1
            elif b == 13:
                linestart = 1
            i += 1
            continue
        at_start = linestart
        linestart = 0
        if b >= 48 and b <= 57:
            if tok == _T_NUM:
                val = val * 10 + (b - 48)
                if val > MAX_LITERAL:
                    err = _E_RANGE
                    errpos = i
                    break
            else:
                tok = _T_NUM
                val = b - 48
        elif b == 45:  # '-'
            if tok <= _T_D:  # nothing yet, or just the 'd'
                tok = _T_SIGN
                neg = 1
            else:
                err = _E_TOKEN
                errpos = i
                break
        elif b == 100:  # 'd'
            if tok != _T_NONE:
                err = _E_TOKEN
                errpos = i
                break
            if opened == 1:
                err = _E_DINSIDE
                errpos = i
                break
            tok = _T_D
            opened = 1
            openline = line
            kind = 1
        elif b == 99 and at_start == 1:  # 'c' first on its line: a comment
            comment = 1
        else:
            err = _E_BYTE
            errpos = i
            errbyte = b
            break
        i += 1
    if err == 0 and final and opened == 1:
        err = _E_OPEN
        errpos = n
    ps[_P_LINE] = line
    ps[_P_LINESTART] = linestart
    ps[_P_COMMENT] = comment
    ps[_P_TOK] = tok
    ps[_P_NEG] = neg
    ps[_P_VAL] = val
    ps[_P_OPEN] = opened
    ps[_P_OPENLINE] = openline
    ps[_P_KIND] = kind
    ps[_P_NLITS] = nl
    ps[_P_NSTEPS] = ns
    ps[_P_CURSTART] = curstart
    ps[_P_MAXVAR] = maxvar
    ps[_P_TOTLITS] = totlits
    if err != 0:
        ps[_P_ERR] = err
        ps[_P_ERRPOS] = ps[_P_OFFSET] + errpos
        ps[_P_ERRLINE] = openline if err == _E_OPEN else line
        ps[_P_ERRBYTE] = errbyte
    ps[_P_OFFSET] += n


# ---------------------------------------------------------------------------------------------
# the checker's state and kernels
# ---------------------------------------------------------------------------------------------

# Indices into the checker's meta vector.
(
    _M_NV,
    _M_NCL,
    _M_ALEN,
    _M_ROOT,
    _M_RCONF,
    _M_LIVE_LITS,
    _M_DEAD_LITS,
    _M_LIVE_CL,
    _M_RAT_ACTIVE,
    _M_RAT_POS,
    _M_RUP,
    _M_RAT,
    _M_BASEVARS,
) = range(13)
_M_SIZE = 13
# Values of a literal.
_U, _T, _F = 0, 1, 2
# Kernel statuses.
_S_DONE, _S_PAUSED, _S_EMPTY, _S_FAIL = 0, 1, 2, 3


class _Store(NamedTuple):
    """The checker's arrays, one kernel argument.

    Literals are internal: ``2 * (var - 1) + (1 if negative)``, so negation is ``^ 1``.  Per
    literal: ``val`` (_U/_T/_F), ``whead`` (first watch node of the clauses watching it, -1 none),
    ``ohead`` (first occurrence node), ``mark`` (scratch flags); ``trail`` holds the assigned
    literals, the root ones first.  Clause ``c`` is ``ca[cstart[c]:cstart[c] + clen[c]]`` with its
    two watched literals first; ``calive``, ``chash`` (order-independent hash of its literal set),
    ``hnext`` (next clause in its hash bucket ``hhead``), watch nodes ``2c`` and ``2c + 1`` linked by
    ``wnext``.  Occurrence node ``i`` (one per arena slot) belongs to clause ``aclause[i]`` and is
    linked by ``onext``; it stays in the list of the literal first stored there even when watch
    swaps move literals inside the clause.  ``scratch`` holds the step (then its resolvents).
    """

    val: np.ndarray
    trail: np.ndarray
    whead: np.ndarray
    ohead: np.ndarray
    mark: np.ndarray
    ca: np.ndarray
    onext: np.ndarray
    aclause: np.ndarray
    cstart: np.ndarray
    clen: np.ndarray
    calive: np.ndarray
    chash: np.ndarray
    hnext: np.ndarray
    wnext: np.ndarray
    hhead: np.ndarray
    scratch: np.ndarray


@_inline_kernel
def _mix(lit):  # pragma: no cover - compiled
    """splitmix64 of one literal; a clause's hash is the sum over its literals (order-free)."""
    x = np.uint64(lit) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@_kernel
def _propagate(st, q, tlen):  # pragma: no cover - compiled
    """Unit propagation from trail position ``q``: (conflict, trail length, work)."""
    val = st.val
    trail = st.trail
    whead = st.whead
    wnext = st.wnext
    ca = st.ca
    cstart = st.cstart
    clen = st.clen
    calive = st.calive
    work = 0
    while q < tlen:
        fl = trail[q] ^ 1  # the literal that just became false
        q += 1
        prev = -1
        node = whead[fl]
        while node != -1:
            work += 1
            c = node >> 1
            nxt = wnext[node]
            if calive[c] == 0:  # deleted: unlink lazily
                if prev == -1:
                    whead[fl] = nxt
                else:
                    wnext[prev] = nxt
                node = nxt
                continue
            s = cstart[c]
            idx = 0 if ca[s] == fl else 1
            other = ca[s + 1 - idx]
            if val[other] == _T:
                prev = node
                node = nxt
                continue
            n = clen[c]
            moved = False
            for k in range(2, n):
                lk = ca[s + k]
                if val[lk] != _F:
                    ca[s + idx] = lk
                    ca[s + k] = fl
                    if prev == -1:
                        whead[fl] = nxt
                    else:
                        wnext[prev] = nxt
                    wnext[node] = whead[lk]
                    whead[lk] = node
                    moved = True
                    break
            work += n >> 2
            if moved:
                node = nxt
                continue
            if val[other] == _F:
                return True, tlen, work
            val[other] = _T
            val[other ^ 1] = _F
            trail[tlen] = other
            tlen += 1
            prev = node
            node = nxt
    return False, tlen, work


@_kernel
def _rup(st, meta, k):  # pragma: no cover - compiled
    """Is ``scratch[:k]`` RUP (its negation propagates to a conflict)? (answer, work)."""
    if meta[_M_RCONF] == 1:
        return True, 0
    val = st.val
    trail = st.trail
    scratch = st.scratch
    root = meta[_M_ROOT]
    tlen = root
    conflict = False
    for j in range(k):
        lit = scratch[j]
        v = val[lit]
        if v == _T:  # true at the root, or the clause is a tautology
            conflict = True
            break
        if v == _U:
            val[lit] = _F
            val[lit ^ 1] = _T
            trail[tlen] = lit ^ 1
            tlen += 1
    work = k
    if not conflict:
        conflict, tlen, w = _propagate(st, root, tlen)
        work += w
    for j in range(root, tlen):
        lit = trail[j]
        val[lit] = _U
        val[lit ^ 1] = _U
    return conflict, work


@_kernel
def _link(st, meta, first):  # pragma: no cover - compiled
    """Register clauses ``first .. meta[_M_NCL] - 1``, whose literals are in the arena already.

    One call for many clauses: numba keeps the store's arrays alive per call, which costs more
    than linking a short clause, so the formula is linked in bulk.
    """
    ca = st.ca
    aclause = st.aclause
    onext = st.onext
    ohead = st.ohead
    cstart = st.cstart
    clen = st.clen
    calive = st.calive
    chash = st.chash
    hnext = st.hnext
    hhead = st.hhead
    wnext = st.wnext
    whead = st.whead
    hmask = np.uint64(hhead.shape[0] - 1)
    for c in range(first, meta[_M_NCL]):
        s = cstart[c]
        n = clen[c]
        calive[c] = 1
        h = np.uint64(0)
        for t in range(n):
            lit = ca[s + t]
            aclause[s + t] = c
            onext[s + t] = ohead[lit]
            ohead[lit] = s + t
            h += _mix(lit)
        chash[c] = h
        b = np.int64(h & hmask)
        hnext[c] = hhead[b]
        hhead[b] = c
        if n >= 2:
            w0 = ca[s]
            w1 = ca[s + 1]
            wnext[2 * c] = whead[w0]
            whead[w0] = 2 * c
            wnext[2 * c + 1] = whead[w1]
            whead[w1] = 2 * c + 1
        meta[_M_LIVE_LITS] += n
        meta[_M_LIVE_CL] += 1


@_kernel
def _load(st, meta, cnf, units):  # pragma: no cover - compiled
    """Store the formula (repeats dropped, tautologies skipped) and propagate its units at the root.

    Also sets ``meta[_M_BASEVARS]`` to the variable count dratify's parser would give the formula
    (it counts literals of a tautology up to the one that makes it one).
    """
    val = st.val
    mark = st.mark
    ca = st.ca
    scratch = st.scratch
    cstart = st.cstart
    clen = st.clen
    first = meta[_M_NCL]
    ncl = first
    alen = meta[_M_ALEN]
    nunits = 0
    k = 0
    taut = False
    basevars = meta[_M_BASEVARS]
    for i in range(cnf.shape[0]):
        d = cnf[i]
        if d != 0:
            lit = 2 * (abs(d) - 1) + (1 if d < 0 else 0)
            if taut or mark[lit] == 1:
                continue
            if mark[lit ^ 1] == 1:
                taut = True
                continue
            mark[lit] = 1
            scratch[k] = lit
            k += 1
            if abs(d) > basevars:
                basevars = abs(d)
            continue
        for j in range(k):
            mark[scratch[j]] = 0
        if not taut:
            if k == 0:
                meta[_M_RCONF] = 1
            else:
                cstart[ncl] = alen
                clen[ncl] = k
                for j in range(k):
                    ca[alen + j] = scratch[j]
                alen += k
                ncl += 1
                if k == 1:
                    units[nunits] = scratch[0]
                    nunits += 1
        k = 0
        taut = False
    meta[_M_BASEVARS] = basevars
    meta[_M_NCL] = ncl
    meta[_M_ALEN] = alen
    _link(st, meta, first)
    tlen = 0
    for j in range(nunits):
        lit = units[j]
        if val[lit] == _F:
            meta[_M_RCONF] = 1
        elif val[lit] == _U:
            val[lit] = _T
            val[lit ^ 1] = _F
            st.trail[tlen] = lit
            tlen += 1
    if meta[_M_RCONF] == 0:
        conflict, tlen, _ = _propagate(st, 0, tlen)
        if conflict:
            meta[_M_RCONF] = 1
    meta[_M_ROOT] = tlen


@_kernel
def _delete(st, meta, k):  # pragma: no cover - compiled
    """Delete one live clause whose literal set is ``scratch[:k]`` (k >= 2, no repeats), if any."""
    scratch = st.scratch
    mark = st.mark
    ca = st.ca
    hhead = st.hhead
    hnext = st.hnext
    calive = st.calive
    h = np.uint64(0)
    for j in range(k):
        lit = scratch[j]
        mark[lit] = 1
        h += _mix(lit)
    b = np.int64(h & np.uint64(hhead.shape[0] - 1))
    prev = -1
    c = hhead[b]
    while c != -1:
        nxt = hnext[c]
        if calive[c] == 0:
            if prev == -1:
                hhead[b] = nxt
            else:
                hnext[prev] = nxt
            c = nxt
            continue
        if st.chash[c] == h and st.clen[c] == k:
            s = st.cstart[c]
            same = True
            for t in range(k):
                if mark[ca[s + t]] == 0:
                    same = False
                    break
            if same:
                calive[c] = 0
                meta[_M_LIVE_LITS] -= k
                meta[_M_DEAD_LITS] += k
                meta[_M_LIVE_CL] -= 1
                if prev == -1:
                    hhead[b] = nxt
                else:
                    hnext[prev] = nxt
                break
        prev = c
        c = nxt
    for j in range(k):
        mark[scratch[j]] = 0


@_kernel
def _add_lemma(st, meta, k):  # pragma: no cover - compiled
    """Store the checked lemma ``scratch[:k]`` watching its non-false literals; act on it at the root."""
    val = st.val
    ca = st.ca
    scratch = st.scratch
    s = meta[_M_ALEN]
    a = s
    nonfalse = 0
    satisfied = False
    for j in range(k):
        lit = scratch[j]
        if val[lit] != _F:
            ca[a] = lit
            a += 1
            nonfalse += 1
            if val[lit] == _T:
                satisfied = True
    for j in range(k):
        lit = scratch[j]
        if val[lit] == _F:
            ca[a] = lit
            a += 1
    unit = ca[s]
    c = meta[_M_NCL]
    st.cstart[c] = s
    st.clen[c] = k
    meta[_M_NCL] = c + 1
    meta[_M_ALEN] = s + k
    _link(st, meta, c)
    if satisfied or nonfalse >= 2:
        return 0
    if nonfalse == 0:  # false at the root: the formula is refuted
        meta[_M_RCONF] = 1
        return 0
    root = meta[_M_ROOT]
    val[unit] = _T
    val[unit ^ 1] = _F
    st.trail[root] = unit
    conflict, tlen, work = _propagate(st, root, root + 1)
    if conflict:
        meta[_M_RCONF] = 1
    meta[_M_ROOT] = tlen
    return work


@_kernel
def _check_steps(st, meta, lits, skind, sstart, slen, first, last, budget):  # pragma: no cover
    """Check steps ``first .. last - 1``: (status, index of the step it stopped at or after).

    ``_S_PAUSED`` returns the index to resume at; a RAT check in progress resumes from the
    occurrence node saved in the meta vector.
    """
    mark = st.mark
    scratch = st.scratch
    ca = st.ca
    aclause = st.aclause
    onext = st.onext
    ohead = st.ohead
    calive = st.calive
    cstart = st.cstart
    clen = st.clen
    work = 0
    for si in range(first, last):
        k = 0
        start = sstart[si]
        for j in range(slen[si]):
            d = lits[start + j]
            lit = 2 * (abs(d) - 1) + (1 if d < 0 else 0)
            if mark[lit] == 0:
                mark[lit] = 1
                scratch[k] = lit
                k += 1
        for j in range(k):
            mark[scratch[j]] = 0
        work += k + 16  # a step costs about as much as 16 watch visits, whatever it does
        if skind[si] == 1:
            if k >= 2:
                _delete(st, meta, k)
            continue
        if meta[_M_RCONF] == 1:
            if k == 0:
                return _S_EMPTY, si
            continue  # everything is RUP from now on; only the empty clause matters
        if meta[_M_RAT_ACTIVE] == 1:
            ok = False  # resuming a RAT check: RUP already failed
        else:
            ok, w = _rup(st, meta, k)
            work += w
        if ok:
            meta[_M_RUP] += 1
        else:
            if k == 0:
                return _S_FAIL, si
            neg = scratch[0] ^ 1
            pos = meta[_M_RAT_POS] if meta[_M_RAT_ACTIVE] == 1 else ohead[neg]
            meta[_M_RAT_ACTIVE] = 0
            for j in range(k):
                mark[scratch[j]] = 1
            ok = True
            while pos != -1:
                c = aclause[pos]
                pos = onext[pos]
                if calive[c] == 0:
                    continue
                s = cstart[c]
                n = clen[c]
                r = k
                taut = False
                for t in range(n):
                    lit = ca[s + t]
                    if lit == neg:
                        continue
                    if mark[lit ^ 1] == 1:
                        taut = True
                        break
                    if mark[lit] == 0:
                        scratch[r] = lit
                        r += 1
                work += n
                if not taut:
                    res, w = _rup(st, meta, r)
                    work += w
                    if not res:
                        ok = False
                        break
                if work > budget and pos != -1:
                    meta[_M_RAT_ACTIVE] = 1
                    meta[_M_RAT_POS] = pos
                    break
            for j in range(k):
                mark[scratch[j]] = 0
            if meta[_M_RAT_ACTIVE] == 1:
                return _S_PAUSED, si
            if not ok:
                return _S_FAIL, si
            meta[_M_RAT] += 1
        if k == 0:
            return _S_EMPTY, si
        work += _add_lemma(st, meta, k)
        if work > budget and si + 1 < last:
            return _S_PAUSED, si + 1
    return _S_DONE, last


@_kernel
def _rebuild(st, meta, nst):  # pragma: no cover - compiled
    """Copy the live clauses into the fresh arrays of ``nst``, relinking watches, occurrences, hashes.

    Watches stay on each clause's first two literals, as they were, so the root assignment's
    invariants hold unchanged.
    """
    nst.whead[:] = -1
    nst.ohead[:] = -1
    nst.hhead[:] = -1
    hmask = np.uint64(nst.hhead.shape[0] - 1)
    a = 0
    nc = 0
    for c in range(meta[_M_NCL]):
        if st.calive[c] == 0:
            continue
        s = st.cstart[c]
        n = st.clen[c]
        nst.cstart[nc] = a
        nst.clen[nc] = n
        nst.calive[nc] = 1
        h = np.uint64(0)
        for t in range(n):
            lit = st.ca[s + t]
            nst.ca[a + t] = lit
            nst.aclause[a + t] = nc
            nst.onext[a + t] = nst.ohead[lit]
            nst.ohead[lit] = a + t
            h += _mix(lit)
        nst.chash[nc] = h
        b = np.int64(h & hmask)
        nst.hnext[nc] = nst.hhead[b]
        nst.hhead[b] = nc
        if n >= 2:
            w0 = nst.ca[a]
            w1 = nst.ca[a + 1]
            nst.wnext[2 * nc] = nst.whead[w0]
            nst.whead[w0] = 2 * nc
            nst.wnext[2 * nc + 1] = nst.whead[w1]
            nst.whead[w1] = 2 * nc + 1
        a += n
        nc += 1
    meta[_M_NCL] = nc
    meta[_M_ALEN] = a
    meta[_M_LIVE_LITS] = a
    meta[_M_DEAD_LITS] = 0
    meta[_M_LIVE_CL] = nc


# ---------------------------------------------------------------------------------------------
# the Python driver
# ---------------------------------------------------------------------------------------------


def _pow2_at_least(n: int) -> int:
    return 1 << max(int(n) - 1, 1).bit_length()


def _per_clause(ccap: int, hcap: int, acap: int) -> dict[str, np.ndarray]:
    return {
        "ca": np.zeros(acap, np.int32),
        "onext": np.full(acap, -1, np.int32),
        "aclause": np.zeros(acap, np.int32),
        "cstart": np.zeros(ccap, np.int64),
        "clen": np.zeros(ccap, np.int32),
        "calive": np.zeros(ccap, np.int8),
        "chash": np.zeros(ccap, np.uint64),
        "hnext": np.full(ccap, -1, np.int32),
        "wnext": np.full(2 * ccap, -1, np.int32),
        "hhead": np.full(hcap, -1, np.int32),
    }


class _Checker:
    """The kernel's state between pieces, and the Python side of growing it."""

    def __init__(self, cnf: np.ndarray, n_vars: int) -> None:
        flat = np.asarray(cnf)
        if flat.ndim != 1 or not np.issubdtype(flat.dtype, np.integer):
            raise ValueError("cnf must be a flat integer array of DIMACS literals, clauses ended by 0")
        flat = flat.astype(np.int64, copy=False)
        if flat.size and flat[-1] != 0:
            raise ValueError("cnf must end with 0 (every clause ends with 0)")
        biggest = int(np.abs(flat).max()) if flat.size else 0
        if biggest > MAX_LITERAL:
            raise ValueError(f"cnf literal {biggest} is beyond {MAX_LITERAL}")
        zeros = int(np.count_nonzero(flat == 0))
        ends = np.flatnonzero(flat == 0)
        longest = int(np.diff(ends, prepend=-1).max()) if zeros else 1
        nv = max(biggest, 1)
        self.meta = np.zeros(_M_SIZE, np.int64)
        self.meta[_M_NV] = nv
        self.meta[_M_RAT_POS] = -1
        self.meta[_M_BASEVARS] = max(int(n_vars), 0)
        ccap = 2 * zeros + 256
        self.st = _Store(
            val=np.zeros(2 * nv, np.int8),
            trail=np.zeros(nv, np.int32),
            whead=np.full(2 * nv, -1, np.int32),
            ohead=np.full(2 * nv, -1, np.int32),
            mark=np.zeros(2 * nv, np.int8),
            scratch=np.zeros(2 * longest + 16, np.int32),
            **_per_clause(ccap, _pow2_at_least(ccap), 2 * flat.size + 4096),
        )
        self.longest = longest
        _load(self.st, self.meta, flat, np.zeros(zeros + 1, np.int32))
        #: dratify's variable count of the formula: the base of both variable bounds
        self.base_vars = int(self.meta[_M_BASEVARS])
        #: refuted by unit propagation at load: every proof that parses holds
        self.refuted_at_load = bool(self.meta[_M_RCONF])

    def grow_vars(self, nv: int) -> None:
        """Make room for variables up to ``nv``."""
        old = int(self.meta[_M_NV])
        if nv <= old:
            return
        nv = max(nv, min(2 * old, nv + (1 << 20)))
        st = self.st

        def grown(a: np.ndarray, size: int, fill: int) -> np.ndarray:
            out = np.full(size, fill, a.dtype)
            out[: a.size] = a
            return out

        self.st = st._replace(
            val=grown(st.val, 2 * nv, 0),
            trail=grown(st.trail, nv, 0),
            whead=grown(st.whead, 2 * nv, -1),
            ohead=grown(st.ohead, 2 * nv, -1),
            mark=grown(st.mark, 2 * nv, 0),
        )
        self.meta[_M_NV] = nv

    def make_room(self, n_lits: int, n_steps: int, longest: int) -> None:
        """Before a batch: room for ``n_lits`` more literals in ``n_steps`` more clauses; compact
        the clause store when it is full or mostly deleted clauses."""
        meta = self.meta
        st = self.st
        self.longest = max(longest, self.longest)
        if 2 * self.longest + 16 > st.scratch.size:  # a step and a stored clause: a resolvent
            self.st = st = st._replace(scratch=np.zeros(4 * self.longest + 16, np.int32))
        alen, ncl = int(meta[_M_ALEN]), int(meta[_M_NCL])
        live_lits, live_cl, dead = int(meta[_M_LIVE_LITS]), int(meta[_M_LIVE_CL]), int(meta[_M_DEAD_LITS])
        full = alen + n_lits > st.ca.size or ncl + n_steps > st.cstart.size
        mostly_dead = dead > max(live_lits, COMPACT_MIN)
        if not (full or mostly_dead):
            return
        # twice the live clauses (growth amortised) plus this batch: memory follows the live clauses
        acap = 2 * live_lits + n_lits + 1024
        ccap = 2 * live_cl + n_steps + 64
        fresh = st._replace(**_per_clause(ccap, _pow2_at_least(ccap), acap))
        _rebuild(st, meta, fresh)
        self.st = fresh

    def run(
        self,
        lits: np.ndarray,
        kinds: np.ndarray,
        starts: np.ndarray,
        lens: np.ndarray,
        deadline: Deadline | None,
    ) -> tuple[int, int]:
        """Check the steps; (status, index) as ``_check_steps`` returns when final."""
        first, last = 0, int(kinds.size)
        while True:
            status, index = _check_steps(
                self.st, self.meta, lits, kinds, starts, lens, first, last, WORK_BUDGET
            )
            if status != _S_PAUSED:
                return int(status), int(index)
            first = int(index)
            _check_deadline(deadline)


def _check_deadline(deadline: Deadline | None) -> None:
    if deadline is not None and deadline.expired():
        raise TimeLimitReached(_PHASE)


class _DamagedGzip(Exception):
    """A gzip stream that cannot be decompressed to its end (internal: becomes a verdict)."""


def _open_proof(proof: str | os.PathLike[str] | bytes) -> IO[bytes]:
    """A binary stream of the proof's text, gunzipped when it starts with the gzip magic bytes."""
    raw: IO[bytes]
    if isinstance(proof, bytes | bytearray | memoryview):
        data = bytes(proof)
        raw = io.BytesIO(data)
        head = data[:2]
    else:
        path = os.fspath(proof)
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the caller
        except FileNotFoundError:
            raise ProofFileError(f"proof file not found: {path}") from None
        except OSError as problem:
            raise ProofFileError(f"cannot read proof file {path}: {problem.strerror or problem}") from None
        try:
            head = f.peek(2)[:2]
        except OSError as problem:
            f.close()
            raise ProofFileError(f"cannot read proof file {path}: {problem.strerror or problem}") from None
        raw = f
    if head == b"\x1f\x8b":
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
    return raw


def _read(stream: IO[bytes], size: int) -> bytes:
    """Up to ``size`` bytes; a damaged or truncated gzip stream raises ``_DamagedGzip``."""
    try:
        return stream.read(size)
    except (gzip.BadGzipFile, EOFError, zlib.error) as problem:
        raise _DamagedGzip(str(problem).splitlines()[0] if str(problem) else type(problem).__name__) from None
    except OSError as problem:
        name = getattr(stream, "name", None) or "the proof"
        raise ProofFileError(f"cannot read {name}: {problem.strerror or problem}") from None


def _close(stream: IO[bytes]) -> None:
    inner = getattr(stream, "fileobj", None)
    stream.close()
    if inner is not None:
        inner.close()


def _parse_error(ps: np.ndarray) -> str:
    code, pos, line, byte = (int(ps[i]) for i in (_P_ERR, _P_ERRPOS, _P_ERRLINE, _P_ERRBYTE))
    where = f"line {line} (byte offset {pos})"
    if code == _E_BYTE:
        shown = repr(chr(byte)) if 32 <= byte <= 126 else f"0x{byte:02x}"
        return f"{where}: unexpected byte {shown}; a text DRAT proof has literals, 'd' and comments only"
    if code == _E_DINSIDE:
        return f"{where}: 'd' inside a clause (a deletion can only start one)"
    if code == _E_TOKEN:
        return f"{where}: malformed token"
    if code == _E_RANGE:
        return f"{where}: literal beyond +-{MAX_LITERAL}"
    return f"line {line}: clause not terminated by 0 before the end of the proof"


def _clause_text(lits: np.ndarray) -> str:
    """A lemma as its proof line, its first dozen literals at most."""
    body = " ".join(str(int(x)) for x in lits[:12]) + (" ..." if lits.size > 12 else "")
    return (body + " 0") if lits.size else "0"


def check_proof(
    cnf: np.ndarray,
    n_vars: int,
    proof: str | os.PathLike[str] | bytes,
    *,
    deadline: Deadline | None = None,
    max_bytes: int | None = None,
) -> ProofVerdict:
    """Check a text DRAT proof (a file path, gzip or plain, or the proof's bytes) against a CNF.

    ``cnf`` is a flat array of DIMACS literals, each clause ended by 0; ``n_vars`` its declared
    variable count.  Raises ``TimeLimitReached`` once ``deadline`` expires (never a verdict) and
    ``ProofFileError`` for a file that cannot be read; a bad proof is a verdict that does not hold.
    """
    _check_deadline(deadline)
    checker = _Checker(cnf, n_vars)
    stream = _open_proof(proof)
    try:
        return _check_stream(checker, stream, deadline, max_bytes)
    finally:
        _close(stream)


def _check_stream(
    checker: _Checker, stream: IO[bytes], deadline: Deadline | None, max_bytes: int | None
) -> ProofVerdict:
    ps = np.zeros(_P_SIZE, np.int64)
    ps[_P_LINE] = 1
    ps[_P_LINESTART] = 1
    cap = checker.base_vars + EXTRA_VARS
    carry = np.zeros(0, np.int32)
    steps_done = 0  # steps before the current piece
    empty_at: int | None = None  # the step that derived the empty clause
    total = 0
    while True:
        _check_deadline(deadline)
        try:
            piece = _read(stream, PIECE_BYTES)
        except _DamagedGzip as problem:
            return ProofVerdict(False, f"damaged gzip stream: {problem}", steps_done)
        final = not piece
        total += len(piece)
        if max_bytes is not None and total > max_bytes:
            return ProofVerdict(False, f"proof larger than {max_bytes} bytes", steps_done)
        buf = np.frombuffer(piece, np.uint8)
        room = buf.size // 2 + 2
        lits = np.empty(carry.size + room, np.int32)
        lits[: carry.size] = carry
        kinds = np.empty(room, np.int8)
        starts = np.empty(room, np.int64)
        lens = np.empty(room, np.int32)
        lines = np.empty(room, np.int64)
        ps[_P_NLITS] = carry.size
        ps[_P_NSTEPS] = 0
        ps[_P_CURSTART] = 0
        _parse(buf, final, ps, lits, kinds, starts, lens, lines)
        if ps[_P_ERR]:
            return ProofVerdict(False, "proof " + _parse_error(ps), steps_done)
        if ps[_P_MAXVAR] > cap:
            return ProofVerdict(
                False,
                f"variable out of range: the proof names variable {int(ps[_P_MAXVAR])}, beyond the "
                f"{checker.base_vars} of the formula plus {EXTRA_VARS}",
                steps_done,
            )
        n_steps = int(ps[_P_NSTEPS])
        carry = lits[int(ps[_P_CURSTART]) : int(ps[_P_NLITS])].copy()
        if empty_at is None and not checker.refuted_at_load and n_steps:
            checker.grow_vars(int(ps[_P_MAXVAR]))
            n_lits = int(ps[_P_CURSTART])
            checker.make_room(n_lits, n_steps, int(lens[:n_steps].max()))
            status, index = checker.run(lits, kinds[:n_steps], starts[:n_steps], lens[:n_steps], deadline)
            if status == _S_EMPTY:
                empty_at = steps_done + index + 1
            elif status == _S_FAIL:
                step = steps_done + index + 1
                line = int(lines[index])
                lemma = _clause_text(lits[starts[index] : starts[index] + lens[index]])
                return ProofVerdict(
                    False,
                    f"step {step} (line {line}): lemma {excerpt(lemma, 80)} is neither RUP nor RAT",
                    step,
                    step,
                    line,
                )
        steps_done += n_steps
        if final:
            break
    if checker.refuted_at_load or empty_at is not None:
        # dratify refuses, before checking, a proof naming a variable beyond the formula's count
        # plus the proof's length (literal occurrences or characters, whichever is larger)
        limit = checker.base_vars + max(int(ps[_P_TOTLITS]), total)
        if ps[_P_MAXVAR] > limit:
            return ProofVerdict(
                False,
                f"variable out of range: the proof names variable {int(ps[_P_MAXVAR])}, beyond the "
                f"{limit} the formula and the proof's length account for",
                steps_done,
            )
    if checker.refuted_at_load:
        return ProofVerdict(True, "the formula is refuted by unit propagation alone", 0)
    if empty_at is not None:
        return ProofVerdict(True, f"empty clause derived, {empty_at} steps checked", empty_at)
    return ProofVerdict(
        False, f"the proof never derives the empty clause ({steps_done} steps checked)", steps_done
    )


def check_proof_reference(
    cnf_text: str, proof: str | os.PathLike[str] | bytes, *, max_bytes: int = REFERENCE_MAX_BYTES
) -> ProofVerdict:
    """The verdict of dratify's pure-Python checker on the same proof (read as ``check_proof`` does).

    dratify holds the whole proof in memory: proofs beyond ``max_bytes`` are refused.
    """
    import dratify  # lazily: slow to import, and only the reference needs it

    stream = _open_proof(proof)
    parts: list[bytes] = []
    size = 0
    try:
        while size <= max_bytes:
            part = _read(stream, max_bytes + 1 - size)
            if not part:
                break
            parts.append(part)
            size += len(part)
    except _DamagedGzip as problem:
        return ProofVerdict(False, f"damaged gzip stream: {problem}", 0)
    finally:
        _close(stream)
    data = b"".join(parts)
    if len(data) > max_bytes:
        return ProofVerdict(
            False, f"proof of more than {max_bytes} bytes: too large for the reference checker", 0
        )
    formula = dratify.parse_dimacs(cnf_text)
    text = data.decode("utf-8", errors="replace")
    try:
        result = dratify.check_proof(formula, text, engine="python")
    except ValueError as problem:
        message = " ".join(str(problem).split()) or "malformed proof"
        return ProofVerdict(False, excerpt(message, 200, quote=False), 0)
    failed = int(result.failed_step) if result.failed_step > 0 else None
    reason = " ".join(str(result.reason).split())
    return ProofVerdict(bool(result.ok), reason, int(result.steps), failed, None)


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel, on a tiny formula and proofs using RUP,
    RAT, deletions, a compaction and a pause."""
    cnf = np.array([1, 2, 0, -1, 2, 0, 1, -2, 0, -1, -2, 3, 0, 4, 0], np.int64)
    check_proof(cnf, 4, b"c warm up\n5 -1 0\nd -1 2 0\n2 0\n0\n")
    checker = _Checker(cnf, 4)
    checker.make_room(1 << 17, 1 << 17, 2)
    checker.meta[_M_DEAD_LITS] = 1 << 20
    checker.make_room(1, 1, 1)
