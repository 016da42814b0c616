"""Turn logic shared by the bots that use the move solver (beginner, greedy, value,
conservative): phases, the initial meld, the discard pile and the search budget.

A subclass says what to look for by overriding ``choose(view)`` (or just the
class attributes ``objective`` and ``rearrange``); ``SearchBot`` turns the answer
into a legal action for every phase and profile:

- ``start``: the chosen play, else (under ``turn.must_play_if_able``, when some legal
  play exists) the most tiles the rules allow, else a draw (in the discard-pile variant it takes
  the top discard when that tile lets it play this turn, or, without play after
  drawing, when it completes a set in the rack);
- ``after_draw``: the chosen play, else ``Pass``;
- ``discard``: the tile planned when the play had to keep one back, else the
  least useful tile (``candidates.discard_order``).

Before its initial meld a bot searches with ``initial=True``; the profile says
the threshold, the joker valuation and whether the table may be touched. With a
discard pile a play must leave a tile to discard (the solver keeps that rule too;
should a search still empty the rack, the bot searches again without each of
its few best discard candidates and keeps the best result, going out by
discarding the last tile when it can). With ``time_limit.search_budget`` the budget is shared by every
search of the turn; when a search is cut short in the ``start`` phase the bot
answers ``OutOfBudget(best=...)`` and the engine applies the profile's timeout
rule (the engine only accepts that answer in the ``start`` phase; after drawing
the bot plays its best play found, or passes). A search where the exact search gave up at a
corner of its scope (``Solution.give_up``) did not run out of budget: its play is the answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from pydantic import BaseModel

from rummisim.bots.base import Bot
from rummisim.bots.candidates import discard_order, rack_sets
from rummisim.contract import Action, Discard, Draw, OutOfBudget, Pass, Phase, Play, TurnView
from rummisim.profile import RuleProfile
from rummisim.rules import play_limit

if TYPE_CHECKING:
    from rummisim.solver import Solution

KEEP_BACK_TRIES = 4  # discard candidates tried when a play would empty the rack
REMEMBERED_ANSWERS = 64  # solver answers a bot keeps within a turn (``SearchBot.run_solver``)


def solve(*args, **kwargs) -> Solution:
    """``rummisim.solver.solve``, imported on the first search, so that importing the bots
    does not load numba and scipy (a module attribute, so tests can stand in for the solver)."""
    from rummisim.solver import solve as search

    return search(*args, **kwargs)


def ranking(solution: Solution, objective: str) -> tuple[int, int]:
    """Sort key of a solution under an objective (larger is better)."""
    if objective == "value":
        return (solution.value_placed, solution.tiles_placed)
    return (solution.tiles_placed, solution.value_placed)


class SearchBot(Bot):
    """Base class: plays what ``choose`` finds with the solver (see the module docstring)."""

    objective: ClassVar[str] = "tiles"
    rearrange: ClassVar[bool] = True

    def __init__(self, profile: RuleProfile, rng: np.random.Generator, params: BaseModel):
        super().__init__(profile, rng, params)
        self._planned_discard: int | None = None
        self._budget_left: int | None = None
        self._out_of_budget = False
        self.search_units = 0  # every solver call's units (nodes), read per turn by the engine
        # false: never the integer program; past the DP's limits, its best play found (a fast
        # policy, e.g. ``lookahead``'s rollouts; see ``rummisim.solver.solve``)
        self.exact = True
        self._answers: dict[tuple, Solution] = {}  # this turn's solver answers (``run_solver``)

    # ----- the turn -----------------------------------------------------------------------

    def act(self, view: TurnView) -> Action:
        if view.phase == Phase.DISCARD:
            return Discard(self.choose_discard(view))
        if view.phase == Phase.START:
            self.start_turn()
        solution = self.choose(view)
        play = Play(solution.table, solution.played) if solution is not None and solution.is_play else None
        if self._out_of_budget and view.phase == Phase.START:
            return OutOfBudget(best=play)
        if play is not None:
            return play
        if view.phase != Phase.START:
            return Pass()
        forced = self.draw_unless_forced(view)
        if isinstance(forced, Play):
            return forced
        return Draw("discard") if self.wants_discard_top(view) else forced

    def start_turn(self) -> None:
        """A new turn: no discard planned, the profile's search budget, no answers remembered."""
        self._planned_discard = None
        self._budget_left = self.profile.time_limit.search_budget
        self._out_of_budget = False
        self._answers.clear()

    def choose(self, view: TurnView) -> Solution | None:
        """The play to make now (``None`` or a solution without tiles: no play)."""
        return self.search(view, view.rack, self.objective)

    def choose_discard(self, view: TurnView) -> int:
        if self._planned_discard is not None and self._planned_discard in view.rack:
            return self._planned_discard
        return discard_order(view.rack, self.profile)[0]

    def wants_discard_top(self, view: TurnView) -> bool:
        """Take the top discard instead of drawing from the deck?"""
        top = view.discard_top
        if not self.profile.discard_pile or top is None:
            return False
        rack = tuple(sorted((*view.rack, top)))
        if self.profile.turn.play_after_draw:
            solution = self.choose(dataclasses.replace(view, rack=rack, phase=Phase.AFTER_DRAW))
            self._planned_discard = None  # that was a look-ahead, not a plan
            return solution is not None and solution.is_play
        return any(top in meld.tiles for meld in rack_sets(rack, self.profile))

    # ----- searching -----------------------------------------------------------------------

    def search(
        self,
        view: TurnView,
        tiles: Sequence[int],
        objective: str,
        profile: RuleProfile | None = None,
    ) -> Solution | None:
        """Best play of ``tiles`` (part of the rack) that the profile allows this turn;
        ``None`` when the budget is spent or there are no tiles to play."""
        solution = self.run_solver(view, tiles, objective, profile)
        if solution is None or solution.tiles_placed <= play_limit(self.profile, len(view.rack)):
            return solution
        return self._keep_one_back(view, tiles, objective, profile)

    def _keep_one_back(self, view, tiles, objective, profile) -> Solution | None:
        best: Solution | None = None
        for tile in discard_order(tiles, self.profile)[:KEEP_BACK_TRIES]:
            rest = list(tiles)
            rest.remove(tile)
            solution = self.run_solver(view, rest, objective, profile)
            if solution is None:
                break
            if solution.is_play and (best is None or ranking(solution, objective) > ranking(best, objective)):
                best, self._planned_discard = solution, tile
            if solution.tiles_placed == len(rest):  # it goes out by discarding ``tile``
                break
        return best

    def run_solver(
        self,
        view: TurnView,
        tiles: Sequence[int],
        objective: str,
        profile: RuleProfile | None = None,
    ) -> Solution | None:
        """One solver call, charged to the turn's search budget.

        The turn's answers are remembered: a bot that asks the same question again (the
        rack with the top discard, searched to decide whether to take it, and then once taken)
        gets the answer it had, without a second search. ``solve`` is a pure function of its
        arguments, the budget left among them, so that is the answer a new search would give,
        and it is charged again as if searched (``search_units``, the budget): results do not
        depend on the memo, only the time does."""
        if not tiles:
            return None
        left = self._budget_left  # None: no budget
        if left is not None and left <= 0:
            self._out_of_budget = True
            return None
        rules = profile or self.profile
        key = (tuple(tiles), view.table, rules, view.opened, objective, self.rearrange, left, self.exact)
        solution = self._answers.get(key)
        if solution is None:
            solution = solve(
                tiles,
                view.table,
                rules,
                initial=not view.opened,
                objective=objective,
                rearrange=self.rearrange,
                budget=left,
                exact=self.exact,
            )
            if len(self._answers) >= REMEMBERED_ANSWERS:
                self._answers.clear()
            self._answers[key] = solution
        self.search_units += max(solution.nodes, 1)
        if left is not None:
            self._budget_left = left - max(solution.nodes, 1)
            if not solution.proven and solution.give_up is None:
                # the budget ran out (a search that gave up at a corner of its scope, said by
                # ``give_up``, is an answer like any other: no timeout)
                self._out_of_budget = True
        return solution

    def goes_out(self, view: TurnView, solution: Solution | None) -> bool:
        """Does this play empty the rack (all but the final discard with a discard pile)?"""
        if solution is None or not solution.is_play:
            return False
        return solution.tiles_placed >= play_limit(self.profile, len(view.rack))
