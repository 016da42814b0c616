"""How a round that nobody went out of ends: after which turn, and who wins it.

The round's state machine (``rummisim.round_state``, which the engine, the replay checker and
the lookahead bot's rollouts step) asks these two questions; the answer lives here (above the
referee, whose exact search judges ``until_no_play``, and the rules layer: it counts rack points
with ``melds.rack_penalty``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rummisim.melds import Meld, rack_penalty
from rummisim.profile import RuleProfile
from rummisim.referee import legal_play


def pool_round_over(
    profile: RuleProfile,
    passes: int,
    pool_left: int,
    racks: Sequence[Sequence[int]],
    table: tuple[Meld, ...],
    opened: Sequence[bool],
) -> bool:
    """Whether a round that nobody went out of ends after this turn (``passes`` counts turns in
    a row without a play begun on an empty pool) under ``end.when_pool_empty``:

    - ``play_on``: every seat passed in a row;
    - ``until_no_play`` (000: "play continues until there is a winner or no player can make a
      valid play"): every seat passed in a row and no seat could play now, judged by the exact
      search as must-play is (``referee.legal_play``); while one could, play goes on (the turn
      cap still bounds it);
    - ``end_round`` (one reading of 004): the pool is empty.
    """
    rule = profile.end.when_pool_empty
    if rule == "end_round" and pool_left == 0:
        return True
    if passes < len(racks):
        return False
    if rule != "until_no_play":
        return True
    return not any(
        legal_play(profile, rack, table, opened=is_open).is_play
        for rack, is_open in zip(racks, opened, strict=True)
    )


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
