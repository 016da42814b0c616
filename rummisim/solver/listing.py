"""A host listing's passes that find nothing, in one compiled call, and the pairs of new-set host
sets of two freed jokers (after 0.3.23).

A joker choice that frees table jokers lists host sets (``jokers._host_sets_search``) and runs one
pass per set (or pair of sets), above a floor a legal play already reached: most find nothing.
Each of those passes is small (``polish-40`` greedy #94: 400 passes of 24 to 600 states), so the
Python around it (the pools, the grids, the kernel's dispatch) cost more than the kernel.
``refuted_rows`` runs the rows (sets placed together) from the first on while each needs nothing but
one plain pass (no pins, no host fields, no wrap, the same tables), in one call of ``_refute``,
until one finds a play, passes a limit or needs more: the caller's own path then takes that row
(uncharged here). So the passes, their floors, the states charged and the caps spent are those of
the rows one by one, and so are the answers. ``refute_rows`` serves an opening's cores too
(``cored``). ``pair_search``: the search of two freed jokers' sets
under ``reuse: new_set``, each pair once (``pair_rows``: in the order of the recursion it replaced,
whose levels and caps it keeps). Pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numba
import numpy as np

from rummisim.profile import RuleProfile
from rummisim.solver.budget import UNLIMITED, GiveUp, Meter
from rummisim.solver.choices import _legal, _whole_rack, _with_host
from rummisim.solver.common import FROM_THE_TOP, tile_gains
from rummisim.solver.common import gain as item_gain
from rummisim.solver.floors import SLACK_TILES, face_values, whole_rack_floors
from rummisim.solver.grids import _grid_arrays, _grid_shape, _position_gains
from rummisim.solver.hosts import Host, freed_in
from rummisim.solver.kernel import _buffers
from rummisim.solver.passes import (
    NO_BOUND,
    _Found,
    _no_pins,
    _pools,
    _run_passes,
)
from rummisim.solver.tables import NO_STATE, _tables

BATCH = 64  # rows prepared for one call (the caller's own path takes each row that finds a play)


class Listing:
    """The host sets of one listing level and what each takes from the pools (``_pools`` beside
    the sets ``placed``): ``table``, ``rack`` (per set, the counts by code it takes) and ``gain``
    (the score of its rack tiles); ``base``: the pools beside ``placed``."""

    def __init__(self, rack, table, profile: RuleProfile, objective, virtual, forced, placed, hosts, counts):
        joker = profile.tileset.joker
        self.position = (rack, table, profile, objective, virtual, forced, placed, counts)
        self.base = _pools(rack, table, profile, objective, virtual, forced, placed, counts)
        self.hosts = hosts
        n = self.base[0].shape[0]
        on_table = [i * n + t for i, host in enumerate(hosts) for t in host[1]]
        on_table += [i * n + joker for i, host in enumerate(hosts) for _ in range(freed_in(host, joker))]
        from_rack = [i * n + t for i, host in enumerate(hosts) for t in host[2]]
        self.table, self.rack = (
            np.bincount(np.array(taken, dtype=np.int64), minlength=len(hosts) * n).reshape(len(hosts), n)
            for taken in (on_table, from_rack)
        )
        self.gain = self.rack @ tile_gains(profile, objective)


def batched(profile: RuleProfile, pinned) -> bool:
    """Whether a listing's passes may go in one call (``refuted_rows``): each one plain pass, as
    without pins (``pinned``: the choice's pinned sets) or wrap (whose passes go round the splits)."""
    return not pinned and not profile.wrap


def refuted_rows(
    profile: RuleProfile, objective: str, meter: Meter, listing: Listing, rows: np.ndarray, floor: int,
    host_cap: list[int], starts: np.ndarray | None = None,
) -> int:  # fmt: skip
    """How many of ``rows`` (each a row of indices into ``listing.hosts``: sets placed together),
    from the first on, find no play at ``floor`` (``choices._with_host`` without pins): their states
    are charged to ``meter`` and ``host_cap`` (``[solves, states]`` left). It stops before the first
    row that finds a play, passes a limit, is not one plain pass with the tables of the first, or
    (``starts``: per row, the sets of the level it begins, else 0) begins a level of more sets than
    the solves left; only where ``batched``. (The passes do not look in ``Meter.refuted``: a pass
    remembered there costs less to run again than to look up, and charges the same states.)"""
    if not rows.shape[0]:
        return 0
    base_t, base_r, base_offset = listing.base
    if starts is None:
        starts = np.zeros(rows.shape[0], dtype=np.int64)
    done, created = refute_rows(
        profile, objective, meter, Rows(base_t, base_r, listing.table, listing.rack, listing.gain),
        rows, np.zeros(rows.shape[0], dtype=np.int64), floor - base_offset, False, (host_cap[0], host_cap[1]),
        starts[: rows.shape[0]],
    )  # fmt: skip
    host_cap[0] -= done
    host_cap[1] -= created
    return done


class Rows(NamedTuple):
    """What ``refute_rows``' rows are made of: the pools of each side (``table``, ``rack``: counts
    by code; a row's side picks one), less the sets of the row (``set_table``, ``set_rack``: the
    counts each set takes; ``set_gain``: the score of its rack tiles)."""

    table: np.ndarray  # (sides, codes), or (codes,) for one side
    rack: np.ndarray
    set_table: np.ndarray  # (sets, codes)
    set_rack: np.ndarray
    set_gain: np.ndarray  # (sets,)


def refute_rows(
    profile: RuleProfile, objective: str, meter: Meter, made: Rows, rows: np.ndarray, sides: np.ndarray,
    floor: int, ladder: bool, caps: tuple[int, int], starts: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """How many ``rows`` (a plain pass each: its side's pools less its sets, ``made``; side 1 read
    from the top down, ``reading``), from the first on, find no play above ``floor`` less the score
    of their sets' rack tiles and rack jokers (``_refute``), and their states, charged to ``meter``;
    ``ladder``: each row's pass runs the floors of its whole rack above that first (``floors.score_floors``),
    as ``passes._best_or_bound`` does by default. It stops before the first row that finds a play,
    passes a limit or the search budget, needs tables other than the first row's, would not be
    searched (a count below zero, too many jokers), or passes ``caps`` (solves and states left to a
    host listing; ``starts``: per row, the solves a level it begins needs). No pins, no host
    fields, no wrap."""
    ts = profile.tileset
    joker = ts.joker
    table, rack = np.atleast_2d(made.table), np.atleast_2d(made.rack)
    side = int(sides[0])
    t0 = table[side] - made.set_table[rows[0]].sum(axis=0)
    r0 = rack[side] - made.set_rack[rows[0]].sum(axis=0)
    n_jokers = int(t0[joker] + r0[joker])
    copies = max(ts.copies, int((t0[:joker] + r0[:joker]).max()))
    tab = _tables(profile, copies, n_jokers, False)
    if tab is None:
        return 0, 0
    n_values, n_col, n_pos, _ = _grid_shape(profile)
    left = UNLIMITED if meter.left is None else meter.left
    call = UNLIMITED if meter.call_limit is None else meter.call_limit
    gains, joker_gains, faces, slack = _sides(profile, objective)
    # the floors: the score less each row's (``_refute``), and the ladders' (``floors.score_floors``)
    steps = (ladder, objective.startswith("tiles"), slack, faces)
    records = tuple(tab.kernel), tuple(_buffers()), tuple(_no_pins((n_pos, n_col)))
    sets = (made.set_table, made.set_rack, made.set_gain)
    rows = np.ascontiguousarray(rows)  # (rows of any layout: numba would compile ``_refute`` for each)
    done, created = _refute(
        table, rack, sets, rows, sides, starts, (floor, joker_gains), steps,
        (joker, ts.jokers, ts.copies, n_jokers, copies), (n_values, n_col, n_pos), gains, *records,
        (left, call, *caps), meter.options.prune_dead, meter.options.mirror_refute,
    )  # fmt: skip
    meter.spend(int(created))
    return int(done), int(created)


@lru_cache(maxsize=64)
def _sides(profile: RuleProfile, objective: str) -> tuple:
    """Per side of ``refute_rows``' rows (read from the bottom up, from the top down: ``reading``),
    the position gains, a rack joker's score and each numbered code's face value (shared: never
    written); the slack tiles of the ladders."""
    back = {read: way for way, read in FROM_THE_TOP.items()}  # (a search read so already)
    objectives = (objective, FROM_THE_TOP.get(objective) or back[objective])
    gains = (_position_gains(profile, objectives[0]), _position_gains(profile, objectives[1]))
    joker_gains = np.array([item_gain(profile.jokers.penalty, o) for o in objectives], dtype=np.int64)
    faces = np.stack([face_values(profile, o) for o in objectives])
    return gains, joker_gains, faces, np.array(SLACK_TILES, dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _refute(
    base_t, base_r, row_sets, rows, sides, starts, need, steps, fit, shape, gains, tables, buffers, pins,
    caps, prune, mirror,
):  # fmt: skip
    """The passes of ``refute_rows``, one per row, while each finds nothing: (how many did, their
    states). Each row's pools are its side's base less its sets (``row_sets``: table and rack counts
    and the rack tiles' score, per set); its floor ``need`` (the floor, each side's score of a rack
    joker) less its score, after its ladder (``steps``: whether it runs, whether the objective counts
    tiles first, the slack tiles, each side's face values). A row whose pools differ from the
    first's in the tables they need (``fit``: the joker code, the jokers the tile set has, its
    copies, the first row's jokers and copies) or would not be searched (a count below zero), that
    finds a play, passes the caps (``caps``: states the search may still create, a pass may create,
    solves and states left to a host listing), or begins a level of more sets than the solves left,
    is not counted."""
    table_sets, rack_sets, gain_sets = row_sets
    floor, joker_gains = need
    ladder, by_tiles, slack, faces = steps
    joker, max_jokers, base_copies, n_jokers, copies = fit
    left, call, solves, states = caps
    n_values, n_col, n_pos = shape
    up, down = gains
    bounds = np.empty(slack.shape[0] + 1, dtype=np.int64)
    zero = np.int64(0)  # (no beam: typed, not a literal, which numba would compile apart)
    ladder_at = np.empty(slack.shape[0], dtype=np.int64)
    created = 0
    for i in range(rows.shape[0]):
        if starts[i] > solves - i:
            return i, created
        side = sides[i]
        tc = base_t[side].copy()
        rc = base_r[side].copy()
        bound = floor
        for h in rows[i]:
            tc -= table_sets[h]
            rc -= rack_sets[h]
            bound -= gain_sets[h]
        most = base_copies
        numbered = 0
        worth = 0
        for code in range(joker):
            if tc[code] < 0 or rc[code] < 0:
                return i, created
            most = max(most, tc[code] + rc[code])
            numbered += rc[code]
            worth += rc[code] * faces[side, code]
        jokers = tc[joker] + rc[joker]
        if tc[joker] < 0 or rc[joker] < 0 or jokers > max_jokers or jokers != n_jokers or most != copies:
            return i, created
        bound -= rc[joker] * joker_gains[side]
        n_bounds = 0
        if ladder:  # (``floors.score_floors``: those of the whole rack above the floor, then the floor)
            for k in range(whole_rack_floors(numbered, worth, by_tiles, slack, ladder_at)):
                if ladder_at[k] > bound:
                    bounds[n_bounds] = ladder_at[k]
                    n_bounds += 1
        bounds[n_bounds] = bound
        limit = min(left - created, call)
        tgrid, rgrid, wrapable, allow_group = _grid_arrays(tc, rc, n_values, n_col, n_pos, False)
        grids = (tgrid, rgrid, up if side == 0 else down, wrapable, allow_group, n_jokers)
        floors = bounds[: n_bounds + 1].copy()
        found, made = _run_passes(
            grids, tables, buffers, pins, None, floors, limit, zero, zero, prune, None, mirror
        )
        if found != NO_STATE or i + 1 > solves or created + made > states:
            return i, created
        created += made
    return rows.shape[0], created


def pair_search(
    rack, full_rack, table, profile: RuleProfile, objective: str, meter: Meter, virtual, forced, floor: int,
    prune, placed, hosts: list[Host], host_cap: list[int], pinned, ceiling, counts,
) -> _Found | None:  # fmt: skip
    """``jokers._host_sets_search`` of two freed jokers under ``reuse: new_set``: each pair of
    ``hosts`` once (a set, then one at or after it that the rack still holds beside it), above
    ``floor``; the best legal play, else ``NO_BOUND``; None where the search gives up. The levels
    and caps are those of the search's own recursion (a level of more sets than the solves left
    gives up), the pairs that find nothing go in one call (``refuted_rows``, without pins)."""
    listing = Listing(rack, table, profile, objective, virtual, forced, placed, hosts, counts)
    rows, sizes, firsts = pair_rows(listing)
    starts = np.zeros(rows.shape[0], dtype=np.int64)
    starts[firsts[sizes > 0]] = sizes[sizes > 0]
    top = _whole_rack(rack, profile, objective)
    best: _Found = (NO_BOUND, table, ())
    r = 0
    while True:
        if floor <= top and r < rows.shape[0] and batched(profile, pinned):
            r += refuted_rows(
                profile, objective, meter, listing, rows[r : r + BATCH], floor, host_cap, starts[r:]
            )
        # each level checks the solves left where it begins; past the rows, or past a play of the
        # whole rack, the levels left only check them
        ended = floor > top or r == rows.shape[0]
        if ((sizes[firsts >= r] if ended else starts[r : r + 1]) > host_cap[0]).any():
            host_cap[0] = -1  # past the limits: ``_solve_rack`` gives up at once
            meter.fail(GiveUp.hosts(1))
            return None
        if ended:
            return best
        first, second = hosts[rows[r, 0]], hosts[rows[r, 1]]
        r += 1
        found = capped_host(
            rack, table, profile, objective, meter, forced, prune, placed + (first,), second, virtual, pinned,
            floor, ceiling, counts, host_cap, 1,
        )  # fmt: skip
        if found is None:
            return None
        if found[0] < floor:
            continue
        if not _legal(profile, table, full_rack, found):
            meter.fail(GiveUp.HOSTS_REFUSED)
            return None
        best = found
        floor = found[0] + 1


def capped_host(
    rack, table, profile: RuleProfile, objective: str, meter: Meter, forced, prune, placed, host, kept, pins,
    floor: int, ceiling, counts, host_cap: list[int], left: int,
) -> _Found | None:  # fmt: skip
    """``choices._with_host`` for one set of a listing (beside ``placed``), one by one: one of the
    listing's solves and its states charged to ``host_cap``; None where the search gives up, or
    where that passes the listing's caps (``left``: the freed jokers without a set, for the reason)."""
    host_cap[0] -= 1
    before = meter.spent
    found = _with_host(
        rack, table, profile, objective, meter, forced, prune, placed, host, kept, pins, floor, ceiling,
        counts,
    )  # fmt: skip
    if found is None:
        return None
    host_cap[1] -= meter.spent - before
    if host_cap[0] < 0 or host_cap[1] < 0:
        meter.fail(GiveUp.HOSTS_STATES if host_cap[1] < 0 else GiveUp.hosts(left))
        return None
    return found


def pair_rows(listing: Listing) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of ``listing``'s sets in the order of the recursion's levels: each set, then each at
    or after it that the rack still holds beside it (``hosts.held_hosts``); with each level's size
    and first row."""
    used = listing.rack.any(axis=0)  # (the codes some set takes from the rack)
    taken = listing.rack[:, used]
    after = listing.base[1][used][None, :] - taken
    held = np.triu((taken[None, :, :] <= after[:, None, :]).all(axis=2))
    sizes = held.sum(axis=1)
    return np.argwhere(held), sizes, np.cumsum(sizes) - sizes
