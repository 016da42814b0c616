"""The game log (rummisim.gamelog): events to JSON lines and back, the header, one seat's view,
and `rummisim play --log` (written as the game goes, beside the streamed text)."""

from __future__ import annotations

import json

import pytest

from rummisim import events as ev
from rummisim import gamelog, load_profile
from rummisim.api import play_game
from rummisim.cli import main
from rummisim.melds import parse_table
from rummisim.profile import builtin_profiles, profile_from_dict
from rummisim.rules.sets import is_valid_meld
from rummisim.schema import EndReason
from rummisim.tiles import parse_tiles


@pytest.fixture(scope="module")
def standard_game():
    """A short seeded game of two bots under `standard`, and its events."""
    profile = load_profile("standard")
    events: list[ev.Event] = []
    record = play_game(profile, ["greedy", "baseline"], 11, events=events.append)
    return profile, record, events


def _roundtrip(event, profile):
    return gamelog.from_dict(json.loads(gamelog.dumps(gamelog.to_dict(event, profile.tileset))), profile)


def test_every_event_of_a_game_survives_json(standard_game):
    profile, record, events = standard_game
    assert [_roundtrip(e, profile) for e in events] == events
    kinds = {gamelog.to_dict(e, profile.tileset)["type"] for e in events}
    assert {"deal", "draw", "play", "turn_end", "round_end", "game_end"} <= kinds
    end = gamelog.to_dict(events[-1], profile.tileset)
    assert end == {
        "type": "game_end",
        "scores": list(record.scores),
        "winner": record.winner,
        "tied": record.tied,
        "capped": False,
        "rounds": 1,
    }


def test_every_event_type_round_trips_with_tile_notation():
    profile = load_profile("ramino-discard")
    ts = profile.tileset
    t = lambda text: parse_tiles(text, ts)  # noqa: E731
    table = parse_table("R4 R5 J(R6) | K7 O7 B7 | K11 J(R11) J(O11)", profile)
    events = [
        ev.Dealt(0, 1, (t("R1 R2"), t("K5 J")), t("B3 O4"), t("O9")),
        ev.Drew(0, 1, 1, t("B3")),
        ev.TookDiscard(0, 2, 0, ts.parse_tile("O9")),
        ev.Played(0, 2, 0, "after_draw", t("R4 R5 J K7 O7 B7"), table, opened=True, forced=True),
        ev.Discarded(0, 2, 0, ts.parse_tile("R1")),
        ev.Passed(0, 3, 1),
        ev.TimedOut(0, 4, 0),
        ev.Faulted(0, 4, 0, "bot_error", "RuntimeError: boom"),
        ev.TurnEnded(0, 4, 0, t("R2 J"), True, ("draws 1",), (), 9, 3, 0, None),
        ev.Faulted(
            0, 5, 1, "invalid_set", "not a valid set: K5", t("K5"), (*table, gamelog.parse_set("K5", profile))
        ),
        ev.RoundEnded(0, 1, False, EndReason.OUT, 5, (12, -12), (0, 12), ((), t("K5 O7"))),
        ev.GameEnded((12, -12), 1, False, True, 1),
    ]
    assert [_roundtrip(e, profile) for e in events] == events
    play = gamelog.to_dict(events[3], ts)
    assert play["table"] == ["R4 R5 J(R6)", "K7 O7 B7", "K11 J(R11) J(O11)"]  # each joker's face
    assert play["tiles"] == ["R4", "R5", "J", "K7", "O7", "B7"]
    assert gamelog.to_dict(events[0], ts)["racks"] == [["R1", "R2"], ["K5", "J"]]


def test_an_illegal_move_fault_carries_its_move_in_play_notation():
    """The move is written as a play's ``tiles`` and ``table``; other faults have neither key
    (null reads as absent), and a fault with only one of them is refused."""
    profile = load_profile("standard")
    ts = profile.tileset
    table = (*parse_table("R4 R5 J(R6) | K7 O7 B7", profile), gamelog.parse_set("K5", profile))  # not a set
    fault = ev.Faulted(0, 3, 1, "invalid_set", "not a valid set: K5", parse_tiles("K5 B7", ts), table)
    record = gamelog.to_dict(fault, ts)
    play = gamelog.to_dict(ev.Played(0, 3, 1, "start", fault.played, table, False), ts)
    assert record["tiles"] == play["tiles"] == ["K5", "B7"]
    assert record["table"] == play["table"] == ["R4 R5 J(R6)", "K7 O7 B7", "K5"]
    assert _roundtrip(fault, profile) == fault
    raised = ev.Faulted(0, 3, 1, "bot_error", "RuntimeError: boom")
    record = gamelog.to_dict(raised, ts)
    assert "tiles" not in record and "table" not in record
    assert gamelog.from_dict({**record, "tiles": None, "table": None}, profile) == raised
    with pytest.raises(gamelog.LogError, match="'tiles' and 'table' together, got only 'tiles'"):
        gamelog.from_dict({**record, "tiles": ["K5"]}, profile)
    with pytest.raises(gamelog.LogError, match="bad tile"):
        gamelog.from_dict({**record, "tiles": ["K5"], "table": ["K5 X9"]}, profile)


def test_a_seat_view_hides_the_others_refused_moves():
    """The engine shows no seat another's refused move: its tiles and sets become counts."""
    profile = load_profile("standard")
    ts = profile.tileset
    table = (*parse_table("K7 O7 B7", profile), gamelog.parse_set("K5", profile))
    record = gamelog.to_dict(ev.Faulted(0, 3, 1, "invalid_set", "x", parse_tiles("K5", ts), table), ts)
    assert gamelog.view(record, 1) == record
    assert gamelog.view(record, 0) == {**record, "tiles": 1, "table": 2}
    raised = gamelog.to_dict(ev.Faulted(0, 3, 1, "bot_error", "x"), ts)
    assert gamelog.view(raised, 0) == raised


@pytest.mark.parametrize("name", sorted(builtin_profiles()))
def test_the_header_carries_the_profile_in_full(name):
    profile = load_profile(name)
    head = json.loads(
        gamelog.dumps(gamelog.header(profile, 5, ["greedy", {"name": "x", "params": {"a": 1}}], "9"))
    )
    assert (
        head["type"] == "header" and head["format"] == gamelog.FORMAT and head["version"] == gamelog.VERSION
    )
    assert profile_from_dict(head["profile"]) == profile
    read = gamelog.read_header(head)
    assert read.profile == profile and read.profile.digest == profile.digest == head["profile_digest"]
    assert read.seed == 5 and read.labels == ("greedy", "x(a=1)") and read.view is None


def test_a_header_whose_rules_changed_is_refused():
    profile = load_profile("standard")
    head = gamelog.header(profile, 1, ["greedy", "greedy"], None)
    head["profile"]["initial_meld"]["threshold"] = 20
    with pytest.raises(gamelog.LogError, match="digest"):
        gamelog.read_header(head)
    named = {**gamelog.header(profile, 1, ["a", "b"], None), "profile": "standard"}
    assert gamelog.read_header(named, resolve=load_profile).profile == profile


def test_sets_read_as_written():
    profile = load_profile("standard")
    group = gamelog.parse_set("K5 O5 J(B5)", profile)
    assert group == parse_table("K5 O5 J(B5)", profile)[0]
    run = gamelog.parse_set("R5 R6 J", profile)  # a joker without its face: the reading assign_jokers finds
    assert is_valid_meld(run, profile) and len(run) == 3
    bad = gamelog.parse_set("R5 K9 B2", profile)  # kept as written: the rules reject it by name
    assert not is_valid_meld(bad, profile) and len(bad) == 3
    with pytest.raises(gamelog.LogError, match="bad tile"):
        gamelog.parse_set("R5 X9", profile)


def test_records_are_read_with_line_numbers():
    lines = ['{"type": "header"}', "", '{"type": "draw", "round": 0}', '{"type": "dra']
    read = gamelog.read_records(lines)
    assert next(read) == (1, {"type": "header"})
    assert next(read)[0] == 3  # blank lines count
    with pytest.raises(gamelog.LogError) as err:
        next(read)
    assert err.value.line == 4 and "not a complete JSON object" in str(err.value)
    with pytest.raises(gamelog.LogError, match="unknown event type 'teleport'") as err:
        list(gamelog.read_records(['{"type": "header"}', '{"type": "teleport"}']))
    assert err.value.line == 2
    with pytest.raises(gamelog.LogError, match="JSON object") as err:
        list(gamelog.read_records(["[1, 2]"]))


def test_a_seat_view_hides_the_other_racks_and_draws(standard_game):
    profile, _, events = standard_game
    records = [gamelog.to_dict(e, profile.tileset) for e in events]
    seen = [gamelog.view(r, 1) for r in records]
    deal = seen[0]
    assert isinstance(deal["racks"][0], int) and deal["racks"][0] == profile.rack_size
    assert deal["racks"][1] == records[0]["racks"][1]
    assert deal["pool"] == len(records[0]["pool"])  # the pool order is hidden
    for original, viewed in zip(records, seen, strict=True):
        if original["type"] == "draw":
            expected = original["tiles"] if original["seat"] == 1 else len(original["tiles"])
            assert viewed["tiles"] == expected
        if original["type"] == "turn_end" and original["seat"] == 0:
            assert viewed["rack_before"] == len(original["rack_before"])
        if original["type"] in ("play", "round_end", "game_end"):
            assert viewed == original  # public
    assert gamelog.view({"type": "header"}, 1) == {"type": "header", "view": 1}


def test_play_log_is_written_as_the_game_streams(tmp_path, capsys, monkeypatch):
    """`play --log` writes the header and every event; the text of each turn is printed as the
    turn ends (the round's turns are on stdout before the round's end is logged)."""
    import rummisim.cli as cli

    seen_at_round_end: list[str] = []
    real = cli.play_game

    def spy(*args, events=None, **kwargs):
        def tap(event):
            if isinstance(event, ev.RoundEnded):
                seen_at_round_end.append(capsys.readouterr().out)
            events(event)

        return real(*args, events=tap, **kwargs)

    monkeypatch.setattr(cli, "play_game", spy)
    path = tmp_path / "game.jsonl"
    assert main(["play", "--bots", "baseline,greedy", "--seed", "4", "--log", str(path)]) == 0
    assert seen_at_round_end and "turn   1  seat" in seen_at_round_end[0]
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    assert head["type"] == "header" and head["seed"] == 4 and head["bots"] == ["baseline", "greedy"]
    assert head["profile"]["name"] == "standard" and head["rummisim"]
    assert json.loads(lines[1])["type"] == "deal" and json.loads(lines[-1])["type"] == "game_end"


def test_play_log_to_a_bad_path_is_one_error_line(tmp_path, capsys):
    assert main(["play", "--seed", "1", "--log", str(tmp_path / "missing" / "game.jsonl")]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rummisim: error: --log:") and "missing" in lines[0]
    assert captured.out == ""  # refused before the game
