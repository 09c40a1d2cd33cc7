"""Fail closed: the DAG's disk cache never serves a damaged or foreign graph, the DAG method stops at
its deadline with an unknown answer, and internal checks raise the project's errors (also under -O)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sudoku_cp.nishio import dag as dag_module

ARRAYS = ("masks", "layer", "start", "head", "label")


@pytest.fixture
def small_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A disk cache in tmp_path that also keeps 6x6 graphs (built in milliseconds)."""
    monkeypatch.setenv("SUDOKU_CP_CACHE", str(tmp_path))
    monkeypatch.setattr(dag_module, "DISK_CACHE_MIN_SIDE", 6)
    return tmp_path


def build_uncached() -> dag_module.NishioDag:
    return dag_module._build.__wrapped__(2, 3)  # bypass the in-memory cache, keep the disk one


def only_entry(folder: Path) -> Path:
    (entry,) = folder.iterdir()
    return entry


def same_graph(a: dag_module.NishioDag, b: dag_module.NishioDag) -> bool:
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in ARRAYS)


def test_a_saved_graph_is_read_back_identical(small_cache: Path) -> None:
    built = build_uncached()
    entry = only_entry(small_cache)
    assert (entry / "manifest.json").is_file()
    loaded = dag_module._load_cached(2, 3)
    assert loaded is not None and same_graph(loaded, built)


def test_a_flipped_byte_in_a_cached_array_is_detected_and_rebuilt(small_cache: Path) -> None:
    built = build_uncached()
    entry = only_entry(small_cache)
    # The last label: no length or end-vertex check sees it, only the checksum does.
    data = bytearray((entry / "label.npy").read_bytes())
    data[-1] ^= 0x01
    (entry / "label.npy").write_bytes(bytes(data))
    assert dag_module._load_cached(2, 3) is None
    assert not entry.exists()  # discarded, so the next save can write the entry anew
    rebuilt = build_uncached()
    assert same_graph(rebuilt, built)
    reloaded = dag_module._load_cached(2, 3)
    assert reloaded is not None and same_graph(reloaded, built)


def test_a_truncated_array_file_is_not_used(small_cache: Path) -> None:
    build_uncached()
    entry = only_entry(small_cache)
    data = (entry / "head.npy").read_bytes()
    (entry / "head.npy").write_bytes(data[: len(data) - 7])
    assert dag_module._load_cached(2, 3) is None
    assert list(small_cache.iterdir()) == []


def test_an_entry_whose_manifest_names_other_code_is_not_used(small_cache: Path) -> None:
    build_uncached()
    entry = only_entry(small_cache)
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["key"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))
    assert dag_module._load_cached(2, 3) is None


def test_a_missing_manifest_or_a_plain_file_in_its_place_is_not_used(small_cache: Path) -> None:
    build_uncached()
    entry = only_entry(small_cache)
    (entry / "manifest.json").unlink()
    assert dag_module._load_cached(2, 3) is None
    entry.write_text("not a graph")
    assert dag_module._load_cached(2, 3) is None
    assert not entry.exists()


def test_a_cache_written_by_other_code_is_not_used(
    small_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_uncached()
    theirs = only_entry(small_cache)
    monkeypatch.setattr(dag_module, "_code_hash", lambda: "f" * 64)
    assert dag_module._load_cached(2, 3) is None
    reads: list[Path] = []
    original = dag_module._read_verified

    def counted(path: Path, p: int, q: int) -> dag_module.NishioDag | None:
        reads.append(path)
        return original(path, p, q)

    monkeypatch.setattr(dag_module, "_read_verified", counted)
    rebuilt = build_uncached()
    assert reads == [] and same_graph(rebuilt, built)  # nothing of theirs was even read
    ours = only_entry(small_cache)  # and their entry, never to be read again, is gone
    assert ours != theirs
    assert json.loads((ours / "manifest.json").read_text())["code"] == "f" * 64


def test_an_old_numbered_cache_folder_is_removed_by_a_save(small_cache: Path) -> None:
    old = small_cache / "nishio-dag-v1-2x3"
    old.mkdir()
    (old / "head.npy").write_bytes(b"old")
    other_shape = small_cache / "nishio-dag-v1-3x2"
    other_shape.mkdir()
    build_uncached()
    assert not old.exists() and other_shape.exists()


def test_the_code_hash_follows_the_builders_source(monkeypatch: pytest.MonkeyPatch) -> None:
    ours = dag_module._code_hash.__wrapped__()
    assert ours is not None and len(ours) == 64
    monkeypatch.setattr(dag_module, "_BUILDER_CODE", (*dag_module._BUILDER_CODE, same_graph))
    assert dag_module._code_hash.__wrapped__() != ours
