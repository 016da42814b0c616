"""The wrap splits (``runs.wrap: high_low``): a search with wrap is one sub-problem per split of
the 1s of each colour between position 1 and V+1 (the high 1, after 13), each searched without
wrap (``passes._search``, ``passes._search_splits``). ``split_arrays`` lists the splits' grids
(compiled: a listing of host sets makes thousands of wrap searches). Pure; no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from rummisim.solver.grids import Grids
    from rummisim.solver.pins import PinGrids


def split_arrays(grids: Grids, *, pins: PinGrids | None = None, rack_high: bool = False):
    """The table and rack grids of the sub-problems of a wrap search (arrays of shape
    (splits, P, C)), no high 1 first: for each choice of how many
    1s of each colour sit high (at V+1, after 13), those 1s move from position 1 to V+1 (table
    1s first: a table tile and a rack tile of one face are interchangeable, and a table 1 placed
    high leaves the rack 1 free for more), with no split left for the kernel (no colour wraps).
    A rack 1 moved high may still stay on the rack (the kernel plays rack tiles at will): that is
    the same play as a sub-problem with fewer high 1s. Each high 1 ends a run of its own through
    12 and 13 (a run of three at least), so a split whose high 1s need more jokers for the 12s and
    13s missing than the search has is left out (0.3.4; it counted one run a colour, each colour
    against every joker: on a table with all eight 1s and two rack jokers, 43 of the 81 splits
    could not hold their high 1s). ``rack_high`` (a search that tracks
    host sets): a rack 1 counts as a host's rack item where a table 1 does not, so they are not
    interchangeable, and every mix of table and rack 1s high is a sub-problem of its own.
    Compiled (``_splits``): a listing of host sets makes thousands of wrap searches."""
    have = grids.table + grids.rack  # the items of each face, pinned runs (out of the grids) covering it too
    if pins is not None:
        start, end = pins.start, pins.end
        have = have + np.cumsum(start, axis=0) - np.cumsum(end, axis=0) + end
    return _splits(grids.table, grids.rack, grids.wrapable, have, grids.n_jokers, rack_high)


@numba.njit(cache=True, nogil=True)
def _splits(tgrid, rgrid, wrapable, have, n_jokers, rack_high):
    """``split_arrays``: per colour its choices (1s high, those of them from the table, jokers
    they need), in order (high rising; under ``rack_high`` the table 1s among them falling); the
    splits are their products, the last colour's choice changing fastest, those whose high 1s
    need more jokers than ``n_jokers`` left out."""
    n_pos, n_col = tgrid.shape
    last = n_pos - 1
    width = 1
    for c in range(n_col):
        width = max(width, (tgrid[0, c] + rgrid[0, c] + 1) * (tgrid[0, c] + 1))
    highs = np.zeros((n_col, width), dtype=np.int64)
    froms = np.zeros((n_col, width), dtype=np.int64)
    needs = np.zeros((n_col, width), dtype=np.int64)
    n_opts = np.zeros(n_col, dtype=np.int64)
    for c in range(n_col):
        ones = tgrid[0, c] + rgrid[0, c] if wrapable[c] else 0
        table_ones = tgrid[0, c]
        k = 0
        for high in range(ones + 1):
            first = min(high, table_ones)
            least = max(0, high - (ones - table_ones)) if rack_high else first
            for from_table in range(first, least - 1, -1):
                highs[c, k] = high
                froms[c, k] = from_table
                needs[c, k] = max(0, high - have[last - 1, c]) + max(0, high - have[last - 2, c])
                k += 1
        n_opts[c] = k
    total = 1
    for c in range(n_col):
        total *= n_opts[c]
    pick = np.zeros(n_col, dtype=np.int64)
    keep = np.zeros(total, dtype=np.bool_)
    for idx in range(total):
        rest = idx
        need = 0
        for c in range(n_col - 1, -1, -1):
            pick[c] = rest % n_opts[c]
            rest //= n_opts[c]
            need += needs[c, pick[c]]
        keep[idx] = need <= n_jokers
    tables = np.empty((keep.sum(), n_pos, n_col), dtype=np.int64)
    racks = np.empty_like(tables)
    k = 0
    for idx in range(total):
        if not keep[idx]:
            continue
        tables[k] = tgrid
        racks[k] = rgrid
        rest = idx
        for c in range(n_col - 1, -1, -1):
            j = rest % n_opts[c]
            rest //= n_opts[c]
            tables[k, 0, c] -= froms[c, j]
            racks[k, 0, c] -= highs[c, j] - froms[c, j]
            tables[k, last, c] = froms[c, j]
            racks[k, last, c] = highs[c, j] - froms[c, j]
        k += 1
    return tables, racks
