"""`rummisim replay`: a game log re-validated against its profile's rules. Every shipped profile's
logs replay; tampered logs exit 2 naming the first bad line; faults, timeouts and transcripts
without the pool's order replay; `--seat` shows one seat's view."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from helpers import Troublemaker, with_overrides

from rummisim import events as ev
from rummisim import gamelog, load_profile
from rummisim.api import play_game
from rummisim.cli import main
from rummisim.contract import Draw, Pass, Play
from rummisim.melds import Meld
from rummisim.profile import builtin_profiles
from rummisim.referee import legal_play
from rummisim.replay import ReplayError, replay

# A search bot in each game, two seats where a match is long: polish-40 plays 4 rounds and
# ramino-discard (to 200 points) 11 with seed 2, about a second each.
LINEUPS = {
    "standard": "greedy,baseline,beginner",
    "classic-wrap": "greedy,baseline",
    "guide-strict-joker": "baseline,greedy",
    "polish-40": "greedy,baseline",
    "ramino-discard": "greedy,baseline",
}


def test_every_shipped_profile_has_a_lineup():
    assert set(LINEUPS) == set(builtin_profiles())


class _Logs:
    """One `play --log` game per shipped profile, played when a test first asks for it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.paths: dict[str, Path] = {}

    def __getitem__(self, name: str) -> Path:
        if name not in self.paths:
            path = self.folder / f"{name}.jsonl"
            args = ["play", "--profile", name, "--bots", LINEUPS[name], "--seed", "2", "--quiet"]
            assert main([*args, "--log", str(path)]) == 0
            self.paths[name] = path
        return self.paths[name]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> _Logs:
    return _Logs(tmp_path_factory.mktemp("logs"))


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, lines: list[dict | str]) -> Path:
    path.write_text(
        "".join((line if isinstance(line, str) else gamelog.dumps(line)) + "\n" for line in lines)
    )
    return path


def replay_fails(path: Path, capsys) -> tuple[int, str]:
    """The line number and message of a replay that must exit 2 with one line."""
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    prefix = f"{path}:"
    assert err[0].startswith(prefix), err
    number, message = err[0][len(prefix) :].split(": ", 1)
    return int(number), message


def first(rows: list[dict], kind: str, start: int = 0) -> int:
    """Index of the first record of ``kind`` (at or after ``start``); its line is index + 1."""
    return next(i for i, r in enumerate(rows) if i >= start and r["type"] == kind)


@pytest.mark.parametrize("name", sorted(LINEUPS))
def test_every_profile_round_trips(name, logs, capsys):
    assert main(["replay", str(logs[name])]) == 0
    out = capsys.readouterr().out
    assert f"ok: every event follows the rules of profile {name!r}" in out
    assert "draws checked against the pool's order" in out
    rows = records(logs[name])
    end = rows[-1]
    rounds = sum(1 for r in rows if r["type"] == "round_end")
    assert end["type"] == "game_end" and end["rounds"] == rounds
    assert f"{rounds} round(s)" in out and f"winner: seat {end['winner']}" in out
    if name in ("polish-40", "ramino-discard"):
        assert rounds > 1  # matches of rounds


def test_a_duplicated_tile_in_the_deal(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    deal = rows[1]
    other = deal["racks"][1][0]
    assert deal["racks"][0][0] != other
    deal["racks"][0][0] = other  # three copies of `other` now
    line, message = replay_fails(write(tmp_path / "dup.jsonl", rows), capsys)
    assert line == 2 and f"3 x {other}" in message and "not conserved" in message


def test_a_tile_missing_from_the_deal(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    rows[1]["pool"].pop()
    line, message = replay_fails(write(tmp_path / "missing.jsonl", rows), capsys)
    assert line == 2 and "missing from the deal" in message


def test_a_deal_that_is_not_the_seeds(logs, tmp_path, capsys):
    """Tiles swapped between two racks keep the tile set whole, so only the seed tells."""
    rows = records(logs["standard"])
    deal = rows[1]
    a, b = deal["racks"][0][0], deal["racks"][1][0]
    assert a != b
    deal["racks"][0][0], deal["racks"][1][0] = b, a
    line, message = replay_fails(write(tmp_path / "swapped.jsonl", rows), capsys)
    assert line == 2 and "seed 2 deals seat 0" in message and "not the seed's" in message


def test_a_pool_order_that_is_not_the_seeds(logs, tmp_path, capsys):
    rows = records(logs["polish-40"])
    i = first(rows, "deal", 2)  # a later round's deal (the seed's stream goes on)
    pool = rows[i]["pool"]
    j = next(k for k in range(1, len(pool)) if pool[k] != pool[0])
    pool[0], pool[j] = pool[j], pool[0]
    line, message = replay_fails(write(tmp_path / "pool.jsonl", rows), capsys)
    assert line == i + 1 and "at place 1 of the pool" in message


def test_a_first_player_that_is_not_the_seeds(tmp_path, capsys):
    """Under ``first_player: draw_highest`` the seed decides who starts."""
    profile = with_overrides("standard", first_player="draw_highest")
    events: list = []
    play_game(profile, ["baseline", "baseline"], 3, events=events.append)
    rows = [gamelog.header(profile, 3, ["baseline", "baseline"], None)]
    rows += [gamelog.to_dict(e, profile.tileset) for e in events]
    deal = rows[1]
    deal["first"] = 1 - deal["first"]
    line, message = replay_fails(write(tmp_path / "first.jsonl", rows), capsys)
    assert line == 2 and f"seed 3 has seat {1 - deal['first']} start round 0" in message


def test_the_header_seed_is_the_one_checked(logs, tmp_path, capsys):
    """Another seed deals another game; without a seed the deal is only checked for conservation."""
    rows = records(logs["standard"])
    rows[0]["seed"] = 7
    line, message = replay_fails(write(tmp_path / "other-seed.jsonl", rows), capsys)
    assert line == 2 and "seed 7 deals seat 0" in message
    rows[0]["seed"] = None
    path = write(tmp_path / "unseeded.jsonl", rows)
    assert main(["replay", str(path)]) == 0, capsys.readouterr().err


def test_a_draw_that_is_not_the_pools_next_tile(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    i = first(rows, "draw")
    drawn = rows[i]["tiles"][0]
    rows[i]["tiles"] = ["J" if drawn != "J" else "R1"]
    line, message = replay_fails(write(tmp_path / "draw.jsonl", rows), capsys)
    assert line == i + 1 and "the pool's next tile(s) are " + drawn in message


def _without_pool(rows: list[dict]) -> list[dict]:
    """A transcript as another tool (or a person) writes it: no pool order, no turn summaries, no
    optional keys, the profile by name."""
    out = []
    for r in rows:
        r = dict(r)
        if r["type"] == "turn_end":
            continue
        if r["type"] == "header":
            r["profile"] = r["profile"]["name"]
            del r["profile_digest"]
        for key in ("pool", "phase", "opened", "forced", "rack_points", "tied", "turns", "capped"):
            r.pop(key, None)
        out.append(r)
    return out


def test_a_transcript_without_the_pool_order_replays(logs, tmp_path, capsys):
    for name in ("standard", "ramino-discard"):
        path = write(tmp_path / f"{name}.jsonl", _without_pool(records(logs[name])))
        assert main(["replay", str(path)]) == 0, capsys.readouterr().err
        assert "the unseen tiles (no pool order in the log)" in capsys.readouterr().out


def test_a_transcript_draw_of_a_tile_already_seen(logs, tmp_path, capsys):
    rows = _without_pool(records(logs["standard"]))
    full = Counter(load_profile("standard").tileset.all_tiles())
    ts = load_profile("standard").tileset
    seen = Counter(ts.parse_tile(t) for rack in rows[1]["racks"] for t in rack)
    # a draw late in the round, of a tile whose every copy has been seen by then
    draws = [i for i, r in enumerate(rows) if r["type"] == "draw"]
    for i in draws:
        for t in rows[i]["tiles"]:
            seen[ts.parse_tile(t)] += 1
    target = draws[-1]
    for t in rows[target]["tiles"]:
        seen[ts.parse_tile(t)] -= 1
    gone = next(code for code in sorted(seen) if seen[code] == full[code])
    rows[target]["tiles"] = [ts.format_tile(gone)]
    line, message = replay_fails(write(tmp_path / "seen.jsonl", rows), capsys)
    assert line == target + 1 and f"{ts.format_tile(gone)} is not in the pool" in message


def test_an_illegal_table(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    i = first(rows, "play")
    tokens = rows[i]["table"][0].split()
    rows[i]["table"][0] = " ".join([*tokens[:-1], tokens[0]])  # a face twice: never a set
    line, message = replay_fails(write(tmp_path / "table.jsonl", rows), capsys)
    assert line == i + 1 and message.startswith(f"play by seat {rows[i]['seat']}: not a valid set")
    assert "(invalid_set)" in message


def test_a_tile_not_in_the_rack(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    i = first(rows, "play")
    seat = rows[i]["seat"]
    rack = Counter(rows[1]["racks"][seat])
    stranger = next(t for t in rows[1]["racks"][(seat + 1) % 3] if t not in rack and t != "J")
    rows[i]["tiles"] = [*rows[i]["tiles"], stranger]
    rows[i]["table"] = [*rows[i]["table"], f"{stranger} J J"]
    line, message = replay_fails(write(tmp_path / "rack.jsonl", rows), capsys)
    assert line == i + 1 and f"played {stranger} which the rack does not hold" in message


@pytest.mark.parametrize("kind", ["round_end", "game_end"])
def test_a_wrong_score(logs, kind, tmp_path, capsys):
    rows = records(logs["polish-40"])
    i = first(rows, kind)
    rows[i]["scores"][0] += 1
    rows[i]["scores"][1] -= 1  # still adding up: only the rules can tell
    line, message = replay_fails(write(tmp_path / f"{kind}.jsonl", rows), capsys)
    assert line == i + 1 and "scores" in message


def test_a_wrong_round_winner(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    i = first(rows, "round_end")
    rows[i]["winner"] = (rows[i]["winner"] + 1) % 3
    line, message = replay_fails(write(tmp_path / "winner.jsonl", rows), capsys)
    assert line == i + 1 and "wins" in message


def test_a_round_that_ends_too_soon(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    end = first(rows, "round_end")
    cut = first(rows, "turn_end") + 1  # after the first turn
    line, message = replay_fails(write(tmp_path / "soon.jsonl", rows[:cut] + rows[end:]), capsys)
    assert line == cut + 1 and "the round goes on" in message


def test_until_no_play_is_replayed_by_its_rule(tmp_path, capsys):
    """000: "play continues until there is a winner or no player can make a valid play". Two
    baseline bots (no rearrangement) pass on an empty pool where the exact search still finds a
    play: under ``play_on`` the round ends after both passed; the same log read under
    ``until_no_play`` ends too soon, and the game played under it runs to the turn cap, which
    replays."""
    path = tmp_path / "play_on.jsonl"
    assert main(["play", "--profile", "standard", "--bots", "baseline,baseline", "--seed", "1", "--quiet",
                 "--log", str(path)]) == 0  # fmt: skip
    rows = records(path)
    end = first(rows, "round_end")
    assert rows[end]["reason"] == "pool_exhausted"
    header = dict(rows[0])
    until = with_overrides("standard", end={"when_pool_empty": "until_no_play", "max_turns": 200})
    header["profile"] = until.to_dict()
    header["profile_digest"] = until.digest
    line, message = replay_fails(write(tmp_path / "until.jsonl", [header, *rows[1:]]), capsys)
    assert line == end + 1 and "the round goes on" in message

    rules = tmp_path / "until.yaml"
    rules.write_text(until.to_yaml())
    capped = tmp_path / "capped.jsonl"
    assert main(["play", "--profile", str(rules), "--bots", "baseline,baseline", "--seed", "1", "--quiet",
                 "--log", str(capped)]) == 0  # fmt: skip
    rows = records(capped)
    assert rows[first(rows, "round_end")]["reason"] == "turn_cap"
    assert main(["replay", str(capped)]) == 0


def test_a_turn_out_of_order(logs, tmp_path, capsys):
    rows = records(logs["standard"])
    i = first(rows, "turn_end") + 1  # the second turn's first event
    for r in rows[i:]:
        if r.get("turn") == 2:
            r["seat"] = (r["seat"] + 1) % 3
    line, message = replay_fails(write(tmp_path / "order.jsonl", rows), capsys)
    assert line == i + 1 and "turn 2 is seat" in message


def test_a_truncated_file(logs, tmp_path, capsys):
    lines = logs["ramino-discard"].read_text().splitlines()
    line, message = replay_fails(write(tmp_path / "cut.jsonl", lines[:-1]), capsys)
    assert line == len(lines) - 1 and "without game_end" in message
    half = lines[:-3] + [lines[-3][: len(lines[-3]) // 2]]  # a half-written last line
    line, message = replay_fails(write(tmp_path / "half.jsonl", half), capsys)
    assert line == len(lines) - 2 and "not a complete JSON object" in message


def test_malformed_json_unknown_types_and_missing_keys(logs, tmp_path, capsys):
    lines = logs["standard"].read_text().splitlines()
    broken = [*lines[:4], "{'type': 'draw'}", *lines[5:]]
    assert replay_fails(write(tmp_path / "json.jsonl", broken), capsys)[0] == 5
    unknown = [*lines[:4], '{"type": "teleport", "round": 0}', *lines[5:]]
    line, message = replay_fails(write(tmp_path / "type.jsonl", unknown), capsys)
    assert line == 5 and "unknown event type 'teleport'" in message
    rows = records(logs["standard"])
    i = first(rows, "draw")
    del rows[i]["tiles"]
    line, message = replay_fails(write(tmp_path / "key.jsonl", rows), capsys)
    assert line == i + 1 and "missing key 'tiles'" in message
    rows = records(logs["standard"])
    rows[0]["profile"]["initial_meld"]["threshold"] = 10
    line, message = replay_fails(write(tmp_path / "profile.jsonl", rows), capsys)
    assert line == 1 and "digest" in message


def test_an_unreadable_file_is_one_error_line(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rummisim: error:") and "nope.jsonl" in err[0]


@pytest.mark.parametrize(
    "profile",
    [
        load_profile("standard"),
        # must-play (forced plays), discards and play after drawing, in one round
        with_overrides("ramino-discard", match={"end": "single_round", "target_points": None}),
    ],
    ids=["standard", "ramino-discard"],
)
def test_a_game_with_faults_and_timeouts_replays(profile, tmp_path, capsys):
    events = []
    play_game(profile, [Troublemaker(), "greedy"], 5, events=events.append)
    lines = [gamelog.header(profile, 5, ["troublemaker", "greedy"], None)]
    lines += [gamelog.to_dict(e, profile.tileset) for e in events]
    kinds = Counter(r["type"] for r in lines)
    assert kinds["fault"] and kinds["timeout"]
    path = write(tmp_path / "faults.jsonl", lines)
    assert main(["replay", str(path)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert f"{kinds['fault']} fault(s), {kinds['timeout']} timeout(s)" in out
    if profile.turn.must_play_if_able:
        assert any(r["type"] == "play" and r["forced"] for r in lines)
        # a draw where the seat can play, with the forced play and its fault taken out, is caught
        i = next(i for i, r in enumerate(lines) if r["type"] == "play" and r["forced"])
        assert lines[i - 1]["type"] == "fault" and lines[i - 1]["rule"] == "must_play"
        rack_before = next(r for r in lines[i:] if r["type"] == "turn_end")["rack_before"]
        seat, turn = lines[i]["seat"], lines[i]["turn"]
        pool = next(r for r in lines[:i][::-1] if r["type"] == "deal")["pool"]
        drawn = sum(len(r["tiles"]) for r in lines[:i] if r["type"] == "draw" and r["round"] == 0)
        draw = {"type": "draw", "round": 0, "turn": turn, "seat": seat, "tiles": [pool[drawn]]}
        end = next(j for j in range(i, len(lines)) if lines[j]["type"] == "turn_end")
        tampered = [*lines[: i - 1], draw, *lines[end:]]
        tampered[i]["rack_before"] = rack_before
        line, message = replay_fails(write(tmp_path / "must.jsonl", tampered), capsys)
        assert line == i and "must (turn.must_play_if_able)" in message


class Fumbler:
    """Never plays. On a turn where it has a legal play (``legal_play``) it proposes an illegal
    one instead, the first tile of that play alone as a set (``invalid_set``), or on every other
    such turn it raises; either way the engine records the fault and draws for it. ``legal``
    keeps each legal play it passed over, by turn (one round). Otherwise it draws."""

    name = "fumbler"

    def __init__(self):
        self.legal: dict = {}  # turn -> the solver's Solution

    def act(self, view):
        if view.phase != "start":
            return Pass()
        best = legal_play(view.profile, view.rack, view.table, opened=view.opened)
        if not best.is_play:
            return Draw()
        self.legal[view.turn] = best
        if len(self.legal) % 2 == 0:
            raise RuntimeError("fumbled")
        tile = best.played[0]
        return Play(table=(*view.table, Meld((tile,), (tile,))), played=(tile,))


MUST_PLAY = with_overrides("standard", turn={"must_play_if_able": True})


@pytest.fixture(scope="module")
def fumbled():
    """A one-round game of ``Fumbler`` against greedy under must-play: its log and the legal
    plays the fumbler passed over."""
    bot = Fumbler()
    events: list = []
    play_game(MUST_PLAY, [bot, "greedy"], 1, events=events.append)
    lines = [gamelog.header(MUST_PLAY, 1, ["fumbler", "greedy"], None)]
    lines += [gamelog.to_dict(e, MUST_PLAY.tileset) for e in events]
    return lines, bot.legal


def _table_at(lines: list[dict], i: int) -> list[str]:
    """The table before record ``i``: the last play's."""
    return next((r["table"] for r in reversed(lines[:i]) if r["type"] == "play"), [])


def _fault(lines: list[dict], rule: str) -> int:
    """Index of the first fault under ``rule``; the seat drew right after it (the fallback)."""
    i = next(i for i, r in enumerate(lines) if r["type"] == "fault" and r["rule"] == rule)
    assert lines[i + 1]["type"] == "draw" and lines[i + 1]["turn"] == lines[i]["turn"]
    return i


def _copy(lines: list[dict]) -> list[dict]:
    return json.loads(json.dumps(lines))


def _move(played, table) -> dict:
    """A move's ``tiles`` and ``table`` as the log writes them (``gamelog.to_dict``)."""
    record = gamelog.to_dict(ev.Faulted(0, 1, 0, "x", "x", tuple(played), tuple(table)), MUST_PLAY.tileset)
    return {"tiles": record["tiles"], "table": record["table"]}


def test_an_illegal_move_fault_carries_the_move_and_excuses_the_draw(fumbled, tmp_path, capsys):
    """The fault records the move the bot proposed; replay refuses that move again and lets the
    engine's fallback draw stand, though the seat could play. Without the fault the draw is
    refused (must play)."""
    lines, legal = fumbled
    path = write(tmp_path / "fumbled.jsonl", lines)
    assert main(["replay", str(path)]) == 0, capsys.readouterr().err
    assert "ok: every event follows the rules" in capsys.readouterr().out
    i = _fault(lines, "invalid_set")
    fault, turn = lines[i], lines[i]["turn"]
    tile = MUST_PLAY.tileset.format_tile(legal[turn].played[0])
    assert fault["tiles"] == [tile] and fault["table"] == [*_table_at(lines, i), tile]  # not a set
    without = [r for k, r in enumerate(lines) if k != i]
    line, message = replay_fails(write(tmp_path / "unexcused.jsonl", without), capsys)
    assert line == i + 1 and "must (turn.must_play_if_able)" in message


def test_an_illegal_move_fault_whose_move_is_legal_is_refused(fumbled, tmp_path, capsys):
    lines, legal = fumbled
    lines = _copy(lines)
    i = _fault(lines, "invalid_set")
    turn = lines[i]["turn"]
    lines[i].update(_move(legal[turn].played, legal[turn].table))  # the play the bot passed over
    line, message = replay_fails(write(tmp_path / "legal.jsonl", lines), capsys)
    assert line == i + 1
    assert message.startswith(f"fault by seat 0 (round 0, turn {turn}): the recorded move ")
    assert "is legal, so it is no fault under 'invalid_set'" in message


@pytest.mark.parametrize("rule", ["tile_not_in_rack", "bot_error"])
def test_a_fault_under_another_rule_than_its_move_breaks_is_refused(rule, fumbled, tmp_path, capsys):
    lines, _ = fumbled
    lines = _copy(lines)
    i = _fault(lines, "invalid_set")
    lines[i]["rule"] = rule
    line, message = replay_fails(write(tmp_path / "rule.jsonl", lines), capsys)
    assert line == i + 1 and f"(round 0, turn {lines[i]['turn']})" in message
    assert "the rules refuse the recorded move under 'invalid_set'" in message
    assert f"not under the fault's rule {rule!r}" in message


def test_an_illegal_move_fault_without_its_move_is_refused(fumbled, tmp_path, capsys):
    """As a log written before faults carried their move: it cannot be checked."""
    lines, _ = fumbled
    lines = _copy(lines)
    i = _fault(lines, "invalid_set")
    del lines[i]["tiles"], lines[i]["table"]
    line, message = replay_fails(write(tmp_path / "old.jsonl", lines), capsys)
    assert message.startswith(f"fault by seat 0 (round 0, turn {lines[i]['turn']}): ")
    assert "the fault under rule 'invalid_set' records no move" in message and "cannot be checked" in message
    assert line == i + 1
    lines[i]["table"] = ["R1"]  # half a move
    line, message = replay_fails(write(tmp_path / "half.jsonl", lines), capsys)
    assert line == i + 1 and "'tiles' and 'table' together, got only 'table'" in message


def test_a_forged_fault_is_refused(fumbled, tmp_path, capsys):
    """A draw the seat could have played instead (the engine's fault taken out), excused by a
    fault written into the log: refused unless the fault is one the log cannot disprove."""
    lines, legal = fumbled
    i = _fault(lines, "bot_error")
    turn = lines[i]["turn"]
    drew = [r for k, r in enumerate(_copy(lines)) if k != i]  # the draw at index i now
    line, message = replay_fails(write(tmp_path / "drew.jsonl", drew), capsys)
    assert line == i + 1 and "must (turn.must_play_if_able)" in message
    where = {"type": "fault", "round": 0, "turn": turn, "seat": 0, "message": "forged"}
    best = legal[turn]
    forgeries = {
        "no-move": ({**where, "rule": "invalid_set"}, "'invalid_set' records no move"),
        "unknown-rule": ({**where, "rule": "cosmic_ray"}, "'cosmic_ray' records no move"),
        "legal-move": ({**where, "rule": "invalid_set", **_move(best.played, best.table)}, "is legal"),
    }
    for name, (forged, expected) in forgeries.items():
        path = write(tmp_path / f"{name}.jsonl", [*drew[:i], forged, *drew[i:]])
        line, message = replay_fails(path, capsys)
        assert line == i + 1 and expected in message, (name, message)
    # a ``must_play`` fault is followed by the engine's play for the seat, never by a draw
    path = write(tmp_path / "must-play.jsonl", [*drew[:i], {**where, "rule": "must_play"}, *drew[i:]])
    line, message = replay_fails(path, capsys)
    assert line == i + 2 and "must (turn.must_play_if_able)" in message
    # What a log cannot show: whether the bot did propose the illegal move a fault records (or
    # raise). A forged fault with a move the rules refuse, under the rule they name, passes.
    tile = MUST_PLAY.tileset.format_tile(best.played[0])
    illegal = {**where, "rule": "invalid_set", "tiles": [tile], "table": [*_table_at(drew, i), tile]}
    path = write(tmp_path / "illegal-move.jsonl", [*drew[:i], illegal, *drew[i:]])
    assert main(["replay", str(path)]) == 0, capsys.readouterr().err


def test_an_exception_fault_still_excuses_the_draw(fumbled, tmp_path, capsys):
    """A bot that raised records no move; its fault is taken at its word (the log cannot show
    the exception) and excuses the fallback draw, as before."""
    lines, _ = fumbled
    i = _fault(lines, "bot_error")
    assert "tiles" not in lines[i] and "table" not in lines[i]
    assert lines[i]["message"] == "RuntimeError: fumbled"
    assert replay(enumerate(lines, start=1)).faults == sum(r["type"] == "fault" for r in lines)
    without = [r for k, r in enumerate(lines) if k != i]  # the seat could play: the fault excused it
    line, message = replay_fails(write(tmp_path / "unexcused.jsonl", without), capsys)
    assert line == i + 1 and "must (turn.must_play_if_able)" in message
    forged = [*without[:i], {**lines[i], "message": "written by hand"}, *without[i:]]
    assert main(["replay", str(write(tmp_path / "forged.jsonl", forged))]) == 0, capsys.readouterr().err


def test_the_replay_checker_takes_records_not_files(logs):
    rows = records(logs["classic-wrap"])
    summary = replay(enumerate(rows, start=1))
    assert summary.rounds == 1 and summary.scores == tuple(rows[-1]["scores"])
    with pytest.raises(ReplayError) as err:
        replay(enumerate(rows[:-1], start=1))
    assert err.value.line == len(rows) - 1


def test_a_seat_view(logs, tmp_path, capsys):
    path = logs["standard"]
    rows = records(path)
    assert main(["replay", str(path), "--seat", "1"]) == 0
    out = capsys.readouterr().out
    deal = rows[1]
    assert f"your rack (seat 1): {' '.join(deal['racks'][1])}" in out
    for seat in (0, 2):
        assert " ".join(deal["racks"][seat]) not in out  # the others' racks are hidden
    hidden = next(r for r in rows if r["type"] == "draw" and r["seat"] != 1)
    assert f"seat {hidden['seat']} (" in out and "draws 1" in out
    own = next(r for r in rows if r["type"] == "draw" and r["seat"] == 1)
    assert f"draws {own['tiles'][0]}" in out
    assert "ok: every event follows" in out
    assert main(["replay", str(path), "--seat", "7"]) == 2
    assert "--seat" in capsys.readouterr().err
    viewed = write(tmp_path / "view.jsonl", [gamelog.view(r, 1) for r in rows])
    line, message = replay_fails(viewed, capsys)
    assert line == 1 and "seat 1's view" in message


class Drawer:
    """Never plays: the pool runs out and the round ends on passes."""

    name = "drawer"

    def act(self, view):
        return Draw() if view.phase == "start" else Pass()


def test_a_round_the_pool_runs_out_of(tmp_path, capsys):
    profile = load_profile("standard")
    events = []
    play_game(profile, [Drawer(), Drawer()], 9, events=events.append)
    lines = [gamelog.header(profile, 9, ["drawer", "drawer"], None)]
    lines += [gamelog.to_dict(e, profile.tileset) for e in events]
    end = next(r for r in lines if r["type"] == "round_end")
    assert end["reason"] == "pool_exhausted" and any(r["type"] == "pass" for r in lines)
    assert main(["replay", str(write(tmp_path / "dry.jsonl", lines))]) == 0, capsys.readouterr().err
    capsys.readouterr()
    i = first(lines, "draw")
    lines[i] = {key: lines[i][key] for key in ("round", "turn", "seat")} | {"type": "pass"}
    line, message = replay_fails(write(tmp_path / "early.jsonl", lines), capsys)
    assert line == i + 1 and "a seat that does not play draws" in message
