"""CNF models are made and written a chunk at a time: memory stays bounded whatever the model."""

from __future__ import annotations

import io
import tracemalloc
from typing import IO, cast

import numpy as np
import pytest

from sudoku_cp.cnf.dimacs import write_dimacs
from sudoku_cp.cnf.sudoku import _CHUNK_CLAUSES, AmoEncoding, ClausePart, cnf_size, encode_cnf
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.grid import Grid


def test_clause_blocks_never_exceed_a_chunk() -> None:
    cnf = encode_cnf(Grid.empty(geometry_for_size(36)), "extended")
    assert cnf.n_clauses > 40 * _CHUNK_CLAUSES
    largest = max(block.shape[0] for block in cnf.blocks())
    assert largest <= _CHUNK_CLAUSES


@pytest.mark.parametrize("amo", list(AmoEncoding))
def test_a_part_made_in_chunks_equals_the_part_made_at_once(amo: AmoEncoding) -> None:
    groups = np.arange(1, 7 * 9 + 1, dtype=np.int32).reshape(7, 9)
    part = ClausePart(groups, amo, aux_start=1000)
    whole = list(part.chunks(max_clauses=10**9))
    pieces = list(part.chunks(max_clauses=1))  # one group at a time
    rows_whole = sorted(tuple(row) for block in whole for row in block.tolist())
    rows_pieces = sorted(tuple(row) for block in pieces for row in block.tolist())
    assert rows_whole == rows_pieces
    assert sum(block.shape[0] for block in pieces) == part.size
    assert sum(block.size for block in pieces) == part.literals()


def test_writing_a_model_holds_one_chunk_not_the_whole_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 36x36 extended model: 3.3 million clauses, 26 MB as one int32 array, about 50 MB of text.

    The text is made 65,536 literals at a time here (a million by default), so what is left of the
    peak is what the encoder holds.
    """
    import sudoku_cp.cnf.dimacs as dimacs

    monkeypatch.setattr(dimacs, "_CHUNK_LITERALS", 1 << 16)
    size = cnf_size(Grid.empty(geometry_for_size(36)), "extended")
    whole = 4 * size.literals

    class Sink(io.RawIOBase):
        written = 0

        def writable(self) -> bool:
            return True

        def write(self, data: object) -> int:
            n = len(data)  # type: ignore[arg-type]
            Sink.written += n
            return n

    tracemalloc.start()
    try:
        cnf = encode_cnf(Grid.empty(geometry_for_size(36)), "extended", use="write")
        sink = cast(IO[bytes], Sink())
        written = write_dimacs(sink, cnf.blocks(), cnf.n_vars, cnf.comments(), n_clauses=cnf.n_clauses)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert written == cnf.n_clauses == size.clauses
    assert Sink.written > size.clauses * 4
    assert peak < whole / 3, (peak, whole)  # holding the model's clauses at once takes whole
