"""What every search method shares: the result type, the objective's gains and the rule
constants both the dynamic program and the integer program read. Pure; no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rummisim.melds import Meld, tile_penalty
from rummisim.moves import IllegalMove, validate_move
from rummisim.profile import RuleProfile

OBJECTIVES = ("tiles", "value")
# the DP's search of a position read from the top down (``reading``: a tile of value ``v`` as one of
# ``V + 1 - v``) scores each numbered tile by its value before the flip, so each of its plays scores
# what the play read back scores: these objectives, internal to the solver, say so
FROM_THE_TOP = {"tiles": "tiles from the top", "value": "value from the top"}
TILE_WEIGHT = 1000  # objective weight that makes the primary criterion dominate (values < 1000)
HOST_RACK_ITEMS = 2  # reuse: two_rack_tiles: rack items beside a freed joker, however many it holds


class SearchBudgetSpent(Exception):
    """The search budget ran out before the search finished (or, for the integer program, does
    not cover one node of its model: ``milp.MILP_UNITS_PER_NONZERO``)."""


@dataclass(frozen=True)
class SearchResult:
    """A method's answer: the whole new ``table``, the rack tiles ``played`` (``()``: no play),
    whether it is a proven optimum, and the search units spent."""

    table: tuple[Meld, ...]
    played: tuple[int, ...]
    proven: bool
    nodes: int


def gain(value: int, objective: str) -> int:
    """Objective gain of placing one rack item worth ``value`` points: ``tiles`` counts tiles
    first and value as the tie-break, ``value`` the reverse."""
    return TILE_WEIGHT + value if objective.startswith("tiles") else TILE_WEIGHT * value + 1


def face_worth(value: int, objective: str, values: int) -> int:
    """What a numbered tile of this face value scores by: its value, or read from the top down
    (``FROM_THE_TOP``) its value before the flip."""
    return values + 1 - value if objective in _READ_DOWN else value


_READ_DOWN = frozenset(FROM_THE_TOP.values())


def tile_gain(profile: RuleProfile, code: int, objective: str) -> int:
    """Objective gain of placing the rack tile ``code``."""
    return tile_gains(profile, objective)[code]


@lru_cache(maxsize=64)
def tile_gains(profile: RuleProfile, objective: str) -> tuple[int, ...]:
    """``tile_gain`` of every code, worked out once per profile and objective (the searches ask
    for it thousands of times a position: 4,400 times in `polish-40` greedy #94's)."""
    ts = profile.tileset
    worth = [face_worth(ts.value_of(code), objective, ts.values) for code in range(ts.joker)]
    return tuple(gain(v, objective) for v in worth) + tuple(
        gain(tile_penalty(code, profile), objective) for code in range(ts.joker, ts.n_codes)
    )


def is_legal(profile: RuleProfile, table, rack, new_table, played, *, opened: bool, waive=()) -> bool:
    """Whether ``validate_move`` takes this play; a refusal under a rule named in ``waive``
    counts as legal (the DP settles the discard keep-back apart)."""
    try:
        validate_move(profile, table, rack, new_table, played, opened=opened, explain=False)
    except IllegalMove as illegal:
        return illegal.rule in waive
    return True
