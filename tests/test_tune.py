"""``rummisim tune``: tune files are validated strictly, a study resumes to the trials an
uninterrupted one runs, the pruner stops clearly worse trials, ``best.yaml`` loads in an
experiment, and the validation plays deals the study never saw.

The studies are tiny (a few trials of a few two-seat games, one process): a test bot, ``lazy``,
plays like ``baseline`` unless its ``skill`` is 0, when it never plays, so the trials that draw
``skill: 0`` are clearly worse.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd
import pytest
import yaml
from pydantic import Field

from rummisim import experiment_from_dict, load_profile
from rummisim.bots import BOTS, register
from rummisim.bots.base import BotParams
from rummisim.bots.baseline import BaselineBot
from rummisim.cli import main
from rummisim.contract import Action, Phase, TurnView
from rummisim.runner import game_seed
from rummisim.tune import TuneError, builtin_tunes, load_tune, tune_from_dict
from rummisim.tune.study import run_study, write_outputs


class LazyParams(BotParams):
    skill: int = Field(default=1, ge=0, le=3)  # 0: never plays
    bias: float = Field(default=1.0, gt=0)  # unused: a float (log) dimension to search


class LazyBot(BaselineBot):
    name = "lazy"
    Params = LazyParams

    def act(self, view: TurnView) -> Action:
        if self.params.skill == 0 and view.phase == Phase.START:  # type: ignore[attr-defined]
            return self.draw_unless_forced(view)
        return super().act(view)


@pytest.fixture
def lazy():
    """The ``lazy`` bot, registered in this process only (the studies run with one job)."""
    register(LazyBot)
    yield "lazy"
    BOTS.pop("lazy", None)


BOT_STUDY = {
    "name": "tiny",
    "seed": 11,
    "bot": "lazy",
    "opponents": ["baseline"],
    "space": {"lazy.skill": {"int": [0, 3]}, "lazy.bias": {"float": [0.1, 10.0], "log": True}},
    "objective": "win_rate",
    "games": 8,  # 4 deals x 2 seat rotations
    "batches": 2,
    "trials": 6,
    "sampler": {"name": "tpe", "startup_trials": 3},
    "pruner": {"name": "median", "startup_trials": 1},
    "validation_games": 8,
}
RULE_STUDY = {
    "name": "tiny-rules",
    "seed": 5,
    "lineup": ["baseline", "baseline"],
    "space": {"initial_meld.threshold": {"int": [10, 50], "step": 10}, "rack_size": {"int": [10, 16]}},
    "objective": {"name": "fair_first_seat", "target_turns": 100, "weight": 1.0},
    "games": 6,
    "batches": 2,
    "trials": 3,
    "validation_games": 6,
}


def _study(data, tmp_path, name="study", **kwargs):
    tune = tune_from_dict(data, "tiny.yaml")
    result = run_study(tune, tmp_path / name, jobs=1, **kwargs)
    return tune, result


def _trials(folder) -> pd.DataFrame:
    frame = pd.read_parquet(folder / "trials.parquet")
    return frame


def _compare(frame: pd.DataFrame) -> list:
    """What must agree between two studies: the finished trials' parameters, states and values."""
    done = frame[frame["state"] != "FAIL"]
    return [
        (
            r.params,
            r.state,
            None if pd.isna(r.value) else round(r.value, 12),
            [round(v, 12) for v in r.intermediate],
        )
        for r in done.itertuples()
    ]


def test_a_registered_bot_is_tuned_in_worker_processes_as_in_one(tmp_path, lazy):
    # ``lazy`` is registered in this process only: the workers get it with each work order
    data = {**BOT_STUDY, "trials": 3}
    tune, one = _study(data, tmp_path, "one")
    two = run_study(tune, tmp_path / "two", jobs=2)
    assert one.finished == two.finished == 3
    for result in (one, two):
        write_outputs(tune, result, validate=False)
    assert _compare(_trials(two.out)) == _compare(_trials(one.out))
    assert _trials(two.out)["state"].eq("COMPLETE").any()


class UnbuildableBot(LazyBot):
    name = "unbuildable"

    def __init__(self, *args, **kwargs):
        raise RuntimeError("cannot be built")


def test_a_trial_whose_games_all_crash_stops_the_study(tmp_path):
    # every game crashes before its first round: no objective value, so the study stops with
    # one line, where it retried the same trial for ever (optuna fails a NaN trial)
    register(UnbuildableBot)
    try:
        data = {
            **BOT_STUDY, "bot": "unbuildable",
            "space": {"unbuildable.skill": {"int": [0, 3]}},
        }  # fmt: skip
        tune = tune_from_dict(data, "tiny.yaml")
        crashed = (
            r"none of the 4 games of its first batch finished a round \(first fault: crash: BotError: "
            r"bot 'unbuildable\(skill=\d\)': its constructor raised RuntimeError"
        )
        # optuna's own "Trial 0 failed ..." warnings do not come before that line
        records: list[logging.LogRecord] = []
        seen = logging.Handler()
        seen.emit = records.append  # type: ignore[method-assign]
        optuna_logger = logging.getLogger("optuna")
        optuna_logger.addHandler(seen)
        try:
            with pytest.raises(TuneError, match=crashed + ": cannot be built"):
                run_study(tune, tmp_path / "s", jobs=1)
        finally:
            optuna_logger.removeHandler(seen)
        assert not [r.getMessage() for r in records if " failed with " in r.getMessage()]
    finally:
        BOTS.pop("unbuildable", None)


def test_a_resumed_study_plays_the_trials_of_an_uninterrupted_one(tmp_path, lazy, monkeypatch):
    tune, whole = _study(BOT_STUDY, tmp_path, "whole")
    assert whole.finished == 6 and not whole.interrupted
    write_outputs(tune, whole, validate=False)
    reference = _compare(_trials(whole.out))

    # stopped cleanly after 3 trials, then resumed to 6
    _, first = _study(BOT_STUDY, tmp_path, "split", trials=3)
    assert first.finished == 3
    _, rest = _study(BOT_STUDY, tmp_path, "split", resume=True)
    assert rest.finished == 6 and rest.ran == 3
    write_outputs(tune, rest, validate=False)
    assert _compare(_trials(rest.out)) == reference

    # Ctrl-C in the middle of trial 4: the trial fails, and is retried on resume
    import rummisim.tune.study as study_module

    real = study_module.play_trial
    calls = {"n": 0}

    def interrupting(tune, params, parallel, workers, on_batch):
        calls["n"] += 1

        def stop(batch, value, tally):
            if calls["n"] == 4:  # as if Ctrl-C came while it played its first batch
                raise KeyboardInterrupt
            on_batch(batch, value, tally)

        return real(tune, params, parallel, workers, stop)

    monkeypatch.setattr(study_module, "play_trial", interrupting)
    _, cut = _study(BOT_STUDY, tmp_path, "cut")
    assert cut.interrupted and cut.finished == 3
    monkeypatch.setattr(study_module, "play_trial", real)
    _, resumed = _study(BOT_STUDY, tmp_path, "cut", resume=True)
    assert resumed.finished == 6
    write_outputs(tune, resumed, validate=False)
    frame = _trials(resumed.out)
    assert list(frame["state"]).count("FAIL") == 1
    assert frame["retry_of"].dropna().tolist() == [3]
    assert _compare(frame) == reference


def test_pruning_stops_clearly_worse_trials(tmp_path, lazy):
    data = {**BOT_STUDY, "space": {"lazy.skill": {"choices": [1, 0]}}, "sampler": "random", "trials": 6}
    tune, result = _study(data, tmp_path)
    write_outputs(tune, result, validate=False)
    frame = _trials(result.out)
    pruned = frame[frame["state"] == "PRUNED"]
    assert len(pruned) >= 1
    assert (pruned["param.lazy.skill"] == 0).all()  # only the bot that never plays is cut short
    assert (pruned["batches"] == 1).all() and (pruned["games"] == tune.games // 2).all()
    complete = frame[frame["state"] == "COMPLETE"]
    assert (complete["batches"] == 2).all()


def test_bot_study_outputs_and_best_yaml_in_an_experiment(tmp_path, lazy):
    tune, result = _study(BOT_STUDY, tmp_path)
    written = write_outputs(tune, result, jobs=1)
    out = result.out
    assert {"trials", "best", "validation", "report"} <= set(written)
    for name in ("study.db", "trials.parquet", "best.yaml", "validation.csv", "report.md"):
        assert (out / name).exists(), name
    assert (out / "charts" / "history.png").exists() and (out / "charts" / "slices.png").exists()
    frame = _trials(out)
    assert list(frame.columns[:4]) == ["number", "state", "value", "params"]
    assert {"intermediate", "batches", "games", "duration_s", "param.lazy.skill"} <= set(frame.columns)

    best = yaml.safe_load((out / "best.yaml").read_text())
    assert best["name"] == "lazy" and set(best["params"]) == {"skill", "bias"}
    experiment = experiment_from_dict(
        {"name": "use-best", "seed": 1, "games": 2, "profiles": ["standard"], "lineups": [[best, "baseline"]]}
    )
    assert experiment.cells[0].lineup[0] == best

    # the validation: the default against the best, on deals the study never played
    validation = pd.read_csv(out / "validation.csv")
    assert validation["measure"].tolist() == ["win rate (share of rounds won)", "mean round score"]
    assert validation["n_pairs"].iloc[0] > 0
    games = pd.read_parquet(out / "validation" / "games.parquet")
    tuned_seeds = {game_seed(tune.seed, deal) for deal in range(tune.deals)}
    assert not tuned_seeds & set(games["seed"])
    report = (out / "report.md").read_text()
    assert "## Validation on fresh deals" in report and "## Parameter importances" in report


def test_rule_study_best_yaml_is_a_profile_extending_the_base(tmp_path):
    tune, result = _study(RULE_STUDY, tmp_path)
    write_outputs(tune, result, jobs=1)
    path = result.out / "best.yaml"
    best = yaml.safe_load(path.read_text())
    assert best["extends"] == "standard"
    profile = load_profile(path)
    params = json.loads(_trials(result.out).sort_values("value").iloc[0]["params"])
    assert profile.initial_meld.threshold == params["initial_meld.threshold"]
    assert profile.rack_size == params["rack_size"]
    experiment = experiment_from_dict(
        {"name": "use-best", "seed": 1, "games": 2, "profiles": [str(path)], "lineups": [["baseline"] * 2]}
    )
    assert experiment.cells[0].profile.rack_size == params["rack_size"]
    measures = pd.read_csv(result.out / "validation.csv")["measure"].tolist()
    assert measures == ["first player's win rate", "turns per round", "objective (fair_first_seat)"]


def test_the_cli_runs_resumes_and_refuses(tmp_path, capsys):
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({**RULE_STUDY, "trials": 2}))
    out = tmp_path / "out"
    args = ["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet", "--no-validate"]
    assert main(args) == 0
    assert (out / "report.md").exists() and (out / "best.yaml").exists()
    capsys.readouterr()
    err = _one_line(capsys, args)  # a second run needs --resume
    assert "is not empty; pass --resume" in err
    assert main([*args, "--resume", "--trials", "3"]) == 0
    assert len(_trials(out)) == 3
    capsys.readouterr()
    path.write_text(yaml.safe_dump({**RULE_STUDY, "seed": 6}))
    assert "started from a different tune file" in _one_line(capsys, [*args, "--resume"])
    assert "--storage: expected a database URL" in _one_line(capsys, [*args, "--storage", "nonsense"])


def _one_line(capsys, args) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def _with(**changes):
    data = json.loads(json.dumps(BOT_STUDY))
    data["bot"], data["opponents"] = "conservative", ["greedy"]
    data["space"] = {"conservative.min_play": {"int": [1, 3]}}
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        (_with(gamez=3), ["unknown key 'gamez'", "valid keys: name"]),
        (
            _with(space={"conservative.min_play": {"int": [5, 1]}}),
            ["space.conservative.min_play", "low 5 is above high 1"],
        ),
        (
            _with(space={"conservative.min_play": {"int": [1]}}),
            ["space.conservative.min_play.int", "expected [low, high]"],
        ),
        (
            _with(space={"conservative.min_play": {"ints": [1, 2]}}),
            ["unknown key 'ints'", "valid keys: int, float"],
        ),
        (_with(space={"conservative.min_play": {"float": [0, 1], "log": True}}), ["log range needs low > 0"]),
        (
            _with(space={"conservative.min_play": {"int": [0, 3]}}),
            ["space.conservative.min_play", "value 0 is refused", "min_play"],
        ),
        (
            _with(space={"conservative.min_plays": {"int": [1, 3]}}),
            ["has no parameter 'min_plays'", "valid parameters: keep_jokers"],
        ),
        (_with(space={"initial_meld.threshold": {"int": [20, 40]}}), ["keys are conservative.PARAM"]),
        (
            _with(objective="fair_first_seat"),
            ["key 'objective'", "fair_first_seat is for rule studies", "win_rate or mean_score"],
        ),
        (_with(objective="wins"), ["unknown objective 'wins'", "win_rate or mean_score"]),
        (_with(sampler="annealing"), ["key 'sampler'", "tpe, cmaes, random, grid"]),
        (_with(pruner={"name": "median", "warmup": 1}), ["unknown key 'pruner.warmup'", "warmup_batches"]),
        (_with(batches=5), ["key 'batches'", "5 batches need at least 5 deals"]),
        (_with(opponents=None), ["missing required key 'opponents'"]),
        (
            {**RULE_STUDY, "space": {"initial_meld.treshold": {"int": [20, 40]}}},
            ["space.initial_meld.treshold", "not a profile key path", "top-level keys: tiles"],
        ),
        (
            {**RULE_STUDY, "space": {"initial_meld.threshold": {"int": [20, 600]}}},
            ["initial_meld.threshold", "600", "less than or equal to 500"],
        ),
        (
            {**RULE_STUDY, "objective": "win_rate"},
            ["unknown objective 'win_rate' for a rule study", "fair_first_seat"],
        ),
        ({**RULE_STUDY, "objective": "fair_first_seat"}, ["objective.target_turns"]),
        (
            {**RULE_STUDY, "space": {"jokers.penalty": {"float": [10, 50]}}},
            ["space.jokers.penalty", "valid integer"],
        ),
    ],
)
def test_bad_tune_files_are_one_line_errors_and_exit_2(tmp_path, capsys, data, fragments):
    with pytest.raises(TuneError) as info:
        tune_from_dict(data, "bad.yaml")
    message = str(info.value)
    assert message.startswith("bad.yaml: ") and "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    err = _one_line(capsys, ["tune", str(path), "--out", str(tmp_path / "out")])
    assert str(path) in err and fragments[0] in err
    assert not (tmp_path / "out").exists()


def test_a_grid_needs_finite_values_and_runs_each_point_once(tmp_path, lazy):
    grid = {**BOT_STUDY, "sampler": "grid", "pruner": "none"}
    with pytest.raises(TuneError, match="grid sampler needs a finite grid"):
        tune_from_dict(grid, "grid.yaml")
    grid["space"] = {"lazy.skill": {"int": [1, 3]}, "lazy.bias": {"float": [1.0, 2.0], "step": 1.0}}
    tune, result = _study(grid, tmp_path)  # 3 x 2 points: the study stops at 6 trials
    assert result.finished == 6 and result.grid_exhausted
    write_outputs(tune, result, validate=False)
    points = {(r["param.lazy.skill"], r["param.lazy.bias"]) for _, r in _trials(result.out).iterrows()}
    assert points == {(s, b) for s in (1, 2, 3) for b in (1.0, 2.0)}


def test_the_built_in_tune_files_load_by_name():
    assert {"conservative", "fair-first-seat"} <= set(builtin_tunes())
    bot = load_tune("conservative")
    assert bot.kind == "bot" and bot.rotations == 4 and bot.objective.direction == "maximize"
    rules = load_tune("fair-first-seat")
    assert rules.kind == "rules" and rules.objective.direction == "minimize"
    assert rules.default_params()["initial_meld.threshold"] == 30
    with pytest.raises(TuneError, match="nor a built-in tune file"):
        load_tune("no-such-study")


@pytest.mark.parametrize(
    ("url", "driver", "package"),
    [
        ("postgresql+psycopg://tuner:secret@db.example/studies", "psycopg", "psycopg[binary]"),
        ("postgresql://tuner:secret@db.example/studies", "psycopg", "psycopg[binary]"),  # SQLAlchemy 2
        ("postgresql+psycopg2://tuner@db.example/studies", "psycopg2", "psycopg2-binary"),
    ],
)
def test_the_tuning_pages_postgresql_urls_parse_with_the_current_driver_names(url, driver, package):
    """The tuning page's ``--storage`` URLs name a driver SQLAlchemy knows (no server needed: the
    dialect loads, its driver is what the page tells to install)."""
    from sqlalchemy.engine import make_url

    from rummisim.tune.study import check_storage, driver_hint, shown_url

    check_storage(url)
    assert make_url(url).get_dialect().driver == driver
    assert package in driver_hint(url)
    assert "secret" not in shown_url(url)
    page = (Path(__file__).resolve().parents[1] / "docs" / "tuning.md").read_text()
    assert "--storage postgresql+psycopg://" in page and 'pip install "psycopg[binary]"' in page


def test_an_unknown_database_driver_is_one_line(tmp_path, capsys):
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(RULE_STUDY))
    args = ["tune", str(path), "--out", str(tmp_path / "out"), "--storage", "postgresql+psycopg4://u@h/db"]
    assert "unknown database or driver 'postgresql+psycopg4'" in _one_line(capsys, args)
    assert not (tmp_path / "out").exists()
