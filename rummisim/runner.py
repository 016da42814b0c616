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
import hashlib
import json
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
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
from rummisim.results import TABLES, load_results, read_manifest

ROW_GROUP = 65_536  # rows per Parquet row group in the merged files, whatever the chunk size
DEFAULT_CHUNK = 50
MAX_CHUNK = 10_000  # games per chunk: a worker holds a chunk's rows as Python lists until it returns
MAX_CHUNKS = 1_000_000  # chunks per run: the plan is a list held in memory
CHUNK_RECORD = "chunk.json"  # in each chunk folder: its games, and each file's rows, size and SHA-256
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
    key_types = {k: _key_type([dict(c.keys).get(k) for c in experiment.cells]) for k in experiment.sweep_keys}
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


def check_chunk_size(chunk_size: int | None) -> int:
    """The chunk size to use: ``DEFAULT_CHUNK`` for None, else a whole number in 1..MAX_CHUNK."""
    if chunk_size is None:
        return DEFAULT_CHUNK
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or not 1 <= chunk_size <= MAX_CHUNK:
        raise ExperimentError(
            f"--chunk-size: expected a whole number of games 1..{MAX_CHUNK}, got {chunk_size!r}"
        )
    return chunk_size


def plan_chunks(experiment: Experiment, chunk_size: int) -> list[Chunk]:
    """Every chunk of the experiment, in the fixed order the merged files use."""
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
                )
            )
    return chunks


# ----- the results folder ----------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_chunk(out: Path, chunk: Chunk, tables: dict[str, pa.Table]) -> None:
    """Write a chunk's three files and its record into a temp folder, then rename it: done or
    absent, never half. The record (``chunk.json``) holds each file's rows, size and SHA-256, so a
    chunk damaged later is found and replayed by ``--resume``."""
    final = out / "chunks" / chunk.name
    tmp = out / "chunks" / f".tmp-{chunk.name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        record: dict[str, Any] = {"chunk": chunk.name, "games": chunk.stop - chunk.start, "files": {}}
        for name, table in tables.items():
            path = tmp / f"{name}.parquet"
            pq.write_table(table, path)
            record["files"][f"{name}.parquet"] = {
                "rows": table.num_rows, "bytes": path.stat().st_size, "sha256": _sha256(path),
            }  # fmt: skip
        (tmp / CHUNK_RECORD).write_text(json.dumps(record, indent=1) + "\n")
        if final.exists():  # a damaged copy found by done_chunks: the new one replaces it
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def chunk_problem(folder: Path, games: int) -> str | None:
    """Why a written chunk folder cannot be used (None when it is intact).

    A chunk carries ``chunk.json``: its game count and each file's rows, size and SHA-256 as
    written; all must match. A chunk from before these records is checked by its Parquet footers
    and its match count (one row per game).
    """
    record_path = folder / CHUNK_RECORD
    try:
        if not record_path.exists():
            for name in TABLES:
                meta = pq.read_metadata(folder / f"{name}.parquet")
                if name == "matches" and meta.num_rows != games:
                    return f"matches.parquet holds {meta.num_rows} rows, expected {games}"
            return None
        record = json.loads(record_path.read_text())
        if not isinstance(record, dict) or record.get("games") != games:
            return f"{CHUNK_RECORD} does not describe {games} games"
        files = record.get("files")
        if not isinstance(files, dict) or set(files) != {f"{n}.parquet" for n in TABLES}:
            return f"{CHUNK_RECORD} does not list the three tables"
        for file, want in files.items():
            path = folder / file
            if not path.exists():
                return f"{file} is missing"
            if path.stat().st_size != want.get("bytes"):
                return f"{file} has {path.stat().st_size} bytes, expected {want.get('bytes')}"
            if _sha256(path) != want.get("sha256"):
                return f"{file} does not match its checksum"
            rows = pq.read_metadata(path).num_rows
            if rows != want.get("rows"):
                return f"{file} holds {rows} rows, expected {want.get('rows')}"
    except (OSError, ValueError, AttributeError, pa.ArrowException) as exc:
        return f"unreadable ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    return None


def done_chunks(out: Path, chunks: list[Chunk] | None = None) -> set[str]:
    """Names of the chunks already written and intact.

    With ``chunks`` (the plan), each planned chunk folder is checked with ``chunk_problem``; a
    damaged one is not done, so ``--resume`` plays it again. Leftover temp folders from a kill are
    ignored.
    """
    folder = out / "chunks"
    if not folder.is_dir():
        return set()
    names = {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".tmp-")}
    if chunks is None:
        return names
    return {
        c.name for c in chunks if c.name in names and chunk_problem(folder / c.name, c.stop - c.start) is None
    }


def damaged_chunks(out: Path, chunks: list[Chunk]) -> list[str]:
    """``name: why`` for each planned chunk folder that exists but fails ``chunk_problem``."""
    folder = out / "chunks"
    found = []
    for c in chunks:
        if (folder / c.name).is_dir():
            why = chunk_problem(folder / c.name, c.stop - c.start)
            if why:
                found.append(f"{c.name}: {why}")
    return found


def _remove_stale_temps(out: Path) -> None:
    """Remove temp folders and files left by a killed process (one whose pid is gone)."""
    for folder in (out / "chunks", out):
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.name.startswith(".tmp-") and p.is_dir():
                pid = p.name.rsplit("-", 1)[-1]
                if pid.isdigit() and not _alive(int(pid)):
                    shutil.rmtree(p, ignore_errors=True)
            elif folder == out and p.is_file() and (p.name.startswith(".tmp-") or p.name.endswith(".tmp")):
                p.unlink(missing_ok=True)  # a merge, summary or report temp file


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def merge_chunks(out: Path, chunks: list[Chunk], schema: dict[str, pa.Schema]) -> list[dict]:
    """Stream every chunk, in plan order, into the three Parquet files; return the fault list.

    Row groups hold ``ROW_GROUP`` rows whatever the chunk size, so the files are byte-identical
    for any jobs, chunk size or backend. Memory holds at most one row group per table.
    """
    faults: list[dict] = []
    for name in TABLES:
        tmp = out / f".{name}.parquet.tmp"
        try:
            faults += _merge_table(out, name, chunks, schema[name], tmp)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, out / f"{name}.parquet")
    return faults


def _merge_table(out: Path, name: str, chunks: list[Chunk], schema: pa.Schema, tmp: Path) -> list[dict]:
    faults: list[dict] = []
    with pq.ParquetWriter(tmp, schema) as writer:
        buffer: list[pa.Table] = []
        buffered = 0
        for chunk in chunks:
            path = out / "chunks" / chunk.name / f"{name}.parquet"
            try:
                table = pq.read_table(path, schema=schema)
            except (OSError, pa.ArrowException) as exc:
                raise ExperimentError(
                    f"{path}: damaged while merging ({str(exc).splitlines()[0][:200]}); "
                    "rerun with --resume to play that chunk again"
                ) from None
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
    workers: int = 0  # worker processes started (at most one per chunk to play)
    replayed: tuple[str, ...] = ()  # damaged chunks found on --resume and played again ("name: why")
    removed: bool = False  # interrupted before any game was saved: the new folder was removed


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


def check_out(out: Path) -> None:
    """Refuse an ``--out`` that cannot hold a results folder: an existing file or device, a path
    under a file, or a folder (or the nearest existing parent) this process may not write in."""
    try:
        if out.exists() or out.is_symlink():
            if not out.is_dir():
                raise ExperimentError(
                    f"--out: {out} exists and is not a folder; give a folder path (it is created if missing)"
                )
            target = out
        else:
            target = next(p for p in (*out.parents, Path(".")) if p.exists() or p.is_symlink())
            if not target.is_dir():
                raise ExperimentError(f"--out: cannot create {out}: {target} is not a folder")
        if not os.access(target, os.W_OK | os.X_OK):
            raise ExperimentError(
                f"--out: cannot write in {target} (permission denied); choose another folder"
            )
    except OSError as exc:
        raise ExperimentError(f"--out: {out}: {exc.strerror or exc}") from None


def _make_out(out: Path) -> Path | None:
    """Create ``out``; return the topmost folder this created (None when ``out`` existed)."""
    missing = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExperimentError(f"--out: cannot create {out}: {exc.strerror or exc}") from None
    return missing[-1] if missing else None


def check_backend(backend: str, scheduler: str | None) -> None:
    """Refuse an unknown backend, a dask backend without dask.distributed installed, and a
    scheduler without the dask backend, before anything is written."""
    if backend not in ("loky", "dask"):
        raise ExperimentError(f"--backend: expected loky or dask, got {backend!r}")
    if backend == "loky":
        if scheduler:
            raise ExperimentError("--scheduler: only used with --backend dask")
        return
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise ExperimentError("--backend dask needs dask.distributed: pip install 'rummisim[dask]'") from None


def prepare_out(
    out: Path, experiment: Experiment, chunk_size: int | None, resume: bool
) -> tuple[int, dict | None]:
    """Check the results folder for a fresh run or a resume; return the chunk size to use and,
    on a resume, the folder's checked manifest (None for a fresh run)."""
    check_out(out)
    size = check_chunk_size(chunk_size)
    has_manifest = (out / "manifest.json").exists()
    if resume:
        if not has_manifest:
            if out.is_dir() and any(out.iterdir()):
                raise ExperimentError(f"--resume: {out} has no manifest.json; it is not a rummisim run")
            return size, None
        manifest = read_manifest(out)
        saved = manifest["plan"]
        saved_size = saved.get("chunk_size")
        if isinstance(saved_size, bool) or not isinstance(saved_size, int) or saved_size < 1:
            raise ExperimentError(
                f"{out / 'manifest.json'}: damaged manifest (plan.chunk_size is {saved_size!r}); "
                "restore it from a backup, or rerun the experiment into a new --out"
            )
        if chunk_size is not None and chunk_size != saved_size:
            raise ExperimentError(
                f"--chunk-size: {out} was started with chunk size {saved_size}; resume with the same one"
            )
        if saved != _plan(experiment, saved_size):
            raise ExperimentError(
                f"--resume: {out} holds a different experiment (its spec, seed, games or profiles "
                "changed); use another --out, or rerun the original spec"
            )
        return saved_size, manifest
    if out.is_dir() and any(out.iterdir()):
        raise ExperimentError(
            f"{out} is not empty; pass --resume to continue the run there, or --out to write elsewhere"
        )
    return size, None


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_profiles(out: Path, experiment: Experiment) -> dict[str, str]:
    """Each cell's full profile as YAML, for ``rummisim play --profile`` replays."""
    folder = out / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for cell in experiment.cells:
        digest = cell.profile.digest
        path = folder / f"{digest}.yaml"
        text = cell.profile.to_yaml()
        if not path.is_file() or path.read_bytes() != text.encode():  # missing or damaged: rewrite
            path.write_text(text)
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

    check_backend(backend, scheduler)
    if backend == "loky":
        yield joblib.Parallel(n_jobs=jobs, return_as="generator_unordered", backend="loky")
        return
    from dask.distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler:
            try:
                client = Client(scheduler, timeout="30s")
            except (OSError, TimeoutError, ValueError, TypeError) as exc:
                raise ExperimentError(f"--scheduler: cannot reach {scheduler}: {exc}") from None
        else:
            cluster = stack.enter_context(
                LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
            )
            client = Client(cluster)
        stack.enter_context(client)
        stack.enter_context(joblib.parallel_config(backend="dask"))
        yield joblib.Parallel(n_jobs=-1, return_as="generator_unordered")


def _worker_died() -> tuple[type[BaseException], ...]:
    try:
        from joblib.externals.loky.process_executor import TerminatedWorkerError
    except ImportError:  # pragma: no cover - joblib without its vendored loky
        return ()
    return (TerminatedWorkerError,)


def _discard(out: Path, created: Path | None) -> None:
    """Remove what a fresh run wrote before its first chunk: the folders it created, or the
    contents of the empty folder it was given."""
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)
        return
    for p in out.iterdir():
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


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
    on_start: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Play every missing chunk of ``experiment`` into ``out`` and merge the results.

    Everything is checked before anything is written: the folder (``check_out``), the chunk size,
    the backend, and on a resume the manifest and every chunk (a damaged chunk is played again).
    At most one worker per chunk to play is started. ``progress=None`` shows a bar only when
    stderr is a terminal. A ``KeyboardInterrupt`` leaves every finished chunk on disk and returns
    ``interrupted=True``; a fresh run stopped or failing before its first chunk leaves nothing.
    ``on_start(workers, chunks_to_play)`` is called once every check has passed and the folder
    exists, before the first game.
    """
    from tqdm import tqdm

    out = Path(out)
    started = _dt.datetime.now(_dt.UTC)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ExperimentError(f"--jobs: expected a whole number of workers >= 1, got {jobs!r}")
    check_backend(backend, scheduler)
    size, previous = prepare_out(out, experiment, chunk_size, resume)
    chunks = plan_chunks(experiment, size)
    schema = schemas(experiment)
    if previous is not None:
        _remove_stale_temps(out)
    replayed = tuple(damaged_chunks(out, chunks)) if previous is not None else ()
    done = done_chunks(out, chunks)
    todo = [c for c in chunks if c.name not in done]
    total = sum(c.stop - c.start for c in chunks)
    already = total - sum(c.stop - c.start for c in todo)
    workers = max(1, min(jobs, len(todo)))
    manifest_path = out / "manifest.json"
    played = 0
    merging = False
    manifest: dict[str, Any] | None = None
    with contextlib.ExitStack() as stack:
        # The backend is started (a dask scheduler reached) before the folder is touched.
        parallel = stack.enter_context(_parallel(workers, backend, scheduler)) if todo else None
        created = _make_out(out)
        try:
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
                "workers": workers if todo else 0,
                "backend": backend,
                "out": str(out),
                "out_resolved": str(out.resolve()),
            }
            if previous is not None:
                manifest["started"] = previous.get("started", manifest["started"])
                manifest["resumed"] = _now()
                if replayed:
                    manifest["replayed_chunks"] = list(replayed)
            _write_json(manifest_path, manifest)
            if on_start is not None:
                on_start(workers if todo else 0, len(todo))

            interrupted = False
            quiet = (not sys.stderr.isatty()) if progress is None else not progress
            bar = tqdm(
                total=total, initial=already, unit="game", disable=quiet, smoothing=0.1, desc=experiment.name
            )
            try:
                if todo:
                    from joblib import delayed

                    work = parallel(delayed(_play_chunk_named)(chunk, schema) for chunk in todo)
                    by_name = {c.name: c for c in todo}
                    for name, tables in work:
                        _write_chunk(out, by_name[name], tables)
                        n = by_name[name].stop - by_name[name].start
                        played += n
                        bar.update(n)
            except KeyboardInterrupt:
                interrupted = True
            except _worker_died() as exc:
                raise ExperimentError(
                    f"a worker process died ({str(exc).splitlines()[0][:120]}); the finished chunks are "
                    f"saved in {out}: resume with --resume, with fewer --jobs if memory ran out"
                ) from None
            finally:
                bar.close()
            manifest["games_done"] = already + played
            if interrupted:
                raise KeyboardInterrupt

            merging = True
            faults = merge_chunks(out, chunks, schema)
        except BaseException as exc:
            nothing_saved = previous is None and not done_chunks(out)
            if nothing_saved:
                _discard(out, created)
            elif manifest is None:
                pass  # failed before the manifest was written: the folder's own one stands
            elif not merging and previous is not None and previous.get("status") == "complete":
                _write_json(manifest_path, previous)  # the merged tables are untouched: still complete
            else:
                _write_json(manifest_path, {**manifest, "status": "interrupted"})
            if isinstance(exc, KeyboardInterrupt):
                return RunResult(
                    out, total, already + played, played, 0, _elapsed(started),
                    interrupted=True, workers=workers, replayed=replayed, removed=nothing_saved,
                )  # fmt: skip
            raise
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
    return RunResult(
        out, total, total, played, manifest["faults"]["games"], _elapsed(started),
        workers=workers if todo else 0, replayed=replayed,
    )  # fmt: skip


def _play_chunk_named(chunk: Chunk, schema) -> tuple[str, dict[str, pa.Table]]:
    return chunk.name, play_chunk(chunk, schema)


def _elapsed(started: _dt.datetime) -> float:
    return (_dt.datetime.now(_dt.UTC) - started).total_seconds()


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
        try:
            frame.to_csv(tmp, index=False)
            os.replace(tmp, out / f"{name}.csv")
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return summary, bots


__all__ = [
    "Cell",
    "Chunk",
    "RunResult",
    "game_seed",
    "check_out",
    "chunk_problem",
    "load_results",
    "play_chunk",
    "plan_chunks",
    "replay_command",
    "run_experiment",
    "schemas",
    "seat_lineup",
    "write_summary",
]
