"""How a round that nobody went out of ends: after which turn, and who wins it.

The engine, the replay checker and the lookahead bot's rollouts all ask these two
questions, so the answer lives here once (beside the referee, above the rules layer:
it counts rack points with ``melds.rack_penalty``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rummisim.melds import rack_penalty
from rummisim.profile import RuleProfile


def pool_round_over(profile: RuleProfile, n_players: int, passes: int, pool_left: int) -> bool:
    """Whether a round that nobody went out of ends after this turn: every seat passed in a
    row (``passes`` counts turns in a row without a play begun on an empty pool), or
    ``end.when_pool_empty: end_round`` and the pool is empty (``rummisim.replay`` asks too)."""
    return passes >= n_players or (pool_left == 0 and profile.end.when_pool_empty == "end_round")


def pool_empty_winner(profile: RuleProfile, racks: Sequence[Sequence[int]], first: int) -> tuple[int, bool]:
    """The winner of a round nobody went out of (``end.pool_empty_winner``; ties broken by the
    other measure, then by turn order from ``first``) and whether it was tied."""
    n = len(racks)
    order = [(first + k) % n for k in range(n)]

    def key(seat: int) -> tuple[int, int]:
        count, total = len(racks[seat]), rack_penalty(racks[seat], profile)
        if profile.end.pool_empty_winner == "fewest_tiles":
            return (count, total)
        return (total, count)

    best = min(order, key=key)  # min keeps the first in turn order on ties
    tied = sum(1 for s in order if key(s) == key(best)) > 1
    return best, tied
