"""``rummisim view``: a game log as one self-contained HTML page, checked in headless Chromium.

The frames are checked against the log itself (the table after each play, the rack counts of
each ``turn_end``, the pool), and the page in a real browser (Debian's ``chromium``, driven by
Playwright): the DOM at several turns shows those sets and counts, the keys step through the
frames, and the page asks for nothing but its own file. ``.ci/run`` installs ``chromium``; on a
machine without it the browser tests are skipped, except under CI, where they fail."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from rummisim.cli import main

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GAMES = {  # every built-in profile: wrap runs (three seats), a discard pile over a match of rounds,
    # four jokers over rounds, timeouts under a search budget, four seats
    "standard": ("greedy,value,conservative,beginner", 1),
    "guide-strict-joker": ("greedy,greedy", 4),
    "classic-wrap": ("greedy,baseline,greedy", 3),
    "ramino-discard": ("greedy,baseline", 5),
    "polish-40": ("greedy,baseline", 2),
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, tuple[Path, Path, list[dict]]]:
    """Per profile: (log, page, the log's records), the page written by ``rummisim view``."""
    folder = tmp_path_factory.mktemp("view")
    out = {}
    for name, (bots, seed) in GAMES.items():
        log = folder / f"{name}.jsonl"
        args = ["play", "--profile", name, "--bots", bots, "--seed", str(seed), "--quiet", "--log", str(log)]
        assert main(args) == 0
        html = folder / f"{name}.html"
        assert main(["view", str(log), "--out", str(html)]) == 0
        records = [json.loads(line) for line in log.read_text().splitlines()]
        out[name] = (log, html, records)
    return out


def expected_turns(records: list[dict]) -> list[dict]:
    """What each turn ends with, read from the log alone: the table (set strings), the rack
    counts and the pool size at each ``turn_end``, in order."""
    table: list[str] = []
    counts: list[int] = []
    out = []
    for record in records[1:]:
        kind = record["type"]
        if kind == "deal":
            table, counts = [], [len(rack) for rack in record["racks"]]
        elif kind == "play":
            table = list(record["table"])
        elif kind == "turn_end":
            counts[record["seat"]] = record["rack_after"]
            out.append(
                {
                    "label": f"Round {record['round'] + 1}, turn {record['turn']}: seat {record['seat']}",
                    "table": table,
                    "counts": list(counts),
                    "pool": record["pool_size"],
                }
            )
    return out


def frame_data(html: Path) -> list[dict]:
    text = html.read_text()
    start = text.index('id="game-data">') + len('id="game-data">')
    return json.loads(text[start : text.index("</script>", start)].replace("<\\/", "</"))["frames"]


def set_text(cells: list[dict]) -> str:
    return " ".join(f"J({c['f']})" if c["t"] == "J" else c["t"] for c in cells)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_frames_follow_the_log(pages, name):
    """One frame per deal, per turn and per round end, plus the game's end; each turn's frame
    holds the table, the rack counts and the pool of the log's ``turn_end``."""
    _, html, records = pages[name]
    frames = frame_data(html)
    turns = expected_turns(records)
    kinds = [r["type"] for r in records]
    assert len(frames) == kinds.count("deal") + len(turns) + kinds.count("round_end") + 1
    turn_frames = [f for f in frames if ", turn " in f["label"]]
    assert len(turn_frames) == len(turns)
    for frame, want in zip(turn_frames, turns, strict=True):
        assert frame["label"].startswith(want["label"])
        assert [set_text(cells) for cells in frame["table"]] == want["table"]
        assert frame["counts"] == want["counts"]
        assert frame["pool"] == want["pool"]
    ends = [f for f in frames if f["label"].startswith("Round ") and f["label"].endswith(" over")]
    round_ends = [r for r in records if r["type"] == "round_end"]
    assert [f["scores"] for f in ends] == [r["scores"] for r in round_ends]
    assert frames[-1]["totals"] == records[-1]["scores"]  # the game's end


def test_the_tiles_played_are_marked(pages):
    _, html, records = pages["classic-wrap"]
    plays = [r for r in records if r["type"] == "play"]
    marked = [f for f in frame_data(html) if any(h["kind"] == "play" for h in f["happened"])]
    assert len(marked) == len(plays)
    for frame, play in zip(marked, plays, strict=True):
        new = sorted(c["t"] for cells in frame["table"] for c in cells if c.get("new"))
        assert new == sorted(play["tiles"])


def test_a_seat_view_hides_the_other_racks_and_draws(pages, tmp_path):
    log, _, records = pages["ramino-discard"]
    html = tmp_path / "seat1.html"
    assert main(["view", str(log), "--seat", "1", "--out", str(html)]) == 0
    frames = frame_data(html)
    for frame in frames:
        if frame["label"].endswith("over"):
            assert all(rack is not None for rack in frame["racks"])  # shown at the round's end
            continue
        assert frame["racks"][0] is None and frame["racks"][1] is not None
        if frame["seat"] == 0:
            assert not any(
                h["text"].startswith("draws ") and "tile(s)" not in h["text"] for h in frame["happened"]
            )
    seat0_draws = [r for r in records if r["type"] == "draw" and r["seat"] == 0]
    assert seat0_draws and any("draws 1 tile(s)" in h["text"] for f in frames for h in f["happened"])


def test_a_broken_log_is_one_line_and_exit_2(pages, tmp_path, capsys):
    _, _, records = pages["classic-wrap"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(r) for r in records[:-3]) + "\n")  # cut before the round's end
    capsys.readouterr()
    assert main(["view", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{bad}:")
    assert not bad.with_suffix(".html").exists()
    assert main(["view", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["view", str(pages["classic-wrap"][0]), "--seat", "7"]) == 2


# ----- in a real browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    if BROWSER is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


DOM_TABLE = "sets => sets.map(s => Array.from(s.querySelectorAll('.tile')).map(t => t.dataset.tile === 'J' ? 'J(' + t.dataset.face + ')' : t.dataset.tile).join(' '))"  # noqa: E501
DOM_COUNTS = "racks => racks.map(r => Number(r.dataset.count))"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_page_in_chromium(pages, browser, name):
    """The DOM at several turns (reached with the arrow keys and End) shows the log's table and
    rack counts, and the page requests nothing but its own file."""
    _, html, records = pages[name]
    frames = frame_data(html)
    turns = expected_turns(records)
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(html.as_uri())
    assert page.inner_text("#label") == frames[0]["label"]
    turn_at = [i for i, f in enumerate(frames) if ", turn " in f["label"]]
    checks = sorted({turn_at[0], turn_at[len(turn_at) // 3], turn_at[len(turn_at) // 2], turn_at[-1]})
    at = 0
    for index in checks:
        for _ in range(index - at):
            page.keyboard.press("ArrowRight")
        at = index
        assert page.get_attribute("body", "data-frame") == str(index)
        want = turns[turn_at.index(index)]
        assert page.inner_text("#label").startswith(want["label"])
        assert page.eval_on_selector_all("#table .set", DOM_TABLE) == want["table"]
        assert page.eval_on_selector_all("#racks .rack", DOM_COUNTS) == want["counts"]
        assert page.get_attribute("#pool", "data-count") == str(want["pool"])
    page.keyboard.press("End")
    assert page.inner_text("#label") == "Game over"
    assert page.locator("table.scores").count() == 1
    page.keyboard.press("Home")
    assert page.get_attribute("body", "data-frame") == "0"
    page.goto(html.as_uri() + f"#frame={checks[1]}")
    page.reload()
    assert page.get_attribute("body", "data-frame") == str(checks[1])
    assert requests and all(url.split("#")[0] == html.as_uri() for url in requests), requests
    page.close()
