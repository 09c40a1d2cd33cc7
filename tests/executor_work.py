"""Module-level work functions for the executor tests (workers import them by name)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["crashed", "crashed_any", "double", "setup_marker", "unpicklable", "until_marked"]

_state: dict[str, str] = {}


def setup_marker(tag: str) -> None:
    """Worker setup: remember a tag (the test checks it reached the chunks)."""
    _state["tag"] = tag


def double(chunk: list[int]) -> list[str]:
    """Each number doubled, tagged by the worker's setup; -1 kills the worker, -2 raises."""
    if -1 in chunk:
        os.kill(os.getpid(), signal.SIGKILL)
    if -2 in chunk:
        raise ValueError("a bad chunk")
    return [f"{_state.get('tag', '?')}:{2 * x}" for x in chunk]


def until_marked(chunk: tuple[str, list[int]]) -> list[str]:
    """Kill the worker the first time (no marker file yet), answer the second time."""
    marker, numbers = Path(chunk[0]), chunk[1]
    if not marker.exists():
        marker.write_text("x")
        os.kill(os.getpid(), signal.SIGKILL)
    return [str(x) for x in numbers]


def crashed(chunk: object, why: str) -> list[str]:
    """One crash line per item of a chunk."""
    items = chunk[1] if isinstance(chunk, tuple) else chunk
    assert isinstance(items, list)
    return [f"crash({why.split(':')[0]})" for _ in items]


def unpicklable(chunk: list[int]) -> list[object]:
    """Results that cannot travel back from a worker process."""
    return [lambda x=x: x for x in chunk]


def crashed_any(chunk: list[int], why: str) -> list[object]:
    """One crash line per item, naming the failure."""
    return [f"crash({why.split(':')[0]})" for _ in chunk]
