"""Backend settings written after the name, as in ``acs:bve=0,rule=code`` or ``hill:shuffle_digits=0``.

One parser for every backend that takes them: comma-separated ``key=value`` pairs, each key with
its converter; the converted values build the backend's parameter dataclass, whose own checks
(ranges) are reported too.  Every problem is a BackendError naming the backend and the setting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from .base import BackendError

__all__ = ["Setting", "bounded", "parse_settings"]

P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class Setting:
    """A key users may write: the parameter field it sets, how its text converts, what it expects."""

    field: str
    convert: Callable[[str], object]
    expected: str


def bounded(lowest: int, highest: int) -> Callable[[str], int]:
    """A converter: a whole number in [lowest, highest], ValueError otherwise (a count that sizes
    arrays, checked before ``int`` of a huge one reaches numpy)."""

    def convert(text: str) -> int:
        if len(text.strip().lstrip("+-")) > 18:
            raise ValueError(text)
        value = int(text)
        if not lowest <= value <= highest:
            raise ValueError(text)
        return value

    return convert


def parse_settings(backend: str, text: str, settings: Mapping[str, Setting], build: Callable[..., P]) -> P:
    """The parameters ``build(**fields)`` that ``text`` sets; an empty text gives the defaults."""
    values: dict[str, object] = {}
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        key, sep, raw = (piece.strip() for piece in part.partition("="))
        if not sep or key not in settings:
            known = ", ".join(settings)
            raise BackendError(f"{backend} setting {part!r} is not key=value with a key among {known}")
        setting = settings[key]
        try:
            values[setting.field] = setting.convert(raw)
        except ValueError:
            raise BackendError(f"{backend} setting {key}={raw!r}: expected {setting.expected}") from None
    try:
        return build(**values)
    except ValueError as error:
        raise BackendError(f"{backend} settings {text!r}: {error}") from None
