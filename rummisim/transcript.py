"""A game followed from its event stream: the position after every turn, the text log's turns
and the rounds' records, all read from ``rummisim.events`` records.

The engine reports a game one way only, as a stream of events (``play_game(..., events=)``).
Every view of a game consumes that stream: the JSON-lines log (``rummisim.gamelog``), the
per-turn table (``rummisim.runner.turns``) and, here, ``Transcript``, which keeps each round's
``RoundState`` as the engine had it by applying the events through the round's own transitions
(``rummisim.round_state``), and hands on

- ``on_position(state, seat)`` after every turn: the whole position (every rack, the pool, the
  table, the discard pile), for tests and studies that look at positions;
- ``on_turn(TurnLog)`` as each turn ends and ``on_round(RoundRecord)`` as each round ends: what
  ``rummisim play`` prints as the game goes (``turns`` and ``rounds`` keep them all).

``fan_out`` sends one stream to several consumers. Pure: no I/O here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rummisim import events as ev
from rummisim.contract import Play
from rummisim.melds import Meld
from rummisim.profile import RuleProfile
from rummisim.round_state import Fault, RoundRecord, RoundState

if TYPE_CHECKING:
    from rummisim.round_state import Emit


@dataclass(frozen=True, slots=True)
class TurnLog:
    """One turn as the text log shows it: the action words, the tiles played, and the table,
    the rack sizes and the pool after it."""

    round_index: int
    turn: int
    seat: int
    actions: tuple[str, ...]
    played: tuple[int, ...]
    table: tuple[Meld, ...]
    rack_sizes: tuple[int, ...]
    pool_size: int


class Transcript:
    """A consumer of a game's events (pass it as ``events=``) that follows every round.

    ``table`` and ``opened`` are a hand-set round's starting table and opening state
    (``engine.play_round``); a dealt round starts with an empty table and nobody opened. The
    round's record is the one the state machine gives for the position the events led to."""

    def __init__(
        self,
        profile: RuleProfile,
        *,
        on_position: Callable[[RoundState, int], None] | None = None,
        on_turn: Callable[[TurnLog], None] | None = None,
        on_round: Callable[[RoundRecord], None] | None = None,
        table: tuple[Meld, ...] = (),
        opened: Sequence[bool] | None = None,
    ):
        self.profile = profile
        self.on_position = on_position
        self.on_turn = on_turn
        self.on_round = on_round
        self.table = tuple(table)
        self.opened = opened
        self.state: RoundState | None = None
        self.in_turn = False
        self.turns: list[TurnLog] = []
        self.rounds: list[RoundRecord] = []

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.Dealt):
            self.state = RoundState(
                self.profile,
                list(reversed(event.pool)),
                [sorted(rack) for rack in event.racks],
                discard=event.discard,
                table=self.table,
                opened=self.opened,
                first=event.first_player,
                round_index=event.round_index,
                referee=False,  # the engine judged the moves; the stream says what it allowed
            )
            self.in_turn = False
            return
        if isinstance(event, ev.GameEnded):
            return
        state = self.state
        assert state is not None, "an event before the deal"
        if isinstance(event, ev.RoundEnded):
            record = state.record()
            self.rounds.append(record)
            if self.on_round is not None:
                self.on_round(record)
            return
        if not self.in_turn:
            state.start_turn()
            self.in_turn = True
        seat = event.seat
        if isinstance(event, ev.Drew):
            state.draw(seat, len(event.tiles))
            state.turn_drew = True
        elif isinstance(event, ev.TookDiscard):
            state.take_discard(seat)
            state.turn_drew = True
        elif isinstance(event, ev.Played):
            state.place(seat, Play(event.table, event.played))
            state.turn_played = event.played
        elif isinstance(event, ev.Discarded):
            state.discard_tile(seat, event.tile)
        elif isinstance(event, ev.TimedOut):
            state.timeouts += 1
        elif isinstance(event, ev.Faulted):
            state.faults.append(Fault(event.round_index, event.turn, seat, event.rule, event.message))
        elif isinstance(event, ev.TurnEnded):
            self.turn_ended(state, event)

    def turn_ended(self, state: RoundState, event: ev.TurnEnded) -> None:
        seat = event.seat
        if self.on_position is not None:
            self.on_position(state, seat)
        entry = TurnLog(
            event.round_index,
            event.turn,
            seat,
            event.actions,
            event.played,
            state.table,
            tuple(len(r) for r in state.racks),
            len(state.pool),
        )
        self.turns.append(entry)
        if self.on_turn is not None:
            self.on_turn(entry)
        state.end_turn()
        self.in_turn = False


def fan_out(*consumers: Emit) -> Emit:
    """One event stream to several consumers, in order."""

    def send(event: ev.Event) -> None:
        for consumer in consumers:
            consumer(event)

    return send
