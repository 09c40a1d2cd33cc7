"""One self-contained HTML page that steps through an explanation, picture by picture.

The page shows one frame at a time: the puzzle with its candidates, then each step on the board
it was found on (``svg.step_svg``: the pattern's cells shaded, its units tinted, placements on
green discs, eliminations on red ones, chains drawn), then the final board (``svg.board_svg``).
Beside the picture: the step's rule, its weight on the rating scale, the rule's sentence, and
what the step saw and did (``Step.describe``); under it, every step in a list to jump to.
Buttons and the keyboard (left and right arrows, Home, End) go back and forth; the address's
``#step-K`` names the frame shown, so a reload or a link opens that step.

Nothing is fetched: the styles and the script are inline, the pictures are inline SVG, fonts
are the browser's own, and a Content-Security-Policy forbids any request.  The pictures are
stored gzip-compressed (base64 text in the page), a few frames to a chunk that the browser
unpacks when a frame of it is first shown (``DecompressionStream``): consecutive pictures are
nearly the same, so a 9x9 explanation of 71 steps takes 79 KB instead of 1.3 MB of SVG.  Drawing
grows with the candidates times the steps; measured here (2 cores, under load): 16x16 with 175
steps 0.9 MB, 25x25 with 422 steps 4.8 MB in 20 s (explain alone: 5 s), 36x36 with 577 steps
12 MB in 41 s; each opens and steps at once in chromium.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Iterable, Iterator
from html import escape
from pathlib import Path

from ..errors import naming_file
from ..formats import SYMBOLS, format_line
from ..grid import Grid
from ..outcome import Status
from .board import Board
from .engine import Deduction
from .rules import RULES
from .step import Step
from .svg import board_svg, step_svg

__all__ = ["explanation_html", "write_explanation_html"]

#: Uncompressed bytes of SVG per chunk: the browser unpacks a chunk at a time and keeps a few.
CHUNK_BYTES = 1 << 20
_RULES = {rule.name: rule for rule in RULES}
_END_TITLES = {
    Status.SOLVED: "solved",
    Status.STUCK: "stuck: no rule applies",
    Status.UNSAT: "no solution",
    Status.UNKNOWN: "stopped",
}


def _weight(step: Step) -> float | None:
    """The step's weight on the rating scale: its own when the step carries one (a measured
    chain), else its rule's (None for a rule outside the table)."""
    own = getattr(step, "weight", None)
    if isinstance(own, int | float):
        return float(own)
    rule = _RULES.get(step.rule)
    return rule.weight if rule is not None else None


def _step_facts(step: Step, number: int, puzzle: Grid) -> dict[str, object]:
    """What the page prints beside a step's picture (1-based names throughout)."""
    g = puzzle.geometry
    name = g.cell_name
    rule = _RULES.get(step.rule)
    by_digit: dict[int, list[str]] = {}
    for cell, digit in step.eliminations:
        by_digit.setdefault(int(digit), []).append(name(int(cell)))
    return {
        "kind": "step",
        "number": number,
        "title": step.rule,
        "rule": step.rule,
        "family": rule.family if rule is not None else "",
        "weight": _weight(step),
        "about": rule.description if rule is not None else "",
        "text": step.describe(g),
        "cells": [name(cell) for cell in step.cells],
        "units": [g.unit_name(unit) for unit in step.units],
        "place": [f"{int(d) + 1} at {name(int(c))}" for c, d in step.placements],
        "remove": [f"{d + 1} from {' '.join(cells)}" for d, cells in sorted(by_digit.items())],
    }


def _frames(puzzle: Grid, deduction: Deduction, headline: str) -> Iterator[tuple[dict[str, object], str]]:
    """(facts, SVG) of each frame: the puzzle, every step before it is applied, the end."""
    board = Board.from_grid(puzzle)
    givens = puzzle.values.reshape(-1) != 0
    count = len(deduction.steps)
    opening = f"{int(givens.sum())} givens; {count} step{'s' if count != 1 else ''} follow"
    yield (
        {"kind": "start", "title": "the puzzle", "text": opening},
        board_svg(
            board, givens=givens, title="the puzzle", legend=[f"the puzzle and its candidates: {opening}"]
        ),
    )
    for number, step in enumerate(deduction.steps, start=1):
        yield _step_facts(step, number, puzzle), step_svg(board, step, number=number, givens=givens)
        board.apply(step.placements, step.eliminations)
    title = _END_TITLES.get(deduction.status, deduction.status.value)
    # An unsat deduction's own board may be empty (a contradiction among the givens themselves):
    # the board the steps led to shows where the candidates ran out.
    final = deduction.board if deduction.status is not Status.UNSAT else board
    yield (
        {"kind": "end", "title": title, "status": deduction.status.value, "text": headline},
        board_svg(final, givens=givens, title=title, legend=[headline] if headline else ()),
    )


def _packed(pictures: Iterable[str]) -> dict[str, list[object]]:
    """The pictures as gzip-compressed JSON arrays, base64, a chunk of about ``CHUNK_BYTES`` each
    (packed as they come: a big grid's hundreds of pictures are never all held at once);
    ``first``: the frame number each chunk starts at."""
    chunks: list[object] = []
    first: list[object] = []
    pending: list[str] = []
    size = count = 0

    def pack() -> None:
        # mtime=0: the same explanation makes the same page, byte for byte.
        data = gzip.compress(json.dumps(pending).encode("utf-8"), 9, mtime=0)
        chunks.append(base64.b64encode(data).decode("ascii"))
        first.append(count - len(pending))
        pending.clear()

    for picture in pictures:
        if pending and size + len(picture) > CHUNK_BYTES:
            pack()
            size = 0
        pending.append(picture)
        size += len(picture)
        count += 1
    if pending:
        pack()
    return {"chunks": chunks, "first": first}


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element (no '</script>' or '<!--' can appear)."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def _puzzle_line(line: str) -> str:
    """The puzzle as one line; folded away when it is long (a big grid's would fill the screen)."""
    code = f"<code>{escape(line)}</code>"
    if len(line) <= 300:
        return f'<p class="puzzle">{code}</p>'
    return f'<details class="puzzle"><summary>the puzzle as one line</summary>{code}</details>'


def _letters(n: int) -> str:
    """How the pictures write digits past 9 (the texts say 10, 11 ...; the grid A, B ...)."""
    if n <= 9 or n > len(SYMBOLS):
        return ""
    named = ", ".join(f"{d} = {SYMBOLS[d - 1]}" for d in range(10, min(n, 12) + 1))
    if n > 12:
        named += f" ... {n} = {SYMBOLS[n - 1]}"
    return f"In the pictures digits past 9 are letters: {named}."


def explanation_html(puzzle: Grid, deduction: Deduction, *, headline: str = "") -> str:
    """The HTML page that steps through ``deduction`` of ``puzzle``; ``headline`` (e.g. 'solved in
    52 steps, rating 4.2') heads the page and ends the steps."""
    facts: list[dict[str, object]] = []
    widths: list[int] = []

    def pictures() -> Iterator[str]:
        for fact, picture in _frames(puzzle, deduction, headline):
            facts.append(fact)
            found = re.match(r'<svg [^>]*width="(\d+)"', picture)
            widths.append(int(found.group(1)) if found else 480)
            yield picture

    packed = _packed(pictures())
    # The picture gets at least its own width (a big grid then pushes the text below it) and
    # may grow to half as much again; the page's width is the limit.
    width = max(widths)
    g = puzzle.geometry
    shape = f"{g.n}x{g.n}, {g.p}x{g.q} boxes"
    items = "\n".join(
        f'<li data-frame="{k}" tabindex="-1"><b>{escape(str(fact["rule"]))}</b> '
        f"{escape(str(fact['text']).removeprefix(str(fact['rule'])))}</li>"
        for k, fact in enumerate(facts)
        if fact["kind"] == "step"
    )
    if items:  # no list at all for a puzzle the rules end before any step
        items = f'<ol id="steps">\n{items}\n</ol>'
    return _PAGE.format(
        title=escape(f"sudoku-cp explain: {shape}"),
        figure=f"flex-basis: {width}px; max-width: {width * 3 // 2}px",
        letters=f'<p class="note">{escape(_letters(g.n))}</p>' if _letters(g.n) else "",
        shape=escape(shape),
        headline=escape(headline),
        puzzle=_puzzle_line(format_line(puzzle)),
        steps=items,
        style=_STYLE,
        facts=_script_json(facts),
        pictures=_script_json(packed),
        script=_SCRIPT,
    )


def write_explanation_html(
    path: str | Path, puzzle: Grid, deduction: Deduction, *, headline: str = ""
) -> None:
    """Write ``explanation_html`` to ``path`` (an ``OSError`` names the file)."""
    text = explanation_html(puzzle, deduction, headline=headline)
    with naming_file(path), open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


# The page.  The policy forbids every fetch (default-src 'none'); inline style and script are
# the only things it runs.  Placeholders are str.format fields, so the CSS and script below
# (which hold braces) are inserted as values, never formatted themselves.
_PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<header>
<h1>sudoku-cp explain <small>{shape}</small></h1>
<p id="headline">{headline}</p>
{puzzle}
{letters}
</header>
<nav id="controls" aria-label="steps">
<button id="first" type="button" title="first (Home)">&laquo; first</button>
<button id="back" type="button" title="back (left arrow)">&lsaquo; back</button>
<span id="counter" aria-live="polite"></span>
<button id="next" type="button" title="next (right arrow)">next &rsaquo;</button>
<button id="last" type="button" title="last (End)">last &raquo;</button>
<input id="slider" type="range" min="0" value="0" aria-label="frame">
</nav>
<main>
<figure id="picture" aria-label="the grid" style="{figure}">
<p class="note">unpacking the picture&hellip;</p></figure>
<section id="about">
<h2 id="title"></h2>
<p id="weight"></p>
<p id="rule-text"></p>
<p id="text"></p>
<dl id="facts"></dl>
<p class="keys">Keys: &larr; &rarr; step back and forth, Home and End go to the start and the end.</p>
{steps}
</section>
</main>
<script type="application/json" id="facts-data">{facts}</script>
<script type="application/json" id="pictures-data">{pictures}</script>
<script>{script}</script>
</body>
</html>
"""

_STYLE = """
:root { color-scheme: light; --ink: #111827; --soft: #6b7280; --line: #d1d5db; --accent: #1d4ed8; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 12px 20px; max-width: 1400px; color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 20px; margin: 4px 0; }
h1 small { color: var(--soft); font-weight: normal; font-size: 14px; }
h2 { font-size: 18px; margin: 0 0 4px; }
header p { margin: 2px 0; }
summary { cursor: pointer; color: var(--soft); font-size: 13px; }
.puzzle code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--soft);
  overflow-wrap: anywhere; }
nav { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 10px 0;
  position: sticky; top: 0; background: white; padding: 6px 0; z-index: 1; }
button { font: inherit; padding: 4px 12px; border: 1px solid var(--line); border-radius: 6px;
  background: #f9fafb; cursor: pointer; }
button:hover:not(:disabled) { background: #eef2ff; border-color: var(--accent); }
button:disabled { color: #9ca3af; cursor: default; }
#counter { min-width: 11em; text-align: center; font-weight: 600; font-variant-numeric: tabular-nums; }
#slider { flex: 1 1 160px; min-width: 120px; }
main { display: flex; flex-wrap: wrap; gap: 20px; align-items: flex-start; }
figure { margin: 0; flex: 1 1 480px; }
figure svg { width: 100%; height: auto; display: block; }
#about { flex: 1 1 320px; min-width: 280px; }
#weight { color: var(--soft); margin: 0 0 6px; }
#rule-text { font-style: italic; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 8px 0; }
dt { color: var(--soft); }
dd { margin: 0; overflow-wrap: anywhere; }
.keys { color: var(--soft); font-size: 13px; }
.note { color: var(--soft); }
ol#steps { position: relative; max-height: 40vh; overflow-y: auto; border: 1px solid var(--line);
  border-radius: 6px;
  margin: 8px 0; padding: 4px 4px 4px 3.2em; font-size: 13px; }
ol#steps li { cursor: pointer; padding: 1px 4px; border-radius: 4px; }
ol#steps li:hover { background: #f3f4f6; }
ol#steps li.current { background: #fef3c7; outline: 1px solid #b45309; }
"""

_SCRIPT = """
"use strict";
(() => {
  const facts = JSON.parse(document.getElementById("facts-data").textContent);
  const packed = JSON.parse(document.getElementById("pictures-data").textContent);
  const $ = (id) => document.getElementById(id);
  const last = facts.length - 1;
  const steps = facts.filter((f) => f.kind === "step").length;
  const chunks = new Map();  // chunk number -> promise of its pictures; a few kept
  let current = -1;
  let shown = 0;  // the latest request: an older picture arriving late is not drawn

  function chunkOf(frame) {
    let k = 0;
    while (k + 1 < packed.first.length && packed.first[k + 1] <= frame) k += 1;
    return k;
  }

  async function unpack(k) {
    const bytes = Uint8Array.from(atob(packed.chunks[k]), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function picture(frame) {
    const k = chunkOf(frame);
    if (!chunks.has(k)) {
      if (chunks.size >= 4) chunks.delete(chunks.keys().next().value);
      chunks.set(k, unpack(k));
    }
    return chunks.get(k).then((list) => list[frame - packed.first[k]]);
  }

  function counterText(f) {
    if (f.kind === "start") return "start \\u00b7 " + steps + " step" + (steps === 1 ? "" : "s");
    if (f.kind === "end") return "end \\u00b7 " + f.status;
    return "step " + f.number + " of " + steps;
  }

  function facts_of(f) {
    const rows = [["pattern", f.cells], ["units", f.units], ["places", f.place], ["removes", f.remove]];
    const dl = $("facts");
    dl.replaceChildren();
    for (const [name, list] of rows) {
      if (!list || !list.length) continue;
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.textContent = list.join(name === "removes" ? "; " : ", ");
      dd.dataset.fact = name;
      dl.append(dt, dd);
    }
  }

  function show(frame) {
    frame = Math.max(0, Math.min(last, frame));
    if (frame === current) return;
    current = frame;
    const f = facts[frame];
    $("counter").textContent = counterText(f);
    $("title").textContent = f.kind === "step" ? f.number + ". " + f.title : f.title;
    $("weight").textContent = f.kind === "step"
      ? (f.weight === null ? "" : "weight " + f.weight.toFixed(1)) + (f.family ? " \\u00b7 " + f.family : "")
      : "";
    $("rule-text").textContent = f.about || "";
    $("text").textContent = f.text;
    facts_of(f);
    $("first").disabled = $("back").disabled = frame === 0;
    $("next").disabled = $("last").disabled = frame === last;
    $("slider").value = String(frame);
    for (const li of document.querySelectorAll("#steps li.current")) li.classList.remove("current");
    const item = document.querySelector('#steps li[data-frame="' + frame + '"]');
    if (item) {
      item.classList.add("current");
      // Scroll the list only (scrollIntoView would scroll the page too, taking the grid away).
      const list = $("steps");
      if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
      const below = item.offsetTop + item.offsetHeight - list.clientHeight;
      if (below > list.scrollTop) list.scrollTop = below;
    }
    history.replaceState(null, "", "#step-" + frame);
    const request = ++shown;
    const figure = $("picture");
    if (typeof DecompressionStream === "undefined") {
      figure.innerHTML = '<p class="note">This browser cannot unpack the pictures ' +
        "(it has no DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 or later can).</p>";
      return;
    }
    picture(frame).then((svg) => {
      if (request !== shown) return;
      figure.innerHTML = svg;
      figure.dataset.frame = String(frame);
    }).catch((problem) => {
      chunks.delete(chunkOf(frame));  // a later visit tries again
      if (request !== shown) return;
      const note = document.createElement("p");
      note.className = "note";
      note.textContent = "This picture could not be unpacked: " + problem;
      figure.replaceChildren(note);
    });
  }

  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(current - 1));
  $("next").addEventListener("click", () => show(current + 1));
  $("last").addEventListener("click", () => show(last));
  $("slider").max = String(last);
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  if ($("steps")) {
    $("steps").addEventListener("click", (e) => {
      const li = e.target.closest("li[data-frame]");
      if (li) show(Number(li.dataset.frame));
    });
  }
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.target.id === "slider") return;
    const to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });
  const asked = /^#step-(\\d+)$/.exec(location.hash);
  show(asked ? Number(asked[1]) : 0);
})();
"""
