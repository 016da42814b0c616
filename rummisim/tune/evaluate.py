"""A trial's games: one experiment cell played in batches of whole deals on the batch runner's
chunks and backends, and the objective after every batch.

Every trial plays the same deals: deal ``d`` has the seed ``game_seed(tune seed, d)`` and is played
in every seat rotation of the lineup (``rummisim.runner.plan``), so the tuned bot sits in every seat
of every deal and seat effects cancel, and two trials differ only by their parameters (common
random numbers). A batch is a run of whole deals, split into chunks for the workers
(``rummisim.runner.rows.play_registered``, on the backend's ``joblib.Parallel``). The objective is
computed from integer tallies of the games played so far, so it does not depend on the order the
chunks finish in.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rummisim.runner.plan import MAX_CHUNK, Chunk, plan_chunks
from rummisim.runner.rows import play_registered, registered_bots, schemas
from rummisim.tune.spec import Objective, Tune, TuneError


@dataclass
class Tally:
    """Integer sums over the games played so far. Bot study: the tuned seat's (slot 0's) rounds,
    rounds won and summed score. Rule study: the rounds, the rounds the first player won, and the
    turns (a crashed game, which has no first player, is left out)."""

    rounds: int = 0
    wins: int = 0
    score: int = 0
    turns: int = 0
    players: int = 0

    def add(self, tables: Mapping[str, Any], kind: str) -> None:
        """Add a chunk's Arrow tables (``games``, ``seats``)."""
        if kind == "bot":
            seats = tables["seats"]
            mine = _column(seats, "slot") == 0
            self.rounds += int(mine.sum())
            self.wins += int(_column(seats, "won")[mine].sum())
            self.score += int(_column(seats, "score")[mine].sum())
            players = _column(seats, "n_players")
        else:
            games = tables["games"]
            first = _column(games, "first_player")
            played = first >= 0
            self.rounds += int(played.sum())
            self.wins += int((_column(games, "winner") == first)[played].sum())
            self.turns += int(_column(games, "turns")[played].sum())
            players = _column(games, "n_players")
        if len(players):
            self.players = max(self.players, int(players.max()))


def _column(table: Any, name: str) -> np.ndarray:
    return np.asarray(table.column(name).to_numpy())


def objective_value(
    objective: Objective, rounds: Any, wins: Any, score: Any, turns: Any, players: int
) -> Any:
    """The objective from sums (scalars, or arrays of bootstrap resamples); NaN without rounds.

    ``fair_first_seat`` is ``|wins/rounds - 1/players| + weight * |turns/rounds - target| / target``:
    the first player's distance from a fair share, plus the mean round length's relative distance
    from the target, weighted. Both terms are 0 at the ideal; one percentage point of first-seat
    edge costs as much as a round ``target / 100 / weight`` turns off the target.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        rounds = np.asarray(rounds, dtype=float)
        safe = np.where(rounds > 0, rounds, np.nan)
        if objective.name == "win_rate":
            value = np.asarray(wins) / safe
        elif objective.name == "mean_score":
            value = np.asarray(score) / safe
        else:
            assert objective.target_turns is not None
            target = objective.target_turns
            edge = np.abs(np.asarray(wins) / safe - 1.0 / max(players, 1))
            value = edge + objective.weight * np.abs(np.asarray(turns) / safe - target) / target
    return float(value) if np.ndim(value) == 0 else value


def tally_value(objective: Objective, tally: Tally) -> float:
    return float(
        objective_value(objective, tally.rounds, tally.wins, tally.score, tally.turns, tally.players)
    )


def split(chunk: Chunk, start: int, stop: int, pieces: int) -> list[Chunk]:
    """Games ``start..stop-1`` of the cell's chunk as ``pieces`` near-equal work orders (at most
    ``MAX_CHUNK`` games each)."""
    games = stop - start
    pieces = max(1, min(games, max(pieces, -(-games // MAX_CHUNK))))
    edges = [start + games * i // pieces for i in range(pieces + 1)]
    return [
        dataclasses.replace(chunk, start=a, stop=b) for a, b in zip(edges, edges[1:], strict=False) if b > a
    ]


def play_trial(
    tune: Tune,
    params: Mapping[str, Any],
    parallel: Callable[[Iterable[Any]], Iterable[Any]],
    workers: int,
    on_batch: Callable[[int, float, Tally], None],
) -> float:
    """Play a trial's games batch by batch and return the objective over all of them.

    ``parallel`` is the runner backend's ``joblib.Parallel``; each batch is split into about two
    work orders per worker. ``on_batch(batch, value, tally)`` is called after each batch with the
    objective so far (it may raise ``optuna.TrialPruned`` to stop the trial).
    """
    from joblib import delayed

    experiment = tune.trial_experiment(params)
    (chunk,) = plan_chunks(experiment, experiment.games)
    schema = schemas(experiment)
    registered = registered_bots(experiment)
    rotations = experiment.rotations(experiment.cells[0])
    pieces = 1 if workers <= 1 else 2 * workers
    tally = Tally()
    value = math.nan
    for batch, (first, last) in enumerate(tune.batch_deals()):
        orders = split(chunk, first * rotations, last * rotations, pieces)
        fault = None
        for tables in parallel(delayed(play_registered)(order, schema, registered) for order in orders):
            tally.add(tables, tune.kind)
            if fault is None and tally.rounds == 0:  # only read while every game so far crashed
                fault = next((f for f in tables["games"].column("fault").to_pylist() if f), None)
        if tally.rounds == 0:  # every game crashed: the trial has no value, and a retry none either
            first_fault = (fault or "no fault recorded").splitlines()[0][:200]
            raise TuneError(
                f"trial {dict(params)}: none of the {(last - first) * rotations} games of its first batch "
                f"finished a round (first fault: {first_fault}); the study stops"
            )
        value = tally_value(tune.objective, tally)
        on_batch(batch, value, tally)
    return value
