"""The position as the kernel walks it (``Grids``): per run position and colour the numbered table
and rack tiles, each position's gain, the wrapping colours and where groups may form (``_grids``,
compiled ``_grid_arrays``); the same position from the top down (``_mirrored``) and what the rack
tiles after each step can still add (``_rest_gains``). Pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numba
import numpy as np

from rummisim.geometry import run_geometry
from rummisim.profile import RuleProfile
from rummisim.solver.budget import UNLIMITED
from rummisim.solver.common import face_worth
from rummisim.solver.common import gain as item_gain


@lru_cache(maxsize=64)
def _position_gains(profile: RuleProfile, objective: str) -> np.ndarray:
    """The objective gain of one numbered tile at each run position (shared: never written;
    not flagged read-only, which would compile the kernel a second time)."""
    geo, values = run_geometry(profile), profile.tileset.values
    worth = [face_worth(geo.value_at(p + 1), objective, values) for p in range(geo.top)]
    return np.array([item_gain(v, objective) for v in worth], dtype=np.int64)


class Grids(NamedTuple):
    """The kernel's record of the position (``_grids``): per run position ``P`` (with wrap, the
    high 1 too) and colour ``C``, the numbered tiles, and the jokers the DP places."""

    table: np.ndarray  # (P, C) numbered table tiles (must be used)
    rack: np.ndarray  # (P, C) numbered rack tiles (may be used)
    gain: np.ndarray  # (P,) the objective's gain of one rack tile at that position
    wrapable: np.ndarray  # (C,) colours whose 1s are split between position 1 and V+1
    allow_group: np.ndarray  # (P,) groups allowed at that position (not at V+1)
    n_jokers: int  # the jokers the DP places (the table's free ones and the rack's)


def _grids(table_counts: np.ndarray, rack_counts: np.ndarray, profile: RuleProfile, gain, n_jokers) -> Grids:
    """Numbered table and rack tiles per run position and colour (with wrap, the 1s again
    at position V+1), the wrapping colours, and the positions where groups may form; ``gain``
    per position (shared: never written) and ``n_jokers`` as given."""
    table, rack, wrapable, allow_group = _grid_arrays(table_counts, rack_counts, *_grid_shape(profile))
    return Grids(table, rack, gain, wrapable, allow_group, n_jokers)


@lru_cache(maxsize=64)
def _grid_shape(profile: RuleProfile) -> tuple[int, int, int, bool]:
    """(values, colours, run positions, wrap) of the profile's grids."""
    ts = profile.tileset
    return ts.values, ts.colours, run_geometry(profile).top, bool(profile.wrap)


@numba.njit(cache=True, nogil=True)
def _grid_arrays(table_counts, rack_counts, n_values, n_col, n_pos, wrap):
    """``_grids`` compiled: codes run colour by colour, value by value (``code = colour *
    values + value - 1``)."""
    tgrid = np.zeros((n_pos, n_col), dtype=np.int64)
    rgrid = np.zeros((n_pos, n_col), dtype=np.int64)
    for c in range(n_col):
        for v in range(n_values):
            tgrid[v, c] = table_counts[c * n_values + v]
            rgrid[v, c] = rack_counts[c * n_values + v]
    wrapable = np.zeros(n_col, dtype=np.bool_)
    allow_group = np.ones(n_pos, dtype=np.bool_)
    if wrap:
        for c in range(n_col):
            wrapable[c] = (tgrid[0, c] + rgrid[0, c]) > 0
            if wrapable[c]:
                tgrid[n_values, c] = tgrid[0, c]
                rgrid[n_values, c] = rgrid[0, c]
        allow_group[n_values] = False
    return tgrid, rgrid, wrapable, allow_group


@numba.njit(cache=True, nogil=True)
def _mirrored(grids):
    """``grids`` from the top down: the positions in reverse order (without wrap or pins the
    mirrored position is a position of the same rules, whose plays are those of ``grids``
    reversed, scoring the same: the gains go with their positions)."""
    return Grids(
        grids.table[::-1].copy(), grids.rack[::-1].copy(), grids.gain[::-1].copy(), grids.wrapable,
        grids.allow_group[::-1].copy(), grids.n_jokers,
    )  # fmt: skip


@numba.njit(cache=True, nogil=True)
def _rest_gains(grids):
    """(``Pass.rest_gain``, the most score a play leaving one rack tile can reach: a floor above it
    asks for every rack tile, ``Pass.debt_unit``) of a pass over ``grids``."""
    rgrid, gain = grids.rack, grids.gain
    n_pos, n_col = rgrid.shape
    rest_gain = np.empty(n_pos * n_col, dtype=np.int64)
    total = 0
    min_gain = -1
    for p in range(n_pos):
        for c in range(n_col):
            total += rgrid[p, c] * gain[p]
            if rgrid[p, c] > 0 and (min_gain < 0 or gain[p] < min_gain):
                min_gain = gain[p]
    run = 0
    for p in range(n_pos):
        for c in range(n_col):
            run += rgrid[p, c] * gain[p]
            rest_gain[p * n_col + c] = total - run
    # (no rack tile: no floor asks for every one)
    whole = total - min_gain if min_gain >= 0 else UNLIMITED
    return rest_gain, whole, gain[n_pos // 2]
