"""Reading and writing grids: one-line, multi-line, integer, ant-colony instance and batch files.

Symbol table (one-line and multi-line character forms): blank is ``.`` or ``0``; digits 1 to 9
are ``1``-``9``; 10 to 35 are ``A``-``Z``; 36 to 61 are ``a``-``z``.  Grids larger than 61 x 61
use the integer form.

Input forms (``GridFormat``), detected automatically unless one is named:

* ``line``: one puzzle as n*n symbols on one line (e.g. the 81-character form).
* ``lines``: a batch file, one puzzle per line (blank lines and ``#`` comments skipped).
* ``grid``: one puzzle over several lines of symbols; the box separators ``|``, ``+``, ``-``
  and ``=`` and all white space are ignored.
* ``ints``: n*n whitespace-separated integers, 0 or ``.`` blank (any n).
* ``acs``: the instance files of Lloyd & Amos' ant-colony solver: the box order o, an ignored
  integer, then o**4 integers with -1 for blank.

Autodetection never guesses: text that two forms read differently is an error naming both.
Every problem is a ``ParseError`` naming the line, column and (where known) the cell, in one line
of at most ``MAX_MESSAGE`` characters (long values are cut, see ``excerpt``).  A minus sign before
a digit is an error in every form (``-5`` is never a separator and a 5), except the ``-1`` blank of
``acs``.  A UTF-8 byte-order mark at the start of a text is ignored (``strip_bom``).
"""

from __future__ import annotations

import codecs
import io
import itertools
import json
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import BinaryIO

import numpy as np

from .errors import SudokuCpError, excerpt
from .geometry import Geometry, GeometryError, geometry_for_size
from .grid import Grid

__all__ = [
    "DEFAULT_MAX_INPUT",
    "MAX_INPUT_ENV",
    "MAX_MESSAGE",
    "SYMBOLS",
    "GridFormat",
    "ParseError",
    "PuzzleItem",
    "PuzzleRows",
    "format_ints",
    "format_line",
    "format_lines",
    "format_pretty",
    "grid_rows",
    "grid_to_json",
    "parse_grid",
    "parse_line",
    "parse_puzzles",
    "json_dumps",
    "max_input_bytes",
    "read_text",
    "strip_bom",
]

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_VALUE_OF = {symbol: value for value, symbol in enumerate(SYMBOLS, start=1)}
_VALUE_OF.update({".": 0, "0": 0})
_SEPARATORS = frozenset("|+-=")
_INT_TOKEN = re.compile(r"-?[0-9]+|\.")
_NEGATIVE = re.compile(r"-[0-9]+")
_MAX_DIGITS = 9  # longer integers are out of every range; int() of thousands of digits even raises
_BOM = "\ufeff"
_SYMBOL_CHAR = re.compile(r"[^\s|+\-=]")  # what a grid of symbols does not ignore (separators, spaces)
_MAX_SYMBOL_CELLS = len(SYMBOLS) ** 2
#: The longest error message a parser writes (values in it are cut first, see ``excerpt``).
MAX_MESSAGE = 280


def strip_bom(text: str) -> str:
    """The text without a UTF-8 byte-order mark at its start (editors on Windows write one)."""
    return text[1:] if text.startswith(_BOM) else text


class GridFormat(Enum):
    """A grid text form; see the module docstring."""

    LINE = "line"
    LINES = "lines"
    GRID = "grid"
    INTS = "ints"
    ACS = "acs"


class ParseError(SudokuCpError, ValueError):
    """Text that is not a grid; carries the 1-based line and column where that is known.

    The message is kept to one line of at most ``MAX_MESSAGE`` characters, whatever it quotes.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        message = " ".join(message.splitlines())
        room = MAX_MESSAGE - 40  # 'line L, column C: ' comes in front
        self.message = message if len(message) <= room else message[: room - 3] + "..."
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


@dataclass(frozen=True, slots=True, eq=False)
class PuzzleRows:
    """The grids of a batch read in one pass: one geometry, a read-only (k, n*n) int16 array."""

    geometry: Geometry
    values: np.ndarray


class PuzzleItem:
    """One puzzle of an input: its grid, or the error that kept it from being read.

    An item of a batch file read in one pass points at its row of the batch's ``PuzzleRows`` and
    makes its ``Grid`` only when asked (a file of 10,000 puzzles would otherwise spend more on
    making grids than on reading).  Items are values: never changed once made, compared by
    index, line, grid and error.
    """

    __slots__ = ("index", "line", "error", "_grid", "_rows", "_row")

    def __init__(
        self,
        index: int,
        line: int,
        grid: Grid | None,
        error: str | None = None,
        rows: PuzzleRows | None = None,
        row: int = 0,
    ) -> None:
        self.index = index
        self.line = line
        self.error = error
        self._grid = grid
        self._rows = rows
        self._row = row

    @classmethod
    def of_row(cls, index: int, line: int, rows: PuzzleRows, row: int) -> PuzzleItem:
        """The item whose grid is row ``row`` of ``rows``, made on first use."""
        return cls(index, line, None, None, rows, row)

    @property
    def grid(self) -> Grid | None:
        """The puzzle, or None when it could not be read."""
        if self._grid is None and self._rows is not None:
            self._grid = Grid(self._rows.geometry, self._rows.values[self._row])
        return self._grid

    @property
    def geometry(self) -> Geometry | None:
        """The puzzle's geometry (without making its grid), or None when it could not be read."""
        if self._rows is not None:
            return self._rows.geometry
        return None if self._grid is None else self._grid.geometry

    @property
    def source(self) -> tuple[PuzzleRows, int] | None:
        """The batch rows and row this item's grid comes from, or None when it holds its own grid."""
        return None if self._rows is None else (self._rows, self._row)

    def _key(self) -> tuple[int, int, Grid | None, str | None]:
        return (self.index, self.line, self.grid, self.error)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PuzzleItem) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = f"index={self.index!r}, line={self.line!r}, grid={self.grid!r}, error={self.error!r}"
        return f"PuzzleItem({fields})"

    def __reduce__(self) -> tuple[object, ...]:
        if self._rows is not None:  # the rows once for all the items pickled together
            return (PuzzleItem, (self.index, self.line, None, self.error, self._rows, self._row))
        return (PuzzleItem, self._key())


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    line: int
    column: int


#: The environment variable that sets the input cap: bytes, or a number with K, M or G (binary units).
MAX_INPUT_ENV = "SUDOKU_CP_MAX_INPUT"
#: The input cap without ``SUDOKU_CP_MAX_INPUT``: far above any puzzle file (a 4096 x 4096 grid of
#: integers is 84 MB), far below what would exhaust memory once parsed.
DEFAULT_MAX_INPUT = 256 << 20
_READ_CHUNK = 1 << 20
# Control characters are no part of any text form: a device, a binary or a random file is refused
# at the first one instead of being read to the end (tab, line feed, vertical tab, form feed and
# carriage return are white space).
_NOT_TEXT = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SIZE = re.compile(r"([0-9]{1,15})\s*([KMG]?)(?:i?B)?", re.IGNORECASE)


def max_input_bytes() -> int:
    """The largest input ``read_text`` takes: ``SUDOKU_CP_MAX_INPUT`` (e.g. '64M', '2G', '100000'),
    else ``DEFAULT_MAX_INPUT``; a value that is not a size is a ParseError."""
    setting = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not setting:
        return DEFAULT_MAX_INPUT
    match = _SIZE.fullmatch(setting)
    if match is None or int(match.group(1)) == 0:
        raise ParseError(f"{MAX_INPUT_ENV}={excerpt(setting, 40)} is not a size (e.g. 100000, 64M or 2G)")
    return int(match.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[match.group(2).upper()]


def _input_name(source: str) -> str:
    return "<stdin>" if source == "-" else excerpt(source, 200, quote=False)


def _open_binary(source: str) -> BinaryIO:
    """The byte stream of a path or '-' (standard input); ParseError naming it when it cannot be opened."""
    name = _input_name(source)
    if source == "-":
        stdin = sys.stdin
        raw = getattr(stdin, "buffer", None) if stdin is not None else None
        if stdin is None or getattr(stdin, "closed", False) or (raw is not None and raw.closed):
            raise ParseError("<stdin>: standard input is closed")
        if raw is None:  # a text stream put in its place (tests): its characters, as UTF-8
            return io.BytesIO(stdin.read().encode("utf-8", errors="surrogateescape"))
        return raw  # type: ignore[no-any-return]
    try:
        return open(source, "rb")  # noqa: SIM115 - closed by read_text
    except FileNotFoundError:
        raise ParseError(f"no such file: {name}") from None
    except IsADirectoryError:
        raise ParseError(f"{name} is a directory, not a puzzle file") from None
    except OSError as error:
        raise ParseError(f"{name}: cannot open: {error.strerror or error}") from None


def read_text(source: str, *, limit: int | None = None) -> str:
    """The text of a file path, or of standard input for '-', without a byte-order mark.

    Bounded, whatever the source (a file, a pipe, a device): at most ``limit`` bytes (default
    ``max_input_bytes()``), read a chunk at a time, and refused at the first byte that is not
    UTF-8 text or is a control character, so ``/dev/zero`` or ``/dev/urandom`` fails at once.
    Every problem is a ParseError naming the source (a closed standard input included).
    """
    most = max_input_bytes() if limit is None else limit
    name = _input_name(source)
    stream = _open_binary(source)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    parts: list[str] = []
    offset = 0  # bytes read before this chunk
    try:
        while True:
            try:
                chunk = stream.read(_READ_CHUNK)
            except OSError as error:
                raise ParseError(f"{name}: cannot read: {error.strerror or error}") from None
            except ValueError:  # read of a closed file
                raise ParseError(f"{name}: cannot read: the stream is closed") from None
            if offset + len(chunk) > most:
                raise ParseError(
                    f"{name} is larger than the input cap of {_bytes(most)}; "
                    f"set {MAX_INPUT_ENV} (e.g. {MAX_INPUT_ENV}=2G) to read more"
                )
            began = offset - len(decoder.getstate()[0])  # where this chunk's text starts
            try:
                text = decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as error:
                raise ParseError(f"{name} is not UTF-8 text (byte {offset + error.start})") from None
            bad = _NOT_TEXT.search(text)
            if bad is not None:
                at = began + len(text[: bad.start()].encode("utf-8"))
                code = ord(bad.group())
                raise ParseError(f"{name} is not text: byte {at} is the control character {code:#04x}")
            parts.append(text)
            offset += len(chunk)
            if not chunk:
                break
    finally:
        if source != "-":
            stream.close()
    return strip_bom("".join(parts))


def _bytes(count: int) -> str:
    """A size as ``SUDOKU_CP_MAX_INPUT`` takes it: '256M', '1G', '1000'."""
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift}{unit}"
    return f"{count} bytes"


def _geometry(n: int, box: tuple[int, int] | None, line: int | None) -> Geometry:
    try:
        return geometry_for_size(n, box)
    except GeometryError as error:
        raise ParseError(str(error), line) from None


def _side(count: int, what: str, line: int | None) -> int:
    n = math.isqrt(count)
    if count == 0:
        raise ParseError("no cells", line)
    if n * n != count:
        raise ParseError(f"{count} {what} is not a square grid (n*n cells, e.g. 81)", line)
    return n


def _grid_from_symbols(tokens: Sequence[_Token], box: tuple[int, int] | None) -> Grid:
    line = tokens[0].line if tokens else None
    n = _side(len(tokens), "symbols", line)
    geometry = _geometry(n, box, line)
    if n > len(SYMBOLS):
        raise ParseError(f"a {n}x{n} grid needs the integer form (symbols stop at {len(SYMBOLS)})", line)
    values = np.zeros(n * n, dtype=np.int16)
    for cell, token in enumerate(tokens):
        value = _VALUE_OF.get(token.text)
        if value is None:
            raise ParseError(
                f"unknown symbol {token.text!r} ({geometry.cell_name(cell)})", token.line, token.column
            )
        if value > n:
            raise ParseError(
                f"symbol {token.text!r} stands for {value}, out of range 1-{n} ({geometry.cell_name(cell)})",
                token.line,
                token.column,
            )
        values[cell] = value
    return Grid(geometry, values)


def _grid_from_ints(tokens: Sequence[_Token], box: tuple[int, int] | None, blank: str = "0") -> Grid:
    line = tokens[0].line if tokens else None
    n = _side(len(tokens), "integers", line)
    geometry = _geometry(n, box, line)
    values = np.zeros(n * n, dtype=np.int16)
    for cell, token in enumerate(tokens):
        if token.text in (".", blank):
            continue
        if not _INT_TOKEN.fullmatch(token.text):
            raise ParseError(
                f"{excerpt(token.text)} is not an integer ({geometry.cell_name(cell)})",
                token.line,
                token.column,
            )
        value = _int_value(token, "digit")
        if not 1 <= value <= n:
            raise ParseError(
                f"digit {value} out of range 1-{n} ({geometry.cell_name(cell)})", token.line, token.column
            )
        values[cell] = value
    return Grid(geometry, values)


def _negative_number(number: str, line: int, column: int) -> ParseError:
    return ParseError(
        f"negative number {excerpt(number, 20, quote=False)}: a cell holds a digit, or 0 or '.' for a blank",
        line,
        column,
    )


def _int_value(token: _Token, what: str, *, negative: bool = False) -> int:
    """The integer a token of ``_INT_TOKEN`` holds; ParseError for too many digits, or a negative one
    unless ``negative`` allows it."""
    if token.text.startswith("-") and not negative:
        raise _negative_number(token.text, token.line, token.column)
    if len(token.text.lstrip("-")) > _MAX_DIGITS:
        raise ParseError(f"{excerpt(token.text, 20)} is too large for a {what}", token.line, token.column)
    return int(token.text)


def _word_tokens(text: str, first_line: int = 1) -> list[_Token]:
    tokens = []
    for line_no, line in enumerate(text.splitlines(), start=first_line):
        for match in re.finditer(r"\S+", line):
            if match.group().strip("|+-="):  # not a box rule
                tokens.append(_Token(match.group(), line_no, match.start() + 1))
    return tokens


def _symbol_tokens(text: str, first_line: int = 1) -> list[_Token]:
    """Every character that is not white space or a box separator, with its place.

    A '-' before a digit is a minus sign, not a box rule: ParseError.  So is more symbols than the
    largest grid of symbols holds, counted before a line is cut into tokens (a line of 10 MB is
    refused in milliseconds, not after ten million tokens).
    """
    tokens = []
    count = 0
    for line_no, line in enumerate(text.splitlines(), start=first_line):
        if line.lstrip().startswith("#"):
            continue
        room = _MAX_SYMBOL_CELLS - count  # counted up to one past the room left: a long line stops early
        count += sum(1 for _ in itertools.islice(_SYMBOL_CHAR.finditer(line), room + 1))
        if count > _MAX_SYMBOL_CELLS:
            raise ParseError(
                f"more than {_MAX_SYMBOL_CELLS} symbols: the largest grid of symbols is "
                f"{len(SYMBOLS)}x{len(SYMBOLS)}; larger grids use the integer form",
                line_no,
            )
        negative = _NEGATIVE.search(line)
        if negative is not None:
            raise _negative_number(negative.group(), line_no, negative.start() + 1)
        for column, char in enumerate(line, start=1):
            if not char.isspace() and char not in _SEPARATORS:
                tokens.append(_Token(char, line_no, column))
    return tokens


def _parse_acs(tokens: Sequence[_Token], box: tuple[int, int] | None) -> Grid:
    order = _int_value(tokens[0], "box order")
    n = order * order
    if box is not None and box != (order, order):
        raise ParseError(
            f"ant-colony instance of order {order} has {order}x{order} boxes, not {box[0]}x{box[1]}", 1
        )
    cells = tokens[2:]
    if len(cells) != n * n:
        raise ParseError(f"order {order} needs {n * n} cell values, found {len(cells)}", tokens[0].line)
    geometry = _geometry(n, (order, order), tokens[0].line)
    values = np.zeros(n * n, dtype=np.int16)
    for cell, token in enumerate(cells):
        if not _INT_TOKEN.fullmatch(token.text) or token.text == ".":
            raise ParseError(
                f"{excerpt(token.text)} is not an integer ({geometry.cell_name(cell)})",
                token.line,
                token.column,
            )
        value = _int_value(token, "cell value", negative=True)
        if value == -1:
            continue
        if not 1 <= value <= n:
            raise ParseError(
                f"value {value} out of range (-1 or 1-{n}) ({geometry.cell_name(cell)})",
                token.line,
                token.column,
            )
        values[cell] = value
    return Grid(geometry, values)


def _looks_acs(words: Sequence[_Token]) -> bool:
    if len(words) < 3 or not all(re.fullmatch(r"-?[0-9]{1,9}", w.text) for w in words[:2]):
        return False
    order = int(words[0].text)
    if not 2 <= order <= 20 or words[1].text != "1":
        return False
    return len(words) == 2 + order**4 or any(w.text == "-1" for w in words[2:])


def _all_ints(words: Sequence[_Token]) -> bool:
    return all(_INT_TOKEN.fullmatch(w.text) for w in words)


def _refuse_mixed_forms(words: Sequence[_Token]) -> None:
    """A ParseError for whitespace-separated cells mixing integers of two digits or more with
    letter symbols ('10' and 'A' in one 16x16 grid): neither form reads it, and counting its
    characters as symbols ('257 symbols is not a square grid') would hide why."""
    number = next((w for w in words if len(w.text) > 1 and w.text.isdigit()), None)
    letter = next((w for w in words if len(w.text) == 1 and w.text.isalpha()), None)
    if number is None or letter is None:
        return
    first = min(number, letter, key=lambda w: (w.line, w.column))
    raise ParseError(
        f"the grid mixes integers ({number.text!r}, line {number.line}) with letter symbols "
        f"({letter.text!r}, line {letter.line}); write every cell in one form: integers "
        "(10, 11, ...) or symbols (A, B, ...)",
        first.line,
        first.column,
    )


def _parse_single(text: str, box: tuple[int, int] | None, first_line: int = 1) -> Grid:
    """One puzzle in any single-puzzle form, detected; an error when two forms read it differently."""
    words = _word_tokens(text, first_line)
    if not words:
        raise ParseError("empty input: no puzzle")
    if _looks_acs(words):
        return _parse_acs(words, box)
    as_ints: Grid | None = None
    int_error: ParseError | None = None
    # Integers, when some cell takes two digits or there are more cells than any grid of symbols
    # holds (a blank 64x64 grid of integers is all '0' and '.').
    multi_char = any(len(w.text) > 1 for w in words) or len(words) > _MAX_SYMBOL_CELLS
    if multi_char and len(words) > 1 and _all_ints(words):
        try:
            as_ints = _grid_from_ints(words, box)
        except ParseError as error:
            int_error = error
    try:  # a grid of integers holds more characters than any grid of symbols: tokens refused first
        as_symbols = _grid_from_symbols(_symbol_tokens(text, first_line), box)
    except ParseError:
        if as_ints is not None:
            return as_ints
        if int_error is not None and math.isqrt(len(words)) ** 2 == len(words):
            raise int_error from None
        _refuse_mixed_forms(words)
        raise
    if as_ints is not None and as_ints != as_symbols:
        raise ParseError(
            f"ambiguous input: it reads as a {as_ints.n}x{as_ints.n} grid of integers and as a "
            f"{as_symbols.n}x{as_symbols.n} grid of symbols; name one with --format ints or --format grid"
        )
    return as_symbols


def parse_line(text: str, box: tuple[int, int]) -> Grid:
    """Read a grid written by ``format_line`` (symbols up to side 61, integers past it)."""
    fmt = GridFormat.INTS if box[0] * box[1] > len(SYMBOLS) else GridFormat.LINE
    return parse_grid(text, box=box, fmt=fmt)


def parse_grid(text: str, *, box: tuple[int, int] | None = None, fmt: GridFormat | None = None) -> Grid:
    """Read exactly one puzzle; raise ParseError on anything else."""
    items = parse_puzzles(text, box=box, fmt=fmt)  # strips a byte-order mark
    if len(items) != 1:
        raise ParseError(f"expected one puzzle, found {len(items)} (one per line)")
    item = items[0]
    if item.grid is None:
        raise ParseError(item.error or "unreadable puzzle")
    return item.grid


def _batch_lines(text: str) -> list[tuple[int, str]]:
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _looks_like_batch(lines: Sequence[tuple[int, str]], box: tuple[int, int] | None) -> bool:
    """At least two lines, and most of them one whole puzzle each (no spaces or separators)."""
    if len(lines) < 2:
        return False
    clean = [line for _, line in lines if not (_SEPARATORS & set(line) or " " in line or "\t" in line)]
    return _fits_batch([len(line) for line in clean], len(lines), box)


def _fits_batch(clean_lengths: list[int], count: int, box: tuple[int, int] | None) -> bool:
    """Whether ``count`` lines, of which those of ``clean_lengths`` are clean, read as a batch: half
    of them clean at least, and their most common length the cells of a grid with a box shape."""
    if 2 * len(clean_lengths) < count:
        return False
    common = _most_common(clean_lengths)
    n = math.isqrt(common)
    if n * n != common:
        return False
    try:
        geometry_for_size(n, box)
    except GeometryError:
        return False
    return True


_BYTE_VALUE = np.full(256, -1, dtype=np.int16)
for _symbol, _value in _VALUE_OF.items():
    _BYTE_VALUE[ord(_symbol)] = _value


# ASCII white space as ``str.isspace`` and ``str.strip`` see it, and the characters that make a
# batch line unclean for ``_looks_like_batch`` (box separators, spaces and tabs).
_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_UNCLEAN = np.zeros(256, dtype=bool)
_UNCLEAN[[ord(c) for c in "|+-= \t"]] = True
# ASCII line breaks of ``str.splitlines`` other than "\n" ("\r\n" is made "\n" first).
_OTHER_BREAK = np.zeros(256, dtype=bool)
_OTHER_BREAK[[11, 12, 13, 28, 29, 30]] = True


def _most_common(lengths: list[int]) -> int:
    """The most frequent length, ties broken as ``max(set(lengths), key=lengths.count)`` breaks them."""
    if min(lengths) == max(lengths):
        return lengths[0]
    counts: dict[int, int] = {}
    for length in lengths:
        counts[length] = counts.get(length, 0) + 1
    return max(set(lengths), key=counts.__getitem__)


def _span_counts(flags: np.ndarray, first: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """How many True ``flags`` lie in each span [first, stop) (few True: a search, no running sum)."""
    where = np.flatnonzero(flags)
    return np.searchsorted(where, stop) - np.searchsorted(where, first)


def _scan_batch(text: str, box: tuple[int, int] | None, forced: bool) -> list[PuzzleItem] | None:
    """The items of a batch read with numpy over the bytes; None when the text needs the general path.

    The same items as ``_parse_batch(_batch_lines(text), box)`` where the general path would read
    a batch: ASCII text with "\n" (or "\r\n") line breaks only, at least two puzzle lines that
    ``_looks_like_batch`` accepts (any count with ``forced``), and not a square of lines that could
    also be one grid.  Lines of the batch's most common length made only of symbols are read in one
    pass; any other line goes through the per-line reader, as before.
    """
    if not text.isascii():
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # one line break for splitlines too
    data = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    if _OTHER_BREAK[data].any():
        return None
    breaks = np.flatnonzero(data == 10)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [data.size]))
    if not _IS_SPACE[data].sum() - breaks.size:  # no white space but the line breaks
        kept = np.flatnonzero(ends > starts)
        first, stop = starts[kept], ends[kept]
    else:
        solid = np.flatnonzero(~_IS_SPACE[data])  # where the stripped lines begin and end
        if solid.size == 0:
            return None
        at = np.searchsorted(solid, starts)
        kept = np.flatnonzero((at < solid.size) & (solid[np.minimum(at, solid.size - 1)] < ends))
        first = solid[at[kept]]
        stop = solid[np.searchsorted(solid, ends[kept]) - 1] + 1
    puzzle = data[first] != ord("#")
    numbers, first, stop = kept[puzzle] + 1, first[puzzle], stop[puzzle]
    count = int(numbers.size)
    lengths = (stop - first).tolist()
    if count == 0 or (not forced and count < 2) or all(length == count for length in lengths):
        return None  # nothing, one line, or lines that may be one grid: the general path decides
    if not forced:
        clean = _span_counts(_UNCLEAN[data], first, stop) == 0
        clean_lengths = [length for length, ok in zip(lengths, clean.tolist(), strict=True) if ok]
        if not _fits_batch(clean_lengths, count, box):
            return None
    return _batch_items(text, data, numbers.tolist(), first, stop, lengths, box)


def _batch_items(
    text: str,
    data: np.ndarray | None,
    numbers: list[int],
    first: np.ndarray,
    stop: np.ndarray,
    lengths: list[int],
    box: tuple[int, int] | None,
) -> list[PuzzleItem]:
    """One item per line [first, stop) of ``text``; ``data``, its ASCII bytes, lets the lines of the
    most common length made only of symbols be read in one numpy pass (None: each line alone)."""
    common = _most_common(lengths)
    side = math.isqrt(common)
    rows: PuzzleRows | None = None
    fast = np.zeros(len(numbers), dtype=bool)
    if data is not None and side * side == common and side <= len(SYMBOLS):
        try:
            geometry = geometry_for_size(side, box)
        except GeometryError:
            geometry = None
        if geometry is not None:
            chosen = np.flatnonzero(np.asarray(lengths) == common)
            values = _BYTE_VALUE[data[first[chosen, None] + np.arange(common)]]
            good = ((values >= 0) & (values <= side)).all(axis=1)
            values = values[good]
            values.setflags(write=False)
            rows = PuzzleRows(geometry, values)
            fast[chosen[good]] = True
    if rows is not None and len(rows.values) == len(numbers):  # every line read in the one pass
        return [PuzzleItem(index, number, None, None, rows, index) for index, number in enumerate(numbers)]
    where = (np.cumsum(fast) - 1).tolist()  # the row of each fast line
    items = []
    firsts, stops = first.tolist(), stop.tolist()
    for index, (number, is_fast) in enumerate(zip(numbers, fast.tolist(), strict=True)):
        if is_fast and rows is not None:
            items.append(PuzzleItem.of_row(index, number, rows, where[index]))
            continue
        line = text[firsts[index] : stops[index]]
        try:
            items.append(PuzzleItem(index, number, _grid_from_symbols(_symbol_tokens(line, number), box)))
        except ParseError as error:
            items.append(PuzzleItem(index, number, None, str(error)))
    return items


def _parse_batch(lines: Sequence[tuple[int, str]], box: tuple[int, int] | None) -> list[PuzzleItem]:
    """One item per line: the lines of the most common length in one pass when they are ASCII."""
    text = "\n".join(line for _, line in lines)
    lengths = [len(line) for _, line in lines]
    first = np.zeros(len(lines), dtype=np.int64)
    np.cumsum(np.asarray(lengths[:-1], dtype=np.int64) + 1, out=first[1:])
    stop = first + np.asarray(lengths, dtype=np.int64)
    data = np.frombuffer(text.encode("ascii"), dtype=np.uint8) if text.isascii() else None
    return _batch_items(text, data, [number for number, _ in lines], first, stop, lengths, box)


def parse_puzzles(
    text: str, *, box: tuple[int, int] | None = None, fmt: GridFormat | None = None
) -> list[PuzzleItem]:
    """Read every puzzle of a text: one puzzle, or a batch of one per line.

    A batch never stops at a bad line: each line gives one item, holding a grid or an error.
    """
    text = strip_bom(text)
    if fmt is None or fmt is GridFormat.LINES:
        scanned = _scan_batch(text, box, forced=fmt is GridFormat.LINES)
        if scanned is not None:
            return scanned
    lines = _batch_lines(text)
    if not lines:
        raise ParseError("empty input: no puzzle")
    if fmt is GridFormat.LINES:
        return _parse_batch(lines, box)
    first = lines[0][0]
    if fmt is GridFormat.LINE:
        if len(lines) != 1:
            raise ParseError(
                f"--format line takes one puzzle on one line, found {len(lines)} lines", lines[1][0]
            )
        return [_single_item(lambda: _grid_from_symbols(_symbol_tokens(lines[0][1], first), box), first)]
    if fmt is GridFormat.GRID:
        return [_single_item(lambda: _grid_from_symbols(_symbol_tokens(text), box), first)]
    if fmt is GridFormat.INTS:
        return [_single_item(lambda: _grid_from_ints(_word_tokens(text), box), first)]
    if fmt is GridFormat.ACS:
        words = _word_tokens(text)

        def acs() -> Grid:
            if not _looks_acs(words):
                raise ParseError(
                    "not an ant-colony instance: expected order, 1, then order**4 integers", first
                )
            return _parse_acs(words, box)

        return [_single_item(acs, first)]
    if len(lines) == 1:
        return [_single_item(lambda: _parse_single(text, box), first)]
    if _looks_like_batch(lines, box):
        batch = _parse_batch(lines, box)
        if any(len(line) != len(lines) for _, line in lines):
            return batch  # not a square of rows, so not one grid
        try:
            single = _parse_single(text, box)
        except ParseError:
            return batch
        if all(item.grid is not None for item in batch):
            raise ParseError(
                f"ambiguous input: {len(lines)} lines read as one {single.n}x{single.n} grid and as "
                f"{len(batch)} puzzles, one per line; name one with --format grid or --format lines"
            )
        return [PuzzleItem(0, first, single)]
    return [_single_item(lambda: _parse_single(text, box), first)]


def _single_item(read: Callable[[], Grid], line: int) -> PuzzleItem:
    try:
        return PuzzleItem(0, line, read())
    except ParseError as error:
        return PuzzleItem(0, error.line or line, None, str(error))


def grid_rows(items: Sequence[PuzzleItem]) -> list[tuple[Geometry, np.ndarray, np.ndarray]]:
    """The grids of the readable items, grouped by geometry in order of first appearance: for each,
    the positions of its items in ``items`` and their (k, n*n) int16 values, gathered from the
    batch arrays they were read into where they were (no ``Grid`` is made)."""
    groups: dict[Geometry, tuple[list[int], list[PuzzleRows | Grid], list[int]]] = {}
    for position, item in enumerate(items):
        rows = item._rows
        source: PuzzleRows | Grid
        if rows is not None:
            geometry, source, row = rows.geometry, rows, item._row
        elif item._grid is not None:
            geometry, source, row = item._grid.geometry, item._grid, 0
        else:
            continue
        if geometry not in groups:
            groups[geometry] = ([], [], [])
        positions, sources, picked = groups[geometry]
        positions.append(position)
        sources.append(source)
        picked.append(row)
    out = []
    for geometry, (positions, sources, picked) in groups.items():
        first = sources[0]
        if isinstance(first, PuzzleRows) and all(source is first for source in sources):
            values = first.values[np.asarray(picked, dtype=np.int64)]
        else:
            values = np.stack(
                [
                    source.values[row] if isinstance(source, PuzzleRows) else source.values.reshape(-1)
                    for source, row in zip(sources, picked, strict=True)
                ]
            )
        out.append((geometry, np.asarray(positions, dtype=np.int64), values.astype(np.int16, copy=False)))
    return out


def format_line(grid: Grid) -> str:
    """The one-line form, '.' for blanks (symbols 1-9, A-Z, a-z); integers joined by spaces past 61."""
    if grid.n > len(SYMBOLS):
        return format_ints(grid).replace("\n", " ")
    table = np.array(["."] + list(SYMBOLS[: grid.n]))
    return "".join(table[grid.values.reshape(-1)])


def format_lines(geometry: Geometry, values: np.ndarray) -> list[str]:
    """``format_line`` of each row of a (k, n*n) stack of grids of ``geometry``, in one numpy pass."""
    n = geometry.n
    stack = np.asarray(values).reshape(-1, n * n)
    if n > len(SYMBOLS):
        return [format_line(Grid(geometry, row)) for row in stack]
    table = np.frombuffer(("." + SYMBOLS[:n]).encode("ascii"), dtype=np.uint8)
    text = table[stack].tobytes().decode("ascii")
    size = n * n
    return [text[start : start + size] for start in range(0, len(text), size)]


def format_ints(grid: Grid) -> str:
    """Rows of whitespace-separated integers, 0 for blanks, right-aligned."""
    width = len(str(grid.n))
    return "\n".join(" ".join(f"{int(v):>{width}}" for v in row) for row in grid.values)


def format_pretty(grid: Grid) -> str:
    """A boxed multi-line picture with | and - separators between boxes."""
    g = grid.geometry
    if grid.n <= len(SYMBOLS):
        table = ["."] + list(SYMBOLS[: grid.n])
        cells = [[table[v] for v in row] for row in grid.values]
    else:
        width = len(str(grid.n))
        cells = [[f"{int(v) if v else '.':>{width}}" for v in row] for row in grid.values]
    group_width = len(cells[0][0]) * g.q + g.q - 1
    separator = "-+-".join(["-" * group_width] * g.p)
    lines = []
    for r, row in enumerate(cells):
        if r and r % g.p == 0:
            lines.append(separator)
        groups = [" ".join(row[b * g.q : (b + 1) * g.q]) for b in range(g.p)]
        lines.append(" | ".join(groups))
    return "\n".join(lines)


def grid_to_json(grid: Grid) -> dict[str, object]:
    """A JSON-ready object: n, box, the one-line form and the rows as integer lists."""
    return {
        "n": grid.n,
        "box": grid.geometry.box_label,
        "line": format_line(grid),
        "rows": grid.values.tolist(),
    }


def json_dumps(obj: object) -> str:
    """Compact, key-ordered JSON on one line."""
    return json.dumps(obj, separators=(",", ":"))
