"""The per-turn table (``rummisim run --turns``): one row per turn, consistent with the games and
with itself, identical however the work is split or resumed, and absent unless asked for."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

import rummisim.runner.rows as runner_rows
import rummisim.runner.run as runner_run
from rummisim import engine, load_profile
from rummisim.api import lineup as build_lineup
from rummisim.bots import bot_label, bot_name
from rummisim.cli import main
from rummisim.experiment import ExperimentError, experiment_from_dict
from rummisim.runner import CHUNK_RECORD, TABLES, game_seed, run_experiment, seat_lineup
from rummisim.runner.turns import played_value, turn_rows
from rummisim.schema import Table, TurnAction, TurnPhase, column_names
from rummisim.store import load_turns

SPEC = {
    "name": "turns",
    "seed": 7,
    "games": 3,
    "profiles": [
        "standard",
        "ramino-discard",  # a discard pile, play after drawing, must-play, matches of rounds
        {"base": "standard", "name": "budget", "overrides": {"time_limit": {"search_budget": 300}}},
    ],
    "lineups": [["beginner", "baseline", "random"]],
}
CHUNK = 2  # 3 cells x 3 games in chunks of 2 and 1: 6 chunks
ALL = (*TABLES, "turns")


def experiment(**changes):
    return experiment_from_dict({**SPEC, **changes}, "turns.yaml")


def run(out: Path, **kwargs):
    kwargs.setdefault("summarize", False)
    kwargs.setdefault("chunk_size", CHUNK)
    kwargs.setdefault("turns", True)
    return run_experiment(kwargs.pop("exp", None) or experiment(), out, progress=False, **kwargs)


def files(out: Path) -> dict[str, bytes]:
    return {name: (out / f"{name}.parquet").read_bytes() for name in ALL}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("turns") / "run"
    run(out, jobs=1)
    return out


@pytest.fixture(scope="module")
def turns(reference) -> pd.DataFrame:
    return load_turns(reference)


@pytest.fixture(scope="module")
def games(reference) -> pd.DataFrame:
    return pd.read_parquet(reference / "games.parquet")


GAME = ["cell", "game", "round"]


def test_one_row_per_turn_of_every_round(turns, games):
    assert list(turns.columns) == list(column_names(Table.TURNS))
    assert len(turns) == games["turns"].sum() > 0
    per_round = turns.groupby(GAME).size().rename("rows")
    both = games.set_index(GAME)[["turns", "first_player", "n_players"]].join(per_round)
    assert (both["rows"] == both["turns"]).all()
    assert games.groupby("cell")["round"].max().loc[1] > 0  # ramino-discard plays matches of rounds
    for (cell, game, rnd), rows in turns.groupby(GAME):
        first, n = both.loc[(cell, game, rnd), ["first_player", "n_players"]]
        assert list(rows["turn"]) == list(range(1, len(rows) + 1))
        assert list(rows["seat"]) == [(first + t - 1) % n for t in rows["turn"]]


def test_identity_and_bots_match_the_seats_table(reference, turns):
    seats = pd.read_parquet(reference / "seats.parquet")
    merged = turns.merge(seats, on=["cell", "game", "round", "seat"], suffixes=("", "_seats"))
    assert len(merged) == len(turns)
    for column in ("bot", "bot_label", "seed", "deal", "rotation", "lineup", "profile_hash"):
        assert (merged[column] == merged[f"{column}_seats"]).all(), column
    # the seat's initial meld: the first turn it played from the initial_meld phase
    opened = turns[(turns["phase"] == TurnPhase.INITIAL_MELD) & (turns["tiles_played"].map(len) > 0)]
    assert not opened.duplicated(["cell", "game", "round", "seat"]).any()
    first = opened.set_index(["cell", "game", "round", "seat"])["turn"]
    want = seats.set_index(["cell", "game", "round", "seat"])["opened_turn"]
    assert (want.dropna().astype(int).sort_index() == first.sort_index()).all()
    assert set(want.dropna().index) == set(first.index)


def test_each_turn_adds_up(turns):
    played = turns["tiles_played"].map(len)
    discarded = turns["discarded"].notna().astype(int)
    racks = turns["rack_before"].map(len)
    assert (turns["rack_after"] == racks + turns["tiles_drawn"] - played - discarded).all()
    assert (turns["value_played"] > 0).eq(played > 0).all()
    for row in turns.itertuples():
        if row.tiles_drawn == 0:  # nothing came in: what left the rack was on it
            assert not Counter(row.tiles_played) - Counter(row.rack_before)
        assert pd.isna(row.discarded) or row.profile == "ramino-discard"


def test_actions_say_what_the_tiles_did(turns):
    played = turns["tiles_played"].map(len) > 0
    drew = turns["tiles_drawn"] > 0
    action = turns["action"]
    assert set(action) <= {a.value for a in TurnAction}
    assert ((action == TurnAction.PLAY) == (played & ~drew & (action != TurnAction.TIMEOUT))).all()
    assert (~played[action == TurnAction.DRAW]).all() and drew[action == TurnAction.DRAW].all()
    assert (played & drew)[action.isin([TurnAction.DRAW_PLAY, TurnAction.TAKE_DISCARD_PLAY])].all()
    assert (~played & ~drew)[action == TurnAction.PASS].all()
    assert (turns.loc[action == TurnAction.TAKE_DISCARD_PLAY, "tiles_drawn"] == 1).all()
    # the budget profile times out; the others never do, and only search bots count units
    assert set(turns.loc[action == TurnAction.TIMEOUT, "profile"]) == {"budget"}
    assert turns.loc[turns["bot"] == "beginner", "search_units"].notna().all()
    assert turns.loc[turns["bot"] != "beginner", "search_units"].isna().all()
    # ramino-discard: a play ends with a discard, and every play is in the table
    ramino = turns[turns["profile"] == "ramino-discard"]
    assert ramino.loc[ramino["tiles_played"].map(len) > 0, "discarded"].notna().all()
    assert set(ramino["action"]) >= {TurnAction.PLAY, TurnAction.DRAW_PLAY}


def test_rack_pool_and_table_carry_over_from_turn_to_turn(turns):
    for _, rows in turns.groupby(GAME):
        rows = rows.sort_values("turn")
        drawn_from_pool = rows["tiles_drawn"].where(~rows["action"].str.startswith("take_discard"), 0)
        pool_before = rows["pool_after"] + drawn_from_pool
        assert (pool_before.iloc[1:].to_numpy() == rows["pool_after"].iloc[:-1].to_numpy()).all()
        table_before = rows["table_tiles_after"] - rows["tiles_played"].map(len)
        assert table_before.iloc[0] == 0
        assert (table_before.iloc[1:].to_numpy() == rows["table_tiles_after"].iloc[:-1].to_numpy()).all()
        for _, seat in rows.groupby("seat"):
            sizes = seat["rack_before"].map(len)
            assert sizes.iloc[0] == 14  # the deal
            assert (sizes.iloc[1:].to_numpy() == seat["rack_after"].iloc[:-1].to_numpy()).all()
            phases = list(seat["phase"])
            assert phases == sorted(phases, key=lambda p: p == TurnPhase.OPENED)  # never un-opens


def test_an_opening_is_worth_the_threshold(turns):
    standard = turns[turns["profile"] == "standard"]
    openings = standard[
        (standard["phase"] == TurnPhase.INITIAL_MELD) & (standard["tiles_played"].map(len) > 0)
    ]
    assert len(openings) and (openings["value_played"] >= 30).all()


def test_the_rows_are_a_pure_function_of_the_game(reference):
    written = [
        r for r in pq.read_table(reference / "turns.parquet").to_pylist() if (r["cell"], r["game"]) == (1, 2)
    ]
    cell = experiment().cells[1]
    seats = seat_lineup(cell.lineup, written[0]["rotation"])
    events: list = []
    engine.play_game(cell.profile, build_lineup(seats), written[0]["seed"], events=events.append)
    rows = turn_rows(
        events, cell.profile.tileset, [bot_name(s) for s in seats], [bot_label(s) for s in seats]
    )
    assert rows == [{k: r[k] for k in rows[0]} for r in written]
    assert turn_rows(events, cell.profile.tileset, ["a"] * 3, ["a"] * 3) == [
        {**r, "bot": "a", "bot_label": "a"} for r in rows
    ]


def test_a_joker_counts_at_the_tile_it_stands_for():
    profile = load_profile("standard")
    ts = profile.tileset
    from rummisim.melds import parse_table

    before = parse_table("R4 R5 R6", profile)
    after = parse_table("R4 R5 R6 | K7 O7 J(B7)", profile)
    played = [ts.parse_tile(t) for t in ("K7", "O7", "J")]
    assert played_value(played, before, after, ts) == 21
    after = parse_table("R4 R5 R6 J(R7) | K9 J(O9) B9", profile)
    played = [ts.parse_tile(t) for t in ("J", "J", "K9", "B9")]
    assert played_value(played, before, after, ts) == 7 + 9 + 9 + 9


# ----- the chunk mechanism: same table for any jobs, chunk size or resume -------------------------


def test_identical_for_any_jobs_and_chunk_size(reference, tmp_path):
    run(tmp_path / "two", jobs=2, chunk_size=1)
    run(tmp_path / "big", jobs=1, chunk_size=5)
    assert files(tmp_path / "two") == files(reference)
    assert files(tmp_path / "big") == files(reference)


def test_an_interrupted_run_resumes_to_the_same_table(reference, tmp_path, monkeypatch):
    out = tmp_path / "run"
    real, written = runner_run.write_chunk, []

    def stop_after_two(out, name, games, tables, run=None):
        assert set(tables) == set(ALL)
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(name)
        real(out, name, games, tables, run)

    monkeypatch.setattr(runner_run, "write_chunk", stop_after_two)
    result = run(out, jobs=1)
    assert result.interrupted and result.games_done == 3  # cell 0: a chunk of 2 games and one of 1
    assert not (out / "turns.parquet").exists()
    monkeypatch.setattr(runner_run, "write_chunk", real)
    for folder in sorted((out / "chunks").iterdir()):
        assert json.loads((folder / CHUNK_RECORD).read_text())["files"]["turns.parquet"]["rows"] > 0
    result = run(out, jobs=1, resume=True, turns=None)  # a resume keeps --turns without being told
    assert result.games_played == 9 - 3
    assert files(out) == files(reference)
    assert json.loads((out / "manifest.json").read_text())["turns"] is True


def test_a_chunk_without_its_turn_rows_is_played_again(reference, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(reference, out)
    folder = sorted((out / "chunks").iterdir())[0]
    (folder / "turns.parquet").unlink()
    for name in ALL:
        (out / f"{name}.parquet").unlink()
    result = run(out, jobs=1, resume=True)
    assert result.games_played == CHUNK and "turns.parquet is missing" in result.replayed[0]
    assert files(out) == files(reference)


def test_a_resume_cannot_switch_turns_on_or_off(reference, tmp_path):
    import shutil

    with pytest.raises(ExperimentError, match="started with --turns"):
        run(reference, resume=True, turns=False)
    plain = tmp_path / "plain"
    run(plain, turns=False)
    with pytest.raises(ExperimentError, match="started without --turns"):
        run(plain, resume=True, turns=True)
    with pytest.raises(ExperimentError, match="started without --turns"):
        run(plain, resume=True, turns=None, exp=experiment(turns=True))
    assert run(plain, resume=True, turns=None).games_played == 0
    copy = tmp_path / "copy"
    shutil.copytree(reference, copy)
    assert run(copy, resume=True, turns=True).games_played == 0


def test_a_crashing_game_has_no_turn_rows_and_the_others_keep_theirs(reference, tmp_path, monkeypatch):
    real, crash_seed = runner_rows.play_game, game_seed(7, 0)

    def flaky(profile, bots, seed, **kwargs):
        if seed == crash_seed and bots[0].label == "beginner":  # game 0 (rotation 0) of every cell
            raise ValueError("engine exploded")
        return real(profile, bots, seed, **kwargs)

    monkeypatch.setattr(runner_rows, "play_game", flaky)
    run(tmp_path / "c", jobs=1)
    games = pd.read_parquet(tmp_path / "c" / "games.parquet")
    turns = pd.read_parquet(tmp_path / "c" / "turns.parquet")
    assert set(games.loc[games["end_reason"] == "fault", "game"]) == {0}
    assert len(turns) == games["turns"].sum() and 0 not in set(turns["game"])
    kept = pd.read_parquet(reference / "turns.parquet")
    assert turns.equals(kept[kept["game"] != 0].reset_index(drop=True))


# ----- without --turns nothing changes; the flag and the experiment key ------------------------------


def test_without_turns_no_events_and_no_file(tmp_path, monkeypatch):
    real, calls = runner_rows.play_game, []

    def spy(profile, bots, seed, **kwargs):
        calls.append(kwargs)
        return real(profile, bots, seed, **kwargs)

    monkeypatch.setattr(runner_rows, "play_game", spy)
    out = tmp_path / "plain"
    run(out, turns=False, exp=experiment(profiles=["standard"]))
    assert calls and all(kwargs == {} for kwargs in calls)
    assert not (out / "turns.parquet").exists()
    for folder in (out / "chunks").iterdir():
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            [CHUNK_RECORD, *(f"{n}.parquet" for n in TABLES)]
        )
    assert json.loads((out / "manifest.json").read_text())["turns"] is False
    with pytest.raises(ExperimentError, match="without --turns"):
        load_turns(out)


def test_the_cli_flag_and_the_experiment_key(tmp_path, capsys):
    spec = tmp_path / "exp.yaml"
    spec.write_text(yaml.safe_dump({**SPEC, "profiles": ["standard"], "games": 3}))
    base = ["run", str(spec), "--jobs", "1", "--quiet", "--no-report"]
    assert main([*base, "--out", str(tmp_path / "flag"), "--turns"]) == 0
    assert main([*base, "--out", str(tmp_path / "none")]) == 0
    spec.write_text(yaml.safe_dump({**SPEC, "profiles": ["standard"], "games": 3, "turns": True}))
    assert main([*base, "--out", str(tmp_path / "key")]) == 0
    assert (tmp_path / "flag" / "turns.parquet").read_bytes() == (
        tmp_path / "key" / "turns.parquet"
    ).read_bytes()
    assert not (tmp_path / "none" / "turns.parquet").exists()
    spec.write_text(yaml.safe_dump({**SPEC, "turns": "yes"}))
    capsys.readouterr()
    assert main([*base, "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert "turns" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()
