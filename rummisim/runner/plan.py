"""Seeds and plans: which games an experiment plays, in which chunks, from which seeds.

Game ``g`` of a cell is deal ``g // R`` replayed with the lineup rotated ``g % R`` seats (``R`` =
the lineup's distinct rotations). Its seed is drawn from ``SeedSequence(root_seed,
spawn_key=(deal,))``: it does not depend on the cell, so every cell plays the same deals (common
random numbers, paired comparisons) wherever the tile set is the same; nor on jobs, chunking or
backend, so results are bit-identical however the work is split. The seed is an int, so
``rummisim play --seed S`` replays any game.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from rummisim.bots import bot_label
from rummisim.experiment import Experiment, ExperimentError

DEFAULT_CHUNK = 50
MAX_CHUNK = 10_000  # games per chunk: a worker holds a chunk's rows as Python lists until it returns
MAX_CHUNKS = 1_000_000  # chunks per run: the plan is a list held in memory


# ----- seeds ---------------------------------------------------------------------------------------


def game_seed(root_seed: int, deal: int) -> int:
    """The integer seed of a deal: from ``SeedSequence(root_seed, spawn_key=(deal,))``, 63 bits."""
    state = np.random.SeedSequence(root_seed, spawn_key=(deal,)).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def seat_lineup(lineup: tuple, rotation: int) -> list:
    """The bots by seat when the lineup is rotated ``rotation`` seats: slot k sits at seat k+r."""
    n = len(lineup)
    return [lineup[(seat - rotation) % n] for seat in range(n)]


# ----- chunks: what a worker receives and returns -------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """A small picklable work order: games ``start..stop-1`` of one cell."""

    experiment: str
    cell: int
    label: str
    profile_json: str
    lineup: tuple
    keys: tuple
    rotations: int
    start: int
    stop: int
    root_seed: int
    parent_pid: int = 0  # the process that planned the chunk; a worker is any other process
    isolate: float | None = None  # class-path bots in processes of their own, this many s a decision

    @property
    def games(self) -> int:
        return self.stop - self.start

    @property
    def name(self) -> str:
        return f"c{self.cell:04d}-g{self.start:08d}-{self.stop:08d}"


def check_chunk_size(chunk_size: int | None) -> int:
    """The chunk size to use: ``DEFAULT_CHUNK`` for None, else a whole number in 1..MAX_CHUNK."""
    if chunk_size is None:
        return DEFAULT_CHUNK
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or not 1 <= chunk_size <= MAX_CHUNK:
        raise ExperimentError(
            f"--chunk-size: expected a whole number of games 1..{MAX_CHUNK}, got {chunk_size!r}"
        )
    return chunk_size


def plan_chunks(experiment: Experiment, chunk_size: int, isolate: float | None = None) -> list[Chunk]:
    """Every chunk of the experiment, in the fixed order the merged files use; ``isolate``: the
    seconds a decision of an isolated class-path bot may take (None: they play in-process)."""
    n_chunks = len(experiment.cells) * -(-experiment.games // chunk_size)
    if n_chunks > MAX_CHUNKS:
        raise ExperimentError(
            f"--games: {len(experiment.cells)} cell(s) x {experiment.games} games in chunks of {chunk_size} "
            f"is {n_chunks} chunks, over the limit of {MAX_CHUNKS}; lower --games or raise --chunk-size"
        )
    chunks = []
    for cell in experiment.cells:
        profile_json = json.dumps(cell.profile.to_dict(), sort_keys=True)
        for start in range(0, experiment.games, chunk_size):
            chunks.append(
                Chunk(
                    experiment.name,
                    cell.index,
                    cell.label,
                    profile_json,
                    cell.lineup,
                    cell.keys,
                    experiment.rotations(cell),
                    start,
                    min(start + chunk_size, experiment.games),
                    experiment.seed,
                    os.getpid(),
                    isolate,
                )
            )
    return chunks


def plan_record(experiment: Experiment, chunk_size: int) -> dict:
    """What ``manifest.json`` records of the plan; a resume must find the same."""
    return {"experiment": experiment.to_dict(), "chunk_size": chunk_size}


def replay_command(profile_path: str, lineup: tuple, rotation: int, seed: int) -> str:
    """The ``rummisim play`` command that replays a game."""
    bots = ",".join(bot_label(s) for s in seat_lineup(lineup, rotation))
    return f"rummisim play --profile {profile_path} --bots '{bots}' --seed {seed}"


def chunk_games(chunks: list[Chunk]) -> Mapping[str, int]:
    """Each chunk's name and game count, in plan order (what the store checks and merges)."""
    return {c.name: c.games for c in chunks}
