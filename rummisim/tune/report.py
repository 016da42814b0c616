"""A study's ``report.md`` and its charts (``charts/*.png``): the optimisation history, the objective
batch by batch (where the pruner stopped trials), parameter importances and one slice chart per
searched key, plus the best trial and its validation on fresh deals.

The charts follow ``rummisim.plots``: figures built without pyplot, the Okabe-Ito palette, saved
with ``plots.save``; a chart without data is skipped with a note. Importances come from
``optuna.importance`` (PED-ANOVA) and need ``MIN_IMPORTANCE_TRIALS`` complete trials.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rummisim import plots
from rummisim.bots import bot_label
from rummisim.tune import outputs
from rummisim.tune.spec import Tune, format_value, label_params

CHART_DIR = "charts"
MIN_IMPORTANCE_TRIALS = 5


def importances(study: Any, tune: Tune) -> tuple[dict[str, float] | None, str]:
    """Parameter importances of the complete trials, or None and why not."""
    import optuna
    from optuna.trial import TrialState

    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if len(complete) < MIN_IMPORTANCE_TRIALS:
        return (
            None,
            f"too few complete trials for importances ({len(complete)}; {MIN_IMPORTANCE_TRIALS} needed)",
        )
    if len(tune.space) < 2:
        return {tune.keys[0]: 1.0}, "one searched key"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            evaluator = optuna.importance.PedAnovaImportanceEvaluator()
            found = optuna.importance.get_param_importances(study, evaluator=evaluator)
    except (ValueError, RuntimeError, ZeroDivisionError) as exc:
        return None, f"importances could not be computed: {str(exc).splitlines()[0][:120]}"
    how = (
        "PED-ANOVA (optuna.importance): how much each key decides whether a trial reaches the best "
        "10% of the complete trials (a key that only separates the bad trials from the rest can "
        "score low; the slice charts show those)"
    )
    return {k: float(found.get(k, 0.0)) for k in tune.keys}, how


# ----- charts -------------------------------------------------------------------------------------


def plot_history(trials: pd.DataFrame, tune: Tune) -> Figure:
    """Each trial's objective (a pruned trial at its last batch), and the best so far."""
    if trials.empty or not trials["state"].isin(["COMPLETE", "PRUNED"]).any():
        raise plots.NoData("history: no finished trial")
    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.add_subplot()
    done = trials[trials["state"] == "COMPLETE"]
    pruned = trials[trials["state"] == "PRUNED"]
    ax.plot(done["number"], done["value"], "o", color=plots.colour(0), label="complete")
    last = [v[-1] if len(v) else np.nan for v in pruned["intermediate"]]
    ax.plot(pruned["number"], last, "x", color=plots.colour(3), label="pruned (value at its last batch)")
    if not done.empty:
        best = done["value"].cummax() if tune.objective.direction == "maximize" else done["value"].cummin()
        ax.step(done["number"], best, where="post", color=plots.colour(2), label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel(tune.objective.name)
    ax.set_title(f"Optimisation history: {tune.name}")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, frameon=False)
    return fig


def plot_batches(trials: pd.DataFrame, tune: Tune) -> Figure:
    """The objective after each batch, one line per trial: pruned trials stop early."""
    finished = trials[trials["state"].isin(["COMPLETE", "PRUNED"])]
    if finished.empty or tune.batches < 2:
        raise plots.NoData("batches: no finished trial, or a single batch per trial")
    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.add_subplot()
    for state, index in (("COMPLETE", 0), ("PRUNED", 3)):
        part = finished[finished["state"] == state]
        for i, values in enumerate(part["intermediate"]):
            label = f"{state.lower()} ({len(part)})" if i == 0 else None
            x = np.arange(1, len(values) + 1)
            ax.plot(x, values, "-o", ms=3, lw=1, alpha=0.6, color=plots.colour(index), label=label)
    ax.set_xticks(range(1, tune.batches + 1))
    ax.set_xlabel(f"batch (of {tune.batches}, about {tune.games / tune.batches:.0f} games each)")
    ax.set_ylabel(f"{tune.objective.name} so far")
    ax.set_title("The objective batch by batch (what the pruner sees)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    return fig


def plot_slices(trials: pd.DataFrame, tune: Tune) -> Figure:
    """The objective of each complete trial against each searched key (colour: trial number)."""
    done = trials[trials["state"] == "COMPLETE"]
    if done.empty:
        raise plots.NoData("slices: no complete trial")
    n = len(tune.space)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(3.6 * cols, 3.2 * rows + 0.6), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    scatter = None
    for i, dim in enumerate(tune.space):
        ax = axes[i // cols][i % cols]
        values = done[f"param.{dim.key}"]
        if dim.kind == "choices":
            labels = [format_value(c) for c in dim.choices]
            x = np.array([labels.index(format_value(v)) for v in values], dtype=float)
            ax.set_xticks(range(len(labels)), labels)
        else:
            x = values.to_numpy(dtype=float)
            if dim.log:
                ax.set_xscale("log")
        scatter = ax.scatter(x, done["value"], c=done["number"], cmap="cividis", s=22, edgecolors="none")
        ax.set_xlabel(plots.wrap_label(dim.key, 30))
        ax.grid(alpha=0.3)
        if i % cols == 0:
            ax.set_ylabel(tune.objective.name)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    if scatter is not None:
        fig.colorbar(scatter, ax=axes.ravel().tolist(), label="trial", shrink=0.8)
    fig.suptitle("Slices: the objective against each searched key")
    return fig


def plot_importances(found: dict[str, float] | None) -> Figure:
    if not found:
        raise plots.NoData("importances: not computed")
    keys = list(found)[::-1]
    fig = Figure(figsize=(7, max(2.5, 1.2 + 0.45 * len(keys))), layout="constrained")
    ax = fig.add_subplot()
    ax.barh(range(len(keys)), [found[k] for k in keys], color=plots.colour(0))
    ax.set_yticks(range(len(keys)), [plots.wrap_label(k, 30) for k in keys])
    ax.set_xlabel("importance (share, PED-ANOVA)")
    ax.set_xlim(0, 1)
    ax.grid(axis="x", alpha=0.3)
    return fig


# ----- report.md ----------------------------------------------------------------------------------


def _num(value: Any, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _interval(row: pd.Series, stem: str, percent: bool) -> str:
    scale, unit, digits = (100.0, "%", 1) if percent else (1.0, "", 2)
    value, low, high = row[stem], row[f"{stem}_low"], row[f"{stem}_high"]
    if pd.isna(value):
        return "–"
    return f"{scale * value:.{digits}f}{unit} [{scale * low:.{digits}f}, {scale * high:.{digits}f}]"


def _diff(row: pd.Series, percent: bool) -> str:
    scale, unit, digits = (100.0, " pp", 1) if percent else (1.0, "", 2)
    if pd.isna(row["diff"]):
        return "–"
    low, high = scale * row["diff_low"], scale * row["diff_high"]
    text = f"{scale * row['diff']:+.{digits}f}{unit} [{low:.{digits}f}, {high:.{digits}f}]"
    p = row.get("p_value")
    if p is not None and not pd.isna(p):
        text += f", p {'< 0.001' if p < 0.001 else f'= {p:.3f}'}"
    return text


def validation_lines(tune: Tune, validation: pd.DataFrame | None) -> list[str]:
    if validation is None:
        return ["No trial completed, so there is no best to validate."]
    if "diff" not in validation.columns:
        return ["The best trial's parameters are the defaults: nothing to compare."]
    default = "the default" if tune.kind == "bot" else "the base profile"
    lines = [
        f"The best against {default} on {tune.validation_games} fresh games per cell: deals from a seed "
        "stream the study never played (no winner's curse), paired by deal (each averaged over its "
        "seat rotations). 95% intervals: Wilson for rates, bootstrap for means, paired t over deals "
        "(a paired bootstrap over deals for the objective) for the change.",
        "",
        f"| measure | {default} | best | change (best - default) |",
        "| --- | --- | --- | --- |",
    ]
    for _, row in validation.iterrows():
        percent = "rate" in str(row["measure"])
        lines.append(
            f"| {row['measure']} | {_interval(row, 'default', percent)} | {_interval(row, 'best', percent)} "
            f"| {_diff(row, percent)} |"
        )
    return lines


def write_report(
    tune: Tune,
    study: Any,
    trials: pd.DataFrame,
    out: Path,
    *,
    validation: pd.DataFrame | None,
    storage: str,
) -> Path:
    """Write ``report.md`` and ``charts/*.png``; return the report's path."""
    charts = out / CHART_DIR
    found, how = importances(study, tune)
    notes: list[str] = []
    drawn: dict[str, str] = {}
    for name, draw in (
        ("history", lambda: plot_history(trials, tune)),
        ("batches", lambda: plot_batches(trials, tune)),
        ("importances", lambda: plot_importances(found)),
        ("slices", lambda: plot_slices(trials, tune)),
    ):
        try:
            fig = draw()
        except plots.NoData as exc:
            notes.append(f"- {name}: skipped ({exc})")
            continue
        plots.save(fig, charts / f"{name}.png")
        drawn[name] = f"{CHART_DIR}/{name}.png"

    counts = {str(k): int(v) for k, v in trials["state"].value_counts().items()} if not trials.empty else {}
    games = int(trials["games"].sum()) if not trials.empty else 0
    busy = float(trials["duration_s"].sum()) if not trials.empty else 0.0
    lines = [f"# Tuning study `{tune.name}`", ""]
    if tune.description:
        lines += [tune.description, ""]
    kind = (
        f"bot study: `{bot_label(tune.bot)}` against "
        f"{', '.join(f'`{bot_label(b)}`' for b in tune.lineup)}, seats rotated"
        if tune.kind == "bot"
        else f"rule study: lineup {', '.join(f'`{bot_label(b)}`' for b in tune.lineup)}"
    )
    profile = tune.base_profile.name if tune.base_profile is not None else "?"
    lines += [
        f"- {kind}; profile `{profile}`",
        f"- objective: {tune.objective.describe()}",
        f"- every trial plays the same {tune.deals} deals x {tune.rotations} seat rotation(s) = {tune.games} "
        f"games in {tune.batches} batches (seed {tune.seed})",
        f"- sampler `{tune.sampler.name}`, pruner `{tune.pruner.name}`; storage `{storage}`",
        f"- trials: {', '.join(f'{v} {k.lower()}' for k, v in sorted(counts.items())) or 'none'}; "
        f"{games} games played; the trials took {busy:.0f} s in all",
        "",
        "## Search space",
        "",
        "| key | range | default |",
        "| --- | --- | --- |",
    ]
    defaults = tune.default_params()
    lines += [f"| `{d.key}` | {d.describe()} | {format_value(defaults[d.key])} |" for d in tune.space]
    lines += ["", "## Best trial", ""]
    done = trials[trials["state"] == "COMPLETE"] if not trials.empty else trials
    best = outputs.best_trial(study)
    if best is None:
        lines.append("No trial completed.")
    else:
        lines += [
            f"Trial {best.number}: {tune.objective.name} **{best.value:.4f}** with "
            f"{label_params(best.params)} (see `best.yaml`).",
            "",
        ]
        ascending = tune.objective.direction == "minimize"
        top = done.sort_values("value", ascending=ascending).head(10)
        lines += [
            "| trial | " + " | ".join(f"`{k}`" for k in tune.keys) + f" | {tune.objective.name} |",
            "| --- | " + " | ".join("---" for _ in tune.keys) + " | --- |",
        ]
        for _, row in top.iterrows():
            values = " | ".join(format_value(row[f"param.{k}"]) for k in tune.keys)
            lines.append(f"| {row['number']} | {values} | {row['value']:.4f} |")
    lines += ["", "## Validation on fresh deals", ""]
    lines += validation_lines(tune, validation)
    lines += ["", "## Parameter importances", ""]
    if found:
        lines += [f"{how}:", ""] + [
            f"- `{k}`: {v:.2f}" for k, v in sorted(found.items(), key=lambda kv: -kv[1])
        ]
    else:
        lines.append(f"Not shown: {how}.")
    lines += ["", "## Charts", ""]
    lines += [f"![{name}]({path})" for name, path in drawn.items()]
    if notes:
        lines += ["", *notes]
    path = out / "report.md"
    tmp = path.with_name(".report.md.tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path
