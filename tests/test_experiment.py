"""Experiment files: strict validation with one-line errors, and how cells are built."""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest
import yaml

import rummisim
from rummisim.cli import main
from rummisim.experiment import (
    EXPERIMENT_DIR,
    ExperimentError,
    builtin_experiments,
    experiment_from_dict,
    load_experiment,
)
from rummisim.profile import BUILTIN_PROFILE_DIR
from rummisim.runner import run_experiment

BASE = {
    "name": "t",
    "seed": 1,
    "games": 8,
    "profiles": ["standard"],
    "lineups": [["greedy", "greedy", "greedy", "greedy"]],
}


def spec(**changes):
    data = {**BASE, **changes}
    return {k: v for k, v in data.items() if v is not None}


def test_every_shipped_experiment_loads():
    names = sorted(p.stem for p in EXPERIMENT_DIR.glob("*.yaml"))
    assert {"quickstart", "variants", "opening-30-vs-40", "joker-rules", "bot-tuning", "readings"} <= set(
        names
    )
    for name in names:
        experiment = load_experiment(EXPERIMENT_DIR / f"{name}.yaml")
        assert experiment.name == name
        assert experiment.cells


def test_built_in_configs_are_package_data_and_configs_links_to_them():
    package = Path(rummisim.__file__).parent / "configs"
    assert package / "experiments" == EXPERIMENT_DIR and package / "profiles" == BUILTIN_PROFILE_DIR
    top = Path(rummisim.__file__).parent.parent / "configs"
    if top.exists():  # a checkout (not an installed wheel): the top-level configs/ is the same folder
        assert top.resolve() == package.resolve()
        assert sorted(p.name for p in (top / "experiments").glob("*.yaml")) == sorted(
            p.name for p in EXPERIMENT_DIR.glob("*.yaml")
        )


def test_a_built_in_experiment_runs_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no quickstart file here: the name finds the built-in one
    assert builtin_experiments()["quickstart"] == EXPERIMENT_DIR / "quickstart.yaml"
    experiment = load_experiment("quickstart", games=8)
    assert experiment.name == "quickstart" and experiment.games == 8
    assert experiment.source == str(EXPERIMENT_DIR / "quickstart.yaml")
    with pytest.raises(ExperimentError, match="no-such-experiment does not exist, nor a built-in"):
        load_experiment("no-such-experiment")


def test_cells_are_the_product_of_profiles_lineups_and_sweep():
    exp = experiment_from_dict(
        spec(
            profiles=[
                "standard",
                {"base": "standard", "name": "s40", "overrides": {"initial_meld": {"threshold": 40}}},
            ],
            lineups=[["greedy", "conservative", "greedy"], ["greedy", "greedy"]],
            sweep={"conservative.min_play": [1, 2], "runs.wrap": ["none", "high_low"]},
        )
    )
    # 2 profiles x (lineup with conservative: 2 x 2, lineup without: 1 x 2) = 12 cells
    assert len(exp.cells) == 12
    assert [c.index for c in exp.cells] == list(range(12))
    s40 = [c for c in exp.cells if c.profile.name.startswith("s40")]
    assert all(c.profile.initial_meld.threshold == 40 for c in s40)
    swept = [c for c in exp.cells if dict(c.keys)["conservative.min_play"] == 2]
    assert swept and all(c.lineup[1] == {"name": "conservative", "params": {"min_play": 2}} for c in swept)
    no_bot = [c for c in exp.cells if len(c.lineup) == 2]
    assert all(dict(c.keys)["conservative.min_play"] is None for c in no_bot)
    wraps = {c.profile.runs.wrap for c in exp.cells}
    assert wraps == {"none", "high_low"}
    # labels tell the cells apart
    assert len({c.label for c in exp.cells}) == 12


def test_games_round_up_to_whole_seat_rotations():
    mixed4, mixed3 = ["greedy", "value", "greedy", "greedy"], ["greedy", "value", "greedy"]
    exp = experiment_from_dict(spec(games=10, lineups=[mixed4, mixed3]))
    assert exp.requested_games == 10
    assert exp.games == 12  # lcm(4, 3) = 12
    assert [exp.rotations(c) for c in exp.cells] == [4, 3]
    assert experiment_from_dict(spec(games=10, lineups=[mixed4], rotate_seats=False)).games == 10
    assert experiment_from_dict(spec(lineups=[mixed4]), games=3, seed=9).games == 4
    assert experiment_from_dict(spec(), seed=9).seed == 9


def test_identical_bots_are_not_rotated():
    # four greedy bots rotated would replay the same game four times: one rotation, every deal new
    exp = experiment_from_dict(spec(games=10))
    assert exp.games == 10
    assert exp.rotations(exp.cells[0]) == 1
    # a lineup that repeats itself after two seats has two distinct rotations
    exp = experiment_from_dict(spec(games=9, lineups=[["greedy", "beginner", "greedy", "beginner"]]))
    assert (exp.rotations(exp.cells[0]), exp.games) == (2, 10)


@pytest.mark.parametrize(
    ("changes", "fragments"),
    [
        ({"gamez": 3}, ["unknown key 'gamez'", "valid keys:", "games"]),
        ({"games": 0}, ["key 'games'", "greater than or equal to 1"]),
        ({"games": "many"}, ["key 'games'", "'many'"]),
        ({"seed": -1}, ["key 'seed'"]),
        ({"name": "a b"}, ["key 'name'"]),
        ({"profiles": ["no-such-profile"]}, ["profiles[0]", "unknown profile 'no-such-profile'", "standard"]),
        ({"profiles": [{"base": "standard", "overides": {}}]}, ["profiles[0]", "unknown key", "overrides"]),
        (
            {"profiles": [{"base": "standard", "overrides": {"initial_meld": {"threshold": "x"}}}]},
            ["profiles[0]", "initial_meld.threshold"],
        ),
        ({"lineups": [["greedy", "wizard"]]}, ["lineups[0][1]", "unknown bot 'wizard'", "greedy"]),
        (
            {"lineups": [["greedy", {"name": "conservative", "params": {"min_plays": 2}}]]},
            ["lineups[0][1]", "unknown parameter 'min_plays'", "min_play"],
        ),
        ({"lineups": [["greedy"] * 5]}, ["5 seats", "2..4 players"]),
        ({"lineups": [["greedy"]]}, ["lineups[0]", "at least 2 bots"]),
        ({"sweep": {"initial_meld.treshold": [30]}}, ["sweep.initial_meld.treshold", "not a profile key"]),
        ({"sweep": {"initial_meld.threshold": []}}, ["sweep.initial_meld.threshold", "at least one value"]),
        ({"sweep": {"initial_meld.threshold": [30, 30]}}, ["values repeat"]),
        (
            {"sweep": {"initial_meld.threshold": [30, -5]}},
            ["initial_meld.threshold=-5", "initial_meld.threshold"],
        ),
        ({"sweep": {"conservative.min_play": [1]}}, ["no lineup has a 'conservative' bot"]),
        (
            {"lineups": [["conservative", "greedy"]], "sweep": {"conservative.min_plays": [1]}},
            ["has no parameter 'min_plays'", "min_play"],
        ),
        (
            {"lineups": [["conservative", "greedy"]], "sweep": {"conservative.min_play": [0, 1]}},
            ["min_play", "greater than or equal to 1"],
        ),
        ({"compare": {"nope": "standard"}}, ["key 'compare.nope'", "no cell is labelled 'nope'", "standard"]),
        ({"compare": {"standard": "standard"}}, ["key 'compare.standard'", "compared with itself"]),
        ({"compare": {"standard": 3}}, ["key 'compare.standard'", "3"]),
    ],
)
def test_bad_experiments_raise_one_line_errors(changes, fragments):
    with pytest.raises(ExperimentError) as info:
        experiment_from_dict(spec(**changes), "exp.yaml")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("exp.yaml")
    for fragment in fragments:
        assert fragment in message, message


def test_compare_names_pairs_of_cells():
    profiles = [
        "standard",
        {"base": "standard", "name": "must-play", "overrides": {"turn": {"must_play_if_able": True}}},
    ]
    exp = experiment_from_dict(spec(profiles=profiles, compare={"must-play": "standard"}), "exp.yaml")
    assert exp.compare == ((1, 0),)
    assert exp.to_dict()["compare"] == [{"cell": 1, "baseline": 0}]


def test_missing_required_key():
    data = spec()
    del data["lineups"]
    with pytest.raises(ExperimentError, match="missing required key 'lineups'"):
        experiment_from_dict(data, "exp.yaml")


def test_cli_bad_experiment_files_exit_2_with_one_line(tmp_path, capsys):
    cases = {
        "unknown-key.yaml": spec(colour="red"),
        "unknown-bot.yaml": spec(lineups=[["greedy", "wizard"]]),
        "unknown-profile.yaml": spec(profiles=["nope"]),
        "impossible-sweep.yaml": spec(sweep={"groups.max_size": [5]}),
        "duplicate-key.yaml": None,
        "broken.yaml": None,
    }
    for name, data in cases.items():
        path = tmp_path / name
        if name == "duplicate-key.yaml":
            path.write_text("name: a\nname: b\n")
        elif name == "broken.yaml":
            path.write_text("name: [unclosed\n")
        else:
            path.write_text(yaml.safe_dump(data))
        assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert err[0].startswith("rummisim: error: ") and str(path) in err[0], err
    assert main(["run", str(tmp_path / "missing.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err


# ----- league lineups ---------------------------------------------------------------------------

POOL = ["greedy", "value", "conservative", "beginner", "baseline", "random"]


def test_a_league_plays_every_subset_of_the_pool_with_seats_rotated():
    exp = experiment_from_dict(spec(games=6, lineups={"pool": POOL, "seats": 4}), "league.yaml")
    lineups = [tuple(c.lineup) for c in exp.cells]
    assert len(lineups) == 15 == len(set(lineups))  # 6 choose 4
    assert lineups == list(itertools.combinations(POOL, 4))  # in pool order
    assert lineups[0] == ("greedy", "value", "conservative", "beginner")
    assert exp.cells[-1].label == "conservative + beginner + baseline + random"
    # four different bots: every deal in all four rotations, so games round up to whole rotations
    assert {exp.rotations(c) for c in exp.cells} == {4} and exp.games == 8
    with_params = {"name": "conservative", "params": {"min_play": 2}}
    exp = experiment_from_dict(spec(lineups={"pool": ["greedy", with_params, "value"], "seats": 2}), "l.yaml")
    assert [c.label for c in exp.cells] == [
        "greedy + conservative(min_play=2)",
        "greedy + value",
        "conservative(min_play=2) + value",
    ]


def test_league_subsets_play_paired_deals_in_every_rotation(tmp_path):
    league = {"pool": ["greedy", "random", "baseline"], "seats": 2}
    exp = experiment_from_dict(spec(games=4, lineups=league), "league.yaml")
    run_experiment(exp, tmp_path / "run", progress=False)
    seats = pd.read_parquet(tmp_path / "run" / "seats.parquet")
    by_cell = seats.groupby("cell")["lineup"].first().tolist()
    assert by_cell == ["greedy,random", "greedy,baseline", "random,baseline"]
    first = seats[seats["round"] == 0]
    for (_cell, game), table in first.groupby(["cell", "game"]):
        slots = table.sort_values("seat")["slot"].tolist()
        assert slots == ([0, 1] if game % 2 == 0 else [1, 0])  # game g: rotated g % 2 seats
    # game g is the same deal (seed) in every subset
    seeds = first.groupby("game")["seed"].nunique()
    assert (seeds == 1).all() and len(seeds) == 4
    assert first.groupby("game")["deal"].first().tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize(
    ("league", "fragments"),
    [
        ({"pool": POOL, "seat": 4}, ["unknown key 'lineups.seat'", "valid keys: pool, seats"]),
        ({"pool": POOL}, ["missing required key 'lineups.seats'"]),
        ({"pool": ["greedy"], "seats": 2}, ["key 'lineups.pool'", "at least 2"]),
        ({"pool": POOL, "seats": 1}, ["key 'lineups.seats'", "greater than or equal to 2"]),
        ({"pool": POOL, "seats": "4"}, ["key 'lineups.seats'", "valid integer"]),
        ({"pool": ["greedy", "value"], "seats": 3}, ["key 'lineups.seats'", "3 seats", "the pool has 2"]),
        ({"pool": POOL, "seats": 6}, ["6 seats", "2..4 players"]),
        ({"pool": ["greedy", "wizard"], "seats": 2}, ["lineups.pool[1]", "unknown bot 'wizard'", "greedy"]),
        ({"pool": ["greedy", {"nme": "value"}], "seats": 2}, ["unknown key 'lineups.pool[1].nme'", "name"]),
        (
            {"pool": ["greedy", {"name": "conservative", "params": {"min_plays": 2}}], "seats": 2},
            ["lineups.pool[1]", "unknown parameter 'min_plays'", "min_play"],
        ),
        (
            {"pool": ["greedy", "value", "greedy"], "seats": 2},
            ["lineups.pool[2]", "'greedy' is already", "[0]"],
        ),
        (
            {"pool": [f"conservative(min_play={n})" for n in range(1, 31)], "seats": 4},
            ["key 'lineups'", "27405 lineups", "over the limit"],
        ),
    ],
)
def test_bad_leagues_raise_one_line_errors(league, fragments):
    with pytest.raises(ExperimentError) as info:
        experiment_from_dict(spec(lineups=league), "exp.yaml")
    message = str(info.value)
    assert "\n" not in message and message.startswith("exp.yaml")
    for fragment in fragments:
        assert fragment in message, message


def test_cli_bad_league_exits_2_with_one_line(tmp_path, capsys):
    path = tmp_path / "league.yaml"
    path.write_text(yaml.safe_dump(spec(lineups={"pool": ["greedy", "value"], "seats": 3})))
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "lineups.seats" in err[0], err
    assert not (tmp_path / "out").exists()
