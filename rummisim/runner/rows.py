"""Rows: a worker plays a chunk's games and flattens each game record into table rows.

Each column after the identity has one extractor here, a function of the ``RowContext``, in the
order ``rummisim.schema`` declares the columns; ``check_extractors`` holds the two together when
this module is imported, and every crash row is checked with ``check_row``. To add a column,
declare it in ``rummisim/schema.py`` and add its extractor here (see that module's docstring).
"""

from __future__ import annotations

import functools
import json
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rummisim.bots import BOTS, bot_label, bot_name, parse_spec, register
from rummisim.bots.loading import is_class_path
from rummisim.bots.registry import foreign_bots
from rummisim.engine import GameRecord, RoundRecord, play_game
from rummisim.experiment import Experiment
from rummisim.profile import RuleProfile, profile_from_dict
from rummisim.runner.plan import Chunk, game_seed, seat_lineup
from rummisim.runner.turns import turn_rows
from rummisim.schema import (
    GAME_IDENTITY,
    IDENTITY,
    OPTIONAL_TABLES,
    EndReason,
    Table,
    arrow_schema,
    check_extractors,
    check_row,
    key_type,
)


@dataclass(frozen=True, slots=True)
class RowContext:
    """What an extractor sees: the game, its round (None for a matches row), the seat (None for
    a games or matches row), the bots by seat and their labels, and the lineup's rotation."""

    record: GameRecord
    round: RoundRecord | None
    seat: int | None
    seats: list
    labels: list[str]
    rotation: int

    @property
    def n(self) -> int:
        return len(self.seats)

    @property
    def rnd(self) -> RoundRecord:
        """The round, for the extractors of the tables that have one (games, seats)."""
        assert self.round is not None, "a games or seats row without its round"
        return self.round

    @property
    def at(self) -> int:
        """The seat, for the extractors of the seats table."""
        assert self.seat is not None, "a seats row without its seat"
        return self.seat


Extractor = Callable[[RowContext], Any]


def _fault_text(x: RowContext) -> str | None:
    rnd = x.rnd
    if rnd.faults:
        f = rnd.faults[0]
        return f"turn {f.turn} seat {f.seat} ({x.labels[f.seat]}): {f.rule}: {f.message}"
    if rnd.end_reason == EndReason.TURN_CAP:
        return f"turn cap: the round reached end.max_turns = {rnd.turns} turns"
    return None


GAMES_EXTRACTORS: dict[str, Extractor] = {
    "round": lambda x: x.rnd.round_index,
    "n_players": lambda x: x.n,
    "first_player": lambda x: x.rnd.first_player,
    "turns": lambda x: x.rnd.turns,
    "winner": lambda x: x.rnd.winner,
    "winner_bot": lambda x: x.labels[x.rnd.winner],
    "tied": lambda x: x.rnd.tied,
    "end_reason": lambda x: EndReason(x.rnd.end_reason).value,
    "pool_left": lambda x: x.rnd.pool_left,
    "opened_turns": lambda x: list(x.rnd.opened_turn),
    "faults": lambda x: len(x.rnd.faults),
    "timeouts": lambda x: x.rnd.timeouts,
    "fault": _fault_text,
}
SEATS_EXTRACTORS: dict[str, Extractor] = {
    "round": lambda x: x.rnd.round_index,
    "n_players": lambda x: x.n,
    "seat": lambda x: x.seat,
    "order": lambda x: (x.at - x.rnd.first_player) % x.n,
    "slot": lambda x: (x.at - x.rotation) % x.n,
    "bot": lambda x: bot_name(x.seats[x.at]),
    "bot_label": lambda x: x.labels[x.at],
    "score": lambda x: x.rnd.scores[x.at],
    "tiles_left": lambda x: x.rnd.tiles_left[x.at],
    "points_left": lambda x: x.rnd.rack_points[x.at],
    "won": lambda x: x.rnd.winner == x.at,
    "opened_turn": lambda x: x.rnd.opened_turn[x.at],
    "match_score": lambda x: x.record.scores[x.at],
    "match_won": lambda x: x.record.winner == x.at,
}
MATCHES_EXTRACTORS: dict[str, Extractor] = {
    "n_players": lambda x: x.n,
    "rounds": lambda x: x.record.n_rounds,
    "capped": lambda x: x.record.match_capped,
    "winner": lambda x: x.record.winner,
    "winner_bot": lambda x: x.labels[x.record.winner],
    "tied": lambda x: x.record.tied,
    "scores": lambda x: list(x.record.scores),
    "error": lambda x: None,
}
EXTRACTORS: dict[Table, dict[str, Extractor]] = {
    Table.GAMES: GAMES_EXTRACTORS,
    Table.SEATS: SEATS_EXTRACTORS,
    Table.MATCHES: MATCHES_EXTRACTORS,
}
for _table, _extractors in EXTRACTORS.items():
    check_extractors(_table, _extractors)


def crash_rows(n: int, message: str) -> dict[Table, dict[str, Any]]:
    """The games and matches rows of a game whose engine crashed (it has no seats rows)."""
    return {
        Table.GAMES: {
            "round": 0, "n_players": n, "first_player": -1, "turns": 0, "winner": -1, "winner_bot": None,
            "tied": False, "end_reason": EndReason.FAULT.value, "pool_left": None, "opened_turns": None,
            "faults": 1, "timeouts": 0, "fault": message,
        },
        Table.MATCHES: {
            "n_players": n, "rounds": 0, "capped": False, "winner": -1, "winner_bot": None, "tied": False,
            "scores": None, "error": message,
        },
    }  # fmt: skip


def schemas(experiment: Experiment, turns: bool = False) -> dict[str, Any]:
    """The Arrow schema of each output table (sweep-key columns typed from their values), in the
    order they are merged; ``turns.parquet`` only with ``turns``. A chunk writes these tables."""
    key_types = {k: key_type([dict(c.keys).get(k) for c in experiment.cells]) for k in experiment.sweep_keys}
    wanted = [t for t in Table if t not in OPTIONAL_TABLES or (turns and t == Table.TURNS)]
    return {table.value: arrow_schema(table, key_types) for table in wanted}


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


def registered_bots(experiment: Experiment) -> dict[str, type]:
    """The bots the experiment names that were ``register``ed in this process and are not
    rummisim's own: they travel with every chunk (joblib and dask pickle a class by reference,
    or by value where it lives in ``__main__``), so a worker process plays them too."""
    found = foreign_bots(spec for cell in experiment.cells for spec in cell.lineup)
    return {name: cls for name, cls in found.items() if BOTS.get(name) is cls}


def play_registered(chunk: Chunk, schema: dict[str, Any], registered: dict[str, type]) -> dict[str, Any]:
    """A worker's task: ``play_chunk`` after registering the parent's ``registered`` bots
    (``registered_bots``; replacing a name registered otherwise, as the parent's did)."""
    for cls in registered.values():
        register(cls, replace=True)
    return play_chunk(chunk, schema)


def _seat(spec, isolate: float | None, isolated: dict[str, Any]):
    """A seat's bot factory: a class-path bot in a process of its own when ``isolate`` (its
    decision time limit) is set (``rummisim.isolation``), else the spec itself."""
    if isolate is None or not is_class_path(spec.name):
        return spec
    from rummisim.isolation import Isolated

    if spec.label not in isolated:
        isolated[spec.label] = Isolated(spec, isolate)
    return isolated[spec.label]


def play_chunk(chunk: Chunk, schema: dict[str, Any]) -> dict[str, Any]:
    """Play a chunk's games; return its games, seats and matches tables, and its turns table when
    ``schema`` has one (``rummisim.runner.turns``; only then does the engine report its events).
    Never raises for a game; a game whose engine crashed has no turn rows, as its games row says
    0 turns."""
    import pyarrow as pa

    if chunk.parent_pid and os.getpid() != chunk.parent_pid:
        _silence_native_stdout()
    profile = _profile(chunk.profile_json)
    rows: dict[str, dict[str, list]] = {name: {f.name: [] for f in schema[name]} for name in schema}
    ident_base = {
        "experiment": chunk.experiment,
        "cell": chunk.cell,
        "cell_label": chunk.label,
        "profile": profile.name,
        "profile_hash": profile.digest,
        "lineup": ",".join(bot_label(s) for s in chunk.lineup),
        **dict(chunk.keys),
    }
    keys = [k for k, _ in chunk.keys]
    identity = [*(c.name for c in IDENTITY), *keys, *(c.name for c in GAME_IDENTITY)]
    isolated: dict[str, Any] = {}  # class-path bots' factories (their children serve every game)
    for game in range(chunk.start, chunk.stop):
        deal, rotation = divmod(game, chunk.rotations)
        seed = game_seed(chunk.root_seed, deal)
        ident = {**ident_base, "deal": deal, "rotation": rotation, "game": game, "seed": seed}
        if game == chunk.start and list(ident) != identity:
            raise ValueError(f"identity columns {list(ident)} are not the declared {identity}")
        seats = seat_lineup(chunk.lineup, rotation)
        events: list = []
        try:
            bots = [_seat(parse_spec(s), chunk.isolate, isolated) for s in seats]  # the engine seeds each
            if Table.TURNS in rows:  # the engine reports events only when asked: no cost otherwise
                record = play_game(profile, bots, seed, events=events.append)
            else:
                record = play_game(profile, bots, seed)
        except Exception as exc:  # noqa: BLE001 - a crashing game is data, not the end of the run
            where = traceback.extract_tb(exc.__traceback__)[-1]
            message = f"crash: {type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"
            for table, values in crash_rows(len(seats), message).items():
                row = {**ident, **values}
                check_row(table, row, keys)
                _append(rows[table], row)
            continue
        _add_record(rows, ident, record, seats, rotation)
        if events:
            names, labels = [bot_name(s) for s in seats], [bot_label(s) for s in seats]
            for row in turn_rows(events, profile.tileset, names, labels):
                _append(rows[Table.TURNS], {**ident, **row})
    return {name: pa.table(rows[name], schema=schema[name]) for name in schema}


def _append(table: dict[str, list], values: dict[str, Any]) -> None:
    for key, column in table.items():
        column.append(values[key])


def _extract(table: dict[str, list], ident: dict[str, Any], extractors, context: RowContext) -> None:
    for key, value in ident.items():
        table[key].append(value)
    for key, extract in extractors.items():
        table[key].append(extract(context))


def _add_record(rows, ident, record: GameRecord, seats: list, rotation: int) -> None:
    labels = [bot_label(s) for s in seats]
    for rnd in record.rounds:
        context = RowContext(record, rnd, None, seats, labels, rotation)
        _extract(rows[Table.GAMES], ident, GAMES_EXTRACTORS, context)
        for seat in range(len(seats)):
            context = RowContext(record, rnd, seat, seats, labels, rotation)
            _extract(rows[Table.SEATS], ident, SEATS_EXTRACTORS, context)
    context = RowContext(record, None, None, seats, labels, rotation)
    _extract(rows[Table.MATCHES], ident, MATCHES_EXTRACTORS, context)
