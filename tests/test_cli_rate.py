"""``sudoku-cp rate``, end to end in-process: a line or object per puzzle, histogram, summary, exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_interrupt import _check, _interrupt, long_batch  # noqa: F401 (a fixture)

from sudoku_cp.cli import main
from sudoku_cp.deduction.generate import generate_puzzles
from sudoku_cp.deduction.rate import rate
from sudoku_cp.deduction.rules import select_rules
from sudoku_cp.formats import format_line, parse_grid
from sudoku_cp.geometry import Geometry

CHAINS = "083020090000800100029300008000098700070000060006740000300006980002005000010030540"
EASY = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
UNSOLVABLE = ".1.3.982.632157.4..5...4.1.8254..169.....64323469.........4.57..7..9.68.1.487.2.."


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    path = tmp_path / "batch.txt"
    lines = [CHAINS, CHAINS[:80], "# a comment", "44" + CHAINS[2:], UNSOLVABLE, EASY.replace(".", "0")]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_batch_in_words_has_a_line_per_puzzle_a_histogram_and_a_summary(
    capsys: pytest.CaptureFixture[str], batch: Path
) -> None:
    code, out, err = run(capsys, "rate", str(batch))
    assert err == ""
    lines = out.splitlines()
    want = rate(parse_grid(CHAINS.replace("0", ".")))
    steps = sum(want.counts.values())
    assert lines[0] == f"#1 line 1: solved {want.rating:.1f} {want.level} ({want.hardest}; {steps} steps)"
    assert lines[1] == "#2 line 2: invalid 80 symbols is not a square grid (n*n cells, e.g. 81)"
    assert lines[2] == "#3 line 4: invalid R1C1 and R1C2 both hold 4 in row 1"
    assert lines[3].startswith("#4 line 5: unsat no solution")
    assert lines[4].startswith("#5 line 6: solved")
    assert lines[5] == "levels:"
    histogram = {line.split()[0]: int(line.split()[1]) for line in lines[6:-1]}
    assert histogram["none"] == 3 and sum(histogram.values()) == 5
    assert list(histogram)[:7] == ["easy", "medium", "hard", "fiendish", "diabolical", "extreme", "unsolved"]
    assert lines[-1].startswith("summary: 5 puzzles: 2 solved, 1 unsat, 2 invalid;")
    assert code == 2


def test_json_lines_carry_rating_level_and_a_count_per_rule(
    capsys: pytest.CaptureFixture[str], batch: Path
) -> None:
    code, out, _ = run(capsys, "rate", "--json", str(batch))
    objs = [json.loads(line) for line in out.splitlines()]
    summary = objs.pop()["summary"]
    assert [o["index"] for o in objs] == [0, 1, 2, 3, 4]
    assert [o["status"] for o in objs] == ["solved", "invalid", "invalid", "unsat", "solved"]
    first = objs[0]
    want = rate(parse_grid(CHAINS.replace("0", ".")))
    assert (first["rating"], first["level"], first["hardest"]) == (want.rating, want.level, want.hardest)
    assert list(first["counts"]) == [rule.name for rule in select_rules()]
    assert first["counts"] == want.counts
    assert objs[3]["rating"] is None and objs[3]["level"] == "none"
    assert summary["puzzles"] == 5 and summary["invalid"] == 2 and summary["unsat"] == 1
    assert summary["levels"]["none"] == 3 and summary["exit_code"] == code == 2


def test_a_chosen_rule_set_counts_only_its_rules_and_stuck_exits_3(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "rate", "--rules", "singles,locked", "--json", CHAINS)
    obj = json.loads(out.splitlines()[0])
    assert list(obj["counts"]) == ["hidden-single", "naked-single", "pointing", "claiming"]
    assert obj["status"] == "stuck" and obj["rating"] == 10.0 and obj["level"] == "unsolved"
    assert code == 3


def test_one_puzzle_gives_one_line_and_no_histogram(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rate", EASY)
    assert code == 0
    assert len(out.splitlines()) == 1 and out.startswith("#1 line 1: solved")
    code, out, err = run(capsys, "rate", "44" + CHAINS[2:])
    assert code == 2 and err == ""
    assert out == "#1 line 1: invalid R1C1 and R1C2 both hold 4 in row 1\n"


@pytest.mark.parametrize("box", [(2, 3), (3, 4)], ids=["2x3", "3x4"])
def test_rectangular_boxes(capsys: pytest.CaptureFixture[str], tmp_path: Path, box: tuple[int, int]) -> None:
    made = list(generate_puzzles(Geometry(*box), 4 if box == (3, 4) else 12, seed=3))
    path = tmp_path / "puzzles.txt"
    path.write_text("".join(format_line(g.puzzle) + "\n" for g in made))
    code, out, _ = run(capsys, "rate", "--box", f"{box[0]}x{box[1]}", "--json", str(path))
    objs = [json.loads(line) for line in out.splitlines()][:-1]
    assert len(objs) == len(made)
    for obj, generated in zip(objs, made, strict=True):
        want = rate(generated.puzzle)
        assert (obj["status"], obj["rating"], obj["level"]) == (want.status.value, want.rating, want.level)
    assert code in (0, 3)


def test_worker_processes_give_the_same_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "small.txt"
    lines = [format_line(g.puzzle) for g in generate_puzzles(Geometry(2, 2), 300, seed=1)]
    path.write_text("\n".join(lines[:150] + ["12"] + lines[150:]) + "\n")
    one = run(capsys, "rate", "--json", str(path))
    two = run(capsys, "rate", "--json", "--jobs", "2", str(path))
    assert one[0] == two[0] == 2
    assert one[1].splitlines()[:-1] == two[1].splitlines()[:-1]  # all but the summary's timings
    assert len(one[1].splitlines()) == 302


def test_a_spent_time_limit_makes_puzzles_unknown(capsys: pytest.CaptureFixture[str], batch: Path) -> None:
    code, out, _ = run(capsys, "rate", "--json", "--time-limit", "0.000001", str(batch))
    statuses = [json.loads(line).get("status") for line in out.splitlines()[:-1]]
    assert statuses == ["unknown", "invalid", "invalid", "unknown", "unknown"]
    assert code == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["rate", "--jobs", "2", "{batch}"],
        ["explain", "--json", "{batch}"],
        ["generate", "--box", "4x4", "--count", "1000"],
    ],
    ids=["rate --jobs 2", "explain", "generate"],
)
def test_sigint_stops_rate_explain_and_generate_within_a_second(
    argv: list[str],
    long_batch: Path,  # noqa: F811 (the fixture of test_interrupt)
) -> None:
    # rate --jobs 2 once hung on Ctrl-C: every chunk was queued at once, the pool's feeding
    # thread blocked on the full task pipe, and stopping the pool waited on it for ever.
    # The command runs once on one puzzle first: on a fresh clone its kernels compile then (a
    # compilation is not interruptible), not inside the three seconds before the signal.
    warm = [EASY if a == "{batch}" else "1" if a == "1000" else a for a in argv]
    subprocess.run([sys.executable, "-m", "sudoku_cp", *warm], capture_output=True, timeout=600, check=False)
    _check(*_interrupt([str(long_batch) if a == "{batch}" else a for a in argv]))


def test_closing_a_parallel_rating_early_stops_its_workers() -> None:
    # Every chunk once went to the pool at once: its feeding thread blocked on the full task pipe
    # and stopping the pool (Ctrl-C, or the consumer closing the iterator) could wait on it for
    # ever.  A race, so ten tries, on puzzles that rate in no time.
    script = (
        "from sudoku_cp.formats import parse_puzzles\n"
        "from sudoku_cp.deduction.batch import rate_items\n"
        "from sudoku_cp.executor import Executor\n"
        f"items = parse_puzzles('{EASY}\\n' * 10000)\n"
        "for _ in range(10):\n"
        "    results = rate_items(items, executor=Executor(jobs=2))\n"
        "    next(results)\n"
        "    results.close()\n"
        "print('closed')\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("closing rate_items(executor=Executor(jobs=2)) hung")
    assert process.returncode == 0 and out == "closed\n"


def _without_timings(text: str) -> list[object]:
    objects = [json.loads(line) for line in text.splitlines()]
    for obj in objects:
        for key in ("seconds", "puzzles_per_second"):
            obj.get("summary", {}).pop(key, None)
    return objects


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_resume_of_a_cut_file_gives_the_whole_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, jobs: str
) -> None:
    path = tmp_path / "small.txt"
    lines = [format_line(g.puzzle) for g in generate_puzzles(Geometry(2, 2), 120, seed=2)]
    path.write_text("\n".join(lines[:50] + ["12", UNSOLVABLE] + lines[50:]) + "\n")
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    code, out, _ = run(capsys, "rate", "--json", "--jobs", jobs, str(path), "-o", str(whole))
    assert (code, out) == (2, "")
    text = whole.read_text()
    for share in (0.0, 0.3, 1.0):
        cut.write_text(text[: int(len(text) * share) + 5])  # mid-line (or within the summary)
        code, out, _ = run(capsys, "rate", "--json", "--jobs", jobs, str(path), "-o", str(cut), "--resume")
        assert (code, out) == (2, "")
        assert _without_timings(cut.read_text()) == _without_timings(text)


def test_worker_processes_meet_the_same_time_limit(capsys: pytest.CaptureFixture[str], batch: Path) -> None:
    code, out, _ = run(capsys, "rate", "--json", "--jobs", "2", "--time-limit", "0.000001", str(batch))
    statuses = [json.loads(line).get("status") for line in out.splitlines()[:-1]]
    assert statuses == ["unknown", "invalid", "invalid", "unknown", "unknown"]
    assert code == 2
