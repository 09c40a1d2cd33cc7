"""Every output format for the golden 4x4 and 9x9 puzzles matches encodings/golden byte for byte."""

from __future__ import annotations

import pytest
from golden import GOLDEN, renderers

RENDERERS = renderers()


def test_every_golden_file_has_a_renderer_and_back() -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(RENDERERS)


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_output_matches_golden_file(name: str) -> None:
    expected = (GOLDEN / name).read_text()
    assert RENDERERS[name]() == expected, f"{name} changed: run tests/golden.py --write and review the diff"
