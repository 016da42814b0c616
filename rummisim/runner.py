"""The batch runner: play every cell of an experiment in parallel chunks, resumably.

Data flow: ``load_experiment`` -> cells -> chunks of game indices -> workers play
``play_game`` for each game and return three small Arrow tables (games, seats,
matches) -> the main process writes each chunk atomically into
``OUT/chunks/`` -> when all chunks are done they are streamed, in a fixed order
and fixed row groups, into ``games.parquet``, ``seats.parquet`` and
``matches.parquet``; ``summary.csv`` and ``manifest.json`` follow.

Seeding: game ``g`` of a cell is deal ``g // R`` replayed with the lineup rotated
``g % R`` seats (``R`` = seats when ``rotate_seats``, else 1). Its seed is drawn
from ``SeedSequence(root_seed, spawn_key=(deal,))``: it does not depend on the
cell, so every cell plays the same deals (common random numbers, paired
comparisons) wherever the tile set is the same; nor on jobs, chunking or
backend, so results are bit-identical however the work is split. The seed is
an int, so ``rummisim play --seed S`` replays any game.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import json
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from rummisim.bots import bot_label, bot_name
from rummisim.engine import END_CAPPED, play_game
from rummisim.experiment import Cell, Experiment, ExperimentError
from rummisim.profile import RuleProfile, profile_from_dict

TABLES = ("games", "seats", "matches")
ROW_GROUP = 65_536  # rows per Parquet row group in the merged files, whatever the chunk size
DEFAULT_CHUNK = 50
MAX_LISTED_FAULTS = 200
END_NAMES = {"out": "out", "pool_exhausted": "pool_exhausted", END_CAPPED: "turn_cap"}


# ----- seeds ---------------------------------------------------------------------------------------


def game_seed(root_seed: int, deal: int) -> int:
    """The integer seed of a deal: from ``SeedSequence(root_seed, spawn_key=(deal,))``, 63 bits."""
    state = np.random.SeedSequence(root_seed, spawn_key=(deal,)).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def seat_lineup(lineup: tuple, rotation: int) -> list:
    """The bots by seat when the lineup is rotated ``rotation`` seats: slot k sits at seat k+r."""
    n = len(lineup)
    return [lineup[(seat - rotation) % n] for seat in range(n)]


# ----- table schemas -------------------------------------------------------------------------------


def _key_type(values: list) -> pa.DataType:
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if kinds <= {bool} and present:
        return pa.bool_()
    if kinds <= {int} and present:
        return pa.int64()
    if kinds <= {int, float} and present:
        return pa.float64()
    return pa.string()


def _id_fields(key_types: dict[str, pa.DataType]) -> list[pa.Field]:
    return [
        pa.field("experiment", pa.string()),
        pa.field("cell", pa.int32()),
        pa.field("cell_label", pa.string()),
        pa.field("profile", pa.string()),
        pa.field("profile_hash", pa.string()),
        pa.field("lineup", pa.string()),
        *(pa.field(k, t) for k, t in key_types.items()),
        pa.field("deal", pa.int64()),
        pa.field("rotation", pa.int32()),
        pa.field("game", pa.int64()),
        pa.field("seed", pa.int64()),
    ]


_I32, _STR, _BOOL, _I32S = pa.int32(), pa.string(), pa.bool_(), pa.list_(pa.int32())
_COLUMNS = {
    "games": {
        "round": _I32, "n_players": _I32, "first_player": _I32, "turns": _I32, "winner": _I32,
        "winner_bot": _STR, "tied": _BOOL, "end_reason": _STR, "pool_left": _I32, "opened_turns": _I32S,
        "faults": _I32, "timeouts": _I32, "fault": _STR,
    },
    "seats": {
        "round": _I32, "n_players": _I32, "seat": _I32, "order": _I32, "slot": _I32, "bot": _STR,
        "bot_label": _STR, "score": _I32, "tiles_left": _I32, "points_left": _I32, "won": _BOOL,
        "opened_turn": _I32, "match_score": _I32, "match_won": _BOOL,
    },
    "matches": {
        "n_players": _I32, "rounds": _I32, "capped": _BOOL, "winner": _I32, "winner_bot": _STR,
        "tied": _BOOL, "scores": _I32S, "error": _STR,
    },
}  # fmt: skip


def schemas(experiment: Experiment) -> dict[str, pa.Schema]:
    """The Arrow schema of each output table (sweep-key columns typed from their values)."""
    key_types = {
        k: _key_type([dict(c.keys).get(k) for c in experiment.cells]) for k in experiment.sweep_keys
    }
    ids = _id_fields(key_types)
    return {
        name: pa.schema(ids + [pa.field(column, kind) for column, kind in columns.items()])
        for name, columns in _COLUMNS.items()
    }


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

    @property
    def name(self) -> str:
        return f"c{self.cell:04d}-g{self.start:08d}-{self.stop:08d}"


@functools.lru_cache(maxsize=64)
def _profile(profile_json: str) -> RuleProfile:
    return profile_from_dict(json.loads(profile_json), "<experiment cell>")


@functools.cache
def _silence_native_stdout() -> None:
    """Send this worker's C-level stdout to /dev/null, once.

    The HiGHS bundled with scipy prints a stray debug line
    ("HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();", fixed
    upstream in ERGO-Code/HiGHS#2783) straight to file descriptor 1. Workers print nothing
    of their own, so their stdout goes; the main process's is left alone.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def play_chunk(chunk: Chunk, schema: dict[str, pa.Schema]) -> dict[str, pa.Table]:
    """Play a chunk's games; return its games, seats and matches tables. Never raises for a game."""
    if chunk.parent_pid and os.getpid() != chunk.parent_pid:
        _silence_native_stdout()
    profile = _profile(chunk.profile_json)
    rows: dict[str, dict[str, list]] = {name: {f.name: [] for f in schema[name]} for name in TABLES}
    ident_base = {
        "experiment": chunk.experiment,
        "cell": chunk.cell,
        "cell_label": chunk.label,
        "profile": profile.name,
        "profile_hash": profile.digest,
        "lineup": ",".join(bot_label(s) for s in chunk.lineup),
        **dict(chunk.keys),
    }
    for game in range(chunk.start, chunk.stop):
        deal, rotation = divmod(game, chunk.rotations)
        seed = game_seed(chunk.root_seed, deal)
        ident = {**ident_base, "deal": deal, "rotation": rotation, "game": game, "seed": seed}
        seats = seat_lineup(chunk.lineup, rotation)
        try:
            record = play_game(profile, seats, seed)
        except Exception as exc:  # noqa: BLE001 - a crashing game is data, not the end of the run
            _add_crash(rows, ident, len(seats), seats, exc)
            continue
        _add_record(rows, ident, record, seats, rotation)
    return {name: pa.table(rows[name], schema=schema[name]) for name in TABLES}


def _append(table: dict[str, list], values: dict[str, Any]) -> None:
    for key, column in table.items():
        column.append(values.get(key))


def _add_crash(rows, ident, n, seats, exc) -> None:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    message = f"crash: {type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"
    _append(
        rows["games"],
        {**ident, "round": 0, "n_players": n, "first_player": -1, "turns": 0, "winner": -1,
         "tied": False, "end_reason": "fault", "pool_left": None, "opened_turns": None,
         "faults": 1, "timeouts": 0, "fault": message},
    )  # fmt: skip
    _append(
        rows["matches"],
        {**ident, "n_players": n, "rounds": 0, "capped": False, "winner": -1, "tied": False,
         "scores": None, "error": message},
    )  # fmt: skip


def _add_record(rows, ident, record, seats, rotation) -> None:
    n = len(seats)
    labels = [bot_label(s) for s in seats]
    for rnd in record.rounds:
        fault = None
        if rnd.faults:
            f = rnd.faults[0]
            fault = f"turn {f.turn} seat {f.seat} ({labels[f.seat]}): {f.rule}: {f.message}"
        elif rnd.end_reason == END_CAPPED:
            fault = f"turn cap: the round reached end.max_turns = {rnd.turns} turns"
        _append(
            rows["games"],
            {**ident, "round": rnd.round_index, "n_players": n, "first_player": rnd.first_player,
             "turns": rnd.turns, "winner": rnd.winner, "winner_bot": labels[rnd.winner],
             "tied": rnd.tied, "end_reason": END_NAMES[rnd.end_reason], "pool_left": rnd.pool_left,
             "opened_turns": list(rnd.opened_turn), "faults": len(rnd.faults),
             "timeouts": rnd.timeouts, "fault": fault},
        )  # fmt: skip
        for seat in range(n):
            spec = seats[seat]
            _append(
                rows["seats"],
                {**ident, "round": rnd.round_index, "n_players": n, "seat": seat,
                 "order": (seat - rnd.first_player) % n, "slot": (seat - rotation) % n,
                 "bot": bot_name(spec), "bot_label": labels[seat],
                 "score": rnd.scores[seat], "tiles_left": rnd.tiles_left[seat],
                 "points_left": rnd.rack_points[seat], "won": rnd.winner == seat,
                 "opened_turn": rnd.opened_turn[seat], "match_score": record.scores[seat],
                 "match_won": record.winner == seat},
            )  # fmt: skip
    _append(
        rows["matches"],
        {**ident, "n_players": n, "rounds": record.n_rounds, "capped": record.match_capped,
         "winner": record.winner, "winner_bot": labels[record.winner], "tied": record.tied,
         "scores": list(record.scores), "error": None},
    )  # fmt: skip


def plan_chunks(experiment: Experiment, chunk_size: int) -> list[Chunk]:
    """Every chunk of the experiment, in the fixed order the merged files use."""
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
                )
            )
    return chunks


# ----- the results folder ----------------------------------------------------------------------


def _write_chunk(out: Path, chunk: Chunk, tables: dict[str, pa.Table]) -> None:
    """Write a chunk's three files into a temp folder, then rename it: done or absent, never half."""
    final = out / "chunks" / chunk.name
    tmp = out / "chunks" / f".tmp-{chunk.name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for name, table in tables.items():
        pq.write_table(table, tmp / f"{name}.parquet")
    os.replace(tmp, final)


def done_chunks(out: Path) -> set[str]:
    """Names of the chunks already written (leftover temp folders from a kill are ignored)."""
    folder = out / "chunks"
    if not folder.is_dir():
        return set()
    return {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".tmp-")}


def merge_chunks(out: Path, chunks: list[Chunk], schema: dict[str, pa.Schema]) -> list[dict]:
    """Stream every chunk, in plan order, into the three Parquet files; return the fault list.

    Row groups hold ``ROW_GROUP`` rows whatever the chunk size, so the files are byte-identical
    for any jobs, chunk size or backend. Memory holds at most one row group per table.
    """
    faults: list[dict] = []
    for name in TABLES:
        tmp = out / f".{name}.parquet.tmp"
        with pq.ParquetWriter(tmp, schema[name]) as writer:
            buffer: list[pa.Table] = []
            buffered = 0
            for chunk in chunks:
                table = pq.read_table(out / "chunks" / chunk.name / f"{name}.parquet", schema=schema[name])
                if name == "games":
                    faults.extend(_faults(table))
                buffer.append(table)
                buffered += table.num_rows
                while buffered >= ROW_GROUP:
                    whole = pa.concat_tables(buffer)
                    writer.write_table(whole.slice(0, ROW_GROUP), row_group_size=ROW_GROUP)
                    buffer, buffered = [whole.slice(ROW_GROUP)], whole.num_rows - ROW_GROUP
            if buffered:
                writer.write_table(pa.concat_tables(buffer), row_group_size=ROW_GROUP)
        os.replace(tmp, out / f"{name}.parquet")
    return faults


def _faults(games: pa.Table) -> Iterator[dict]:
    with_fault = games.filter(pc.is_valid(games.column("fault")))
    yield from with_fault.select(["cell", "game", "seed", "round", "end_reason", "fault"]).to_pylist()


# ----- run ------------------------------------------------------------------------------------------


@dataclass
class RunResult:
    out: Path
    games_total: int
    games_done: int
    games_played: int  # this invocation
    faults: int
    seconds: float
    interrupted: bool = False


def git_commit() -> str | None:
    """The current git commit of the package checkout, when there is one."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None


def _plan(experiment: Experiment, chunk_size: int) -> dict:
    return {"experiment": experiment.to_dict(), "chunk_size": chunk_size}


def prepare_out(out: Path, experiment: Experiment, chunk_size: int | None, resume: bool) -> int:
    """Check the results folder for a fresh run or a resume; return the chunk size to use."""
    manifest_path = out / "manifest.json"
    if resume:
        if not manifest_path.exists():
            if out.exists() and any(out.iterdir()):
                raise ExperimentError(f"--resume: {out} has no manifest.json; it is not a rummisim run")
            return chunk_size or DEFAULT_CHUNK
        manifest = json.loads(manifest_path.read_text())
        saved = manifest.get("plan", {})
        size = saved.get("chunk_size")
        if chunk_size is not None and chunk_size != size:
            raise ExperimentError(
                f"--chunk-size: {out} was started with chunk size {size}; resume with the same one"
            )
        if saved != _plan(experiment, size):
            raise ExperimentError(
                f"--resume: {out} holds a different experiment (its spec, seed, games or profiles "
                "changed); use another --out, or rerun the original spec"
            )
        return size
    if out.exists() and any(out.iterdir()):
        raise ExperimentError(
            f"{out} is not empty; pass --resume to continue the run there, or --out to write elsewhere"
        )
    return chunk_size or DEFAULT_CHUNK


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
    os.replace(tmp, path)


def _write_profiles(out: Path, experiment: Experiment) -> dict[str, str]:
    """Each cell's full profile as YAML, for ``rummisim play --profile`` replays."""
    folder = out / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for cell in experiment.cells:
        digest = cell.profile.digest
        path = folder / f"{digest}.yaml"
        if not path.exists():
            path.write_text(cell.profile.to_yaml())
        paths[digest] = str(path)
    return paths


def replay_command(profile_path: str, lineup: tuple, rotation: int, seed: int) -> str:
    """The ``rummisim play`` command that replays a game."""
    bots = ",".join(bot_label(s) for s in seat_lineup(lineup, rotation))
    return f"rummisim play --profile {profile_path} --bots '{bots}' --seed {seed}"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rummisim")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


@contextlib.contextmanager
def _parallel(jobs: int, backend: str, scheduler: str | None) -> Iterator:
    """A joblib ``Parallel`` that yields results as they finish, on the chosen backend."""
    import joblib

    if backend == "loky":
        yield joblib.Parallel(n_jobs=jobs, return_as="generator_unordered", backend="loky")
        return
    if backend != "dask":
        raise ExperimentError(f"--backend: expected loky or dask, got {backend!r}")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ExperimentError(
            "--backend dask needs dask.distributed: pip install 'rummisim[dask]'"
        ) from None
    with contextlib.ExitStack() as stack:
        if scheduler:
            try:
                client = Client(scheduler, timeout="30s")
            except (OSError, TimeoutError) as exc:
                raise ExperimentError(f"--scheduler: cannot reach {scheduler}: {exc}") from None
        else:
            cluster = stack.enter_context(
                LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
            )
            client = Client(cluster)
        stack.enter_context(client)
        stack.enter_context(joblib.parallel_config(backend="dask"))
        yield joblib.Parallel(n_jobs=-1, return_as="generator_unordered")


def run_experiment(
    experiment: Experiment,
    out: str | Path,
    *,
    jobs: int = 1,
    chunk_size: int | None = None,
    resume: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool | None = None,
    summarize: bool = True,
) -> RunResult:
    """Play every missing chunk of ``experiment`` into ``out`` and merge the results.

    ``progress=None`` shows a bar only when stderr is a terminal. A ``KeyboardInterrupt``
    leaves every finished chunk on disk and returns ``interrupted=True``.
    """
    from tqdm import tqdm

    out = Path(out)
    started = _dt.datetime.now(_dt.UTC)
    size = prepare_out(out, experiment, chunk_size, resume)
    if size < 1:
        raise ExperimentError(f"--chunk-size: expected a positive number of games, got {size}")
    out.mkdir(parents=True, exist_ok=True)
    schema = schemas(experiment)
    chunks = plan_chunks(experiment, size)
    done = done_chunks(out)
    todo = [c for c in chunks if c.name not in done]
    total = sum(c.stop - c.start for c in chunks)
    already = total - sum(c.stop - c.start for c in todo)
    profile_paths = _write_profiles(out, experiment)
    manifest = {
        "status": "running",
        "experiment": experiment.to_dict(),
        "spec": experiment.spec,
        "profiles": {c.profile.digest: c.profile.to_dict() for c in experiment.cells},
        "plan": _plan(experiment, size),
        "package_version": _package_version(),
        "git_commit": git_commit(),
        "python": sys.version.split()[0],
        "started": _now(),
        "finished": None,
        "games_total": total,
        "games_done": already,
        "jobs": jobs,
        "backend": backend,
    }
    manifest_path = out / "manifest.json"
    if manifest_path.exists():
        manifest["started"] = json.loads(manifest_path.read_text()).get("started", manifest["started"])
        manifest["resumed"] = _now()
    _write_json(manifest_path, manifest)

    played = 0
    interrupted = False
    bar = tqdm(
        total=total, initial=already, unit="game", disable=(not sys.stderr.isatty()) if progress is None
        else not progress, smoothing=0.1, desc=experiment.name,
    )  # fmt: skip
    try:
        if todo:
            from joblib import delayed

            with _parallel(jobs, backend, scheduler) as parallel:
                work = parallel(delayed(_play_chunk_named)(chunk, schema) for chunk in todo)
                by_name = {c.name: c for c in todo}
                for name, tables in work:
                    _write_chunk(out, by_name[name], tables)
                    n = by_name[name].stop - by_name[name].start
                    played += n
                    bar.update(n)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    manifest["games_done"] = already + played
    if interrupted:
        manifest["status"] = "interrupted"
        _write_json(manifest_path, manifest)
        return RunResult(out, total, already + played, played, 0, _elapsed(started), interrupted=True)

    faults = merge_chunks(out, chunks, schema)
    cells = {c.index: c for c in experiment.cells}
    for fault in faults[:MAX_LISTED_FAULTS]:
        cell = cells[fault["cell"]]
        rotation = fault["game"] % experiment.rotations(cell)
        fault["replay"] = replay_command(
            profile_paths[cell.profile.digest], cell.lineup, rotation, fault["seed"]
        )
    manifest.update(
        status="complete",
        finished=_now(),
        faults={"games": len({(f["cell"], f["game"]) for f in faults}), "listed": faults[:MAX_LISTED_FAULTS]},
    )
    _write_json(manifest_path, manifest)
    if summarize:
        write_summary(out)
    return RunResult(out, total, total, played, manifest["faults"]["games"], _elapsed(started))


def _play_chunk_named(chunk: Chunk, schema) -> tuple[str, dict[str, pa.Table]]:
    return chunk.name, play_chunk(chunk, schema)


def _elapsed(started: _dt.datetime) -> float:
    return (_dt.datetime.now(_dt.UTC) - started).total_seconds()


def load_results(out: str | Path) -> dict[str, Any]:
    """Read a results folder: ``games``, ``seats``, ``matches`` DataFrames and the ``manifest``."""
    import pandas as pd

    out = Path(out)
    manifest_path = out / "manifest.json"
    if not manifest_path.exists():
        raise ExperimentError(f"{out}: no manifest.json; not a rummisim results folder")
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("status") != "complete":
        raise ExperimentError(
            f"{out}: the run is {manifest.get('status')}; finish it with rummisim run ... --resume"
        )
    data: dict[str, Any] = {name: pd.read_parquet(out / f"{name}.parquet") for name in TABLES}
    data["manifest"] = manifest
    return data


def write_summary(out: Path, data: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """Write ``summary.csv`` (one row per cell) and ``summary_bots.csv`` (per cell and bot) for a
    finished run; return both frames. ``data`` is ``load_results(out)`` when the caller has it."""
    from rummisim import stats

    data = data or load_results(out)
    keys = tuple(data["manifest"]["experiment"]["sweep_keys"])
    summary = stats.summarize(data["games"], data["seats"], data["matches"], keys=keys)
    bots = stats.summary_bots(data["seats"], data["games"], keys=keys)
    for name, frame in (("summary", summary), ("summary_bots", bots)):
        tmp = out / f".{name}.csv.tmp"
        frame.to_csv(tmp, index=False)
        os.replace(tmp, out / f"{name}.csv")
    return summary, bots


__all__ = [
    "Cell",
    "Chunk",
    "RunResult",
    "game_seed",
    "load_results",
    "play_chunk",
    "plan_chunks",
    "replay_command",
    "run_experiment",
    "schemas",
    "seat_lineup",
    "write_summary",
]
