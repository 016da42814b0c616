"""The batch runner: play every cell of an experiment in parallel chunks, resumably.

Data flow: ``load_experiment`` -> cells -> chunks of game indices (``plan``) -> workers play
``play_game`` for each game and flatten the records into three small Arrow tables (``rows``,
columns declared in ``rummisim.schema``) on a backend (``backends``: loky or dask) -> the main
process writes each chunk atomically into ``OUT/chunks/`` -> when all chunks are done they are
streamed, in a fixed order and fixed row groups, into ``games.parquet``, ``seats.parquet`` and
``matches.parquet`` (the store, ``rummisim.store``); ``summary.csv`` and ``manifest.json`` follow
(``run``).

With ``--turns`` the workers also keep each game's event stream and build a fourth table from it,
``turns.parquet`` (``turns``: one row per turn), which travels through the same chunks and merge.

Modules: ``plan`` (seeds, rotations, chunks), ``rows`` (a chunk's games -> rows), ``turns`` (a
game's events -> turn rows), ``backends`` (joblib, dask), ``run`` (``run_experiment``). Reading a
results folder belongs to ``rummisim.store``; ``load_results`` is re-exported here for the public
API.
"""

from rummisim.runner.backends import check_backend
from rummisim.runner.plan import Chunk, game_seed, plan_chunks, replay_command, seat_lineup
from rummisim.runner.rows import play_chunk, schemas
from rummisim.runner.run import RunResult, prepare_out, run_experiment
from rummisim.store import CHUNK_RECORD, TABLES, check_out, chunk_problem, load_results, write_summary

__all__ = [
    "CHUNK_RECORD",
    "TABLES",
    "Chunk",
    "RunResult",
    "check_backend",
    "check_out",
    "chunk_problem",
    "game_seed",
    "load_results",
    "play_chunk",
    "plan_chunks",
    "prepare_out",
    "replay_command",
    "run_experiment",
    "schemas",
    "seat_lineup",
    "write_summary",
]
