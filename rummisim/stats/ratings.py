"""Multi-player ratings of the bots: Plackett-Luce (openskill) from each round's order of finish,
cross-checked by a Bradley-Terry fit to the pairwise results (``ratings.csv``).

How a round is read:

- **Order of finish.** The round's winner is first; the other seats follow by their round score
  (higher first), then by the points left on their rack (fewer first). Seats equal on both share a
  rank. Rounds that ended in a fault have no order and are left out (`completed`).
- **Deterministic order.** The ratings are updated online, round by round, so the order matters a
  little: the rounds of a cell are taken by (game, round), and those of an overall rating by
  (game, round, cell). Rows are sorted first, so the result does not depend on the tables' row
  order, on ``--jobs`` or on the chunking.
- **One rating per bot label.** A bot holding several seats (``greedy x2 + random x2``) is one
  player. Each seat is rated as a team of one starting from the bot's current rating, all seats of
  the round at once, and the bot's new mu and sigma are the means over its seats. Averaging rather
  than applying every seat's update keeps a bot with two seats from gaining evidence twice as fast
  from one deal (its seats share that deal, and its twin's finish tells nothing about the bot), and
  its own seats' comparison with each other cancels in the mean.
- **No drift.** The model is openskill's ``PlackettLuce`` with its defaults (mu 25, sigma 25/3,
  beta 25/6) except ``tau = 0``: a bot does not learn between games, so its skill is constant and
  sigma is the uncertainty about it, shrinking as rounds are rated. (The default tau, meant for
  people whose skill drifts, would floor sigma and weight recent rounds more.)
- **Overall ratings.** A profile with two or more rated cells also gets one rating over all of
  them (``cell`` -1, -2, ... in profile order; label ``all (<profile>)``): every bot label is one
  player across the cells, so a league's subsets make one ladder.

The cross-check: every pair of seats holding different bots in a round is one comparison (the one
that finished higher wins it; equal finishes count half to each), and a Bradley-Terry model,
P(i above j) = 1 / (1 + exp(b_j - b_i)), is fitted to those counts by maximum likelihood with a small
ridge (``BT_RIDGE``, which centres the scores and keeps them finite for a bot that never finishes
above another). `rating_agreement` compares the two rankings per cell (Kendall's tau, inversions);
`inversion_causes` tells why a pair is inverted, with the order-free batch fit `plackett_luce_batch`
and the same rounds rated again in random orders.

Pure: DataFrames in, DataFrames out; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rummisim.schema import ratings_columns
from rummisim.stats.estimators import _require
from rummisim.stats.summaries import completed

#: Identity of a round within an experiment.
_ROUND = ("cell", "game", "round")
#: The ridge of the Bradley-Terry fit: a N(0, 1 / (2 * BT_RIDGE)) prior on each log-strength,
#: negligible beside the thousands of comparisons of a run.
BT_RIDGE = 0.01


def finish_ranks(seats: pd.DataFrame) -> pd.Series:
    """Each seat row's place in its round's order of finish: 0 for the winner, then by round score
    (higher first) and points left (fewer first); equal seats share the lowest place
    (competition ranking: 0, 1, 1, 3).

    Args:
        seats: seat rows with ``cell``, ``game``, ``round``, ``won``, ``score``, ``points_left``.
    """
    _require(seats, [*_ROUND, "won", "score", "points_left"], "finish_ranks")
    if seats.empty:
        return pd.Series(dtype="int64", index=seats.index)
    score = seats["score"].to_numpy(dtype=np.int64)
    points = seats["points_left"].to_numpy(dtype=np.int64)
    lost = (~seats["won"].astype(bool)).to_numpy(dtype=np.int64)
    # one sortable number: losers after the winner, then higher score, then fewer points left
    key = lost * (1 << 50) + (np.int64(1 << 24) - score) * (1 << 24) + points
    frame = seats[list(_ROUND)].assign(_key=key)
    ranks = frame.groupby(list(_ROUND), sort=False)["_key"].rank(method="min") - 1
    return ranks.astype(np.int64)


def ratings(
    seats: pd.DataFrame,
    games: pd.DataFrame | None = None,
    keys: Sequence[str] = (),
    overall: bool = True,
) -> pd.DataFrame:
    """Plackett-Luce ratings per cell and bot label, with the Bradley-Terry cross-check.

    Only cells with two or more distinct bot labels are rated. With ``overall``, every profile with
    two or more rated cells also gets an overall rating over them (see the module docstring).

    Args:
        seats: the ``seats`` table (``cell``, ``cell_label``, ``profile``, ``lineup``, ``game``,
            ``round``, ``seat``, ``bot``, ``bot_label``, ``won``, ``score``, ``points_left``).
        games: the ``games`` table; with it, rounds that ended in a fault are left out.
        keys: the sweep key columns, carried after ``lineup`` (null in an overall row).
        overall: add the overall rating of each profile.

    Returns:
        The columns of ``rummisim.schema.ratings_columns(keys)``, one row per (cell, bot label),
        cells in order, then the overall ratings in profile order; bots by rank. Empty (with
        the columns) when no cell has two distinct bots.
    """
    keys = list(keys)
    columns = list(ratings_columns(keys))
    parts: list[pd.DataFrame] = []
    for identity, part, order in _rated_parts(seats, games, keys, overall):
        table = _rate(part, order)
        if identity["cell"] >= 0:
            slots = part.drop_duplicates(["game", "seat"])
            seat_counts = slots.groupby(["game"])["bot_label"].value_counts().groupby("bot_label").max()
            table["seats"] = table["bot_label"].map(seat_counts).astype("Int64")
        else:
            table["seats"] = pd.array([pd.NA] * len(table), dtype="Int64")
        parts.append(table.assign(**identity))
    if not parts:
        return pd.DataFrame(columns=columns)
    out = pd.concat(parts, ignore_index=True)
    out = out.reindex(columns=columns)
    for column in ("cell", "seats", "games", "rounds", "rank", "pairs", "bt_rank"):
        out[column] = out[column].astype("Int64")
    return out.reset_index(drop=True)


def _rated_parts(
    seats: pd.DataFrame, games: pd.DataFrame | None, keys: list[str], overall: bool
) -> Iterator[tuple[dict[str, Any], pd.DataFrame, list[str]]]:
    """What `ratings` rates, in its order: (the rating's identity columns, its seat rows ranked in
    ``_rank``, the order its rounds are taken in), each cell with two or more distinct bot labels,
    then (``overall``) each profile's overall rating over its rated cells."""
    need = ["cell", "cell_label", "profile", "lineup", "game", "round", "seat", "bot", "bot_label"]
    _require(seats, [*need, "won", "score", "points_left", *keys], "ratings")
    if games is not None:
        seats = completed(games, seats)[1]
    if seats.empty:
        return
    seats = seats.assign(_rank=finish_ranks(seats))
    distinct = seats.groupby("cell")["bot_label"].nunique()
    rated = sorted(int(c) for c in distinct[distinct >= 2].index)
    profiles: dict[str, list[int]] = {}
    for cell in rated:
        part = seats[seats["cell"] == cell]
        first = part.iloc[0]
        profiles.setdefault(str(first["profile"]), []).append(cell)
        yield (
            {k: first[k] for k in ("cell", "cell_label", "profile", "lineup", *keys)},
            part,
            ["game", "round"],
        )
    if not overall:
        return
    for index, (profile, cells) in enumerate(profiles.items()):
        if len(cells) < 2:
            continue
        part = seats[seats["cell"].isin(cells)]
        order = ["cell", "slot" if "slot" in part.columns else "seat", "game"]
        labels = list(dict.fromkeys(part.sort_values(order, kind="stable")["bot_label"]))
        identity = {
            "cell": -(index + 1),
            "cell_label": f"all ({profile})",
            "profile": profile,
            "lineup": ",".join(labels),
            **{k: None for k in keys},
        }
        yield identity, part, ["game", "round", "cell"]


def _rounds(
    part: pd.DataFrame, order: list[str]
) -> tuple[pd.DataFrame, list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The seat rows ``part`` (already ranked in ``_rank``) sorted with their rounds in ``order``,
    the bot labels (first seen first), and per row the player, the place and the round."""
    part = part.sort_values([*order, "seat"], kind="stable")
    labels = list(dict.fromkeys(part["bot_label"]))
    index = {label: i for i, label in enumerate(labels)}
    who = part["bot_label"].map(index).to_numpy(dtype=np.int64)
    ranks = part["_rank"].to_numpy(dtype=np.int64)
    round_id = part.groupby(order, sort=False).ngroup().to_numpy(dtype=np.int64)
    return part, labels, who, ranks, round_id


def _round_rows(round_id: np.ndarray) -> list[np.ndarray]:
    """The row indices of each round, in order (``round_id``: rows of a round are contiguous)."""
    return np.split(np.arange(len(round_id)), np.flatnonzero(np.diff(round_id)) + 1)


def _rate(part: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Plackett-Luce and Bradley-Terry over the seat rows ``part`` (already ranked in ``_rank``),
    rounds taken in ``order``; one row per bot label, best mu first."""
    part, labels, who, ranks, round_id = _rounds(part, order)
    mu, sigma = plackett_luce(who, ranks, round_id, len(labels))
    wins, pairs = pairwise_results(who, ranks, round_id, len(labels))
    bt = bradley_terry(wins)
    names = part.drop_duplicates("bot_label").set_index("bot_label")["bot"]
    games = part[["bot_label", "cell", "game"]].drop_duplicates()["bot_label"].value_counts()
    rounds = part[["bot_label", *_ROUND]].drop_duplicates()["bot_label"].value_counts()
    table = pd.DataFrame(
        {
            "bot": [names[label] for label in labels],
            "bot_label": labels,
            "games": [games[label] for label in labels],
            "rounds": [rounds[label] for label in labels],
            "mu": mu,
            "sigma": sigma,
            "ordinal": mu - 3 * sigma,
            "pairs": pairs.sum(axis=1),
            "pair_win_rate": wins.sum(axis=1) / np.maximum(pairs.sum(axis=1), 1),
            "bt_score": bt,
        }
    )
    table["rank"] = table["mu"].rank(method="min", ascending=False).astype(int)
    table["bt_rank"] = table["bt_score"].rank(method="min", ascending=False).astype(int)
    return table.sort_values(["rank", "bot_label"], kind="stable").reset_index(drop=True)


def plackett_luce(
    who: np.ndarray, ranks: np.ndarray, round_id: np.ndarray, n_players: int
) -> tuple[np.ndarray, np.ndarray]:
    """Online Plackett-Luce ratings (openskill, ``tau = 0``) of ``n_players`` over rated rounds.

    Args:
        who: per seat row, the player (0..n_players-1), rows grouped by round in the order to rate.
        ranks: per seat row, its place in the round's order of finish (lower is better).
        round_id: per seat row, the round it belongs to (rows of a round are contiguous).

    Returns:
        ``(mu, sigma)``, one value per player. A player holding several seats of a round gets the
        mean of its seats' updated ratings (see the module docstring).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    mu = np.full(n_players, float(model.mu))
    sigma = np.full(n_players, float(model.sigma))
    for rows in _round_rows(round_id):
        if len(rows) == 0:
            continue
        players = who[rows]
        if len(set(players.tolist())) < 2:
            continue  # nothing to compare: one bot at every seat
        teams = [[model.rating(mu=float(mu[p]), sigma=float(sigma[p]))] for p in players]
        updated = model.rate(teams, ranks=[float(r) for r in ranks[rows]])
        new_mu = np.array([team[0].mu for team in updated])
        new_sigma = np.array([team[0].sigma for team in updated])
        for p in np.unique(players):
            mine = players == p
            mu[p] = float(new_mu[mine].mean())
            sigma[p] = float(new_sigma[mine].mean())
    return mu, sigma


def plackett_luce_batch(
    who: np.ndarray, ranks: np.ndarray, round_id: np.ndarray, n_players: int, ridge: float = BT_RIDGE
) -> np.ndarray:
    """Plackett-Luce log-strengths fitted to all rounds at once by maximum likelihood: the fit that
    does not depend on the order of the rounds (`plackett_luce` updates round by round).

    A round is read place by place: the seats at the best place left are chosen from every seat
    not yet placed, each with probability ``exp(b) / sum(exp(b))`` over those seats (tied seats
    are each chosen from the same set, as in Breslow's treatment of ties); a round holding one
    player, or a last place, tells nothing. An L2 ``ridge`` centres the scores and keeps them
    finite, as in `bradley_terry` (scipy's L-BFGS-B on the exact gradient).

    Args: as `plackett_luce`. Returns: one log-strength per player, summing to 0."""
    from scipy.optimize import minimize

    who = np.asarray(who, dtype=np.int64)
    ranks = np.asarray(ranks, dtype=np.int64)
    round_id = np.asarray(round_id, dtype=np.int64)
    # one choice per (round, place): its risk set (members: event, player) and the chosen seats
    member_event: list[np.ndarray] = []
    member_player: list[np.ndarray] = []
    chosen_players: list[np.ndarray] = []
    chosen_counts: list[int] = []
    for rows in _round_rows(round_id):
        players, places = who[rows], ranks[rows]
        if len(rows) < 2 or len(set(players.tolist())) < 2:
            continue
        levels = np.unique(places)
        for level in levels[:-1]:  # the last place is chosen from itself: no information
            risk = players[places >= level]
            chosen = players[places == level]
            member_event.append(np.full(len(risk), len(chosen_counts)))
            member_player.append(risk)
            chosen_players.append(chosen)
            chosen_counts.append(len(chosen))
    if not chosen_counts:  # (no player, or no round that compares two)
        return np.zeros(n_players)
    event = np.concatenate(member_event)
    player = np.concatenate(member_player)
    times_chosen = np.bincount(np.concatenate(chosen_players), minlength=n_players).astype(float)
    weight = np.asarray(chosen_counts, dtype=float)
    n_events = len(chosen_counts)

    def objective(b: np.ndarray) -> tuple[float, np.ndarray]:
        x = b[player]
        top = np.full(n_events, -np.inf)
        np.maximum.at(top, event, x)
        e = np.exp(x - top[event])
        total = np.bincount(event, weights=e, minlength=n_events)
        log_total = top + np.log(total)
        nll = -float(times_chosen @ b) + float(weight @ log_total) + ridge * float(b @ b)
        share = weight[event] * e / total[event]
        grad = -times_chosen + np.bincount(player, weights=share, minlength=n_players) + 2 * ridge * b
        return nll, grad

    fit = minimize(
        objective, np.zeros(n_players), jac=True, method="L-BFGS-B", options={"gtol": 1e-9, "ftol": 1e-15}
    )
    return np.asarray(fit.x) - float(np.mean(fit.x))


def pairwise_results(
    who: np.ndarray, ranks: np.ndarray, round_id: np.ndarray, n_players: int
) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise results of every round: each pair of seats holding different players is one
    comparison, won by the seat that finished higher (equal finishes: half each).

    Returns:
        ``(wins, pairs)``: ``wins[i, j]`` the comparisons ``i`` won against ``j`` and
        ``pairs[i, j]`` the comparisons between them (symmetric).
    """
    wins = np.zeros((n_players, n_players))
    pairs = np.zeros((n_players, n_players))
    frame = pd.DataFrame({"r": round_id, "p": who, "k": ranks})
    both = frame.merge(frame, on="r", suffixes=("_a", "_b"))
    both = both[both["p_a"] != both["p_b"]]
    a, b = both["p_a"].to_numpy(), both["p_b"].to_numpy()
    score = np.where(both["k_a"] < both["k_b"], 1.0, np.where(both["k_a"] == both["k_b"], 0.5, 0.0))
    np.add.at(wins, (a, b), score)
    np.add.at(pairs, (a, b), 1.0)
    return wins, pairs


def bradley_terry(wins: np.ndarray, ridge: float = BT_RIDGE) -> np.ndarray:
    """Bradley-Terry log-strengths from a matrix of pairwise wins (``wins[i, j]``: i over j,
    fractional for ties), by maximum likelihood with an L2 ``ridge`` (scipy's L-BFGS-B on the
    exact gradient). The ridge makes the scores sum to 0 and stay finite."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    wins = np.asarray(wins, dtype=float)
    n = len(wins)
    if n == 0:
        return np.zeros(0)

    def objective(b: np.ndarray) -> tuple[float, np.ndarray]:
        diff = b[:, None] - b[None, :]
        nll = -float((wins * log_expit(diff)).sum()) + ridge * float(b @ b)
        pull = wins * expit(-diff)  # d(-log sigma(b_i - b_j)) / d b_i, weighted by the wins
        grad = -pull.sum(axis=1) + pull.sum(axis=0) + 2 * ridge * b
        return nll, grad

    fit = minimize(objective, np.zeros(n), jac=True, method="L-BFGS-B", options={"gtol": 1e-9, "ftol": 1e-15})
    return np.asarray(fit.x) - float(np.mean(fit.x))


def _inverted_pairs(part: pd.DataFrame) -> list[tuple[str, str, float, float]]:
    """The pairs of bots one rating (``part``: its rows of a `ratings` table) orders oppositely by
    mu and by Bradley-Terry: (above by mu, below, mu gap, gap in joint sigmas), by falling mu."""
    part = part.sort_values("mu", ascending=False, kind="stable")
    labels = part["bot_label"].astype(str).tolist()
    mu, sigma, bt = (part[c].to_numpy(dtype=float) for c in ("mu", "sigma", "bt_score"))
    return [
        (labels[i], labels[j], mu[i] - mu[j], (mu[i] - mu[j]) / np.hypot(sigma[i], sigma[j]))
        for i in range(len(labels))
        for j in range(i + 1, len(labels))
        if (mu[i] - mu[j]) * (bt[i] - bt[j]) < 0
    ]


#: Random orders of a rating's rounds that `inversion_causes` rates again.
ORDERS = 40


def inversion_causes(
    seats: pd.DataFrame,
    table: pd.DataFrame,
    games: pd.DataFrame | None = None,
    keys: Sequence[str] = (),
    orders: int = ORDERS,
    seed: int = 0,
) -> pd.DataFrame:
    """Why Plackett-Luce and Bradley-Terry order a pair of bots oppositely, for every such pair of
    a `ratings` table (computed from the same ``seats``, ``games`` and ``keys``).

    Two tests tell the causes apart. The rounds are rated again in ``orders`` random orders (one
    generator seeded with ``seed`` per rating, so a rating's figures depend on its rounds alone),
    and `plackett_luce_batch` fits the model to all rounds at once. Where the batch fit orders
    the pair as Bradley-Terry does, the online update's order of the rounds made the inversion
    (``cause`` ``order``); where it orders it as mu does, the two models weigh the places
    differently (``counted``: Plackett-Luce reads a last place as losing each successive choice
    and a win as one choice; the pairwise fit weighs a first and a last place alike).

    Returns:
        One row per inverted pair: ``cell``, ``cell_label``, ``above`` and ``below`` (by mu),
        ``mu_gap``, ``joint_sigma`` (the gap over ``sqrt(sigma_a^2 + sigma_b^2)``), ``orders``,
        ``orders_above`` (random orders whose mu keeps ``above`` ahead), ``batch_gap`` (the batch
        fit's log-strength of ``above`` less ``below``) and ``cause``.
    """
    columns = ["cell", "cell_label", "above", "below", "mu_gap", "joint_sigma", "orders", "orders_above"]
    columns += ["batch_gap", "cause"]
    _require(table, ["cell", "bot_label", "mu", "sigma", "bt_score"], "inversion_causes")
    inverted = {
        int(cell): _inverted_pairs(part)  # type: ignore[arg-type]  # (a groupby key)
        for cell, part in table.groupby("cell", sort=False)
    }
    rows = []
    for identity, part, order in _rated_parts(
        seats, games, list(keys), overall=bool((table["cell"] < 0).any())
    ):
        cell = int(identity["cell"])
        if not inverted.get(cell):
            continue
        _, labels, who, ranks, round_id = _rounds(part, order)
        index = {label: i for i, label in enumerate(labels)}
        batch = plackett_luce_batch(who, ranks, round_id, len(labels))
        blocks = _round_rows(round_id)
        rng = np.random.default_rng(seed)
        mus = []
        for _ in range(orders):
            rows_in = np.concatenate([blocks[k] for k in rng.permutation(len(blocks))])
            mus.append(plackett_luce(who[rows_in], ranks[rows_in], round_id[rows_in], len(labels))[0])
        for above, below, gap, joint in inverted[cell]:
            a, b = index[above], index[below]
            batch_gap = float(batch[a] - batch[b])
            rows.append(
                {
                    "cell": cell, "cell_label": identity["cell_label"], "above": above, "below": below,
                    "mu_gap": gap, "joint_sigma": joint, "orders": orders,
                    "orders_above": int(sum(m[a] > m[b] for m in mus)), "batch_gap": batch_gap,
                    "cause": "counted" if batch_gap > 0 else "order",
                }
            )  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def rating_agreement(table: pd.DataFrame) -> pd.DataFrame:
    """How the Plackett-Luce and Bradley-Terry rankings agree, per cell of a `ratings` table.

    Returns:
        One row per cell: ``cell``, ``cell_label``, ``profile``, ``bots``, ``kendall_tau`` (of mu
        against bt_score; 1 = the same order), ``inversions`` (pairs of bots the two order
        oppositely) and ``inverted`` (those pairs, ``a > b`` by mu, with the mu gap in mu and in
        joint sigmas ``sqrt(sigma_a^2 + sigma_b^2)``, ``;``-separated; empty if none).
    """
    from scipy.stats import kendalltau

    need = ["cell", "cell_label", "profile", "bot_label", "mu", "sigma", "bt_score"]
    _require(table, need, "rating_agreement")
    rows = []
    for cell, part in table.groupby("cell", sort=False):
        inverted = [
            f"{above} > {below} by {gap:.2f} mu ({joint:.2f} joint sigma)"
            for above, below, gap, joint in _inverted_pairs(part)
        ]
        mu, bt = part["mu"].to_numpy(dtype=float), part["bt_score"].to_numpy(dtype=float)
        tau = float(kendalltau(mu, bt).statistic) if len(part) > 1 else float("nan")
        rows.append(
            {
                "cell": cell,
                "cell_label": part["cell_label"].iloc[0],
                "profile": part["profile"].iloc[0],
                "bots": len(part),
                "kendall_tau": tau,
                "inversions": len(inverted),
                "inverted": "; ".join(inverted),
            }
        )
    return pd.DataFrame(
        rows, columns=["cell", "cell_label", "profile", "bots", "kendall_tau", "inversions", "inverted"]
    )
