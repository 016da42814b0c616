"""Game flow: the seeded deal, turns, end of round, scoring, and matches of rounds.

``play_game(profile, bots, seed)`` plays one match and returns a ``GameRecord``.
The game's ``numpy.random.SeedSequence`` spawns independent streams for the
deal, for choosing the first player, and for each seat's bot, so the same seed
gives the same deal under every profile that shares a tile set (common random
numbers) and the same record every time. Each seat is a built bot or a factory
(``rummisim.contract.BotFactory``) that the engine calls with the seat's
generator; the engine knows bots only through ``rummisim.contract`` and never
imports ``rummisim.bots`` (``rummisim.play_game`` reads bot specs by name).

The round is a ``rummisim.round_state.RoundState``: the turn flow (play, draw or take the top
discard, play after drawing, the discard, must-play, timeouts, a pass on an empty pool) and the
end of a round (going out, the pool-empty rules of ``end.when_pool_empty``, the winner by
``end.pool_empty_winner``, ``end.max_turns`` recorded as ``turn_cap``) are written there once,
for the engine, ``rummisim.replay`` and the lookahead bot's rollouts. The engine asks each
seat's bot for the action of the state's phase and hands the answer to the state.

A points match ends when a seat reaches ``match.target_points``: counting the
points won as round winner (``match.target_counts: positive``, 002's "punti
positivi") or the net totals (``net``); the record's ``scores`` are always the
net totals, and the winner is the seat ahead on what the match counts.

A bot that raises, returns the wrong kind of action or proposes an illegal move
never corrupts the game: a fault is recorded and the bot draws instead
(``strict=True`` re-raises, for tests). The fault event of an illegal move carries
the move (``events.Faulted``), so a replay can check that the rules refuse it; the
faults of ``MOVELESS_FAULTS`` carry none. The engine does no I/O: it reports a game
only as its stream of events (``events=``, ``rummisim.events``), which every view of a game
reads (``rummisim.transcript``, ``rummisim.gamelog``, ``rummisim.runner.turns``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from rummisim import events as ev
from rummisim.answers import own_action
from rummisim.contract import (
    BotFactory,
    Phase,
    Player,
)
from rummisim.contract import TurnView as TurnView  # re-exported: the view a bot gets, by its old address
from rummisim.melds import Meld
from rummisim.profile import RuleProfile
from rummisim.round_state import Fault, RoundRecord, RoundState
from rummisim.schema import EndReason
from rummisim.transcript import Transcript, TurnLog, fan_out
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


# ----- deal and seating -------------------------------------------------------------------


def deal(
    profile: RuleProfile, n_players: int, rng: np.random.Generator, *, first: int = 0, round_index: int = 0
) -> RoundState:
    """Shuffle the full tile set and deal ``rack_size`` tiles to each seat (and, with the discard
    pile, turn up the pool's last tile); ``first`` begins round ``round_index``."""
    tiles = np.array(profile.tileset.all_tiles(), dtype=np.int64)
    order = rng.permutation(tiles).tolist()
    size = profile.rack_size
    racks = [sorted(order[i * size : (i + 1) * size]) for i in range(n_players)]
    pool = order[n_players * size :]
    discard = [pool.pop()] if profile.discard_pile else []
    return RoundState(profile, pool, racks, discard=discard, first=first, round_index=round_index)


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
        yield first, deal(profile, n_players, deal_rng, first=first, round_index=index)
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
    """A round played by the seats' bots: each is asked for the action of the state's phase,
    and ``RoundState`` carries it out."""

    def __init__(self, seats: Seats, state: RoundState):
        self.bots = seats.bots
        self.shown = seats.shown
        self.state = state

    def ask(self, seat: int, phase: Phase):
        """The seat's answer, a copy of its own (``answers.own_action``), or None after a fault."""
        state = self.state
        allowed = state.legal_answers()
        try:
            action = self.bots[seat].act(state.view(seat, phase, self.shown[seat]))
        except Exception as exc:  # a bot may never crash the game
            if state.strict:
                raise
            state.fault(seat, "bot_error", f"{type(exc).__name__}: {exc}")
            return None
        if not isinstance(action, allowed):
            kinds = "/".join(a.__name__ for a in allowed)
            state.fault(seat, "wrong_action", f"in phase {phase} expected {kinds}, got {excerpt(action)}")
            return None
        own = own_action(action, state.profile.tileset.n_codes)
        if isinstance(own, str):
            state.fault(seat, "wrong_action", f"{own}: {excerpt(action)}")
            return None
        return own

    def play(self) -> RoundRecord:
        """Play the round to its end; its record (every step to ``state.emit`` on the way)."""
        s = self.state
        emit = s.emit
        if emit is not None:
            emit(dealt(s.round_index, s.first, s))
        while s.ended is None:
            seat = s.start_turn()
            if emit is not None:
                units_before = getattr(self.bots[seat], "search_units", None)
            while s.phase is not None:
                s.apply(self.ask(seat, s.phase))
            if emit is not None:
                units_after = getattr(self.bots[seat], "search_units", None)
                emit(
                    ev.TurnEnded(
                        s.round_index,
                        s.turn,
                        seat,
                        s.turn_rack_before,
                        s.turn_opened_before,
                        tuple(s.words or ()),
                        s.turn_played,
                        sum(len(m) for m in s.table),
                        len(s.racks[seat]),
                        len(s.pool),
                        None if units_after is None or units_before is None else units_after - units_before,
                    )
                )
            s.end_turn()
        record = s.record()
        if emit is not None:
            emit(
                ev.RoundEnded(
                    record.round_index,
                    record.winner,
                    record.tied,
                    record.end_reason,
                    record.turns,
                    record.scores,
                    record.rack_points,
                    tuple(tuple(r) for r in s.racks),
                )
            )
        return record


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
    strict: bool = False,
    events: Callable[[ev.Event], None] | None = None,
) -> GameRecord:
    """Play one match (one or more rounds, as ``profile.match`` says) and return its record.

    Args:
        profile: the rules.
        bots: one entry per seat: a bot (an ``act(view)`` method) or a ``BotFactory``
            (``rummisim.bots.BotSpec``, from ``build_lineup``-style specs), which gets the
            seat's own generator. ``rummisim.play_game`` also takes bot specs by name.
        seed: an int or ``SeedSequence``; the same seed gives the same record.
        strict: raise on a bot fault instead of recording it.
        events: called with every step of the match as a ``rummisim.events`` record, hidden
            information included: the one stream every view of a game reads (the JSON-lines
            game log, the per-turn table, the text of ``rummisim play`` and the position after
            each turn through ``rummisim.transcript.Transcript``). Without it the engine builds
            no events.
    """
    n = len(bots)
    problem = profile.seat_count_problem(n)
    if problem:
        raise ValueError(f"{problem}, got {n} bots")
    deal_seed, seat_seed, bot_seeds = game_streams(seed, n)
    deals = round_deals(profile, n, deal_seed, seat_seed)
    seats = seat_bots(profile, bots, bot_seeds)

    rounds: list[RoundRecord] = []
    totals = [0] * n
    positive = [0] * n  # points won as a round winner (002's "punti positivi")
    capped = False
    while True:
        _, state = next(deals)
        state.listen(events, strict=strict)
        record = _Round(seats, state).play()
        rounds.append(record)
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
    strict: bool = False,
    events: Callable[[ev.Event], None] | None = None,
) -> tuple[RoundRecord, tuple[TurnLog, ...]]:
    """Play one round from a hand-set position (scripted deals for tests and studies); its record
    and its turns as the text log has them (a ``Transcript`` of the round's events, which also
    go to ``events``).

    ``pool`` is listed in draw order (``pool[0]`` is drawn first); ``discard`` lists
    the discard pile bottom to top. Bot factories get generators from ``seed``.
    """
    seats = seat_bots(profile, bots, np.random.SeedSequence(seed).spawn(len(bots)))
    state = RoundState(
        profile,
        list(reversed(pool)),
        [sorted(r) for r in racks],
        discard=discard,
        table=table,
        opened=opened,
        first=first_player,
        strict=strict,
    )
    transcript = Transcript(profile, table=table, opened=opened)
    state.listen(transcript if events is None else fan_out(transcript, events), strict=strict)
    record = _Round(seats, state).play()
    return record, tuple(transcript.turns)
