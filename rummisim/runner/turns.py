"""The per-turn table (``turns.parquet``, written by ``rummisim run --turns``): one row per turn,
built from the engine's event stream (``rummisim.events``) by pure functions.

The worker that plays a game passes ``events=`` to ``engine.play_game``, keeps that one game's
events, and turns them into rows with ``turn_rows``; the rows then travel with the chunk's other
tables (``rummisim.runner.rows``). Without ``--turns`` no callback is passed, so the engine builds
no events at all.

Each column after the identity has one extractor here, a function of the ``TurnContext`` (the
turn's ``TurnEnded`` summary and what the turn's other events said), in the order
``rummisim.schema.TURNS`` declares; ``check_extractors`` holds the two together on import.

Values:

- tiles are written in the notation (``"R7"``, ``"K13"``, ``"J"``), racks and plays sorted by code
  (colour, then value; jokers last);
- ``phase``: ``initial_meld`` when the seat had not made its initial meld before the turn (a play
  in that phase is the initial meld), else ``opened`` (``rummisim.schema.TurnPhase``);
- ``action`` (``rummisim.schema.TurnAction``): ``timeout`` when the search ran out of budget
  (whatever followed), else ``take_discard``/``draw`` when the seat took the top discard/drew
  from the pool, ``_play`` added when it also played, ``play`` for a play without drawing, and
  ``pass`` when it could neither play nor draw;
- ``value_played``: each numbered tile at its face value, a joker at the value of the tile it
  stands for on the table after the play. The played jokers are the joker faces the table gained
  (its joker faces after the play less those before); when the same play moved a table joker to
  a new face, which joker is the played one is ambiguous, and the lowest gained faces are taken.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rummisim import events as ev
from rummisim.melds import Meld
from rummisim.schema import Table, TurnAction, TurnPhase, check_extractors
from rummisim.tiles import TileSet


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What an extractor sees: the turn's summary, what its events said, and the seats' bots."""

    end: ev.TurnEnded
    drawn: int  # tiles drawn from the pool
    took_discard: bool
    timed_out: bool
    discarded: int | None
    fault: str | None  # the rule of the turn's first fault
    value: int  # value_played
    tiles: Sequence[str]  # the notation of each tile code
    names: Sequence[str]  # bot name by seat
    labels: Sequence[str]  # bot label by seat

    def notation(self, codes: Iterable[int]) -> list[str]:
        return [self.tiles[c] for c in sorted(codes)]

    @property
    def action(self) -> TurnAction:
        played = bool(self.end.played)
        if self.timed_out:
            return TurnAction.TIMEOUT
        if self.took_discard:
            return TurnAction.TAKE_DISCARD_PLAY if played else TurnAction.TAKE_DISCARD
        if self.drawn:
            return TurnAction.DRAW_PLAY if played else TurnAction.DRAW
        return TurnAction.PLAY if played else TurnAction.PASS


TurnExtractor = Callable[[TurnContext], Any]

TURN_EXTRACTORS: dict[str, TurnExtractor] = {
    "round": lambda t: t.end.round_index,
    "turn": lambda t: t.end.turn,
    "seat": lambda t: t.end.seat,
    "bot": lambda t: t.names[t.end.seat],
    "bot_label": lambda t: t.labels[t.end.seat],
    "phase": lambda t: (TurnPhase.OPENED if t.end.opened_before else TurnPhase.INITIAL_MELD).value,
    "rack_before": lambda t: t.notation(t.end.rack_before),
    "action": lambda t: t.action.value,
    "tiles_drawn": lambda t: t.drawn + t.took_discard,
    "tiles_played": lambda t: t.notation(t.end.played),
    "value_played": lambda t: t.value,
    "discarded": lambda t: None if t.discarded is None else t.tiles[t.discarded],
    "table_tiles_after": lambda t: t.end.table_tiles,
    "rack_after": lambda t: t.end.rack_after,
    "pool_after": lambda t: t.end.pool_size,
    "search_units": lambda t: t.end.search_units,
    "fault": lambda t: t.fault,
}
check_extractors(Table.TURNS, TURN_EXTRACTORS)


def tile_notation(tileset: TileSet) -> tuple[str, ...]:
    """The notation of every tile code of ``tileset`` (``"K1"`` ... ``"J"``), indexed by code."""
    return tuple(tileset.format_tile(code) for code in range(tileset.n_codes))


def _joker_faces(table: Iterable[Meld], joker: int) -> Counter[int]:
    return Counter(
        face for meld in table for tile, face in zip(meld.tiles, meld.faces, strict=True) if tile == joker
    )


def played_value(
    played: Iterable[int], before: Sequence[Meld], after: Sequence[Meld], tileset: TileSet
) -> int:
    """The face value of the rack tiles ``played`` onto table ``before``, giving ``after``: a joker
    at the value of the tile it stands for (the module docstring says which, when ambiguous)."""
    joker = tileset.joker
    played = list(played)
    value = sum(tileset.value_of(t) for t in played if t != joker)
    jokers = len(played) - sum(1 for t in played if t != joker)
    if jokers:
        gained = _joker_faces(after, joker) - _joker_faces(before, joker)
        value += sum(sorted(tileset.value_of(face) for face in gained.elements())[:jokers])
    return value


def turn_rows(
    events: Iterable[ev.Event], tileset: TileSet, names: Sequence[str], labels: Sequence[str]
) -> list[dict[str, Any]]:
    """One row per turn (the ``TURNS`` columns, without the identity) from a game's events, in
    order: a ``TurnEnded`` closes each turn and the events before it since the last one make it.
    ``names`` and ``labels`` are the bots' names and labels by seat. Pure."""
    tiles = tile_notation(tileset)
    rows: list[dict[str, Any]] = []
    table: tuple[Meld, ...] = ()
    drawn, took_discard, timed_out, value = 0, False, False, 0
    discarded: int | None = None
    fault: str | None = None
    for event in events:
        if isinstance(event, ev.Dealt):
            table = ()
        elif isinstance(event, ev.Drew):
            drawn += len(event.tiles)
        elif isinstance(event, ev.TookDiscard):
            took_discard = True
        elif isinstance(event, ev.Played):
            value += played_value(event.played, table, event.table, tileset)
            table = event.table
        elif isinstance(event, ev.Discarded):
            discarded = event.tile
        elif isinstance(event, ev.TimedOut):
            timed_out = True
        elif isinstance(event, ev.Faulted):
            fault = fault or event.rule
        elif isinstance(event, ev.TurnEnded):
            context = TurnContext(
                event, drawn, took_discard, timed_out, discarded, fault, value, tiles, names, labels
            )
            rows.append({key: extract(context) for key, extract in TURN_EXTRACTORS.items()})
            drawn, took_discard, timed_out, value = 0, False, False, 0
            discarded = fault = None
    return rows
