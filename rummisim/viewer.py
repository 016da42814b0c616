"""A game log as one self-contained HTML page: ``rummisim view LOG.jsonl``.

``frames(header, records, seat)`` turns the records of a full game log (``rummisim.gamelog``;
the log has passed ``rummisim.replay``) into one frame per turn, plus one as each round is
dealt and one as it ends: the table's sets (each tile with its colour, a joker with the face it
stands for, the tiles played this turn marked), every rack (with ``seat``, that seat's rack and
the others' tile counts only), the pool and discard pile sizes, what happened in the turn
(plays, draws, discards, passes, faults, timeouts) and the scores when a round ends.
``page(header, frames)`` fills the template ``viewer.html`` (package data): styles, script and
the frames inline in one file, so it opens from
disk with no server and makes no network request. The page shows one frame at a time, with a
slider, previous/next buttons and the arrow keys (Home/End for the first/last); ``#frame=N`` in
the address opens frame N. Pure: the caller reads the log and writes the page.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from rummisim import events as ev
from rummisim.gamelog import Header, from_dict
from rummisim.melds import Meld
from rummisim.tiles import TileSet

# tile colours by the letter of the notation (``rummisim.tiles``): K R O B, then G P W C
COLOURS = {
    "K": "#212121",
    "R": "#c62828",
    "O": "#f57c00",
    "B": "#1565c0",
    "G": "#2e7d32",
    "P": "#6a1b9a",
    "W": "#6d4c41",
    "C": "#00838f",
}


@dataclass
class _Game:
    """The state the frames are read from, updated event by event."""

    header: Header
    seat: int | None
    racks: list[list[int]] = field(default_factory=list)
    table: tuple[Meld, ...] = ()
    pool: int = 0
    discard: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    round: int = 0
    turn: tuple[int, int] | None = None  # (turn, seat) being played
    happened: list[tuple[str, str]] = field(default_factory=list)  # (kind, text) this turn
    played: Counter = field(default_factory=Counter)
    table_before: tuple[Meld, ...] = ()

    @property
    def ts(self) -> TileSet:
        return self.header.profile.tileset

    def name(self, seat: int) -> str:
        return f"seat {seat} ({self.header.labels[seat]})"

    def shows(self, seat: int) -> bool:
        return self.seat is None or self.seat == seat

    def tile(self, code: int) -> str:
        return self.ts.format_tile(code)

    def tiles(self, codes: Iterable[int]) -> str:
        return " ".join(self.tile(c) for c in codes)


_TURN_EVENTS = (ev.Drew, ev.TookDiscard, ev.Played, ev.Discarded, ev.Passed, ev.TimedOut, ev.Faulted)


def frames(header: Header, records: Iterable[Mapping[str, Any]], seat: int | None = None) -> list[dict]:
    """One frame per turn, per deal and per round end (see the module docstring), from the
    records after the header of a full log; ``seat``: that seat's view."""
    game = _Game(header, seat, totals=[0] * len(header.labels))
    out: list[dict] = []
    for record in records:
        event = from_dict(record, header.profile)
        turn_of = (event.turn, event.seat) if isinstance(event, _TURN_EVENTS) else None
        if game.turn is not None and turn_of != game.turn:
            out.append(_turn_frame(game))
        if isinstance(event, ev.Dealt):
            _deal(game, event)
            out.append(
                _frame(game, f"Round {event.round_index + 1}: dealt", [("deal", "the tiles are dealt")])
            )
        elif isinstance(event, ev.RoundEnded):
            out.append(_round_end(game, event))
        elif isinstance(event, ev.GameEnded):
            scores = ", ".join(f"{game.name(s)} {v:+d}" for s, v in enumerate(event.scores))
            text = f"the match is over after {event.rounds} round(s): {scores}"
            game.totals = list(event.scores)  # (the match's own count: net, as the log has it)
            out.append(_frame(game, "Game over", [("end", text)], shown=True))
        elif isinstance(event, ev.TurnEnded):
            continue  # the turn's summary: the frame is written when the next event comes
        else:
            if game.turn is None:
                game.turn = turn_of
                game.happened, game.played, game.table_before = [], Counter(), game.table
            _turn_event(game, event)
    if game.turn is not None:
        out.append(_turn_frame(game))
    return out


def _deal(game: _Game, event: ev.Dealt) -> None:
    game.round = event.round_index
    game.racks = [sorted(rack) for rack in event.racks]
    game.table = ()
    game.pool = len(event.pool)
    game.discard = list(event.discard)


def _turn_event(game: _Game, event: Any) -> None:
    seat = event.seat
    rack = game.racks[seat]
    if isinstance(event, ev.Drew):
        rack.extend(event.tiles)
        rack.sort()
        game.pool -= len(event.tiles)
        what = game.tiles(event.tiles) if game.shows(seat) else f"{len(event.tiles)} tile(s)"
        game.happened.append(("draw", f"draws {what}"))
    elif isinstance(event, ev.TookDiscard):
        game.discard.pop()
        rack.append(event.tile)
        rack.sort()
        game.happened.append(("draw", f"takes the discard {game.tile(event.tile)}"))
    elif isinstance(event, ev.Played):
        for tile in event.played:
            rack.remove(tile)
        game.table = tuple(event.table)
        game.played.update(event.played)
        opening = " (the initial meld)" if event.opened else ""
        forced = " (made by the referee: must play)" if event.forced else ""
        game.happened.append(("play", f"plays {game.tiles(event.played)}{opening}{forced}"))
    elif isinstance(event, ev.Discarded):
        rack.remove(event.tile)
        game.discard.append(event.tile)
        game.happened.append(("discard", f"discards {game.tile(event.tile)}"))
    elif isinstance(event, ev.Passed):
        game.happened.append(("pass", "passes (the pool is empty)"))
    elif isinstance(event, ev.TimedOut):
        game.happened.append(("timeout", "runs out of search budget"))
    elif isinstance(event, ev.Faulted):
        game.happened.append(("fault", f"fault ({event.rule}): {event.message}"))


def _turn_frame(game: _Game) -> dict:
    assert game.turn is not None
    turn, seat = game.turn
    game.turn = None
    label = f"Round {game.round + 1}, turn {turn}: {game.name(seat)}"
    return _frame(game, label, game.happened or [("pass", "does nothing")], seat=seat, marked=game.played)


def _round_end(game: _Game, event: ev.RoundEnded) -> dict:
    for seat, score in enumerate(event.scores):
        game.totals[seat] += score
    if event.racks:
        game.racks = [sorted(rack) for rack in event.racks]
    why = {"out": "went out", "pool_exhausted": "the pool ran out", "turn_cap": "the turn cap was reached"}
    tie = " (tied)" if event.tied else ""
    text = (
        f"{game.name(event.winner)} wins the round{tie}: {why.get(str(event.end_reason), event.end_reason)}"
    )
    label = f"Round {event.round_index + 1} over"
    return _frame(game, label, [("end", text)], scores=list(event.scores), shown=True)


def _frame(
    game: _Game,
    label: str,
    happened: list[tuple[str, str]],
    *,
    seat: int | None = None,
    marked: Counter | None = None,
    scores: list[int] | None = None,
    shown: bool = False,
) -> dict:
    """One frame; ``marked``: tiles played this turn (marked on the table, in the sets that
    changed first); ``shown``: every rack is shown (at a round's end)."""
    left = Counter(marked or ())
    before = Counter(game.table_before)
    changed = []
    for meld in game.table:
        if before[meld] > 0:
            before[meld] -= 1
            changed.append(False)
        else:
            changed.append(True)
    sets: list[list[dict] | None] = [None] * len(game.table)
    for pass_changed in (True, False):
        for i, meld in enumerate(game.table):
            if changed[i] != pass_changed:
                continue
            cells = []
            for tile, face in zip(meld.tiles, meld.faces, strict=True):
                cell: dict[str, str | bool] = {"t": game.tile(tile)}
                if tile == game.ts.joker:
                    cell["f"] = game.tile(face)
                if left[tile] > 0:
                    left[tile] -= 1
                    cell["new"] = True
                cells.append(cell)
            sets[i] = cells
    return {
        "label": label,
        "round": game.round,
        "seat": seat,
        "table": sets,
        "racks": [
            [game.tile(t) for t in rack] if shown or game.shows(s) else None
            for s, rack in enumerate(game.racks)
        ],
        "counts": [len(rack) for rack in game.racks],
        "pool": game.pool,
        "discard": len(game.discard),
        "discard_top": game.tile(game.discard[-1]) if game.discard else None,
        "happened": [{"kind": kind, "text": text} for kind, text in happened],
        "scores": scores,
        "totals": list(game.totals),
    }


def page(header: Header, game_frames: list[dict], seat: int | None = None) -> str:
    """The self-contained HTML page for ``game_frames`` (``frames``)."""
    profile = header.profile
    title = f"rummisim: {profile.name}, seed {header.seed}"
    if seat is not None:
        title += f", seen by seat {seat}"
    data = {
        "title": title,
        "seats": [f"seat {s} ({label})" for s, label in enumerate(header.labels)],
        "view": seat,
        "discardPile": profile.discard_pile,
        "colours": COLOURS,
        "frames": game_frames,
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    template = resources.files("rummisim").joinpath("viewer.html").read_text(encoding="utf-8")
    return template.replace("{{TITLE}}", html.escape(title)).replace("{{DATA}}", payload)
