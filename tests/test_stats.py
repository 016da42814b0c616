"""rummisim.stats against hand-computed values on small hand-built tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rummisim import stats

Z95 = 1.959963984540054


def make_tables(rounds: list[dict], experiment: str = "exp") -> tuple[pd.DataFrame, pd.DataFrame]:
    """games and seats frames in the runner's schema from a list of round specs.

    Each spec: cell, deal, rotation, turns, winner (seat, -1 for a fault), points (per seat);
    optional: round (0), end_reason ("out"), first_player (0), bots (labels per seat,
    default "greedy"), label (cell label), opened (opened turn per seat, None = never), key (sweep
    value for column "k").
    """
    games, seats = [], []
    game_of: dict[tuple, int] = {}
    for spec in rounds:
        cell = spec["cell"]
        points = spec["points"]
        n = len(points)
        bots = spec.get("bots", ["greedy"] * n)
        ident = {
            "experiment": experiment,
            "cell": cell,
            "cell_label": spec.get("label", f"cell-{cell}"),
            "profile": "standard",
            "profile_hash": "abc",
            "lineup": ",".join(bots),
            "k": spec.get("key", 0),
            "deal": spec["deal"],
            "rotation": spec["rotation"],
            "game": game_of.setdefault((cell, spec["deal"], spec["rotation"]), len(game_of)),
            "seed": 7,
            "round": spec.get("round", 0),
            "n_players": n,
        }
        winner = spec["winner"]
        first = spec.get("first_player", 0)
        games.append(
            {
                **ident,
                "first_player": first,
                "turns": spec["turns"],
                "winner": winner,
                "winner_bot": bots[winner] if winner >= 0 else "",
                "tied": False,
                "end_reason": spec.get("end_reason", "out"),
                "pool_left": 10,
                "faults": spec.get("faults", 0),
                "timeouts": 0,
            }
        )
        opened = spec.get("opened", [1] * n)
        for seat in range(n):
            won = seat == winner
            seats.append(
                {
                    **ident,
                    "seat": seat,
                    "order": (seat - first) % n,
                    "slot": seat,
                    "bot": bots[seat].split("(")[0],
                    "bot_label": bots[seat],
                    "score": sum(points) - points[seat] if won else -points[seat],
                    "tiles_left": points[seat] // 5,
                    "points_left": points[seat],
                    "won": won,
                    "opened_turn": opened[seat],
                }
            )
    games_df = pd.DataFrame(games)
    seats_df = pd.DataFrame(seats)
    seats_df["opened_turn"] = seats_df["opened_turn"].astype("Int64")
    return games_df, seats_df


# ---------------------------------------------------------------------------------------------------
# Wilson


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Newcombe (1998), Stat Med 17:857-872, table I, method 3 (score interval without continuity
        # correction)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_newcombe_1998(successes, n, low, high):
    got_low, got_high = stats.wilson_interval(successes, n)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


def test_wilson_edges_are_exact():
    # with no success the interval is [0, z^2 / (n + z^2)]; with all successes its mirror image
    z2 = Z95**2
    assert stats.wilson_interval(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    assert stats.wilson_interval(10, 10) == (pytest.approx(1 - z2 / (10 + z2)), 1.0)
    assert stats.wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=5e-5)
    # a 99% interval is wider: z = 2.5758
    assert stats.wilson_interval(0, 10, confidence=0.99)[1] == pytest.approx(0.39885, abs=5e-5)


def test_wilson_two_of_three_by_hand():
    # p = 2/3, n = 3: centre (p + z^2/6) / (1 + z^2/3) = 0.57309, half-width 0.36542
    low, high = stats.wilson_interval(2, 3)
    assert low == pytest.approx(0.20766, abs=5e-5)
    assert high == pytest.approx(0.93851, abs=5e-5)


def test_wilson_is_vectorised_and_handles_n_zero():
    low, high = stats.wilson_interval(np.array([81, 0, 0]), np.array([263, 10, 0]))
    assert isinstance(low, np.ndarray) and low.shape == (3,)
    assert low[:2] == pytest.approx([0.2553, 0.0], abs=5e-5)
    assert high[:2] == pytest.approx([0.3662, 0.2775], abs=5e-5)
    assert math.isnan(low[2]) and math.isnan(high[2])


@pytest.mark.parametrize(("successes", "n"), [(5, 3), (-1, 3), (1, -2)])
def test_wilson_rejects_impossible_counts(successes, n):
    with pytest.raises(ValueError, match="successes"):
        stats.wilson_interval(successes, n)


def test_wilson_rejects_bad_confidence():
    with pytest.raises(ValueError, match="confidence"):
        stats.wilson_interval(1, 2, confidence=1.0)


# ---------------------------------------------------------------------------------------------------
# Win rates and seat effects


def four_rounds() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Cell 0, 2 players A (seat 0) and B (seat 1). A wins rounds 0, 1 and 3; first player alternates."""
    specs = [
        {"cell": 0, "deal": 0, "rotation": 0, "turns": 10, "winner": 0, "first_player": 0, "points": [0, 20]},
        {"cell": 0, "deal": 1, "rotation": 0, "turns": 20, "winner": 0, "first_player": 1, "points": [0, 30]},
        {"cell": 0, "deal": 2, "rotation": 0, "turns": 30, "winner": 1, "first_player": 0, "points": [40, 0]},
        {"cell": 0, "deal": 3, "rotation": 0, "turns": 40, "winner": 0, "first_player": 0, "points": [0, 10]},
    ]
    for spec in specs:
        spec["bots"] = ["A", "B"]
    return make_tables(specs)


def test_win_rates_count_seat_rounds():
    _, seats = four_rounds()
    out = stats.win_rates(seats)
    assert list(out.columns) == ["cell", "bot_label", "n", "wins", "rate", "low", "high"]
    a = out.set_index("bot_label").loc["A"]
    assert (a["n"], a["wins"]) == (4, 3)
    assert a["rate"] == pytest.approx(0.75)
    # Wilson 3/4: centre (0.75 + z^2/8) / (1 + z^2/4) = 0.65078, half-width 0.34021
    assert a["low"] == pytest.approx(0.30064, abs=5e-5)
    assert a["high"] == pytest.approx(0.95441, abs=5e-5)
    assert out.set_index("bot_label").loc["B", "wins"] == 1


def test_win_rates_without_grouping_is_one_row():
    _, seats = four_rounds()
    out = stats.win_rates(seats, by=())
    assert len(out) == 1 and out.loc[0, "n"] == 8 and out.loc[0, "wins"] == 4


def test_seat_win_rates_by_order_and_by_seat():
    _, seats = four_rounds()
    by_order = stats.seat_win_rates(seats).set_index("order")
    # the first player won rounds 0 and 3 (seat 0 first) only: round 1 B was first, A won
    assert by_order.loc[0, "wins"] == 2 and by_order.loc[0, "n"] == 4
    assert by_order.loc[1, "wins"] == 2
    assert by_order["fair_share"].tolist() == [0.5, 0.5]
    by_seat = stats.seat_win_rates(seats, position="seat").set_index("seat")
    assert by_seat.loc[0, "wins"] == 3 and by_seat.loc[1, "wins"] == 1
    assert list(stats.seat_win_rates(seats, position="seat").columns) == [
        "cell", "seat", "n", "wins", "rate", "low", "high", "fair_share",
    ]  # fmt: skip


def test_first_seat_advantage_subtracts_fair_share():
    games, seats = four_rounds()
    extra, extra_seats = make_tables(
        [
            {"cell": 1, "deal": d, "rotation": 0, "turns": 5, "winner": 0, "points": [0, 5, 5]}
            for d in range(3)
        ]
    )
    seats = pd.concat([seats, extra_seats], ignore_index=True)
    out = stats.first_seat_advantage(seats).set_index("cell")
    assert out.loc[0, "rate"] == pytest.approx(0.5)
    assert out.loc[0, "advantage"] == pytest.approx(0.0)
    low, high = stats.wilson_interval(2, 4)
    assert out.loc[0, "advantage_low"] == pytest.approx(low - 0.5)
    assert out.loc[0, "advantage_high"] == pytest.approx(high - 0.5)
    # cell 1: three players, the first player won all 3 rounds
    assert out.loc[1, "fair_share"] == pytest.approx(1 / 3)
    assert out.loc[1, "advantage"] == pytest.approx(2 / 3)
    assert out.loc[1, "high"] == 1.0


def test_rate_with_zero_events_and_mask():
    games, _ = four_rounds()
    faults = stats.rate(games, games["end_reason"] == "fault")
    assert faults.loc[0, "events"] == 0 and faults.loc[0, "n"] == 4
    assert faults.loc[0, "rate"] == 0.0 and faults.loc[0, "low"] == 0.0
    assert faults.loc[0, "high"] == pytest.approx(Z95**2 / (4 + Z95**2))
    long_games = stats.rate(games.assign(long=games["turns"] > 25), "long", by=())
    assert long_games.loc[0, "events"] == 2 and long_games.loc[0, "rate"] == 0.5


def test_rate_on_empty_frame_is_empty():
    games, _ = four_rounds()
    out = stats.rate(games.iloc[:0], games.iloc[:0]["end_reason"] == "fault")
    assert out.empty and list(out.columns) == ["cell", "n", "events", "rate", "low", "high"]


def test_rate_mask_length_must_match():
    games, _ = four_rounds()
    with pytest.raises(ValueError, match="mask"):
        stats.rate(games, np.array([True, False]))


def test_missing_column_is_named():
    games, _ = four_rounds()
    with pytest.raises(ValueError, match="won"):
        stats.win_rates(games)


# ---------------------------------------------------------------------------------------------------
# Bootstrap and describe


def test_bootstrap_is_deterministic_and_seed_dependent():
    values = np.arange(30.0) ** 1.5
    first = stats.bootstrap_ci(values, seed=3)
    assert first == stats.bootstrap_ci(values, seed=3)
    assert first == stats.bootstrap_ci(values, seed=np.random.default_rng(3))
    assert first != stats.bootstrap_ci(values, seed=4)
    assert first[0] < values.mean() < first[1]


def test_bootstrap_of_a_proportion_matches_the_normal_interval():
    # 400 values, 120 ones: the bootstrap distribution of the mean is ~ N(0.3, 0.3*0.7/400)
    values = np.array([1.0] * 120 + [0.0] * 280)
    low, high = stats.bootstrap_ci(values, n_boot=20000, seed=1)
    half = Z95 * math.sqrt(0.3 * 0.7 / 400)
    assert low == pytest.approx(0.3 - half, abs=0.006)
    assert high == pytest.approx(0.3 + half, abs=0.006)


def test_bootstrap_resampling_path_agrees_with_the_counts_path():
    # a mean of continuous values (all distinct) goes through index resampling
    values = np.random.default_rng(0).normal(10.0, 2.0, size=400)
    low, high = stats.bootstrap_ci(values, n_boot=20000, seed=1)
    half = Z95 * values.std(ddof=0) / math.sqrt(400)
    assert low == pytest.approx(values.mean() - half, abs=0.03)
    assert high == pytest.approx(values.mean() + half, abs=0.03)


def test_bootstrap_any_statistic_and_edge_cases():
    assert stats.bootstrap_ci([4.0] * 9, stat=np.median) == (4.0, 4.0)
    # a statistic without an axis argument still works
    low, high = stats.bootstrap_ci([1.0, 2.0, 3.0, 100.0], stat=lambda x: float(max(x)), n_boot=500)
    assert 1.0 <= low <= high == 100.0
    assert all(math.isnan(v) for v in stats.bootstrap_ci([]))
    assert all(math.isnan(v) for v in stats.bootstrap_ci([np.nan, np.nan]))
    with pytest.raises(ValueError, match="n_boot"):
        stats.bootstrap_ci([1.0, 2.0], n_boot=0)


def test_describe_by_hand():
    games, _ = four_rounds()
    out = stats.describe(games, "turns")
    assert list(out.columns) == ["cell", "n", "mean", "std", "mean_low", "mean_high", "q10", "q50", "q90"]
    row = out.iloc[0]
    assert row["n"] == 4 and row["mean"] == 25.0
    assert row["std"] == pytest.approx(math.sqrt(500 / 3))
    # linear interpolation between order statistics 10, 20, 30, 40
    assert (row["q10"], row["q50"], row["q90"]) == pytest.approx((13.0, 25.0, 37.0))
    assert 10.0 <= row["mean_low"] < 25.0 < row["mean_high"] <= 40.0


def test_describe_drops_na_and_keeps_groups_independent():
    frame = pd.DataFrame(
        {
            "cell": [0, 0, 0, 1, 1, 2],
            "x": pd.array([1, 2, None, 5, 9, None], dtype="Int64"),
        }
    )
    out = stats.describe(frame, "x", quantiles=(0.5,)).set_index("cell")
    assert out.loc[0, "n"] == 2 and out.loc[0, "mean"] == 1.5 and out.loc[0, "q50"] == 1.5
    assert out.loc[1, "mean"] == 7.0
    # a group with no value is reported with n = 0, not dropped or crashing
    assert out.loc[2, "n"] == 0 and math.isnan(out.loc[2, "mean"])
    # with an int seed a group's interval does not depend on the other groups
    alone = stats.describe(frame[frame["cell"] == 1], "x", quantiles=(0.5,)).set_index("cell")
    assert alone.loc[1, "mean_low"] == out.loc[1, "mean_low"]
    assert alone.loc[1, "mean_high"] == out.loc[1, "mean_high"]


def test_describe_empty_and_ungrouped():
    games, _ = four_rounds()
    empty = stats.describe(games.iloc[:0], "turns")
    assert empty.empty and "mean_low" in empty.columns
    whole = stats.describe(games, "turns", by=(), quantiles=(0.025,))
    assert len(whole) == 1 and list(whole.columns)[-1] == "q2.5"


# ---------------------------------------------------------------------------------------------------
# Paired comparisons


def paired_frame() -> pd.DataFrame:
    """Cell 0 and 1 on keys (deal 0..3, rotation 0); cell 1 plays deal 2 twice (averaged: 15),
    and deal 9 that cell 0 never played (dropped)."""
    rows = [(0, d, v) for d, v in enumerate([10, 12, 14, 16])]
    rows += [(1, 0, 11), (1, 1, 14), (1, 2, 14), (1, 2, 16), (1, 3, 19), (1, 9, 100)]
    frame = pd.DataFrame(rows, columns=["cell", "deal", "turns"])
    return frame.assign(rotation=0, round=0)


def test_paired_difference_t_by_hand():
    out = stats.paired_difference(paired_frame(), "turns", 0, 1)
    # differences 1, 2, 1, 3: mean 1.75, sd sqrt(2.75 / 3), se = sd / 2, t(3) quantile 3.182446
    se = math.sqrt(2.75 / 3) / 2
    assert out["n_pairs"] == 4
    assert out["diff"] == pytest.approx(1.75)
    assert (out["mean_a"], out["mean_b"]) == pytest.approx((13.0, 14.75))
    assert out["diff_low"] == pytest.approx(1.75 - 3.182446 * se, abs=1e-5)
    assert out["diff_high"] == pytest.approx(1.75 + 3.182446 * se, abs=1e-5)
    assert out["p_value"] == pytest.approx(2 * sps.t.sf(1.75 / se, 3))
    assert out["p_value"] == pytest.approx(0.0354, abs=5e-4)
    assert out["method"] == "t" and (out["cell_a"], out["cell_b"]) == (0, 1)


def test_paired_difference_bootstrap_uses_exact_sign_flip():
    out = stats.paired_difference(paired_frame(), "turns", 0, 1, method="bootstrap")
    # 16 sign patterns of (1, 2, 1, 3); only all-plus and all-minus reach |mean| >= 1.75
    assert out["p_value"] == pytest.approx(2 / 16)
    assert 1.0 <= out["diff_low"] <= 1.75 <= out["diff_high"] <= 3.0
    assert out["method"] == "bootstrap"


def test_paired_difference_of_win_rates_averages_seats_per_key():
    # bot X holds two seats in cell 0 and one in cell 1; per deal: mean of won over its seats
    rows = [
        (0, 0, 1.0), (0, 0, 0.0), (1, 0, 1.0),  # deal 0: 0.5 -> 1.0
        (0, 1, 0.0), (0, 1, 0.0), (1, 1, 0.0),  # deal 1: 0.0 -> 0.0
        (0, 2, 1.0), (0, 2, 0.0), (1, 2, 0.0),  # deal 2: 0.5 -> 0.0
        (0, 3, 0.0), (0, 3, 0.0), (1, 3, 1.0),  # deal 3: 0.0 -> 1.0
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["cell", "deal", "won"]).assign(rotation=0, round=0)
    frame["won"] = frame["won"].astype(bool)
    out = stats.paired_difference(frame, "won", 0, 1)
    assert out["n_pairs"] == 4
    assert out["diff"] == pytest.approx((0.5 + 0.0 - 0.5 + 1.0) / 4)


def test_paired_difference_constant_shift_and_errors():
    frame = paired_frame()
    same = stats.paired_difference(frame, "turns", 0, 0)
    assert same["diff"] == 0.0 and same["p_value"] == 1.0 and same["diff_low"] == 0.0
    with pytest.raises(ValueError, match="share no"):
        stats.paired_difference(frame, "turns", 0, 5)
    with pytest.raises(ValueError, match="method"):
        stats.paired_difference(frame, "turns", 0, 1, method="z")
    one = stats.paired_difference(frame[frame["deal"] == 0], "turns", 0, 1)
    assert one["n_pairs"] == 1 and one["diff"] == 1.0 and math.isnan(one["p_value"])


def test_sign_flip_test_exact_and_sampled():
    assert stats.sign_flip_test([1.0, 1.0, 1.0]) == pytest.approx(2 / 8)
    assert stats.sign_flip_test([0.0, 0.0]) == 1.0
    # 20 equal differences: only 2 of 2**20 patterns are as extreme; sampling gives (0 + 1) / (n + 1)
    assert stats.sign_flip_test(np.ones(20), n_perm=999) == pytest.approx(1 / 1000)
    assert math.isnan(stats.sign_flip_test([]))


def test_holm_adjust_by_hand():
    # sorted 0.01, 0.03, 0.04 -> 3 * 0.01, max(0.03, 2 * 0.03), max(0.06, 1 * 0.04)
    out = stats.holm_adjust([0.01, 0.04, np.nan, 0.03])
    assert out[[0, 1, 3]] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(out[2])


def test_compare_cells_one_row_per_other_cell():
    frame = paired_frame()
    third = frame[frame["cell"] == 0].assign(cell=2, turns=lambda f: f["turns"] - 2)
    frame = pd.concat([frame, third, pd.DataFrame([{"cell": 3, "deal": 50, "turns": 1}])], ignore_index=True)
    frame[["rotation", "round"]] = 0
    out = stats.compare_cells(frame, "turns", baseline_cell=0)
    assert out["cell"].tolist() == [1, 2, 3]
    assert out.loc[0, "diff"] == pytest.approx(1.75)
    assert out.loc[1, "diff"] == -2.0 and out.loc[1, "p_value"] == 0.0
    assert out.loc[1, "mean_baseline"] == 13.0 and out.loc[1, "mean_cell"] == 11.0
    # cell 3 played no deal of the baseline: a row with no pairs, not an error
    assert out.loc[2, "n_pairs"] == 0 and math.isnan(out.loc[2, "diff"])
    assert "cell_label" not in out.columns
    # Holm over the two testable cells: 2 * 0.0 for the smallest, then max(0.0, 1 * 0.0354)
    assert out["p_holm"].tolist()[:2] == pytest.approx([out.loc[0, "p_value"], 0.0])
    assert math.isnan(out.loc[2, "p_holm"])
    with pytest.raises(ValueError, match="baseline"):
        stats.compare_cells(frame, "turns", baseline_cell=7)


def test_compare_cells_by_group():
    frame = pd.concat(
        [paired_frame().assign(bot="a"), paired_frame().assign(bot="b", turns=lambda f: -f["turns"])]
    )
    out = stats.compare_cells(frame, "turns", by=("bot",))
    assert out["bot"].tolist() == ["a", "b"]
    assert out["diff"].tolist() == pytest.approx([1.75, -1.75])


# ---------------------------------------------------------------------------------------------------
# Summaries


def variant_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two cells, 2 players, the same four deals. Cell 1 lasts 2 turns longer, has a fault round,
    one pool exhaustion, and its first player always wins."""
    specs = []
    for deal, (turns, winner, first, loser_points) in enumerate(
        [(10, 0, 0, 20), (20, 0, 1, 30), (30, 1, 0, 40), (40, 0, 0, 10)]
    ):
        specs.append(
            {"cell": 0, "deal": deal, "rotation": 0, "turns": turns, "winner": winner,
             "first_player": first, "points": [0, loser_points] if winner == 0 else [loser_points, 0],
             "label": "standard"}
        )  # fmt: skip
    for deal, (turns, winner, first, reason) in enumerate(
        [(12, 0, 0, "out"), (22, 1, 1, "pool_exhausted"), (32, 0, 0, "out"), (0, -1, 0, "fault")]
    ):
        specs.append(
            {"cell": 1, "deal": deal, "rotation": 0, "turns": turns, "winner": winner,
             "first_player": first, "end_reason": reason, "label": "initial_meld.threshold=40",
             "points": [0, 8] if winner == 0 else [8, 0], "faults": 1 if reason == "fault" else 0}
        )  # fmt: skip
    return make_tables(specs)


def test_completed_drops_fault_rounds_from_both_tables():
    games, seats = variant_tables()
    done, done_seats = stats.completed(games, seats)
    assert len(done) == 7 and (done["end_reason"] != "fault").all()
    assert len(done_seats) == 14
    assert not ((done_seats["cell"] == 1) & (done_seats["deal"] == 3)).any()


def test_summarize_by_hand():
    games, seats = variant_tables()
    matches = games[["experiment", "cell", "game", "deal", "rotation"]].assign(
        rounds=[1, 1, 1, 1, 1, 2, 3, 1]
    )
    out = stats.summarize(games, seats, matches, keys=["k"])
    assert list(out.columns) == stats.summary_columns(["k"])
    assert out["cell"].tolist() == [0, 1]
    assert out["cell_label"].tolist() == ["standard", "initial_meld.threshold=40"]
    zero, one = out.iloc[0], out.iloc[1]
    assert (zero["games"], zero["rounds"], zero["rounds_completed"]) == (4, 4, 4)
    assert (one["games"], one["rounds"], one["rounds_completed"]) == (4, 4, 3)
    assert zero["turns_mean"] == 25.0 and one["turns_mean"] == 22.0
    assert zero["turns_median"] == 25.0 and one["turns_q10"] == pytest.approx(14.0)
    # first player won deals 0 and 3 in cell 0; deals 0, 1, 2 (all completed rounds) in cell 1
    assert zero["first_seat_win_rate"] == 0.5 and zero["first_seat_advantage"] == 0.0
    assert one["first_seat_win_rate"] == 1.0 and one["first_seat_high"] == 1.0
    assert one["first_seat_low"] == pytest.approx(3 / (3 + Z95**2))  # 3 of 3: 1 - z^2 / (n + z^2)
    assert one["fair_share"] == 0.5
    assert zero["pool_exhausted_rate"] == 0.0 and one["pool_exhausted_rate"] == pytest.approx(1 / 3)
    assert one["turn_cap_rate"] == 0.0
    assert (zero["fault_rounds"], one["fault_rounds"]) == (0, 1)
    assert zero["fault_rate"] == 0.0 and zero["fault_high"] == pytest.approx(Z95**2 / (4 + Z95**2))
    assert one["fault_rate"] == 0.25 and one["bot_faults"] == 1
    assert zero["points_left_losers_mean"] == 25.0 and one["points_left_losers_mean"] == 8.0
    assert zero["points_left_losers_median"] == 25.0
    assert zero["rounds_per_match_mean"] == 1.0 and one["rounds_per_match_mean"] == pytest.approx(7 / 4)
    assert zero["rounds_per_match_mean_low"] == 1.0 and zero["rounds_per_match_mean_high"] == 1.0
    # paired on deals 0, 1, 2 (deal 3 faulted in cell 1): +2 turns each round
    assert math.isnan(zero["turns_diff_vs_cell0"])
    assert one["turns_diff_vs_cell0"] == 2.0 and one["turns_diff_vs_cell0_p"] == 0.0
    # first-seat wins per deal: cell 0 (1, 0, 0), cell 1 (1, 1, 1): differences 0, 1, 1
    assert one["first_seat_diff_vs_cell0"] == pytest.approx(2 / 3)
    se = math.sqrt(1 / 3) / math.sqrt(3)
    assert one["first_seat_diff_vs_cell0_high"] == pytest.approx(2 / 3 + sps.t.ppf(0.975, 2) * se)
    assert out["k"].tolist() == [0, 0]


def test_summarize_without_matches_and_with_no_rounds():
    games, seats = variant_tables()
    out = stats.summarize(games, seats)
    assert out["rounds_per_match_mean"].isna().all()
    assert "match_errors" in out.columns
    empty = stats.summarize(games.iloc[:0], seats.iloc[:0])
    assert empty.empty and list(empty.columns) == stats.summary_columns()
    # without cell 0 there is no baseline: the comparison columns are missing numbers, not errors
    alone = stats.summarize(games[games["cell"] == 1], seats[seats["cell"] == 1])
    assert alone["turns_diff_vs_cell0"].dtype == float and alone["turns_diff_vs_cell0"].isna().all()
    assert alone.loc[0, "turns_mean"] == 22.0


def test_summarize_refuses_mixed_experiments():
    games, seats = variant_tables()
    other_games, other_seats = make_tables(
        [{"cell": 0, "deal": 0, "rotation": 0, "turns": 1, "winner": 0, "points": [0, 1]}], experiment="other"
    )
    with pytest.raises(ValueError, match="several experiments"):
        stats.summarize(pd.concat([games, other_games]), pd.concat([seats, other_seats]))


def test_summary_bots_pairs_a_swept_bot_by_name():
    # conservative's parameter changes with the cell (and so its label); greedy is unchanged
    specs = []
    for cell, min_play in ((0, 1), (1, 2)):
        for deal, winner in enumerate([0, 1, 1, 1] if cell == 0 else [0, 0, 0, 1]):
            specs.append(
                {"cell": cell, "deal": deal, "rotation": 0, "turns": 10, "winner": winner,
                 "bots": [f"conservative(min_play={min_play})", "greedy"], "key": min_play,
                 "points": [0, 6] if winner == 0 else [12, 0], "opened": [None, 3] if deal == 0 else [2, 4]}
            )  # fmt: skip
    games, seats = make_tables(specs)
    out = stats.summary_bots(seats, games, keys=["k"])
    assert list(out.columns) == stats.summary_bots_columns(["k"])
    assert len(out) == 4
    row = out.set_index(["cell", "bot"]).loc[(1, "conservative")]
    assert row["bot_label"] == "conservative(min_play=2)" and row["k"] == 2
    assert (row["n"], row["wins"], row["win_rate"]) == (4, 3, 0.75)
    assert row["fair_share"] == 0.5
    # score: +6 on a win (the opponent's 6 points), -12 on a loss
    assert row["score_mean"] == pytest.approx((3 * 6 - 12) / 4)
    assert row["points_left_mean"] == pytest.approx(12 / 4)
    assert row["opened_rate"] == 0.75 and row["opened_turn_median"] == 2.0
    # per deal won: cell 0 (1, 0, 0, 0), cell 1 (1, 1, 1, 0): differences 0, 1, 1, 0
    assert row["win_rate_diff_vs_cell0"] == pytest.approx(0.5)
    assert row["win_rate_diff_vs_cell0_pairs"] == 4
    assert row["win_rate_diff_vs_cell0_p"] == pytest.approx(2 * sps.t.sf(0.5 / (math.sqrt(1 / 3) / 2), 3))
    greedy = out.set_index(["cell", "bot"]).loc[(1, "greedy")]
    assert greedy["win_rate_diff_vs_cell0"] == pytest.approx(-0.5)
    assert math.isnan(out.set_index(["cell", "bot"]).loc[(0, "greedy"), "win_rate_diff_vs_cell0"])


def test_summary_bots_leaves_out_fault_rounds():
    games, seats = variant_tables()
    out = stats.summary_bots(seats, games).set_index("cell")
    assert out.loc[1, "n"] == 6  # 3 completed rounds x 2 seats, both "greedy"
    assert out.loc[1, "wins"] == 3
    assert stats.summary_bots(seats.iloc[:0]).empty
