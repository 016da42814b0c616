"""Experiment files: what to play, validated as strictly as profiles, resolved into cells.

An experiment YAML holds a name, a root seed, games per cell, profiles, lineups,
seat rotation and an optional grid ``sweep``::

    name: opening-30-vs-40
    seed: 2026
    games: 400                    # games per cell (rounded up to whole seat rotations)
    profiles:
      - standard                  # a built-in name, a path (relative to this file) ...
      - {base: standard, name: standard-40, overrides: {initial_meld: {threshold: 40}}}
    lineups:
      - [greedy, greedy, greedy, greedy]
      - [greedy, {name: conservative, params: {min_play: 2}}, greedy, greedy]
    rotate_seats: true            # default: replay each deal with the lineup in every seat
                                  # (its distinct rotations only: none for identical bots)
    sweep:                        # optional: the cells are the cartesian product
      initial_meld.threshold: [30, 40]      # a profile key path
      conservative.min_play: [1, 2, 3]      # BOT.PARAM, applied to every such seat
    compare:                      # optional: paired comparisons besides "against cell 0"
      standard-40: standard       # cell label: the label of the cell it is compared with
    turns: true                   # optional: also write turns.parquet (as `rummisim run --turns`)

Instead of a list of lineups, ``lineups`` may be a league: every ``seats``-bot subset of a pool
(``itertools.combinations``, in pool order) is one lineup, so one cell per subset and profile.
Its seats are rotated like any lineup's, and game ``g`` of every subset plays the same deal
(the seed depends on the deal only), so the subsets are paired::

    lineups: {pool: [greedy, value, conservative, beginner, baseline, random], seats: 4}

A bot sweep key leaves lineups without that bot alone (one cell, key empty).
Any problem is one ``ExperimentError`` line naming the file, the key and what
is allowed. The only I/O here is reading the experiment and profile files.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import Field, ValidationError

from rummisim.bots import BOTS, BotError, bot_label, bot_name, parse_spec, resolve_bot, validate_spec
from rummisim.profile import (
    ProfileError,
    RuleProfile,
    _load_raw,
    _merge,
    _resolve_reference,
    package_configs,
    profile_from_dict,
    read_yaml,
)
from rummisim.validation import StrictModel, error_line

EXPERIMENT_DIR = package_configs("experiments")


MAX_GAMES = 10_000_000  # games per cell
MAX_CELLS = 10_000  # cells of one experiment (profiles x lineups x sweep values), checked before any is built
MAX_LEAGUE_LINEUPS = 1_000  # subsets of a league's pool (each is a cell per profile)


class ExperimentError(ValueError):
    """A bad experiment file or option, reported as one line."""


class _Strict(StrictModel):
    """An experiment file's model (strict: see ``rummisim.validation``)."""


class ProfileEntry(_Strict):
    """A profile built from a base profile plus inline overrides."""

    base: str
    name: str | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)


class BotEntry(_Strict):
    name: str
    params: dict[str, Any] = Field(default_factory=dict)


class LeagueEntry(_Strict):
    """A league: every ``seats``-bot subset of ``pool`` is a lineup."""

    pool: list[str | BotEntry] = Field(min_length=2)
    seats: int = Field(ge=2)


class ExperimentSpec(_Strict):
    """The experiment file's schema (see the module docstring)."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    description: str = ""
    seed: int = Field(ge=0, lt=2**63)
    games: int = Field(ge=1, le=MAX_GAMES)
    profiles: list[str | ProfileEntry] = Field(min_length=1)
    lineups: Annotated[list[list[str | BotEntry]], Field(min_length=1)] | LeagueEntry
    rotate_seats: bool = True
    sweep: dict[str, list[Any]] = Field(default_factory=dict)
    compare: dict[str, str] = Field(default_factory=dict)
    turns: bool = False


@dataclass(frozen=True)
class Cell:
    """One cell of an experiment: a profile, a lineup (one bot spec per slot) and sweep values."""

    index: int
    label: str
    profile: RuleProfile
    lineup: tuple[Any, ...]
    keys: tuple[tuple[str, Any], ...] = ()

    @property
    def lineup_label(self) -> str:
        return ",".join(bot_label(spec) for spec in self.lineup)

    @property
    def rotations(self) -> int:
        """Distinct seat rotations: the lineup's period. Four different bots give 4; four
        identical bots give 1 and ``[greedy, beginner, greedy, beginner]`` gives 2, because
        rotating further replays the same games and would only duplicate data."""
        labels = [bot_label(s) for s in self.lineup]
        n = len(labels)
        return next(p for p in range(1, n + 1) if n % p == 0 and labels[p:] + labels[:p] == labels)


@dataclass(frozen=True)
class Experiment:
    """A resolved experiment: every cell built and validated."""

    name: str
    description: str
    seed: int
    games: int  # games per cell, a whole number of rotations
    rotate_seats: bool
    cells: tuple[Cell, ...]
    sweep_keys: tuple[str, ...] = ()
    source: str = "<experiment>"
    requested_games: int = 0
    spec: dict = field(default_factory=dict, repr=False)
    compare: tuple[tuple[int, int], ...] = ()  # (cell, the cell it is compared with)
    turns: bool = False  # write turns.parquet (the manifest records it; not part of the plan)

    def rotations(self, cell: Cell) -> int:
        return cell.rotations if self.rotate_seats else 1

    def to_dict(self) -> dict[str, Any]:
        """The resolved experiment as plain data (for the manifest and resume checks)."""
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "seed": self.seed,
            "games_per_cell": self.games,
            "requested_games_per_cell": self.requested_games,
            "rotate_seats": self.rotate_seats,
            "sweep_keys": list(self.sweep_keys),
            "compare": [{"cell": cell, "baseline": baseline} for cell, baseline in self.compare],
            "cells": [
                {
                    "cell": c.index,
                    "label": c.label,
                    "profile": c.profile.name,
                    "profile_hash": c.profile.digest,
                    "lineup": [bot_label(s) for s in c.lineup],
                    "keys": dict(c.keys),
                }
                for c in self.cells
            ],
        }


# The union members pydantic names in an error's location (not keys).
_BRANCHES = ("str", "ProfileEntry", "BotEntry", "LeagueEntry")


def _valid_keys(key: str) -> str:
    if key.startswith("profiles"):
        return ", ".join(ProfileEntry.model_fields)
    if key.startswith("lineups.") and not key.startswith("lineups.pool["):
        return ", ".join(LeagueEntry.model_fields)
    if key.startswith("lineups"):
        return ", ".join(BotEntry.model_fields)
    return ", ".join(ExperimentSpec.model_fields)


def _one_error(exc: ValidationError, source: str) -> str:
    # An unknown key comes before a missing one: a misspelt key is both, and its spelling is the news.
    prefer = {"missing": 1, "extra_forbidden": 2}
    return error_line(exc, source, lambda _, key: _valid_keys(key), branches=_BRANCHES, prefer=prefer)


def builtin_experiments() -> dict[str, Path]:
    """Names of the built-in experiments (``rummisim/configs/experiments``) mapped to their files."""
    return {p.stem: p for p in sorted(EXPERIMENT_DIR.glob("*.yaml"))}


def read_config(
    path: str | Path, builtins: dict[str, Path], noun: str, error: type[ValueError]
) -> tuple[Path, dict]:
    """A config file's path and its YAML mapping: ``path``, or the name of a built-in
    ``noun`` file from ``builtins`` (a file of that name in the working directory comes
    first); one ``error`` line otherwise (experiments and tune files read alike)."""
    path = Path(path)
    if not path.exists() and path.suffix == "":
        if str(path) not in builtins:
            raise error(
                f"{noun} file {path} does not exist, nor a built-in {noun} of that name "
                f"(built-in: {', '.join(builtins) or 'none found'})"
            )
        path = builtins[str(path)]
    if not path.exists():
        raise error(f"{noun} file {path} does not exist")
    data = read_yaml(path, error)
    if not isinstance(data, dict):
        raise error(f"{path}: {'an' if noun[0] in 'aeiou' else 'a'} {noun} must be a YAML mapping of keys")
    return path, data


def load_experiment(path: str | Path, *, games: int | None = None, seed: int | None = None) -> Experiment:
    """Read, validate and resolve an experiment file: a path, or the name of a built-in
    experiment (``quickstart``); a file of that name in the working directory comes first."""
    path, data = read_config(path, builtin_experiments(), "experiment", ExperimentError)
    return experiment_from_dict(data, str(path), base_dir=path.parent, games=games, seed=seed)


def experiment_from_dict(
    data: Mapping[str, Any],
    source: str = "<experiment>",
    *,
    base_dir: Path | None = None,
    games: int | None = None,
    seed: int | None = None,
) -> Experiment:
    """Validate experiment data and build its cells; ``games``/``seed`` override the file's."""
    try:
        spec = ExperimentSpec.model_validate(dict(data))
    except ValidationError as exc:
        raise ExperimentError(_one_error(exc, source)) from None
    if games is not None:
        if not 1 <= games <= MAX_GAMES:
            raise ExperimentError(f"--games: expected 1..{MAX_GAMES} games per cell, got {games}")
        spec = spec.model_copy(update={"games": games})
    if seed is not None:
        if not 0 <= seed < 2**63:
            raise ExperimentError(f"--seed: expected 0 <= seed < 2**63, got {seed}")
        spec = spec.model_copy(update={"seed": seed})

    profiles = [_profile_data(entry, i, source, base_dir) for i, entry in enumerate(spec.profiles)]
    if isinstance(spec.lineups, LeagueEntry):
        lineups = _league_lineups(spec.lineups, source)
    else:
        lineups = [
            [_bot_spec(b, f"lineups[{i}][{seat}]", source) for seat, b in enumerate(lineup)]
            for i, lineup in enumerate(spec.lineups)
        ]
        for i, lineup in enumerate(lineups):
            _check_lineup(lineup, i, source)
    profile_keys, bot_keys = _split_sweep(spec.sweep, lineups, profiles, source)
    size = len(profiles) * len(lineups) * math.prod(len(values) for values in spec.sweep.values())
    if size > MAX_CELLS:  # counted before any cell is built
        raise ExperimentError(
            f"{source}: key 'sweep': {len(profiles)} profile(s) x {len(lineups)} lineup(s) x the sweep's "
            f"values is {size:,} cells, over the limit of {MAX_CELLS:,}; sweep fewer values"
        )

    cells: list[Cell] = []
    seen: set[str] = set()
    sweep_names = list(spec.sweep)
    grids = [spec.sweep[k] for k in sweep_names]
    for (pname, pdata), lineup in itertools.product(profiles, lineups):
        for values in itertools.product(*grids) if grids else [()]:
            assignment = dict(zip(sweep_names, values, strict=True))
            profile, built_lineup, keys = _build_cell(
                pname, pdata, lineup, assignment, profile_keys, bot_keys, source
            )
            labels = [bot_label(b) for b in built_lineup]
            fingerprint = json.dumps([profile.digest, labels, keys], default=str)
            if fingerprint in seen:
                continue  # a bot sweep over a lineup without that bot: one cell is enough
            seen.add(fingerprint)
            problem = profile.seat_count_problem(len(built_lineup))
            if problem:
                raise ExperimentError(
                    f"{source}: key 'lineups': a lineup has {len(built_lineup)} seats but {problem}"
                )
            cells.append(Cell(len(cells), "", profile, tuple(built_lineup), tuple(keys.items())))
    cells = _label_cells(cells, len(profiles) > 1, len(lineups) > 1)
    labels = [c.label for c in cells]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ExperimentError(
            f"{source}: key 'profiles': two cells would both be labelled {twice[0]!r} and could not "
            "be told apart in the results; give the profiles different 'name:'s"
        )
    # With rotation every deal is played once per seat, so round up to whole rotations.
    step = _lcm([c.rotations for c in cells]) if spec.rotate_seats else 1
    per_cell = -(-spec.games // step) * step
    return Experiment(
        name=spec.name,
        description=spec.description,
        seed=spec.seed,
        games=per_cell,
        rotate_seats=spec.rotate_seats,
        cells=tuple(cells),
        sweep_keys=tuple(sweep_names),
        source=source,
        requested_games=spec.games,
        spec=spec.model_dump(mode="json"),
        compare=_comparisons(spec.compare, cells, source),
        turns=spec.turns,
    )


def _comparisons(compare: dict[str, str], cells: list[Cell], source: str) -> tuple[tuple[int, int], ...]:
    """Resolve ``compare:`` (cell label -> baseline cell label) into pairs of cell indices."""
    by_label = {c.label: c.index for c in cells}
    pairs = []
    for cell, baseline in compare.items():
        for label in (cell, baseline):
            if label not in by_label:
                raise ExperimentError(
                    f"{source}: key 'compare.{cell}': no cell is labelled {label!r}; "
                    f"the cells are {', '.join(by_label)}"
                )
        if cell == baseline:
            raise ExperimentError(f"{source}: key 'compare.{cell}': a cell cannot be compared with itself")
        pairs.append((by_label[cell], by_label[baseline]))
    return tuple(pairs)


def _lcm(values: list[int]) -> int:
    return int(np.lcm.reduce(np.array(values, dtype=np.int64)))


def _bot_spec(entry: str | BotEntry, key: str, source: str) -> str | dict[str, Any]:
    """A lineup entry as a bot spec: a name, ``NAME(key=value,...)`` (parsed by the one bot-spec
    grammar of the CLI) or ``{name: ..., params: ...}``."""
    if isinstance(entry, str):
        try:
            return parse_spec(entry).as_data()
        except BotError as exc:
            raise ExperimentError(f"{source}: key '{key}': {exc}") from None
    return {"name": entry.name, "params": dict(entry.params)} if entry.params else entry.name


def _league_lineups(league: LeagueEntry, source: str) -> list[list[str | dict[str, Any]]]:
    """A league's lineups: every ``seats``-bot subset of the pool, in pool order."""
    pool = [_bot_spec(b, f"lineups.pool[{i}]", source) for i, b in enumerate(league.pool)]
    seen: dict[str, int] = {}
    for i, spec in enumerate(pool):
        _check_bot(spec, f"lineups.pool[{i}]", source)
        label = bot_label(spec)
        if label in seen:
            raise ExperimentError(
                f"{source}: key 'lineups.pool[{i}]': {label!r} is already in the pool "
                f"(lineups.pool[{seen[label]}]); a league seats each bot once per table, so the "
                "pool's bots must differ (give a repeated bot other params)"
            )
        seen[label] = i
    if league.seats > len(pool):
        raise ExperimentError(
            f"{source}: key 'lineups.seats': {league.seats} seats need a pool of at least "
            f"{league.seats} bots; the pool has {len(pool)}"
        )
    count = math.comb(len(pool), league.seats)
    if count > MAX_LEAGUE_LINEUPS:
        raise ExperimentError(
            f"{source}: key 'lineups': a pool of {len(pool)} bots at {league.seats} seats is {count} "
            f"lineups, over the limit of {MAX_LEAGUE_LINEUPS}; use a smaller pool"
        )
    return [list(lineup) for lineup in itertools.combinations(pool, league.seats)]


def _check_lineup(lineup: list, index: int, source: str) -> None:
    if len(lineup) < 2:
        raise ExperimentError(f"{source}: key 'lineups[{index}]': a lineup needs at least 2 bots")
    for seat, spec in enumerate(lineup):
        _check_bot(spec, f"lineups[{index}][{seat}]", source)


def _check_bot(spec: Any, key: str, source: str) -> None:
    try:
        validate_spec(spec)  # bot parameters do not depend on the rules: no profile needed
    except BotError as exc:
        raise ExperimentError(f"{source}: key '{key}': {exc}") from None


def _profile_data(entry: str | ProfileEntry, index: int, source: str, base_dir: Path | None):
    key = f"profiles[{index}]"
    try:
        if isinstance(entry, str):
            path = _resolve_reference(entry, (base_dir / "experiment.yaml") if base_dir else None)
            data = _load_raw(path, ())
            name = data.get("name", entry)
        else:
            path = _resolve_reference(entry.base, (base_dir / "experiment.yaml") if base_dir else None)
            data = _merge(_load_raw(path, ()), entry.overrides)
            name = entry.name or f"{data.get('name', entry.base)}*"
            data["name"] = name
        profile_from_dict(data, f"{source}: {key}")
    except ProfileError as exc:
        raise ExperimentError(f"{source}: key '{key}': {exc}") from None
    return name, data


def _sweep_bot_key(key: str) -> tuple[str, str]:
    """``BOT.PARAM`` as (bot, param): a class path (``pkg.mod:Class.param``) splits at its last
    dot, a name at its first."""
    head, _, param = key.rpartition(".") if ":" in key else key.partition(".")
    return head, param


def _split_sweep(sweep: dict[str, list], lineups, profiles, source: str):
    """Classify sweep keys as profile key paths or BOT.PARAM; reject anything else."""
    profile_keys, bot_keys = set(), set()
    sample = profiles[0][1]
    for key, values in sweep.items():
        if not values:
            raise ExperimentError(f"{source}: key 'sweep.{key}': give at least one value")
        head, param = _sweep_bot_key(key)
        used = bool(param) and any(bot_name(b) == head for lineup in lineups for b in lineup)
        if (head in BOTS and param) or used:
            if not used:
                raise ExperimentError(
                    f"{source}: key 'sweep.{key}': no lineup has a {head!r} bot to apply it to"
                )
            valid = resolve_bot(head).Params.model_fields
            if param not in valid:
                raise ExperimentError(
                    f"{source}: key 'sweep.{key}': bot {head!r} has no parameter {param!r}; "
                    f"valid parameters: {', '.join(valid) or '(none)'}"
                )
            bot_keys.add(key)
        elif _has_path(sample, key):
            profile_keys.add(key)
        else:
            raise ExperimentError(
                f"{source}: key 'sweep.{key}': not a profile key path (e.g. initial_meld.threshold; "
                f"top-level keys: {', '.join(k for k in RuleProfile.model_fields if k != 'extends')}) "
                f"nor BOT.PARAM for a bot in {', '.join(sorted(BOTS))}"
            )
        if len(values) != len({json.dumps(v, sort_keys=True, default=str) for v in values}):
            raise ExperimentError(f"{source}: key 'sweep.{key}': values repeat: {values!r}")
    return profile_keys, bot_keys


def _has_path(data: dict, key: str) -> bool:
    node: Any = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return not isinstance(node, dict)


def _set_path(data: dict, key: str, value: Any) -> dict:
    head, _, rest = key.partition(".")
    out = dict(data)
    out[head] = _set_path(out[head], rest, value) if rest else value
    return out


def _build_cell(pname, pdata, lineup, assignment, profile_keys, bot_keys, source):
    data = dict(pdata)
    swept = []
    for key in sorted(profile_keys):
        data = _set_path(data, key, assignment[key])
        swept.append(f"{key}={assignment[key]}")
    if swept:
        data["name"] = f"{pname}[{','.join(swept)}]"
    try:
        profile = profile_from_dict(data, f"{source}: sweep {', '.join(swept)}")
    except ProfileError as exc:
        raise ExperimentError(str(exc)) from None
    built = []
    keys = {}
    for key in assignment:
        keys[key] = assignment[key] if key in profile_keys else None
    for seat, spec in enumerate(lineup):
        name = bot_name(spec)
        params = dict(spec.get("params") or {}) if isinstance(spec, dict) else {}
        for key in bot_keys:
            head, param = _sweep_bot_key(key)
            if head == name:
                params[param] = assignment[key]
                keys[key] = assignment[key]
        new = {"name": name, "params": params} if params else name
        if params:
            _check_bot(new, f"sweep ({bot_label(new)} at seat {seat})", source)
        built.append(new)
    return profile, built, keys


def _label_cells(cells: list[Cell], many_profiles: bool, many_lineups: bool) -> list[Cell]:
    out = []
    for cell in cells:
        parts = []
        base = re.sub(r"\[.*\]$", "", cell.profile.name)
        if many_profiles or not (many_lineups or cell.keys):
            parts.append(base)
        if many_lineups:
            parts.append(_short_lineup(cell.lineup))
        parts.extend(f"{k}={v}" for k, v in cell.keys if v is not None)
        out.append(Cell(cell.index, " ".join(parts) or base, cell.profile, cell.lineup, cell.keys))
    return out


def _short_lineup(lineup) -> str:
    """``greedy x3 + conservative(min_play=2)`` style: counts of each bot in the lineup."""
    labels = [bot_label(s) for s in lineup]
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return " + ".join(f"{label} x{n}" if n > 1 else label for label, n in counts.items())
