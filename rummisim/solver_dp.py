"""Exact move search as a dynamic program over tile values (van Rijn, Takes & Vis 2015).

The program walks the positions 1..V of a run (plus V+1, the high 1, with
``runs.wrap: high_low``) and, inside each position, the colours one by one. Its
state after a step is

- per colour, the multiset of runs still open, each reduced to one of four types
  by its length capped at 3 (the minimum run length) and its numbered tiles
  capped at 2 (every set needs two numbered tiles): ``A`` one tile; ``C`` two
  tiles; ``D`` waiting for a numbered tile (one numbered tile so far with a
  joker after it, or a valid run followed by a joker); ``E`` valid, may close.
  A colour holds at most ``copies + jokers`` open runs (each holds a tile or a
  joker at the current position), so no legal table is cut off;
- the jokers placed so far;
- the tiles of the current value set aside for groups, as their number ``n`` and
  the largest count of one colour ``m``: they form groups of distinct colours
  (round robin over ``k`` groups) iff some ``k`` has ``m <= k``, ``2k <= n`` and
  balanced sizes within ``groups.max_size``; jokers fill them to ``min_size``;
- with wrap, per colour, the 1s used low (at position 1), so that position V+1
  takes only the others.

Jokers. The DP places a joker only where a set needs it; every other joker (a
"spare": the end of a valid run, a 4th group member) is added when the table is
decoded, where some set has room, and all rack jokers are counted as played. If
they do not fit (tiny tables), the answer is ``None``. Canonical forms keep the
state space small without losing any optimum: a leading joker can always move to
the end of its run, except for a two-tile run at the top (``J 12 13``), which the
final step closes with one; a joker at a face whose tile stays on the rack could
be swapped for that tile; a new run never starts with a bare tile while a valid
run of that colour closes (extending that run is never worse).

At a colour step every open run is extended by a tile or a joker, or closed
(``E`` only); tiles not used by runs start new runs or go to the groups of their
value. The score is the profile objective as in ``solver_milp``: tiles placed
with the value as tie-break, or the reverse (a rack joker counts
``jokers.penalty`` points). Runs longer than V (wrap: 1 low and high in one run)
are cut in two when decoded.

Locked table jokers: each choice of keeping every table joker (at a face it may
keep; in the DP it is a tile of that face, which only relaxes the two-numbered
rule) or freeing it (the matching rack tile must be played; the reuse rule is not
modelled) bounds the optimum from above; the best bound is the answer when its
play passes ``validate_move``, else ``None``.

The kernel is compiled with numba; states live in flat arrays with one hash table
per step. The number of states is bounded (deterministic, never wall time): past
the bound the solver answers ``None`` and ``solver.solve`` uses the MILP.

Scope: turn mode with full rearrangement, objectives ``tiles`` and ``value``, wrap
``none`` and ``high_low``, ``discard_pile``, any jokers on the rack, table jokers
``free`` or ``locked``. ``None`` for everything else (``turn.rearrange: false``,
``take_from_joker_sets: false`` with table jokers, ``runs.min_length`` other than
3, more than 7 open runs per colour). Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numba
import numpy as np

from rummisim.melds import Meld, make_meld
from rummisim.moves import IllegalMove, joker_acceptable, validate_move
from rummisim.profile import RuleProfile
from rummisim.solver_milp import TILE_WEIGHT, MilpResult

N_TYPES = 4  # run types A, C, D, E (see the module docstring)
TYPE_A, TYPE_C, TYPE_D, TYPE_E = range(N_TYPES)
AFTER_TILE = (TYPE_C, TYPE_E, TYPE_E, TYPE_E)
AFTER_JOKER = (TYPE_D, TYPE_E, TYPE_D, TYPE_D)
MAX_STATES = 1 << 21  # total states over all steps before the DP gives up (deterministic)
HASH_BITS = 19  # one step holds at most half of 2**HASH_BITS states
MAX_OPEN_RUNS = 7  # open runs per colour that the action code can describe
MAX_KEY_BITS = 62

OVERFLOW = -2
NO_STATE = -1


# ----- per-profile tables ------------------------------------------------------------------


@dataclass(frozen=True)
class _Tables:
    """Encodings of one profile, built once: colour states, their moves, group jokers."""

    max_runs: int
    dec: np.ndarray  # (states, 4) open runs by type
    move_start: np.ndarray  # (states, copies + 1) -> first row of the moves with u tiles for runs
    move_end: np.ndarray
    moves: np.ndarray  # rows (new state, jokers, action bits), by jokers within a block
    group_jokers: np.ndarray  # (n, m) -> jokers the groups of a value need, -1 if none can form
    width: int  # bits of a colour state
    n_bits: int
    m_bits: int
    low_bits: int
    jokers_at: int
    n_at: int
    m_at: int
    low_at: int


def _bits(n: int) -> int:
    return max(1, int(n).bit_length())


def _group_jokers(n: int, m: int, min_size: int, max_size: int) -> int:
    """Fewest jokers that let ``n`` tiles of one value (at most ``m`` of a colour) form groups
    of distinct colours with two numbered tiles each; -1 if no grouping exists. Round robin
    over ``k`` groups gives balanced sizes, which need the fewest jokers."""
    if n == 0:
        return 0
    best = -1
    for k in range(max(m, 1), n // 2 + 1):
        small, extra = divmod(n, k)
        sizes = [small + 1] * extra + [small] * (k - extra)
        if max(sizes) > max_size:
            continue
        need = sum(max(0, min_size - s) for s in sizes)
        if best < 0 or need < best:
            best = need
    return best


def _colour_moves(counts: tuple[int, ...], u: int) -> list[tuple[tuple[int, ...], int, int]]:
    """Every treatment of one colour's open runs (``counts`` by type) with ``u`` tiles for runs:
    (new counts, jokers used, action bits). Jokers go only where a set needs them."""
    na, nc, nd, ne = counts
    out = []
    for aa in range(na + 1):
        for ac in range(nc + 1):
            for ad in range(nd + 1):
                for ae in range(ne + 1):
                    starts = u - (aa + ac + ad + ae)
                    if starts < 0:
                        continue
                    for be in range(ne - ae + 1):
                        if starts > 0 and ne - ae - be > 0:
                            continue  # extending the closing run is never worse than a new one
                        # new runs start with a tile: a leading joker is needed only at the top
                        new = (starts, aa, (na - aa) + (nd - ad) + be, nc + ad + ae)
                        jokers = (na - aa) + (nc - ac) + (nd - ad) + be
                        bits = aa | (ac << 3) | (ad << 6) | (ae << 9) | (be << 12) | (starts << 15)
                        out.append((new, jokers, bits))
    return out


@lru_cache(maxsize=32)
def _tables(profile: RuleProfile, copies: int) -> _Tables | None:
    """Tables for a profile with up to ``copies`` tiles per face (more than the tile set's
    copies when kept table jokers stand in as tiles at their faces)."""
    ts = profile.tileset
    max_runs = copies + ts.jokers
    if max_runs > MAX_OPEN_RUNS:
        return None
    index: dict[tuple[int, ...], int] = {}
    for counts in product(range(max_runs + 1), repeat=N_TYPES):
        if sum(counts) <= max_runs:
            index[counts] = len(index)
    dec = np.array(list(index), dtype=np.int64)
    move_start = np.zeros((len(index), copies + 1), dtype=np.int64)
    move_end = np.zeros_like(move_start)
    rows: list[tuple[int, int, int]] = []
    for counts, s in index.items():
        for u in range(copies + 1):
            move_start[s, u] = len(rows)
            for new, jokers, bits in sorted(_colour_moves(counts, u), key=lambda row: row[1]):
                if jokers <= ts.jokers and new in index:
                    rows.append((index[new], jokers, bits))
            move_end[s, u] = len(rows)
    moves = np.array(rows, dtype=np.int64).reshape(-1, 3)
    n_max = ts.colours * copies
    group_jokers = np.array(
        [
            [_group_jokers(n, m, profile.groups.min_size, profile.groups.max_size) for m in range(copies + 1)]
            for n in range(n_max + 1)
        ],
        dtype=np.int64,
    )
    width = _bits(len(index) - 1)
    n_bits, m_bits, low_bits = _bits(n_max), _bits(copies), _bits(copies)
    jokers_at = ts.colours * width
    n_at = jokers_at + 3
    m_at = n_at + n_bits
    low_at = m_at + m_bits
    key_bits = low_at + (ts.colours * low_bits if profile.wrap else 0)
    if key_bits > MAX_KEY_BITS or ts.jokers > 7:
        return None
    for arr in (dec, move_start, move_end, moves, group_jokers):
        arr.setflags(write=False)
    return _Tables(
        max_runs,
        dec,
        move_start,
        move_end,
        moves,
        group_jokers,
        width,
        n_bits,
        m_bits,
        low_bits,
        jokers_at,
        n_at,
        m_at,
        low_at,
    )


# ----- the compiled kernel ------------------------------------------------------------------

_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=False, nogil=True)
def _insert(
    key, score, parent, action, keys, scores, parents, actions, count, step_lo, hkeys, hidx, hstamp, stamp
):
    """Put a state into the current step (keep the best score per key); return the new count
    or OVERFLOW."""
    hbits = np.uint64(HASH_BITS)
    h = np.int64((np.uint64(key) * _HASH_MULT) >> (np.uint64(64) - hbits))
    mask = (1 << HASH_BITS) - 1
    while True:
        if hstamp[h] != stamp:
            if count >= keys.shape[0] or count - step_lo >= (1 << (HASH_BITS - 1)):
                return OVERFLOW
            hstamp[h] = stamp
            hkeys[h] = key
            hidx[h] = count
            keys[count] = key
            scores[count] = score
            parents[count] = parent
            actions[count] = action
            return count + 1
        if hkeys[h] == key:
            j = hidx[h]
            if score > scores[j]:
                scores[j] = score
                parents[j] = parent
                actions[j] = action
            return count
        h = (h + 1) & mask


@numba.njit(cache=False, nogil=True)
def _kernel(
    tcnt,  # (P, C) numbered table tiles per position and colour (must be used)
    rcnt,  # (P, C) numbered rack tiles (may be used)
    gain,  # (P,) objective gain of one rack tile at that position
    wrapable,  # (C,) colours whose 1s are split between position 1 and V+1
    allow_group,  # (P,) groups allowed at that position (not at V+1)
    n_jokers,
    move_start,
    move_end,
    moves,
    group_jokers,
    width,
    jokers_at,
    n_at,
    m_at,
    low_at,
    low_bits,
    n_bits,
    m_bits,
    keys,
    scores,
    parents,
    actions,
    hkeys,
    hidx,
    hstamp,
    stamp,
    step_bounds,
    dec,
):
    """Run the DP. Returns (index of the best final state, NO_STATE or OVERFLOW; last stamp)."""
    n_pos, n_col = tcnt.shape
    wmask = np.int64((1 << width) - 1)
    nmask = np.int64((1 << n_bits) - 1)
    mmask = np.int64((1 << m_bits) - 1)
    lmask = np.int64((1 << low_bits) - 1)
    jmask = np.int64(7)
    keys[0] = 0
    scores[0] = 0
    parents[0] = -1
    actions[0] = 0
    lo = 0
    hi = 1
    step = 0
    step_bounds[0] = 0
    step_bounds[1] = 1
    last = n_pos - 1
    for p in range(n_pos):
        gp = gain[p]
        for c in range(n_col):
            stamp += 1
            count = hi
            t = tcnt[p, c]
            r = rcnt[p, c]
            shift = c * width
            low_shift = low_at + c * low_bits
            wrap_low = wrapable[c] and p == 0
            wrap_high = wrapable[c] and p == last and p > 0
            for i in range(lo, hi):
                key = keys[i]
                base = scores[i]
                s = (key >> shift) & wmask
                used = (key >> jokers_at) & jmask
                rem = n_jokers - used
                n_grp = (key >> n_at) & nmask
                m_grp = (key >> m_at) & mmask
                low = (key >> low_shift) & lmask
                if wrap_low:
                    x_lo = 0
                    x_hi = t + r
                elif wrap_high:
                    x_lo = max(0, t - low)
                    x_hi = t + r - low
                else:
                    x_lo = t
                    x_hi = t + r
                cleared = key & ~(wmask << shift) & ~(jmask << jokers_at)
                cleared = cleared & ~(nmask << n_at) & ~(mmask << m_at)
                if wrap_low or wrap_high:
                    cleared = cleared & ~(lmask << low_shift)
                for x in range(x_lo, x_hi + 1):
                    sc_x = base + (x if wrap_low else x - t) * gp
                    g_max = min(x, mmask) if allow_group[p] else 0
                    # a joker here while a tile of this face stays on the rack: the tile
                    # could take the joker's place (the joker then goes where there is room)
                    spare_tile = x < t + r and not (wrap_low or wrap_high)
                    for g in range(g_max + 1):
                        if n_grp + g > nmask:
                            break
                        grp = ((n_grp + g) << n_at) | (max(m_grp, g) << m_at)
                        if wrap_low:
                            grp = grp | (x << low_shift)
                        for row in range(move_start[s, x - g], move_end[s, x - g]):
                            jokers = moves[row, 1]
                            if jokers > rem or (jokers > 0 and spare_tile):
                                break
                            nk = cleared | (moves[row, 0] << shift) | ((used + jokers) << jokers_at) | grp
                            action = moves[row, 2] | (x << 32) | (g << 36)
                            count = _insert(
                                nk,
                                sc_x,
                                i,
                                action,
                                keys,
                                scores,
                                parents,
                                actions,
                                count,
                                hi,
                                hkeys,
                                hidx,
                                hstamp,
                                stamp,
                            )
                            if count < 0:
                                return OVERFLOW, stamp
            lo = hi
            hi = count
            step += 1
            step_bounds[step + 1] = hi
            if hi == lo:
                return NO_STATE, stamp
        # the groups of this value: the numbered tiles set aside plus the jokers they need
        stamp += 1
        count = hi
        for i in range(lo, hi):
            key = keys[i]
            used = (key >> jokers_at) & jmask
            jg = group_jokers[(key >> n_at) & nmask, (key >> m_at) & mmask]
            if jg < 0 or used + jg > n_jokers:
                continue
            base = key & ~(nmask << n_at) & ~(mmask << m_at) & ~(jmask << jokers_at)
            nk = base | ((used + jg) << jokers_at)
            count = _insert(
                nk, scores[i], i, jg, keys, scores, parents, actions, count, hi, hkeys, hidx, hstamp, stamp
            )
            if count < 0:
                return OVERFLOW, stamp
        lo = hi
        hi = count
        step += 1
        step_bounds[step + 1] = hi
        if hi == lo:
            return NO_STATE, stamp
    # at the top a run of two tiles closes with a leading joker (J 12 13); a leading joker
    # anywhere else could move to the end of its run, or is not needed at all
    best = NO_STATE
    best_score = 0
    for i in range(lo, hi):
        key = keys[i]
        ok = True
        pairs = 0
        for c in range(n_col):
            s = (key >> (c * width)) & wmask
            pairs += dec[s, 1]
            if dec[s, 0] + dec[s, 2] > 0:
                ok = False
                break
        if ok and ((key >> jokers_at) & jmask) + pairs > n_jokers:
            ok = False
        if ok and (best == NO_STATE or scores[i] > best_score):
            best = i
            best_score = scores[i]
    return best, stamp


# ----- buffers (reused between calls; the kernel never reads stale entries: stamps) ----------


class _Buffers:
    def __init__(self) -> None:
        self.keys = np.empty(MAX_STATES, dtype=np.int64)
        self.scores = np.empty(MAX_STATES, dtype=np.int64)
        self.parents = np.empty(MAX_STATES, dtype=np.int64)
        self.actions = np.empty(MAX_STATES, dtype=np.int64)
        self.hkeys = np.empty(1 << HASH_BITS, dtype=np.int64)
        self.hidx = np.empty(1 << HASH_BITS, dtype=np.int64)
        self.hstamp = np.zeros(1 << HASH_BITS, dtype=np.int64)
        self.stamp = 0


_BUFFERS: list[_Buffers] = []


def _buffers() -> _Buffers:
    if not _BUFFERS:
        _BUFFERS.append(_Buffers())
    return _BUFFERS[0]


# ----- the Python side ------------------------------------------------------------------------


def _gain(profile: RuleProfile, value: int, objective: str) -> int:
    return TILE_WEIGHT + value if objective == "tiles" else TILE_WEIGHT * value + 1


@dataclass
class _Run:
    kind: int
    tiles: list[int]
    faces: list[int]


def supported(profile: RuleProfile, table: tuple[Meld, ...]) -> bool:
    """Whether ``solve_dp`` handles turn-mode positions of this profile and table at all."""
    if (
        not profile.turn.rearrange
        or profile.runs.min_length != 3
        or _tables(profile, profile.tileset.copies) is None
    ):
        return False
    has_jokers = any(t == profile.tileset.joker for m in table for t in m.tiles)
    return not (has_jokers and not profile.jokers.take_from_joker_sets)


def solve_dp(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    *,
    objective: str,
) -> MilpResult | None:
    """Best turn-mode play with full rearrangement (the player has opened), or ``None``
    when the position is outside what the DP handles (see the module docstring)."""
    if objective not in ("tiles", "value") or not supported(profile, table):
        return None
    rack = tuple(sorted(int(t) for t in rack))
    table = tuple(table)
    found = _solve_rack(rack, rack, table, profile, objective)
    if found is None:
        return None
    _, new_table, played, states = found
    if profile.discard_pile and played and len(played) >= len(rack):
        # the play must leave a tile: the best play of the rack less one tile of some code
        best = None
        for code in sorted(set(rack)):
            less = list(rack)
            less.remove(code)
            sub = _solve_rack(tuple(less), rack, table, profile, objective)
            if sub is None:
                return None
            states += sub[3]
            if sub[2] and (best is None or sub[0] > best[0]):
                best = sub
        if best is None:
            return MilpResult(table, (), True, states)
        _, new_table, played, _ = best
    if not played:
        return MilpResult(table, (), True, states)
    return MilpResult(new_table, played, True, states)


_Found = tuple[int, tuple[Meld, ...], tuple[int, ...], int]


def _solve_rack(
    rack: tuple[int, ...],
    full_rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    objective: str,
) -> _Found | None:
    """The best play of ``rack`` (score, new table, played, states), or None if unknown.

    Locked table jokers: every choice of keeping each joker (at a face it may keep; it
    enters the DP as a tile of that face, which only relaxes the two-numbered-tiles rule)
    or freeing it (the matching rack tile must be played; the reuse rule is not modelled)
    gives an upper bound; the best bound is the answer if its play passes
    ``validate_move``."""
    ts = profile.tileset
    locked = [
        (face, joker_acceptable(profile, meld, face))
        for meld in table
        for t, face in zip(meld.tiles, meld.faces, strict=True)
        if t == ts.joker
    ]
    if not locked or profile.jokers.table_jokers == "free":
        return _best(rack, table, profile, objective)
    rack_counts = np.bincount(np.asarray(rack, dtype=np.int64), minlength=ts.n_codes)
    options = [
        [(False, f) for f in sorted(ok)] + [(True, f) for f in sorted(ok) if rack_counts[f] > 0]
        for _, ok in locked
    ]
    results: list[_Found] = []
    states = 0
    for choice in product(*options):
        forced = tuple(f for freed, f in choice if freed)
        if any(forced.count(f) > rack_counts[f] for f in forced):
            continue
        virtual = tuple(f for freed, f in choice if not freed)
        found = _best(rack, table, profile, objective, virtual=virtual, forced=forced)
        if found is None:
            return None
        states += found[3]
        results.append(found)
    results.sort(key=lambda found: -found[0])
    top = results[0][0]
    for score, new_table, played, _ in results:
        if score < top:
            break
        if not played:
            return score, table, (), states
        try:
            validate_move(profile, table, full_rack, new_table, played, opened=True)
        except IllegalMove:
            continue
        return score, new_table, played, states
    return None


def _best(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    objective: str,
    *,
    virtual: tuple[int, ...] = (),
    forced: tuple[int, ...] = (),
) -> _Found | None:
    """(score, new table, played, states) of the best play, treating table jokers as free,
    except ``virtual``: table jokers kept at these faces (tiles of that face in the DP, jokers
    again in the answer); ``forced``: rack tiles that must be played.

    The DP places only the jokers some set needs; every other joker (the table's must stay,
    the rack's score) is added afterwards where a set has room. If they do not fit, the
    answer is ``None`` (the DP score assumed they would)."""
    ts = profile.tileset
    V, C = ts.values, ts.colours
    joker = ts.joker
    real_counts = np.bincount(
        np.asarray([t for m in table for t in m.tiles], dtype=np.int64), minlength=ts.n_codes
    )
    full_rack_counts = np.bincount(np.asarray(rack, dtype=np.int64), minlength=ts.n_codes)
    table_counts = real_counts.copy()
    rack_counts = full_rack_counts.copy()
    table_counts[joker] -= len(virtual)
    offset = 0
    for f in virtual:
        table_counts[f] += 1
    for f in forced:
        table_counts[f] += 1
        rack_counts[f] -= 1
        offset += _gain(profile, ts.value_of(f), objective)
    n_tj, n_rj = int(table_counts[joker]), int(rack_counts[joker])
    if n_tj + n_rj > ts.jokers or n_tj < 0 or np.any(rack_counts < 0):
        return None
    copies = max(ts.copies, int(np.max(table_counts[:joker] + rack_counts[:joker])))
    tab = _tables(profile, copies)
    if tab is None:
        return None
    n_pos = V + 1 if profile.wrap else V
    tgrid = np.zeros((n_pos, C), dtype=np.int64)
    rgrid = np.zeros((n_pos, C), dtype=np.int64)
    tgrid[:V] = table_counts[:joker].reshape(C, V).T
    rgrid[:V] = rack_counts[:joker].reshape(C, V).T
    wrapable = np.zeros(C, dtype=np.bool_)
    if profile.wrap:
        wrapable[:] = (tgrid[0] + rgrid[0]) > 0
        tgrid[V] = np.where(wrapable, tgrid[0], 0)
        rgrid[V] = np.where(wrapable, rgrid[0], 0)
    gain = np.array([_gain(profile, p % V + 1, objective) for p in range(n_pos)], dtype=np.int64)
    allow_group = np.ones(n_pos, dtype=np.bool_)
    if profile.wrap:
        allow_group[V] = False
    n_jokers = n_tj + n_rj
    buf = _buffers()
    n_steps = n_pos * (C + 1)
    step_bounds = np.zeros(n_steps + 2, dtype=np.int64)
    best, buf.stamp = _kernel(
        tgrid,
        rgrid,
        gain,
        wrapable,
        allow_group,
        n_jokers,
        tab.move_start,
        tab.move_end,
        tab.moves,
        tab.group_jokers,
        tab.width,
        tab.jokers_at,
        tab.n_at,
        tab.m_at,
        tab.low_at,
        tab.low_bits,
        tab.n_bits,
        tab.m_bits,
        buf.keys,
        buf.scores,
        buf.parents,
        buf.actions,
        buf.hkeys,
        buf.hidx,
        buf.hstamp,
        buf.stamp,
        step_bounds,
        tab.dec,
    )
    if best < 0:
        return None
    states = int(step_bounds[n_steps + 1])
    chain = []
    i = int(best)
    while i > 0:
        chain.append(int(buf.actions[i]))
        i = int(buf.parents[i])
    chain.reverse()
    if len(chain) != n_steps:
        return None
    score = int(buf.scores[best]) + offset + n_rj * _gain(profile, profile.jokers.penalty, objective)
    new_table = _decode(chain, profile, n_pos, n_jokers)
    if new_table is None:
        return None
    if virtual:
        new_table = _restore_jokers(new_table, virtual, ts)
    new_counts = np.bincount(
        np.asarray([t for m in new_table for t in m.tiles], dtype=np.int64), minlength=ts.n_codes
    )
    extra = new_counts - real_counts
    if np.any(extra < 0) or np.any(extra > full_rack_counts):
        return None
    played = tuple(int(c) for c in np.repeat(np.arange(ts.n_codes), extra))
    return score, new_table, played, states


def _restore_jokers(new_table: tuple[Meld, ...], virtual: tuple[int, ...], ts) -> tuple[Meld, ...]:
    """Turn one tile of each kept joker's face back into that joker (in the set with the
    most numbered tiles, so that it keeps two)."""
    melds = list(new_table)
    for face in virtual:
        holders = [i for i, m in enumerate(melds) if face in m.tiles]
        if not holders:
            continue
        i = max(holders, key=lambda i: sum(t != ts.joker for t in melds[i].tiles))
        tiles = list(melds[i].tiles)
        tiles[tiles.index(face)] = ts.joker
        melds[i] = Meld(tuple(tiles), melds[i].faces)
    return tuple(melds)


def _field(action: int, at: int, bits: int = 3) -> int:
    return (action >> at) & ((1 << bits) - 1)


def _decode(chain: list[int], profile: RuleProfile, n_pos: int, n_jokers: int) -> tuple[Meld, ...] | None:
    """Replay the chosen steps into concrete sets, then add the jokers no set needed."""
    ts = profile.tileset
    V, C, joker = ts.values, ts.colours, ts.joker
    open_runs: list[list[_Run]] = [[] for _ in range(C)]
    runs: list[tuple[list[int], list[int]]] = []
    groups: list[tuple[list[int], list[int]]] = []
    k = 0
    for p in range(n_pos):
        value = p % V + 1
        group_tiles: list[int] = []
        for c in range(C):
            action = chain[k]
            k += 1
            face = ts.code(c, value)
            ext_tile = [_field(action, 3 * t) for t in range(N_TYPES)]
            joker_e, starts = _field(action, 12), _field(action, 15)
            group_tiles.extend([face] * _field(action, 36, 4))
            by_kind: list[list[_Run]] = [[] for _ in range(N_TYPES)]
            for run in open_runs[c]:
                by_kind[run.kind].append(run)
            still: list[_Run] = []
            for kind in range(N_TYPES):
                members = by_kind[kind]
                n_tile = ext_tile[kind]
                n_joker = len(members) - n_tile if kind != TYPE_E else joker_e
                if n_tile + n_joker > len(members):
                    return None
                for idx, run in enumerate(members):
                    if idx < n_tile + n_joker:
                        as_tile = idx < n_tile
                        run.tiles.append(face if as_tile else joker)
                        run.faces.append(face)
                        run.kind = (AFTER_TILE if as_tile else AFTER_JOKER)[kind]
                        still.append(run)
                    else:
                        runs.append((run.tiles, run.faces))
            still.extend(_Run(TYPE_A, [face], [face]) for _ in range(starts))
            open_runs[c] = still
        made = _groups(group_tiles, chain[k], profile)
        k += 1
        if made is None:
            return None
        groups.extend(made)
    for c in range(C):
        for run in open_runs[c]:
            if run.kind == TYPE_C:
                run.tiles.insert(0, joker)
                run.faces.insert(0, ts.code(c, ts.value_of(run.faces[0]) - 1))
            elif run.kind != TYPE_E:
                return None
            runs.append((run.tiles, run.faces))
    spare = n_jokers - sum(t == joker for tiles, _ in runs + groups for t in tiles)
    if spare < 0 or not _add_spare_jokers(runs, groups, spare, profile):
        return None
    melds: list[Meld] = []
    for tiles, faces in runs + groups:
        pieces = _split_long(tiles, faces, profile)
        if pieces is None:
            return None
        for tiles_part, faces_part in pieces:
            try:
                melds.append(make_meld(tiles_part, faces_part, profile))
            except ValueError:
                return None
    return tuple(sorted(melds, key=lambda m: (m.faces, m.tiles)))


def _add_spare_jokers(runs, groups, spare: int, profile: RuleProfile) -> bool:
    """Put ``spare`` jokers into sets with room (the end of a run, a missing colour of a group)."""
    ts = profile.tileset
    V = ts.values
    for tiles, faces in groups:
        present = {ts.colour_of(f) for f in faces}
        value = ts.value_of(faces[0])
        for c in range(ts.colours):
            if spare == 0:
                return True
            if c not in present and len(tiles) < profile.groups.max_size:
                tiles.append(ts.joker)
                faces.append(ts.code(c, value))
                present.add(c)
                spare -= 1
    for tiles, faces in runs:
        colour = ts.colour_of(faces[0])
        # positions of the run in order (a high 1 is V + 1)
        first = ts.value_of(faces[0])
        while spare and len(tiles) < V:
            last = first + len(tiles) - 1
            top = V + 1 if profile.wrap and first > 1 else V
            if last < top:
                tiles.append(ts.joker)
                faces.append(ts.code(colour, last % V + 1))
            elif first > 1 and not (profile.wrap and last == V + 1 and first == 2):
                first -= 1
                tiles.insert(0, ts.joker)
                faces.insert(0, ts.code(colour, first))
            else:
                break
            spare -= 1
    return spare == 0


def _groups(tiles: list[int], jokers: int, profile: RuleProfile) -> list[tuple[list[int], list[int]]] | None:
    """Groups of distinct colours from same-value tiles plus the jokers they need
    (round robin over ``k`` groups, the ``k`` that needs exactly ``jokers``)."""
    if not tiles:
        return [] if jokers == 0 else None
    ts = profile.tileset
    lo, hi = profile.groups.min_size, profile.groups.max_size
    tiles = sorted(tiles)
    value = ts.value_of(tiles[0])
    for k in range(1, len(tiles) // 2 + 1):
        members: list[list[int]] = [[] for _ in range(k)]
        for idx, t in enumerate(tiles):
            members[idx % k].append(t)
        if any(len(set(m)) != len(m) or len(m) > hi for m in members):
            continue
        need = [max(0, lo - len(m)) for m in members]
        if sum(need) != jokers:
            continue
        out = []
        for m, j in zip(members, need, strict=True):
            colours = {ts.colour_of(t) for t in m}
            missing = [ts.code(c, value) for c in range(ts.colours) if c not in colours][:j]
            out.append((m + [ts.joker] * j, m + missing))
        return out
    return None


def _split_long(
    tiles: list[int], faces: list[int], profile: RuleProfile
) -> list[tuple[list[int], list[int]]] | None:
    """A run longer than the values (wrap mode: 1 low and high) cut into two valid runs."""
    ts = profile.tileset
    n = len(tiles)
    if n <= ts.values:
        return [(tiles, faces)]
    need = profile.runs.min_length
    for cut in range(need, n - need + 1):
        left, right = tiles[:cut], tiles[cut:]
        if (
            len(left) <= ts.values
            and len(right) <= ts.values
            and sum(t != ts.joker for t in left) >= 2
            and sum(t != ts.joker for t in right) >= 2
        ):
            return [(left, faces[:cut]), (right, faces[cut:])]
    return None
