"""Charts of the results tables: matplotlib figures for reports and notebooks.

Every ``plot_*`` function takes a table from `rummisim.stats` (or the runner's raw table, for
distributions) and returns a ``matplotlib.figure.Figure``. Figures are built without pyplot, so they
work under any backend (Agg included), hold no global state and are freed with their last reference.
In a notebook, run ``%matplotlib inline`` once; a returned figure then displays as the cell's value.
Only `save` writes a file.

A chart whose data is missing (no sweep, no match profile, no rows) raises `NoData`, so a report can
skip it with the exception's message as its note.

Colours are the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies);
heatmaps use ``cividis``. Long cell labels are wrapped at separators and drawn on horizontal axes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from rummisim.schema import EndReason
from rummisim.stats import completed

#: Okabe & Ito (2008), "Color Universal Design", without yellow first (poor contrast on white).
OKABE_ITO: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#56B4E9",  # sky blue
    "#CC79A7",  # reddish purple
    "#000000",  # black
    "#F0E442",  # yellow
)

_MPL_HORIZONTAL_BOXPLOT = tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 10)


class NoData(LookupError):
    """A chart's data is not in the tables (e.g. no sweep or no match profile); the message says why."""


def colour(index: int) -> str:
    """The ``index``-th colour of the palette (cycling)."""
    return OKABE_ITO[index % len(OKABE_ITO)]


def wrap_label(text: Any, width: int = 28) -> str:
    """Wrap a label over lines of about ``width`` characters.

    Lines break at spaces; a word longer than a line breaks after one of ``, = . ; /``, never inside
    a name, so ``initial_meld.threshold=40`` keeps ``initial_meld.`` and ``threshold=40`` whole.
    """
    tokens = []
    for word in re.split(r"(?<= )", str(text)):
        # cut inside a word (after a separator) only where the word alone is too long for a line
        tokens += [t for t in re.split(r"(?<=[,=.;/])", word) if t] if len(word.rstrip()) > width else [word]
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + len(token.rstrip()) > width:
            lines.append(line.rstrip())
            line = token.lstrip()
        else:
            line += token
    lines.append(line.rstrip())
    return "\n".join(lines)


def save(fig: Figure, path: str | Path, dpi: int = 150) -> Path:
    """Write a figure (format from the suffix, e.g. ``.png``), creating the folder; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return path


# ---------------------------------------------------------------------------------------------------
# Helpers


def _require(frame: pd.DataFrame | None, columns: Sequence[str], chart: str) -> pd.DataFrame:
    if frame is None or frame.empty:
        raise NoData(f"{chart}: no rows to draw")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise NoData(f"{chart}: the table has no column(s) {missing}")
    return frame


def _cell_labels(frame: pd.DataFrame, label_column: str) -> pd.Series:
    """Label per cell (``cell`` -> text), in cell order."""
    if label_column in frame.columns:
        labels = frame.drop_duplicates("cell").set_index("cell")[label_column].astype(str)
    else:
        cells = pd.unique(frame["cell"])
        labels = pd.Series([f"cell {c}" for c in cells], index=cells)
    return labels.sort_index()


def _figure(labels: Sequence[str], series: int = 1, width: float = 8.0) -> Figure:
    """A figure tall enough for one row per label, each fitting its wrapped lines and dodged markers."""
    rows = sum(max(wrap_label(label).count("\n") + 1, 0.6 * series, 1.5) for label in labels)
    return Figure(figsize=(width, max(3.0, 1.8 + 0.22 * rows)), layout="constrained")


def _legend(fig: Figure, ax: Axes, title: str | None = None) -> None:
    """The axes' legend below the plot, where it can never cover data."""
    handles, labels = ax.get_legend_handles_labels()
    # the data series first, reference lines (fair share) after them
    order = sorted(range(len(labels)), key=lambda i: labels[i].startswith("fair share"))
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(handles), 3),
                   fontsize="small", frameon=False, title=title)  # fmt: skip


def _row_axis(ax: Axes, labels: Sequence[str]) -> np.ndarray:
    """Rows top to bottom on the y axis, with wrapped labels; returns their y positions."""
    y = np.arange(len(labels))[::-1].astype(float)
    ax.set_yticks(y, [wrap_label(label) for label in labels])
    ax.set_ylim(-0.6, len(labels) - 0.4)
    return y


def _ordinal(i: int) -> str:
    n = i + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _errors(frame: pd.DataFrame, rate: str, low: str, high: str) -> np.ndarray:
    return np.vstack(
        [
            (frame[rate] - frame[low]).clip(lower=0).to_numpy(dtype=float),
            (frame[high] - frame[rate]).clip(lower=0).to_numpy(dtype=float),
        ]
    )


def _dodged_rates(
    ax: Axes,
    frame: pd.DataFrame,
    series: str,
    series_label: Any,
    labels: pd.Series,
    rate: str = "rate",
    low: str = "low",
    high: str = "high",
) -> np.ndarray:
    """Rates with interval whiskers: one row per cell, one dodged marker per series value."""
    y = _row_axis(ax, list(labels))
    row_of = dict(zip(labels.index, y, strict=True))
    values = sorted(pd.unique(frame[series]), key=lambda v: (str(type(v)), v))
    width = 0.7
    step = width / max(1, len(values))
    for i, value in enumerate(values):
        part = frame[frame[series] == value]
        offset = -width / 2 + step * (i + 0.5)
        # rows top to bottom, series in legend order from the top of each row
        ys = np.array([row_of[c] for c in part["cell"]]) - offset
        ax.errorbar(
            part[rate].to_numpy(dtype=float),
            ys,
            xerr=_errors(part, rate, low, high),
            fmt="o",
            color=colour(i),
            markersize=5,
            capsize=3,
            label=series_label(value),
        )
    return y


def _fair_share_line(ax: Axes, frame: pd.DataFrame, labels: pd.Series, y: np.ndarray) -> None:
    if "fair_share" not in frame.columns or frame["fair_share"].isna().all():
        return
    per_cell = frame.groupby("cell")["fair_share"].mean().reindex(labels.index)
    if per_cell.nunique() == 1:
        share = float(per_cell.iloc[0])
        ax.axvline(share, color="0.35", linestyle="--", linewidth=1, label=f"fair share ({share:.0%})")
    else:
        ax.vlines(
            per_cell.to_numpy(dtype=float),
            y - 0.45,
            y + 0.45,
            colors="0.35",
            linestyles="--",
            linewidth=1,
            label="fair share (1 / players)",
        )


def _rate_axis(ax: Axes, xlabel: str) -> None:
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)


# ---------------------------------------------------------------------------------------------------
# Charts


def plot_seat_win_rates(
    seat_rates: pd.DataFrame, position: str = "order", label_column: str = "cell_label"
) -> Figure:
    """Win rate by play-order position (or seat) per cell: the first-seat advantage.

    Args:
        seat_rates: `rummisim.stats.seat_win_rates` grouped by ``("cell", "cell_label")``: columns
            ``cell``, ``position``, ``rate``, ``low``, ``high`` and optionally ``fair_share`` (drawn
            as a dashed line) and ``label_column``.
        position: ``"order"`` (0 = played first) or ``"seat"``.

    Raises:
        NoData: no rows or missing columns.
    """
    frame = _require(seat_rates, ["cell", position, "rate", "low", "high"], "seat win rates")
    labels = _cell_labels(frame, label_column)
    fig = _figure(list(labels), frame[position].nunique())
    ax = fig.subplots()
    name = (lambda v: f"{_ordinal(int(v))} to play") if position == "order" else (lambda v: f"{position} {v}")
    y = _dodged_rates(ax, frame, position, name, labels)
    _fair_share_line(ax, frame, labels, y)
    _rate_axis(ax, "Win rate (% of rounds, 95% Wilson interval)")
    ax.set_title("Win rate by play order" if position == "order" else f"Win rate by {position}")
    _legend(fig, ax)
    return fig


def plot_win_rates(bot_rates: pd.DataFrame, label_column: str = "cell_label") -> Figure:
    """Win rate of each bot per cell with Wilson intervals and the fair share.

    Args:
        bot_rates: `rummisim.stats.summary_bots` (``win_rate``, ``win_low``, ``win_high``) or
            `rummisim.stats.win_rates` by ``("cell", "bot_label")`` (``rate``, ``low``, ``high``).
    """
    rate, low, high = _rate_columns(bot_rates)
    frame = _require(bot_rates, ["cell", "bot_label", rate, low, high], "bot win rates")
    labels = _cell_labels(frame, label_column)
    fig = _figure(list(labels), frame["bot_label"].nunique())
    ax = fig.subplots()
    y = _dodged_rates(ax, frame, "bot_label", str, labels, rate, low, high)
    _fair_share_line(ax, frame, labels, y)
    _rate_axis(ax, "Win rate (% of seat rounds, 95% Wilson interval)")
    ax.set_title("Win rate per bot")
    _legend(fig, ax)
    return fig


def plot_distribution(
    frame: pd.DataFrame,
    column: str,
    xlabel: str,
    title: str,
    label_column: str = "cell_label",
) -> Figure:
    """Horizontal box plots of a numeric column per cell, with the mean as a diamond.

    Boxes span the quartiles around the median; whiskers reach the 5th and 95th percentiles
    (outliers are not drawn: with thousands of rounds they would hide the boxes).

    Raises:
        NoData: no rows, a missing column, or no non-missing value.
    """
    frame = _require(frame, ["cell", column], title)
    values = frame[["cell"]].copy()
    values["_v"] = (
        pd.to_numeric(frame[column], errors="coerce").astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    )
    values = values.dropna(subset=["_v"])
    if values.empty:
        raise NoData(f"{title}: no value of {column!r} to draw")
    labels = _cell_labels(frame, label_column)
    labels = labels[labels.index.isin(values["cell"].unique())]
    data = [values.loc[values["cell"] == c, "_v"].to_numpy() for c in labels.index]
    fig = _figure(list(labels), 2)
    ax = fig.subplots()
    y = _row_axis(ax, list(labels))
    orientation = {"orientation": "horizontal"} if _MPL_HORIZONTAL_BOXPLOT else {"vert": False}
    ax.boxplot(
        data,
        positions=y,
        widths=0.55,
        whis=(5, 95),
        showfliers=False,
        patch_artist=True,
        boxprops={"facecolor": colour(4), "alpha": 0.6},
        medianprops={"color": colour(6)},
        **orientation,
    )
    ax.set_yticks(y, [wrap_label(label) for label in labels])
    ax.plot([d.mean() for d in data], y, "D", color=colour(3), markersize=6, label="mean", linestyle="none")
    ax.plot([], [], color=colour(6), label="median (box: quartiles, whiskers: 5th-95th pct.)")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    _legend(fig, ax)
    return fig


def plot_turns(games: pd.DataFrame, label_column: str = "cell_label") -> Figure:
    """Distribution of turns per round per cell (rounds that ended in a fault are left out)."""
    frame = _require(games, ["cell", "turns"], "turns per round")
    if "end_reason" in frame.columns:
        frame = frame[frame["end_reason"] != EndReason.FAULT]
    return plot_distribution(
        frame, "turns", "Turns per round (all seats' turns)", "Turns per round", label_column
    )


def plot_points_left(
    seats: pd.DataFrame, games: pd.DataFrame | None = None, label_column: str = "cell_label"
) -> Figure:
    """Distribution of points left on losing racks per cell.

    Uses the seat rows with ``won == False``; with ``games``, rounds that ended in a fault are left
    out.
    """
    frame = _require(seats, ["cell", "won", "points_left"], "points left on losing racks")
    if games is not None:
        frame = completed(games, frame)[1]
        assert frame is not None
    losers = frame[~frame["won"].astype(bool)]
    return plot_distribution(
        losers,
        "points_left",
        "Points left on a losing rack (tile values, joker as scored)",
        "Points left on losing racks",
        label_column,
    )


def plot_forest(
    comparisons: pd.DataFrame,
    xlabel: str = "Difference vs baseline (cell - baseline)",
    title: str | None = None,
    label_column: str = "cell_label",
    group: str | None = None,
    percent: bool = False,
    baseline_label: str | None = None,
) -> Figure:
    """Forest plot of paired differences against a baseline, with their intervals and a zero line.

    Args:
        comparisons: `rummisim.stats.compare_cells` output: ``cell``, ``diff``, ``diff_low``,
            ``diff_high``, optionally ``p_value``, ``baseline_cell`` and ``label_column``. Rows
            without pairs are left out.
        group: a column (e.g. ``"bot"``) whose values get separate, dodged markers.
        percent: the differences are of proportions; show them in percentage points.
        baseline_label: names the baseline in the default title (else ``cell <baseline_cell>``).

    Raises:
        NoData: no comparison with at least one pair.
    """
    frame = _require(comparisons, ["cell", "diff", "diff_low", "diff_high"], "paired differences")
    frame = frame.dropna(subset=["diff"])
    if frame.empty:
        raise NoData("paired differences: no cell shares deals with the baseline")
    labels = _cell_labels(frame, label_column)
    scale = 100.0 if percent else 1.0
    shown = frame.assign(
        rate=frame["diff"] * scale,
        low=frame["diff_low"].fillna(frame["diff"]) * scale,
        high=frame["diff_high"].fillna(frame["diff"]) * scale,
        _series=frame[group] if group else "difference",
    )
    fig = _figure(list(labels), shown["_series"].nunique(), width=9.0)
    ax = fig.subplots()
    y = _dodged_rates(ax, shown, "_series", str, labels)
    ax.axvline(0.0, color="0.35", linestyle="--", linewidth=1)
    if not group and "p_value" in frame.columns:
        row_of = dict(zip(labels.index, y, strict=True))
        transform = ax.get_yaxis_transform()
        for _, row in shown.iterrows():
            ax.text(
                1.01,
                row_of[row["cell"]],
                f"{row['rate']:+.3g} [{row['low']:.3g}, {row['high']:.3g}]\n{_p_text(row['p_value'])}",
                transform=transform,
                va="center",
                fontsize="x-small",
            )
    ax.set_xlabel(xlabel + (" (percentage points)" if percent else "") + ", 95% interval")
    ax.grid(axis="x", alpha=0.3)
    if title is None:
        title = "Paired difference vs baseline"
        if baseline_label is not None:
            title += f": {baseline_label}"
        elif "baseline_cell" in frame.columns:
            title += f": cell {frame['baseline_cell'].iloc[0]}"
    ax.set_title(title)
    if group:
        _legend(fig, ax, title=group)
    return fig


def _p_text(p: float) -> str:
    if p is None or np.isnan(p):
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _rate_columns(frame: pd.DataFrame | None) -> tuple[str, str, str]:
    if frame is not None and "win_rate" in frame.columns:
        return "win_rate", "win_low", "win_high"
    return "rate", "low", "high"


def _swept_keys(frame: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    return [k for k in keys if k in frame.columns and frame[k].nunique(dropna=False) > 1]


def _choose_bot(frame: pd.DataFrame, bot: str | None) -> pd.DataFrame:
    """The rows of one bot: the one named, else the only one, else the one whose label the sweep changes."""
    name = "bot" if "bot" in frame.columns else "bot_label"
    if bot is not None:
        chosen = frame[(frame[name] == bot) | (frame["bot_label"] == bot)]
        if chosen.empty:
            raise NoData(f"sweep: no row for bot {bot!r}; bots: {sorted(frame[name].unique())}")
        return chosen
    names = sorted(frame[name].unique())
    if len(names) > 1:
        swept = [n for n in names if frame.loc[frame[name] == n, "bot_label"].nunique() > 1]
        names = swept or names
    return frame[frame[name] == names[0]]


def plot_sweep(
    bot_rates: pd.DataFrame,
    keys: Sequence[str],
    bot: str | None = None,
) -> Figure:
    """Win rate against the swept parameter(s).

    One swept key: a line with a 95% band per bot (or only ``bot``), and the fair share dashed.
    Two swept keys: a heatmap of one bot's win rate (``bot``; by default the only bot, else the
    bot whose label the sweep changes), each cell annotated with its rate and interval. Keys that
    take a single value are ignored.

    Args:
        bot_rates: `rummisim.stats.summary_bots` output with the sweep key columns (or
            `rummisim.stats.win_rates` grouped by ``cell``, ``bot_label`` and the keys).
        keys: the experiment's sweep keys.
        bot: a bot name (``bot``) or label (``bot_label``).

    Raises:
        NoData: no sweep (no key varies), more than two swept keys, or no rows.
        ValueError: several rows for one bot and one parameter value (filter the table first).
    """
    rate, low, high = _rate_columns(bot_rates)
    frame = _require(bot_rates, ["bot_label", rate, low, high], "sweep")
    swept = _swept_keys(frame, keys)
    if not swept:
        raise NoData("sweep: the experiment has no parameter sweep")
    if len(swept) > 2:
        raise NoData(f"sweep: {len(swept)} swept parameters {swept}; a chart shows one or two")
    series = "bot" if "bot" in frame.columns else "bot_label"
    if len(swept) == 2 or bot is not None:
        frame = _choose_bot(frame, bot)
    duplicated = frame.duplicated([series, *swept])
    if duplicated.any():
        raise ValueError(
            f"sweep: several rows per {series} and {swept} (other cell dimensions vary); filter the table"
        )
    if len(swept) == 1:
        return _sweep_line(frame, swept[0], series, rate, low, high)
    return _sweep_heatmap(frame, swept[0], swept[1], rate, low, high)


def _sweep_line(frame: pd.DataFrame, key: str, series: str, rate: str, low: str, high: str) -> Figure:
    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    ax = fig.subplots()
    levels = sorted(frame[key].unique())
    numeric = all(isinstance(v, int | float | np.integer | np.floating) for v in levels)
    position = dict(zip(levels, levels if numeric else range(len(levels)), strict=True))
    for i, (name, part) in enumerate(frame.groupby(series, sort=True)):
        part = part.sort_values(key)
        x = np.array([position[v] for v in part[key]], dtype=float)
        ax.fill_between(x, part[low].to_numpy(dtype=float), part[high].to_numpy(dtype=float),
                        color=colour(i), alpha=0.2, linewidth=0)  # fmt: skip
        ax.plot(x, part[rate].to_numpy(dtype=float), "o-", color=colour(i), label=str(name))
    if "fair_share" in frame.columns and frame["fair_share"].nunique() == 1:
        share = float(frame["fair_share"].iloc[0])
        ax.axhline(share, color="0.35", linestyle="--", linewidth=1, label=f"fair share ({share:.0%})")
    if not numeric:
        ax.set_xticks(range(len(levels)), [wrap_label(v, 16) for v in levels])
    elif len(levels) <= 12:
        ax.set_xticks(levels)
    ax.set_xlabel(key)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel("Win rate (% of seat rounds)")
    ax.set_title(f"Win rate against {key} (band: 95% Wilson interval)")
    ax.grid(alpha=0.3)
    _legend(fig, ax)
    return fig


def _sweep_heatmap(frame: pd.DataFrame, row_key: str, col_key: str, rate: str, low: str, high: str) -> Figure:
    rows = sorted(frame[row_key].unique())
    cols = sorted(frame[col_key].unique())
    grid = np.full((len(rows), len(cols)), np.nan)
    text = [["" for _ in cols] for _ in rows]
    for _, r in frame.iterrows():
        i, j = rows.index(r[row_key]), cols.index(r[col_key])
        grid[i, j] = r[rate]
        text[i][j] = f"{r[rate]:.1%}\n[{r[low]:.1%}, {r[high]:.1%}]"
    fig = Figure(
        figsize=(max(5.0, 1.3 * len(cols) + 2.5), max(3.5, 0.8 * len(rows) + 1.8)), layout="constrained"
    )
    ax = fig.subplots()
    image = ax.imshow(grid, cmap="cividis", aspect="auto", origin="lower")
    finite = grid[np.isfinite(grid)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.5
    for i in range(len(rows)):
        for j in range(len(cols)):
            if text[i][j]:
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize="small",
                        color="black" if grid[i, j] >= middle else "white")  # fmt: skip
    ax.set_xticks(range(len(cols)), [str(c) for c in cols])
    ax.set_yticks(range(len(rows)), [str(r) for r in rows])
    ax.set_xlabel(col_key)
    ax.set_ylabel(row_key)
    bot = frame["bot"].iloc[0] if "bot" in frame.columns else frame["bot_label"].iloc[0]
    ax.set_title(f"Win rate of {bot} [95% Wilson interval]")
    bar = fig.colorbar(image, ax=ax)
    bar.set_label("Win rate (% of seat rounds)")
    bar.formatter = PercentFormatter(1.0)
    bar.update_ticks()
    return fig


def plot_rounds_per_match(matches: pd.DataFrame | None, label_column: str = "cell_label") -> Figure:
    """Rounds per match for the cells that play matches of several rounds: one panel per cell.

    Bars give the share of matches that lasted each number of rounds; a dashed line marks the mean.

    Raises:
        NoData: no matches table, or every match lasted one round (single-round profiles).
    """
    frame = _require(matches, ["cell", "rounds"], "rounds per match")
    multi = frame.groupby("cell")["rounds"].transform("max") > 1
    frame = frame[multi]
    if frame.empty:
        raise NoData("rounds per match: no match profile (every match was a single round)")
    labels = _cell_labels(frame, label_column)
    fig = Figure(figsize=(7.0, max(2.8, 2.2 * len(labels))), layout="constrained")
    axes = np.atleast_1d(fig.subplots(len(labels), 1, sharex=True))
    for i, (ax, (cell, label)) in enumerate(zip(axes, labels.items(), strict=True)):
        rounds = frame.loc[frame["cell"] == cell, "rounds"].astype(int)
        share = rounds.value_counts(normalize=True).sort_index()
        ax.bar(share.index, share.to_numpy(), color=colour(i), width=0.8, label=f"{len(rounds)} matches")
        ax.axvline(rounds.mean(), color="0.2", linestyle="--", linewidth=1, label=f"mean {rounds.mean():.2f}")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_ylabel("Share of matches")
        ax.set_title(wrap_label(label, 60), fontsize="medium")
        ax.legend(loc="best", fontsize="small")
        ax.grid(axis="y", alpha=0.3)
    axes[-1].set_xlabel("Rounds per match")
    axes[-1].xaxis.get_major_locator().set_params(integer=True)
    return fig


def plot_ratings(ratings: pd.DataFrame, label_column: str = "cell_label") -> Figure:
    """Plackett-Luce rating (mu) of each bot per cell, with whiskers at mu ± 3 sigma: the left end
    is the conservative ordinal (mu - 3 sigma). Overall ratings (negative ``cell``) come first.

    Args:
        ratings: `rummisim.stats.ratings` (``ratings.csv``): ``cell``, ``bot_label``, ``mu``,
            ``sigma`` and ``label_column``.

    Raises:
        NoData: no rows (no cell with two distinct bots) or missing columns.
    """
    frame = _require(ratings, ["cell", "bot_label", "mu", "sigma"], "ratings")
    frame = frame.assign(low=frame["mu"] - 3 * frame["sigma"], high=frame["mu"] + 3 * frame["sigma"])
    labels = _cell_labels(frame, label_column)
    fig = _figure(list(labels), frame["bot_label"].nunique())
    ax = fig.subplots()
    _dodged_rates(ax, frame, "bot_label", str, labels, "mu", "low", "high")
    # past the palette's colours, a series keeps its colour's cycle but gets another marker
    for i, container in enumerate(ax.containers):
        if i >= len(OKABE_ITO) and isinstance(container, ErrorbarContainer):
            container.lines[0].set_marker("sD^v"[(i // len(OKABE_ITO) - 1) % 4])
    ax.set_xlabel("Plackett-Luce rating mu (openskill; whiskers mu ± 3 sigma, left end = ordinal)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Bot ratings from each round's order of finish")
    _legend(fig, ax)
    return fig
