"""Running an experiment: check everything, play the missing chunks on a backend, write each one
as it finishes, merge, and keep ``manifest.json`` telling where the run stands."""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rummisim.bots.registry import check_search_scope
from rummisim.experiment import Experiment, ExperimentError
from rummisim.profile import load_profile
from rummisim.runner import backends
from rummisim.runner.backends import check_backend, worker_died
from rummisim.runner.plan import (
    Chunk,
    check_chunk_size,
    chunk_games,
    plan_chunks,
    plan_record,
    replay_command,
)
from rummisim.runner.rows import play_registered, registered_bots, schemas
from rummisim.schema import RunStatus
from rummisim.solver.warm import PARTS, warm_up
from rummisim.store import (
    LOCK_FILE,
    check_out,
    chunk_identity,
    custom_bots,
    damaged_chunks,
    discard,
    done_chunks,
    foreign_chunk,
    git_commit,
    hold_lock,
    make_out,
    merge_chunks,
    now,
    package_version,
    read_manifest,
    remove_stale_temps,
    run_identity,
    write_chunk,
    write_json,
    write_profiles,
    write_summary,
)

MAX_LISTED_FAULTS = 200


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


def _has_files(out: Path) -> bool:
    """Whether ``out`` holds anything but a run's lock file."""
    return out.is_dir() and any(p.name != LOCK_FILE for p in out.iterdir())


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
            if _has_files(out):
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
        if saved != plan_record(experiment, saved_size):
            raise ExperimentError(
                f"--resume: {out} holds a different experiment (its spec, seed, games or profiles "
                "changed); use another --out, or rerun the original spec"
            )
        return saved_size, manifest
    if _has_files(out):
        raise ExperimentError(
            f"{out} is not empty; pass --resume to continue the run there, or --out to write elsewhere"
        )
    return size, None


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
    turns: bool | None = None,
    isolate: float | None = None,
) -> RunResult:
    """Play every missing chunk of ``experiment`` into ``out`` and merge the results.

    Everything is checked before anything is written: the folder (``check_out``), the chunk size,
    the backend, solver bots on a tile set the fast search cannot encode (``check_search_scope``:
    a ``BotError``), and on a resume the manifest and every chunk (a damaged chunk is played again).
    At most one worker per chunk to play is started. ``progress=None`` shows a bar only when
    stderr is a terminal. A ``KeyboardInterrupt`` leaves every finished chunk on disk and returns
    ``interrupted=True``; a fresh run stopped or failing before its first chunk leaves nothing.
    ``on_start(workers, chunks_to_play)`` is called once every check has passed and the folder
    exists, before the first game. ``turns=True`` (``--turns``; ``None``: the experiment's
    ``turns:``, default false) also writes ``turns.parquet``, one row per turn, through the same
    chunks; a resume keeps the setting the run was started with. ``isolate`` (seconds a decision
    may take): class-path bots (``package.module:Class``) play in processes of their own
    (``rummisim.isolation``); None plays them in-process, as the built-in bots always do.
    """
    from tqdm import tqdm

    out = Path(out)
    started = _dt.datetime.now(_dt.UTC)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ExperimentError(f"--jobs: expected a whole number of workers >= 1, got {jobs!r}")
    check_backend(backend, scheduler)
    for cell in experiment.cells:
        check_search_scope(cell.profile, cell.lineup, f"{experiment.source}: cell {cell.label!r}")
    size, previous = prepare_out(out, experiment, chunk_size, resume)
    turns = turns_setting(out, experiment, turns, previous)
    chunks = plan_chunks(experiment, size, isolate)
    schema = schemas(experiment, turns)
    tables = tuple(schema)  # what every chunk of this run holds
    run_id = run_identity(experiment.to_dict(), experiment.seed)
    if previous is not None:
        for chunk in chunks:  # a chunk of another run is refused, not replayed over
            foreign = foreign_chunk(
                out / "chunks" / chunk.name, chunk_identity(run_id, chunk.cell, chunk.start, chunk.stop)
            )
            if foreign:
                raise ExperimentError(f"--resume: {foreign}")
        remove_stale_temps(out)
    replayed = tuple(damaged_chunks(out, chunk_games(chunks), tables)) if previous is not None else ()
    done = done_chunks(out, chunk_games(chunks), tables)
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
        parallel = stack.enter_context(backends.parallel(workers, backend, scheduler)) if todo else None
        created = make_out(out)
        stack.enter_context(hold_lock(out))  # (before the try: a refused run touches nothing)
        try:
            profile_paths = write_profiles(out, experiment)
            manifest = {
                "status": RunStatus.RUNNING.value,
                "experiment": experiment.to_dict(),
                "spec": experiment.spec,
                "profiles": {c.profile.digest: c.profile.to_dict() for c in experiment.cells},
                "plan": plan_record(experiment, size),
                "run": run_id,
                "turns": turns,
                "package_version": package_version(),
                "git_commit": git_commit(),
                **({"custom_bots": bots} if (bots := custom_bots(experiment)) else {}),
                "python": sys.version.split()[0],
                "started": now(),
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
                manifest["resumed"] = now()
                if replayed:
                    manifest["replayed_chunks"] = list(replayed)
            write_json(manifest_path, manifest)
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

                    assert parallel is not None  # entered above when there is work to do
                    registered = registered_bots(experiment)
                    # loky workers are this process's children: each leaves when it is orphaned
                    orphans_exit = backend == "loky"
                    if workers > 1:  # (the search's parts compiled side by side: ``solver.warm``)
                        warming = (delayed(_warm_up)(part, os.getpid(), orphans_exit) for part in PARTS)
                        for _ in parallel(warming):
                            pass
                    work = parallel(
                        delayed(_play_chunk_named)(chunk, schema, registered, orphans_exit) for chunk in todo
                    )
                    by_name = {c.name: c for c in todo}
                    for name, tables in work:
                        chunk = by_name[name]
                        identity = chunk_identity(run_id, chunk.cell, chunk.start, chunk.stop)
                        write_chunk(out, name, chunk.games, tables, identity)
                        n = chunk.games
                        played += n
                        bar.update(n)
            except KeyboardInterrupt:
                interrupted = True
            except worker_died() as exc:
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
            faults = merge_chunks(out, [c.name for c in chunks], schema, run_id)
        except BaseException as exc:
            nothing_saved = previous is None and not done_chunks(out)
            if nothing_saved:
                discard(out, created)
            elif manifest is None:
                pass  # failed before the manifest was written: the folder's own one stands
            elif not merging and previous is not None and previous.get("status") == RunStatus.COMPLETE:
                write_json(manifest_path, previous)  # the merged tables are untouched: still complete
            else:
                write_json(manifest_path, {**manifest, "status": RunStatus.INTERRUPTED.value})
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
        status=RunStatus.COMPLETE.value,
        finished=now(),
        faults={"games": len({(f["cell"], f["game"]) for f in faults}), "listed": faults[:MAX_LISTED_FAULTS]},
    )
    write_json(manifest_path, manifest)
    if summarize:
        write_summary(out)
    return RunResult(
        out, total, total, played, manifest["faults"]["games"], _elapsed(started),
        workers=workers if todo else 0, replayed=replayed,
    )  # fmt: skip


def turns_setting(out: Path, experiment: Experiment, turns: bool | None, previous: dict | None) -> bool:
    """Does the run write ``turns.parquet``? ``turns`` when given, else the experiment's ``turns:``.
    A resume keeps what its manifest says the run was started with, and refuses a change: the
    chunks already written hold turn rows or do not."""
    wanted = experiment.turns if turns is None else turns
    if previous is None:
        return wanted
    saved = previous.get("turns") is True
    if wanted == saved or (turns is None and not experiment.turns):
        return saved
    if saved:
        raise ExperimentError(
            f"--turns: {out} was started with --turns; resume it with --turns (or without the option)"
        )
    raise ExperimentError(
        f"--turns: {out} was started without --turns, so its chunks hold no turn rows; "
        "resume it without --turns (and without turns: in the experiment), or rerun into a new --out"
    )


def _play_chunk_named(
    chunk: Chunk, schema, registered: dict[str, type], orphans_exit: bool
) -> tuple[str, dict[str, Any]]:
    _leave_with(chunk.parent_pid, orphans_exit)
    return chunk.name, play_registered(chunk, schema, registered)


def _warm_up(part: str, parent: int, orphans_exit: bool) -> None:
    """``solver.warm.warm_up`` in a worker (under the built-in ``standard`` profile)."""
    _leave_with(parent, orphans_exit)
    warm_up(part, load_profile("standard"))


def _leave_with(parent: int, orphans_exit: bool) -> None:
    """In a worker of ``parent``, the planning process (not ``parent`` itself), where its workers
    leave with it (``orphans_exit``: loky's): end when ``parent`` is gone."""
    if orphans_exit and os.getpid() != parent:
        backends.exit_when_orphaned(parent)


def _elapsed(started: _dt.datetime) -> float:
    return (_dt.datetime.now(_dt.UTC) - started).total_seconds()
