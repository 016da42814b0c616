"""The lookahead bot: determinized Monte-Carlo search over a few candidate moves.

At the start of a turn with more than one sensible move, ``lookahead`` lists its
candidates (its holding play: what ``conservative`` would make, one tile at a time with
``trickle``; the play with the most tiles, the play with the most points, the best play
without jokers, the draw),
drops duplicates, and scores each one by Monte-Carlo rollouts over
*determinizations*: the tiles it cannot see (the full tile set less its rack, the
table and the top discard) are shuffled, from its own generator, into the other
racks (their sizes are public) and the pool (its size is public; what is left
over is the buried discard pile). Each candidate is applied in each
determinization and the round is played on for ``depth`` turns by a fast policy
(another bot, ``rollout``) at every other seat and its own way of holding at its own
seat (``own_rollout``); the result is scored as a win (1) or a loss (0) if the round
ended, else by a soft estimate of the chance to win from the tiles each rack could not
play on the table now (``evaluation: stuck``; or the rack sizes, or points). The
candidate with the best mean wins if it beats the holding play's by more than
``margin``; every candidate sees the same determinizations (common random numbers), and
ties go to the holding play. The rollouts' searches never call the integer program
(``solve(exact=False)``); the bot's own moves are searched exactly.

The bot sees only its ``TurnView``: each determinization is a ``RoundState`` dealt from the
view (``RoundState.from_view``), and every candidate's rollout steps a ``copy()`` of it by the
round's own turn flow (``rummisim.round_state``), asking the policy bots through the same
contract; the engine's state is never seen. After drawing and when discarding it plays like
``conservative`` (``rummisim.bots.conservative``), which it extends.

Search budget: the candidate searches are the bot's move search and keep the
profile's ``time_limit.search_budget`` semantics (``rummisim.bots.search``:
a search cut short answers ``OutOfBudget``). The rollouts are the bot's own
thinking, bounded by its ``budget`` parameter (solver units per decision; it stops
after the first sample that reaches it), and each rollout turn of a policy bot
has the profile's per-turn budget, as in a real game. Every unit, the rollouts'
included, is counted in ``search_units``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import BaseModel, Field, field_validator

from rummisim.bots.base import Bot, NoParams
from rummisim.bots.baseline import BaselineBot
from rummisim.bots.beginner import BeginnerBot
from rummisim.bots.conservative import ConservativeBot, ConservativeParams
from rummisim.bots.greedy import GreedyBot
from rummisim.bots.search import SearchBot, solve
from rummisim.bots.value import ValueBot
from rummisim.contract import Action, Discard, Draw, OutOfBudget, Phase, Play, TurnView
from rummisim.melds import Meld, rack_penalty
from rummisim.profile import RuleProfile
from rummisim.round_state import RoundState
from rummisim.validation import StrictModel

if TYPE_CHECKING:
    from rummisim.solver import Solution

CandidateKind = Literal["tiles", "value", "no_jokers", "draw"]
CANDIDATE_KINDS: tuple[str, ...] = ("tiles", "value", "no_jokers", "draw")
ROLLOUT_POLICIES: dict[str, type[Bot]] = {
    "greedy": GreedyBot,
    "conservative": ConservativeBot,
    "value": ValueBot,
    "beginner": BeginnerBot,
    "baseline": BaselineBot,
}


class LookaheadParams(StrictModel):
    """Parameters of ``lookahead`` (``{name: lookahead, params: {...}}``)."""

    samples: int = Field(default=6, ge=1, le=4096)
    depth: int = Field(default=30, ge=0, le=1000)
    rollout: Literal["greedy", "conservative", "value", "beginner", "baseline"] = "conservative"
    candidates: tuple[CandidateKind, ...] = ("tiles", "value", "no_jokers", "draw")
    evaluation: Literal["stuck", "tiles", "points"] = "stuck"
    sharpness: float = Field(default=0.5, gt=0, le=100)
    budget: int | None = Field(default=None, ge=1)
    search_below: int = Field(default=6, ge=0)
    margin: float = Field(default=0.05, ge=0, le=1)
    trickle: bool = True
    own_rollout: Literal["hold", "rollout"] = "hold"

    @field_validator("candidates", mode="before")
    @classmethod
    def _candidate_list(cls, value: object) -> object:
        """A YAML list or a ``+``-separated string (``tiles+draw``, for ``NAME(key=value)``)."""
        if isinstance(value, str):
            value = [part.strip() for part in value.split("+") if part.strip()]
        if isinstance(value, list):
            value = tuple(value)
        if isinstance(value, tuple) and not value:
            raise ValueError("needs at least one candidate kind")
        return value


@dataclass(frozen=True, slots=True)
class Candidate:
    """A move to try at the start of a turn: a play (with the tile to discard after it, with
    a discard pile) or a draw."""

    kind: str
    action: Play | Draw
    discard: int | None = None


class LookaheadBot(ConservativeBot):
    """Tries its candidate moves in sampled deals of the hidden tiles, plays the best on average.

    Parameters (see the module docstring for the method):

    - ``samples`` (default 6): determinizations of the hidden tiles per decision.
    - ``depth`` (default 30): turns (of all seats) played out after the candidate; the
      rollout stops earlier when the round ends.
    - ``rollout`` (default ``conservative``): the policy every seat plays in the rollouts
      (``greedy``, ``conservative``, ``value``, ``beginner`` or ``baseline``).
    - ``candidates`` (default all): the kinds of move tried besides the holding play
      ``conservative`` would make: ``tiles`` (most tiles), ``value`` (most points),
      ``no_jokers`` (most tiles, jokers kept), ``draw``; a YAML list or ``tiles+draw``.
    - ``trickle`` (default true): it holds like ``conservative(trickle=true)``: once it has
      opened it lays one tile a turn and keeps the rest of its play.
    - ``own_rollout`` (default ``hold``): its own seat in the rollouts plays its holding
      policy (``hold``) or the ``rollout`` bot (``rollout``).
    - ``evaluation`` (default ``stuck``): the score of a round not yet over, each seat's
      share of ``exp(-sharpness * x)`` with ``x`` the tiles of its rack that its best play
      could not place on the table now (``stuck``: one search per seat), its rack size
      (``tiles``) or its rack points / 10 (``points``); a round over scores 1 for a win,
      0 for a loss.
    - ``sharpness`` (default 0.5): see ``evaluation``.
    - ``budget`` (default none): solver units the rollouts may spend per decision (it
      stops after the first sample that reaches it).
    - ``margin`` (default 0.05): another candidate replaces the holding play only when its
      mean score is higher by more than this.
    - ``search_below`` (default 6; 0: always): run rollouts only once some rack (its own
      included) holds at most this many tiles; before that it plays the holding play. The
      defaults search the end of a round, where most rollouts reach the round's end.

    A turn with one candidate (often: no opening yet, so only the draw) costs no
    rollouts. Deterministic given its seat's generator.
    """

    name = "lookahead"
    Params = LookaheadParams  # type: ignore[assignment]
    params: LookaheadParams  # type: ignore[assignment]

    def __init__(self, profile: RuleProfile, rng: np.random.Generator, params: BaseModel):
        SearchBot.__init__(self, profile, rng, params)
        # it holds like ``conservative`` (used for after_draw, discard, the default), trickling
        # one tile at a time with ``trickle``
        self.hold_params = ConservativeParams(trickle=self.params.trickle)
        self.opening_profile = profile
        policy = ROLLOUT_POLICIES[self.params.rollout]
        policy_params = ConservativeParams() if policy is ConservativeBot else NoParams()
        seeds = np.random.SeedSequence(int(rng.integers(2**63))).spawn(profile.players.max + 1)
        self.policies = [policy(profile, np.random.default_rng(s), policy_params) for s in seeds[1:]]
        # its own seat in the rollouts: the way it holds (``own_rollout: hold``), or ``rollout``
        self.own_policy: Bot = ConservativeBot(profile, np.random.default_rng(seeds[0]), self.hold_params)
        # a rollout's moves need not be proven best: no integer program (where the DP's
        # joker-host search runs past its limits, the best play it found); its own stay exact
        for bot in (*self.policies, self.own_policy):
            if isinstance(bot, SearchBot):
                bot.exact = False
        self.rollout_units = 0  # the rollouts' and their evaluation's solver units (also in search_units)
        self.decisions = 0  # start-phase decisions that ran rollouts
        self.chosen: Counter[str] = Counter()  # the kinds those decisions chose

    # ``ConservativeBot`` reads its own parameters from ``self.params``; lookahead holds with
    # conservative's defaults
    def hold_or_play(self, view: TurnView) -> Solution | None:
        own, self.params = self.params, self.hold_params  # type: ignore[assignment]
        try:
            return super().hold_or_play(view)
        finally:
            self.params = own

    def holds_jokers(self, view: TurnView) -> bool:
        return self.profile.tileset.joker in view.rack

    # ----- the turn -----------------------------------------------------------------------

    def act(self, view: TurnView) -> Action:
        if view.phase != Phase.START:
            return super().act(view)
        self.start_turn()
        candidates = self.candidates(view)
        if self._out_of_budget:
            first = candidates[0].action
            return OutOfBudget(best=first if isinstance(first, Play) else None)
        if len(candidates) == 1 or not self.searching(view):
            chosen = candidates[0]
        else:
            chosen = self.best_candidate(view, candidates)
        self._planned_discard = chosen.discard
        return chosen.action

    def candidates(self, view: TurnView) -> list[Candidate]:
        """The moves to compare, the holding play (or draw) first, without duplicates."""
        found: list[Candidate] = []
        hold = self.choose(view)
        self._add(found, "hold", hold)
        if not found and not self._out_of_budget:  # conservative would draw: that is the hold
            source = "discard" if self.wants_discard_top(view) else "deck"
            self._planned_discard = None
            found.append(Candidate("hold", Draw(source)))
        for kind in self.params.candidates:
            if self._out_of_budget:
                break
            if kind == "tiles":
                self._add(found, kind, self.search(view, view.rack, "tiles"))
            elif kind == "value":
                self._add(found, kind, self.search(view, view.rack, "value"))
            elif kind == "no_jokers" and self.profile.tileset.joker in view.rack:
                joker = self.profile.tileset.joker
                self._add(found, kind, self.search(view, [t for t in view.rack if t != joker], "tiles"))
        can_play = any(isinstance(c.action, Play) for c in found)
        drawing = any(isinstance(c.action, Draw) for c in found)
        draw_allowed = not (self.profile.turn.must_play_if_able and can_play) and not drawing
        if (not found or "draw" in self.params.candidates) and draw_allowed:
            source = "discard" if self.wants_discard_top(view) else "deck"
            self._planned_discard = None
            found.append(Candidate("draw", Draw(source)))
        if self.profile.turn.must_play_if_able and can_play:  # a draw would be a fault
            found = [c for c in found if isinstance(c.action, Play)]
        if not found:  # must play, and the holding search found nothing (budget): the forced play
            forced = self.draw_unless_forced(view)
            found.append(Candidate("forced", forced if isinstance(forced, Play) else Draw()))
        return found

    def _add(self, found: list[Candidate], kind: str, solution: Solution | None) -> None:
        discard, self._planned_discard = self._planned_discard, None
        if solution is None or not solution.is_play:
            return
        played = tuple(sorted(solution.played))
        if any(isinstance(c.action, Play) and tuple(sorted(c.action.played)) == played for c in found):
            return
        found.append(Candidate(kind, Play(solution.table, solution.played), discard))

    # ----- the search ------------------------------------------------------------------------

    def searching(self, view: TurnView) -> bool:
        """Run rollouts now? Always with ``search_below: 0``, else once some rack (its own
        included) holds at most ``search_below`` tiles."""
        limit = self.params.search_below
        return limit == 0 or min(view.rack_sizes) <= limit

    def best_candidate(self, view: TurnView, candidates: Sequence[Candidate]) -> Candidate:
        """The candidate with the best mean rollout score (ties: the earlier one)."""
        params = self.params
        totals = [0.0] * len(candidates)
        samples = 0
        start = self.rollout_units  # the ``stuck`` evaluation charges its searches here too
        hidden = hidden_tiles(view)
        policies = list(self.policies)
        if params.own_rollout == "hold":
            policies[view.seat] = self.own_policy
        for _ in range(params.samples):
            samples += 1
            deal = self.rng.permutation(np.asarray(hidden, dtype=np.int64)).tolist()
            dealt = RoundState.from_view(view, deal)
            for index, candidate in enumerate(candidates):
                rollout = _Rollout(dealt, policies)
                totals[index] += rollout.run(candidate, params.depth, self.evaluate)
                self.rollout_units += rollout.units
            if params.budget is not None and self.rollout_units - start >= params.budget:
                break
        self.search_units += self.rollout_units - start
        self.decisions += 1
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        if totals[best] - totals[0] <= params.margin * samples:
            best = 0  # the holding play stands unless another is better by ``margin``
        self.chosen[candidates[best].kind] += 1
        return candidates[best]

    def _playable(self, rack: Sequence[int], table: tuple[Meld, ...], opened: bool) -> int:
        """Tiles of ``rack`` the best play places on ``table`` now (a fast search, not proven)."""
        if not rack:
            return 0
        found = solve(tuple(rack), table, self.profile, initial=not opened, budget=None, exact=False)
        self.rollout_units += max(found.nodes, 1)
        return found.tiles_placed

    def evaluate(
        self,
        racks: Sequence[Sequence[int]],
        seat: int,
        winner: int | None,
        table: tuple[Meld, ...] = (),
        opened: Sequence[bool] = (),
    ) -> float:
        """Score of a rollout's end for ``seat``: 1 or 0 once the round is over, else its share
        of ``exp(-sharpness * x)`` over the seats (``x``: rack size, or rack points / 10)."""
        if winner is not None:
            return 1.0 if winner == seat else 0.0
        if self.params.evaluation == "points":
            sizes = [rack_penalty(r, self.profile) / 10 for r in racks]
        elif self.params.evaluation == "stuck":
            sizes = [float(len(r) - self._playable(r, table, opened[s])) for s, r in enumerate(racks)]
        else:
            sizes = [float(len(r)) for r in racks]
        low = min(sizes)
        weights = [math.exp(-self.params.sharpness * (x - low)) for x in sizes]
        return weights[seat] / sum(weights)


def hidden_tiles(view: TurnView) -> list[int]:
    """The tiles the seat cannot see: the full set less its rack, the table and the top
    discard (the rest of the discard pile is not in the view, so it counts as hidden)."""
    ts = view.profile.tileset
    counts = Counter(ts.all_tiles())
    seen = list(view.rack)
    for meld in view.table:
        seen.extend(meld.tiles)
    if view.discard_top is not None:
        seen.append(view.discard_top)
    counts.subtract(seen)
    return sorted(tile for tile, count in counts.items() for _ in range(max(count, 0)))


class _Rollout:
    """A determinized round played on from a seat's view, every seat by a policy bot: a copy of
    the ``RoundState`` dealt from the view (``RoundState.from_view``), stepped by the round's
    own turn flow. Moves come from bots built on the solver, so they are not re-validated
    (``referee=False``)."""

    def __init__(self, dealt: RoundState, policies: Sequence[Bot]):
        self.state = dealt.copy()
        self.seat = dealt.seat
        self.policies = policies
        self.units = 0

    def run(self, candidate: Candidate, depth: int, evaluate) -> float:
        """Apply ``candidate`` for the seat (its planned discard too), play ``depth`` more turns,
        and score the end."""
        state = self.state
        state.apply(candidate.action)
        self.finish_turn(candidate.discard)
        for _ in range(depth):
            if state.ended is not None:
                break
            state.start_turn()
            state.apply(self.ask(Phase.START))
            self.finish_turn(None)
        winner = None if state.ended is None else state.result()[0]
        return evaluate(state.racks, self.seat, winner, state.table, state.opened)

    def ask(self, phase: Phase) -> Action:
        state = self.state
        bot = self.policies[state.seat]
        before = getattr(bot, "search_units", 0)
        action = bot.act(state.view(state.seat, phase))
        self.units += getattr(bot, "search_units", 0) - before
        return action

    def finish_turn(self, discard: int | None) -> None:
        """The rest of the turn (a play after drawing, the discard: ``discard`` when the rack
        holds it, else the bot's), then the end of the turn."""
        state = self.state
        while state.phase is not None:
            if state.phase == Phase.DISCARD and discard is not None and discard in state.racks[state.seat]:
                state.apply(Discard(discard))
            else:
                state.apply(self.ask(state.phase))
        state.end_turn()
