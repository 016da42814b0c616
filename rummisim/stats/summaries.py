"""Domain summaries of the runner's tables: win rates by bot and by seat, the first-seat edge,
how rounds end, and the per-cell and per-bot summary tables (``summary.csv``,
``summary_bots.csv``), built on the generic estimators of ``rummisim.stats.estimators``.

Pure functions: DataFrames in, DataFrames out; no I/O. A round that ended in a fault
(``end_reason == EndReason.FAULT``) has no winner: `summarize` and `summary_bots` leave such
rounds out of every outcome statistic and count them in the fault rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import pandas as pd

from rummisim.schema import EndReason
from rummisim.stats.estimators import (
    PAIR_KEYS,
    SeedLike,
    _as_float,
    _pair,
    _paired_stats,
    _proportion,
    _require,
    compare_cells,
    describe,
    rate,
)

#: Keys that identify one round within an experiment (games, seats).
ROUND_KEYS: tuple[str, ...] = ("cell", "game", "round")
#: The identity of a cell, carried into every summary row when present.
CELL_COLUMNS: tuple[str, ...] = ("cell", "cell_label", "profile", "lineup")


def _fair_share(df: pd.DataFrame, by: Sequence[str], keys: pd.DataFrame) -> pd.Series:
    """Mean of 1/n_players per group, aligned with the rows of ``keys`` (NaN without n_players)."""
    if "n_players" not in df.columns:
        return pd.Series(np.nan, index=keys.index)
    share = df[list(by)].copy()
    share["fair_share"] = 1.0 / _as_float(df["n_players"])
    if not by:
        return pd.Series(share["fair_share"].mean(), index=keys.index)
    means = share.groupby(list(by), sort=True, dropna=False, observed=True)["fair_share"].mean()
    return (
        keys[list(by)].merge(means.reset_index(), on=list(by), how="left")["fair_share"].set_axis(keys.index)
    )


def win_rates(
    seats: pd.DataFrame, by: Sequence[str] = ("cell", "bot_label"), confidence: float = 0.95
) -> pd.DataFrame:
    """Win rate per group of seat rows, with Wilson intervals.

    Every seat row is one trial, so a bot holding several seats of a lineup counts once per seat
    and round; its fair share is then still ``1 / n_players``.

    Args:
        seats: the ``seats`` table (needs ``won`` and the ``by`` columns).
        by: grouping columns.
        confidence: interval level.

    Returns:
        Columns ``by`` + ``n`` (seat rounds), ``wins``, ``rate``, ``low``, ``high``.
    """
    _require(seats, ["won"], "win_rates")
    return _proportion(seats, seats["won"], by, confidence, "wins")


def seat_win_rates(
    seats: pd.DataFrame,
    by: Sequence[str] = ("cell",),
    position: str = "order",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Win rate per position at the table: play order (``order``, 0 = played first) or ``seat``.

    Returns:
        Columns ``by`` + ``position`` + ``n``, ``wins``, ``rate``, ``low``, ``high``, ``fair_share``
        (mean of ``1 / n_players``, the rate every position would have without a seat effect).
    """
    _require(seats, ["won", position], "seat_win_rates")
    groups = [*by, position]
    out = _proportion(seats, seats["won"], groups, confidence, "wins")
    out["fair_share"] = _fair_share(seats, groups, out)
    return out


def first_seat_advantage(
    seats: pd.DataFrame, by: Sequence[str] = ("cell",), confidence: float = 0.95
) -> pd.DataFrame:
    """The first player's win rate against the fair share ``1 / n_players``.

    Uses the seat rows with ``order == 0`` (the seat that played first in its round).

    Returns:
        Columns ``by`` + ``n``, ``wins``, ``rate``, ``low``, ``high`` (Wilson), ``fair_share``,
        ``advantage`` (= rate - fair_share), ``advantage_low``, ``advantage_high`` (the Wilson
        bounds shifted by the fair share, which is a constant, not an estimate).
    """
    _require(seats, ["won", "order"], "first_seat_advantage")
    first = seats[seats["order"] == 0]
    out = _proportion(first, first["won"], by, confidence, "wins")
    out["fair_share"] = _fair_share(first, by, out)
    out["advantage"] = out["rate"] - out["fair_share"]
    out["advantage_low"] = out["low"] - out["fair_share"]
    out["advantage_high"] = out["high"] - out["fair_share"]
    return out


def compare_pairs(
    games: pd.DataFrame,
    seats: pd.DataFrame,
    pairs: Sequence[tuple[Any, Any]],
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Paired changes of each (cell, baseline cell) pair: turns per round, the first player's
    win rate and each bot's win rate (pairs share a deal, rotation and round).

    Returns:
        One row per pair and measure: ``cell``, ``baseline_cell``, ``measure`` (``turns``,
        ``first_seat_won`` or ``won:BOT``), ``n_pairs``, ``mean_baseline``, ``mean_cell``,
        ``diff`` with ``diff_low``/``diff_high``, ``p_value``.
    """
    games, seats = completed(games, seats)
    assert seats is not None
    columns = ["cell", "baseline_cell", "measure", "n_pairs", "mean_baseline", "mean_cell"]
    columns += ["diff", "diff_low", "diff_high", "p_value"]
    rows = []
    first = seats[seats["order"] == 0]
    for cell, baseline in pairs:
        measures = [("turns", games, "turns"), ("first_seat_won", first, "won")]
        for bot in sorted(seats.loc[seats["cell"] == baseline, "bot"].unique()):
            measures.append((f"won:{bot}", seats[seats["bot"] == bot], "won"))
        for measure, frame, value in measures:
            a, b = _pair(frame, value, baseline, cell, list(PAIR_KEYS), "cell")
            result = _paired_stats(a, b, "t", confidence, 0, 0)
            rows.append(
                {
                    "cell": cell, "baseline_cell": baseline, "measure": measure,
                    "n_pairs": result["n_pairs"], "mean_baseline": result["mean_a"],
                    "mean_cell": result["mean_b"], "diff": result["diff"], "diff_low": result["diff_low"],
                    "diff_high": result["diff_high"], "p_value": result["p_value"],
                }
            )  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------------------------------------------
# Summary tables


@overload
def completed(games: pd.DataFrame, seats: None = None) -> tuple[pd.DataFrame, None]: ...
@overload
def completed(games: pd.DataFrame, seats: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]: ...
def completed(
    games: pd.DataFrame, seats: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The games (and seats) of rounds that did not end in a fault.

    Seat rows are matched to their round on ``experiment`` (when both tables have it), ``cell``,
    ``game`` and ``round``.
    """
    _require(games, ["end_reason"], "completed")
    ok = games[games["end_reason"] != EndReason.FAULT]
    if seats is None:
        return ok, None
    keys = [k for k in ("experiment", *ROUND_KEYS) if k in games.columns and k in seats.columns]
    _require(seats, list(ROUND_KEYS), "completed")
    faulted = games.loc[games["end_reason"] == EndReason.FAULT, keys].drop_duplicates()
    if faulted.empty:
        return ok, seats
    mark = seats[keys].merge(faulted.assign(_fault=True), on=keys, how="left")["_fault"]
    return ok, seats[~mark.fillna(False).to_numpy(dtype=bool)]


def _check_keys(df: pd.DataFrame, keys: Sequence[str], what: str) -> None:
    _require(df, keys, what)
    if "experiment" in df.columns and df["experiment"].nunique() > 1:
        raise ValueError(f"{what}: the frame holds several experiments; summarise one at a time")


def _prefixed(frame: pd.DataFrame, by: list[str], names: dict[str, str]) -> pd.DataFrame:
    return frame[[*by, *names]].rename(columns=names)


def _vs_baseline(
    df: pd.DataFrame, value: str, prefix: str, baseline_cell: Any, confidence: float
) -> pd.DataFrame:
    columns = {
        "diff": prefix,
        "diff_low": f"{prefix}_low",
        "diff_high": f"{prefix}_high",
        "p_value": f"{prefix}_p",
    }
    if df.empty or not (df["cell"] == baseline_cell).any() or not set(PAIR_KEYS) <= set(df.columns):
        return pd.DataFrame(columns=["cell", *columns.values()])
    comparison = compare_cells(df, value, baseline_cell, confidence=confidence)
    return _prefixed(comparison, ["cell"], columns)


def summary_columns(keys: Sequence[str] = ()) -> list[str]:
    """The columns of `summarize`, in order (``keys`` are the sweep key columns)."""
    return [
        "cell", "cell_label", "profile", "lineup", *keys,
        "games", "rounds", "rounds_completed",
        "turns_mean", "turns_mean_low", "turns_mean_high", "turns_median", "turns_q10", "turns_q90",
        "first_seat_win_rate", "first_seat_low", "first_seat_high", "fair_share",
        "first_seat_advantage", "first_seat_advantage_low", "first_seat_advantage_high",
        "pool_exhausted_rate", "pool_exhausted_low", "pool_exhausted_high",
        "turn_cap_rate", "turn_cap_low", "turn_cap_high",
        "fault_rounds", "fault_rate", "fault_low", "fault_high", "bot_faults", "timeouts",
        "points_left_losers_mean", "points_left_losers_mean_low", "points_left_losers_mean_high",
        "points_left_losers_median",
        "rounds_per_match_mean", "rounds_per_match_mean_low", "rounds_per_match_mean_high", "match_errors",
        "turns_diff_vs_cell0", "turns_diff_vs_cell0_low", "turns_diff_vs_cell0_high", "turns_diff_vs_cell0_p",
        "first_seat_diff_vs_cell0", "first_seat_diff_vs_cell0_low", "first_seat_diff_vs_cell0_high",
        "first_seat_diff_vs_cell0_p",
    ]  # fmt: skip


def _identity(df: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    columns = [c for c in (*CELL_COLUMNS, *keys) if c in df.columns]
    return df.drop_duplicates("cell")[columns].sort_values("cell").reset_index(drop=True)


def summarize(
    games: pd.DataFrame,
    seats: pd.DataFrame,
    matches: pd.DataFrame | None = None,
    keys: Sequence[str] = (),
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """One row per cell: game length, seat effect, how rounds end, faults, and the change vs cell 0.

    Rounds that ended in a fault are left out of every statistic except the fault columns.
    Intervals: Wilson for rates, percentile bootstrap for means, Student-t for the paired
    differences against cell 0 (pairs on ``deal``, ``rotation``, ``round``).

    Args:
        games, seats, matches: the runner's tables for one experiment (``matches`` may be None).
        keys: the sweep key columns, carried into the summary after ``lineup``.

    Returns:
        The columns of `summary_columns`:

        - identity: ``cell``, ``cell_label``, ``profile``, ``lineup``, the sweep ``keys``;
        - counts: ``games`` (matches played), ``rounds``, ``rounds_completed`` (without faults);
        - ``turns_mean`` with ``turns_mean_low``/``_high``, ``turns_median``, ``turns_q10``, ``turns_q90``;
        - ``first_seat_win_rate`` with ``first_seat_low``/``_high``, ``fair_share`` (1/n_players),
          ``first_seat_advantage`` (= rate - fair share) with ``_low``/``_high``;
        - ``pool_exhausted_rate`` and ``turn_cap_rate``, each with ``_low``/``_high``;
        - ``fault_rounds``, ``fault_rate`` with ``fault_low``/``fault_high`` (over all rounds),
          ``bot_faults`` and ``timeouts`` (sums of the games columns);
        - ``points_left_losers_mean`` with ``_mean_low``/``_mean_high``, ``points_left_losers_median``;
        - ``rounds_per_match_mean`` with ``_mean_low``/``_mean_high`` and ``match_errors`` (NaN/0
          without a matches table);
        - ``turns_diff_vs_cell0`` (turns of this cell - cell 0, paired) with ``_low``, ``_high``,
          ``_p``, and the same for ``first_seat_diff_vs_cell0`` (first-seat win rate); NaN for
          cell 0 and for cells without shared deals.
    """
    keys = list(keys)
    _require(games, ["cell", "game", "round", "end_reason", "turns"], "summarize (games)")
    _require(seats, ["cell", "game", "round", "won", "order", "points_left"], "summarize (seats)")
    _check_keys(games, keys, "summarize")
    columns = summary_columns(keys)
    if games.empty:
        return pd.DataFrame(columns=columns)
    done, done_seats = completed(games, seats)
    assert done_seats is not None
    out = _identity(games, keys)
    by = ["cell"]
    boot: dict[str, Any] = {"confidence": confidence, "n_boot": n_boot, "seed": seed}

    counts = games.groupby("cell").agg(games=("game", "nunique"), rounds=("round", "size")).reset_index()
    counts["rounds_completed"] = counts["cell"].map(done.groupby("cell").size()).fillna(0).astype(int)
    for column, name in (("faults", "bot_faults"), ("timeouts", "timeouts")):
        counts[name] = counts["cell"].map(games.groupby("cell")[column].sum()) if column in games else 0
    parts = [counts]

    turns = describe(done, "turns", by, quantiles=(0.1, 0.5, 0.9), **boot)
    parts.append(_prefixed(turns, by, {
        "mean": "turns_mean", "mean_low": "turns_mean_low", "mean_high": "turns_mean_high",
        "q50": "turns_median", "q10": "turns_q10", "q90": "turns_q90",
    }))  # fmt: skip
    first = first_seat_advantage(done_seats, by, confidence)
    parts.append(_prefixed(first, by, {
        "rate": "first_seat_win_rate", "low": "first_seat_low", "high": "first_seat_high",
        "fair_share": "fair_share", "advantage": "first_seat_advantage",
        "advantage_low": "first_seat_advantage_low", "advantage_high": "first_seat_advantage_high",
    }))  # fmt: skip
    for reason in (EndReason.POOL_EXHAUSTED, EndReason.TURN_CAP):
        prefix = reason.value
        share = rate(done, done["end_reason"] == reason, by, confidence)
        parts.append(
            _prefixed(share, by, {"rate": f"{prefix}_rate", "low": f"{prefix}_low", "high": f"{prefix}_high"})
        )
    faults = rate(games, games["end_reason"] == EndReason.FAULT, by, confidence)
    parts.append(_prefixed(faults, by, {
        "events": "fault_rounds", "rate": "fault_rate", "low": "fault_low", "high": "fault_high",
    }))  # fmt: skip
    losers = describe(
        done_seats[~done_seats["won"].astype(bool)], "points_left", by, quantiles=(0.5,), **boot
    )
    parts.append(_prefixed(losers, by, {
        "mean": "points_left_losers_mean", "mean_low": "points_left_losers_mean_low",
        "mean_high": "points_left_losers_mean_high", "q50": "points_left_losers_median",
    }))  # fmt: skip
    if matches is not None and not matches.empty:
        _require(matches, ["cell", "rounds"], "summarize (matches)")
        per_match = describe(matches, "rounds", by, quantiles=(), **boot)
        parts.append(_prefixed(per_match, by, {
            "mean": "rounds_per_match_mean", "mean_low": "rounds_per_match_mean_low",
            "mean_high": "rounds_per_match_mean_high",
        }))  # fmt: skip
        if "error" in matches.columns:
            has_error = matches["error"].notna() & (matches["error"].astype(str) != "")
            errors = has_error.groupby(matches["cell"]).sum().rename("match_errors").reset_index()
            parts.append(errors)
    parts.append(_vs_baseline(done, "turns", "turns_diff_vs_cell0", 0, confidence))
    parts.append(
        _vs_baseline(done_seats[done_seats["order"] == 0], "won", "first_seat_diff_vs_cell0", 0, confidence)
    )

    for part in parts:
        out = out.merge(part, on="cell", how="left")
    out = _numeric(out.reindex(columns=columns), columns.index("games"))
    for count in ("games", "rounds", "rounds_completed", "fault_rounds"):
        out[count] = out[count].fillna(0).astype(int)
    return out


def _numeric(frame: pd.DataFrame, first: int) -> pd.DataFrame:
    """Columns from position ``first`` on as numbers (an all-missing part merges in as object)."""
    for column in frame.columns[first:]:
        frame[column] = pd.to_numeric(frame[column])
    return frame


def summary_bots_columns(keys: Sequence[str] = ()) -> list[str]:
    """The columns of `summary_bots`, in order."""
    return [
        "cell", "cell_label", "profile", "lineup", *keys, "bot", "bot_label",
        "n", "wins", "win_rate", "win_low", "win_high", "fair_share",
        "score_mean", "score_mean_low", "score_mean_high",
        "points_left_mean", "points_left_mean_low", "points_left_mean_high",
        "opened_rate", "opened_turn_median",
        "win_rate_diff_vs_cell0", "win_rate_diff_vs_cell0_low", "win_rate_diff_vs_cell0_high",
        "win_rate_diff_vs_cell0_p", "win_rate_diff_vs_cell0_pairs",
    ]  # fmt: skip


def summary_bots(
    seats: pd.DataFrame,
    games: pd.DataFrame | None = None,
    keys: Sequence[str] = (),
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """One row per (cell, bot_label): the bot's win rate, score, points left and opening.

    With ``games``, seats of rounds that ended in a fault are left out. The paired win-rate change
    against cell 0 matches a bot by its name (``bot``) when that name has one label in both cells
    (so a swept parameter, which changes the label, still pairs), otherwise by ``bot_label``; each
    round contributes the mean of ``won`` over the seats the bot holds.

    Returns:
        The columns of `summary_bots_columns`: identity (``cell``, ``cell_label``, ``profile``,
        ``lineup``, sweep ``keys``, ``bot``, ``bot_label``), ``n`` (seat rounds), ``wins``,
        ``win_rate`` with ``win_low``/``win_high`` (Wilson), ``fair_share`` (1/n_players),
        ``score_mean`` and ``points_left_mean`` with bootstrap ``_low``/``_high``, ``opened_rate``
        (share of seat rounds with an initial meld), ``opened_turn_median``, and
        ``win_rate_diff_vs_cell0`` with ``_low``, ``_high``, ``_p`` (paired t) and ``_pairs``.
    """
    keys = list(keys)
    _require(seats, ["cell", "bot", "bot_label", "won", "score", "points_left"], "summary_bots")
    _check_keys(seats, keys, "summary_bots")
    columns = summary_bots_columns(keys)
    if games is not None:
        seats = completed(games, seats)[1]
        assert seats is not None
    if seats.empty:
        return pd.DataFrame(columns=columns)
    by = ["cell", "bot_label"]
    boot: dict[str, Any] = {"confidence": confidence, "n_boot": n_boot, "seed": seed}
    out = _identity(seats, keys).merge(seats[["cell", "bot", "bot_label"]].drop_duplicates(), on="cell")
    parts = [
        _prefixed(win_rates(seats, by, confidence), by, {
            "n": "n", "wins": "wins", "rate": "win_rate", "low": "win_low", "high": "win_high",
        }),
    ]  # fmt: skip
    share = seats[by].copy()
    share["fair_share"] = 1.0 / _as_float(seats["n_players"]) if "n_players" in seats else np.nan
    parts.append(share.groupby(by, sort=True)["fair_share"].mean().reset_index())
    for column in ("score", "points_left"):
        stats = describe(seats, column, by, quantiles=(), **boot)
        parts.append(_prefixed(stats, by, {
            "mean": f"{column}_mean", "mean_low": f"{column}_mean_low", "mean_high": f"{column}_mean_high",
        }))  # fmt: skip
    if "opened_turn" in seats.columns:
        opened = seats[by].copy()
        opened["opened_rate"] = seats["opened_turn"].notna().to_numpy(dtype=float)
        opened["opened_turn"] = _as_float(seats["opened_turn"])
        parts.append(
            opened.groupby(by, sort=True)
            .agg(opened_rate=("opened_rate", "mean"), opened_turn_median=("opened_turn", "median"))
            .reset_index()
        )
    parts.append(_bot_diffs(seats, confidence))
    for part in parts:
        out = out.merge(part, on=by, how="left")
    out = _numeric(out.sort_values(by).reset_index(drop=True).reindex(columns=columns), columns.index("n"))
    out["win_rate_diff_vs_cell0_pairs"] = out["win_rate_diff_vs_cell0_pairs"].astype("Int64")
    return out


def _bot_diffs(seats: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Paired win-rate change of each bot against cell 0 (see `summary_bots`)."""
    prefix = "win_rate_diff_vs_cell0"
    names = {"diff": prefix, "diff_low": f"{prefix}_low", "diff_high": f"{prefix}_high"}
    names |= {"p_value": f"{prefix}_p", "n_pairs": f"{prefix}_pairs"}
    empty = pd.DataFrame(columns=["cell", "bot_label", *names.values()])
    if not (seats["cell"] == 0).any() or not set(PAIR_KEYS) <= set(seats.columns):
        return empty
    labels_per_bot = seats.groupby(["cell", "bot"])["bot_label"].transform("nunique")
    ambiguous = set(seats.loc[labels_per_bot > 1, "bot"])
    work = seats.assign(_match=np.where(seats["bot"].isin(ambiguous), seats["bot_label"], seats["bot"]))
    comparison = compare_cells(work, "won", 0, by=("_match",), confidence=confidence)
    comparison = comparison[comparison["n_pairs"] > 0]
    if comparison.empty:
        return empty
    pairs = work[["cell", "_match", "bot_label"]].drop_duplicates()
    found = pairs.merge(comparison[["cell", "_match", *names]], on=["cell", "_match"])
    return found.drop(columns="_match").rename(columns=names)
