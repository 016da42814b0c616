"""Reading a results folder: ``manifest.json`` checked before it is trusted, and the three tables.

Every problem with a folder (missing, not a folder, a damaged or foreign manifest, an unfinished run,
a damaged table) is an ``ExperimentError`` of one line that names the file and says what to do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rummisim.experiment import ExperimentError

TABLES = ("games", "seats", "matches")
STATUSES = ("running", "interrupted", "complete")
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
    if complete and status != "complete":
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


def _read_table(out: Path, name: str, resume_hint: str):
    import pandas as pd
    import pyarrow as pa

    path = out / f"{name}.parquet"
    if not path.exists():
        raise ExperimentError(f"{path}: missing; {resume_hint}")
    try:
        return pd.read_parquet(path)
    except (OSError, pa.ArrowException, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ExperimentError(f"{path}: damaged ({first[:200]}); {resume_hint}") from None


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
    data: dict[str, Any] = {name: _read_table(out, name, hint) for name in TABLES}
    data["manifest"] = manifest if manifest is not None else manifest_from_tables(data)
    return data


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
        "status": "complete",
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
