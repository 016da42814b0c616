"""What a study leaves in ``OUT``: ``trials.parquet``, ``best.yaml``, and the validation run of the
best against the default on fresh deals (``validation/``, ``validation.csv``).

- ``trials.parquet``: one row per trial: ``number``, ``state``, ``value`` (the objective; for a
  pruned trial its value at the last batch played, as Optuna records it; null for a failed
  one), ``params`` (JSON), one ``param.KEY`` column per searched key, ``intermediate`` (the
  objective after each batch), ``batches`` and ``games`` played, ``retry_of``, ``started``,
  ``finished`` and ``duration_s``.
- ``best.yaml``: a bot study's best bot as an experiment lineup entry (``{name: ..., params:
  {...}}``); a rule study's best rules as a profile that ``extends:`` the base profile.
- The validation plays two cells on deals from a seed stream the study never used
  (``Tune.validation_seed``) through ``run_experiment``: cell 0 the default (the tuned keys at their
  defaults), cell 1 the best. ``validation.csv`` holds each measure for both, with 95% intervals,
  and the paired difference (best - default; a pair is a deal, averaged over its seat rotations).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from rummisim import stats
from rummisim.report import replace_file
from rummisim.runner import load_results, run_experiment
from rummisim.tune.evaluate import objective_value
from rummisim.tune.spec import Tune, label_params

VALIDATION_DIR = "validation"
# A pair is a deal (and round of a match): the tuned seat's value averaged over the deal's seat
# rotations, so the rotations of one deal, which share its tiles, count as one observation.
PAIRS = ("deal", "round")


# ----- trials.parquet -----------------------------------------------------------------------------


def trials_frame(study: Any, tune: Tune) -> pd.DataFrame:
    """One row per trial of the study (see the module docstring)."""
    rows = []
    per_batch = tune.batch_deals()
    for t in study.get_trials(deepcopy=False):
        steps = sorted(t.intermediate_values)
        played = len(steps)
        games = sum(b - a for a, b in per_batch[:played]) * tune.rotations
        row: dict[str, Any] = {
            "number": t.number,
            "state": t.state.name,
            "value": t.value,
            "params": json.dumps(t.params, sort_keys=True),
        }
        row.update({f"param.{key}": t.params.get(key) for key in tune.keys})
        row.update(
            intermediate=[float(t.intermediate_values[s]) for s in steps],
            batches=played,
            games=games,
            retry_of=t.user_attrs.get("retry_of"),
            started=t.datetime_start,
            finished=t.datetime_complete,
            duration_s=(t.datetime_complete - t.datetime_start).total_seconds()
            if t.datetime_complete and t.datetime_start
            else None,
        )
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["number"] = frame["number"].astype("int32")
    frame["batches"] = frame["batches"].astype("int32")
    frame["games"] = frame["games"].astype("int64")
    frame["retry_of"] = frame["retry_of"].astype("Int32")
    frame["value"] = frame["value"].astype("float64")
    return frame


def write_trials(frame: pd.DataFrame, out: Path) -> Path:
    path = out / "trials.parquet"
    replace_file(path, lambda tmp: frame.to_parquet(tmp, index=False))
    return path


# ----- best.yaml ----------------------------------------------------------------------------------


def best_data(tune: Tune, params: dict[str, Any], out: Path) -> dict[str, Any]:
    """The best trial as data an experiment takes: a lineup entry, or a profile extending the base."""
    if tune.kind == "bot":
        return tune.tuned_spec(params)
    entry = tune.profile_entry(params, f"{tune.name}-best")
    base = entry["base"]
    if base.endswith((".yaml", ".yml")) or Path(base).exists():  # a file: relative to best.yaml
        where = Path(base) if Path(base).is_absolute() else (tune.base_dir or Path(".")) / base
        base = os.path.relpath(where.resolve(), out.resolve())
    return {
        "name": entry["name"],
        "description": f"rummisim tune {tune.name}: the best rules found ({label_params(params)})",
        "extends": base,
        **entry["overrides"],
    }


def write_best(tune: Tune, study: Any, out: Path) -> Path | None:
    """``best.yaml`` with a comment saying where it came from; None when no trial completed."""
    trial = best_trial(study)
    if trial is None:
        return None
    data = best_data(tune, dict(trial.params), out)
    how = (
        "an experiment lineup entry, e.g. lineups: [[<this>, greedy, greedy, greedy]]"
        if tune.kind == "bot"
        else "a profile: rummisim play --profile best.yaml, or profiles: [path/to/best.yaml]"
    )
    header = (
        f"# rummisim tune {tune.name}: trial {trial.number}, {tune.objective.name} {trial.value:.4f} "
        f"over {tune.games} games\n# Use it as {how}\n"
    )
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=False)
    path = out / "best.yaml"
    replace_file(path, lambda tmp: tmp.write_text(header + body))
    return path


def best_trial(study: Any) -> Any:
    try:
        return study.best_trial
    except ValueError:  # no complete trial
        return None


# ----- the validation run -------------------------------------------------------------------------


def validate(
    tune: Tune, study: Any, out: Path, *, jobs: int, backend: str, scheduler: str | None
) -> pd.DataFrame | None:
    """Play the best against the default on fresh deals; write and return ``validation.csv``.

    None when no trial completed. A previous validation run of the same experiment is reused; one
    of another best (the study went on) is replaced.
    """
    trial = best_trial(study)
    if trial is None:
        return None
    experiment = tune.validation_experiment(dict(trial.params))
    folder = out / VALIDATION_DIR
    manifest = folder / "manifest.json"
    resume = False
    if manifest.exists():
        try:
            saved = json.loads(manifest.read_text()).get("experiment")
        except (OSError, ValueError):
            saved = None
        if saved == json.loads(json.dumps(experiment.to_dict(), default=str)):
            resume = True
        else:
            shutil.rmtree(folder)
    elif folder.exists():
        shutil.rmtree(folder)
    if len(experiment.cells) < 2:  # the best is the default: one cell, nothing to compare
        frame = pd.DataFrame([{"measure": "best is the default", "n_pairs": 0}])
    else:
        played = run_experiment(
            experiment, folder, jobs=jobs, resume=resume, backend=backend, scheduler=scheduler,
            progress=False, summarize=True,
        )  # fmt: skip
        if played.interrupted:  # its finished chunks are kept: the next run resumes it
            raise KeyboardInterrupt
        data = load_results(folder)
        frame = validation_table(tune, data["games"], data["seats"])
    frame.to_csv(out / "validation.csv", index=False)
    return frame


def validation_table(tune: Tune, games: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """Each measure for the default (cell 0) and the best (cell 1) with intervals, and the paired
    difference best - default with its interval and p."""
    games, seats = stats.completed(games, seats)
    rows = []
    if tune.kind == "bot":
        tuned = seats[seats["slot"] == 0]
        rows.append(_paired_row("win rate (share of rounds won)", tuned, "won", rate=True))
        rows.append(_paired_row("mean round score", tuned, "score"))
    else:
        games = games.assign(first_won=(games["winner"] == games["first_player"]).astype(float))
        rows.append(_paired_row("first player's win rate", games, "first_won", rate=True))
        rows.append(_paired_row("turns per round", games, "turns"))
        rows.append(_objective_row(tune, games))
    return pd.DataFrame(rows)


def _paired_row(measure: str, frame: pd.DataFrame, value: str, rate: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {"measure": measure}
    for cell, name in ((0, "default"), (1, "best")):
        sample = frame.loc[frame["cell"] == cell, value].astype(float).to_numpy()
        mean = float(sample.mean()) if sample.size else np.nan
        if rate:
            low, high = stats.wilson_interval(int(sample.sum()), int(sample.size))
        else:
            low, high = stats.bootstrap_ci(sample, seed=0)
        row.update({name: mean, f"{name}_low": low, f"{name}_high": high})
    diff = stats.paired_difference(frame, value, 0, 1, on=PAIRS)
    row.update(
        diff=diff["diff"], diff_low=diff["diff_low"], diff_high=diff["diff_high"],
        p_value=diff["p_value"], n_pairs=diff["n_pairs"], method="paired t",
    )  # fmt: skip
    return row


def _objective_row(tune: Tune, games: pd.DataFrame) -> dict[str, Any]:
    """The objective in each cell, and a paired bootstrap interval of its difference: deals are
    resampled, and both cells' sums are taken over the same resampled deals."""
    players = int(games["n_players"].max())
    sums = (
        games.groupby(["cell", "deal"])
        .agg(rounds=("turns", "size"), wins=("first_won", "sum"), turns=("turns", "sum"))
        .unstack("cell")
    ).dropna()
    arrays = {c: {k: sums[(k, c)].to_numpy(dtype=float) for k in ("rounds", "wins", "turns")} for c in (0, 1)}

    def value(cell: int, idx: Any = None, axis: int | None = None) -> Any:
        a = arrays[cell]
        pick = (lambda x: x) if idx is None else (lambda x: x[idx])
        total = {k: pick(v).sum(axis=axis) for k, v in a.items()}
        return objective_value(tune.objective, total["rounds"], total["wins"], 0, total["turns"], players)

    def difference(idx: np.ndarray, axis: int | None = None) -> Any:
        idx = np.asarray(idx, dtype=int)
        return value(1, idx, axis) - value(0, idx, axis)

    row: dict[str, Any] = {"measure": f"objective ({tune.objective.name})"}
    n = len(sums)
    for cell, name in ((0, "default"), (1, "best")):
        low, high = stats.bootstrap_ci(
            np.arange(n), stat=lambda i, axis=None, c=cell: value(c, np.asarray(i, dtype=int), axis), seed=0
        )
        row.update({name: value(cell), f"{name}_low": low, f"{name}_high": high})
    low, high = stats.bootstrap_ci(np.arange(n), stat=difference, seed=0)
    row.update(
        diff=value(1) - value(0), diff_low=low, diff_high=high, p_value=np.nan, n_pairs=n,
        method="paired bootstrap over deals",
    )  # fmt: skip
    return row
