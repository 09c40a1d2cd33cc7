"""Shared test helpers: data paths and the corpora of ../shared/data (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared" / "data"

settings.register_profile(
    "default", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("default")


def shared_file(relative: str) -> Path:
    """A file of the shared corpora; the calling test is skipped when it is not there."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"shared corpus file {relative} is absent (expected at {path})")
    return path


def read_lines(path: Path, limit: int | None = None) -> list[str]:
    """The non-empty lines of a puzzle-per-line file, at most ``limit`` of them."""
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    return lines[:limit] if limit is not None else lines


#: Seconds a long test (marked ``slow``, run with ``-m slow``) may take; the rest keep pyproject's 300 s.
SLOW_TIMEOUT = 3600


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every slow test the long time limit unless it names its own."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))
