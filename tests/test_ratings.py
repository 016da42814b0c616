"""Ratings: Plackett-Luce from each round's order of finish, the Bradley-Terry cross-check,
``ratings.csv`` from a run and from ``rummisim report``, and the report's rating table and chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from openskill.models import PlackettLuce

from rummisim import experiment_from_dict, run_experiment
from rummisim.cli import main
from rummisim.schema import ratings_columns
from rummisim.stats import (
    bradley_terry,
    finish_ranks,
    inversion_causes,
    pairwise_results,
    plackett_luce,
    plackett_luce_batch,
    rating_agreement,
    ratings,
)
from rummisim.store import load_results

RIGGED = {
    "name": "rigged",
    "seed": 3,
    "games": 6,
    "profiles": ["standard"],
    "lineups": [["greedy", "random"], ["greedy", "random", "greedy", "random"]],
}


@pytest.fixture(scope="module")
def rigged(tmp_path_factory):
    out = tmp_path_factory.mktemp("rigged") / "run"
    run_experiment(experiment_from_dict(RIGGED, "rigged.yaml"), out, jobs=1, progress=False)
    return out


def seat_rows(rounds: list[list[tuple[str, bool, int, int]]], cell: int = 0) -> pd.DataFrame:
    """Seat rows of hand-made rounds: each round a list of (bot, won, score, points_left) by seat."""
    rows = []
    for game, seats in enumerate(rounds):
        lineup = ",".join(bot for bot, *_ in rounds[0])
        for seat, (bot, won, score, points) in enumerate(seats):
            rows.append(
                {
                    "cell": cell, "cell_label": f"cell {cell}", "profile": "standard", "lineup": lineup,
                    "game": game, "round": 0, "seat": seat, "slot": seat, "bot": bot, "bot_label": bot,
                    "won": won, "score": score, "points_left": points,
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


# ----- the order of finish -------------------------------------------------------------------------


def test_the_winner_is_first_then_score_then_points_left_and_ties_share_a_place():
    seats = seat_rows(
        [
            [("a", False, -10, 10), ("b", True, 40, 0), ("c", False, -10, 10), ("d", False, -20, 20)],
            # equal scores (a subtract-winner floor at 0): fewer points left finishes higher
            [("a", False, 0, 12), ("b", False, 0, 5), ("c", True, 3, 3), ("d", False, 0, 5)],
        ]
    )
    assert finish_ranks(seats).tolist() == [1, 0, 1, 3, 3, 1, 0, 1]


# ----- Plackett-Luce ---------------------------------------------------------------------------------


def test_a_rigged_run_rates_greedy_above_random(rigged):
    table = pd.read_csv(rigged / "ratings.csv")
    assert list(table.columns) == list(ratings_columns())
    for cell in (0, 1):
        part = table[table["cell"] == cell].set_index("bot_label")
        greedy, random = part.loc["greedy"], part.loc["random"]
        assert greedy["mu"] > random["mu"] and greedy["ordinal"] > random["ordinal"]
        assert (greedy["rank"], random["rank"]) == (1, 2) and (greedy["bt_rank"], random["bt_rank"]) == (1, 2)
        assert greedy["bt_score"] > 0 > random["bt_score"]
        assert greedy["games"] == 6 and greedy["rounds"] == 6
    # a bot holding two seats is one player with two seats
    assert table.loc[table["cell"] == 1, "seats"].tolist() == [2, 2]
    assert table.loc[table["cell"] == 0, "seats"].tolist() == [1, 1]
    # two rated cells of one profile: one ladder over both
    overall = table[table["cell"] == -1]
    assert overall["cell_label"].unique().tolist() == ["all (standard)"]
    assert (
        overall["bot_label"].tolist() == ["greedy", "random"] and overall["lineup"].iloc[0] == "greedy,random"
    )
    assert overall["rounds"].tolist() == [12, 12] and overall["seats"].isna().all()
    assert (rating_agreement(table)["kendall_tau"] == 1.0).all()


def test_a_bot_with_several_seats_gets_the_mean_of_its_seats_updates():
    seats = seat_rows([[("a", True, 30, 0), ("b", False, -5, 5), ("a", False, -20, 20), ("b", False, -5, 5)]])
    table = ratings(seats).set_index("bot_label")
    model = PlackettLuce(tau=0.0)
    updated = model.rate([[model.rating()] for _ in range(4)], ranks=[0.0, 1.0, 3.0, 1.0])
    for bot, seats_of in (("a", [0, 2]), ("b", [1, 3])):
        assert table.loc[bot, "mu"] == pytest.approx(np.mean([updated[s][0].mu for s in seats_of]))
        assert table.loc[bot, "sigma"] == pytest.approx(np.mean([updated[s][0].sigma for s in seats_of]))
        assert table.loc[bot, "seats"] == 2
    # the pairs: seats 0-1, 0-3, 2-1, 2-3 (a's two seats are not compared with each other)
    assert table["pairs"].tolist() == [4, 4]
    assert table.loc["a", "pair_win_rate"] == pytest.approx(0.5)


def test_ratings_do_not_depend_on_row_order_or_chunking(rigged, tmp_path):
    data = load_results(rigged)
    expected = ratings(data["seats"], data["games"])
    shuffled = data["seats"].sample(frac=1.0, random_state=7)
    pd.testing.assert_frame_equal(ratings(shuffled, data["games"].sample(frac=1.0, random_state=8)), expected)
    # the same run in chunks of one game: the same ratings.csv, byte for byte (the tables do not
    # depend on --jobs either: tests/test_runner.py)
    again = tmp_path / "chunked"
    run_experiment(experiment_from_dict(RIGGED, "rigged.yaml"), again, jobs=1, chunk_size=1, progress=False)
    assert (again / "ratings.csv").read_bytes() == (rigged / "ratings.csv").read_bytes()


def test_later_rounds_move_a_rating_less_as_sigma_shrinks():
    # a steady winner: mu rises and sigma falls every round, by less each time
    who = np.array([0, 1] * 30)
    ranks = np.array([0, 1] * 30)
    rounds = np.repeat(np.arange(30), 2)
    mus, sigmas = [], []
    for n in (1, 2, 10, 30):
        mu, sigma = plackett_luce(who[: 2 * n], ranks[: 2 * n], rounds[: 2 * n], 2)
        mus.append(mu[0])
        sigmas.append(sigma[0])
    assert mus == sorted(mus) and sigmas == sorted(sigmas, reverse=True)
    assert mus[1] - mus[0] > (mus[3] - mus[2]) / 20


def test_a_run_with_one_bot_writes_no_ratings(tmp_path):
    spec = {**RIGGED, "games": 2, "lineups": [["greedy", "greedy"]]}
    run_experiment(experiment_from_dict(spec, "one.yaml"), tmp_path / "one", progress=False)
    assert not (tmp_path / "one" / "ratings.csv").exists()
    assert (tmp_path / "one" / "summary.csv").exists()
    data = load_results(tmp_path / "one")
    empty = ratings(data["seats"], data["games"])
    assert empty.empty and list(empty.columns) == list(ratings_columns())


def test_crashed_rounds_are_not_rated(rigged):
    data = load_results(rigged)
    games = data["games"].copy()
    crashed = (games["cell"] == 0) & (games["game"] == 0)
    games.loc[crashed, "end_reason"] = "fault"
    table = ratings(data["seats"], games)
    assert table.loc[table["cell"] == 0, "rounds"].tolist() == [5, 5]
    assert table.loc[table["cell"] == 0, "games"].tolist() == [5, 5]


# ----- Bradley-Terry ---------------------------------------------------------------------------------


def test_bradley_terry_recovers_the_log_odds_of_two_players():
    scores = bradley_terry(np.array([[0.0, 30.0], [10.0, 0.0]]))
    assert scores.sum() == pytest.approx(0.0, abs=1e-9)
    assert scores[0] - scores[1] == pytest.approx(np.log(3.0), abs=0.01)


def test_bradley_terry_orders_a_rigged_ladder_and_stays_finite_without_wins():
    # a beats b 80%, b beats c 80%, a beats c every time: c never wins a comparison
    wins = np.array([[0.0, 80.0, 100.0], [20.0, 0.0, 80.0], [0.0, 20.0, 0.0]])
    scores = bradley_terry(wins)
    assert scores[0] > scores[1] > scores[2] and np.isfinite(scores).all()


def test_pairwise_results_count_each_pair_of_different_bots_once_and_ties_half():
    # one round: players 0, 1, 1, 2 finishing 0, 1, 1, 3 (the two seats of player 1 tie)
    wins, pairs = pairwise_results(np.array([0, 1, 1, 2]), np.array([0, 1, 1, 3]), np.zeros(4, int), 3)
    assert pairs.tolist() == [[0, 2, 1], [2, 0, 2], [1, 2, 0]]
    assert wins.tolist() == [[0, 2, 1], [0, 0, 2], [0, 0, 0]]
    tie_wins, _ = pairwise_results(np.array([0, 1]), np.array([1, 1]), np.zeros(2, int), 2)
    assert tie_wins.tolist() == [[0, 0.5], [0.5, 0]]


def test_the_agreement_names_an_inversion_and_its_size():
    table = pd.DataFrame(
        {
            "cell": [0, 0, 0], "cell_label": ["x"] * 3, "profile": ["standard"] * 3,
            "bot_label": ["a", "b", "c"], "mu": [30.0, 29.5, 20.0], "sigma": [1.0, 1.0, 1.0],
            "bt_score": [0.2, 0.3, -0.5],
        }
    )  # fmt: skip
    row = rating_agreement(table).iloc[0]
    assert row["inversions"] == 1 and row["kendall_tau"] == pytest.approx(1 / 3)
    assert row["inverted"] == "a > b by 0.50 mu (0.35 joint sigma)"


# ----- the report ------------------------------------------------------------------------------------


def test_report_shows_the_ratings_and_rebuilds_a_missing_ratings_csv(rigged):
    written = (rigged / "ratings.csv").read_bytes()
    (rigged / "ratings.csv").unlink()  # a results folder from before ratings existed
    assert main(["report", str(rigged)]) == 0
    assert (rigged / "ratings.csv").read_bytes() == written
    text = (rigged / "report.md").read_text()
    assert "## Ratings" in text and "### Overall: one ladder over every cell of a profile" in text
    assert "| 1 | greedy |" in text and "### Agreement of the two rankings" in text
    assert "(charts/ratings.png)" in text
    assert (rigged / "charts" / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_rating_chart_needs_rated_cells():
    from rummisim import plots

    with pytest.raises(plots.NoData, match="ratings"):
        plots.plot_ratings(pd.DataFrame(columns=list(ratings_columns())))


# ----- the batch fit and the causes of an inversion ---------------------------------------------------


def ordered_rows(orders: list[list[str]]) -> pd.DataFrame:
    """Seat rows of one-round games, each given as its order of finish (winner first; the others by
    falling score, so each place is its own)."""
    return seat_rows(
        [[(bot, place == 0, 30 - 10 * place, 5 * place) for place, bot in enumerate(o)] for o in orders]
    )


def arrays(seats: pd.DataFrame, labels: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index = {label: i for i, label in enumerate(labels)}
    return (
        seats["bot_label"].map(index).to_numpy(),
        finish_ranks(seats).to_numpy(),
        seats["game"].to_numpy(),
    )


def test_the_batch_fit_recovers_the_strengths_that_made_the_rounds_in_any_order():
    rng = np.random.default_rng(11)
    strength = np.array([1.0, 0.3, -0.2, -1.1])
    orders = []
    for _ in range(4000):  # Plackett-Luce draws: each place chosen in proportion to exp(strength)
        left, order = list(range(4)), []
        while left:
            weights = np.exp(strength[left])
            order.append(left.pop(int(rng.choice(len(left), p=weights / weights.sum()))))
        orders.append([f"p{i}" for i in order])
    seats = ordered_rows(orders)
    labels = ["p0", "p1", "p2", "p3"]
    who, ranks, round_id = arrays(seats, labels)
    fitted = plackett_luce_batch(who, ranks, round_id, 4)
    assert fitted == pytest.approx(strength - strength.mean(), abs=0.08)
    # the rounds in another order: the same fit, while the online ratings move
    back = np.argsort(-round_id, kind="stable")
    assert plackett_luce_batch(who[back], ranks[back], round_id[back], 4) == pytest.approx(fitted, abs=1e-6)
    assert not np.allclose(
        plackett_luce(who[back], ranks[back], round_id[back], 4)[0], plackett_luce(who, ranks, round_id, 4)[0]
    )


def test_a_round_with_one_player_or_a_tie_at_the_top_is_read_as_the_model_says():
    # one player at every seat tells nothing; a tie for the first place is two choices from all seats
    who, ranks, round_id = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 0]), np.array([0, 0, 1, 1])
    assert plackett_luce_batch(who, ranks, round_id, 2, ridge=0.5) == pytest.approx([0.0, 0.0], abs=1e-9)
    who, ranks, round_id = np.array([0, 1, 2]), np.array([0, 0, 2]), np.array([0, 0, 0])
    fitted = plackett_luce_batch(who, ranks, round_id, 3, ridge=0.5)
    # by symmetry b = (x, x, -2x), and the likelihood is b0 + b1 - 2 log(sum exp b) less the ridge
    from scipy.optimize import minimize_scalar

    def nll(x):
        return -(2 * x - 2 * np.log(2 * np.exp(x) + np.exp(-2 * x))) + 0.5 * 6 * x * x

    x = minimize_scalar(nll, bounds=(-5, 5), method="bounded", options={"xatol": 1e-10}).x
    assert fitted == pytest.approx([x, x, -2 * x], abs=1e-5)


def test_inversion_causes_tell_the_order_of_the_rounds_from_what_is_counted():
    # a wins the first 60 rounds, then d the next 62; b is always second, c third. Online, the late run lifts d above b (Bradley-Terry and the batch fit keep b ahead: order); and
    # c (always third) rates above a (first or last) by mu and by the batch fit, below it by the
    # pairwise fit (what is counted).
    seats = ordered_rows([["a", "b", "c", "d"]] * 60 + [["d", "b", "c", "a"]] * 62)
    table = ratings(seats)
    causes = inversion_causes(seats, table)
    found = {(r.above, r.below): r for r in causes.itertuples()}
    assert set(found) == {("d", "b"), ("c", "a")}
    assert found[("d", "b")].cause == "order" and found[("d", "b")].batch_gap < 0
    assert found[("c", "a")].cause == "counted" and found[("c", "a")].batch_gap > 0
    assert len(causes) == rating_agreement(table)["inversions"].sum()
    for row in causes.itertuples():
        assert row.orders == 40 and 0 <= row.orders_above <= 40
    # the random orders mostly put b back above d; the same seed gives the same counts
    assert found[("d", "b")].orders_above < 20
    pd.testing.assert_frame_equal(causes, inversion_causes(seats, table))


def test_a_table_with_no_inversion_has_no_causes(rigged):
    run = load_results(rigged, require_manifest=False)
    table = ratings(run["seats"], run["games"])
    assert rating_agreement(table)["inversions"].sum() == 0
    assert inversion_causes(run["seats"], table, run["games"]).empty


def test_the_report_names_each_inversion_and_its_cause():
    from rummisim.report import _ratings_section

    seats = ordered_rows([["a", "b", "c", "d"]] * 60 + [["d", "b", "c", "a"]] * 62)
    text = "\n".join(_ratings_section(ratings(seats), {"seats": seats, "games": None}, []))
    assert "### Why the two rankings disagree" in text
    lines = [line for line in text.splitlines() if line.startswith("| 0: ")]
    causes = [line for line in lines if line.endswith("| order |") or line.endswith("| counted |")]
    assert len(causes) == 2
    assert any("| d | b |" in line and line.endswith("| order |") for line in causes)
    assert any("| c | a |" in line and line.endswith("| counted |") for line in causes)
