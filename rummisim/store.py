"""The results folder: what is on disk, written safely and read back checked.

Writing: each finished chunk is written atomically (a temp folder, then a rename) into
``OUT/chunks/`` with a ``chunk.json`` record (rows, bytes, SHA-256 of each file); ``done_chunks``
and ``chunk_problem`` tell a resume which chunks are intact; ``merge_chunks`` streams them, in plan
order and fixed row groups, into ``games.parquet``, ``seats.parquet`` and ``matches.parquet``
(and ``turns.parquet`` for a ``run --turns``); ``write_summary`` writes the CSV summaries. JSON
and CSV files are replaced atomically too.

Reading: ``read_manifest`` checks ``manifest.json`` before it is trusted, and ``load_results``
returns the three tables as DataFrames (``load_turns``: the per-turn table). Every problem with a
folder (missing, not a folder, a damaged or foreign manifest, an unfinished run, a damaged table)
is an ``ExperimentError`` of one line that names the file and says what to do. The report and
the notebooks read results here, not through the runner. The columns are declared in
``rummisim.schema``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from rummisim.experiment import Experiment, ExperimentError
from rummisim.schema import OPTIONAL_TABLES, RunStatus, Table
from rummisim.validation import excerpt

TABLES = tuple(t.value for t in Table if t not in OPTIONAL_TABLES)  # every run writes these
STATUSES = tuple(s.value for s in RunStatus)
ROW_GROUP = 65_536  # rows per Parquet row group in the merged files, whatever the chunk size
CHUNK_RECORD = "chunk.json"  # in each chunk folder: its games, and each file's rows, size and SHA-256
#: What ``manifest.json`` must hold for the runner and the report to use it.
_REQUIRED = {"status": str, "experiment": dict, "plan": dict}
_REQUIRED_EXPERIMENT = ("name", "sweep_keys", "cells")
#: The columns of every table before the sweep-key columns, and the first one after them.
_ID_BEFORE_KEYS = ("experiment", "cell", "cell_label", "profile", "profile_hash", "lineup")
_ID_AFTER_KEYS = "deal"


def _damaged(path: Path, why: str) -> ExperimentError:
    return ExperimentError(
        f"{path}: damaged manifest ({why}); "
        "restore it from a backup, or rerun the experiment into a new --out"
    )


def read_manifest(out: str | Path, *, complete: bool = False) -> dict[str, Any]:
    """``OUT/manifest.json``, checked: a JSON object with a known ``status``, the resolved
    ``experiment`` and the ``plan``. Raises a one-line ``ExperimentError`` otherwise, and with
    ``complete=True`` also when the run is not finished."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"{out}: not a folder; give the results folder of a rummisim run")
    path = out / "manifest.json"
    if not path.exists():
        raise ExperimentError(f"{out}: no manifest.json; not a rummisim results folder")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _damaged(path, "not UTF-8 text") from None
    except OSError as exc:
        raise ExperimentError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _damaged(path, f"not valid JSON: {exc.msg}, line {exc.lineno} column {exc.colno}") from None
    if not isinstance(manifest, dict):
        raise _damaged(path, f"expected a JSON object, got a {type(manifest).__name__}")
    status = manifest.get("status")
    if status not in STATUSES:
        shown = "missing" if status is None else f"{str(status)[:40]!r}"
        raise _damaged(path, f"status is {shown}, not one of {', '.join(STATUSES)}")
    if complete and status != RunStatus.COMPLETE:
        experiment = manifest.get("experiment")
        source = experiment.get("source") if isinstance(experiment, dict) else None
        raise ExperimentError(
            f"{out}: the run is {status}; finish it with "
            f"rummisim run {source or 'EXPERIMENT.yaml'} --out {out} --resume"
        )
    missing = [k for k, kind in _REQUIRED.items() if not isinstance(manifest.get(k), kind)]
    experiment = manifest.get("experiment")
    if isinstance(experiment, dict):
        missing += [f"experiment.{k}" for k in _REQUIRED_EXPERIMENT if k not in experiment]
    if missing:
        raise _damaged(path, "missing or mistyped: " + ", ".join(missing))
    return manifest


def _read_table(out: Path, name: str, resume_hint: str, run: Mapping[str, Any] | None = None):
    import pandas as pd
    import pyarrow as pa

    path = out / f"{name}.parquet"
    if not path.exists():
        raise ExperimentError(f"{path}: missing; {resume_hint}")
    try:
        _check_table(path, name, run)
        return pd.read_parquet(path)
    except (OSError, pa.ArrowException, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ExperimentError(f"{path}: damaged ({first[:200]}); {resume_hint}") from None


def _check_table(path: Path, name: str, run: Mapping[str, Any] | None) -> None:
    """Refuse a table that is not what ``rummisim.schema`` declares (a dropped column, a column of
    another type) or that belongs to another run than the manifest's, naming the file and the
    column. (A table from before the run records carries none and is read.)"""
    import pyarrow.parquet as pq

    from rummisim.schema import COLUMNS, GAME_IDENTITY, IDENTITY, arrow_type

    found = pq.read_schema(path)
    for column in (*IDENTITY, *GAME_IDENTITY, *COLUMNS[Table(name)]):
        if column.name not in found.names:
            raise ExperimentError(
                f"{path}: column {column.name!r} is missing (rummisim/schema.py declares it)"
            )
        got, want = found.field(column.name).type, arrow_type(column.type)
        if got != want:
            raise ExperimentError(
                f"{path}: column {column.name!r} is {got}, declared {want} (rummisim/schema.py)"
            )
    recorded = (found.metadata or {}).get(RUN_METADATA)
    if run is not None and recorded is not None and json.loads(recorded) != dict(run):
        raise ExperimentError(
            f"{path}: this table belongs to another run ({_identity_text(json.loads(recorded))}) than "
            f"the folder's manifest.json ({_identity_text(run)}); it cannot be read with it"
        )


def _resume_hint(out: Path, manifest: dict | None) -> str:
    if manifest is None:
        return "the run cannot be rebuilt without its manifest.json; rerun the experiment"
    source = manifest["experiment"].get("source", "EXPERIMENT.yaml")
    return f"rebuild it from the chunks with: rummisim run {source} --out {out} --resume"


def load_results(out: str | Path, *, require_manifest: bool = True) -> dict[str, Any]:
    """Read a results folder: ``games``, ``seats``, ``matches`` DataFrames and the ``manifest``.

    With ``require_manifest=False`` a folder whose ``manifest.json`` is missing but whose three
    tables are intact is read too: its manifest is rebuilt from the tables (name, cells, sweep keys,
    faults) and carries ``manifest_missing: True``.
    """
    out = Path(out)
    missing_manifest = not (out / "manifest.json").exists() and not require_manifest
    if missing_manifest:
        if not out.is_dir():
            raise ExperimentError(
                f"{out}: not a folder; give the results folder of a rummisim run"
                if out.exists()
                else f"{out}: no manifest.json (no such folder); not a rummisim results folder"
            )
        absent = [f"{n}.parquet" for n in TABLES if not (out / f"{n}.parquet").exists()]
        if absent:
            raise ExperimentError(
                f"{out}: no manifest.json and no {', '.join(absent)}; not a finished rummisim results folder"
            )
        manifest = None
    else:
        manifest = read_manifest(out, complete=True)
    hint = _resume_hint(out, manifest)
    run = manifest.get("run") if manifest is not None else None
    data: dict[str, Any] = {name: _read_table(out, name, hint, run) for name in TABLES}
    data["manifest"] = manifest if manifest is not None else manifest_from_tables(data)
    return data


def load_turns(out: str | Path, columns: Sequence[str] | None = None) -> Any:
    """``turns.parquet`` of a finished ``rummisim run --turns`` as a DataFrame (only ``columns``,
    when given: the list columns are the large ones). A one-line ``ExperimentError`` when the run
    is unfinished or was made without ``--turns``."""
    import pandas as pd
    import pyarrow as pa

    out = Path(out)
    manifest = read_manifest(out, complete=True)
    path = out / "turns.parquet"
    if not manifest.get("turns") and not path.exists():
        source = manifest["experiment"].get("source", "EXPERIMENT.yaml")
        raise ExperimentError(
            f"{out}: the run was made without --turns, so it has no turns.parquet; "
            f"rerun it with: rummisim run {source} --turns --out NEW_FOLDER"
        )
    if not path.exists():
        raise ExperimentError(f"{path}: missing; {_resume_hint(out, manifest)}")
    try:
        return pd.read_parquet(path, columns=list(columns) if columns is not None else None)
    except (OSError, pa.ArrowException, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ExperimentError(f"{path}: damaged or without those columns ({first[:200]})") from None


def manifest_from_tables(data: dict[str, Any]) -> dict[str, Any]:
    """What a report needs of a manifest, rebuilt from the tables of a run that lost it."""
    games = data["games"]
    columns = list(games.columns)
    start = len(_ID_BEFORE_KEYS)
    stop = columns.index(_ID_AFTER_KEYS) if _ID_AFTER_KEYS in columns else start
    keys = columns[start:stop]
    cells = (
        games.drop_duplicates("cell")
        .sort_values("cell")[["cell", "cell_label", "profile", "profile_hash", "lineup"]]
        .to_dict("records")
    )
    faulty = games.loc[games["fault"].notna(), ["cell", "game"]].drop_duplicates() if "fault" in games else []
    per_cell = games.groupby("cell")["game"].nunique()
    return {
        "status": RunStatus.COMPLETE.value,
        "manifest_missing": True,
        "experiment": {
            "name": str(games["experiment"].iloc[0]) if len(games) else "(unknown)",
            "description": "",
            "sweep_keys": keys,
            "compare": [],
            "games_per_cell": int(per_cell.max()) if len(per_cell) else 0,
            "cells": [
                {"cell": int(c["cell"]), "label": c["cell_label"], "profile": c["profile"]} for c in cells
            ],
        },
        "faults": {"games": len(faulty)},
    }


# ----- writing ------------------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_chunk(
    out: Path, name: str, games: int, tables: Mapping[str, Any], run: Mapping[str, Any] | None = None
) -> None:
    """Write a chunk's three files (Arrow tables by table name) and its record into a temp
    folder, then rename it: done or absent, never half. The record (``chunk.json``) holds each
    file's rows, size and SHA-256, so a chunk damaged later is found and replayed by ``--resume``,
    and ``run``: the run and the games it belongs to (``chunk_identity``)."""
    import pyarrow.parquet as pq

    final = out / "chunks" / name
    tmp = out / "chunks" / f".tmp-{name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        record: dict[str, Any] = {"chunk": name, "games": games, "files": {}}
        if run is not None:
            record["run"] = dict(run)
        for table_name, table in tables.items():
            path = tmp / f"{table_name}.parquet"
            pq.write_table(table, path)
            record["files"][f"{table_name}.parquet"] = {
                "rows": table.num_rows, "bytes": path.stat().st_size, "sha256": _sha256(path),
            }  # fmt: skip
        (tmp / CHUNK_RECORD).write_text(json.dumps(record, indent=1) + "\n")
        if final.exists():  # a damaged copy found by done_chunks: the new one replaces it
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def chunk_problem(folder: Path, games: int, tables: Sequence[str] = TABLES) -> str | None:
    """Why a written chunk folder cannot be used (None when it is intact).

    A chunk carries ``chunk.json``: its game count and each file's rows, size and SHA-256 as
    written; all must match. A chunk from before these records is checked by its Parquet footers
    and its match count (one row per game). ``tables``: the tables the run writes (with
    ``turns`` for a ``--turns`` run; a chunk without them is not done).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    record_path = folder / CHUNK_RECORD
    try:
        if not record_path.exists():
            for name in tables:
                meta = pq.read_metadata(folder / f"{name}.parquet")
                if name == "matches" and meta.num_rows != games:
                    return f"matches.parquet holds {meta.num_rows} rows, expected {games}"
            return None
        record = json.loads(record_path.read_text())
        if not isinstance(record, dict) or record.get("games") != games:
            return f"{CHUNK_RECORD} does not describe {games} games"
        files = record.get("files")
        if not isinstance(files, dict) or set(files) != {f"{n}.parquet" for n in tables}:
            return f"{CHUNK_RECORD} does not list the tables {', '.join(tables)}"
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


def run_identity(experiment: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """What a run's manifest, chunks and tables record of the run they belong to: the digest of
    its experiment in full (``Experiment.to_dict``: cells, seeds and games; not the file it was
    read from, nor the chunk size or the backend, which do not change a result) and its root seed."""
    content = {key: value for key, value in experiment.items() if key != "source"}
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return {"experiment": hashlib.sha256(canonical.encode()).hexdigest()[:12], "seed": seed}


def chunk_identity(run: Mapping[str, Any], cell: int, start: int, stop: int) -> dict[str, Any]:
    """A chunk's record of its run (``run_identity``), cell and games ``start..stop-1``."""
    return {**run, "cell": cell, "games": [start, stop]}


def foreign_chunk(folder: Path, expected: Mapping[str, Any]) -> str | None:
    """Why a chunk folder belongs to another run than ``expected`` (``chunk_identity``), naming
    its ``chunk.json``; None when it is this run's, or a chunk from before these records."""
    path = folder / CHUNK_RECORD
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # (missing or damaged: chunk_problem's business, it is played again)
    run = record.get("run") if isinstance(record, dict) else None
    if run is None or run == dict(expected):
        return None
    return (
        f"{path}: this chunk belongs to another run ({_identity_text(run)}), not to this one "
        f"({_identity_text(expected)}); remove it, or resume the run it came from"
    )


def _identity_text(run: Any) -> str:
    if not isinstance(run, Mapping):
        return excerpt(run)
    parts = [f"experiment {run.get('experiment')}", f"seed {run.get('seed')}"]
    if "cell" in run:
        parts.append(f"cell {run.get('cell')}, games {run.get('games')}")
    return ", ".join(parts)


def done_chunks(
    out: Path, chunks: Mapping[str, int] | None = None, tables: Sequence[str] = TABLES
) -> set[str]:
    """Names of the chunks already written and intact.

    With ``chunks`` (the plan: chunk name -> its games), each planned chunk folder is checked
    with ``chunk_problem``; a damaged one is not done, so ``--resume`` plays it again. Leftover
    temp folders from a kill are ignored.
    """
    folder = out / "chunks"
    if not folder.is_dir():
        return set()
    names = {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".tmp-")}
    if chunks is None:
        return names
    return {
        c for c, games in chunks.items() if c in names and chunk_problem(folder / c, games, tables) is None
    }


def damaged_chunks(out: Path, chunks: Mapping[str, int], tables: Sequence[str] = TABLES) -> list[str]:
    """``name: why`` for each planned chunk folder (name -> games) that exists but fails
    ``chunk_problem`` (for the run's ``tables``)."""
    folder = out / "chunks"
    found = []
    for name, games in chunks.items():
        if (folder / name).is_dir():
            why = chunk_problem(folder / name, games, tables)
            if why:
                found.append(f"{name}: {why}")
    return found


def remove_stale_temps(out: Path) -> None:
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


RUN_METADATA = b"rummisim.run"  # the merged tables' Parquet metadata: the run they belong to


def merge_chunks(
    out: Path, chunks: Sequence[str], schema: Mapping[str, Any], run: Mapping[str, Any] | None = None
) -> list[dict]:
    """Stream every chunk (by name, in plan order) into one Parquet file per table of ``schema`` (the
    three, and ``turns`` for a ``--turns`` run), each with ``run`` (``run_identity``) in its
    metadata; return the fault list.

    Row groups hold ``ROW_GROUP`` rows whatever the chunk size, so the files are byte-identical
    for any jobs, chunk size or backend. Memory holds at most one row group per table.
    """
    faults: list[dict] = []
    for name in schema:
        tmp = out / f".{name}.parquet.tmp"
        table_schema = schema[name]
        if run is not None:
            table_schema = table_schema.with_metadata({RUN_METADATA: json.dumps(dict(run), sort_keys=True)})
        try:
            faults += _merge_table(out, name, chunks, table_schema, tmp)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, out / f"{name}.parquet")
    return faults


def _merge_table(out: Path, name: str, chunks: Sequence[str], schema: Any, tmp: Path) -> list[dict]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    faults: list[dict] = []
    with pq.ParquetWriter(tmp, schema) as writer:
        buffer: list[pa.Table] = []
        buffered = 0
        for chunk in chunks:
            path = out / "chunks" / chunk / f"{name}.parquet"
            try:
                table = pq.read_table(path, schema=schema)
            except (OSError, pa.ArrowException) as exc:
                raise ExperimentError(
                    f"{path}: damaged while merging ({str(exc).splitlines()[0][:200]}); "
                    "rerun with --resume to play that chunk again"
                ) from None
            if name == Table.GAMES:
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


def _faults(games: Any) -> Iterator[dict]:
    import pyarrow.compute as pc

    with_fault = games.filter(pc.is_valid(games.column("fault")))
    yield from with_fault.select(["cell", "game", "seed", "round", "end_reason", "fault"]).to_pylist()


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


LOCK_FILE = ".rummisim.lock"  # in a results folder: held (flock) by the process writing it


@contextlib.contextmanager
def hold_lock(out: Path) -> Iterator[None]:
    """Hold ``out``'s lock while a run writes it: an exclusive ``flock`` on ``LOCK_FILE``, which
    the system releases when the process ends however it ends (a stale file locks nothing). A
    second ``run`` or ``--resume`` into the folder is refused in one line while it is held."""
    import fcntl

    path = out / LOCK_FILE
    try:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the whole run
    except OSError as exc:
        raise ExperimentError(f"--out: cannot lock {out}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise ExperimentError(
            f"--out: {out} is being written by another run ({excerpt(holder, 80, quote=False)}); wait "
            "for it to finish (then --resume if it stopped), or choose another --out"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()} since {now()}\n")
    handle.flush()
    try:
        yield
    finally:
        handle.close()  # (closing releases the lock)


def make_out(out: Path) -> Path | None:
    """Create ``out``; return the topmost folder this created (None when ``out`` existed)."""
    missing = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExperimentError(f"--out: cannot create {out}: {exc.strerror or exc}") from None
    return missing[-1] if missing else None


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_profiles(out: Path, experiment: Experiment) -> dict[str, str]:
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


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def custom_bots(experiment: Experiment) -> dict[str, dict[str, Any]]:
    """Where each bot the experiment names comes from, when it is not one of rummisim's own
    (those are the package version and commit): by the name its specs use, ``bot_provenance``."""
    from importlib.metadata import packages_distributions

    from rummisim.bots.registry import foreign_bots

    found = foreign_bots(spec for cell in experiment.cells for spec in cell.lineup)
    if not found:
        return {}
    providers = packages_distributions()
    return {name: bot_provenance(cls, providers) for name, cls in found.items()}


def bot_provenance(cls: type, providers: Mapping[str, list[str]]) -> dict[str, Any]:
    """A bot class's ``module.QualName``, its source file and that file's SHA-256, and the
    installed distribution that provides its top-level package (``name==version``, from
    ``providers``: ``importlib.metadata.packages_distributions()``; None for a module found
    on the path, such as ``PYTHONPATH``)."""
    import inspect
    from importlib.metadata import version

    try:
        source = inspect.getsourcefile(cls)
    except TypeError:  # pragma: no cover - a class defined in C or at the prompt
        source = None
    digest = None
    if source is not None and Path(source).is_file():
        digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()
    dists = providers.get(cls.__module__.split(".")[0], [])
    return {
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "file": source,
        "sha256": digest,
        "distribution": f"{dists[0]}=={version(dists[0])}" if dists else None,
    }


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rummisim")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


def discard(out: Path, created: Path | None) -> None:
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


def write_summary(out: Path, data: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """Write ``summary.csv`` (one row per cell) and ``summary_bots.csv`` (per cell and bot) for a
    finished run, and ``ratings.csv`` (``rummisim.stats.ratings``) when a cell has two or more
    distinct bots (else a stale one is removed); return the two summary frames. ``data`` is
    ``load_results(out)`` when the caller has it."""
    from rummisim import stats

    data = data or load_results(out)
    keys = tuple(data["manifest"]["experiment"]["sweep_keys"])
    summary = stats.summarize(data["games"], data["seats"], data["matches"], keys=keys)
    bots = stats.summary_bots(data["seats"], data["games"], keys=keys)
    ratings = stats.ratings(data["seats"], data["games"], keys=keys)
    files = [("summary", summary), ("summary_bots", bots)]
    if ratings.empty:
        (out / "ratings.csv").unlink(missing_ok=True)
    else:
        files.append(("ratings", ratings))
    for name, frame in files:
        tmp = out / f".{name}.csv.tmp"
        try:
            frame.to_csv(tmp, index=False)
            os.replace(tmp, out / f"{name}.csv")
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return summary, bots
