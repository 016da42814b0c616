"""Replay checking: a game log re-validated against its profile's rules, trusting nothing in it.

``replay(records)`` takes the records of a log (``(line number, dict)`` pairs, as
``rummisim.gamelog.read_records`` yields them) and rebuilds the game from its deals:

- the deal is the profile's tile set exactly (every rack ``rack_size`` tiles, the discard
  pile's first tile, the pool; tiles conserved), and the first player is the one the
  profile allows (``first_player: rotate``); where the header gives the game's seed, the
  first player, the racks, the discard pile and the pool's order are the ones that seed deals
  (``engine.round_deals``);
- turns come in order, each seat in its turn, and follow the profile's turn flow: one play,
  draw, discard take or pass; a play after drawing only under ``turn.play_after_draw``; a
  discard exactly when the profile asks for one; a pass only on an empty pool; no draw or
  pass while a legal play exists under ``turn.must_play_if_able`` (``rummisim.referee``),
  unless a fault or a timeout came first (the engine's fallbacks);
- every draw is the pool's next tiles when the deal lists the pool's order, or else tiles
  not seen yet (a transcript of a human game), as many as the profile draws;
- every play passes ``rummisim.rules.validate_move`` with the seat's opening state (so an
  opening meets the initial meld's rules), and says so when it opens;
- a fault for an illegal move carries the move, and ``validate_move`` refuses it, under the
  fault's rule, against the table and the rack at that point; a fault without a move is
  allowed only where the engine records none (``engine.MOVELESS_FAULTS``, and a discard of a
  tile the rack does not hold), and cannot be checked: a log does not show what the bot did;
- timeouts are allowed events (after a timeout the seat draws ``time_limit.timeout_draw``
  tiles, or plays under ``on_timeout: best_found``);
- a round ends exactly when the engine's rules end it (an empty rack, the pool-empty rules,
  the turn cap), with the winner, scores and racks ``rummisim.engine`` computes; the match
  ends when its rules say, with the recomputed totals and winner.

The first illegal or inconsistent record raises ``ReplayError`` with its line number.
Pure: the command line reads the file (``rummisim replay``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rummisim import events as ev
from rummisim.contract import Play
from rummisim.engine import MOVELESS_FAULTS, dealt, game_streams, match_over, match_winner, round_deals
from rummisim.gamelog import Header, LogError, describe, from_dict, read_header
from rummisim.profile import RuleProfile
from rummisim.referee import legal_play
from rummisim.round_state import RoundState, score_round
from rummisim.rules import IllegalMove, validate_move
from rummisim.tiles import format_tiles


class ReplayError(LogError):
    """The first record that breaks the rules or contradicts the game so far (``line``: 1-based)."""


@dataclass(frozen=True)
class Summary:
    """What a checked log holds."""

    header: Header
    rounds: int
    turns: int
    plays: int
    faults: int
    timeouts: int
    scores: tuple[int, ...]
    winner: int
    tied: bool
    capped: bool
    pool_order: bool  # every deal listed the pool's order (so every draw was checked against it)


def replay(
    records: Iterable[tuple[int, Mapping[str, Any]]],
    resolve: Callable[[str], RuleProfile] | None = None,
) -> Summary:
    """Check a log from its first record to ``game_end``; ``ReplayError`` at the first problem.

    ``resolve`` loads a profile a hand-written header names instead of listing it in full.
    """
    checker: _Checker | None = None
    last = 0
    for line, record in records:
        last = line
        try:
            if checker is None:
                head = read_header(record, resolve)
                if head.view is not None:
                    raise ReplayError(
                        line,
                        f"this log is seat {head.view}'s view (hidden tiles are counts); "
                        "a replay needs the full log",
                    )
                checker = _Checker(head)
                continue
            checker.step(record)
        except LogError as exc:
            raise ReplayError(line, exc.message) from None
        except IllegalMove as exc:  # pragma: no cover - the checker names the record itself
            raise ReplayError(line, f"{describe(record)}: {exc}") from None
    if checker is None:
        raise ReplayError(max(last, 1), "the log is empty: no header")
    if not checker.done:
        raise ReplayError(last, f"the log ends without game_end ({checker.where()}; a truncated file?)")
    return checker.summary()


def _fail(message: str) -> LogError:
    return LogError(None, message)


class _Checker:
    """The game rebuilt from the log, record by record (the rules' view of it, not the logger's):
    each round is a ``RoundState``, the engine's own state machine, and every record that
    passes its checks is applied through its transitions."""

    state: RoundState

    def __init__(self, head: Header):
        self.head = head
        self.profile = head.profile
        self.ts = head.profile.tileset
        self.n = len(head.bots)
        self.done = False
        self.expect = "deal"  # deal | turn | game_end
        self.round = -1
        self.round_winners: list[int] = []
        self.totals = [0] * self.n
        self.positive = [0] * self.n
        self.capped = False
        self.turns = self.plays = self.faults = self.timeouts = 0
        self.pool_order = True
        self.turn_open = False
        self.t_main: str | None = None  # this turn's action: play | draw | take_discard | pass
        self.t_discarded = False
        self.t_timeout = False
        # a seeded game's deals, dealt again (the bots' streams are separate, see ``round_deals``)
        self.deals = None
        if head.seed is not None:
            deal_seed, seat_seed, _ = game_streams(head.seed, self.n)
            self.deals = round_deals(self.profile, self.n, deal_seed, seat_seed)

    # ----- where we are ---------------------------------------------------------------------

    def where(self) -> str:
        if self.expect == "deal":
            return f"{len(self.round_winners)} round(s) played"
        if self.expect == "game_end":
            return "the match is over"
        return f"round {self.round}, turn {self.state.turn}"

    def fmt(self, tiles: Iterable[int]) -> str:
        return format_tiles(sorted(tiles), self.ts) or "(none)"

    def pool_left(self) -> int:
        return len(self.state.pool)

    def summary(self) -> Summary:
        winner, tied = match_winner(self.profile, self.totals, self.positive, self.round_winners)
        return Summary(
            self.head,
            len(self.round_winners),
            self.turns,
            self.plays,
            self.faults,
            self.timeouts,
            tuple(self.totals),
            winner,
            tied,
            self.capped,
            self.pool_order,
        )

    # ----- dispatch -------------------------------------------------------------------------

    def step(self, record: Mapping[str, Any]) -> None:
        kind = record.get("type")
        what = describe(record)
        if kind == "header":
            raise _fail("a second header")
        if self.done:
            raise _fail(f"{what} after game_end")
        event = from_dict(record, self.profile)
        if isinstance(event, ev.Dealt):
            self.deal(event, record, what)
        elif isinstance(event, ev.RoundEnded):
            self.round_end(event, record, what)
        elif isinstance(event, ev.GameEnded):
            self.game_end(event, record, what)
        else:
            self.turn_event(event, record, what)

    # ----- the deal ---------------------------------------------------------------------------

    def deal(self, event: ev.Dealt, record: Mapping[str, Any], what: str) -> None:
        profile, ts, n = self.profile, self.ts, self.n
        if self.expect == "turn":
            raise _fail(f"{what}: round {self.round} has not ended (no round_end)")
        if self.expect == "game_end":
            raise _fail(f"{what}: the match is over (game_end expected)")
        index = len(self.round_winners)
        if event.round_index != index:
            raise _fail(f"{what}: expected round {index}")
        if not 0 <= event.first_player < n:
            raise _fail(f"{what}: first player {event.first_player} is not a seat 0..{n - 1}")
        if profile.first_player == "rotate" and event.first_player != index % n:
            raise _fail(
                f"{what}: seat {index % n} starts round {index} (first_player: rotate), "
                f"not seat {event.first_player}"
            )
        if len(event.racks) != n:
            raise _fail(f"{what}: {len(event.racks)} racks for {n} seats")
        for seat, rack in enumerate(event.racks):
            if len(rack) != profile.rack_size:
                raise _fail(
                    f"{what}: seat {seat} is dealt {len(rack)} tiles; the profile deals {profile.rack_size}"
                )
        wanted = 1 if profile.discard_pile else 0
        if len(event.discard) != wanted:
            raise _fail(
                f"{what}: the discard pile starts with {len(event.discard)} tile(s); "
                f"the profile turns up {wanted} (discard_pile: {str(profile.discard_pile).lower()})"
            )
        has_pool = record.get("pool") is not None
        dealt = [t for rack in event.racks for t in rack] + list(event.discard)
        held = Counter(dealt + (list(event.pool) if has_pool else []))
        full = Counter(ts.all_tiles())
        over = sorted(code for code in held if held[code] > full[code])
        if over:
            code = over[0]
            raise _fail(
                f"{what}: {held[code]} x {ts.format_tile(code)} in the deal, "
                f"but the tile set has {full[code]} (tiles not conserved)"
            )
        if has_pool and held != full:
            missing = sorted((full - held).elements())
            raise _fail(f"{what}: tiles missing from the deal: {self.fmt(missing)} (tiles not conserved)")
        if self.deals is not None:
            self.seeded_deal(event, has_pool, what)
        self.round = index
        # the pool drawn from its end: in the order dealt when the log lists it, else the tiles
        # not dealt in no order (``draw`` puts the drawn ones on top)
        pool = list(reversed(event.pool)) if has_pool else sorted((full - Counter(dealt)).elements())
        self.has_order = has_pool
        self.pool_order = self.pool_order and has_pool
        racks = [sorted(rack) for rack in event.racks]
        self.state = RoundState(
            profile, pool, racks, discard=event.discard, first=event.first_player, round_index=index
        )
        self.turn_open = False
        self.expect = "turn"

    def seeded_deal(self, event: ev.Dealt, has_pool: bool, what: str) -> None:
        """The deal is the one the header's seed deals (the first player, every rack, the
        discard pile, and the pool's order where the log lists it)."""
        assert self.deals is not None
        first, state = next(self.deals)
        seeded = dealt(event.round_index, first, state)
        seed = self.head.seed
        if event.first_player != first:
            raise _fail(
                f"{what}: seed {seed} has seat {first} start round {event.round_index}, "
                f"not seat {event.first_player}"
            )
        for seat, rack in enumerate(event.racks):
            if sorted(rack) != sorted(seeded.racks[seat]):
                raise _fail(
                    f"{what}: seed {seed} deals seat {seat} {self.fmt(seeded.racks[seat])}, "
                    f"not {self.fmt(rack)} (the deal is not the seed's)"
                )
        if tuple(event.discard) != seeded.discard:
            raise _fail(
                f"{what}: seed {seed} turns up {self.fmt(seeded.discard)} on the discard pile, "
                f"not {self.fmt(event.discard)}"
            )
        if has_pool and tuple(event.pool) != seeded.pool:
            at = next(i for i, (a, b) in enumerate(zip(event.pool, seeded.pool, strict=True)) if a != b)
            raise _fail(
                f"{what}: seed {seed} puts {self.ts.format_tile(seeded.pool[at])} at place {at + 1} "
                f"of the pool, not {self.ts.format_tile(event.pool[at])} (the deal is not the seed's)"
            )

    # ----- turns ----------------------------------------------------------------------------------

    def turn_event(self, event: Any, record: Mapping[str, Any], what: str) -> None:
        if self.expect == "deal":
            raise _fail(f"{what}: no round is being played (deal expected)")
        if self.expect == "game_end":
            raise _fail(f"{what}: the match is over (game_end expected)")
        if event.round_index != self.round:
            raise _fail(f"{what}: round {event.round_index}, but round {self.round} is being played")
        state = self.state
        if not (self.turn_open and event.turn == state.turn):
            self.start_turn(event.turn, event.seat, what)
        elif event.seat != state.seat:
            raise _fail(f"{what}: turn {state.turn} is seat {state.seat}'s")
        if self.t_discarded and not isinstance(event, ev.TurnEnded):
            raise _fail(f"{what}: turn {state.turn} already ended with the discard")
        seat = state.seat
        if isinstance(event, ev.Faulted):
            self.check_fault(seat, event, what)
            self.t_faults.append(event.rule)
            self.faults += 1
        elif isinstance(event, ev.TimedOut):
            if self.t_main is not None or self.t_timeout:
                raise _fail(f"{what}: a timeout comes before the turn's action, once")
            self.t_timeout = True
            self.timeouts += 1
        elif isinstance(event, ev.Drew):
            self.draw(seat, event.tiles, what)
        elif isinstance(event, ev.Passed):
            self.pass_turn(seat, what)
        elif isinstance(event, ev.TookDiscard):
            self.take_discard(seat, event.tile, what)
        elif isinstance(event, ev.Played):
            self.play(seat, event, record, what)
        elif isinstance(event, ev.Discarded):
            self.discard_tile(seat, event.tile, what)
        else:
            self.turn_end(event, record, what)

    def start_turn(self, turn: int, seat: int, what: str) -> None:
        state = self.state
        if self.turn_open:
            self.end_turn()
        if state.ended is not None:
            raise _fail(
                f"{what}: the round is over after turn {state.turn} ({state.ended}); round_end expected"
            )
        if turn != state.turn + 1:
            raise _fail(f"{what}: turn {turn}, but the next turn is {state.turn + 1}")
        expected = (state.seat + 1) % self.n
        if seat != expected:
            raise _fail(f"{what}: turn {turn} is seat {expected}'s")
        state.start_turn()
        self.turns += 1
        self.turn_open = True
        self.t_main = None
        self.t_timeout = False
        self.t_faults: list[str] = []
        self.t_discarded = False

    def check_fault(self, seat: int, event: ev.Faulted, what: str) -> None:
        """A fault excuses a draw under ``turn.must_play_if_able`` (``must_play_check``), so it is
        checked where the log lets it be: an illegal move's fault carries the move, and the
        rules must refuse that move now (this table, this rack, the seat's opening state) under
        the fault's own rule. A fault without a move is one the engine records without one
        (``MOVELESS_FAULTS``, or the discard of a tile the rack does not hold, after the turn's
        action); its word is taken. Any other fault without its move (a log written before
        faults carried it, or a forged one) cannot be checked, and is refused."""
        state = self.state
        where = f"{what} (round {self.round}, turn {state.turn})"
        if event.played is None or event.table is None:
            if event.rule in MOVELESS_FAULTS:
                return
            if event.rule == "tile_not_in_rack" and self.profile.discard_pile and self.t_main is not None:
                return  # the discard phase: a discard of a tile the rack does not hold
            raise _fail(
                f"{where}: the fault under rule {event.rule!r} records no move ('tiles' and 'table'), "
                f"so it cannot be checked (only the faults {', '.join(sorted(MOVELESS_FAULTS))} carry none)"
            )
        try:
            validate_move(
                self.profile,
                state.table,
                tuple(state.racks[seat]),
                event.table,
                event.played,
                opened=state.opened[seat],
            )
        except IllegalMove as exc:
            if exc.rule != event.rule:
                raise _fail(
                    f"{where}: the rules refuse the recorded move under {exc.rule!r} ({exc.message}), "
                    f"not under the fault's rule {event.rule!r}"
                ) from None
            return
        raise _fail(
            f"{where}: the recorded move {self.fmt(event.played)} is legal, "
            f"so it is no fault under {event.rule!r}"
        )

    def must_play_check(self, seat: int, what: str) -> None:
        """Under ``turn.must_play_if_able`` a seat with a legal play may not draw or pass (the
        engine's fallbacks after a fault or a timeout draw without asking). A ``must_play``
        fault excuses nothing: the engine records it for such a draw and then plays for the
        seat, so a draw after it is the very draw the rule forbids."""
        excused = any(rule != "must_play" for rule in self.t_faults)
        if not self.profile.turn.must_play_if_able or excused or self.t_timeout:
            return
        state = self.state
        best = legal_play(self.profile, state.racks[seat], state.table, opened=state.opened[seat])
        if best.is_play:
            raise _fail(
                f"{what}: the seat can play ({self.fmt(best.played)}) and must (turn.must_play_if_able)"
            )

    def main_action(self, what: str, action: str) -> None:
        if self.t_main is not None:
            raise _fail(f"{what}: the seat already chose its action this turn ({self.t_main})")
        self.t_main = action

    def draw(self, seat: int, tiles: tuple[int, ...], what: str) -> None:
        self.main_action(what, "draw")
        limit = self.profile.time_limit
        rule, count = "turn.draw_count", self.profile.turn.draw_count
        if self.t_timeout:  # the timeout's draw; under best_found an illegal best play is a fault,
            # and then the seat draws as any seat whose play failed
            rule, count = "time_limit.timeout_draw", limit.timeout_draw
        fallback = self.t_timeout and limit.on_timeout == "best_found" and bool(self.t_faults)
        due = min(count, self.pool_left())
        if fallback and len(tiles) == min(self.profile.turn.draw_count, self.pool_left()):
            due = len(tiles)
        if due == 0:
            raise _fail(f"{what}: nothing to draw (pool {self.pool_left()}); the turn is a pass")
        if len(tiles) != due:
            raise _fail(f"{what}: drew {len(tiles)} tile(s); the profile draws {due} ({rule}: {count})")
        self.must_play_check(seat, what)
        pool = self.state.pool
        if self.has_order:
            nxt = list(reversed(pool[len(pool) - due :]))
            if list(tiles) != nxt:
                raise _fail(
                    f"{what}: drew {format_tiles(tiles, self.ts)}, but the pool's next tile(s) are "
                    f"{format_tiles(nxt, self.ts)}"
                )
        else:  # the pool's order is unknown: the tiles drawn were the ones on top
            held = Counter(pool)
            for code, k in Counter(tiles).items():
                if held[code] < k:
                    name = self.ts.format_tile(code)
                    raise _fail(f"{what}: {name} is not in the pool (every copy is seen)")
            for tile in tiles:
                pool.remove(tile)
            pool.extend(reversed(tiles))
        self.state.draw(seat, due)
        self.state.turn_drew = True

    def pass_turn(self, seat: int, what: str) -> None:
        self.main_action(what, "pass")
        if self.pool_left() and not (self.t_timeout and self.profile.time_limit.timeout_draw == 0):
            raise _fail(f"{what}: the pool has {self.pool_left()} tile(s); a seat that does not play draws")
        self.must_play_check(seat, what)

    def take_discard(self, seat: int, tile: int, what: str) -> None:
        if not self.profile.discard_pile:
            raise _fail(f"{what}: the profile has no discard pile")
        self.main_action(what, "take_discard")
        if self.t_timeout:
            raise _fail(f"{what}: after a timeout the seat draws from the pool (time_limit.timeout_draw)")
        discard = self.state.discard
        if not discard:
            raise _fail(f"{what}: the discard pile is empty")
        if discard[-1] != tile:
            raise _fail(
                f"{what}: took {self.ts.format_tile(tile)}, but the top discard is "
                f"{self.ts.format_tile(discard[-1])}"
            )
        self.must_play_check(seat, what)
        self.state.take_discard(seat)
        self.state.turn_drew = True

    def play(self, seat: int, event: ev.Played, record: Mapping[str, Any], what: str) -> None:
        profile, state = self.profile, self.state
        if self.t_main is None:
            phase = "start"
            if self.t_timeout and profile.time_limit.on_timeout == "penalty":
                raise _fail(
                    f"{what}: after a timeout the seat draws (time_limit.on_timeout: penalty), "
                    "it does not play"
                )
            self.t_main = "play"
        elif self.t_main in ("draw", "take_discard") and not state.turn_played:
            phase = "after_draw"
            if not state.may_play_after_draw():
                raise _fail(
                    f"{what}: a seat that drew may not play in the same turn (turn.play_after_draw: false)"
                )
        else:
            raise _fail(f"{what}: the seat already chose its action this turn ({self.t_main})")
        if "phase" in record and event.phase != phase:
            raise _fail(f"{what}: phase {event.phase!r}, but this play is in phase {phase!r}")
        if event.forced and not profile.turn.must_play_if_able:
            raise _fail(f"{what}: a forced play under a profile without turn.must_play_if_able")
        try:
            opens = state.place(seat, Play(event.table, event.played))
        except IllegalMove as exc:
            raise _fail(f"{what}: {exc.message} ({exc.rule})") from None
        if "opened" in record and event.opened != opens:
            verb = "is" if opens else "is not"
            raise _fail(
                f"{what}: 'opened' is {str(event.opened).lower()}, "
                f"but the play {verb} the seat's initial meld"
            )
        state.turn_played = event.played
        self.plays += 1

    def discard_tile(self, seat: int, tile: int, what: str) -> None:
        if not self.profile.discard_pile:
            raise _fail(f"{what}: the profile has no discard pile")
        if self.t_main is None:
            raise _fail(f"{what}: a discard ends a turn; it comes after the play or draw")
        if not self.state.discard_due():
            why = "a pass" if self.t_main == "pass" else "a turn that only draws (turn.discard: after_play)"
            raise _fail(f"{what}: {why} ends without a discard")
        if tile not in self.state.racks[seat]:
            raise _fail(f"{what}: {self.ts.format_tile(tile)} is not in the rack")
        self.state.discard_tile(seat, tile)
        self.t_discarded = True

    def turn_end(self, event: ev.TurnEnded, record: Mapping[str, Any], what: str) -> None:
        """The logger's summary of the turn must agree with the turn replayed."""
        state = self.state
        seat = state.seat
        if sorted(event.rack_before) != sorted(state.turn_rack_before):
            raise _fail(
                f"{what}: rack_before {self.fmt(event.rack_before)}, "
                f"but the rack was {self.fmt(state.turn_rack_before)}"
            )
        if "opened_before" in record and event.opened_before != state.turn_opened_before:
            raise _fail(f"{what}: 'opened_before' disagrees with the plays replayed")
        if Counter(event.played) != Counter(state.turn_played):
            raise _fail(
                f"{what}: played {self.fmt(event.played)}, but the turn played {self.fmt(state.turn_played)}"
            )
        for key, value, real in (
            ("rack_after", event.rack_after, len(state.racks[seat])),
            ("pool_size", event.pool_size, self.pool_left()),
            ("table_tiles", event.table_tiles, sum(len(m) for m in state.table)),
        ):
            if value != real:
                raise _fail(f"{what}: {key} {value}, but it is {real}")
        self.end_turn()

    def end_turn(self) -> None:
        """Close the open turn: it had its action (and its discard when one is due); then does
        the round end here, by the engine's rules?"""
        state = self.state
        seat, rack = state.seat, state.racks[state.seat]
        where = f"turn {state.turn} (seat {seat})"
        if self.t_main is None:
            raise _fail(f"{where} ended without a play, a draw or a pass")
        if self.profile.discard_pile and rack and state.discard_due() and not self.t_discarded:
            raise _fail(
                f"{where} ended without the discard the profile asks for "
                f"(turn.discard: {self.profile.turn.discard})"
            )
        self.turn_open = False
        state.end_turn()

    # ----- ends ------------------------------------------------------------------------------------

    def round_end(self, event: ev.RoundEnded, record: Mapping[str, Any], what: str) -> None:
        profile = self.profile
        if self.expect != "turn":
            raise _fail(f"{what}: no round is being played")
        if event.round_index != self.round:
            raise _fail(f"{what}: round {self.round} is being played")
        if self.turn_open:
            self.end_turn()
        state = self.state
        if state.ended is None:
            raise _fail(
                f"{what}: after turn {state.turn} the round goes on (no rack is empty, "
                f"{self.pool_left()} tile(s) in the pool, "
                f"{state.passes} turn(s) in a row without a play on an empty pool)"
            )
        winner, tied = state.result()
        if event.end_reason != state.ended:
            raise _fail(
                f"{what}: reason {str(event.end_reason)!r}, but the round ended by {str(state.ended)!r}"
            )
        if event.winner != winner:
            raise _fail(f"{what}: winner seat {event.winner}, but seat {winner} wins")
        if "tied" in record and event.tied != tied:
            raise _fail(f"{what}: 'tied' is {str(event.tied).lower()}, but it is {str(tied).lower()}")
        if "turns" in record and event.turns != state.turn:
            raise _fail(f"{what}: {event.turns} turns, but the round had {state.turn}")
        if "racks" in record:
            if len(event.racks) != self.n:
                raise _fail(f"{what}: {len(event.racks)} racks for {self.n} seats")
            for seat, (listed, held) in enumerate(zip(event.racks, state.racks, strict=True)):
                if sorted(listed) != sorted(held):
                    raise _fail(
                        f"{what}: seat {seat}'s rack is listed as {self.fmt(listed)}, "
                        f"but it holds {self.fmt(held)}"
                    )
        scores, points = score_round(profile, state.racks, winner, state.ended)
        if list(event.scores) != list(scores):
            raise _fail(f"{what}: scores {list(event.scores)}, but the rules score {list(scores)}")
        if "rack_points" in record and list(event.rack_points) != list(points):
            raise _fail(
                f"{what}: rack_points {list(event.rack_points)}, but the racks are worth {list(points)}"
            )
        self.round_winners.append(winner)
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        self.positive = [p + max(0, s) for p, s in zip(self.positive, scores, strict=True)]
        over, self.capped = match_over(profile, len(self.round_winners), self.totals, self.positive)
        self.expect = "game_end" if over else "deal"

    def game_end(self, event: ev.GameEnded, record: Mapping[str, Any], what: str) -> None:
        if self.expect == "turn":
            raise _fail(f"{what}: round {self.round} has not ended (no round_end)")
        if self.expect == "deal":
            played = len(self.round_winners)
            raise _fail(f"{what}: after {played} round(s) the match goes on ({self.match_rule()})")
        if "rounds" in record and event.rounds != len(self.round_winners):
            raise _fail(f"{what}: {event.rounds} rounds, but {len(self.round_winners)} were played")
        if list(event.scores) != self.totals:
            raise _fail(f"{what}: scores {list(event.scores)}, but the rounds add up to {self.totals}")
        winner, tied = match_winner(self.profile, self.totals, self.positive, self.round_winners)
        if event.winner != winner:
            raise _fail(f"{what}: winner seat {event.winner}, but seat {winner} wins the match")
        if "tied" in record and event.tied != tied:
            raise _fail(f"{what}: 'tied' is {str(event.tied).lower()}, but it is {str(tied).lower()}")
        if "capped" in record and event.match_capped != self.capped:
            raise _fail(
                f"{what}: 'capped' is {str(event.match_capped).lower()}, but it is {str(self.capped).lower()}"
            )
        self.done = True

    def match_rule(self) -> str:
        match = self.profile.match
        if match.end == "rounds":
            return f"match.rounds: {match.rounds}"
        return f"match.target_points: {match.target_points}, counting {match.target_counts} points"


__all__ = ["ReplayError", "Summary", "replay"]
