"""The game as a stream of events: what the engine reports, step by step, when asked.

``engine.play_game(..., events=callback)`` calls ``callback`` with one of these frozen
records at every step of a match, in order: the engine's one way of reporting a game, and the
one history every view of it reads. They carry tile codes and ``Meld`` objects (pure data, no
notation); ``rummisim.gamelog`` turns them into JSON lines (and back), the runner's ``--turns``
table is built from ``TurnEnded``, ``rummisim.transcript.Transcript`` follows the position and
the text of ``rummisim play`` from them (``transcript.fan_out`` feeds several readers), and
``rummisim.replay`` checks a stream against the rules without trusting whoever wrote it.

Hidden information is in the stream (every rack at the deal, every tile drawn), so a
replay is complete; ``gamelog`` filters a stream down to one seat's view.

The order within a turn is the order things happen: ``Faulted`` before the fallback it
causes (an illegal play is a fault, then a ``Drew``), ``TimedOut`` before the timeout's
draw, ``Played``/``Drew``/``TookDiscard``/``Passed`` then the ``Discarded`` that ends a
discard-pile turn, and ``TurnEnded`` last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rummisim.melds import Meld
    from rummisim.schema import EndReason


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round starts: every rack, the pool in draw order (``pool[0]`` is drawn first) and
    the discard pile bottom to top (one tile under ``discard_pile``, else empty)."""

    round_index: int
    first_player: int
    racks: tuple[tuple[int, ...], ...]
    pool: tuple[int, ...]
    discard: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Drew:
    """``seat`` drew ``tiles`` from the pool (in draw order)."""

    round_index: int
    turn: int
    seat: int
    tiles: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TookDiscard:
    """``seat`` took the top of the discard pile."""

    round_index: int
    turn: int
    seat: int
    tile: int


@dataclass(frozen=True, slots=True)
class Played:
    """``seat`` played the rack tiles ``played``; ``table`` is the whole table after, each
    joker with the tile it stands for (``Meld.faces``). ``opened``: this play was the seat's
    initial meld. ``forced``: the engine made it under ``turn.must_play_if_able``."""

    round_index: int
    turn: int
    seat: int
    phase: str
    played: tuple[int, ...]
    table: tuple[Meld, ...]
    opened: bool
    forced: bool = False


@dataclass(frozen=True, slots=True)
class Discarded:
    """``seat`` ended its turn by discarding ``tile`` (discard-pile variant)."""

    round_index: int
    turn: int
    seat: int
    tile: int


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` could neither play nor draw (the pool is empty)."""

    round_index: int
    turn: int
    seat: int


@dataclass(frozen=True, slots=True)
class TimedOut:
    """``seat``'s search ran out of ``time_limit.search_budget``."""

    round_index: int
    turn: int
    seat: int


@dataclass(frozen=True, slots=True)
class Faulted:
    """``seat``'s bot raised, answered the wrong kind of action or proposed an illegal
    move; the engine falls back as ``rummisim.engine`` describes.

    For an illegal move (``validate_move`` refused it under ``rule``) ``played`` and
    ``table`` are the move as the bot proposed it: the rack tiles and the whole new table,
    as in ``Played``, so that ``rummisim.replay`` can refuse it again. Every other fault
    (``rummisim.engine.MOVELESS_FAULTS``, and a discard of a tile the rack does not hold)
    carries no move: both are ``None``."""

    round_index: int
    turn: int
    seat: int
    rule: str
    message: str
    played: tuple[int, ...] | None = None
    table: tuple[Meld, ...] | None = None


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """A turn's summary: the rack before it, whether the seat had opened before it, what
    happened (the action words of the text log), the tiles played, the table's size after,
    and the search units the seat's bot reports having spent (``None`` when the bot does
    not count them: see ``rummisim.contract``)."""

    round_index: int
    turn: int
    seat: int
    rack_before: tuple[int, ...]
    opened_before: bool
    actions: tuple[str, ...]
    played: tuple[int, ...]
    table_tiles: int
    rack_after: int
    pool_size: int
    search_units: int | None


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """A round is over: the winner, why, the scores and every rack left."""

    round_index: int
    winner: int
    tied: bool
    end_reason: EndReason
    turns: int
    scores: tuple[int, ...]
    rack_points: tuple[int, ...]
    racks: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The match is over: net totals, the winner (what the match counts) and the rounds."""

    scores: tuple[int, ...]
    winner: int
    tied: bool
    match_capped: bool
    rounds: int


Event = (
    Dealt
    | Drew
    | TookDiscard
    | Played
    | Discarded
    | Passed
    | TimedOut
    | Faulted
    | TurnEnded
    | RoundEnded
    | GameEnded
)

__all__ = [
    "Dealt",
    "Discarded",
    "Drew",
    "Event",
    "Faulted",
    "GameEnded",
    "Passed",
    "Played",
    "RoundEnded",
    "TimedOut",
    "TookDiscard",
    "TurnEnded",
]
