"""``sudoku-cp explain --html FILE``: one self-contained page that steps through an explanation.

The page is checked twice.  Without a browser: it fetches nothing (no address in any src or
href, no external style or script, a policy forbidding requests), and its frames (the facts
beside each picture, and the pictures themselves, unpacked as the page's script unpacks them)
say what ``explain --json`` says of every step, on 2x3, 3x3, 3x4 and 4x4 boxes; a file that
cannot be written and a batch of several puzzles are refused before any puzzle is explained.
In a real headless browser (Debian ``chromium`` and ``chromium-driver`` through selenium; the
test skips, saying which is missing, without them): the page loads from file:// without a
single request, the keys and buttons move the step counter and the marked cells as the JSON
steps say, and a screenshot is taken.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from sudoku_cp.cli import main

# Needs chains after the local rules (Sudoku Exchange, diabolical).
CHAINS = "083020090000800100029300008000098700070000060006740000300006980002005000010030540"
EASY = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SIX = "..2...6.....2.5.1..3.2.4.....1...6.."  # a generated 2x3 puzzle that needs more than singles
TWELVE = (  # a generated 3x4 puzzle
    ".....7.A.9.5..6....B.A...C..2.314..8...4..B5.....15..8.....49..8.C6.5.7..6.9.45.2..A7....."
    "1..56.....63..1...6..271.8..C...7.B....8..4.8.C.9....."
)
SIXTEEN = (  # a generated 4x4 puzzle
    "F.3....9...........2.C...EA.7...4.A.G..2DF.5.C6.D...8.67.9...2EG...5319....7..B.1.C...D....G...."
    "...6...BE.1..D...4GB.E..6..8........C..3..6.9E4...1..2.D9...F.......4....A...3.B.F..B....4821..."
    "2BF...E.57.A...3.17.6.C5B..D.4.2...9.81...3.B...........1....9.8"
)
SHAPES = {"2x3": SIX, "3x3": CHAINS, "3x4": TWELVE, "4x4": SIXTEEN}
# No two equal givens, but R2C9 has no candidate: no solution, before any step.
UNSAT = ".1.3.982.632157.4..5...4.1.8254..169.....64323469.........4.57..7..9.68.1.487.2.."


def explain(
    tmp_path: Path, puzzle: str, box: str, *extra: str, codes: tuple[int, ...] = (0, 3)
) -> tuple[Path, dict[str, Any]]:
    """The page of one puzzle, and the same puzzle's ``explain --json`` result (the reference)."""
    page, log = tmp_path / f"{box}.html", tmp_path / f"{box}.jsonl"
    code = main(["explain", puzzle, "--box", box, "--html", str(page), "--json", "-o", str(log), *extra])
    assert code in codes, code  # by default solved, or stuck where the rules end: both have a page
    (result,) = [obj for obj in map(json.loads, log.read_text().splitlines()) if "index" in obj]
    return page, result


def page_data(text: str, name: str) -> Any:
    """The JSON of one of the page's data scripts."""
    found = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', text, re.S)
    assert found is not None, name
    return json.loads(found.group(1))


def pictures(text: str) -> list[str]:
    """Every frame's SVG, unpacked as the page's script does (base64, gzip, JSON)."""
    packed = page_data(text, "pictures-data")
    out: list[str] = []
    for first, chunk in zip(packed["first"], packed["chunks"], strict=True):
        assert first == len(out)
        out += json.loads(gzip.decompress(base64.b64decode(chunk)))
    return out


def triples(step: dict[str, Any], key: str) -> list[tuple[int, int, int]]:
    return [tuple(t) for t in step[key]]


def marks(step: dict[str, Any]) -> set[str]:
    """The tooltips the step's picture gives its green and red discs (the marked candidates)."""
    return {f"place {d} at R{r}C{c}" for r, c, d in triples(step, "placements")} | {
        f"remove {d} from R{r}C{c}" for r, c, d in triples(step, "eliminations")
    }


def disc_titles(svg: str) -> set[str]:
    return set(re.findall(r"<circle [^>]*><title>((?:place|remove) [^<]*)</title>", svg))


class _Resources(HTMLParser):
    """Every tag, and every attribute that could make a browser fetch something."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.fetching: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in {"src", "href", "srcset", "data", "poster", "action", "xlink:href", "background"}:
                self.fetching.append((tag, name, value or ""))


# ------------------------------------------------------------------------------- without a browser


@pytest.mark.parametrize("box", SHAPES)
def test_frames_say_what_the_json_says(tmp_path: Path, box: str) -> None:
    page, result = explain(tmp_path, SHAPES[box], box)
    text = page.read_text(encoding="utf-8")
    facts, svgs = page_data(text, "facts-data"), pictures(text)
    steps = result["steps"]
    assert len(facts) == len(svgs) == len(steps) + 2  # the puzzle, every step, the end
    assert [f["kind"] for f in facts] == ["start"] + ["step"] * len(steps) + ["end"]
    assert facts[-1]["status"] == result["status"]
    n = round(len(SHAPES[box]) ** 0.5)
    for k, (fact, svg, step) in enumerate(zip(facts[1:-1], svgs[1:-1], steps, strict=True), start=1):
        assert fact["number"] == k and fact["rule"] == step["rule"]
        assert fact["cells"] == [f"R{r}C{c}" for r, c in step["cells"]]
        assert fact["units"] == step["units"]
        assert fact["place"] == [f"{d} at R{r}C{c}" for r, c, d in triples(step, "placements")]
        assert isinstance(fact["weight"], float) and fact["about"]
        assert disc_titles(svg) == marks(step), k  # the picture marks exactly the step's candidates
        assert f"step {k}: {step['rule']}" in svg
    # Row and column numbers up to the grid's own side: the pictures are of this grid.
    assert f">{n}</text>" in svgs[0] and f">{n + 1}</text>" not in svgs[0]
    assert "<circle" not in svgs[0] and "<circle" not in svgs[-1]
    # The texts say 10, 11 ...; the pictures draw letters: the page says which.
    assert ("digits past 9 are letters: 10 = A" in text) == (n > 9)
    assert n <= 9 or f"{n} = {'ABCDEFG'[n - 10]}." in text


def test_a_puzzle_without_steps_has_a_page(tmp_path: Path) -> None:
    page, result = explain(tmp_path, UNSAT, "3x3", codes=(1,))
    assert result["status"] == "unsat" and result["steps"] == []
    text = page.read_text(encoding="utf-8")
    facts, svgs = page_data(text, "facts-data"), pictures(text)
    assert [f["kind"] for f in facts] == ["start", "end"] and facts[1]["status"] == "unsat"
    assert "R2C9 has no candidate left" in facts[1]["text"] and len(svgs) == 2
    assert 'id="steps"' not in text  # no empty list of steps


def test_page_fetches_nothing(tmp_path: Path) -> None:
    page, _ = explain(tmp_path, CHAINS, "3x3")
    text = page.read_text(encoding="utf-8")
    parser = _Resources()
    parser.feed(text)
    assert parser.fetching == []  # no src, href ...: nothing to load, here or anywhere
    assert "link" not in parser.tags and "img" not in parser.tags and "iframe" not in parser.tags
    assert "<script src" not in text and "@import" not in text and "url(" not in text
    assert re.search(r"""<meta http-equiv="Content-Security-Policy" content="default-src 'none';""", text)
    for svg in pictures(text):  # the SVG namespace is a name, never fetched; nothing else may appear
        assert re.findall(r"https?://[^\s\"'<>]*", svg) == ["http://www.w3.org/2000/svg"]
        assert "href" not in svg


def test_same_explanation_same_page(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, _ = explain(tmp_path / "a", EASY, "3x3")
    second, _ = explain(tmp_path / "b", EASY, "3x3")
    assert first.read_bytes() == second.read_bytes()  # gzip without a time stamp


def test_a_file_that_cannot_be_written_is_refused_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sudoku_cp.deduction.batch as batch

    def never(*args: object, **kwargs: object) -> Iterator[object]:
        raise AssertionError("a puzzle was explained before the page's file was checked")

    monkeypatch.setattr(batch, "explain_items", never)
    for target, reason in (
        (tmp_path / "missing" / "page.html", "No such file"),
        (tmp_path, "Is a directory"),
    ):
        assert main(["explain", EASY, "--html", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"--html: cannot write '{target}'" in err and reason in err
    several = tmp_path / "three.txt"
    several.write_text(f"{EASY}\n{CHAINS}\n{EASY}\n")
    assert main(["explain", str(several), "--html", str(tmp_path / "p.html")]) == 2
    err = capsys.readouterr().err
    assert "--html shows one puzzle; the input holds 3" in err and err.count("\n") == 1
    assert not (tmp_path / "p.html").exists()  # the probe of the file leaves nothing behind
    out = tmp_path / "out.jsonl"
    assert (
        main(["explain", EASY, "--json", "-o", str(out), "--resume", "--html", str(tmp_path / "p.html")]) == 2
    )
    err = capsys.readouterr().err
    assert "--html does not go with --resume" in err and err.count("\n") == 1


def test_an_invalid_puzzle_leaves_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html"
    assert main(["explain", "44" + EASY[2:], "--html", str(page)]) == 2
    assert "invalid puzzle" in capsys.readouterr().err
    assert not page.exists()


# ---------------------------------------------------------------------------- in a real browser


def _chromium() -> tuple[str, str]:
    """(browser, driver) programs, or a skip naming what is missing."""
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("no chromium or chromedriver (Debian: apt-get install chromium chromium-driver)")
    return browser, driver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    program, driver = _chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = program
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1280,1000")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})  # every request the page makes
    # The driver program is named: selenium never looks for (or downloads) one.
    session = webdriver.Chrome(options=options, service=Service(driver))
    try:
        yield session
    finally:
        session.quit()


def _wait(session: Any, what: str, check: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(session, 20).until(lambda _: check(), message=what)


class _Page:
    """The page in the browser: keys, buttons, and what it shows."""

    def __init__(self, session: Any, path: Path) -> None:
        from selenium.webdriver.common.by import By

        self.session, self.by = session, By
        session.get_log("performance")  # drop what came before
        session.get(path.as_uri())
        self.frame_shown(0)

    def element(self, name: str) -> Any:
        return self.session.find_element(self.by.ID, name)

    def counter(self) -> str:
        return str(self.element("counter").text)

    def key(self, name: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(self.session).send_keys(getattr(Keys, name)).perform()

    def click(self, name: str) -> None:
        self.element(name).click()

    def frame_shown(self, frame: int) -> None:
        """Wait until the picture of ``frame`` is in the page (pictures are unpacked as they come)."""
        _wait(
            self.session,
            f"frame {frame}",
            lambda: self.element("picture").get_attribute("data-frame") == str(frame),
        )

    def marked(self) -> set[str]:
        svg = self.element("picture").get_attribute("innerHTML")
        return disc_titles(svg)

    def current_item(self) -> str | None:
        found = self.session.find_elements(self.by.CSS_SELECTOR, "#steps li.current")
        return found[0].get_attribute("data-frame") if found else None

    def requests(self) -> list[str]:
        urls = []
        for entry in self.session.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls


def _step(page: _Page, frame: int, steps: list[dict[str, Any]]) -> None:
    """The page shows step ``frame`` as the JSON has it: counter, marked candidates, list item."""
    page.frame_shown(frame)
    assert page.counter() == f"step {frame} of {len(steps)}"
    assert page.marked() == marks(steps[frame - 1])
    assert page.current_item() == str(frame)
    assert page.element("title").text == f"{frame}. {steps[frame - 1]['rule']}"


@pytest.mark.slow
def test_page_without_steps_in_a_browser(tmp_path: Path, browser: Any) -> None:
    path, _ = explain(tmp_path, UNSAT, "3x3", codes=(1,))
    page = _Page(browser, path)
    assert page.counter() == "start \u00b7 0 steps"
    page.key("ARROW_RIGHT")
    page.frame_shown(1)
    assert page.counter() == "end \u00b7 unsat" and page.element("text").text.startswith("unsat: no solution")
    page.key("HOME")
    page.frame_shown(0)


#: An image from the network, made by script: the page's policy must stop it (the violation says how).
_TRY_A_REQUEST = """
const done = arguments[arguments.length - 1];
document.addEventListener("securitypolicyviolation", (e) =>
  done("blocked " + e.violatedDirective + " " + e.blockedURI));
const image = new Image();
image.onerror = () => setTimeout(() => done("failed, not blocked"), 1000);
image.onload = () => done("loaded");
image.src = "http://127.0.0.1:9/x.png";
"""


@pytest.mark.slow
@pytest.mark.parametrize("box", ["3x3", "2x3"])
def test_page_in_a_browser(tmp_path: Path, browser: Any, box: str) -> None:
    path, result = explain(tmp_path, SHAPES[box], box)
    steps = result["steps"]
    count = len(steps)
    assert count >= 4
    page = _Page(browser, path)
    assert page.counter() == f"start \u00b7 {count} steps"
    assert page.marked() == set() and page.current_item() is None
    assert not page.element("first").is_enabled() and not page.element("back").is_enabled()
    page.key("ARROW_LEFT")  # nothing before the start
    page.key("ARROW_RIGHT")
    _step(page, 1, steps)
    page.key("ARROW_RIGHT")
    _step(page, 2, steps)
    page.key("ARROW_LEFT")
    _step(page, 1, steps)
    page.click("next")
    page.click("next")
    _step(page, 3, steps)
    page.click("back")
    _step(page, 2, steps)
    page.key("END")
    page.frame_shown(count + 1)
    assert page.counter() == f"end \u00b7 {result['status']}" and page.marked() == set()
    assert not page.element("next").is_enabled() and not page.element("last").is_enabled()
    page.key("ARROW_RIGHT")  # nothing after the end
    page.key("ARROW_LEFT")
    _step(page, count, steps)
    page.key("HOME")
    page.frame_shown(0)
    page.click("last")
    page.frame_shown(count + 1)
    page.click("first")
    page.frame_shown(0)
    # A step that removes candidates (red discs), reached from the list of steps.
    frame = next(k for k, step in enumerate(steps, start=1) if step["eliminations"])
    page.session.find_element(page.by.CSS_SELECTOR, f'#steps li[data-frame="{frame}"]').click()
    _step(page, frame, steps)
    assert browser.current_url.endswith(f"#step-{frame}")
    browser.refresh()  # the address names the step: a reload shows it again
    page.frame_shown(frame)
    assert page.marked() == marks(steps[frame - 1])
    # Nothing was fetched but the page itself: no request, no resource.
    assert {url.split("#")[0] for url in page.requests()} == {path.as_uri()}
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    # And the page's policy blocks a request even a script of it would make.
    blocked = browser.execute_async_script(_TRY_A_REQUEST)
    assert blocked == "blocked img-src http://127.0.0.1:9/x.png"
    shot = tmp_path / f"explain-{box}.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
