"""The compiled kernel of the dynamic program over tile values (see ``dp`` for the whole search).

The program walks the positions 1..V of a run (plus V+1, the high 1, with
``runs.wrap: high_low``) and, inside each position, the colours one by one. Its
state after a step is

- per colour, the multiset of runs still open, each reduced to a type
  (``tables.RunTypes``). A set needs one numbered tile and holds at most
  ``jokers.max_per_set`` jokers (RULES.md "open questions": ``R7 J J`` is a set);
  every run starts with a tile, so it has its numbered tile, and its type is its
  length capped at 3 (the minimum run length): ``A`` one tile; ``C`` two items
  (``R3 R4`` or ``R3 J``); ``D`` a valid run followed by a joker, waiting for a
  tile; ``E`` valid, may close. Where the cap could bind (more jokers to place
  than ``max_per_set``) each type also carries the jokers the run holds
  (``C0 C1``, ``E0..EM``, ``D1..DM``) and a joker past the cap is no move.
  A colour holds at most ``copies + jokers`` open runs (each holds a tile or a
  joker at the current position), so no legal table is cut off;
- the jokers placed so far;
- the tiles of the current value set aside for groups, as their number ``n`` and
  the largest count of one colour ``m``: they form groups of distinct colours
  (round robin over ``k`` groups) iff some ``k`` has ``m <= k``, ``2k <= n`` and
  balanced sizes within ``groups.max_size``; jokers fill them to ``min_size``
  (at most ``max_per_set`` a group). A group of one tile and two jokers is the
  same set of tiles as a run (``R5 J J``), which the DP builds as a run;
- with wrap, per colour, the 1s used low (at position 1), so that position V+1
  takes only the others.

Jokers. The DP places a joker only where a set needs it; every other joker (a
"spare": the end of a valid run, a 4th group member) is added when the table is
decoded, where some set has room, and all rack jokers are counted as played. If
they do not fit (tiny tables, or sets full at ``max_per_set``), the answer is ``None``.
Canonical forms keep the state space small without losing any optimum: a leading joker
can always move to the end of its run, except at the top, where the final step closes
a run of two items with one (``J 12 13``, ``J 12 J``) and a lone tile with two
(``J J 13``); a joker at a face whose tile stays on the rack could be swapped for that
tile; a new run never starts with a bare tile while a valid run of that colour that
holds no joker closes (extending that run is never worse; with a joker in it, the
merged run could pass the cap).

At a colour step every open run is extended by a tile or a joker, or closed
(``E`` only); tiles not used by runs start new runs or go to the groups of their
value. The score is the profile objective as in ``milp``: tiles placed
with the value as tie-break, or the reverse (a rack joker counts
``jokers.penalty`` points). Runs longer than V (wrap: 1 low and high in one run)
are cut in two when decoded.

The kernel is compiled with numba and cached on disk (``cache=True``, next to the
module in ``__pycache__``), so fresh processes load it instead of compiling; states
live in flat arrays with one hash table per step, sized to the step (it starts from the
previous step's count and doubles at half load, so the small steps of most searches stay in
the CPU cache; the states and their order do not depend on its size). The number of states is bounded
(deterministic, never wall time): past the bound the pass answers ``OVERFLOW`` and the search gives
up (``GiveUp.STATES``).

The host fields of the tracked host pass (``jokers._tracked_host``) are the kernel's too
(``host_fields``: ``_host_move``). After each colour step of such a pass, a state goes where
another state of the step differs only in its host run and beats it (more rack items, or a run
type that can do all its type can: ``host_fields.host_beats``, ``_drop_dominated``).

Inputs. ``_kernel(grids, tables, buffers, pass_, pins, host)`` takes six records (typed
named tuples, which numba compiles as structs), each made by the module that owns its data:
``grids.Grids`` the position (table and rack tiles per position and colour, the gains, the
wrapping colours, where groups may form, the jokers to place; ``grids._grids``);
``tables.KernelTables`` the profile's colour moves, per-state tables and key layout (built
once with its ``_Tables``); ``Buffers`` the state arrays and hash tables (``_buffers``, one per
process); ``passes.Pass`` one pass's floor, budget and beam (``passes._run_passes``, per
floor); ``pins.PinGrids`` the pinned sets per position and colour (``pins.pin_grids``, zeros
without pins); ``host_fields.HostFields`` the tracked host sets (``host_fields.host_record``), or None, which
compiles a kernel without the host code. Pure; no I/O.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from rummisim.solver.backward import _record, future_ok
from rummisim.solver.host_fields import (
    HOST_ACTIVE,
    HOST_DONE,
    HOST_MASK,
    PROMOTE_MOVES,
    _host_group_jokers,
    _host_move,
    _host_ops,
    _host_state,
    host_lead,
    host_run,
    promoted_run,
    run_field,
)
from rummisim.solver.tables import (
    G_AT,
    HASH_BITS,
    HOST2_GROUP_AT,
    HOST2_OP_AT,
    HOST_GROUP_AT,
    HOST_OP_AT,
    HOST_PROMOTE_AT,
    HOST_SHARE_AT,
    MAX_STATES,
    MIN_HASH_BITS,
    NO_STATE,
    OVER_BUDGET,
    OVERFLOW,
    X_AT,
)

MAX_AHEAD_COLOURS = 5  # up to this many colours, the later colours' runs share the groups' bound


_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True)
def _slot(key, bits):
    return np.int64((np.uint64(key) * _HASH_MULT) >> (np.uint64(64) - np.uint64(bits)))


@numba.njit(cache=True, nogil=True)
def _new_step(htab, hinfo, states):
    """Start a step's hash table: a fresh stamp, and room for about ``states`` states (the
    previous step's count) at a load of at most a half, at least ``1 << MIN_HASH_BITS``
    slots. A step that outgrows it doubles it (``_insert``), up to ``1 << HASH_BITS``."""
    bits = MIN_HASH_BITS
    while bits < HASH_BITS and (1 << (bits - 1)) <= states:
        bits += 1
    hinfo[0] = bits
    hinfo[1] += 1


@numba.njit(cache=True, nogil=True, inline="always")
def _insert(key, score, parent, action, keys, scores, parents, actions, count, step_lo, htab, hinfo):
    """Put a state into the current step (keep the best score per key); return the new count
    (or OVERFLOW) and the state's index. The step's table (``htab`` rows: stamp, key, index;
    ``hinfo``: bits in use, stamp) uses only its first ``1 << bits`` rows, so small steps stay in
    cache; at a load of a half it doubles (a new stamp, the step's states hashed again). State
    indices are the order of first insertion whatever the table's size, so the search is the
    same. Inlined where it
    is called (numba's ``inline="always"``): a call passed every field of its six arrays on the
    stack, and the kernel's speed swung by up to a third with the layout of its own arguments;
    inlined, the kernel is 5-10% faster than with the call on the benchmark positions."""
    bits = hinfo[0]
    if bits < HASH_BITS and count - step_lo >= (1 << (bits - 1)):
        bits += 1
        hinfo[0] = bits
        hinfo[1] += 1
        grown = hinfo[1]
        grow_mask = (1 << bits) - 1
        for j in range(step_lo, count):
            h = _slot(keys[j], bits)
            while htab[h, 0] == grown:
                h = (h + 1) & grow_mask
            htab[h, 0] = grown
            htab[h, 1] = keys[j]
            htab[h, 2] = j
    stamp = hinfo[1]
    mask = (1 << bits) - 1
    h = _slot(key, bits)
    while True:
        if htab[h, 0] != stamp:
            if count >= keys.shape[0] or count - step_lo >= (1 << (HASH_BITS - 1)):
                return OVERFLOW, -1
            htab[h, 0] = stamp
            htab[h, 1] = key
            htab[h, 2] = count
            keys[count] = key
            scores[count] = score
            parents[count] = parent
            actions[count] = action
            return count + 1, count
        if htab[h, 1] == key:
            j = htab[h, 2]
            if score > scores[j]:
                scores[j] = score
                parents[j] = parent
                actions[j] = action
            return count, j
        h = (h + 1) & mask


@numba.njit(cache=True, nogil=True)
def _kernel(grids, tables, buffers, pass_, pins, host, edges, future):
    """Run the DP over the position ``grids`` (``grids.Grids``) with the profile's ``tables``
    (``tables.KernelTables``), its states in ``buffers`` (``Buffers``), under the floor, budget
    and beam of ``pass_`` (``passes.Pass``), with ``pins`` (``pins.PinGrids``) and ``host``
    (``HostFields``, or None: a kernel compiled without the host code); ``edges``
    (``backward.Edges``, or None): a plain pass notes its edges there, and ``future``
    (``backward.Future``, or None) leaves out the tracked states that cannot reach the floor by
    what that plain pass says their projections can still add. Returns (index of the
    best final state, NO_STATE, OVERFLOW or OVER_BUDGET; states created; whether the pass was
    exact: no beam, or a beam that dropped no state). Every state kept can
    still reach ``pass_.bound``, so the best final state of an exact pass is the optimum whenever
    the optimum is at least ``bound``; otherwise the answer is NO_STATE. A beam pass keeps,
    after each step, only the ``beam`` best states (stable order: ties by creation), copied in
    score order behind the step, so its play is legal but not proven best.

    Pins: where pinned runs start, up to that many open runs of type A or C join them (they
    are taken out of the colour state, not extended); where pinned runs end, they come back
    as valid runs after the step's moves; where pinned groups lack the face, up to that many
    of the tiles used go to them."""
    # the fields the loops read, as locals (an array read from a record in a loop would be
    # counted in and out of use each time)
    tcnt, rcnt, gain = grids.table, grids.rack, grids.gain
    wrapable, allow_group, n_jokers = grids.wrapable, grids.allow_group, grids.n_jokers
    moves, move_start, move_end = tables.moves, tables.move_start, tables.move_end
    group_jokers, final_jokers, needy = tables.group_jokers, tables.final_jokers, tables.needy
    debt, drop, pin_add = tables.debt, tables.drop, tables.pin_add
    width, jokers_at, n_at, m_at = tables.width, tables.jokers_at, tables.n_at, tables.m_at
    low_at, low_bits = tables.low_at, tables.low_bits
    keys, scores, parents, actions = buffers.keys, buffers.scores, buffers.parents, buffers.actions
    htab, hinfo = buffers.htab, buffers.hinfo
    rest_gain, bound, limit = pass_.rest_gain, pass_.bound, pass_.limit
    beam, step_cap, debt_unit = pass_.beam, pass_.step_cap, pass_.debt_unit
    pin_start, pin_end, pin_absorb = pins.start, pins.end, pins.absorb
    pin_join_a, pin_join_c = pins.join_a, pins.join_c
    n_pos, n_col = tcnt.shape
    # (a tracked pass takes a ``Future`` always, ``backward.no_future`` where it leaves out no state:
    # numba compiles one tracked kernel for both)
    filtering = host is not None and future.ptr.shape[0] > 0
    wmask = np.int64((1 << width) - 1)
    nmask = np.int64((1 << tables.n_bits) - 1)
    mmask = np.int64((1 << tables.m_bits) - 1)
    lmask = np.int64((1 << low_bits) - 1)
    jmask = np.int64(7)
    keys[0] = 0
    scores[0] = 0
    parents[0] = -1
    actions[0] = 0
    lo = 0
    hi = 1
    created = 1
    last = n_pos - 1
    prune_dead = pass_.prune  # (dead ends: see below)
    whole = True  # no state dropped by a beam: the pass was exact
    # (``_ahead_jokers`` per step, by the tiles set aside for groups, the most of a colour among
    # them and the later colours' runs that need an item: 2 bits a colour, up to MAX_AHEAD_COLOURS)
    combine = n_col <= MAX_AHEAD_COLOURS
    n_later = 1 << (2 * (n_col - 1)) if combine and n_jokers > 0 else 1  # (no jokers: never counted)
    ahead = np.empty((group_jokers.shape[0], group_jokers.shape[1], n_later), dtype=np.int64)
    ahead_at = np.zeros(ahead.shape, dtype=np.int64)  # the step that worked it out
    stamp = 0
    next_tiles = np.empty(n_col, dtype=np.int64)
    avail = np.zeros(n_col, dtype=np.int64)
    # two freed jokers: a host field before its set counts the rack copies in the groups too
    two = host is not None and host.second_at >= 0
    # an exact pass promotes the host run out of the open runs (``host_fields.promoted_run``); a
    # beam pass starts it at its first tile, whose states rank better (the probe finds more plays)
    promote = host is not None and host.promote and beam == 0
    t_step = 0  # the steps made, colour steps and group steps (``backward``)
    for p in range(n_pos):
        gp = gain[p]
        for c in range(n_col):
            _new_step(htab, hinfo, hi - lo)
            count = hi
            t = tcnt[p, c]
            r = rcnt[p, c]
            shift = c * width
            low_shift = low_at + c * low_bits
            wrap_low = wrapable[c] and p == 0
            wrap_high = wrapable[c] and p == last and p > 0
            need = bound - rest_gain[p * n_col + c]
            p_start = pin_start[p, c]
            p_join_a = pin_join_a[p, c]
            p_join_c = pin_join_c[p, c]
            p_end = pin_end[p, c]
            p_absorb = pin_absorb[p, c]
            # dead ends the passes leave out where a state is made (each is a function of the key
            # alone, so no state that lives changes): open runs that cannot all take an item at
            # the colour's next position, runs that cannot close at the top, groups of this value
            # that cannot form (the last colour step). Jokers are one pool (0.3.15): the jokers
            # left must cover what every colour's open runs lack at their next positions, and the
            # fewest the value's groups need; at the earlier colour steps, over what the later
            # colours' tiles may give the groups, their runs lacking the rest (``_ahead_jokers``).
            # On the committed positions the states fell by 26% (``guide-strict-joker`` greedy's
            # slowest pass: 469,305 -> 280,380), every play the same. Beam passes leave them out
            # too since 0.3.15 (their places then go to states that may still finish: 12% fewer)
            nxt = min(p + 1, last)
            runs_next = prune_dead and p < last and pin_start[nxt, c] == 0
            tiles_next = tcnt[nxt, c] + rcnt[nxt, c]
            # the other colours' open runs: the tiles at the position each takes next (this one
            # for the colours after this, the next one for those before; -1: not counted)
            for k in range(n_col):
                q_next = p if k > c else p + 1
                if not prune_dead or k == c or q_next > last or pin_start[q_next, k] != 0:
                    next_tiles[k] = -1
                else:
                    next_tiles[k] = tcnt[q_next, k] + rcnt[q_next, k]
            top_dead = prune_dead and p == last
            groups_dead = prune_dead and c == n_col - 1
            # earlier colours: the fewest jokers the value's groups and the later colours' runs
            # will need (``_ahead_jokers``, worked out once a step per count)
            groups_ahead = prune_dead and c < n_col - 1 and allow_group[p]
            if groups_ahead:
                stamp += 1
                for k in range(n_col):
                    avail[k] = tcnt[p, k] + rcnt[p, k] if k > c else 0
            for i in range(lo, hi):
                if beam > 0 and count - hi >= step_cap:
                    whole = False
                    break  # the best states of the beam came first
                key = keys[i]
                # jokers the other colours' open runs need where their next tiles fall short
                others = 0
                before = 0  # ... of them, those ``_ahead_jokers`` does not count
                later = 0  # the later colours' runs that need an item (``_ahead_jokers``)
                if prune_dead and n_jokers > 0:
                    for k in range(n_col):
                        if next_tiles[k] >= 0:
                            runs = needy[(key >> (k * width)) & wmask]
                            lacks = max(0, runs - next_tiles[k])
                            others += lacks
                            if k < c or not combine:  # (past MAX_AHEAD_COLOURS: counted apart)
                                before += lacks
                            else:
                                later |= min(runs, 3) << (2 * (k - c - 1))
                    if others > n_jokers - ((key >> jokers_at) & jmask):
                        continue
                base = scores[i]
                s0 = (key >> shift) & wmask
                used = (key >> jokers_at) & jmask
                hstate = (key >> host.at) & HOST_MASK if host is not None else 0
                h2state = _host_state(key, host.second_at) if host is not None else HOST_DONE
                # (the first host run may take the second freed joker while that has no set,
                # except under ``rack_only``: one freed joker a set)
                other = (h2state < HOST_DONE and not host.rack_only) if host is not None else False
                n_ops = _host_ops(hstate, c, other) if host is not None else 1
                if promote and hstate < HOST_DONE:
                    n_ops += PROMOTE_MOVES * drop.shape[1]  # (``host_fields.promoted``)
                n_ops2 = _host_ops(h2state, c, False) if host is not None else 1
                n_share = 2 if n_ops2 > 1 else 1  # which host run a rack copy counts for
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
                if host is not None:
                    cleared = cleared & ~(HOST_MASK << host.at)
                    if host.second_at >= 0:
                        cleared = cleared & ~(HOST_MASK << host.second_at)
                if wrap_low or wrap_high:
                    cleared = cleared & ~(lmask << low_shift)
                for joins in range((p_start + 1) * (p_start + 1)):
                    # ``j_a`` runs of type A and ``j_c`` of type C join pinned runs here
                    j_a = joins // (p_start + 1)
                    j_c = joins % (p_start + 1)
                    if j_a + j_c > p_start or j_a > p_join_a or j_c > p_join_c:
                        continue
                    s = s0
                    for _ in range(j_a):
                        if s >= 0:
                            s = drop[s, 0]
                    for _ in range(j_c):
                        if s >= 0:
                            s = drop[s, 1]
                    if s < 0:
                        continue
                    for x in range(x_lo, x_hi + 1):
                        sc_x = base + (x if wrap_low else x - t) * gp
                        if sc_x < need:
                            continue
                        # a joker here while a tile of this face stays on the rack: the tile
                        # could take the joker's place (the joker then goes where there is room)
                        spare_tile = x < t + r and not (wrap_low or wrap_high)
                        for q in range(min(p_absorb, x) + 1):  # tiles to pinned groups
                            g_max = min(x - q, mmask) if allow_group[p] else 0
                            # (min of an int and an np.int64: the stubs find no common type)
                            for g in range(g_max + 1):  # type: ignore[operator]
                                if n_grp + g > nmask:
                                    break
                                grp = ((n_grp + g) << n_at) | (max(m_grp, g) << m_at)
                                jg_need = 0  # jokers the groups of this value will need
                                lack = others  # ... and the open runs, at their next tiles
                                if groups_dead:
                                    jg_need = group_jokers[n_grp + g, max(m_grp, g)]
                                    if jg_need < 0 or jg_need > rem:
                                        continue
                                elif groups_ahead and (n_jokers > 0 or n_grp + g > 0):
                                    # the groups and the later colours' runs share those tiles
                                    n_g, m_g = n_grp + g, max(m_grp, g)
                                    if ahead_at[n_g, m_g, later] != stamp:
                                        ahead_at[n_g, m_g, later] = stamp
                                        ahead[n_g, m_g, later] = _ahead_jokers(
                                            group_jokers, n_g, m_g, avail, later, c + 1
                                        )
                                    jg_need = ahead[n_g, m_g, later]
                                    lack = before
                                    if jg_need < 0 or jg_need + lack > rem:
                                        continue
                                if wrap_low:
                                    grp = grp | (x << low_shift)
                                memo_op = -1  # the first host field's last move (its op, rack copy)
                                memo_rack = False
                                memo = (0, 0, 0, False)
                                for ops in range(n_ops * n_ops2 * n_share):
                                    op = ops // (n_ops2 * n_share)
                                    op2 = (ops // n_share) % n_ops2
                                    h_new = h_tile = h_jok = h2_new = 0
                                    h_op = op  # the first host field's move (``_host_move``)
                                    s_op = s  # the open runs that move here (less a promoted one)
                                    promoted = 0  # the type of the run promoted, plus one
                                    if host is not None:
                                        rack_1 = rack_2 = x > t
                                        # both host runs take a tile of this face, or the first
                                        # does and the second's groups take some (their count of
                                        # rack copies), one rack copy is played here: it counts
                                        # for one of them
                                        grouped = op2 == 0 and g > 0 and h2state < HOST_DONE
                                        if op in (1, 2) and (op2 in (1, 2) or grouped) and x - t == 1:
                                            rack_1 = ops % n_share == 0
                                            rack_2 = not rack_1
                                        elif ops % n_share:
                                            continue
                                        # rack copies of this face the groups take: those the
                                        # host runs do not count
                                        copies = min(g, x - t)
                                        h_from = hstate
                                        if op >= 2 and hstate < HOST_DONE:
                                            kind = (op - 2) // PROMOTE_MOVES
                                            s_op = drop[s, kind]
                                            if s_op < 0:
                                                continue
                                            promoted = kind + 1
                                            h_from, h_op = promoted_run(c, kind, op, rack_1)
                                            if h_op < 0:
                                                continue
                                        elif op == 1 and promote and not rack_1:
                                            continue  # a table tile starts it: promoted later
                                        if op != memo_op or rack_1 != memo_rack:
                                            memo = _host_move(
                                                h_from, h_op, c, rack_1, copies, host.n_rj, spare_tile,
                                                host.after_tile, host.after_joker, host.closes,
                                                other, two, host.rack_only,
                                            )  # fmt: skip
                                            memo_op = op
                                            memo_rack = rack_1
                                        h_new, h_tile, h_jok, took = memo
                                        if h_op in (1, 2) and rack_1 and x > t:
                                            copies = min(g, x - t - 1)
                                        if h_new < 0:
                                            continue
                                        if host.second_at >= 0:
                                            # the second host set starts only once the first has
                                            # (the two freed jokers are interchangeable); where
                                            # the first took the second freed joker, it is done
                                            if (op2 == 1 or took) and h_new < HOST_DONE:
                                                continue
                                            h2_new, h2_tile, h2_jok, _ = _host_move(
                                                h2state, op2, c, rack_2, copies, host.n_rj, spare_tile,
                                                host.after_tile, host.after_joker, host.closes, False,
                                                two, host.rack_only,
                                            )  # fmt: skip
                                            if h2_new < 0 or (took and op2):
                                                continue
                                            if took:
                                                h2_new = HOST_DONE
                                            h_tile += h2_tile
                                            h_jok += h2_jok
                                        if h_jok > rem:
                                            continue
                                    u = x - q - g - h_tile
                                    if u < 0:
                                        continue
                                    for row in range(move_start[s_op, u], move_end[s_op, u]):
                                        jokers = moves[row, 1]
                                        if jokers + h_jok + jg_need > rem or (jokers > 0 and spare_tile):
                                            break
                                        s_new = moves[row, 0]
                                        for _ in range(p_end):
                                            if s_new >= 0:
                                                s_new = pin_add[s_new]
                                        if s_new < 0:
                                            continue
                                        placed = used + jokers + h_jok
                                        short = lack + jg_need
                                        if runs_next:
                                            short += max(0, needy[s_new] - tiles_next)
                                        if short > n_jokers - placed:
                                            continue
                                        if top_dead and final_jokers[s_new] < 0:
                                            continue
                                        nk = cleared | (s_new << shift) | (placed << jokers_at) | grp
                                        if host is not None:
                                            nk = nk | (h_new << host.at)
                                            if host.second_at >= 0:
                                                nk = nk | (h2_new << host.second_at)
                                        action = moves[row, 2] | (x << X_AT) | (g << G_AT)
                                        action = action | (h_op << HOST_OP_AT) | (op2 << HOST2_OP_AT)
                                        action = action | ((ops % n_share) << HOST_SHARE_AT)
                                        action = action | (promoted << HOST_PROMOTE_AT)
                                        if (
                                            host is not None
                                            and filtering
                                            and not future_ok(
                                                nk, sc_x, t_step, bound, future, host, width, jokers_at
                                            )
                                        ):
                                            continue
                                        made, j = _insert(
                                            nk, sc_x, i, action, keys, scores, parents, actions,
                                            count, hi, htab, hinfo,
                                        )  # fmt: skip
                                        if made < 0:  # (the states made so far are charged)
                                            return OVERFLOW, created + count - hi, False
                                        count = made
                                        if edges is not None:
                                            _record(edges, i, j, sc_x - base)
                                        if created + count - hi > limit:
                                            return OVER_BUDGET, limit, False  # the last state is dropped
            created += count - hi
            if host is not None and beam == 0:
                count = _drop_dominated(hi, count, keys, scores, parents, actions, htab, hinfo, host)
            step_states = count - hi
            lo, hi = _next_step(
                hi, count, beam, debt_unit, keys, scores, parents, actions, debt, n_col, width
            )
            whole = whole and hi - lo == step_states
            if edges is not None:
                edges.step_lo[t_step], edges.step_hi[t_step] = lo, hi
            t_step += 1
            if hi == lo:
                return NO_STATE, created, whole
        # the groups of this value: the numbered tiles set aside plus the jokers they need
        _new_step(htab, hinfo, hi - lo)
        count = hi
        for i in range(lo, hi):
            key = keys[i]
            used = (key >> jokers_at) & jmask
            n_grp = (key >> n_at) & nmask
            m_grp = (key >> m_at) & mmask
            jg = group_jokers[n_grp, m_grp]
            if jg < 0 or used + jg > n_jokers:
                continue
            base = key & ~(nmask << n_at) & ~(mmask << m_at) & ~(jmask << jokers_at)
            hstate = (key >> host.at) & HOST_MASK if host is not None else 0
            h2state = _host_state(key, host.second_at) if host is not None else HOST_DONE
            n_in = 2 if host is not None and hstate < HOST_DONE else 1
            n_in2 = 2 if host is not None and h2state < HOST_DONE else 1
            # no host set yet: its count of rack copies in groups starts again; or the freed
            # joker joins the groups of this value (a group with two rack items: ``_host_group_jokers``);
            # the second joins only where the first has a set (here or before)
            for ins in range(n_in * n_in2):
                h_in = ins // n_in2
                h_in2 = ins % n_in2
                z = jg
                h_new = hstate
                h2_new = h2state
                if host is not None:
                    if hstate < HOST_DONE:
                        h_new = HOST_DONE if h_in else 0
                    if h2state < HOST_DONE:
                        if h_in2 and h_new < HOST_DONE:
                            continue
                        h2_new = HOST_DONE if h_in2 else 0
                    if h_in or h_in2:
                        z = _host_group_jokers(
                            jg, hstate if h_in else h2state, host.n_rj, allow_group[p], h_in + h_in2,
                            host.group_totals[n_grp, m_grp], host.pair_totals[n_grp, m_grp],
                            host.rack_only,
                        )  # fmt: skip
                        if z < 0 or used + z > n_jokers:
                            continue
                    base = (base & ~(HOST_MASK << host.at)) | (h_new << host.at)
                    if host.second_at >= 0:
                        base = (base & ~(HOST_MASK << host.second_at)) | (h2_new << host.second_at)
                nk = base | ((used + z) << jokers_at)
                action = z | (h_in << HOST_GROUP_AT) | (h_in2 << HOST2_GROUP_AT)
                if (
                    host is not None
                    and filtering
                    and not future_ok(nk, scores[i], t_step, bound, future, host, width, jokers_at)
                ):
                    continue
                made, j = _insert(
                    nk, scores[i], i, action, keys, scores, parents, actions, count, hi, htab, hinfo
                )  # fmt: skip
                if made < 0:
                    return OVERFLOW, created + count - hi, False
                count = made
                if edges is not None:
                    _record(edges, i, j, 0)
                if created + count - hi > limit:
                    return OVER_BUDGET, limit, False
        created += count - hi
        step_states = count - hi
        lo, hi = _next_step(hi, count, beam, debt_unit, keys, scores, parents, actions, debt, n_col, width)
        whole = whole and hi - lo == step_states
        if edges is not None:
            edges.step_lo[t_step], edges.step_hi[t_step] = lo, hi
        t_step += 1
        if hi == lo:
            return NO_STATE, created, whole
    # at the top a run short of a set closes with leading jokers (J 12 13, J J 13); a leading
    # joker anywhere else could move to the end of its run, or is not needed at all
    best = NO_STATE
    best_score = 0
    for i in range(lo, hi):
        key = keys[i]
        ok = True
        lead = 0
        for c in range(n_col):
            s = (key >> (c * width)) & wmask
            if final_jokers[s] < 0:
                ok = False
                break
            lead += final_jokers[s]
        if ok and host is not None:
            hstate = (key >> host.at) & HOST_MASK
            h2state = _host_state(key, host.second_at)
            # a freed joker in no set: the first's never is; the second's leads the first host
            # run where that is still open (not under ``rack_only``), and none where it is not
            if hstate < HOST_DONE or (h2state < HOST_DONE and (hstate == HOST_DONE or host.rack_only)):
                ok = False
            for h, extra in ((hstate, 1 if h2state < HOST_DONE else 0), (h2state, 0)):
                if ok and h > HOST_DONE:  # a host run still open: leading jokers close it
                    _, kind, items, freed = host_run(h)
                    h_lead = host_lead(kind, items, freed, host.n_rj, host.top_jokers, extra)
                    ok = h_lead >= 0
                    lead += h_lead
        if ok and ((key >> jokers_at) & jmask) + lead > n_jokers:
            ok = False
        if edges is not None:
            edges.final_ok[i - lo] = ok
        if ok and (best == NO_STATE or scores[i] > best_score):
            best = i
            best_score = scores[i]
    return best, created, whole


@numba.njit(cache=True, nogil=True)
def _ahead_jokers(group_jokers, n, m, avail, later, first):
    """The fewest jokers the groups of one value and the later colours' open runs at it need
    together: the later colours (from ``first``) give ``e`` of their ``avail`` tiles to the
    groups, and their runs that need an item (``later``: 2 bits a colour) lack the rest."""
    n_col = avail.shape[0]
    add = np.zeros(n_col, dtype=np.int64)
    best = -1
    while True:
        total = n
        most = m
        runs = 0
        for k in range(first, n_col):
            total += add[k]
            most = max(most, add[k])
            runs += max(0, ((later >> (2 * (k - first))) & 3) - avail[k] + add[k])
        if total < group_jokers.shape[0] and most < group_jokers.shape[1]:
            need = group_jokers[total, most]
            if need >= 0 and (best < 0 or need + runs < best):
                best = need + runs
        k = first
        while k < n_col and add[k] == avail[k]:
            add[k] = 0
            k += 1
        if k == n_col:
            return best
        add[k] += 1


@numba.njit(cache=True, nogil=True)
def _find(key, htab, hinfo):
    """The index of ``key`` among the current step's states (``_insert``'s table), or -1."""
    bits = hinfo[0]
    stamp = hinfo[1]
    mask = (1 << bits) - 1
    h = _slot(key, bits)
    while htab[h, 0] == stamp:
        if htab[h, 1] == key:
            return htab[h, 2]
        h = (h + 1) & mask
    return -1


@numba.njit(cache=True, nogil=True)
def _beaten(key, score, at, scores, htab, hinfo, beats):
    """Whether the step holds a state that differs from (``key``, ``score``) only in the host run
    of the field at bit ``at``, as good or better: the same colour and freed joker, a type that
    beats it or the same type, more rack items or as many (not both the same), a score as high."""
    h = (key >> at) & HOST_MASK
    if h < HOST_ACTIVE:
        return False
    base, kind, items, freed = host_run(h)
    rest = key & ~(HOST_MASK << at)
    for kind2 in range(beats.shape[0]):
        if kind2 != kind and not beats[kind2, kind]:
            continue
        for items2 in range(items + (1 if kind2 == kind else 0), 3):
            alt = rest | (run_field(base, kind2, items2, freed) << at)
            j = _find(alt, htab, hinfo)
            if j >= 0 and scores[j] >= score:
                return True
    return False


@numba.njit(cache=True, nogil=True)
def _drop_dominated(hi, count, keys, scores, parents, actions, htab, hinfo, host):
    """Drop the states of the step just made (``[hi, count)``) whose host run another state of
    the step beats (``_beaten``): every way on of the one is a way on of the other, scoring as
    much, so the optimum stays (0.3.5: most of a tracked pass's states are host runs that differ
    only in their rack items or type). The states kept move up in order; returns the new count."""
    n = count - hi
    dead = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        key = keys[hi + i]
        dead[i] = _beaten(key, scores[hi + i], host.at, scores, htab, hinfo, host.beats)
        if not dead[i] and host.second_at >= 0:
            dead[i] = _beaten(key, scores[hi + i], host.second_at, scores, htab, hinfo, host.beats)
    out = hi
    for i in range(n):
        if not dead[i]:
            keys[out] = keys[hi + i]
            scores[out] = scores[hi + i]
            parents[out] = parents[hi + i]
            actions[out] = actions[hi + i]
            out += 1
    return out


@numba.njit(cache=True, nogil=True)
def _next_step(hi, count, beam, debt_unit, keys, scores, parents, actions, debt, n_col, width):
    """The (lo, hi) range of the states just made, ``[hi, count)``; in a beam pass its
    ``beam`` best, copied behind it best first. A state ranks by its score less
    ``debt_unit`` per item its open runs still need (``debt``: two for a run of one
    tile, one for two items or a trailing joker): a run begun is not yet a set, and ranking
    by score alone fills the beam with states that die at the next value."""
    n = count - hi
    if beam == 0 or n == 0:
        return hi, count
    kept = min(n, beam, keys.shape[0] - count)
    wmask = np.int64((1 << width) - 1)
    rank = np.empty(n, dtype=np.int64)
    for i in range(n):
        key = keys[hi + i]
        owed = 0
        for c in range(n_col):
            owed += debt[(key >> (c * width)) & wmask]
        rank[i] = owed * debt_unit - scores[hi + i]
    order = np.argsort(rank, kind="mergesort")
    for k in range(kept):
        src = hi + order[k]
        dst = count + k
        keys[dst] = keys[src]
        scores[dst] = scores[src]
        parents[dst] = parents[src]
        actions[dst] = actions[src]
    return count, count + kept


class Buffers(NamedTuple):
    """The kernel's state arrays (``_buffers``): every state of a pass, step after step, and
    the steps' hash tables. A search reads its best state and the chain of its parents here."""

    keys: np.ndarray  # (MAX_STATES,) a state's key: per colour its state, jokers placed, groups
    scores: np.ndarray  # (MAX_STATES,) its score
    parents: np.ndarray  # (MAX_STATES,) the state of the step before it came from
    actions: np.ndarray  # (MAX_STATES,) the step's action word that made it (``tables.X_AT``)
    htab: np.ndarray  # (1 << HASH_BITS, 3) the steps' hash tables (``_insert``)
    hinfo: np.ndarray  # (2,) bits of the current step's table, its stamp (rises: no stale entries)


_BUFFERS: list[Buffers] = []


def _buffers() -> Buffers:
    """The state arrays, made on first use and shared by every search of the process."""
    if not _BUFFERS:
        _BUFFERS.append(
            Buffers(
                np.empty(MAX_STATES, dtype=np.int64),
                np.empty(MAX_STATES, dtype=np.int64),
                np.empty(MAX_STATES, dtype=np.int64),
                np.empty(MAX_STATES, dtype=np.int64),
                np.zeros((1 << HASH_BITS, 3), dtype=np.int64),
                np.zeros(2, dtype=np.int64),
            )
        )
    return _BUFFERS[0]
