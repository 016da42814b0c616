"""A round as one state machine: where every tile is, whose turn it is, and the turn flow.

``RoundState`` holds a round (the pool, the racks, the table, the discard pile, who has made
the initial meld) and the rules of a turn, written once here for the three places that step
a round:

- the engine (``rummisim.engine``) asks the seat to move for the action of ``phase`` (of a
  kind ``legal_answers`` lists) and hands the answer to ``apply``, turn after turn;
- the lookahead bot's rollouts (``rummisim.bots.lookahead``) deal a state from a seat's view
  with the hidden tiles dealt again (``from_view``), ``copy()`` it for each candidate move and
  step the copies the same way;
- the replay checker (``rummisim.replay``) applies a game log's records through the same
  transitions (``start_turn``, ``draw``, ``take_discard``, ``place``, ``discard_tile``,
  ``end_turn``), checking each against the state before it does.

The turn (``Phase``): at ``START`` the seat plays (``Play``) or draws (``Draw``, from the
deck or, with the discard pile, the top discard); a ``Pass`` is a draw (nobody skips a turn
while the pool has tiles), and a seat that can neither play nor draw passes. With
``turn.play_after_draw`` a seat that drew and did not play may then play (``AFTER_DRAW``).
With the discard pile a turn with a play ends with a discard (``DISCARD``), and so does a turn
that only drew under ``turn.discard: every_turn`` (``discard_due``). ``OutOfBudget`` is a
timeout: under ``time_limit.on_timeout: best_found`` the best play found is played, else the
seat draws ``time_limit.timeout_draw`` tiles. Under ``turn.must_play_if_able`` a draw from a
seat with a legal play is a ``must_play`` fault and the best play is made for it.

As referee (``referee=True``: the engine) every play passes ``rules.validate_move`` with the
seat's opening state; an illegal play, a wrong draw source or an answer of the wrong kind
(``None`` from the engine's ``ask``) is a fault, recorded in ``faults`` and reported to
``emit``, and the seat draws instead. The rollouts (``referee=False``) trust their solver
bots: a play only has to hold rack tiles, and must-play is not judged.

After a turn, ``end_turn`` says whether the round is over: an empty rack (``OUT``), the
pool-empty rules (``rummisim.round_end``) or ``end.max_turns`` (``TURN_CAP``); ``result`` gives
the winner, ``score_round`` the scores. Pure: randomness only in what the callers deal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rummisim import events as ev
from rummisim.contract import Action, Discard, Draw, OutOfBudget, Pass, Phase, Play, TurnView
from rummisim.melds import Meld, rack_penalty
from rummisim.profile import RuleProfile
from rummisim.referee import legal_play
from rummisim.round_end import pool_empty_winner, pool_round_over
from rummisim.rules import IllegalMove, validate_move
from rummisim.schema import EndReason

Emit = Callable[[ev.Event], None]

ANSWERS: dict[Phase, tuple[type, ...]] = {
    Phase.START: (Play, Draw, Pass, OutOfBudget),
    Phase.AFTER_DRAW: (Play, Pass),
    Phase.DISCARD: (Discard,),
}
"""The kinds of answer each phase takes (the engine records any other as a ``wrong_action``
fault and hands ``apply`` None)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """A bot's error or illegal action, and the rule it broke."""

    round_index: int
    turn: int
    seat: int
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A round played: who began, who won and why, the scores, what was left, the faults."""

    round_index: int
    first_player: int
    winner: int
    tied: bool
    end_reason: EndReason
    turns: int
    scores: tuple[int, ...]
    rack_points: tuple[int, ...]
    tiles_left: tuple[int, ...]
    opened_turn: tuple[int | None, ...]
    faults: tuple[Fault, ...]
    timeouts: int
    pool_left: int = 0


class RoundState:
    """One round's state and its turn flow (the module docstring says how it is used).

    ``pool`` is drawn from its end; ``discard`` lists the discard pile bottom to top. Before
    the first turn ``seat`` is the seat before ``first`` and ``turn`` is 0; ``phase`` is the
    step the seat to move is asked for (``None`` between turns), ``ended`` the reason the
    round ended (``None`` while it goes on). The ``turn_*`` fields describe the turn being
    played; ``words`` are its action words for the text log (only with ``emit``)."""

    def __init__(
        self,
        profile: RuleProfile,
        pool: list[int],
        racks: list[list[int]],
        *,
        discard: Sequence[int] = (),
        table: tuple[Meld, ...] = (),
        opened: Sequence[bool] | None = None,
        first: int = 0,
        round_index: int = 0,
        referee: bool = True,
        strict: bool = False,
        emit: Emit | None = None,
    ):
        n = len(racks)
        self.profile = profile
        self.pool = pool
        self.racks = racks
        self.table = tuple(table)
        self.discard = list(discard)
        self.opened = [False] * n if opened is None else list(opened)
        self.opened_turn: list[int | None] = [None] * n
        self.first = first
        self.round_index = round_index
        self.referee = referee
        self.strict = strict
        self.emit = emit
        self.seat = (first - 1) % n
        self.turn = 0
        self.passes = 0  # turns in a row without a play begun on an empty pool
        self.ended: EndReason | None = None
        self.faults: list[Fault] = []
        self.timeouts = 0
        self.phase: Phase | None = None
        self.turn_drew = False
        self.turn_played: tuple[int, ...] = ()
        self.turn_pool_was_empty = False
        self.turn_rack_before: tuple[int, ...] = ()
        self.turn_opened_before = False
        self.words: list[str] | None = None

    def listen(self, emit: Emit | None, *, strict: bool) -> None:
        """Who hears of the round: ``emit`` gets every step as a ``rummisim.events`` record (and
        then each turn's action words are kept, ``words``); ``strict`` raises a fault instead of
        recording it."""
        self.emit, self.strict = emit, strict

    @classmethod
    def from_view(cls, view: TurnView, hidden: Sequence[int]) -> RoundState:
        """The position ``view`` shows, with ``hidden`` (a shuffle of the tiles the seat cannot
        see) dealt into the other racks from its front by their sizes, then the pool (drawn from
        its end); what is left over is the buried discard pile, out of play. The seat's turn has
        begun (``phase`` ``START``); the round's first player is taken as seat 0 (the view does
        not say who began), and the state trusts its bots (``referee=False``)."""
        racks: list[list[int]] = []
        at = 0
        for seat, size in enumerate(view.rack_sizes):
            if seat == view.seat:
                racks.append(list(view.rack))
            else:
                racks.append(sorted(hidden[at : at + size]))
                at += size
        state = cls(
            view.profile,
            list(hidden[at : at + view.pool_size]),
            racks,
            discard=() if view.discard_top is None else (view.discard_top,),
            table=view.table,
            opened=view.opened_seats,
            referee=False,
        )
        state.seat, state.turn = (view.seat - 1) % len(racks), view.turn - 1
        state.start_turn()
        return state

    def copy(self) -> RoundState:
        """An independent copy (the lists copied, the immutable table and profile shared)."""
        other = object.__new__(RoundState)
        other.__dict__.update(self.__dict__)
        other.pool = list(self.pool)
        other.racks = [list(rack) for rack in self.racks]
        other.discard = list(self.discard)
        other.opened = list(self.opened)
        other.opened_turn = list(self.opened_turn)
        other.faults = list(self.faults)
        other.words = None if self.words is None else list(self.words)
        return other

    def all_tiles(self) -> list[int]:
        """Every tile in play, wherever it is (for conservation checks)."""
        tiles = list(self.pool) + list(self.discard)
        for rack in self.racks:
            tiles.extend(rack)
        for meld in self.table:
            tiles.extend(meld.tiles)
        return tiles

    def view(self, seat: int, phase: Phase, profile: RuleProfile | None = None) -> TurnView:
        """What ``seat`` is shown in ``phase`` (with ``profile`` in place of the state's own: the
        engine shows each seat its copy of the rules, and a copy of the table)."""
        return TurnView.of(
            self.profile if profile is None else profile,
            seat,
            phase,
            racks=self.racks,
            table=self.table if profile is None else tuple(Meld(m.tiles, m.faces) for m in self.table),
            opened=self.opened,
            pool_size=len(self.pool),
            discard=self.discard,
            turn=self.turn,
        )

    def _say(self, words: str) -> None:
        if self.words is not None:
            self.words.append(words)

    # ----- the turn, step by step ---------------------------------------------------------

    def start_turn(self) -> int:
        """The next seat's turn begins (phase ``START``); returns the seat."""
        self.seat = seat = (self.seat + 1) % len(self.racks)
        self.turn += 1
        self.phase = Phase.START
        self.turn_drew = False
        self.turn_played = ()
        self.turn_pool_was_empty = not self.pool
        self.turn_rack_before = tuple(self.racks[seat])
        self.turn_opened_before = self.opened[seat]
        self.words = [] if self.emit is not None else None
        return seat

    def legal_answers(self) -> tuple[type, ...]:
        """The kinds of answer the seat to move may give now (``ANSWERS`` of ``phase``)."""
        assert self.phase is not None, "no turn is being played"
        return ANSWERS[self.phase]

    def apply(self, action: Action | None) -> None:
        """Carry out the seat's answer to ``phase`` (``None``: the engine found no usable answer,
        a fault already recorded) with the fallbacks the module docstring lists, and move on to
        the turn's next phase (``None`` once the turn is over: then call ``end_turn``)."""
        phase, seat = self.phase, self.seat
        if phase == Phase.START:
            self._start(seat, action)
        elif phase == Phase.AFTER_DRAW:
            if isinstance(action, Play):
                if self.apply_play(seat, action, Phase.AFTER_DRAW):
                    self._say("plays after drawing")
                    self.turn_played = action.played
                else:
                    self._say("illegal move after drawing")
        elif phase == Phase.DISCARD:
            self._discard(seat, action)
            self.phase = None
            return
        else:
            raise ValueError("no turn is being played: start_turn first")
        rack = self.racks[seat]
        if phase == Phase.START and self.may_play_after_draw():
            self.phase = Phase.AFTER_DRAW
        elif self.profile.discard_pile and rack and self.discard_due():
            self.phase = Phase.DISCARD
        else:
            self.phase = None

    def _start(self, seat: int, action: Action | None) -> None:
        profile = self.profile
        if isinstance(action, Pass):  # nobody may skip a turn while the pool has tiles
            action = Draw()
        if isinstance(action, OutOfBudget):
            self.timeouts += 1
            if self.emit is not None:
                self.emit(ev.TimedOut(self.round_index, self.turn, seat))
            if profile.time_limit.on_timeout == "best_found" and action.best is not None:
                action = action.best
            else:
                self._say(f"out of search budget, draws {profile.time_limit.timeout_draw}")
                self.turn_drew = self.draw(seat, profile.time_limit.timeout_draw) > 0
                action = Pass()
        forced = False
        if isinstance(action, Draw) and self.referee and profile.turn.must_play_if_able:
            action = self.forced_play(seat, action)
            forced = isinstance(action, Play)
        if isinstance(action, Play):
            if self.apply_play(seat, action, Phase.START, forced):
                self._say("plays")
                self.turn_played = action.played
            else:
                self._say("illegal move, draws instead")
                action = Draw()
        if action is None or isinstance(action, Draw):
            source = action.source if isinstance(action, Draw) else "deck"
            self.turn_drew = self.take(seat, source)

    def may_play_after_draw(self) -> bool:
        """``turn.play_after_draw``: a seat that drew, has not played and holds tiles may play."""
        return (
            self.turn_drew
            and self.profile.turn.play_after_draw
            and not self.turn_played
            and len(self.racks[self.seat]) > 0
        )

    def discard_due(self) -> bool:
        """Does this turn end with a discard (with the discard pile, a rack left)? A play always
        does (002: "fa la sua mossa e scarta"); a turn that only drew does under
        ``turn.discard: every_turn`` (classic rummy), not under ``after_play`` (002 as written);
        a turn that could neither play nor draw (empty pool) is a pass, never a discard."""
        return bool(self.turn_played) or (self.turn_drew and self.profile.turn.discard == "every_turn")

    def end_turn(self) -> EndReason | None:
        """Close the turn: does the round end here? An empty rack (``OUT``), the pool-empty rules
        (``POOL_EXHAUSTED``), or the turn cap (``TURN_CAP``), in that order."""
        self.phase = None
        if not self.racks[self.seat]:
            self.ended = EndReason.OUT
            return self.ended
        self.passes = self.passes + 1 if (self.turn_pool_was_empty and not self.turn_played) else 0
        if pool_round_over(self.profile, self.passes, len(self.pool), self.racks, self.table, self.opened):
            self.ended = EndReason.POOL_EXHAUSTED
        elif self.turn >= self.profile.end.max_turns:
            self.ended = EndReason.TURN_CAP
        return self.ended

    def result(self) -> tuple[int, bool]:
        """The ended round's winner and whether it was tied: the seat that went out, else
        ``end.pool_empty_winner`` (ties broken by turn order from ``first``)."""
        if self.ended == EndReason.OUT:
            return self.seat, False
        return pool_empty_winner(self.profile, self.racks, self.first)

    def record(self) -> RoundRecord:
        """The ended round's record (``result`` and ``score_round``)."""
        assert self.ended is not None, "the round goes on"
        winner, tied = self.result()
        scores, points = score_round(self.profile, self.racks, winner, self.ended)
        return RoundRecord(
            round_index=self.round_index,
            first_player=self.first,
            winner=winner,
            tied=tied,
            end_reason=self.ended,
            turns=self.turn,
            scores=scores,
            rack_points=points,
            tiles_left=tuple(len(r) for r in self.racks),
            opened_turn=tuple(self.opened_turn),
            faults=tuple(self.faults),
            timeouts=self.timeouts,
            pool_left=len(self.pool),
        )

    # ----- the transitions -----------------------------------------------------------------

    def fault(self, seat: int, rule: str, message: str, move: Play | None = None) -> None:
        """Record a fault; ``move``: the illegal play the rules refused (the event carries it)."""
        if self.strict:
            raise IllegalMove(rule, message)
        self.faults.append(Fault(self.round_index, self.turn, seat, rule, message))
        if self.emit is not None:
            played = table = None
            if move is not None:
                played, table = tuple(move.played), tuple(move.table)
            self.emit(ev.Faulted(self.round_index, self.turn, seat, rule, message, played, table))

    def place(self, seat: int, play: Play) -> bool | None:
        """Put ``play`` on the table for ``seat``; whether it was the seat's initial meld. As
        referee the rules judge it (``IllegalMove`` when they refuse it, nothing changed); else
        it only has to hold rack tiles (``None`` when it does not, nothing changed)."""
        rack = self.racks[seat]
        if self.referee:
            check = validate_move(
                self.profile,
                self.table,
                tuple(rack),
                tuple(play.table),
                tuple(play.played),
                opened=self.opened[seat],
            )
            opens = check.opening_value is not None
        else:
            left = Counter(rack)
            left.subtract(play.played)
            if not play.played or min(left.values()) < 0:
                return None
            opens = not self.opened[seat]
        for tile in play.played:
            rack.remove(tile)
        self.table = tuple(play.table)
        if opens:
            self.opened[seat] = True
            self.opened_turn[seat] = self.turn
        return opens

    def apply_play(self, seat: int, play: Play, phase: Phase = Phase.START, forced: bool = False) -> bool:
        """``place`` with an illegal play recorded as a fault; whether it was played."""
        try:
            opens = self.place(seat, play)
        except IllegalMove as exc:
            self.fault(seat, exc.rule, exc.message, play)
            return False
        if opens is None:
            return False
        if self.emit is not None:
            self.emit(
                ev.Played(
                    self.round_index,
                    self.turn,
                    seat,
                    str(phase),
                    tuple(play.played),
                    self.table,
                    opened=opens,
                    forced=forced,
                )
            )
        return True

    def forced_play(self, seat: int, action: Draw) -> Play | Draw:
        """``turn.must_play_if_able``: a draw from a seat that has a legal play is a fault,
        and the best play is made for it so the game goes on (002: "if the player
        cannot combine ... he must draw", so one who can, plays)."""
        best = legal_play(self.profile, self.racks[seat], self.table, opened=self.opened[seat])
        if not best.is_play:
            return action
        self.fault(seat, "must_play", "drew although a legal play exists; the engine plays it")
        self._say("must play")
        return Play(best.table, best.played)

    def draw(self, seat: int, count: int) -> int:
        """``seat`` draws up to ``count`` tiles from the pool (a pass when it is empty)."""
        pool = self.pool
        drawn: list[int] = []
        while len(drawn) < count and pool:
            drawn.append(pool.pop())
        rack = self.racks[seat]
        rack.extend(drawn)
        rack.sort()
        if self.emit is not None:
            if drawn:
                self.emit(ev.Drew(self.round_index, self.turn, seat, tuple(drawn)))
            else:
                self.emit(ev.Passed(self.round_index, self.turn, seat))
        return len(drawn)

    def take_discard(self, seat: int) -> int:
        """``seat`` takes the top of the discard pile."""
        tile = self.discard.pop()
        self.racks[seat].append(tile)
        self.racks[seat].sort()
        if self.emit is not None:
            self.emit(ev.TookDiscard(self.round_index, self.turn, seat, tile))
        return tile

    def take(self, seat: int, source: str) -> bool:
        """The draw of a turn, from ``source`` (``deck`` or ``discard``); whether a tile came."""
        if source == "discard":
            if not self.profile.discard_pile or not self.discard:
                self.fault(seat, "wrong_action", "there is no discard to take")
                source = "deck"
            else:
                self.take_discard(seat)
                self._say("takes the top discard")
                return True
        if source != "deck":
            self.fault(seat, "wrong_action", f"unknown draw source {source!r}")
        taken = self.draw(seat, self.profile.turn.draw_count)
        self._say(f"draws {taken}" if taken else "passes (pool empty)")
        return taken > 0

    def discard_tile(self, seat: int, tile: int) -> None:
        """``seat`` ends its turn by discarding ``tile`` from its rack."""
        self.racks[seat].remove(tile)
        self.discard.append(tile)
        if self.emit is not None:
            self.emit(ev.Discarded(self.round_index, self.turn, seat, tile))

    def _discard(self, seat: int, action: Action | None) -> None:
        rack = self.racks[seat]
        if isinstance(action, Discard) and action.tile in rack:
            tile = action.tile
        else:
            if isinstance(action, Discard):
                self.fault(seat, "tile_not_in_rack", f"cannot discard tile {action.tile}")
            tile = rack[-1]
        self._say(f"discards {self.profile.tileset.format_tile(tile)}")
        self.discard_tile(seat, tile)


def score_round(
    profile: RuleProfile, racks: Sequence[Sequence[int]], winner: int, end_reason: EndReason
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Scores of a round and each rack's points (jokers cost ``jokers.penalty``).

    Going out, or ``pool_empty_scoring: standard``: each loser scores minus their
    rack, the winner plus the sum. ``subtract_winner`` (seed 004) when the pool ran
    out: each loser scores minus (own rack - winner's rack, at least 0) and the
    winner plus the sum of those.
    """
    points = tuple(rack_penalty(r, profile) for r in racks)
    subtract = end_reason != EndReason.OUT and profile.end.pool_empty_scoring == "subtract_winner"
    base = points[winner] if subtract else 0
    losses = [0 if s == winner else max(0, p - base) for s, p in enumerate(points)]
    scores = tuple(sum(losses) if s == winner else -loss for s, loss in enumerate(losses))
    return scores, points
