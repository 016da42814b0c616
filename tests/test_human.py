"""``rummisim play --human N``: a person's seat, driven here by scripted lines on stdin.

Each request is either played or refused in one line naming the rule, and the turn goes on; a
seat that only ever types ``draw`` finishes a whole game against ``baseline`` bots; the game's
log replays and views like any other."""

from __future__ import annotations

import io
import json
import sys

import pytest
from helpers import tiles, turn_view, with_overrides

from rummisim import load_profile
from rummisim.cli import main
from rummisim.contract import Discard, Draw, Pass, Phase, Play, QuitGame
from rummisim.human import HumanSeat
from rummisim.moves import validate_move


def seat(profile, lines: list[str]) -> tuple[HumanSeat, list[str]]:
    feed = iter(lines)
    shown: list[str] = []
    return HumanSeat(profile, lambda: next(feed, None), shown.append), shown


def view(profile, rack: str, on_table: str = "", *, opened=True, phase=Phase.START, pool=20, discard=None):
    size = len(rack.split())
    return turn_view(profile, rack, on_table, opened=opened, phase=phase, sizes=(size, 9), pool=pool, turn=7)


def refusals(shown: list[str]) -> list[str]:
    return [line for line in shown if line.startswith("refused")]


def test_named_tiles_are_laid_by_the_search_with_a_rearrangement():
    profile = load_profile("standard")
    human, shown = seat(profile, ["K4 O4", "done"])
    v = view(profile, "K4 O4 B9", "R4 R5 R6 R7")
    action = human.act(v)
    assert isinstance(action, Play)
    assert sorted(action.played) == sorted(tiles("K4 O4", profile))
    validate_move(profile, v.table, v.rack, action.table, action.played, opened=True)  # R4 left the run
    assert any("the table would be" in line for line in shown)


def test_rack_numbers_undo_and_several_steps():
    profile = load_profile("standard")
    human, shown = seat(profile, ["0 1 2", "undo", "done", "R1 R2 R3", "B9 B10 B11", "undo", "done"])
    v = view(profile, "R1 R2 R3 B9 B10 B11 K5")
    action = human.act(v)
    assert isinstance(action, Play) and sorted(action.played) == sorted(tiles("R1 R2 R3", profile))
    assert "nothing laid: lay tiles, or 'draw'" in shown


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("Z4", "bad tile"),
        ("K13", "tile_not_in_rack"),
        ("99", "no tile number 99"),
        ("K4 B9", "no legal table places"),
        ("table R4 R5 R6 R7 | K4 O4", "not a valid set"),
        ("table R4 R5 R6 R7 | K4 O4 B4", "tile_not_in_rack"),
        ("table R5 R6 R7 | K4 O4 J(B4)", "table_tile_missing"),
    ],
)
def test_bad_requests_are_one_line_and_the_turn_goes_on(line, rule):
    """Every bad request is refused in one line naming why; the next line is read as usual."""
    profile = load_profile("standard")
    human, shown = seat(profile, [line, "draw"])
    assert human.act(view(profile, "K4 O4 B9", "R4 R5 R6 R7")) == Draw()
    refused = refusals(shown)
    assert len(refused) == 1 and rule in refused[0], shown


def test_the_opening_threshold_holds():
    profile = load_profile("standard")
    human, shown = seat(profile, ["R1 R2 R3", "K10 K11 K12", "done"])
    action = human.act(view(profile, "R1 R2 R3 K10 K11 K12", opened=False))
    assert "the initial meld needs 30" in refusals(shown)[0]
    assert isinstance(action, Play) and sorted(action.played) == sorted(tiles("K10 K11 K12", profile))


def test_a_whole_new_table_and_the_joker_rules():
    """``table ...`` lays the person's own table; a locked joker may not move without its tile."""
    profile = load_profile("standard")
    human, shown = seat(profile, ["table R4 R5 J(R6) | K6 O6 B6", "table R4 R5 R6 J(R7) | K6 O6 B6", "done"])
    v = view(profile, "K6 O6 B6 R6", "R4 R5 J(R6)")
    action = human.act(v)
    assert "joker_rule" in refusals(shown)[0]
    assert isinstance(action, Play)
    validate_move(profile, v.table, v.rack, action.table, action.played, opened=True)


def test_hint_shows_the_best_play():
    profile = load_profile("standard")
    human, shown = seat(profile, ["hint", "draw"])
    human.act(view(profile, "R1 R2 R3 K9"))
    assert any(line.startswith("hint: lay R1 R2 R3 (3 tiles, 6 points)") for line in shown)


def test_must_play_refuses_a_draw_once_then_the_referee_plays():
    """002: "if the player cannot combine ... he must draw", so one who can, plays: a draw is
    refused with the rule, and a second one is a draw the engine turns into its best play."""
    profile = load_profile("ramino-discard")
    human, shown = seat(profile, ["draw", "draw"])
    assert human.act(view(profile, "R1 R2 R3 K9")) == Draw()
    assert "must_play" in refusals(shown)[0]


def test_after_a_draw_and_the_discard():
    profile = load_profile("ramino-discard")
    human, shown = seat(profile, ["draw", "pass"])
    assert human.act(view(profile, "R1 R5 K9", phase=Phase.AFTER_DRAW)) == Pass()
    assert any("you drew already" in line for line in shown)
    human, shown = seat(profile, ["R2", "B9", "K9"])
    assert human.act(view(profile, "R1 R5 K9", phase=Phase.DISCARD)) == Discard(tiles("K9", profile)[0])
    assert len(refusals(shown)) == 2


def test_a_play_must_leave_a_discard():
    profile = load_profile("ramino-discard")
    human, shown = seat(profile, ["R1 R2 R3", "draw"])
    assert human.act(view(profile, "R1 R2 R3", "K1 K2 K3")) == Draw()
    assert "must_keep_discard" in refusals(shown)[0]


def test_quit_and_the_end_of_input_end_the_game():
    profile = load_profile("standard")
    human, _ = seat(profile, ["quit"])
    with pytest.raises(QuitGame):
        human.act(view(profile, "R1 R2 R3 K9"))
    human, _ = seat(profile, [])
    with pytest.raises(QuitGame):
        human.act(view(profile, "R1 R2 R3 K9"))


def run_cli(monkeypatch, capsys, args: list[str], lines: list[str]) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(args)
    return code, capsys.readouterr().out


@pytest.mark.parametrize(("name", "seed"), [("standard", 1), ("classic-wrap", 2), ("polish-40", 3)])
def test_a_seat_that_only_draws_finishes_a_game(monkeypatch, capsys, tmp_path, name, seed):
    """``draw`` with an empty pool passes, as the rules say, so the game always ends; bad lines
    in between never end it. The log replays and views."""
    log = tmp_path / "human.jsonl"
    lines = ["nonsense", "", "K99", "hint", "draw"] + ["draw"] * 2000
    args = ["play", "--profile", name, "--human", "1", "--seed", str(seed), "--log", str(log)]
    code, out = run_cli(monkeypatch, capsys, args, lines)
    assert code == 0 and "Final scores after" in out
    assert "seats: baseline, human, baseline" in out or "seats: baseline, human" in out
    header = json.loads(log.read_text().splitlines()[0])
    assert header["bots"][1] == "human"
    assert main(["replay", str(log)]) == 0
    assert main(["view", str(log), "--seat", "1"]) == 0
    assert log.with_suffix(".html").exists()


def test_quit_from_the_cli(monkeypatch, capsys, tmp_path):
    code, out = run_cli(monkeypatch, capsys, ["play", "--human", "0", "--bots", "greedy"], ["help", "quit"])
    assert code == 0 and "game ended by the player" in out
    assert "commands (one a line)" in out


def test_human_seat_arguments_are_checked(monkeypatch, capsys):
    assert main(["play", "--human", "5", "--bots", "greedy"]) == 2
    assert "--human: expected a seat 0..1" in capsys.readouterr().err
    assert main(["play", "--human", "0", "--bots", "greedy,greedy,greedy,greedy"]) == 2


def test_the_opening_may_touch_the_table_under_polish_40():
    profile = with_overrides("polish-40", initial_meld={"threshold": 30})
    human, shown = seat(profile, ["K10 K11 K12 R4", "done"])
    v = view(profile, "K10 K11 K12 R4", "R1 R2 R3", opened=False)
    action = human.act(v)
    assert isinstance(action, Play) and len(action.played) == 4, shown
    validate_move(profile, v.table, v.rack, action.table, action.played, opened=False)
