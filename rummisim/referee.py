"""The referee's question under ``turn.must_play_if_able``: does this seat have a legal play?

``legal_play`` asks the exact solver (no search budget, the profile's own
rearrangement rule) for the play with the most tiles. The engine asks it before it
accepts a draw, and the bots ask it first so that they never fault on the rule;
one memo serves both. It sits above the solver and below the engine and the bots.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from rummisim.profile import RuleProfile

if TYPE_CHECKING:
    from rummisim.melds import Meld
    from rummisim.solver import Solution


def legal_play(profile: RuleProfile, rack, table: tuple[Meld, ...], *, opened: bool) -> Solution:
    """The best play (most tiles) the rules allow this seat now, or a solution without tiles.

    The referee's question under ``turn.must_play_if_able`` ("if the player cannot combine
    ... he must draw", 002): the exact solver, without any search budget, with the
    profile's own rearrangement rule. Memoised, so a bot that asks first costs nothing more.
    """
    return _legal_play(profile, tuple(sorted(int(t) for t in rack)), tuple(table), opened)


@lru_cache(maxsize=4096)
def _legal_play(profile: RuleProfile, rack: tuple[int, ...], table: tuple[Meld, ...], opened: bool):
    from rummisim.solver import solve  # numba and scipy load on the first search, not on import

    return solve(rack, table, profile, initial=not opened, rearrange=profile.turn.rearrange, budget=None)
