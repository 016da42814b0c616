"""rummisim.plots: each chart on small synthetic tables, its drawn data, labels, and the missing-data path."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from rummisim import plots, stats  # noqa: E402

LONG = "jokers.penalty=50, runs.wrap=true, pool_exhausted=lowest_points_wins"


def seat_rates(fair: tuple[float, float] = (0.5, 0.5)) -> pd.DataFrame:
    """Two cells, two play-order positions."""
    return pd.DataFrame(
        {
            "cell": [0, 0, 1, 1],
            "cell_label": ["standard", "standard", LONG, LONG],
            "order": [0, 1, 0, 1],
            "n": [100] * 4,
            "wins": [60, 40, 55, 45],
            "rate": [0.60, 0.40, 0.55, 0.45],
            "low": [0.50, 0.30, 0.45, 0.35],
            "high": [0.70, 0.50, 0.65, 0.55],
            "fair_share": [fair[0], fair[0], fair[1], fair[1]],
        }
    )


def errorbars(ax) -> list[ErrorbarContainer]:
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def legend_texts(fig: Figure) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def ytick_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_wrap_label_breaks_at_spaces_then_separators():
    assert plots.wrap_label("standard") == "standard"
    assert (
        plots.wrap_label(LONG) == "jokers.penalty=50,\nruns.wrap=true,\npool_exhausted=\nlowest_points_wins"
    )
    assert plots.wrap_label("initial_meld.threshold=40", width=20) == "initial_meld.\nthreshold=40"
    assert plots.wrap_label("x" * 40) == "x" * 40  # never cut inside a name


def test_palette_is_okabe_ito():
    assert plots.colour(0) == "#0072B2" and plots.colour(1) == "#E69F00"
    assert plots.colour(len(plots.OKABE_ITO)) == plots.colour(0)


def test_seat_win_rates_chart():
    fig = plots.plot_seat_win_rates(seat_rates())
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    bars = errorbars(ax)
    assert len(bars) == 2  # one series per play-order position
    first_x, first_y = bars[0].lines[0].get_data()
    assert list(first_x) == [0.60, 0.55]
    # rows top to bottom in cell order: cell 0 above cell 1
    assert first_y[0] > first_y[1]
    assert ytick_texts(ax) == ["standard", plots.wrap_label(LONG)]
    assert "Win rate" in ax.get_xlabel() and "Wilson" in ax.get_xlabel()
    assert ax.get_title() == "Win rate by play order"
    fair = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert len(fair) == 1 and list(fair[0].get_xdata()) == [0.5, 0.5]
    assert legend_texts(fig) == ["1st to play", "2nd to play", "fair share (50%)"]
    assert plt.get_fignums() == []  # built without pyplot: nothing left open


def test_seat_win_rates_chart_with_mixed_table_sizes():
    fig = plots.plot_seat_win_rates(seat_rates(fair=(0.5, 0.25)))
    segments = [
        c
        for c in fig.axes[0].collections
        if isinstance(c, LineCollection) and c.get_label().startswith("fair")
    ]
    assert len(segments) == 1
    assert [s[0][0] for s in segments[0].get_segments()] == [0.5, 0.25]


def test_seat_win_rates_chart_by_seat_and_missing_data():
    fig = plots.plot_seat_win_rates(seat_rates().rename(columns={"order": "seat"}), position="seat")
    assert legend_texts(fig)[:2] == ["seat 0", "seat 1"]
    with pytest.raises(plots.NoData, match="no rows"):
        plots.plot_seat_win_rates(seat_rates().iloc[:0])
    with pytest.raises(plots.NoData, match="order"):
        plots.plot_seat_win_rates(seat_rates().drop(columns="order"))


def test_win_rates_chart_reads_summary_bots_columns():
    bots = pd.DataFrame(
        {
            "cell": [0, 0, 1, 1],
            "bot_label": ["greedy", "conservative(min_play=2)"] * 2,
            "win_rate": [0.3, 0.2, 0.25, 0.25],
            "win_low": [0.25, 0.15, 0.2, 0.2],
            "win_high": [0.35, 0.25, 0.3, 0.3],
            "fair_share": 0.25,
        }
    )
    fig = plots.plot_win_rates(bots)
    ax = fig.axes[0]
    assert len(errorbars(ax)) == 2
    assert ytick_texts(ax) == ["cell 0", "cell 1"]  # no label column: cell numbers
    assert "fair share (25%)" in legend_texts(fig)


def games_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "cell": [0, 0, 0, 1, 1, 1],
            "cell_label": ["standard"] * 3 + [LONG] * 3,
            "turns": [10, 20, 60, 30, 40, 0],
            "end_reason": ["out", "out", "pool_exhausted", "out", "out", "fault"],
        }
    )


def test_turns_chart_shows_box_and_mean_without_faults():
    fig = plots.plot_turns(games_frame())
    assert len(fig.axes) == 1
    ax = fig.axes[0]
    means = [line for line in ax.lines if line.get_label() == "mean"]
    assert len(means) == 1
    # cell 0: (10 + 20 + 60) / 3 = 30; cell 1 without its fault round: (30 + 40) / 2 = 35
    assert list(means[0].get_xdata()) == pytest.approx([30.0, 35.0])
    assert len(ax.patches) == 2  # one box per cell
    assert "Turns per round" in ax.get_xlabel()
    assert ytick_texts(ax) == ["standard", plots.wrap_label(LONG)]
    assert "mean" in legend_texts(fig)


def test_distribution_missing_data():
    with pytest.raises(plots.NoData, match="turns"):
        plots.plot_turns(games_frame().drop(columns="turns"))
    only_faults = games_frame()[games_frame()["end_reason"] == "fault"]
    with pytest.raises(plots.NoData, match="no rows"):
        plots.plot_turns(only_faults)
    no_values = games_frame().assign(turns=pd.array([None] * 6, dtype="Int64"))
    with pytest.raises(plots.NoData, match="no value"):
        plots.plot_turns(no_values)


def test_points_left_chart_uses_losers_of_completed_rounds():
    seats = pd.DataFrame(
        {
            "cell": [0, 0, 0, 0, 1, 1, 1, 1],
            "game": [0, 0, 1, 1, 2, 2, 3, 3],
            "round": 0,
            "won": [True, False, False, True, True, False, True, False],
            "points_left": [0, 12, 30, 0, 0, 8, 0, 100],
        }
    )
    games = pd.DataFrame(
        {"cell": [0, 0, 1, 1], "game": [0, 1, 2, 3], "round": 0, "end_reason": ["out", "out", "out", "fault"]}
    )
    assert mean_of(plots.plot_points_left(seats)) == pytest.approx([21.0, 54.0])
    assert mean_of(plots.plot_points_left(seats, games)) == pytest.approx([21.0, 8.0])
    fig = plots.plot_points_left(seats, games)
    assert "Points left" in fig.axes[0].get_xlabel()
    assert ytick_texts(fig.axes[0]) == ["cell 0", "cell 1"]


def mean_of(fig: Figure) -> list[float]:
    """The x positions of a distribution chart's mean markers."""
    return list(next(line for line in fig.axes[0].lines if line.get_label() == "mean").get_xdata())


def comparisons() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "cell": [1, 2, 3],
            "cell_label": ["initial_meld.threshold=40", LONG, "no shared deals"],
            "baseline_cell": 0,
            "n_pairs": [40, 40, 0],
            "diff": [0.05, -0.02, np.nan],
            "diff_low": [0.01, -0.06, np.nan],
            "diff_high": [0.09, 0.02, np.nan],
            "p_value": [0.012, 0.3, np.nan],
        }
    )


def test_forest_plot_rows_zero_line_and_annotations():
    fig = plots.plot_forest(
        comparisons(), "Change in first-seat win rate", percent=True, baseline_label="standard"
    )
    ax = fig.axes[0]
    bars = errorbars(ax)
    assert len(bars) == 1
    x, _ = bars[0].lines[0].get_data()
    assert list(x) == pytest.approx([5.0, -2.0])  # percentage points; the row without pairs is left out
    assert ytick_texts(ax) == ["initial_meld.threshold=40", plots.wrap_label(LONG)]
    zero = [line for line in ax.lines if list(line.get_xdata()) == [0.0, 0.0]]
    assert len(zero) == 1
    notes = [t.get_text() for t in ax.texts]
    assert notes == ["+5 [1, 9]\np = 0.012", "-2 [-6, 2]\np = 0.300"]
    assert ax.get_xlabel() == "Change in first-seat win rate (percentage points), 95% interval"
    assert ax.get_title() == "Paired difference vs baseline: standard"


def test_forest_plot_by_group_and_missing_data():
    both = pd.concat([comparisons().assign(bot="greedy"), comparisons().assign(bot="conservative")])
    fig = plots.plot_forest(both, group="bot")
    assert len(errorbars(fig.axes[0])) == 2
    assert fig.legends[0].get_title().get_text() == "bot"
    assert fig.axes[0].get_title() == "Paired difference vs baseline: cell 0"
    with pytest.raises(plots.NoData, match="shares deals"):
        plots.plot_forest(comparisons().iloc[[2]])


def sweep_rates() -> pd.DataFrame:
    """conservative (swept) vs greedy, min_play 1..3 x threshold 30/40."""
    rows = []
    for cell, (min_play, threshold) in enumerate([(m, t) for t in (30, 40) for m in (1, 2, 3)]):
        rate = 0.1 * min_play + (0.05 if threshold == 40 else 0.0)
        for bot, label, r in (
            ("conservative", f"conservative(min_play={min_play})", rate),
            ("greedy", "greedy", 0.5 - rate / 3),
        ):
            rows.append(
                {"cell": cell, "min_play": min_play, "threshold": threshold, "bot": bot, "bot_label": label,
                 "win_rate": r, "win_low": r - 0.02, "win_high": r + 0.02, "fair_share": 0.25}
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_sweep_one_parameter_draws_a_line_with_band_per_bot():
    one = sweep_rates().query("threshold == 30")
    fig = plots.plot_sweep(one, keys=["min_play", "threshold"])  # threshold does not vary here
    ax = fig.axes[0]
    assert len(fig.axes) == 1
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    lines = {line.get_label(): line for line in ax.lines}
    assert list(lines["conservative"].get_xdata()) == [1, 2, 3]
    assert list(lines["conservative"].get_ydata()) == pytest.approx([0.1, 0.2, 0.3])
    assert "fair share (25%)" in lines
    assert ax.get_xlabel() == "min_play" and "Win rate" in ax.get_ylabel()
    only = plots.plot_sweep(one, keys=["min_play"], bot="greedy")
    assert [line.get_label() for line in only.axes[0].lines if line.get_label() != "fair share (25%)"] == [
        "greedy"
    ]


def test_sweep_two_parameters_draws_a_heatmap_of_the_swept_bot():
    fig = plots.plot_sweep(sweep_rates(), keys=["min_play", "threshold"])
    assert len(fig.axes) == 2  # heatmap and colour bar
    ax = fig.axes[0]
    grid = ax.images[0].get_array()
    # rows: min_play 1..3; columns: threshold 30, 40
    assert np.asarray(grid) == pytest.approx(np.array([[0.1, 0.15], [0.2, 0.25], [0.3, 0.35]]))
    assert ax.get_xlabel() == "threshold" and ax.get_ylabel() == "min_play"
    assert "conservative" in ax.get_title()
    assert len(ax.texts) == 6 and ax.texts[0].get_text() == "10.0%\n[8.0%, 12.0%]"
    assert "Win rate" in fig.axes[1].get_ylabel()
    greedy = plots.plot_sweep(sweep_rates(), keys=["min_play", "threshold"], bot="greedy")
    assert "greedy" in greedy.axes[0].get_title()


def test_sweep_missing_or_unsupported():
    with pytest.raises(plots.NoData, match="no parameter sweep"):
        plots.plot_sweep(sweep_rates(), keys=())
    with pytest.raises(plots.NoData, match="no parameter sweep"):
        plots.plot_sweep(sweep_rates().query("cell == 0"), keys=["min_play"])
    three = sweep_rates().assign(extra=lambda f: f["cell"] % 2)
    with pytest.raises(plots.NoData, match="3 swept"):
        plots.plot_sweep(three, keys=["min_play", "threshold", "extra"])
    with pytest.raises(ValueError, match="several rows"):
        plots.plot_sweep(sweep_rates(), keys=["min_play"])  # threshold varies too but is not named
    with pytest.raises(plots.NoData, match="no row for bot"):
        plots.plot_sweep(sweep_rates(), keys=["min_play", "threshold"], bot="random")


def test_rounds_per_match_one_panel_per_match_cell():
    matches = pd.DataFrame(
        {
            "cell": [0, 0, 0, 0, 1, 1, 2, 2, 2],
            "cell_label": ["first to 200"] * 4 + ["standard"] * 2 + [LONG] * 3,
            "rounds": [1, 2, 2, 5, 1, 1, 3, 3, 4],
        }
    )
    fig = plots.plot_rounds_per_match(matches)
    assert len(fig.axes) == 2  # the single-round cell 1 is left out
    top = fig.axes[0]
    heights = [p.get_height() for p in top.patches]
    assert heights == pytest.approx([0.25, 0.5, 0.25])  # 1, 2 and 5 rounds
    assert [p.get_x() + p.get_width() / 2 for p in top.patches] == pytest.approx([1, 2, 5])
    assert top.get_title() == "first to 200"
    assert "mean 2.50" in [t.get_text() for t in top.get_legend().get_texts()]
    assert fig.axes[1].get_xlabel() == "Rounds per match"
    assert fig.axes[1].get_title() == plots.wrap_label(LONG, 60)


def test_rounds_per_match_missing_data():
    with pytest.raises(plots.NoData, match="single round"):
        plots.plot_rounds_per_match(pd.DataFrame({"cell": [0, 1], "rounds": [1, 1]}))
    with pytest.raises(plots.NoData, match="no rows"):
        plots.plot_rounds_per_match(None)


def test_charts_from_stats_tables_and_save(tmp_path):
    seats = pd.DataFrame(
        {
            "cell": [0] * 4 + [1] * 4,
            "cell_label": ["a"] * 4 + ["b"] * 4,
            "order": [0, 1] * 4,
            "won": [True, False, True, False, False, True, True, False],
            "n_players": 2,
        }
    )
    table = stats.seat_win_rates(seats, by=("cell", "cell_label"))
    fig = plots.plot_seat_win_rates(table)
    x, _ = errorbars(fig.axes[0])[0].lines[0].get_data()
    assert list(x) == [1.0, 0.5]  # first to play won 2/2 in cell a, 1/2 in cell b
    path = plots.save(fig, tmp_path / "charts" / "seats.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
