"""The DP's chosen steps replayed into runs and groups, compiled (``replay``; ``decode`` builds
the sets from what it lists), pins included (``ReplayTables``, ``replay_tables``).

Each colour step extends the open runs of its colour type by type (first the runs extended by a
tile, then by a joker, then the closed ones, in the order they opened), then starts new runs; the
last position closes what is open with leading jokers (``J 12 13``). Pins (``pins.Pin``): where
pinned runs start, the short runs of types A and C that the step neither extends nor closes join
them on the left (the longest first, each to the first pin there it may join, ``pin_joins``); the
other pinned runs there start alone. A pinned run is in flight to its last tile, then comes back
as a valid run (``pin_grows``) or closes. The tiles a step uses beyond its runs and groups go to
the pinned groups that lack its colour, then to the ``pin_tail`` runs, one each. Pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numba
import numpy as np

from rummisim.profile import RuleProfile
from rummisim.solver.pins import Pin, pin_grows, pin_joins, pin_tail
from rummisim.solver.tables import G_AT, STARTS_AT, TYPE_A, X_AT, RunTypes

MAX_DECODED_RUNS = 256  # runs one decoding may list (the tile set has 106 tiles)
MAX_OPEN_PER_COLOUR = 16


class ReplayTables(NamedTuple):
    """``replay``'s view of the run types and the pins (``replay_tables``); a step is
    ``position * colours + colour``, the pinned runs are numbered in the order of the pins' runs,
    the groups in that of their groups."""

    types: np.ndarray  # (4, types): the type after a tile, after a joker, may close (1), top jokers
    pin_runs: np.ndarray  # (R, 8) per pinned run: the steps of its first and last tile, its first
    # position (1-based), its tiles, whether a short run of type A / C may join it (``pin_joins``),
    # whether it comes back as an open run (``pin_grows``), may take a tile after its last (``pin_tail``)
    group_room: np.ndarray  # (steps, K) the pinned groups that may take the step's tile, -1 after
    kind_e: int  # the run types E, A and C (-1 where the types have none)
    join_a: int
    join_c: int
    n_groups: int  # the pinned groups


@lru_cache(maxsize=1 << 12)
def replay_tables(pins: tuple[Pin, ...], n_pos: int, profile: RuleProfile, types: RunTypes) -> ReplayTables:
    """The types and pins as ``ReplayTables`` (remembered: a table's pins come back search after
    search, and a search without pins has one per profile)."""
    C = profile.tileset.colours
    runs = [pin for pin in pins if pin.kind == "run"]
    groups = [pin for pin in pins if pin.kind != "run"]
    room: list[list[int]] = [[] for _ in range(n_pos * C)]
    for g, pin in enumerate(groups):
        for c in pin.missing:
            room[pin.first * C + c].append(g)
    group_room = np.full((n_pos * C, max([1] + [len(r) for r in room])), -1, dtype=np.int64)
    for step, takers in enumerate(room):
        group_room[step, : len(takers)] = takers
    pin_runs = np.array(
        [
            (pin.first * C + pin.colour, pin.last * C + pin.colour, pin.first + 1, len(pin.tiles))
            + pin_joins(pin, n_pos, profile.wrap)
            + (pin_grows(pin, profile), pin_tail(pin, profile))
            for pin in runs
        ],
        dtype=np.int64,
    ).reshape(-1, 8)
    names = types.names
    kind_e, join_a, join_c = (names.index(name) if name in names else -1 for name in ("E", "A", "C"))
    rows = (types.after_tile, types.after_joker, types.closes, types.top_jokers)
    return ReplayTables(
        np.array(rows, dtype=np.int64), pin_runs, group_room, kind_e, join_a, join_c, len(groups)
    )


@numba.njit(cache=True, nogil=True)
def replay(
    steps, n_pos, n_col, types, pin_runs, group_room, kind_e, join_a, join_c, n_groups, lift_at, lift_kind
):
    """Replay the action words ``steps`` (see the module) with the run types and the pins
    (``types`` to ``n_groups``: the fields of ``ReplayTables``, passed one by one: numba reads a
    record of them about a microsecond slower). At step ``lift_at`` the first open run of type
    ``lift_kind`` leaves (it is promoted into the tracked host run: ``HostMoves.promoted``).
    Returns None when the
    steps are inconsistent, else (the runs in the order they close, a row each: its colour, first
    position, length, joker mask, pinned run (-1: none) and where in the run that one's tiles begin;
    the positions where groups form: the tiles of each colour set aside for them, and the jokers
    they take; the colours each pinned group took; the run that left: its first position,
    length and joker mask, the length 0 where none did)."""
    after_tile, after_joker, closes, top_jokers = types[0], types[1], types[2], types[3]
    n_types = after_tile.shape[0]
    colour = np.zeros(MAX_DECODED_RUNS, dtype=np.int64)
    start = np.zeros(MAX_DECODED_RUNS, dtype=np.int64)
    length = np.zeros(MAX_DECODED_RUNS, dtype=np.int64)
    jokers = np.zeros(MAX_DECODED_RUNS, dtype=np.int64)
    kind = np.zeros(MAX_DECODED_RUNS, dtype=np.int64)
    pin_of = np.full(MAX_DECODED_RUNS, -1, dtype=np.int64)
    pin_off = np.zeros(MAX_DECODED_RUNS, dtype=np.int64)
    order = np.zeros(MAX_DECODED_RUNS, dtype=np.int64)
    open_runs = np.zeros((n_col, MAX_OPEN_PER_COLOUR), dtype=np.int64)
    n_open = np.zeros(n_col, dtype=np.int64)
    still = np.zeros(MAX_OPEN_PER_COLOUR, dtype=np.int64)
    kinds = np.zeros(MAX_OPEN_PER_COLOUR, dtype=np.int64)
    joined = np.zeros(MAX_OPEN_PER_COLOUR, dtype=np.int64)
    to_groups = np.zeros((n_pos, n_col), dtype=np.int64)
    group_jokers = np.zeros(n_pos, dtype=np.int64)
    n_pins = pin_runs.shape[0]
    in_flight = np.zeros(n_pins, dtype=np.int64)  # pinned runs in flight, in the order they began
    n_flight = 0
    tails = np.zeros(n_pins, dtype=np.int64)  # ``pin_tail`` runs, and the step they may take a tile
    tail_step = np.zeros(n_pins, dtype=np.int64)
    n_tails = 0
    free = np.zeros(n_pins, dtype=np.bool_)
    taken = np.zeros((n_groups, n_col), dtype=np.bool_)
    n_runs = 0
    n_closed = 0
    lifted = np.zeros(3, dtype=np.int64)
    k = 0
    for p in range(n_pos):
        for c in range(n_col):
            action = steps[k]
            if k == lift_at and not _lift(
                open_runs[c], n_open, c, kind, lift_kind, start, length, jokers, lifted
            ):
                return None
            k += 1
            step = p * n_col + c
            starts = (action >> STARTS_AT) & 7
            in_groups = (action >> G_AT) & 15
            used = (action >> X_AT) & 15
            m = n_open[c]
            n_starting = 0
            for q in range(n_pins):
                free[q] = pin_runs[q, 0] == step
                n_starting += free[q]
            ending = 0
            for i in range(n_flight):
                ending += pin_runs[pin_of[in_flight[i]], 1] == step
            if m == 0 and starts == 0 and in_groups == 0 and used == 0 and n_starting == 0 and ending == 0:
                continue
            to_groups[p, c] = in_groups
            for i in range(m):
                kinds[i] = kind[open_runs[c, i]]
            n_still = 0
            n_joined = 0
            by_tile = 0
            for t in range(n_types):
                n_tile = (action >> (3 * t)) & 7
                n_moved = n_tile + ((action >> (3 * (n_types + t))) & 7)
                by_tile += n_tile
                members = 0
                for i in range(m):
                    members += kinds[i] == t
                if members == 0:
                    if n_moved:
                        return None  # a type with no open run moves none
                    continue
                if n_moved > members:
                    return None
                # the runs of a type that cannot close and moves fewer join pinned runs here
                joins = n_starting > 0 and t in (join_a, join_c)
                if not closes[t] and n_moved != members and not joins:
                    return None
                idx = 0
                for i in range(m):
                    if kinds[i] != t:
                        continue
                    r = open_runs[c, i]
                    if idx < n_moved:
                        if idx >= n_tile:
                            jokers[r] |= 1 << length[r]
                            kind[r] = after_joker[t]
                        else:
                            kind[r] = after_tile[t]
                        length[r] += 1
                        if kind[r] < 0:
                            return None
                        still[n_still] = r
                        n_still += 1
                    elif closes[t]:
                        order[n_closed] = r
                        n_closed += 1
                    else:  # it joins a pinned run starting here
                        joined[n_joined] = r
                        n_joined += 1
                    idx += 1
            for _ in range(starts):
                if n_runs >= MAX_DECODED_RUNS or n_still >= MAX_OPEN_PER_COLOUR:
                    return None
                colour[n_runs] = c
                start[n_runs] = p + 1
                length[n_runs] = 1
                kind[n_runs] = TYPE_A
                still[n_still] = n_runs
                n_still += 1
                n_runs += 1
            if n_starting:
                if n_joined > n_starting or kind_e < 0:
                    return None
                _sort_longest_first(joined, n_joined, length)
                for i in range(n_joined + n_starting):
                    if i < n_joined:  # a short run joins the first pin here it may join
                        r = joined[i]
                        q = 0
                        while q < n_pins and not (free[q] and pin_runs[q, 4 if length[r] == 1 else 5]):
                            q += 1
                        if q == n_pins:
                            return None
                    else:  # the pins no run joined start alone
                        q = 0
                        while q < n_pins and not free[q]:
                            q += 1
                        if q == n_pins:
                            break
                        if n_runs >= MAX_DECODED_RUNS:
                            return None
                        r = n_runs
                        n_runs += 1
                        colour[r] = c
                        start[r] = pin_runs[q, 2]
                        length[r] = 0
                    free[q] = False
                    pin_of[r] = q
                    pin_off[r] = length[r]
                    length[r] += pin_runs[q, 3]
                    kind[r] = kind_e
                    in_flight[n_flight] = r
                    n_flight += 1
                    if pin_runs[q, 7]:
                        tails[n_tails] = r
                        tail_step[n_tails] = (pin_runs[q, 1] // n_col + 1) * n_col + c
                        n_tails += 1
            # the tiles left go to the pinned groups that lack this colour, then to the
            # ``pin_tail`` runs, one each
            absorbed = used - by_tile - starts - in_groups
            if absorbed < 0:
                return None
            for g in group_room[step]:
                if absorbed == 0 or g < 0:
                    break
                taken[g, c] = True
                absorbed -= 1
            for i in range(n_tails):
                if absorbed > 0 and tail_step[i] == step:
                    length[tails[i]] += 1
                    absorbed -= 1
            if absorbed:
                return None
            # the pinned runs whose last tile is here: open again (valid), or closed
            left = 0
            for i in range(n_flight):
                r = in_flight[i]
                if pin_runs[pin_of[r], 1] != step:
                    in_flight[left] = r
                    left += 1
                elif pin_runs[pin_of[r], 6]:
                    if n_still >= MAX_OPEN_PER_COLOUR:
                        return None
                    still[n_still] = r
                    n_still += 1
                else:
                    order[n_closed] = r
                    n_closed += 1
            n_flight = left
            for i in range(n_still):
                open_runs[c, i] = still[i]
            n_open[c] = n_still
        group_jokers[p] = steps[k]
        k += 1
    if n_flight:
        return None
    # at the last position a run short of a set closes with leading jokers (J 12 13, J J 13)
    for c in range(n_col):
        for i in range(n_open[c]):
            r = open_runs[c, i]
            lead = top_jokers[kind[r]]
            if lead < 0 or start[r] - lead < 1:
                return None
            start[r] -= lead
            length[r] += lead
            pin_off[r] += lead
            jokers[r] = (jokers[r] << lead) | ((1 << lead) - 1)
            order[n_closed] = r
            n_closed += 1
    runs = np.empty((n_closed, 6), dtype=np.int64)
    for i in range(n_closed):
        r = order[i]
        runs[i, 0], runs[i, 1], runs[i, 2] = colour[r], start[r], length[r]
        runs[i, 3], runs[i, 4], runs[i, 5] = jokers[r], pin_of[r], pin_off[r]
    grouped = np.zeros(n_pos, dtype=np.bool_)
    for p in range(n_pos):
        grouped[p] = group_jokers[p] > 0 or to_groups[p].any()
    at = np.flatnonzero(grouped)
    return runs, at, to_groups[at], group_jokers[at], taken, lifted


@numba.njit(cache=True, nogil=True)
def _sort_longest_first(runs, n, length):
    """Sort ``runs[:n]`` by length, longest first, ties in their order (insertion sort)."""
    for i in range(1, n):
        r = runs[i]
        j = i
        while j > 0 and length[runs[j - 1]] < length[r]:
            runs[j] = runs[j - 1]
            j -= 1
        runs[j] = r


@numba.njit(cache=True, nogil=True)
def _lift(runs, n_open, c, kind, lift_kind, start, length, jokers, out):
    """``replay``'s promotion: the first of colour ``c``'s open ``runs`` of type ``lift_kind``
    leaves them, its first position, length and joker mask into ``out``; False where none is open."""
    m = n_open[c]
    for i in range(m):
        r = runs[i]
        if kind[r] == lift_kind:
            out[0], out[1], out[2] = start[r], length[r], jokers[r]
            for j in range(i, m - 1):
                runs[j] = runs[j + 1]
            n_open[c] = m - 1
            return True
    return False
