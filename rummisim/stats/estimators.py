"""Generic estimators over DataFrames: proportions with Wilson intervals, bootstrap intervals of
means, quantiles, and paired comparisons (t intervals, bootstrap and sign-flip tests, Holm).

They know nothing of Rummikub beyond the default pairing keys: the domain summaries built on them
live in ``rummisim.stats.summaries``. Pure functions: DataFrames in, DataFrames (or one small dict)
out. No I/O and no global random state: every bootstrap takes a seed or a
``numpy.random.Generator`` and gives the same answer for the same seed.

Conventions:

- Proportions carry Wilson score intervals, which keep their coverage at small n and near 0 or 1,
  where the normal approximation does not.
- Means carry percentile-bootstrap intervals.
- Cells are compared paired: rows of two cells are matched on ``(deal, rotation, round)`` and the
  per-pair differences are tested.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

SeedLike = int | np.random.Generator | np.random.SeedSequence

#: Keys on which rows of two cells describe the same deal (common random numbers).
PAIR_KEYS: tuple[str, ...] = ("deal", "rotation", "round")

_BLOCK_ELEMENTS = 1 << 22  # resampled values held at once by the bootstrap (32 MiB of float64)
_EXACT_SIGN_FLIP_MAX = 12  # enumerate all 2**n sign patterns up to this many pairs


# ---------------------------------------------------------------------------------------------------
# Proportions


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return float(sps.norm.ppf(0.5 + confidence / 2.0))


def wilson_interval(successes: Any, n: Any, confidence: float = 0.95) -> tuple[Any, Any]:
    """Wilson score interval of a binomial proportion, vectorised.

    Args:
        successes: number of successes (scalar or array).
        n: number of trials (scalar or array, broadcast against ``successes``).
        confidence: two-sided confidence level.

    Returns:
        ``(low, high)``: floats for scalar input, arrays otherwise. ``low`` is exactly 0 when there
        are no successes and ``high`` exactly 1 when all trials succeed; both are NaN where ``n == 0``.

    Raises:
        ValueError: a negative count, more successes than trials, or a confidence outside (0, 1).
    """
    z = _z(confidence)
    s = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    if np.any(s < 0) or np.any(m < 0) or np.any(s > m):
        raise ValueError("wilson_interval needs 0 <= successes <= n")
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / m
        denominator = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denominator
        half = z * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) / denominator
    low = np.where(s == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(s == m, 1.0, np.clip(centre + half, 0.0, 1.0))
    low = np.where(m > 0, low, np.nan)
    high = np.where(m > 0, high, np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _require(df: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs column(s) {missing}; the frame has {list(df.columns)}")


def _as_float(values: Any) -> np.ndarray:
    """A float array from a Series/array of numbers, booleans or nullable values (NA -> NaN)."""
    if isinstance(values, pd.Series):
        if pd.api.types.is_bool_dtype(values.dtype) or values.dtype == object:
            values = values.astype("Float64")
        return pd.to_numeric(values).to_numpy(dtype=float, na_value=np.nan)
    return np.asarray(values, dtype=float)


def _proportion(
    df: pd.DataFrame, flag: pd.Series, by: Sequence[str], confidence: float, count_name: str
) -> pd.DataFrame:
    """``by`` + n, <count_name>, rate, low, high for a boolean flag aligned with ``df``."""
    by = list(by)
    _require(df, by, "a proportion")
    work = df[by].copy() if by else pd.DataFrame(index=df.index)
    work["_flag"] = _as_float(flag)
    if by:
        agg = (
            work.groupby(by, sort=True, dropna=False, observed=True)["_flag"]
            .agg(n="count", events="sum")
            .reset_index()
        )
    else:
        agg = pd.DataFrame({"n": [int(work["_flag"].count())], "events": [float(work["_flag"].sum())]})
    agg["n"] = agg["n"].astype(int)
    events = agg["events"].to_numpy(dtype=float)
    if np.all(events == np.round(events)):
        agg["events"] = agg["events"].astype(int)
    n = agg["n"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        agg["rate"] = np.where(n > 0, events / np.where(n > 0, n, 1.0), np.nan)
    low, high = wilson_interval(events, n, confidence)
    agg["low"] = np.asarray(low, dtype=float)
    agg["high"] = np.asarray(high, dtype=float)
    return agg.rename(columns={"events": count_name})


def rate(
    df: pd.DataFrame,
    condition: str | pd.Series | np.ndarray,
    by: Sequence[str] = ("cell",),
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Share of rows meeting a condition, with Wilson intervals.

    Example: ``rate(games, games["end_reason"] == EndReason.POOL_EXHAUSTED)`` per cell.

    Args:
        df: any table.
        condition: a boolean column name, or a boolean mask aligned with ``df``.
        by: grouping columns.

    Returns:
        Columns ``by`` + ``n``, ``events``, ``rate``, ``low``, ``high``. A group with no event has
        ``events == 0``, ``rate == 0``, ``low == 0`` and a positive ``high``.
    """
    if isinstance(condition, str):
        _require(df, [condition], "rate")
        flag = df[condition]
    else:
        if len(condition) != len(df):
            raise ValueError(f"rate: the mask has {len(condition)} values for {len(df)} rows")
        flag = (
            condition
            if isinstance(condition, pd.Series)
            else pd.Series(np.asarray(condition), index=df.index)
        )
    return _proportion(df, flag, by, confidence, "events")


# ---------------------------------------------------------------------------------------------------
# Means and distributions


def _rng(seed: SeedLike) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _apply_stat(stat: Callable[..., Any], samples: np.ndarray) -> np.ndarray:
    """The statistic of each row of ``samples``; one call with ``axis=1`` when the statistic takes it."""
    try:
        out = np.asarray(stat(samples, axis=1), dtype=float)
        if out.shape == (samples.shape[0],):
            return out
    except TypeError:
        pass
    return np.array([float(stat(row)) for row in samples])


def bootstrap_ci(
    values: Any,
    stat: Callable[..., Any] = np.mean,
    n_boot: int = 2000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of a statistic of one sample.

    NaN values are dropped first. Resamples are drawn in blocks of whole arrays (no Python loop
    per resample when ``stat`` accepts ``axis``). For ``stat=np.mean`` on data with few distinct
    values (turns, scores, points), the resample counts of each distinct value are drawn from the
    multinomial distribution, which is the same bootstrap distribution at a fraction of the cost.

    Args:
        values: the sample.
        stat: the statistic; called as ``stat(samples, axis=1)`` when possible.
        n_boot: number of resamples.
        confidence: two-sided level.
        seed: an int, a SeedSequence or a Generator. The same seed gives the same interval.

    Returns:
        ``(low, high)``; ``(nan, nan)`` for an empty sample.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    _z(confidence)
    x = _as_float(pd.Series(values) if not isinstance(values, pd.Series | np.ndarray) else values)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return float("nan"), float("nan")
    rng = _rng(seed)
    estimates = np.empty(n_boot)
    uniques, counts = np.unique(x, return_counts=True)
    if stat in (np.mean, np.nanmean) and uniques.size * 4 <= x.size:
        resampled = rng.multinomial(x.size, counts / x.size, size=n_boot)
        estimates[:] = resampled @ uniques / x.size
    else:
        block = max(1, _BLOCK_ELEMENTS // x.size)
        for start in range(0, n_boot, block):
            stop = min(n_boot, start + block)
            estimates[start:stop] = _apply_stat(stat, x[rng.integers(0, x.size, size=(stop - start, x.size))])
    alpha = 1.0 - confidence
    low, high = np.quantile(estimates, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high)


def quantile_column(q: float) -> str:
    """The column name `describe` gives a quantile: 0.1 -> ``q10``, 0.5 -> ``q50``, 0.025 -> ``q2.5``."""
    return f"q{q * 100:g}"


def _groups(df: pd.DataFrame, by: Sequence[str]) -> Iterator[tuple[dict[str, Any], pd.DataFrame]]:
    by = list(by)
    if not by:
        yield {}, df
        return
    for key, sub in df.groupby(by, sort=True, dropna=False, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        yield dict(zip(by, key, strict=True)), sub


def describe(
    df: pd.DataFrame,
    column: str,
    by: Sequence[str] = ("cell",),
    quantiles: Sequence[float] = (0.1, 0.5, 0.9),
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """Mean with a bootstrap interval, and quantiles, of a numeric column per group.

    Use it for turns per round (games), rounds per match (matches), points left (seats; filter to
    ``~won`` for points left on losing racks) and score. NA values are dropped.

    Args:
        seed: with an int (or SeedSequence) every group restarts from it, so a group's interval does
            not depend on which other groups are in the frame; a Generator is shared across groups.

    Returns:
        Columns ``by`` + ``n``, ``mean``, ``std`` (ddof=1), ``mean_low``, ``mean_high``, then one
        column per quantile named by `quantile_column` (``q10``, ``q50``, ``q90`` by default). With
        ``by=()`` one row for the whole frame.
    """
    _require(df, [column, *by], "describe")
    qnames = [quantile_column(q) for q in quantiles]
    rows = []
    for key, sub in _groups(df, by):
        x = _as_float(sub[column])
        x = x[~np.isnan(x)]
        row: dict[str, Any] = {**key, "n": int(x.size)}
        if x.size:
            low, high = bootstrap_ci(x, np.mean, n_boot, confidence, seed)
            row.update(
                mean=float(x.mean()),
                std=float(x.std(ddof=1)) if x.size > 1 else np.nan,
                mean_low=low,
                mean_high=high,
            )
            row.update(zip(qnames, (float(v) for v in np.quantile(x, list(quantiles))), strict=True))
        else:
            row.update(dict.fromkeys(["mean", "std", "mean_low", "mean_high", *qnames], np.nan))
        rows.append(row)
    return pd.DataFrame(rows, columns=[*by, "n", "mean", "std", "mean_low", "mean_high", *qnames])


# ---------------------------------------------------------------------------------------------------
# Paired comparisons


def sign_flip_test(differences: Any, n_perm: int = 10000, seed: SeedLike = 0) -> float:
    """Two-sided sign-flip permutation p-value for "the mean paired difference is zero".

    Under the null each difference is as likely to have either sign. Up to 12 pairs all ``2**n``
    sign patterns are enumerated (exact p-value); beyond that ``n_perm`` random patterns are drawn
    and ``p = (1 + hits) / (1 + n_perm)``. NaN differences are dropped; no pairs gives NaN.
    """
    d = _as_float(np.asarray(differences))
    d = d[~np.isnan(d)]
    if d.size == 0:
        return float("nan")
    observed = abs(d.mean())
    tolerance = 1e-12 * max(1.0, observed)
    if d.size <= _EXACT_SIGN_FLIP_MAX:
        patterns = ((np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1) * 2 - 1
        return float(np.mean(np.abs((patterns * d).mean(axis=1)) >= observed - tolerance))
    rng = _rng(seed)
    hits = 0
    block = max(1, _BLOCK_ELEMENTS // d.size)
    for start in range(0, n_perm, block):
        signs = rng.integers(0, 2, size=(min(n_perm, start + block) - start, d.size)) * 2 - 1
        hits += int(np.sum(np.abs((signs * d).mean(axis=1)) >= observed - tolerance))
    return (hits + 1) / (n_perm + 1)


def _per_key(df: pd.DataFrame, value: str, keys: list[str]) -> pd.Series:
    """Mean of ``value`` per pairing key (several rows share a key, e.g. seats of one bot)."""
    work = df[keys].copy()
    work["_value"] = _as_float(df[value])
    return work.groupby(keys, sort=True, dropna=False)["_value"].mean()


def _paired_stats(
    a: np.ndarray, b: np.ndarray, method: str, confidence: float, n_boot: int, seed: SeedLike
) -> dict[str, Any]:
    d = b - a
    n = int(d.size)
    result: dict[str, Any] = {
        "n_pairs": n,
        "mean_a": float(a.mean()) if n else np.nan,
        "mean_b": float(b.mean()) if n else np.nan,
        "diff": float(d.mean()) if n else np.nan,
        "diff_low": np.nan,
        "diff_high": np.nan,
        "p_value": np.nan,
        "method": method,
    }
    if n < 2:
        return result
    if method == "t":
        sd = float(d.std(ddof=1))
        if sd == 0.0:
            # every pair moved by the same amount: no sampling noise left to test against
            result.update(diff_low=result["diff"], diff_high=result["diff"])
            result["p_value"] = 1.0 if result["diff"] == 0.0 else 0.0
        else:
            half = float(sps.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / np.sqrt(n)
            result.update(diff_low=result["diff"] - half, diff_high=result["diff"] + half)
            result["p_value"] = float(sps.ttest_rel(b, a).pvalue)
    else:
        low, high = bootstrap_ci(d, np.mean, n_boot, confidence, seed)
        result.update(diff_low=low, diff_high=high, p_value=sign_flip_test(d, n_boot, seed))
    return result


def _check_method(method: str, confidence: float) -> None:
    if method not in ("t", "bootstrap"):
        raise ValueError(f"method must be 't' or 'bootstrap', got {method!r}")
    _z(confidence)


def _pair(
    df: pd.DataFrame,
    value: str,
    cell_a: Any,
    cell_b: Any,
    keys: list[str],
    cell_column: str,
) -> tuple[np.ndarray, np.ndarray]:
    a = _per_key(df[df[cell_column] == cell_a], value, keys).rename("a")
    b = _per_key(df[df[cell_column] == cell_b], value, keys).rename("b")
    joined = pd.concat([a, b], axis=1, join="inner").dropna()
    return joined["a"].to_numpy(dtype=float), joined["b"].to_numpy(dtype=float)


def paired_difference(
    df: pd.DataFrame,
    value: str,
    cell_a: Any,
    cell_b: Any,
    on: Sequence[str] = PAIR_KEYS,
    cell_column: str = "cell",
    method: str = "t",
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: SeedLike = 0,
) -> dict[str, Any]:
    """Mean paired difference ``b - a`` of a value between two cells that played the same deals.

    Rows of each cell are first averaged per pairing key (for example the mean of ``won`` over the
    seats a bot holds in one round), then keys present in both cells are paired. For a win-rate
    difference pass ``value="won"`` on seat rows filtered to one bot; for game length,
    ``value="turns"`` on games.

    Args:
        method: ``"t"``: Student-t interval and paired t-test (``scipy.stats.ttest_rel``);
            ``"bootstrap"``: percentile bootstrap interval and sign-flip permutation p-value.

    Returns:
        A dict with ``cell_a``, ``cell_b``, ``n_pairs``, ``mean_a``, ``mean_b`` (over the paired keys),
        ``diff`` (= mean_b - mean_a), ``diff_low``, ``diff_high``, ``p_value`` (two-sided),
        ``method``. Interval and p-value are NaN with a single pair.

    Raises:
        ValueError: an unknown method, a missing column, or no pairing key shared by the two cells.
    """
    _check_method(method, confidence)
    keys = list(on)
    _require(df, [value, cell_column, *keys], "paired_difference")
    a, b = _pair(df, value, cell_a, cell_b, keys, cell_column)
    if a.size == 0:
        raise ValueError(
            f"paired_difference: cells {cell_a!r} and {cell_b!r} share no {tuple(keys)} key with a "
            f"{value!r} value"
        )
    return {"cell_a": cell_a, "cell_b": cell_b, **_paired_stats(a, b, method, confidence, n_boot, seed)}


def holm_adjust(p_values: Any) -> np.ndarray:
    """Holm step-down adjusted p-values (family-wise error control); NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    if valid.size:
        order = valid[np.argsort(p[valid], kind="stable")]
        m = order.size
        adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
        out[order] = adjusted
    return out


def compare_cells(
    df: pd.DataFrame,
    value: str,
    baseline_cell: Any = 0,
    by: Sequence[str] = (),
    on: Sequence[str] = PAIR_KEYS,
    cell_column: str = "cell",
    method: str = "t",
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """Paired difference of every other cell against a baseline cell (the data of a forest plot).

    Within each ``by`` group (e.g. ``("bot",)``), each cell other than the baseline is paired with
    the baseline as in `paired_difference`. A cell sharing no key with the baseline gets a row with
    ``n_pairs == 0`` and NaN statistics rather than an error.

    Returns:
        Columns ``by`` + ``cell`` (named ``cell_column``), ``cell_label`` (when the frame has it),
        ``baseline_cell``, ``n_pairs``, ``mean_baseline``, ``mean_cell``, ``diff`` (cell - baseline),
        ``diff_low``, ``diff_high``, ``p_value``, ``p_holm`` (Holm-adjusted over the cells of the
        group), ``method``.

    Raises:
        ValueError: an unknown method, a missing column, or no row of the baseline cell.
    """
    _check_method(method, confidence)
    keys = list(on)
    by = list(by)
    _require(df, [value, cell_column, *keys, *by], "compare_cells")
    if not (df[cell_column] == baseline_cell).any():
        raise ValueError(f"compare_cells: no row has {cell_column} == {baseline_cell!r} (the baseline)")
    labels = (
        df.drop_duplicates(cell_column).set_index(cell_column)["cell_label"]
        if "cell_label" in df.columns
        else None
    )
    columns = [*by, cell_column, *(["cell_label"] if labels is not None else [])]
    columns += ["baseline_cell", "n_pairs", "mean_baseline", "mean_cell", "diff", "diff_low", "diff_high"]
    columns += ["p_value", "p_holm", "method"]
    frames = []
    for key, sub in _groups(df, by):
        rows = []
        for cell in sorted(c for c in sub[cell_column].unique() if c != baseline_cell):
            a, b = _pair(sub, value, baseline_cell, cell, keys, cell_column)
            result = _paired_stats(a, b, method, confidence, n_boot, seed)
            row = {**key, cell_column: cell, "baseline_cell": baseline_cell}
            if labels is not None:
                row["cell_label"] = labels.get(cell)
            row.update(result)
            row["mean_baseline"] = row.pop("mean_a")
            row["mean_cell"] = row.pop("mean_b")
            rows.append(row)
        group = pd.DataFrame(rows, columns=columns)
        group["p_holm"] = holm_adjust(group["p_value"]) if len(group) else []
        frames.append(group)
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
