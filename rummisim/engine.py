"""Game flow: the seeded deal, turns, end of round, scoring, and matches of rounds.

``play_game(profile, bots, seed)`` plays one match and returns a ``GameRecord``.
The game's ``numpy.random.SeedSequence`` spawns independent streams for the
deal, for choosing the first player, and for each seat's bot, so the same seed
gives the same deal under every profile that shares a tile set (common random
numbers) and the same record every time. Each seat is a built bot or a factory
(``rummisim.contract.BotFactory``) that the engine calls with the seat's
generator; the engine knows bots only through ``rummisim.contract`` and never
imports ``rummisim.bots`` (``rummisim.play_game`` reads bot specs by name).

Turn flow without a discard pile: the bot plays (``Play``) or draws
(``Draw``); with ``turn.play_after_draw`` it may then play. With the discard
pile (seed 002) a turn is: play, or draw from the deck or take the top discard
and optionally play; a turn with a play ends with a discard, and so does a turn
that only drew under ``turn.discard: every_turn`` (classic rummy; under
``after_play``, 002 as written, it does not, so racks grow). A player who can
neither play nor draw (empty pool) passes, with no discard. Going out means an
empty rack after the turn (after the final discard in that variant).

Under ``turn.must_play_if_able`` (002: "if the player cannot combine ... he must
draw") a draw or pass from a seat that has a legal play (``legal_play``: the
exact solver) is a fault, and the engine makes the best play for it.

When the pool is empty a turn without a play is a pass; the round ends when
every player passes in a row (``end.when_pool_empty: play_on``), after such a
cycle only if no seat could play (``until_no_play``, 000 as written: the exact
search judges, as for must-play), or as soon as a turn leaves the pool empty
(``end_round``, one reading of 004), and
the winner is chosen by ``end.pool_empty_winner`` (ties broken by the other
measure, then by turn order from the round's first player). A round that
reaches ``end.max_turns`` ends the same way and is recorded as ``turn_cap``.

A points match ends when a seat reaches ``match.target_points``: counting the
points won as round winner (``match.target_counts: positive``, 002's "punti
positivi") or the net totals (``net``); the record's ``scores`` are always the
net totals, and the winner is the seat ahead on what the match counts.

A bot that raises, returns the wrong kind of action or proposes an illegal move
never corrupts the game: the engine records a fault and the bot draws instead
(``strict=True`` re-raises, for tests). The fault event of an illegal move carries
the move (``events.Faulted``), so a replay can check that the rules refuse it; the
faults of ``MOVELESS_FAULTS`` carry none. The engine does no I/O; the turn log is
returned as data.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from rummisim import events as ev
from rummisim.answers import own_action
from rummisim.contract import (
    BotFactory,
    Discard,
    Draw,
    OutOfBudget,
    Pass,
    Phase,
    Play,
    Player,
    TurnView,
)
from rummisim.melds import Meld, rack_penalty
from rummisim.profile import RuleProfile
from rummisim.referee import legal_play
from rummisim.round_end import pool_empty_winner, pool_round_over
from rummisim.rules import IllegalMove, validate_move
from rummisim.schema import EndReason
from rummisim.validation import excerpt

Seat = Player | BotFactory  # a built bot, or a factory the engine calls with the seat's generator


MOVELESS_FAULTS = frozenset({"bot_error", "wrong_action", "must_play"})
"""The rules of the faults that record no move: the bot raised (a solver error too), answered
the wrong kind of action (or asked for a draw source there is none of, or played tile codes
outside the tile set, which no log notation describes), or drew although it
could play (the engine then plays for it). Every other fault is a move ``validate_move``
refused, under its rule, and its ``events.Faulted`` carries that move, except a discard of a
tile the rack does not hold (``tile_not_in_rack`` in the discard phase)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """A bot's error or illegal action, and the rule it broke."""

    round_index: int
    turn: int
    seat: int
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class TurnLog:
    """One turn for the readable log (only collected when asked for)."""

    round_index: int
    turn: int
    seat: int
    actions: tuple[str, ...]
    played: tuple[int, ...]
    table: tuple[Meld, ...]
    rack_sizes: tuple[int, ...]
    pool_size: int


@dataclass(frozen=True, slots=True)
class RoundRecord:
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


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole match: per-round records and cumulative scores."""

    seed: int | None
    profile: str
    bots: tuple[str, ...]
    rounds: tuple[RoundRecord, ...]
    scores: tuple[int, ...]
    winner: int
    tied: bool
    match_capped: bool
    log: tuple[TurnLog, ...] = field(default=(), repr=False)

    @property
    def n_rounds(self) -> int:
        return len(self.rounds)

    @property
    def turns(self) -> int:
        return sum(r.turns for r in self.rounds)

    @property
    def end_reason(self) -> EndReason:
        return self.rounds[-1].end_reason

    @property
    def faults(self) -> tuple[Fault, ...]:
        return tuple(f for r in self.rounds for f in r.faults)


class RoundState:
    """Mutable state of one round (internal to the engine; observers read it)."""

    def __init__(self, profile: RuleProfile, pool: list[int], racks: list[list[int]]):
        self.profile = profile
        self.pool = pool  # drawn from the end
        self.racks = racks
        self.table: tuple[Meld, ...] = ()
        self.opened = [False] * len(racks)
        self.opened_turn: list[int | None] = [None] * len(racks)
        self.discard: list[int] = []

    def all_tiles(self) -> list[int]:
        """Every tile in play, wherever it is (for conservation checks)."""
        tiles = list(self.pool) + list(self.discard)
        for rack in self.racks:
            tiles.extend(rack)
        for meld in self.table:
            tiles.extend(meld.tiles)
        return tiles


Observer = Callable[[RoundState, int], None]


# ----- deal and seating -------------------------------------------------------------------


def deal(profile: RuleProfile, n_players: int, rng: np.random.Generator) -> RoundState:
    """Shuffle the full tile set and deal ``rack_size`` tiles to each seat."""
    tiles = np.array(profile.tileset.all_tiles(), dtype=np.int64)
    order = rng.permutation(tiles).tolist()
    size = profile.rack_size
    racks = [sorted(order[i * size : (i + 1) * size]) for i in range(n_players)]
    pool = order[n_players * size :]
    state = RoundState(profile, pool, racks)
    if profile.discard_pile:
        state.discard.append(state.pool.pop())
    return state


def choose_first_player(
    profile: RuleProfile, n_players: int, round_index: int, rng: np.random.Generator
) -> int:
    """``rotate``: seat ``round_index mod n``. ``draw_highest``: each seat draws a tile,
    the highest value starts, tied seats draw again (a joker counts as 0)."""
    if profile.first_player == "rotate":
        return round_index % n_players
    ts = profile.tileset
    all_tiles = ts.all_tiles()
    contenders = list(range(n_players))
    while len(contenders) > 1:
        drawn = rng.choice(ts.size, size=len(contenders), replace=False)
        values = [0 if all_tiles[d] == ts.joker else ts.value_of(all_tiles[d]) for d in drawn]
        top = max(values)
        contenders = [s for s, v in zip(contenders, values, strict=True) if v == top]
    return contenders[0]


def game_streams(
    seed: int | np.random.SeedSequence | None, n_players: int
) -> tuple[np.random.SeedSequence, np.random.SeedSequence, list[np.random.SeedSequence]]:
    """A game's independent random streams: the deals, the first players, one per seat's bot."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    deal_seed, seat_seed, *bot_seeds = root.spawn(2 + n_players)
    return deal_seed, seat_seed, bot_seeds


def bot_stream(spawned: np.random.SeedSequence) -> np.random.SeedSequence:
    """A seat's bot stream, one way from its spawned ``SeedSequence``: a SHA-256 of that
    sequence's state seeds a fresh one, so ``rng.bit_generator.seed_seq`` (entropy, spawn key)
    tells a bot nothing about the game's seed, the deals or the other seats' streams."""
    digest = hashlib.sha256(spawned.generate_state(8).tobytes()).digest()
    return np.random.SeedSequence(int.from_bytes(digest, "big"))


def round_deals(
    profile: RuleProfile, n_players: int, deal_seed: np.random.SeedSequence, seat_seed: np.random.SeedSequence
) -> Iterator[tuple[int, RoundState]]:
    """Each round's first player and deal, in order (``game_streams``' first two streams). The
    bots draw from streams of their own, so the deals of a seed do not depend on the play:
    ``rummisim.replay`` deals a logged game's seed again to check its deals."""
    deal_rng = np.random.default_rng(deal_seed)
    seat_rng = np.random.default_rng(seat_seed)
    index = 0
    while True:
        first = choose_first_player(profile, n_players, index, seat_rng)
        yield first, deal(profile, n_players, deal_rng)
        index += 1


def dealt(round_index: int, first: int, state: RoundState) -> ev.Dealt:
    """The event of a round's deal (the pool in draw order: the engine draws from its end)."""
    return ev.Dealt(
        round_index,
        first,
        tuple(tuple(r) for r in state.racks),
        tuple(reversed(state.pool)),
        tuple(state.discard),
    )


# ----- one round -----------------------------------------------------------------------------


class _Round:
    def __init__(
        self,
        profile,
        seats: Seats,
        state,
        first,
        round_index,
        observer,
        log,
        strict,
        on_event=None,
        emit=None,
    ):
        self.profile = profile
        self.bots = seats.bots
        self.names = seats.names
        self.shown = seats.shown
        self.state = state
        self.first = first
        self.round_index = round_index
        self.observer = observer
        self.log = log
        self.on_event = on_event
        self.emit: Callable[[ev.Event], None] | None = emit
        self.strict = strict
        self.turn = 0
        self.faults: list[Fault] = []
        self.timeouts = 0

    # -- helpers --
    def view(self, seat: int, phase: Phase) -> TurnView:
        """What the seat's bot is shown: its own copy of the rules (``seat_bots``) and a copy of
        the table, so that even ``object.__setattr__`` on them cannot reach the engine's."""
        s = self.state
        return TurnView.of(
            self.shown[seat],
            seat,
            phase,
            racks=s.racks,
            table=tuple(Meld(m.tiles, m.faces) for m in s.table),
            opened=s.opened,
            pool_size=len(s.pool),
            discard=s.discard,
            turn=self.turn,
        )

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

    def ask(self, seat: int, phase: Phase, allowed: tuple[type, ...]):
        try:
            action = self.bots[seat].act(self.view(seat, phase))
        except Exception as exc:  # a bot may never crash the game
            if self.strict:
                raise
            self.fault(seat, "bot_error", f"{type(exc).__name__}: {exc}")
            return None
        if not isinstance(action, allowed):
            kinds = "/".join(a.__name__ for a in allowed)
            self.fault(seat, "wrong_action", f"in phase {phase} expected {kinds}, got {excerpt(action)}")
            return None
        own = own_action(action, self.profile.tileset.n_codes)
        if isinstance(own, str):
            self.fault(seat, "wrong_action", f"{own}: {excerpt(action)}")
            return None
        return own

    def draw(self, seat: int, count: int) -> int:
        s = self.state
        drawn: list[int] = []
        while len(drawn) < count and s.pool:
            drawn.append(s.pool.pop())
        s.racks[seat].extend(drawn)
        s.racks[seat].sort()
        if self.emit is not None:
            if drawn:
                self.emit(ev.Drew(self.round_index, self.turn, seat, tuple(drawn)))
            else:
                self.emit(ev.Passed(self.round_index, self.turn, seat))
        return len(drawn)

    def apply_play(self, seat: int, play: Play, phase: Phase = Phase.START, forced: bool = False) -> bool:
        s = self.state
        try:
            check = validate_move(
                self.profile,
                s.table,
                tuple(s.racks[seat]),
                tuple(play.table),
                tuple(play.played),
                opened=s.opened[seat],
            )
        except IllegalMove as exc:
            self.fault(seat, exc.rule, exc.message, play)
            return False
        rack = s.racks[seat]
        for tile in play.played:
            rack.remove(tile)
        s.table = tuple(play.table)
        if check.opening_value is not None:
            s.opened[seat] = True
            s.opened_turn[seat] = self.turn
        if self.emit is not None:
            self.emit(
                ev.Played(
                    self.round_index,
                    self.turn,
                    seat,
                    str(phase),
                    tuple(play.played),
                    s.table,
                    opened=check.opening_value is not None,
                    forced=forced,
                )
            )
        return True

    # -- a turn --
    def play_turn(self, seat: int) -> tuple[bool, list[str], tuple[int, ...]]:
        """Play one turn; return (played something, action words, tiles played)."""
        profile, s = self.profile, self.state
        words: list[str] = []
        played: tuple[int, ...] = ()
        drew = False
        action = self.ask(seat, Phase.START, (Play, Draw, Pass, OutOfBudget))
        if isinstance(action, Pass):  # nobody may skip a turn while the pool has tiles
            action = Draw()
        if isinstance(action, OutOfBudget):
            self.timeouts += 1
            if self.emit is not None:
                self.emit(ev.TimedOut(self.round_index, self.turn, seat))
            if profile.time_limit.on_timeout == "best_found" and action.best is not None:
                action = action.best
            else:
                words.append(f"out of search budget, draws {profile.time_limit.timeout_draw}")
                drew = self.draw(seat, profile.time_limit.timeout_draw) > 0
                action = Pass()
        forced = False
        if isinstance(action, Draw) and profile.turn.must_play_if_able:
            action = self.forced_play(seat, action, words)
            forced = isinstance(action, Play)
        if isinstance(action, Play):
            if self.apply_play(seat, action, Phase.START, forced):
                words.append("plays")
                played = action.played
            else:
                words.append("illegal move, draws instead")
                action = Draw()
        if action is None or isinstance(action, Draw):
            source = action.source if isinstance(action, Draw) else "deck"
            drew = self.take(seat, source, words)
        if drew and profile.turn.play_after_draw and not played and len(s.racks[seat]) > 0:
            after = self.ask(seat, Phase.AFTER_DRAW, (Play, Pass))
            if isinstance(after, Play):
                if self.apply_play(seat, after, Phase.AFTER_DRAW):
                    words.append("plays after drawing")
                    played = after.played
                else:
                    words.append("illegal move after drawing")
        if profile.discard_pile and s.racks[seat] and self.discards(bool(played), drew):
            self.discard(seat, words)
        return bool(played), words, played

    def discards(self, played: bool, drew: bool) -> bool:
        """Does this turn end with a discard? A play always does (002: "fa la sua mossa e
        scarta"); a turn that only drew does under ``turn.discard: every_turn`` (classic
        rummy), not under ``after_play`` (002 as written); a turn that could neither play
        nor draw (empty pool) is a pass, never a discard."""
        return played or (drew and self.profile.turn.discard == "every_turn")

    def forced_play(self, seat: int, action: Draw, words: list[str]) -> Play | Draw:
        """``turn.must_play_if_able``: a draw from a seat that has a legal play is a fault,
        and the engine plays the best play for it so the game goes on (002: "if the player
        cannot combine ... he must draw", so one who can, plays)."""
        s = self.state
        best = legal_play(self.profile, s.racks[seat], s.table, opened=s.opened[seat])
        if not best.is_play:
            return action
        self.fault(seat, "must_play", "drew although a legal play exists; the engine plays it")
        words.append("must play")
        return Play(best.table, best.played)

    def take(self, seat: int, source: str, words: list[str]) -> bool:
        s, profile = self.state, self.profile
        if source == "discard":
            if not profile.discard_pile or not s.discard:
                self.fault(seat, "wrong_action", "there is no discard to take")
                source = "deck"
            else:
                tile = s.discard.pop()
                s.racks[seat].append(tile)
                s.racks[seat].sort()
                words.append("takes the top discard")
                if self.emit is not None:
                    self.emit(ev.TookDiscard(self.round_index, self.turn, seat, tile))
                return True
        if source != "deck":
            self.fault(seat, "wrong_action", f"unknown draw source {source!r}")
        taken = self.draw(seat, profile.turn.draw_count)
        words.append(f"draws {taken}" if taken else "passes (pool empty)")
        return taken > 0

    def discard(self, seat: int, words: list[str]) -> None:
        s = self.state
        action = self.ask(seat, Phase.DISCARD, (Discard,))
        rack = s.racks[seat]
        if action is None or action.tile not in rack:
            if action is not None:
                self.fault(seat, "tile_not_in_rack", f"cannot discard tile {action.tile}")
            tile = rack[-1]
        else:
            tile = action.tile
        rack.remove(tile)
        s.discard.append(tile)
        words.append(f"discards {self.profile.tileset.format_tile(tile)}")
        if self.emit is not None:
            self.emit(ev.Discarded(self.round_index, self.turn, seat, tile))

    # -- the round --
    def play(self) -> tuple[RoundRecord, list[TurnLog]]:
        profile, s = self.profile, self.state
        n = len(s.racks)
        seat = self.first
        passes = 0
        logs: list[TurnLog] = []
        end_reason = None
        emit = self.emit
        if emit is not None:
            emit(dealt(self.round_index, self.first, s))
        while end_reason is None:
            if self.turn >= profile.end.max_turns:
                end_reason = EndReason.TURN_CAP
                break
            self.turn += 1
            pool_was_empty = not s.pool
            if emit is not None:
                rack_before, opened_before = tuple(s.racks[seat]), s.opened[seat]
                units_before = getattr(self.bots[seat], "search_units", None)
            did_play, words, played = self.play_turn(seat)
            if emit is not None:
                units_after = getattr(self.bots[seat], "search_units", None)
                emit(
                    ev.TurnEnded(
                        self.round_index,
                        self.turn,
                        seat,
                        rack_before,
                        opened_before,
                        tuple(words),
                        played,
                        sum(len(m) for m in s.table),
                        len(s.racks[seat]),
                        len(s.pool),
                        None if units_after is None or units_before is None else units_after - units_before,
                    )
                )
            if self.observer is not None:
                self.observer(s, seat)
            if self.log or self.on_event is not None:
                entry = TurnLog(
                    self.round_index,
                    self.turn,
                    seat,
                    tuple(words),
                    played,
                    s.table,
                    tuple(len(r) for r in s.racks),
                    len(s.pool),
                )
                if self.log:
                    logs.append(entry)
                if self.on_event is not None:
                    self.on_event(entry)
            if not s.racks[seat]:
                end_reason = EndReason.OUT
                winner, tied = seat, False
                break
            passes = passes + 1 if (pool_was_empty and not did_play) else 0
            if pool_round_over(profile, passes, len(s.pool), s.racks, s.table, s.opened):
                end_reason = EndReason.POOL_EXHAUSTED
            seat = (seat + 1) % n
        if end_reason != EndReason.OUT:
            winner, tied = self.pool_empty_winner()
        scores, points = score_round(profile, s.racks, winner, end_reason)
        record = RoundRecord(
            round_index=self.round_index,
            first_player=self.first,
            winner=winner,
            tied=tied,
            end_reason=end_reason,
            turns=self.turn,
            scores=scores,
            rack_points=points,
            tiles_left=tuple(len(r) for r in s.racks),
            opened_turn=tuple(s.opened_turn),
            faults=tuple(self.faults),
            timeouts=self.timeouts,
            pool_left=len(s.pool),
        )
        if emit is not None:
            emit(
                ev.RoundEnded(
                    self.round_index,
                    winner,
                    tied,
                    end_reason,
                    self.turn,
                    scores,
                    points,
                    tuple(tuple(r) for r in s.racks),
                )
            )
        return record, logs

    def pool_empty_winner(self) -> tuple[int, bool]:
        return pool_empty_winner(self.profile, self.state.racks, self.first)


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


# ----- a match -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seats:
    """The seats' bots, their names, and the rules each seat's bot is built with and shown in
    every view: the engine's own for a factory that says it is ``trusted`` (the built-in bots,
    ``BotSpec.trusted``), else the seat's own copy, so that a bot that changes its copy, even
    with ``object.__setattr__``, changes no other seat's and not the engine's. (Copies compare
    equal but are other objects, so every cache lookup keyed by them compares the fields:
    the built-in bots, trusted code, skip that.)"""

    bots: list[Player]
    names: list[str]
    shown: list[RuleProfile]


def seat_bots(profile: RuleProfile, bots: Sequence[Seat], bot_seeds) -> Seats:
    """The seats: a built bot plays as it is (named by its ``name``), a factory is called with
    the seat's rules (``Seats``) and a generator from the seat's own seed (named by its
    ``label``). Bot specs (``"greedy"``) are built by ``rummisim.bots.build_lineup`` or the
    public ``rummisim.play_game``, not here: the engine knows no bot by name."""
    built: list[Player] = []
    names: list[str] = []
    shown = [profile if getattr(entry, "trusted", False) else profile.model_copy(deep=True) for entry in bots]
    for seat, (entry, bot_seed) in enumerate(zip(bots, bot_seeds, strict=True)):
        rng = np.random.default_rng(bot_stream(bot_seed))
        if isinstance(entry, Player):  # anything with an act method
            built.append(entry)
            names.append(getattr(entry, "name", type(entry).__name__))
        elif callable(entry) and hasattr(entry, "label"):
            built.append(entry(shown[seat], rng))
            names.append(entry.label)
        else:
            raise TypeError(
                f"seat {seat}: {entry!r} is neither a bot (an act(view) method) nor a bot factory; "
                "build bot specs with rummisim.bots.build_lineup, or call rummisim.play_game"
            )
    return Seats(built, names, shown)


def play_game(
    profile: RuleProfile,
    bots: Sequence[Seat],
    seed: int | np.random.SeedSequence | None,
    *,
    observer: Observer | None = None,
    log: bool = False,
    strict: bool = False,
    on_event: Callable[[TurnLog | RoundRecord], None] | None = None,
    events: Callable[[ev.Event], None] | None = None,
) -> GameRecord:
    """Play one match (one or more rounds, as ``profile.match`` says) and return its record.

    Args:
        profile: the rules.
        bots: one entry per seat: a bot (an ``act(view)`` method) or a ``BotFactory``
            (``rummisim.bots.BotSpec``, from ``build_lineup``-style specs), which gets the
            seat's own generator. ``rummisim.play_game`` also takes bot specs by name.
        seed: an int or ``SeedSequence``; the same seed gives the same record.
        observer: called as ``observer(state, seat)`` after every turn (for tests).
        log: collect a turn-by-turn ``TurnLog`` in the record.
        strict: raise on a bot fault instead of recording it.
        on_event: called with each ``TurnLog`` as the turn ends and each ``RoundRecord`` as
            the round ends (``rummisim play`` streams its text this way).
        events: called with every step of the match as a ``rummisim.events`` record, hidden
            information included (the JSON-lines game log and the per-turn table read it).
    """
    n = len(bots)
    problem = profile.seat_count_problem(n)
    if problem:
        raise ValueError(f"{problem}, got {n} bots")
    deal_seed, seat_seed, bot_seeds = game_streams(seed, n)
    deals = round_deals(profile, n, deal_seed, seat_seed)
    seats = seat_bots(profile, bots, bot_seeds)

    rounds: list[RoundRecord] = []
    logs: list[TurnLog] = []
    totals = [0] * n
    positive = [0] * n  # points won as a round winner (002's "punti positivi")
    capped = False
    while True:
        index = len(rounds)
        first, state = next(deals)
        game_round = _Round(profile, seats, state, first, index, observer, log, strict, on_event, events)
        record, round_log = game_round.play()
        if on_event is not None:
            on_event(record)
        rounds.append(record)
        logs.extend(round_log)
        totals = [t + s for t, s in zip(totals, record.scores, strict=True)]
        positive = [p + max(0, s) for p, s in zip(positive, record.scores, strict=True)]
        over, capped = match_over(profile, len(rounds), totals, positive)
        if over:
            break
    winner, tied = match_winner(profile, totals, positive, [r.winner for r in rounds])
    if events is not None:
        events(ev.GameEnded(tuple(totals), winner, tied, capped, len(rounds)))
    return GameRecord(
        seed=seed if isinstance(seed, int) else None,
        profile=profile.name,
        bots=tuple(seats.names),
        rounds=tuple(rounds),
        scores=tuple(totals),
        winner=winner,
        tied=tied,
        match_capped=capped,
        log=tuple(logs),
    )


def counted(totals: list[int], positive: list[int], profile: RuleProfile) -> list[int]:
    """What decides a points match: under ``match.target_counts: positive`` the points won
    as round winner (002: "quando un giocatore accumula 200 punti positivi o più"), else the
    net totals. Other match ends rank by the net totals."""
    if profile.match.end == "points" and profile.match.target_counts == "positive":
        return positive
    return totals


def match_over(
    profile: RuleProfile, rounds_played: int, totals: list[int], positive: list[int]
) -> tuple[bool, bool]:
    """After a round: whether the match is over, and whether it stopped at ``match.max_rounds``
    before anyone reached ``match.target_points`` (capped). ``totals`` are the net totals,
    ``positive`` the points won as round winner (``rummisim.replay`` asks too)."""
    match = profile.match
    if match.end == "single_round":
        return True, False
    if match.end == "rounds":
        assert match.rounds is not None  # the profile check: end: rounds sets rounds
        return rounds_played >= match.rounds, False
    assert match.target_points is not None  # the profile check: end: points sets target_points
    if max(counted(totals, positive, profile)) >= match.target_points:
        return True, False
    capped = rounds_played >= match.max_rounds
    return capped, capped


def match_winner(
    profile: RuleProfile, totals: list[int], positive: list[int], round_winners: Sequence[int]
) -> tuple[int, bool]:
    """The match's winner (ahead on what the match counts, ``counted``; a tie goes to
    ``_tiebreak``) and whether seats were level."""
    standing = counted(totals, positive, profile)
    best = max(standing)
    leaders = [s for s, t in enumerate(standing) if t == best]
    winner = leaders[0] if len(leaders) == 1 else _tiebreak(leaders, round_winners)
    return winner, len(leaders) > 1


def _tiebreak(leaders: list[int], round_winners: Sequence[int]) -> int:
    """Among seats level on points, the one that won the most rounds, then the lowest seat."""
    wins = {s: sum(1 for w in round_winners if w == s) for s in leaders}
    return max(leaders, key=lambda s: (wins[s], -s))


def play_round(
    profile: RuleProfile,
    bots: Sequence[Seat],
    *,
    racks: Sequence[Sequence[int]],
    pool: Sequence[int],
    first_player: int = 0,
    discard: Sequence[int] = (),
    opened: Sequence[bool] | None = None,
    table: tuple[Meld, ...] = (),
    seed: int = 0,
    observer: Observer | None = None,
    log: bool = False,
    strict: bool = False,
    events: Callable[[ev.Event], None] | None = None,
) -> tuple[RoundRecord, tuple[TurnLog, ...]]:
    """Play one round from a hand-set position (scripted deals for tests and studies).

    ``pool`` is listed in draw order (``pool[0]`` is drawn first); ``discard`` lists
    the discard pile bottom to top. Bot factories get generators from ``seed``.
    """
    seats = seat_bots(profile, bots, np.random.SeedSequence(seed).spawn(len(bots)))
    state = RoundState(profile, list(reversed(pool)), [sorted(r) for r in racks])
    state.discard = list(discard)
    state.table = tuple(table)
    if opened is not None:
        state.opened = list(opened)
    record, logs = _Round(profile, seats, state, first_player, 0, observer, log, strict, emit=events).play()
    return record, tuple(logs)
