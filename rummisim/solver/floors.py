"""The score floors of the DP's passes (``passes``): a pass with floor ``L`` drops every state that
cannot reach ``L``, and answers the exact optimum when that is at least ``L``. The floors of a search
ask for the whole rack first (all but ``k`` of its tiles for each ``k`` of ``SLACK_TILES``, or all
its value), then nothing (``NO_BOUND``): ``score_floors``; ``whole_rack_floors`` is the same ladder
in compiled code (``listing._refute``). Pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache

import numba
import numpy as np

from rummisim.profile import RuleProfile
from rummisim.solver.common import TILE_WEIGHT, face_worth

NO_BOUND = -(1 << 62)  # the floor of a full pass (no state dropped)


SLACK_TILES = (0, 1, 2)  # rack tiles left over in the pruned passes before the full one


@lru_cache(maxsize=64)
def face_values(profile: RuleProfile, objective: str) -> np.ndarray:
    """What each numbered tile's code scores by (``common.face_worth``; shared: never written)."""
    values = profile.tileset.values
    worth = [face_worth(v, objective, values) for v in range(1, values + 1)]
    return np.tile(np.array(worth, dtype=np.int64), profile.tileset.colours)


def score_floors(rack_numbered: np.ndarray, profile: RuleProfile, objective: str) -> list[int]:
    """Score floors for successive kernel passes, the last one ``NO_BOUND`` (no pruning).

    A pass with floor ``L`` drops every state that cannot reach ``L`` and answers the exact
    optimum when that is at least ``L``; else the next, lower floor is tried. Most plays
    that are slow to search place the whole rack, so the first floors ask for all but
    ``k`` rack tiles placed (``tiles``), or all the rack's value (``value``)."""
    by_tiles = objective.startswith("tiles")
    n = int(rack_numbered.sum())
    total = 0 if by_tiles else int(rack_numbered @ face_values(profile, objective))
    out = [0] * len(SLACK_TILES)
    # (the compiled function's Python source: a compiled call would cost more than the list)
    return out[: whole_rack_floors.py_func(n, total, by_tiles, SLACK_TILES, out)] + [NO_BOUND]


@numba.njit(cache=True, nogil=True)
def whole_rack_floors(numbered, worth, by_tiles, slack, out):
    """The floors that ask for the whole rack (``score_floors``, and ``listing._refute`` compiled), the
    highest first, written into ``out``; how many: all but ``k`` of the ``numbered`` rack tiles for
    each ``k`` of ``slack`` below it (``by_tiles``), else all of the rack's value ``worth``."""
    if not by_tiles:
        out[0] = TILE_WEIGHT * worth
        return 1
    n = 0
    for k in range(len(slack)):
        if slack[k] < numbered:
            out[n] = TILE_WEIGHT * (numbered - slack[k])
            n += 1
    return n
