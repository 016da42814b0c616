"""``rummisim report``: a finished run's results folder -> ``report.md`` plus PNG charts.

The report holds the per-cell summary (game length, first-seat advantage, how
rounds end, faults), the bots' win rates, paired comparisons against cell 0, the
bots' ratings (``ratings.csv``, with the Bradley-Terry cross-check), and
the charts of `rummisim.plots`, each with 95% intervals (the ratings: mu ± 3 sigma). A chart whose data is
missing (no sweep, no match profile, a single cell) is skipped with a note.

Every file is replaced atomically (a temp file, then a rename), so an interrupted report leaves
the previous one whole. A folder whose ``manifest.json`` is missing but whose tables are intact is
reported from the tables, and the report says so.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pandas as pd

from rummisim import plots, stats
from rummisim.store import load_results, write_summary

CHART_DIR = "charts"


def _ci(value: float, low: float, high: float, percent: bool = False, digits: int = 1) -> str:
    if pd.isna(value):
        return "–"
    if percent:
        return f"{100 * value:.{digits}f}% [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _pp(value: float, low: float, high: float, digits: int = 1) -> str:
    """A difference of two rates in percentage points, signed, with its interval clipped to the
    possible range [-100, 100]: ``+2.9 [1.6, 4.3]``."""
    if pd.isna(value):
        return "–"

    def clip(x: float) -> float:
        return min(100.0, max(-100.0, 100 * x))

    return f"{clip(value):+.{digits}f} [{clip(low):.{digits}f}, {clip(high):.{digits}f}]"


def _prr(row: pd.Series, stem: str, value: str | None = None) -> str:
    """``_pp`` of a summary row's ``value`` (default ``stem``) and its ``stem_low``/``stem_high``."""
    return _pp(row[value or stem], row[f"{stem}_low"], row[f"{stem}_high"])


def _cr(row: pd.Series, stem: str, value: str | None = None, **kwargs) -> str:
    """``_ci`` of a summary row's ``value`` (default ``stem``) and its ``stem_low``/``stem_high``."""
    return _ci(row[value or stem], row[f"{stem}_low"], row[f"{stem}_high"], **kwargs)


def _p(p: float) -> str:
    if pd.isna(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


_BREAKS = re.compile(r"[\r\n\t\v\f\x85\u2028\u2029]+")


def _cell(value: object) -> str:
    """Text safe inside one Markdown table cell: line breaks become spaces, ``|`` and ``\\`` are
    escaped."""
    text = _BREAKS.sub(" ", str(value))
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _line(text: object) -> str:
    """Text safe on one Markdown line (a heading or a list item)."""
    return _BREAKS.sub(" ", str(text))


def _table(rows: list[dict]) -> str:
    if not rows:
        return "_(no rows)_\n"
    head = list(rows[0])
    lines = ["| " + " | ".join(_cell(h) for h in head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    lines += ["| " + " | ".join(_cell(r[h]) for h in head) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _cells_table(summary: pd.DataFrame, keys: list[str]) -> str:
    rows = []
    for _, r in summary.iterrows():
        row = {"cell": int(r["cell"]), "label": r["cell_label"]}
        row.update({k: r[k] for k in keys if k in r})
        row.update(
            {
                "games": int(r["games"]),
                "turns per round, mean [95% CI]": _cr(r, "turns_mean"),
                "first player wins [95% CI]": _cr(r, "first_seat", value="first_seat_win_rate", percent=True),
                "first-seat advantage (pp)": _prr(r, "first_seat_advantage"),
                "pool exhausted": _cr(r, "pool_exhausted", value="pool_exhausted_rate", percent=True),
                "points left (losers)": _cr(r, "points_left_losers_mean"),
                "rounds per match": _cr(r, "rounds_per_match_mean", digits=2),
                "faults": f"{int(r['fault_rounds'])} crashed, {int(r['bot_faults'])} bot, "
                f"{_cr(r, 'turn_cap', value='turn_cap_rate', percent=True)} capped",
            }
        )
        rows.append(row)
    return _table(rows)


def _paired_table(summary: pd.DataFrame) -> str:
    rows = []
    for _, r in summary.iloc[1:].iterrows():
        rows.append(
            {
                "cell": f"{int(r['cell'])}: {r['cell_label']}",
                "turns per round, change [95% CI]": _cr(r, "turns_diff_vs_cell0"),
                "p (turns)": _p(r["turns_diff_vs_cell0_p"]),
                "first-player win rate, change (pp)": _prr(r, "first_seat_diff_vs_cell0"),
                "p (first seat)": _p(r["first_seat_diff_vs_cell0_p"]),
            }
        )
    return _table(rows)


def _comparisons_table(comparisons: pd.DataFrame, summary: pd.DataFrame) -> str:
    """One row per ``compare:`` pair: the paired changes, and rounds per match on each side."""
    labels = summary.set_index("cell")["cell_label"]
    per_match = summary.set_index("cell")["rounds_per_match_mean"]
    rows = []
    for key, group in comparisons.groupby(["cell", "baseline_cell"], sort=False):
        cell, baseline = cast(tuple[int, int], key)  # the stubs type a group key as Hashable
        by = group.set_index("measure")
        row = {"cell": labels[cell], "compared with": labels[baseline]}
        turns, first = by.loc["turns"], by.loc["first_seat_won"]
        assert isinstance(turns, pd.Series) and isinstance(first, pd.Series)  # one row per measure
        row["turns per round, change [95% CI]"] = _ci(turns["diff"], turns["diff_low"], turns["diff_high"])
        row["p (turns)"] = _p(turns["p_value"])
        row["first-player win rate, change (pp)"] = _pp(first["diff"], first["diff_low"], first["diff_high"])
        row["p (first seat)"] = _p(first["p_value"])
        for measure, r in by.iterrows():
            if isinstance(measure, str) and measure.startswith("won:"):
                bot = measure.removeprefix("won:")
                change = _pp(r["diff"], r["diff_low"], r["diff_high"])
                row[f"{bot} win rate, change (pp)"] = change
                row[f"p ({bot})"] = _p(r["p_value"])
        row["rounds per match"] = f"{per_match[baseline]:.2f} -> {per_match[cell]:.2f}"
        rows.append(row)
    return _table(rows)


def _bots_table(bots: pd.DataFrame) -> str:
    rows = []
    for _, r in bots.iterrows():
        rows.append(
            {
                "cell": f"{int(r['cell'])}: {r['cell_label']}",
                "bot": r["bot_label"],
                "seat-rounds": int(r["n"]),
                "win rate [95% CI]": _cr(r, "win", value="win_rate", percent=True),
                "fair share": f"{100 * r['fair_share']:.1f}%",
                "mean score [95% CI]": _cr(r, "score_mean"),
                "win rate vs cell 0 (pp)": _prr(r, "win_rate_diff_vs_cell0"),
                "p": _p(r["win_rate_diff_vs_cell0_p"]),
            }
        )
    return _table(rows)


def _first(listing: str, n: int) -> str:
    """The first ``n`` items of a ``;``-separated listing, and how many more there are."""
    items = [item.strip() for item in listing.split(";")]
    more = f"; and {len(items) - n} more" if len(items) > n else ""
    return "; ".join(items[:n]) + more


def _ratings_section(ratings: pd.DataFrame | None, data: dict, keys: list[str]) -> list[str]:
    """The ratings tables (``ratings.csv``), their agreement with the Bradley-Terry fit and the
    cause of each pair the two order oppositely (``stats.inversion_causes`` on the run's tables)."""
    if ratings is None or ratings.empty:
        return []

    def rows(frame: pd.DataFrame, cells: bool) -> list[dict]:
        out = []
        for _, r in frame.iterrows():
            row: dict[str, object] = {"cell": f"{int(r['cell'])}: {r['cell_label']}"} if cells else {}
            row |= {
                "rank": int(r["rank"]),
                "bot": r["bot_label"],
                "mu ± 3 sigma": f"{r['mu']:.2f} ± {3 * r['sigma']:.2f}",
                "ordinal (mu - 3 sigma)": f"{r['ordinal']:.2f}",
                "rounds": int(r["rounds"]),
                "finishes above another bot": f"{100 * r['pair_win_rate']:.1f}% of {int(r['pairs'])}",
                "Bradley-Terry score": f"{r['bt_score']:+.3f}",
                "BT rank": int(r["bt_rank"]),
            }
            out.append(row)
        return out

    lines = [
        "## Ratings",
        "",
        "Plackett-Luce ratings (openskill, no drift) from each round's order of finish: the winner "
        "first, the others by round score, then by points left (equal seats share a place). Rounds "
        "are rated in (game, round) order; an overall ladder takes (game, round, cell). A bot "
        "holding several seats is one player: each seat is rated from the bot's rating and the "
        "updates are averaged. Written to `ratings.csv`. Cross-check: a Bradley-Terry fit to the "
        "pairwise results (every pair of seats holding different bots in a round; the seat that "
        "finished higher wins, ties count half).",
        "",
    ]
    overall = ratings[ratings["cell"] < 0]
    if not overall.empty:
        lines += ["### Overall: one ladder over every cell of a profile", ""]
        for _, part in overall.groupby("cell", sort=False):
            lines += [f"`{_line(part['cell_label'].iloc[0])}`", "", _table(rows(part, cells=False))]
    lines += ["### Per cell", "", _table(rows(ratings[ratings["cell"] >= 0], cells=True))]
    agreement = stats.rating_agreement(ratings)
    lines += [
        "### Agreement of the two rankings",
        "",
        "Kendall's tau of mu against the Bradley-Terry score (1 = the same order) and the pairs of "
        "bots the two order oppositely, with the mu gap in joint sigmas (sqrt(sigma_a² + sigma_b²)). "
        "An inversion has one of two causes. (1) Order: the ratings are updated round by round, and "
        "another order of the same rounds moves mu by about a sigma, so bots less than about one "
        "joint sigma apart may swap. (2) What is counted: Plackett-Luce reads a last place as losing "
        "each successive choice (among 4, then 3, then 2 seats) and a win as one choice, while the "
        "pairwise fit weighs a first and a last place alike, so a bot that often finishes first or "
        "last rates lower by mu than by Bradley-Terry. The table after this one tells them apart.",
        "",
        _table(
            [
                {
                    "cell": f"{int(r['cell'])}: {r['cell_label']}",
                    "bots": int(r["bots"]),
                    "Kendall tau": "–" if pd.isna(r["kendall_tau"]) else f"{r['kendall_tau']:.2f}",
                    "inversions": int(r["inversions"]),
                    "inverted (by mu)": _first(str(r["inverted"]), 3) if r["inverted"] else "none",
                }
                for _, r in agreement.iterrows()
            ]
        ),
    ]
    causes = stats.inversion_causes(data["seats"], ratings, data["games"], keys)
    if causes.empty:
        return lines
    lines += [
        "### Why the two rankings disagree",
        "",
        f"Each inverted pair's rounds rated again in {stats.ORDERS} random orders (one generator "
        "seeded 0 per rating), and the Plackett-Luce model fitted to all of them at once by maximum "
        "likelihood, which no order of the rounds sways. Where that fit orders the pair as "
        "Bradley-Terry does, the order of the rounds made the inversion (`order`); where it orders "
        "it as mu does, the two models count the places differently (`counted`).",
        "",
        _table(
            [
                {
                    "cell": f"{int(r['cell'])}: {r['cell_label']}",
                    "above by mu": r["above"],
                    "below": r["below"],
                    "mu gap": f"{r['mu_gap']:.2f} ({r['joint_sigma']:.2f} joint sigma)",
                    "random orders keeping it": f"{int(r['orders_above'])} of {int(r['orders'])}",
                    "batch fit gap": f"{r['batch_gap']:+.3f}",
                    "cause": r["cause"],
                }
                for _, r in causes.iterrows()
            ]
        ),
    ]
    return lines


def charts(
    data: dict, keys: list[str], bots: pd.DataFrame, ratings: pd.DataFrame | None = None
) -> list[tuple[str, str, Callable]]:
    """The report's charts: (file stem, title, a function that draws the figure or raises NoData);
    ``ratings`` is ``ratings.csv`` (None: the run has no cell with two distinct bots)."""
    games, seats = stats.completed(data["games"], data["seats"])
    matches = data["matches"]
    multi_cell = games["cell"].nunique() > 1
    base = f"cell 0 ({games.loc[games['cell'] == 0, 'cell_label'].iloc[0]})" if len(games) else "cell 0"

    def forest_turns():
        if not multi_cell:
            raise plots.NoData("paired differences: a single cell, nothing to compare")
        comparisons = stats.compare_cells(games, "turns", baseline_cell=0)
        return plots.plot_forest(
            comparisons, xlabel="Change in turns per round vs cell 0 (turns)", baseline_label=base
        )

    def forest_bots():
        if not multi_cell:
            raise plots.NoData("paired win-rate differences: a single cell, nothing to compare")
        comparisons = stats.compare_cells(seats, "won", baseline_cell=0, by=("bot",))
        return plots.plot_forest(
            comparisons, xlabel="Change in win rate vs cell 0", group="bot",
            percent=True, baseline_label=base,
        )  # fmt: skip

    def rating_chart():
        if ratings is None or ratings.empty:
            raise plots.NoData("ratings: no cell has two distinct bots")
        return plots.plot_ratings(ratings)

    return [
        ("seat_win_rates", "Win rate by play order (first-seat advantage)",
         lambda: plots.plot_seat_win_rates(stats.seat_win_rates(seats, by=("cell", "cell_label")))),
        ("win_rates", "Win rate of each bot", lambda: plots.plot_win_rates(bots)),
        ("turns", "Turns per round", lambda: plots.plot_turns(games)),
        ("points_left", "Points left on losing racks", lambda: plots.plot_points_left(seats, games)),
        ("forest_turns", "Turns per round: paired change vs cell 0", forest_turns),
        ("forest_win_rates", "Bot win rates: paired change vs cell 0", forest_bots),
        ("sweep", "Win rate against the swept parameters", lambda: plots.plot_sweep(bots, keys)),
        ("rounds_per_match", "Rounds per match", lambda: plots.plot_rounds_per_match(matches)),
        ("ratings", "Bot ratings (Plackett-Luce mu, whiskers mu ± 3 sigma)", rating_chart),
    ]  # fmt: skip


def _reproduce(out: Path, manifest: dict, experiment: dict) -> str:
    """The ``rummisim run`` command that plays the run again, with ``--out`` when the run used
    another folder than the default ``results/<name>``."""
    command = [
        "rummisim", "run", str(experiment["source"]),
        "--seed", str(experiment["seed"]), "--games", str(experiment["requested_games_per_cell"]),
    ]  # fmt: skip
    given = str(manifest.get("out") or out)
    resolved = Path(manifest.get("out_resolved") or out.resolve())
    default = Path("results") / str(experiment["name"])
    if Path(given) != default and resolved != (Path.cwd() / default).resolve():
        command += ["--out", given]
    return shlex.join(command)


def _header(out: Path, manifest: dict, experiment: dict) -> list[str]:
    intervals = (
        "- Intervals are 95%: Wilson for rates, bootstrap for means, paired t for differences "
        "(pairs share a deal, rotation and round)."
    )
    faults = manifest.get("faults", {}).get("games", 0)
    if manifest.get("manifest_missing"):
        return [
            f"# {_line(experiment['name'])}",
            "",
            f"- **manifest.json was missing**: this report is built from the tables in {_line(out)} alone, "
            "so the experiment file, root seed, versions and the faults' replay commands are unknown, "
            "and so is any `compare:` pair.",
            f"- {len(experiment['cells'])} cell(s), up to {experiment['games_per_cell']} games per cell",
            f"- Games with faults: {faults} (bot errors, illegal moves, turn caps, crashes)",
            intervals,
        ]
    return [
        f"# {_line(experiment['name'])}",
        "",
        experiment.get("description") or "",
        "",
        f"- Reproduce: `{_line(_reproduce(out, manifest, experiment))}`",
        f"- {len(experiment['cells'])} cell(s) x {experiment['games_per_cell']} games "
        f"({'seat rotation on' if experiment['rotate_seats'] else 'no seat rotation'}); "
        f"root seed {experiment['seed']}; rummisim {manifest.get('package_version')}, "
        f"commit {str(manifest.get('git_commit') or 'unknown')[:10]}",
        f"- Games with faults: {faults} "
        "(bot errors, illegal moves, turn caps, crashes; listed with replay commands in manifest.json)",
        intervals,
    ]


def replace_file(path: Path, write: Callable[[Path], object]) -> None:
    """``write`` a temp file beside ``path`` (same suffix), then rename it over ``path``."""
    tmp = path.with_name(f".tmp-{path.name}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_report(out: str | Path) -> Path:
    """Write ``report.md`` and ``charts/*.png`` (and refresh ``summary.csv`` and
    ``summary_bots.csv``, computed once for both) for a finished run; return the report's path.

    Each file is replaced atomically. A folder whose manifest is missing is reported from its
    tables (the report says so); any other problem with the folder is a one-line ``ExperimentError``.
    """
    out = Path(out)
    data = load_results(out, require_manifest=False)
    manifest = data["manifest"]
    experiment = manifest["experiment"]
    keys = list(experiment.get("sweep_keys", []))
    summary, bots = write_summary(out, data)
    ratings_path = out / "ratings.csv"
    ratings = pd.read_csv(ratings_path) if ratings_path.exists() else None

    lines = [*_header(out, manifest, experiment), "", "## Cells", "", _cells_table(summary, keys)]
    if len(summary) > 1:
        lines += ["## Paired changes against cell 0", "", _paired_table(summary)]
    pairs = [(c["cell"], c["baseline"]) for c in experiment.get("compare", [])]
    if pairs:
        comparisons = stats.compare_pairs(data["games"], data["seats"], pairs)
        replace_file(out / "comparisons.csv", lambda tmp: comparisons.to_csv(tmp, index=False))
        lines += [
            "## Paired comparisons (`compare:`)",
            "",
            "Each cell against the cell named in the experiment's `compare:` (written to `comparisons.csv`).",
            "",
            _comparisons_table(comparisons, summary),
        ]
    lines += ["## Bots", "", _bots_table(bots), *_ratings_section(ratings, data, keys), "## Charts", ""]
    chart_dir = out / CHART_DIR
    for stem, title, draw in charts(data, keys, bots, ratings):
        try:
            fig = draw()
        except plots.NoData as exc:
            lines += [f"- {title}: skipped ({_line(exc)}).", ""]
            (chart_dir / f"{stem}.png").unlink(missing_ok=True)
            continue
        chart_dir.mkdir(parents=True, exist_ok=True)
        replace_file(chart_dir / f"{stem}.png", functools.partial(plots.save, fig))
        lines += [f"### {title}", "", f"![{title}]({CHART_DIR}/{stem}.png)", ""]
    path = out / "report.md"
    replace_file(path, lambda tmp: tmp.write_text("\n".join(lines)))
    return path
