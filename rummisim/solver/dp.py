"""Exact move search as a dynamic program over tile values (van Rijn, Takes & Vis 2015).

The program walks the positions 1..V of a run (plus V+1, the high 1, with
``runs.wrap: high_low``) and, inside each position, the colours one by one. Its
state after a step is

- per colour, the multiset of runs still open, each reduced to a type
  (``dp_decode.RunTypes``). A set needs one numbered tile and holds at most
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

Locked table jokers: each choice of keeping every table joker (at a face it may
keep; in the DP it is a tile of that face, which only relaxes the rules that a set
holds a numbered tile and at most ``max_per_set`` jokers: the decoding puts the joker
back in a set that keeps them, else ``None``) or freeing it (the matching rack tile
must be played; the joker is free in the DP) bounds the optimum from above. The best
bound is the answer when its play passes ``validate_move``. Under ``reuse:
two_rack_tiles`` a better bound that frees jokers is then settled exactly: each set
that may hold a freed joker with two other rack items (``freed_joker_hosts``) is set
aside, and the DP solves the tiles left above the best legal play so far (one host set
after the other, for any number of freed jokers; a set may hold up to ``max_per_set`` of
them). Under strict joker sets the host search first relaxes the pins (exact where its
play keeps them); where that play breaks a pin, the hosts are sets of the tiles outside the
pins, which the DP keeps (``_hosted`` with ``pinned``). A joker choice that no table
realises (two kept jokers at one face with no set for both) is skipped, not handed to the
MILP. Where the host sets of one freed joker are too many to list (``MAX_HOST_SOLVES``), or
the listed ones cannot settle it, one pass tracks the set that holds the freed joker instead
(``_tracked_host``): the key gets a host field, before it exists the colours of the current
value that put a rack copy in its groups, then the run it is (colour, run type, rack items
0..2, freed joker in it or not), then done (``_host_move``). A run takes a tile that counts
as a rack item where a rack copy of that face is played at that step (copies of a face are
interchangeable), a rack joker, or the freed joker (even where a tile of that face stays on
the rack: the freed joker cannot move to another set); it closes as the host set with the
freed joker and two rack items in it, jokers appended at its end if need be. The freed joker
joins the groups of a value that hold rack copies of two colours (or one and a rack joker;
``_host_groups`` forms them). Where that pass decodes into a play ``validate_move`` refuses,
or passes ``MAX_TRACKED_HOST_STATES``, the MILP answers. Two freed jokers (only with
``TRACK_TWO_HOSTS``, off by default): a second host field, which starts only once the first
has (the jokers are interchangeable); where both host runs take a tile of one face and one
rack copy is played there, it counts for one of them (the action's share bit says which); the
first host run may take the second freed joker too (one set holding both: ``_host_move``'s
ops 4, 8 and 9, or leading jokers at the top); both may join the groups of one value (a
relaxation: ``_host_groups`` finds a group each or one for both, else the play is refused).
It is exact on every position compared with the MILP, but creates 15-50 times the states of
the plain DP on the heavy positions: 9 of the 20 game positions it got in 320 games ran past
its limit (or decoded into a refused play) and cost the MILP's time on top. Off until its
states shrink and the shipped experiments are run again with it. ``RELAX_TRACKED`` (off too, for
the same re-run): the tracked pass also takes three or more jokers (a rack joker beside the
freed ones), its runs then without per-run joker counts, a relaxation of ``max_per_set`` that is
exact wherever its play is legal; and a decoding ``validate_move`` refuses is tried once more
with the kept jokers put back outside the host runs (a host run may have counted a tile of a
kept joker's face as its rack item). A search cut short by its
budget answers the best of the beam pass's play and the legal plays the exact search found
(``Meter.keep``).

Pins: table sets that must stay together and may only grow (``dp_decode.Pin``). Under
``take_from_joker_sets: false`` each joker choice pins the sets whose jokers it all keeps
(a set whose jokers are all freed is released); without rearrangement (``rearrange=False``
or ``turn.rearrange: false``, checked by ``validate_move`` under that profile) every table
set is pinned with its jokers at their faces, and the pool is the rack alone. A pinned
set's tiles leave the grids. A pinned run ``a..b`` of colour ``c`` costs the kernel no
state while in flight: at the step ``(a, c)`` up to that many open runs of type ``A`` or
``C`` may join it (left growth; they leave the colour state instead of taking a tile), and
after the step ``(b, c)`` it comes back as a valid run ``E`` (right growth, or it closes).
Joining a valid run ``E`` or ``D`` is never needed (it could close instead, the same tiles
placed), which also rules out merging two pins: rearrange=False forbids that, and under
strict sets it never places more. A pinned group takes at most one tile of each colour it
lacks (counts per step, no state). Spare jokers may go to pinned sets at decoding. With
wrap, a pinned run of the low 1 to 12 may take a 13 only, one holding every value does not
grow, no short run from the low 1 joins a pin that ends at the high 1, and a longer run is
cut outside its pin (``None`` if it cannot be).

Bounding. Each kernel pass has a score floor: a state whose score plus the most the
rack tiles after it can add stays below the floor is dropped, so the pass answers the
exact optimum whenever that reaches the floor, and nothing otherwise. The floors ask
for the whole rack, then all but one or two rack tiles, then nothing (a full pass).
The positions that are slow to search (big tables, jokers) mostly place the whole rack,
and those passes usually keep far fewer states. Dead ends: an exact pass does not make a
state whose key alone rules out every continuation (its colour's open runs need more items at
the next position than the tiles of that face and the jokers left; a run that cannot close at
the top; after the last colour of a value, groups that cannot form with the jokers left). These
were 42% of the states on the benchmark's hard positions; as each is a function of the key, no
state that lives, nor its score or parent, changes (a search answers the same play), only the
states charged to the budget and the limits fall (about half). With locked jokers, a pruned
pass may pick another of several best tables than a full pass; if none of them passes
``validate_move``, the full passes are run before giving up.

The initial meld (``solve_dp_opening``): with each tile's face value as its gain, the
kernel bounds the opening value of any rack-only table (below the threshold: no
opening). A single-set opening is the best of the sets the rack forms (``opening``).
Otherwise the opening is an "opening core" (rack-only sets worth the threshold, none
of them spare) beside the best play of the other rack tiles, on the empty table or,
where the opening may touch the table, on the table itself (freeing locked jokers, as
``validate_move`` allows then): ``_cored_opening`` takes the best over the cores (the
argument is in its docstring), with the best play of the whole rack as a bound.

With a discard pile a play must leave a tile: when the best play empties the rack, the
racks less one tile go best bound first until one reaches the next bound (``_best_play``).

The kernel is compiled with numba and cached on disk (``cache=True``, next to the
module in ``__pycache__``), so fresh processes load it instead of compiling; states
live in flat arrays with one hash table per step, sized to the step (it starts from the
previous step's count and doubles at half load, so the small steps of most searches stay in
the CPU cache; the states and their order do not depend on its size). The number of states is bounded
(deterministic, never wall time): past the bound the solver answers ``None`` and
``solver.solve`` uses the MILP.

Search budget: every state created is charged to a ``Meter``; a search that would pass
what the meter allows stops with ``SearchBudgetSpent``. ``solve_dp_beam`` is the anytime
fallback ``solver.solve`` uses then: one pass of the same kernel that keeps, after each
step, only the best states (by score less a tile's worth per tile that their open runs
still need; ranking by score alone keeps runs begun that cannot close), within a given
number of states. Its play is legal but not proven best.

Scope: turn mode with or without rearrangement, objectives ``tiles`` and ``value``, wrap
``none`` and ``high_low``, ``discard_pile``, any jokers on the rack, table jokers ``free``
or ``locked``, strict joker sets with ``locked`` table jokers, any ``max_per_set``. ``None``
for everything else (``runs.min_length`` other than 3, more than 7 open runs per colour,
state keys past 62 bits, which per-run joker counts with wrap can reach; strict joker sets
with ``free`` table jokers), where the decoding cannot place every joker within
``max_per_set`` (a kept table joker, or a spare one), and for these pin corners: a set that
keeps some of its jokers and frees others; a freed joker that needs a host where a pinned
run could itself grow into that host (``_outside_pins``: the host sets are sets of their
own) and the DP without the pins breaks one; pins where the DP's jokers and a pin's own
could pass ``max_per_set`` (no per-run joker counts with pins); a pinned group with fewer
free places than missing colours; with wrap, a run of a pin and a short run from the low 1
that reaches the high 1 and cannot be cut outside the pin. The MILP answers those. The beam
pass pins what the exact search pins with every table joker kept (strict joker sets, no
rearrangement); openings that may touch the table pin nothing (``supported`` without
``pins``). Where a part of the search gives up it says why (``Meter.fail``, one of
``GIVE_UPS``), and ``solver.solve`` puts the last reason on the integer program's answer
(``Solution.fallback``). Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any

import numba
import numpy as np

from rummisim.geometry import run_geometry
from rummisim.melds import Meld, is_valid_meld_parts
from rummisim.moves import IllegalMove, joker_acceptable, validate_move
from rummisim.profile import RuleProfile, profile_from_dict
from rummisim.solver.common import (
    HOST_RACK_ITEMS,
    OBJECTIVES,
    TILE_WEIGHT,
    SearchBudgetSpent,
    SearchResult,
    is_legal,
    tile_gain,
)
from rummisim.solver.common import gain as item_gain
from rummisim.solver.dp_decode import (
    G_AT,
    GROUP_NUMBERED,
    HOST2_GROUP_AT,
    HOST2_OP_AT,
    HOST_GROUP_AT,
    HOST_OP_AT,
    HOST_SHARE_AT,
    STARTS_AT,
    TYPE_A,
    X_AT,
    Host,
    PinGrids,
    RunTypes,
    build_table,
    colour_moves,
    freed_in,
    freed_joker_hosts,
    group_jokers_needed,
    host_lead,
    make_pins,
    pin_grids,
    run_types,
    split_host,
    type_arrays,
)
from rummisim.solver.opening import TooManyCores, best_single_set, new_set_hosts, opening_cores

MAX_STATES = 1 << 21  # total states over all steps before the DP gives up (deterministic)
HASH_BITS = 19  # one step holds at most half of 2**HASH_BITS states
MIN_HASH_BITS = 8  # a step's hash table starts at least this big (``_new_step``)
MAX_OPEN_RUNS = 7  # open runs per colour that the action code can describe
MAX_KEY_BITS = 62

OVERFLOW = -2  # the state arrays are full (the DP hands the position to the MILP)
OVER_BUDGET = -3  # the search budget is spent
NO_STATE = -1


# ----- per-profile tables ------------------------------------------------------------------


@dataclass(frozen=True)
class _Tables:
    """Encodings of one profile, built once: colour states, their moves, group jokers."""

    types: RunTypes
    max_runs: int
    dec: np.ndarray  # (states, types) open runs by type
    final_jokers: np.ndarray  # (states,) leading jokers that close its runs at the end; -1: none
    debt: np.ndarray  # (states,) items its open runs still need (the beam's ranking)
    needy: np.ndarray  # (states,) open runs that must take an item (a tile or a joker) next
    move_start: np.ndarray  # (states, copies + 1) -> first row of the moves with u tiles for runs
    move_end: np.ndarray
    moves: np.ndarray  # rows (new state, jokers, action bits), by jokers within a block
    group_jokers: np.ndarray  # (n, m) -> jokers the groups of a value need, -1 if none can form
    pin_drop: np.ndarray  # (states, 2) the state less one run of type A / C (joins a pin); -1
    pin_add: np.ndarray  # (states,) the state plus one valid run E (a pin ends); -1
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


def _compositions(n_types: int, total: int):
    """Every count vector over ``n_types`` types with sum at most ``total``."""
    if n_types == 0:
        yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(n_types - 1, total - first):
            yield (first, *rest)


def _cap_binds(profile: RuleProfile, n_jokers: int) -> bool:
    """Whether ``jokers.max_per_set`` could bind with ``n_jokers`` jokers in the DP's hands."""
    return n_jokers > profile.jokers.max_per_set


@lru_cache(maxsize=64)
def _tables(profile: RuleProfile, copies: int, n_jokers: int, relax_cap: bool = False) -> _Tables | None:
    """Tables for a profile with up to ``copies`` tiles per face (more than the tile set's
    copies when kept table jokers stand in as tiles at their faces) and ``n_jokers`` jokers
    to place; runs carry their joker count when ``jokers.max_per_set`` could bind, unless
    ``relax_cap`` (a run may then hold more jokers than the cap: a relaxation, whose plays
    the caller must check)."""
    ts = profile.tileset
    cap = profile.jokers.max_per_set
    types = run_types(cap if _cap_binds(profile, n_jokers) and not relax_cap else None)
    max_runs = copies + n_jokers  # each open run holds a tile or a joker at this position
    if max_runs > MAX_OPEN_RUNS or n_jokers > 7:
        return None
    index: dict[tuple[int, ...], int] = {}
    for counts in _compositions(types.n, max_runs):
        if sum(h * c for h, c in zip(types.held, counts, strict=True)) <= n_jokers:
            index[counts] = len(index)
    dec = np.array(list(index), dtype=np.int64)
    move_start = np.zeros((len(index), copies + 1), dtype=np.int64)
    move_end = np.zeros_like(move_start)
    rows: list[tuple[int, int, int]] = []
    for counts, s in index.items():
        treatments = colour_moves(counts, types)
        for u in range(copies + 1):
            move_start[s, u] = len(rows)
            block = []
            for moved, jokers, tiles, bits, merge_closed in treatments:
                starts = u - tiles
                if starts < 0 or jokers > n_jokers or (starts and merge_closed):
                    continue  # extending the closing run is never worse than a new one
                new = list(moved)
                new[TYPE_A] += starts
                s_new = index.get(tuple(new))
                if s_new is not None:
                    block.append((s_new, jokers, bits | (starts << STARTS_AT)))
            rows.extend(sorted(block, key=lambda row: row[1]))
            move_end[s, u] = len(rows)
    moves = np.array(rows, dtype=np.int64).reshape(-1, 3)
    final_jokers = np.array(
        [
            -1 if any(c and types.top_jokers[k] < 0 for k, c in enumerate(counts))
            else sum(c * types.top_jokers[k] for k, c in enumerate(counts))
            for counts in index
        ],
        dtype=np.int64,
    )  # fmt: skip
    debt = np.array(
        [sum(c * types.debt[k] for k, c in enumerate(counts)) for counts in index], dtype=np.int64
    )
    needy = np.array(
        [sum(c for k, c in enumerate(counts) if types.debt[k]) for counts in index], dtype=np.int64
    )
    # pins (untracked types only: a pinned run needs no per-run joker count there)
    pin_drop = np.full((len(index), 2), -1, dtype=np.int64)
    pin_add = np.full(len(index), -1, dtype=np.int64)
    if "C" in types.names:
        kind_a, kind_c, kind_e = (types.names.index(name) for name in ("A", "C", "E"))
        for counts, s in index.items():
            for col, kind in enumerate((kind_a, kind_c)):
                if counts[kind]:
                    less = list(counts)
                    less[kind] -= 1
                    pin_drop[s, col] = index[tuple(less)]
            more = list(counts)
            more[kind_e] += 1
            pin_add[s] = index.get(tuple(more), -1)
    n_max = ts.colours * copies
    group_jokers = np.array(
        [
            [
                group_jokers_needed(n, m, profile.groups.min_size, profile.groups.max_size, cap)
                for m in range(copies + 1)
            ]
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
    if key_bits > MAX_KEY_BITS:
        return None
    for arr in (dec, final_jokers, debt, needy, move_start, move_end, moves, group_jokers, pin_drop, pin_add):
        arr.setflags(write=False)
    return _Tables(
        types,
        max_runs,
        dec,
        final_jokers,
        debt,
        needy,
        move_start,
        move_end,
        moves,
        group_jokers,
        pin_drop,
        pin_add,
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


@numba.njit(cache=True, nogil=True)
def _insert(key, score, parent, action, keys, scores, parents, actions, count, step_lo, htab, hinfo):
    """Put a state into the current step (keep the best score per key); return the new count
    or OVERFLOW. The step's table (``htab`` rows: stamp, key, index; ``hinfo``: bits in use,
    stamp) uses only its first ``1 << bits`` rows, so small steps stay in cache; at a load of a
    half it doubles (a new stamp, the step's states hashed again). State indices are the order
    of first insertion whatever the table's size, so the search is the same."""
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
                return OVERFLOW
            htab[h, 0] = stamp
            htab[h, 1] = key
            htab[h, 2] = count
            keys[count] = key
            scores[count] = score
            parents[count] = parent
            actions[count] = action
            return count + 1
        if htab[h, 1] == key:
            j = htab[h, 2]
            if score > scores[j]:
                scores[j] = score
                parents[j] = parent
                actions[j] = action
            return count
        h = (h + 1) & mask


@numba.njit(cache=True, nogil=True)
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
    htab,  # (1 << HASH_BITS, 3) the steps' hash tables (``_insert``)
    hinfo,  # (2,) bits of the current step's table, its stamp (rises: no stale entries read)
    final_jokers,  # (states,) leading jokers that close a colour state's runs at the end
    debt,  # (states,) items a colour state's open runs still need
    needy,  # (states,) a colour state's open runs that must take an item at the next position
    rest_gain,  # (P * C,) most score the rack tiles after each colour step can still add
    bound,  # states whose score plus ``rest_gain`` stays below this are dropped
    limit,  # states this pass may create (the search budget left): past it, OVER_BUDGET
    beam,  # 0: exact; else keep the ``beam`` best states of each step (a heuristic pass)
    step_cap,  # with ``beam``: states a step may create (best states are expanded first)
    debt_unit,  # with ``beam``: the rank a state loses per tile its open runs still need
    pin_start,  # (P, C) pinned runs whose first tile is there
    pin_end,  # (P, C) pinned runs whose last tile is there
    pin_absorb,  # (P, C) pinned groups that may take one tile of that face
    pin_join_a,  # (P, C) pinned runs starting there that a run of type A may join
    pin_join_c,  # (P, C) ... that a run of type C may join
    pin_drop,  # (states, 2) a colour state less one run of type A / C; -1 if none
    pin_add,  # (states,) a colour state plus one valid run; -1 past the open runs
    prune,  # an exact pass leaves out dead-end states (``PRUNE_DEAD``)
    host,  # None, or the host sets of one or two freed table jokers are tracked
    # (``_host_move``): (the host field's first bit in the key, the rack jokers among the DP's
    # jokers, per run type the type after a tile / a joker (-1: none), may close, leading
    # jokers that close it at the last position (-1: none), per (n, m) of a value's groups the
    # joker counts they may hold as bits, the second host field's first bit or -1); None
    # compiles a kernel without the host code
):
    """Run the DP. Returns (index of the best final state, NO_STATE, OVERFLOW or
    OVER_BUDGET; states created). Every state kept can still reach ``bound``,
    so the best final state of an exact pass is the optimum whenever the optimum is at
    least ``bound``; otherwise the answer is NO_STATE. A beam pass keeps, after each step,
    only the ``beam`` best states (stable order: ties by creation), copied in score order
    behind the step, so its play is legal but not proven best.

    Pins: where pinned runs start, up to that many open runs of type A or C join them (they
    are taken out of the colour state, not extended); where pinned runs end, they come back
    as valid runs after the step's moves; where pinned groups lack the face, up to that many
    of the tiles used go to them."""
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
    created = 1
    last = n_pos - 1
    prune_dead = prune and beam == 0  # (dead ends: see below)
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
            # dead ends the exact passes leave out where a state is made (each is a function of
            # the key alone, so no state that lives changes): open runs that cannot all take an
            # item at the colour's next position, runs that cannot close at the top, groups of
            # this value that cannot form (the last colour step)
            nxt = min(p + 1, last)
            runs_next = prune_dead and p < last and pin_start[nxt, c] == 0
            items_next = tcnt[nxt, c] + rcnt[nxt, c] + n_jokers
            top_dead = prune_dead and p == last
            groups_dead = prune_dead and c == n_col - 1
            for i in range(lo, hi):
                if beam > 0 and count - hi >= step_cap:
                    break  # the best states of the beam came first
                key = keys[i]
                base = scores[i]
                s0 = (key >> shift) & wmask
                used = (key >> jokers_at) & jmask
                hstate = (key >> host[0]) & HOST_MASK if host is not None else 0
                h2state = _host_state(key, host[7]) if host is not None else HOST_DONE
                # (the first host run may take the second freed joker while that has no set)
                n_ops = _host_ops(hstate, c, h2state < HOST_DONE) if host is not None else 1
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
                    cleared = cleared & ~(HOST_MASK << host[0])
                    if host[7] >= 0:
                        cleared = cleared & ~(HOST_MASK << host[7])
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
                            s = pin_drop[s, 0]
                    for _ in range(j_c):
                        if s >= 0:
                            s = pin_drop[s, 1]
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
                                if groups_dead:
                                    jg_need = group_jokers[n_grp + g, max(m_grp, g)]
                                    if jg_need < 0 or jg_need > rem:
                                        continue
                                if wrap_low:
                                    grp = grp | (x << low_shift)
                                for ops in range(n_ops * n_ops2 * n_share):
                                    op = ops // (n_ops2 * n_share)
                                    op2 = (ops // n_share) % n_ops2
                                    h_new = h_tile = h_jok = h2_new = 0
                                    if host is not None:
                                        rack_1 = rack_2 = x > t
                                        if op in (1, 2) and op2 in (1, 2) and x - t == 1:
                                            # both host runs take a tile of this face, one rack
                                            # copy is played here: it counts for one of them
                                            rack_1 = ops % n_share == 0
                                            rack_2 = not rack_1
                                        elif ops % n_share:
                                            continue
                                        h_new, h_tile, h_jok, took = _host_move(
                                            hstate, op, c, rack_1, g > 0, host[1], spare_tile,
                                            host[2], host[3], host[4], h2state < HOST_DONE,
                                        )  # fmt: skip
                                        if h_new < 0:
                                            continue
                                        if host[7] >= 0:
                                            # the second host set starts only once the first has
                                            # (the two freed jokers are interchangeable); where
                                            # the first took the second freed joker, it is done
                                            if (op2 == 1 or took) and h_new < HOST_DONE:
                                                continue
                                            h2_new, h2_tile, h2_jok, _ = _host_move(
                                                h2state, op2, c, rack_2, g > 0, host[1], spare_tile,
                                                host[2], host[3], host[4], False,
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
                                    for row in range(move_start[s, u], move_end[s, u]):
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
                                        if runs_next and needy[s_new] > items_next - placed:
                                            continue
                                        if top_dead and final_jokers[s_new] < 0:
                                            continue
                                        nk = cleared | (s_new << shift) | (placed << jokers_at) | grp
                                        if host is not None:
                                            nk = nk | (h_new << host[0])
                                            if host[7] >= 0:
                                                nk = nk | (h2_new << host[7])
                                        action = moves[row, 2] | (x << X_AT) | (g << G_AT)
                                        action = action | (op << HOST_OP_AT) | (op2 << HOST2_OP_AT)
                                        action = action | ((ops % n_share) << HOST_SHARE_AT)
                                        count = _insert(
                                            nk, sc_x, i, action, keys, scores, parents, actions,
                                            count, hi, htab, hinfo,
                                        )  # fmt: skip
                                        if count < 0:
                                            return OVERFLOW, created + count - hi
                                        if created + count - hi > limit:
                                            return OVER_BUDGET, limit  # the last state is dropped
            created += count - hi
            lo, hi = _next_step(
                hi, count, beam, debt_unit, keys, scores, parents, actions, debt, n_col, width
            )
            if hi == lo:
                return NO_STATE, created
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
            hstate = (key >> host[0]) & HOST_MASK if host is not None else 0
            h2state = _host_state(key, host[7]) if host is not None else HOST_DONE
            n_in = 2 if host is not None and hstate < HOST_DONE else 1
            n_in2 = 2 if host is not None and h2state < HOST_DONE else 1
            # no host set yet: its count of rack colours in groups starts again; or the freed
            # joker joins the groups of this value (a group with two rack items: ``_host_group``);
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
                        colours = hstate if h_in else h2state
                        z = _host_group_jokers(jg, colours, host[1], allow_group[p], h_in + h_in2)
                        if z < 0 or used + z > n_jokers or not (host[6][n_grp, m_grp] >> z) & 1:
                            continue
                    base = (base & ~(HOST_MASK << host[0])) | (h_new << host[0])
                    if host[7] >= 0:
                        base = (base & ~(HOST_MASK << host[7])) | (h2_new << host[7])
                nk = base | ((used + z) << jokers_at)
                action = z | (h_in << HOST_GROUP_AT) | (h_in2 << HOST2_GROUP_AT)
                count = _insert(
                    nk, scores[i], i, action, keys, scores, parents, actions, count, hi, htab, hinfo
                )  # fmt: skip
                if count < 0:
                    return OVERFLOW, created + count - hi
                if created + count - hi > limit:
                    return OVER_BUDGET, limit
        created += count - hi
        lo, hi = _next_step(hi, count, beam, debt_unit, keys, scores, parents, actions, debt, n_col, width)
        if hi == lo:
            return NO_STATE, created
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
            hstate = (key >> host[0]) & HOST_MASK
            h2state = _host_state(key, host[7])
            # a freed joker in no set: the first's never is; the second's leads the first host
            # run where that is still open, and none where it is not
            if hstate < HOST_DONE or (h2state < HOST_DONE and hstate == HOST_DONE):
                ok = False
            for h, extra in ((hstate, 1 if h2state < HOST_DONE else 0), (h2state, 0)):
                if ok and h > HOST_DONE:  # a host run still open: leading jokers close it
                    r = (h - HOST_ACTIVE) % HOST_PER_COLOUR
                    h_lead = host_lead(r // 6, (r // 2) % 3, r % 2, host[1], host[5], extra)
                    ok = h_lead >= 0
                    lead += h_lead
        if ok and ((key >> jokers_at) & jmask) + lead > n_jokers:
            ok = False
        if ok and (best == NO_STATE or scores[i] > best_score):
            best = i
            best_score = scores[i]
    return best, created


# The host set of one freed table joker (``jokers.reuse: two_rack_tiles``): the key's host
# field is 0..2 before it exists (the colours of the current value whose groups hold a rack
# copy, at most 2), HOST_DONE once it is made, else the run it is: HOST_ACTIVE + colour *
# HOST_PER_COLOUR + type * 6 + rack items (0..2) * 2 + freed joker in it (0/1).
HOST_DONE = 3
HOST_ACTIVE = 4
HOST_PER_COLOUR = 24  # 4 untracked run types x 3 counts of rack items x freed joker or not
HOST_MASK = 127
HOST_OPS = 10  # a host run's moves at its colour step: see ``_host_move``
HOST_BITS = 7
HOST_TYPES = ("A", "C", "D", "E")  # the run types a host run takes (untracked joker counts)


@numba.njit(cache=True, nogil=True)
def _host_move(
    hstate, op, c, rack_here, to_groups, n_rj, spare_tile, after_tile, after_joker, closes, other
):  # fmt: skip
    """One move of a host field at a colour step (colour ``c``): (its new value, tiles it takes
    from those used here, jokers it places, whether it took the other freed joker), the value -1
    for no such move. Before the host set exists, ``op`` 0 is no move (a group here that takes a
    rack copy of the face counts a rack colour) and 1 starts it with a tile; a host run of this
    colour must take a tile (2), a rack joker (3), the freed joker (4; once it holds it, the other
    freed joker where that has no set yet, ``other``), or close (5..7: with 0..2 jokers appended
    at its end, the freed joker first, then a rack joker; 8..9: with 1..2 appended, the other
    freed joker among them), which makes it the host set when it holds the freed joker and two
    rack items. A rack copy of the face is used here (``rack_here``): one of them is the host's
    tile."""
    if hstate < HOST_DONE:
        if op == 0:
            return min(2, hstate + (1 if to_groups and rack_here else 0)), 0, 0, False
        return HOST_ACTIVE + c * HOST_PER_COLOUR + (2 if rack_here else 0), 1, 0, False
    if hstate == HOST_DONE or (hstate - HOST_ACTIVE) // HOST_PER_COLOUR != c:
        return hstate, 0, 0, False
    r = (hstate - HOST_ACTIVE) % HOST_PER_COLOUR
    kind = r // 6
    items = (r // 2) % 3
    freed = r % 2
    at = HOST_ACTIVE + c * HOST_PER_COLOUR
    if op == 2:
        return at + after_tile[kind] * 6 + min(2, items + (1 if rack_here else 0)) * 2 + freed, 1, 0, False
    if op == 3:
        if n_rj == 0 or spare_tile or after_joker[kind] < 0:
            return -1, 0, 0, False
        return at + after_joker[kind] * 6 + min(2, items + 1) * 2 + freed, 0, 1, False
    if op == 4:
        if after_joker[kind] < 0 or (freed and not other):
            return -1, 0, 0, False
        return at + after_joker[kind] * 6 + items * 2 + 1, 0, 1, freed == 1
    if op < 2 or not closes[kind]:
        return -1, 0, 0, False
    took = op >= 8
    if took and not other:
        return -1, 0, 0, False
    appended = op - 7 if took else op - 5
    # the appended jokers: this host's freed joker (where not in yet), the other's, rack jokers
    rack_jokers = appended - (1 if appended and not freed else 0) - (1 if took else 0)
    if rack_jokers < 0 or rack_jokers > n_rj or not (freed or appended) or items + rack_jokers < 2:
        return -1, 0, 0, False
    return HOST_DONE, 0, appended, took


@numba.njit(cache=True, nogil=True)
def _host_ops(hstate, c, other):
    """The moves of a host field at a colour step of colour ``c`` (``_host_move``): no host set
    yet, nothing or one starts here; the host set is a run of this colour, ``HOST_OPS`` (less
    the two closes with the other freed joker, where it cannot take that: ``other``); else
    none (the field stays)."""
    if hstate < HOST_DONE:
        return 2
    if hstate >= HOST_ACTIVE and (hstate - HOST_ACTIVE) // HOST_PER_COLOUR == c:
        return HOST_OPS if other else HOST_OPS - 2
    return 1


@numba.njit(cache=True, nogil=True)
def _host_state(key, at):
    """The host field at bit ``at`` of ``key``; HOST_DONE where there is none (``at`` -1)."""
    return (key >> at) & HOST_MASK if at >= 0 else HOST_DONE


@numba.njit(cache=True, nogil=True)
def _host_group_jokers(jg, rack_colours, n_rj, allowed, freed):
    """Jokers the groups of a value take when ``freed`` freed jokers (1 or 2) join them beside two
    rack items each, or both in one group beside two (``rack_colours`` colours with a rack copy
    in the groups, or one and a rack joker): at least the ``jg`` they need, at least the freed
    jokers (and the rack joker); -1 where it cannot. Two freed jokers in the groups of one value
    are a relaxation (the decoding finds their groups, else the play is refused)."""
    if not allowed:
        return -1
    if rack_colours >= 2:
        return max(jg, freed)
    if rack_colours == 1 and n_rj > 0:
        return max(jg, freed + 1)
    return -1


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


# ----- buffers (reused between calls; the kernel never reads stale entries: stamps) ----------


class _Buffers:
    def __init__(self) -> None:
        self.keys = np.empty(MAX_STATES, dtype=np.int64)
        self.scores = np.empty(MAX_STATES, dtype=np.int64)
        self.parents = np.empty(MAX_STATES, dtype=np.int64)
        self.actions = np.empty(MAX_STATES, dtype=np.int64)
        self.htab = np.zeros((1 << HASH_BITS, 3), dtype=np.int64)
        self.hinfo = np.zeros(2, dtype=np.int64)


_BUFFERS: list[_Buffers] = []

UNLIMITED = 1 << 62


KEPT_PLAYS = 8  # legal plays a ``Meter`` keeps for a search cut short by its budget

# Why the DP hands a position to the integer program (``Meter.why``, ``Solution.fallback``):
GIVE_UPS = (
    "scope",  # the profile or table is outside what the DP takes (``supported``, ``encodable``)
    "opening cores",  # more opening cores than ``MAX_CORES`` (or their search's steps)
    "strict sets: split joker set",  # a strict joker set that keeps one joker and frees another
    "hosts: reuse any",  # a better bound frees a joker under ``reuse: any`` and is refused
    "hosts: 1 freed",  # the host sets of the freed jokers: too many to list (by how many)
    "hosts: 2 freed",
    "hosts: 3+ freed",
    "hosts: states",  # ... or their DP passes ran past ``MAX_HOST_STATES``
    "hosts: refused",  # a host play ``validate_move`` refuses
    "hosts: pin may host",  # a pinned set could itself grow into a host (``_outside_pins``)
    "tracked: not applicable",  # the tracked host pass does not take the position
    "tracked: states",  # ... ran past ``MAX_TRACKED_HOST_STATES``
    "tracked: refused",  # ... decoded into a play ``validate_move`` refuses
    "pins",  # pins the DP does not take (jokers past ``max_per_set``, a kept joker outside)
    "states",  # past the DP's bound of states (``MAX_STATES``), or its key bits
    "decode",  # the decoding cannot place every joker within ``max_per_set``, or fit the play
    "refused",  # ``validate_move`` refuses the DP's answer (``dispatch.solve``)
)


class Meter:
    """The DP states a search may still create (``None``: no budget) and those it made.

    ``settle`` (default false): where a locked-joker position runs past the joker-host limits
    (``MAX_HOST_SOLVES``, ``MAX_HOST_STATES``), settle for the best legal play found so far
    instead of giving up (``None``, for the integer program), and go on as a quick search;
    ``cut`` then says that the answer is not proven best (and ``why`` why). ``quick`` (default false):
    lower joker-host limits (``SETTLE_HOST_SOLVES``, ``SETTLE_HOST_STATES``), no tracked host
    pass, and settle at the first choice that gives up (``solve(exact=False)``). ``kept``: the
    best legal plays (score, table, played) the search found on its way, kept for when the
    budget runs out before one is proven best (an opening's parts are plays of part of the rack:
    the caller checks them). ``why``: the last reason a part of the search gave up (``fail``;
    one of ``GIVE_UPS``), which says why the integer program answers when the whole search does."""

    def __init__(self, left: int | None = None, *, settle: bool = False, quick: bool = False) -> None:
        self.left = left
        self.spent = 0
        self.settle = settle or quick
        self.quick = quick
        self.cut = False
        self.kept: list[tuple[int, tuple[Meld, ...], tuple[int, ...]]] = []
        self.why = ""

    def fail(self, why: str) -> None:
        """Record why a part of the search gives up (its answer: None), one of ``GIVE_UPS``."""
        assert why in GIVE_UPS, why
        self.why = why

    def keep(self, found) -> None:
        """Remember a legal play (score, table, played), the ``KEPT_PLAYS`` best."""
        if found[2] and found not in self.kept:
            self.kept.append(found)
            self.kept.sort(key=lambda kept: -kept[0])
            del self.kept[KEPT_PLAYS:]

    def limit(self) -> int:
        return UNLIMITED if self.left is None else self.left

    def spend(self, states: int) -> None:
        self.spent += states
        if self.left is not None:
            self.left -= states


def _buffers() -> _Buffers:
    if not _BUFFERS:
        _BUFFERS.append(_Buffers())
    return _BUFFERS[0]


# ----- the Python side ------------------------------------------------------------------------


def _scope_jokers(profile: RuleProfile) -> int:
    """Jokers for the scope checks: the most a position holds without per-run joker counts
    (positions with more build their own tables, or go to the MILP when those are too big)."""
    return min(profile.tileset.jokers, profile.jokers.max_per_set)


@lru_cache(maxsize=64)
def encodable(profile: RuleProfile) -> bool:
    """The DP's one profile-level scope check, shared by every entry point: runs of at least
    three tiles, and a tile set it can encode (open runs per colour and the state key's bits);
    where it fails, every move goes to the integer program."""
    return (
        profile.runs.min_length == 3
        and _tables(profile, profile.tileset.copies, _scope_jokers(profile)) is not None
    )


def supported(profile: RuleProfile, table: tuple[Meld, ...], *, pins: bool = False) -> bool:
    """Whether ``solve_dp`` handles turn-mode positions of this profile and table at all;
    without ``pins`` (the beam pass, openings that touch the table), only those that need no
    pinned sets: full rearrangement, and no strict joker sets on the table."""
    if not encodable(profile):
        return False
    joker = profile.tileset.joker
    has_jokers = any(joker in m.tiles for m in table)
    strict = has_jokers and not profile.jokers.take_from_joker_sets
    if not pins:
        return profile.turn.rearrange and not strict
    # strict joker sets pin the sets whose locked jokers are kept; free table jokers may
    # move out of a set that must stay together, which pins do not describe
    return not (strict and profile.turn.rearrange and profile.jokers.table_jokers == "free")


@lru_cache(maxsize=64)
def without_rearrange(profile: RuleProfile) -> RuleProfile:
    """The profile with ``turn.rearrange: false`` (a ``rearrange=False`` search: every table
    set is pinned, and ``validate_move`` under it checks that each table set sits in a new one);
    built once per profile."""
    if not profile.turn.rearrange:
        return profile
    data = profile.to_dict()
    data["turn"] = {**data["turn"], "rearrange": False}
    return profile_from_dict(data, f"<{profile.name} without rearrangement>")


def solve_dp(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    *,
    objective: str,
    meter: Meter | None = None,
    rearrange: bool = True,
) -> SearchResult | None:
    """Best turn-mode play (the player has opened), or ``None`` when the position is outside
    what the DP handles (see the module docstring). ``rearrange=False`` (or the profile's
    ``turn.rearrange: false``): only new sets from the rack and rack tiles added to table sets
    (every table set pinned). The states are charged to ``meter``; past its budget,
    ``SearchBudgetSpent``."""
    if not rearrange:
        profile = without_rearrange(profile)
    meter = meter or Meter()
    if objective not in OBJECTIVES or not supported(profile, table, pins=True):
        meter.fail("scope")
        return None
    rack = tuple(sorted(int(t) for t in rack))
    return _play(rack, tuple(table), profile, objective, meter)


def _play(rack: tuple[int, ...], table: tuple[Meld, ...], profile: RuleProfile, objective: str, meter):
    """``solve_dp`` on a sorted rack, past the scope checks."""
    found = _best_play(rack, table, profile, objective, meter)
    if found is None:
        return None
    if not found[2]:
        return SearchResult(table, (), True, meter.spent)
    return SearchResult(found[1], found[2], True, meter.spent)


def _best_play(rack, table, profile, objective, meter, floor: int | None = None) -> _Found | None:
    """(score, new table, played) of the best turn-mode play of a sorted rack, ``()`` played
    for none (score 0); with ``floor``, a score below ``floor`` when no play reaches it.

    With a discard pile the play must leave a tile: when the best play empties the rack, the
    best play of the rack less one tile of some code. Leaving out ``code`` scores at most the
    rack's whole gain less that tile's, so the codes go best bound first and the first play
    that reaches the next bound settles it (usually the first or second solve)."""
    found = _solve_rack(rack, rack, table, profile, objective, meter, floor=floor)
    if found is None:
        return None
    if profile.discard_pile and found[2] and len(found[2]) >= len(rack):
        gains = {code: tile_gain(profile, code, objective) for code in set(rack)}
        total = sum(gains[t] for t in rack)
        best = None
        above = floor
        for code in sorted(gains, key=lambda c: (gains[c], c)):
            bound = total - gains[code]
            if above is not None and bound < above:
                break  # no rack less one tile reaches the best play so far (or ``floor``)
            less = list(rack)
            less.remove(code)
            sub = _solve_rack(tuple(less), rack, table, profile, objective, meter, floor=above)
            if sub is None:
                return None
            if sub[2] and (above is None or sub[0] >= above):
                best = sub
                above = sub[0] + 1
        found = best
    if found is None or not found[2] or (floor is not None and found[0] < floor):
        return (0 if floor is None or floor <= 0 else NO_BOUND), table, ()
    return found


def solve_dp_opening(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    *,
    objective: str,
    meter: Meter | None = None,
) -> SearchResult | None:
    """The initial meld, or ``None`` when the DP cannot settle it and the MILP must.

    When even the most valuable rack-only table falls short of the threshold there is no
    opening (also when the opening turn may touch the table: its opening sets are rack-only
    too). A single-set opening (``initial_meld.sets: single``, the table untouched) is the
    best of the sets the rack can form (``opening.best_single_set``). Otherwise the best
    play of the rack (on an empty table; on the table itself where the opening may touch
    it) bounds every opening, and is the answer when it meets the opening rules (for a table
    that may be touched: without freeing table jokers, see ``_cored_opening``); else
    ``_cored_opening`` settles it. ``solve`` checks the answer with ``validate_move``."""
    meter = meter or Meter()
    if objective not in OBJECTIVES or not encodable(profile):
        meter.fail("scope")
        return None
    rack = tuple(sorted(int(t) for t in rack))
    table = tuple(table)
    touch = profile.initial_meld.may_touch_table
    single = profile.initial_meld.sets == "single"  # (one_qualifying: cores of one set each)
    if single and not touch:
        best = best_single_set(rack, profile, objective)
        if best is None:
            return SearchResult(table, (), True, meter.spent)
        return SearchResult(table + (best[1].meld,), best[1].tiles, True, meter.spent)
    top = _opening_value_bound(rack, profile, meter)
    if top is None:
        meter.fail("states")
        return None
    if top < profile.initial_meld.threshold:
        return SearchResult(table, (), True, meter.spent)
    if single or (touch and not supported(profile, table)):
        meter.fail("scope")
        return None
    base = table if touch else ()
    found = _cored_opening(rack, base, profile, objective, meter)
    if found is None:
        return None
    if not found[2]:
        return SearchResult(table, (), True, meter.spent)
    new_table = found[1] if touch else table + found[1]
    return SearchResult(new_table, found[2], True, meter.spent)


MAX_CORES = 400  # opening cores (and search steps listing them) past which the MILP answers
MAX_CORE_NODES = 20_000
FEW_CORES = 2  # up to this many cores are solved in turn without the bound of the whole rack


def _cored_opening(rack, base, profile, objective, meter) -> _Found | None:
    """The best initial meld as (score, new table, played), ``()`` played for none: rack-only
    sets worth the threshold (an "opening core") plus the best play of the other rack tiles
    on ``base`` (the table where the opening may touch it, else the empty table).

    Why the best over the minimal cores (``opening.opening_cores``: dropping any set falls
    below the threshold) is the optimum. Every opening holds rack-only sets worth the
    threshold; a minimal sub-collection ``M`` of them is a core, and the rest of the opening
    is a play of the rack less ``M``'s tiles on ``base``: its other rack-only sets are new
    sets of rack tiles, and its freed jokers, the rack tiles that free them and the two rack
    items beside each are tiles outside ``M`` (the rule the MILP encodes: the opening sets, the
    freeing tiles and the hosts' rack items are distinct rack tiles, and sets holding table
    jokers never count). So its score is at most ``gain(M) + best(rack - M)``. Conversely,
    ``M``'s sets beside any play of the rest are a legal opening worth that much. So the
    optimum is the best of ``gain(M) + best(rack - M)`` over the cores (one per multiset of
    tiles: the score depends on the tiles alone), with a discard pile the play of the rest
    leaving a tile of it.

    Search: no core, no opening; up to ``FEW_CORES`` cores on a table are solved in turn.
    With more, or on the empty table, the best play of the whole rack (``best(rack)``)
    first: it bounds every opening (a core and a play of the rest are a play of the rack)
    and answers at once when it meets the opening rules without freeing a table joker
    (then no rack tile does two jobs). Else the cores go in turn, those made of sets of that
    play first, then fewest tiles first, and the search stops when an opening reaches
    ``best(rack)``. The play of the rest is only
    looked for above the best opening so far (the DP prunes below that floor). ``None``
    when a search is outside the DP's scope or there are more than ``MAX_CORES`` cores."""
    full = None
    if not base:  # on the empty table the best play is cheap, and usually the answer
        full = _best_play(rack, base, profile, objective, meter)
        if full is None or not full[2]:
            return full  # None: outside the DP's scope; no play at all: no opening either
        if _opens_alone(profile, base, rack, full):
            return full
    try:
        cores = opening_cores(rack, profile, limit=MAX_CORES, nodes=MAX_CORE_NODES)
    except TooManyCores:
        meter.fail("opening cores")
        return None
    if not cores:
        return 0, base, ()
    if full is None and len(cores) > FEW_CORES:
        full = _best_play(rack, base, profile, objective, meter)
        if full is None or not full[2]:
            return full
        if _opens_alone(profile, base, rack, full):
            return full
    if full is not None:
        laid: dict[Meld, int] = {}
        for meld in full[1]:
            laid[meld] = laid.get(meld, 0) + 1

        def order(core):
            sets: dict[Meld, int] = {}
            for s in core:
                sets[s.meld] = sets.get(s.meld, 0) + 1
            return (any(laid.get(m, 0) < n for m, n in sets.items()), sum(len(s.tiles) for s in core))

        cores.sort(key=order)
    gains = {code: tile_gain(profile, code, objective) for code in set(rack)}
    best: _Found = (0, base, ())
    for core in cores:
        if full is not None and best[2] and best[0] >= full[0]:
            break
        used = [t for s in core for t in s.tiles]
        rest = list(rack)
        for t in used:
            rest.remove(t)
        if profile.discard_pile and not rest:
            continue
        g = sum(gains[t] for t in used)
        floor = best[0] + 1 - g if best[2] else None
        sub = _best_play(tuple(rest), base, profile, objective, meter, floor) if rest else (0, base, ())
        if sub is None:
            return None
        score = g + (sum(gains[t] for t in sub[2]) if sub[2] else 0)
        if sub[0] == NO_BOUND or (best[2] and score <= best[0]):
            continue
        best = (score, sub[1] + tuple(s.meld for s in core), tuple(sorted(used + list(sub[2]))))
        meter.keep(best)
    return best


def _opens_alone(profile, base, rack, full: _Found) -> bool:
    """Whether the best play of the whole rack is itself an opening that frees no table joker
    (then no rack tile does two jobs, and it bounds every opening)."""
    check = _opening_check(profile, base, rack, full)
    return check is not None and check.jokers_freed == 0


def _opening_check(profile, base, rack, found: _Found):
    """``validate_move``'s verdict on a play as the initial meld (``None``: refused)."""
    try:
        return validate_move(profile, base, rack, found[1], found[2], opened=False)
    except IllegalMove:
        return None


def solve_dp_beam(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    *,
    initial: bool,
    objective: str,
    states: int,
) -> SearchResult | None:
    """A good play found by one beam pass of the DP (the best states of each step only) that
    creates at most ``states`` states, with ``proven=False``; ``None`` when the pass finds
    nothing or the position is outside the DP's scope. Table jokers stay where they are
    (locked ones keep their faces); the sets the exact search pins stay pinned (the joker
    sets under strict joker sets, every set without rearrangement). ``solve`` spends the
    last part of a search budget on it when the exact search runs out, and checks the play
    with ``validate_move``. An opening is searched from the rack alone, the table untouched:
    that is an opening also where the opening may touch the table (``solve`` then plays the
    rest of the rack on the table with a second, turn-mode pass)."""
    base = () if initial else tuple(table)
    if states <= 0 or not supported(profile, base, pins=True):
        return None
    ts = profile.tileset
    rack = tuple(sorted(int(t) for t in rack))
    opts: dict[str, Any] = {}
    if not profile.turn.rearrange:  # every table set pinned, as in the exact search
        opts = _pin_all(base, ts.joker)
    elif profile.jokers.table_jokers == "locked":
        faces = tuple(f for m in base for t, f in zip(m.tiles, m.faces, strict=True) if t == ts.joker)
        opts["virtual"] = faces
        if not profile.jokers.take_from_joker_sets:  # the joker sets pinned, their jokers kept
            opts["pinned"] = _strict_pins(base, tuple((False, f) for f in faces), profile)
    meter = Meter(states)
    try:
        found = _best(rack, base, profile, objective, meter, beam_states=states, **opts)
    except SearchBudgetSpent:
        found = None
    # with a discard pile a play must keep a tile to discard
    if found is None or not found[2] or (profile.discard_pile and len(found[2]) >= len(rack)):
        return SearchResult(tuple(table), (), False, meter.spent)
    new_table = tuple(table) + found[1] if initial else found[1]
    return SearchResult(new_table, found[2], False, meter.spent)


def _opening_value_bound(rack: tuple[int, ...], profile: RuleProfile, meter: Meter) -> int | None:
    """An upper bound on the opening value of any rack-only table, or ``None``:
    the most face value of numbered rack tiles in sets (the DP with each tile's value as
    its gain; jokers placed where sets need them), plus each rack joker at its best worth."""
    ts = profile.tileset
    rack_counts = np.bincount(np.asarray(rack, dtype=np.int64), minlength=ts.n_codes)
    n_rj = int(rack_counts[ts.joker])
    if n_rj > ts.jokers:
        return None
    tab = _tables(profile, max(ts.copies, int(np.max(rack_counts[: ts.joker]))), n_rj)
    if tab is None:
        return None
    tgrid, rgrid, wrapable, allow_group = _grids(np.zeros_like(rack_counts), rack_counts, profile)
    geo = run_geometry(profile)
    gain = np.array([geo.value_at(p + 1) for p in range(tgrid.shape[0])], dtype=np.int64)
    best = _search(tab, tgrid, rgrid, gain, wrapable, allow_group, n_rj, [NO_BOUND], meter)
    if best < 0:
        return None
    return int(_buffers().scores[best]) + n_rj * profile.joker_opening_value(ts.values)


_Found = tuple[int, tuple[Meld, ...], tuple[int, ...]]  # score, new table, played


def _solve_rack(
    rack: tuple[int, ...],
    full_rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    objective: str,
    meter: Meter,
    *,
    floor: int | None = None,
) -> _Found | None:
    """The best play of ``rack`` (score, new table, played), or None if unknown.
    Locked table jokers: a bound per choice of keeping or freeing each, then ``_settle``.
    With ``floor``, only a play scoring at least ``floor`` is looked for (the searches prune
    below it): the answer is the best play when that reaches ``floor``, else a score below it."""
    ts = profile.tileset
    if not profile.turn.rearrange:  # dp pins (rearrange=False): every table set stays as it is
        return _best(rack, table, profile, objective, meter, floor=floor, **_pin_all(table, ts.joker))
    joker = ts.joker
    locked = [
        (face, joker_acceptable(profile, meld, face))
        for meld in table
        if joker in meld.tiles
        for t, face in zip(meld.tiles, meld.faces, strict=True)
        if t == joker
    ]
    if not locked or profile.jokers.table_jokers == "free":
        return _best(rack, table, profile, objective, meter, floor=floor)
    rack_counts = np.bincount(np.asarray(rack, dtype=np.int64), minlength=ts.n_codes)
    options = [
        [(False, f) for f in sorted(ok)] + [(True, f) for f in sorted(ok) if rack_counts[f] > 0]
        for _, ok in locked
    ]
    # for ``_hosted``, over all choices (lower for a quick search, ``Meter.quick``)
    host_cap = [MAX_HOST_SOLVES, MAX_HOST_STATES]
    if meter.quick:
        host_cap = [SETTLE_HOST_SOLVES, SETTLE_HOST_STATES]
    # the pruned passes may pick another of several best tables than the full search does;
    # when that settles nothing, search in full
    for prune in (True, False):
        results = []
        for choice in product(*options):
            forced = tuple(f for freed, f in choice if freed)
            if any(forced.count(f) > rack_counts[f] for f in forced):
                continue
            virtual = tuple(f for freed, f in choice if not freed)
            # a floor below every score: a choice no table can realise (two kept jokers at
            # one face with no set to hold both) answers "nothing reaches it", not None
            low = NO_BOUND + 1 if floor is None else floor
            opts: dict[str, Any] = dict(virtual=virtual, forced=forced, prune=prune, floor=low)
            if not profile.jokers.take_from_joker_sets:  # dp pins: the sets of kept jokers stay
                opts["pinned"] = _strict_pins(table, choice, profile)
                if opts["pinned"] is None:
                    meter.fail("strict sets: split joker set")
                    return None
                if opts["pinned"] is NO_PINS:
                    continue  # kept jokers of one set at faces no set holds
            found = _best(rack, table, profile, objective, meter, **opts)
            if found is None:
                return None
            results.append((found, virtual, forced, opts.get("pinned", ())))
        results.sort(key=lambda r: -r[0][0])
        settled = _settle(results, rack, full_rack, table, profile, objective, prune, host_cap, meter, floor)
        if settled is not None:
            return settled
        if host_cap[0] < 0 or host_cap[1] < 0:
            return None  # the host search ran past its limits: a full pass would too
    return None


def _pin_all(table: tuple[Meld, ...], joker: int) -> dict:
    """``_best``'s options without rearrangement: every table set pinned, with its jokers."""
    return dict(
        virtual=tuple(f for m in table for t, f in zip(m.tiles, m.faces, strict=True) if t == joker),
        pinned=tuple((m.tiles, m.faces) for m in table),
    )


NO_PINS = ((), ())  # ``_strict_pins``: the choice keeps no legal table


def _strict_pins(table: tuple[Meld, ...], choice, profile: RuleProfile):
    """The pinned sets of a joker choice under ``take_from_joker_sets: false`` (``choice``: a
    (freed, face) per table joker, in table order): each set whose jokers are all kept, the
    jokers at their chosen faces; a set whose jokers are all freed is released. ``None``
    when a set keeps some of its jokers and frees others (not pinned: the MILP answers);
    ``NO_PINS`` when the chosen faces make a kept set invalid (two jokers of a group at one
    colour): no legal table keeps them so."""
    joker = profile.tileset.joker
    pinned = []
    k = 0
    for meld in table:
        n = meld.joker_count(joker)
        if not n:
            continue
        mine = choice[k : k + n]
        k += n
        n_freed = sum(freed for freed, _ in mine)
        if n_freed == n:
            continue
        if n_freed:
            return None
        kept = iter(f for _, f in mine)
        pairs = zip(meld.tiles, meld.faces, strict=True)
        faces = tuple(next(kept) if t == joker else f for t, f in pairs)
        if not is_valid_meld_parts(meld.tiles, faces, profile):
            return NO_PINS
        pinned.append((meld.tiles, faces))
    return tuple(pinned)


def _legal(profile, table, full_rack, found: _Found) -> bool:
    """Whether a play the DP found keeps the table's joker rules. A play of the whole rack
    under a discard pile counts as legal here: the keep-back is ``_best_play``'s job (it then
    searches the rack less one tile), not a reason to look for other joker hosts."""
    return is_legal(profile, table, full_rack, found[1], found[2], opened=True, waive=("must_keep_discard",))


def _settle(
    results, rack, full_rack, table, profile, objective, prune, host_cap, meter, floor=None
) -> _Found | None:
    """The best legal play from the bounds of each joker choice (best first): the first legal
    play, unless a better bound freed jokers; such a choice is then solved exactly by
    ``_hosted`` (the sets that may hold the freed jokers), above the legal play found (and
    ``floor``, when given). Where that gives up: None, or under ``Meter.settle`` the best legal
    play found so far (``Meter.cut``; the rest of the search then quick, ``Meter.quick``)."""
    best: _Found | None = None
    pending = []
    for found, virtual, forced, pinned in results:
        if best is not None and found[0] <= best[0]:
            break
        if not found[2]:
            best = (found[0], table, ())
            break
        if _legal(profile, table, full_rack, found):
            best = found
            break
        pending.append((found, virtual, forced, pinned))
    if best is not None:
        meter.keep(best)
    # choices freeing one joker first: their plays may settle those that free several
    pending.sort(key=lambda r: (len(r[2]) != 1, -r[0][0]))
    for found, virtual, forced, pinned in pending:
        if best is not None and found[0] <= best[0]:
            continue
        if profile.jokers.reuse == "any":
            meter.fail("hosts: reuse any")
            return None
        above = NO_BOUND if best is None else best[0] + 1
        if floor is not None:
            above = max(above, floor)
        args = (rack, full_rack, table, profile, objective, virtual, forced)
        sub = _hosted(*args, above, prune, (), host_cap, meter)
        if sub is None and pinned and host_cap[0] >= 0 and host_cap[1] >= 0:
            # without the pins its best play broke a pinned set: host sets beside the pins
            sub = _hosted(*args, above, prune, (), host_cap, meter, pinned)
        if sub is None:
            if not meter.settle:
                return None
            # past the host limits: the best legal play so far, and the rest of the search quick
            meter.cut = meter.quick = True
            return best if best is not None else (0, table, ())
        if sub[2] and sub[0] >= above:
            best = sub
            meter.keep(best)
    return best


# DP runs around sets holding freed jokers, and states over them, past which the MILP answers
MAX_HOST_SOLVES = 400
MAX_HOST_STATES = 1 << 18
# the same limits for a quick search that settles for its best play found (``Meter.quick``)
SETTLE_HOST_SOLVES = 24
SETTLE_HOST_STATES = 1 << 14


def _hosted(
    rack, full_rack, table, profile, objective, virtual, forced, floor, prune, placed, host_cap, meter,
    pinned=(),
):  # fmt: skip
    """``_host_sets_search``; where that gives up on one or two freed jokers (too many host
    sets, or a host play it cannot place), one search that tracks the host sets
    (``_tracked_host``), except in a quick search (``Meter.quick``)."""
    args = (rack, full_rack, table, profile, objective, virtual, forced)
    found = _host_sets_search(*args, floor, prune, placed, host_cap, meter, pinned)
    tracked = len(forced) == 1 or (TRACK_TWO_HOSTS and len(forced) == 2)
    tracked = tracked and profile.jokers.reuse == "two_rack_tiles"  # (its host runs take table tiles)
    if found is not None or placed or pinned or meter.quick or not tracked:
        return found
    return _tracked_host(rack, full_rack, table, profile, objective, meter, virtual, forced, floor, prune)


def _host_sets_search(
    rack, full_rack, table, profile, objective, virtual, forced, floor, prune, placed, host_cap, meter,
    pinned=(),
):  # fmt: skip
    """The best play of a joker choice that frees table jokers (the ``forced`` rack tiles
    replace them), under ``reuse: two_rack_tiles``, if it reaches ``floor`` (else a score
    below ``floor``), with the sets in ``placed`` taken. Each freed joker gets a set with
    two other rack items (``freed_joker_hosts``; several freed jokers may share one, up to
    ``jokers.max_per_set``), one set after the other, for any number of freed jokers: the
    DP on the tiles left, the other freed jokers still free, bounds the play, best bound
    first; a legal play settles that branch, an illegal one recurses. Complete: every legal
    play holds a set with some of the freed jokers left, which is one of the hosts listed.
    ``pinned`` (strict joker sets: the sets of the choice's kept jokers, ``_strict_pins``): the
    DP keeps them as pins, and the hosts are sets of the other tiles. Without ``pinned`` under
    strict joker sets the DP relaxes the pins: exact where its play keeps them, else ``None``.
    ``None`` when this cannot be settled here (the MILP answers)."""
    ts = profile.tileset
    table_counts, rack_counts, _ = _pools(rack, table, profile, objective, virtual, forced, placed)
    left = len(forced) - sum(freed_in(host, ts.joker) for host in placed)
    hosts: list[Host] | None
    if profile.jokers.reuse == "new_set":  # a set of one freed joker and rack tiles alone
        hosts = _new_set_hosts(rack_counts, profile)
    else:
        if pinned:  # the hosts are sets of the tiles outside the pins, the pins kept as they are
            table_counts = _outside_pins(table_counts, rack_counts, pinned, left, profile)
            if table_counts is None:
                meter.fail("hosts: pin may host")
                return None
        hosts = _rack_item_hosts(table_counts, rack_counts, profile, left, host_cap[0])
    if hosts is None or len(hosts) > host_cap[0]:
        host_cap[0] = -1  # past the limits: ``_solve_rack`` gives up at once
        meter.fail(_hosts_why(left))
        return None
    top = sum(tile_gain(profile, t, objective) for t in rack)
    best: _Found = (NO_BOUND, table, ())
    bounds = []
    for host in hosts:
        if floor > top:
            break  # a play of the whole rack is known
        host_cap[0] -= 1
        opts = dict(
            virtual=virtual, forced=forced, prune=prune, hosts=placed + (host,), floor=floor, pinned=pinned
        )
        before = meter.spent
        found = _best(rack, table, profile, objective, meter, **opts)
        if found is None:
            return None
        host_cap[1] -= meter.spent - before
        if host_cap[0] < 0 or host_cap[1] < 0:
            meter.fail("hosts: states" if host_cap[1] < 0 else _hosts_why(left))
            return None
        if found[0] < floor:
            continue
        if left == freed_in(host, ts.joker):  # every freed joker has its set: a legal play
            if not _legal(profile, table, full_rack, found):
                meter.fail("hosts: refused")
                return None
            best = found
            floor = found[0] + 1
        else:
            bounds.append((found, host))
    bounds.sort(key=lambda r: -r[0][0])
    for found, host in bounds:
        if found[0] < floor:
            break
        if not _legal(profile, table, full_rack, found):
            args = (rack, full_rack, table, profile, objective, virtual, forced)
            found = _hosted(*args, floor, prune, placed + (host,), host_cap, meter, pinned)
            if found is None:
                return None
            if not found[2] or found[0] < floor:
                continue
        best = found
        floor = found[0] + 1
    return best


def _new_set_hosts(rack_counts, profile: RuleProfile) -> list[Host]:
    """``reuse: new_set``'s host sets (``opening.new_set_hosts``), those with more rack tiles first
    (good plays early raise the floor)."""
    return sorted(new_set_hosts(rack_counts, profile), key=lambda host: -len(host[2]))


def _rack_item_hosts(table_counts, rack_counts, profile, left: int, cap: int) -> list[Host] | None:
    """``reuse: two_rack_tiles``'s host sets (``freed_joker_hosts``): sets holding one or more of
    the ``left`` freed jokers (up to ``jokers.max_per_set``) beside two other rack items, those
    with more rack tiles first; None past ``cap`` of them."""
    hosts = freed_joker_hosts(table_counts, rack_counts, profile, limit=cap)
    if hosts is not None:
        hosts.sort(key=lambda host: -len(host[2]))
    for shared_by in range(2, min(left, profile.jokers.max_per_set) + 1):
        if hosts is None:
            break
        limit = cap - len(hosts)
        shared = freed_joker_hosts(table_counts, rack_counts, profile, freed=shared_by, limit=limit)
        hosts = None if shared is None else hosts + shared
    return hosts


def _hosts_why(freed: int) -> str:
    """``Meter.why`` for host sets too many to list, by the freed jokers left to place."""
    return f"hosts: {freed} freed" if freed < 3 else "hosts: 3+ freed"


# states a search that tracks the host set of a freed joker may create (past them: the MILP)
MAX_TRACKED_HOST_STATES = 1 << 19
# Two freed jokers whose host sets are too many to list: tracked by one search with two host
# fields (True), or handed to the MILP (False, the default until the shipped experiments are
# run again with it: it breaks ties differently from the MILP). Like the MILP it stood in for
# until the budget covered the MILP too (``milp.MILP_UNITS_PER_NONZERO``), that search is not
# charged to the search budget: charge it before switching it on.
TRACK_TWO_HOSTS = False
# The tracked pass also for three or more jokers in the search (a rack joker beside the freed
# ones), its runs without per-run joker counts: a relaxation of ``max_per_set``, exact where its
# play is legal (the decoding refuses a set past the cap, ``validate_move`` the rest); and a
# refused decoding tried again with the kept jokers outside the host runs. Off, like
# ``TRACK_TWO_HOSTS``, until the shipped experiments are run again with it (it answers positions
# that go to the MILP today, whose ties it breaks differently).
RELAX_TRACKED = False


def _tracked_host(rack, full_rack, table, profile, objective, meter, virtual, forced, floor, prune):
    """``_hosted`` for one or two freed jokers by one search that tracks their host sets
    (``_best`` with ``host``): its best play if that reaches ``floor``, else a score below
    ``floor``; None where that search does not apply, runs past ``MAX_TRACKED_HOST_STATES`` or
    decodes into a play that ``validate_move`` refuses. For one freed joker its states count
    against the search budget like any other pass (past the budget: ``SearchBudgetSpent``);
    for two (``TRACK_TWO_HOSTS``) they do not, as the MILP's that it stands in for do not."""
    two = len(forced) == 2  # the MILP's stand-in: not charged to the budget
    capped = two or meter.left is None or meter.left > MAX_TRACKED_HOST_STATES
    opts = dict(virtual=virtual, forced=forced, prune=prune, floor=floor, host=True)

    def tracked_pass(limit: int | None, kept_outside_hosts: bool = False):
        """One pass within ``limit`` states: (its answer, its meter, whether it ran past the limit);
        past the search budget, where the pass is charged to it, ``SearchBudgetSpent``."""
        sub = Meter(limit)
        try:
            found = _best(rack, table, profile, objective, sub, **opts, kept_outside_hosts=kept_outside_hosts)
            return found, sub, False
        except SearchBudgetSpent:
            if not capped:
                raise  # the search budget is spent
            return None, sub, True
        finally:
            if not two:
                meter.spend(sub.spent)

    found, sub, past = tracked_pass(MAX_TRACKED_HOST_STATES if capped else meter.left)
    if past:
        meter.fail("tracked: states")  # past its own limit: the integer program answers
        return None
    if found is None:
        meter.fail(sub.why or "tracked: not applicable")
        return None
    if found[0] >= floor and not _legal(profile, table, full_rack, found):
        if RELAX_TRACKED and virtual:
            # the kept jokers back into sets other than the host runs: a tile of the kept
            # joker's face there may be a rack item the host run counted (one more pass)
            found, _, _ = tracked_pass(sub.limit(), kept_outside_hosts=True)
            if found is not None and _legal(profile, table, full_rack, found):
                return found
        meter.fail("tracked: refused")
        return None
    return found


def _outside_pins(table_counts, rack_counts, pinned, freed: int, profile: RuleProfile):
    """``_hosted``'s table counts less the pinned sets' tiles (a kept joker counts at its face,
    as ``_pools`` puts it), or ``None`` where the host sets cannot settle the choice: a pin
    that could itself grow into a set holding a freed joker beside two rack items (the hosts
    are sets of their own; a pin may only grow, so such a play is not among them), or pins
    the DP does not take. A pin's own rack items: its numbered tiles whose code the rack holds
    (copies are interchangeable: the rack copy may sit in the pin and the table copy go
    elsewhere). A pinned run may host when those, plus the rack tiles of its colour that a run
    grown from it could reach (over table and rack tiles, and as many gaps as there are jokers
    in play), plus the rack's jokers, are two or more; a pinned group when it has room for the
    freed joker and the rack items its own do not make up."""
    pins = make_pins(pinned, profile)
    if pins is None:
        return None
    out = _less_pins(table_counts, pins)
    if out is None:
        return None
    geo = run_geometry(profile)
    joker = profile.tileset.joker
    n_rj = int(rack_counts[joker])
    gaps = freed + n_rj  # jokers that may fill a gap: the freed ones and the rack's
    for pin in pins:
        own = sum(1 for t in set(pin.tiles) if t != joker and rack_counts[t] > 0)
        if pin.kind == "group":
            if profile.groups.max_size - len(pin.faces) >= 1 + max(0, HOST_RACK_ITEMS - own):
                return None
            continue
        code_at = geo.codes(pin.colour)  # code_at[q + 1]: the code at 0-based position q
        items = n_rj + own
        for step in (-1, 1):
            left = gaps
            q = pin.first - 1 if step < 0 else pin.last + 1
            while 0 <= q < geo.top and items < HOST_RACK_ITEMS:
                code = code_at[q + 1]
                if rack_counts[code] > 0:
                    items += 1
                elif out[code] <= 0:
                    if left == 0:
                        break
                    left -= 1
                q += step
        if items >= HOST_RACK_ITEMS:
            return None
    return out


def _less_pins(table_counts: np.ndarray, pins) -> np.ndarray | None:
    """The table counts less the pinned sets' faces (a kept joker counts at its face, as
    ``_pools`` puts it); ``None`` when the pins hold more of a face than the counts."""
    out = table_counts.copy()
    for pin in pins:
        for face in pin.faces:
            out[face] -= 1
    return None if (out < 0).any() else out


def _tile_counts(rack, table, ts) -> tuple[np.ndarray, np.ndarray]:
    """The table's and the rack's tile counts, by code."""
    table_counts = np.bincount(
        np.array([t for m in table for t in m.tiles], dtype=np.int64), minlength=ts.n_codes
    )
    return table_counts, np.bincount(np.array(rack, dtype=np.int64), minlength=ts.n_codes)


def _pools(rack, table, profile, objective, virtual, forced, hosts=(), counts=None):
    """(table counts, rack counts, score offset) the DP sees: kept jokers as tiles of their
    faces, forced rack tiles moved to the table, the ``hosts`` sets and the freed jokers in
    them taken out (the rack tiles of both score in the offset). ``counts``: the table's and
    the rack's tile counts, when the caller has them (never written)."""
    ts = profile.tileset
    joker = ts.joker
    if counts is None:
        counts = _tile_counts(rack, table, ts)
    if not (virtual or forced or hosts):
        return counts[0], counts[1], 0
    table_counts, rack_counts = counts[0].copy(), counts[1].copy()
    table_counts[joker] -= len(virtual)
    offset = 0
    for f in virtual:
        table_counts[f] += 1
    for f in forced:
        table_counts[f] += 1
        rack_counts[f] -= 1
        offset += item_gain(ts.value_of(f), objective)
    for host in hosts:
        table_counts[joker] -= freed_in(host, joker)
        for t in host[1]:
            table_counts[t] -= 1
        for t in host[2]:
            rack_counts[t] -= 1
            offset += tile_gain(profile, t, objective)
    return table_counts, rack_counts, offset


def _best(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    objective: str,
    meter: Meter,
    *,
    virtual: tuple[int, ...] = (),
    forced: tuple[int, ...] = (),
    prune: bool = True,
    hosts: tuple[Host, ...] = (),
    floor: int | None = None,
    beam_states: int = 0,
    pinned: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (),
    host: bool = False,
    kept_outside_hosts: bool = False,
) -> _Found | None:
    """(score, new table, played) of the best play, treating table jokers as free,
    except ``virtual``: table jokers kept at these faces (tiles of that face in the DP, jokers
    again in the answer); ``forced``: rack tiles that must be played. With ``beam_states``,
    one beam pass that creates about that many states at most (a good play, not proven).
    ``pinned``: table sets as (tiles, faces), their jokers at faces of ``virtual``, that stay
    together and may only grow (``dp_decode.Pin``); ``None`` where pins do not apply.
    ``host``: the one or two table jokers left free are freed jokers, each of which the play puts
    in a set with two other rack items, or both in one such set (the kernel tracks those sets);
    ``None`` where this does not apply (see ``_host_args``). With ``RELAX_TRACKED`` it also
    takes three or more jokers, its runs then without per-run joker counts (a relaxation of
    ``max_per_set``: the decoding refuses a set past the cap, and the caller checks the play);
    ``kept_outside_hosts``: the kept jokers go back into sets other than the host runs where
    they can (``dp_decode.restore_jokers``).

    The DP places only the jokers some set needs; every other joker (the table's must stay,
    the rack's score) is added afterwards where a set has room. If they do not fit, the
    answer is ``None`` (the DP score assumed they would)."""
    ts = profile.tileset
    C = ts.colours
    joker = ts.joker
    real_counts, full_rack_counts = counts = _tile_counts(rack, table, ts)
    table_counts, rack_counts, offset = _pools(
        rack, table, profile, objective, virtual, forced, hosts, counts
    )
    n_tj, n_rj = int(table_counts[joker]), int(rack_counts[joker])
    fewest, most = _count_range(table_counts, rack_counts, joker)
    if n_tj + n_rj > ts.jokers or fewest < 0:
        meter.fail("scope")
        return None
    copies = max(ts.copies, most)
    n_jokers = n_tj + n_rj
    pins = make_pins(pinned, profile) if pinned else ()
    if pins is None:
        meter.fail("pins")
        return None
    if pins:
        # a pinned set with the DP's jokers could pass ``max_per_set``: not tracked with pins
        cap = profile.jokers.max_per_set
        if n_jokers + max(pin.jokers for pin in pins) > cap:
            meter.fail("pins")
            return None
        table_counts = _less_pins(table_counts, pins)
        pin_jokers = sorted(
            f for pin in pins for t, f in zip(pin.tiles, pin.faces, strict=True) if t == joker
        )
        if table_counts is None or pin_jokers != sorted(virtual):
            meter.fail("pins")  # every kept joker sits in a pin
            return None
        virtual = ()
    tab = _tables(profile, copies, n_jokers, host and RELAX_TRACKED)
    if tab is None:
        meter.fail("states")
        return None
    host_args = None
    if host:
        if pins or hosts or beam_states or n_tj not in (1, 2) or tab.types.n != len(HOST_TYPES):
            meter.fail("tracked: not applicable")
            return None
        if tab.low_at + n_tj * HOST_BITS > MAX_KEY_BITS:
            meter.fail("tracked: not applicable")
            return None
        host_args = _host_args(tab, n_rj, profile, n_tj)
    tgrid, rgrid, wrapable, allow_group = _grids(table_counts, rack_counts, profile)
    n_pos = tgrid.shape[0]
    gain = _position_gains(profile, objective)
    n_steps = n_pos * (C + 1)
    bounds = _bounds(rack_counts[:joker], profile, objective) if prune else [NO_BOUND]
    if floor is not None:
        need = floor - offset - n_rj * item_gain(profile.jokers.penalty, objective)
        bounds = [b for b in bounds if b > need] + [need]
    beam = step_cap = 0
    if beam_states:
        # half the states for the steps' caps: one state's moves may pass a cap a little
        step_cap = min(max(1, beam_states // (2 * n_steps)), (MAX_STATES - 1) // n_steps // 2)
        beam, bounds = step_cap, [NO_BOUND]  # it keeps what a step may create
    args = (tab, tgrid, rgrid, gain, wrapable, allow_group, n_jokers, bounds, meter, beam, step_cap)
    grid_of_best: list = []
    pin_args = pin_grids(pins, n_pos, profile) if pins else None
    best = _search(*args, pins=pin_args, host=host_args, grid_of_best=grid_of_best)
    buf = _buffers()
    if best == NO_STATE and floor is not None:
        return NO_BOUND, table, ()  # nothing reaches the floor
    if best < 0:
        meter.fail("states")
        return None
    steps = np.empty(n_steps, dtype=np.int64)
    if _chain(buf.parents, buf.actions, best, steps) != n_steps:
        meter.fail("decode")
        return None
    score = int(buf.scores[best]) + offset + n_rj * item_gain(profile.jokers.penalty, objective)
    host_sets = tuple(h[0] for h in hosts)
    moves = None
    if host_args is not None:
        split = split_host(steps, grid_of_best[0], n_pos, profile, tab.types, n_rj, n_tj)
        if split is None:
            meter.fail("decode")
            return None
        steps, moves = split
    new_table = build_table(
        steps, profile, tab.types, n_pos, n_jokers, virtual, host_sets, pins, moves, kept_outside_hosts
    )
    if new_table is None:
        meter.fail("decode")
        return None
    new_tiles = np.array([t for m in new_table for t in m.tiles], dtype=np.int64)
    played = _played(new_tiles, real_counts, full_rack_counts)
    if played.shape[0] and played[0] < 0:
        meter.fail("decode")
        return None
    return score, new_table, tuple(played.tolist())


@numba.njit(cache=True, nogil=True)
def _count_range(table_counts, rack_counts, joker):
    """(fewest count of any code on the table or the rack, most numbered tiles of one code on
    both): a negative count means the position is not one the DP can take."""
    fewest = 0
    most = 0
    for code in range(table_counts.shape[0]):
        fewest = min(fewest, table_counts[code], rack_counts[code])
        if code < joker:
            most = max(most, table_counts[code] + rack_counts[code])
    return fewest, most


@numba.njit(cache=True, nogil=True)
def _played(new_tiles, table_counts, rack_counts):
    """The rack tiles a new table adds to the old one (codes ascending), or ``[-1]`` when it
    lacks a table tile or adds more of a code than the rack holds."""
    extra = -table_counts.copy()
    for t in new_tiles:
        extra[t] += 1
    n = 0
    for code in range(extra.shape[0]):
        if extra[code] < 0 or extra[code] > rack_counts[code]:
            return np.full(1, -1, dtype=np.int64)
        n += extra[code]
    out = np.empty(n, dtype=np.int64)
    k = 0
    for code in range(extra.shape[0]):
        for _ in range(extra[code]):
            out[k] = code
            k += 1
    return out


@numba.njit(cache=True, nogil=True)
def _chain(parents, actions, best, out):
    """The actions from the first step to state ``best`` into ``out`` (its steps, in order),
    walking back from ``best``; returns the number of steps, or -1 when they do not fit ``out``."""
    i = best
    for k in range(out.shape[0] - 1, -1, -1):
        if i <= 0:
            return -1  # fewer steps than ``out`` holds
        out[k] = actions[i]
        i = parents[i]
    return out.shape[0] if i == 0 else -1


@lru_cache(maxsize=64)
def _position_gains(profile: RuleProfile, objective: str) -> np.ndarray:
    """The objective gain of one numbered tile at each run position (shared: never written;
    not flagged read-only, which would compile the kernel a second time)."""
    geo = run_geometry(profile)
    return np.array([item_gain(geo.value_at(p + 1), objective) for p in range(geo.top)], dtype=np.int64)


def _grids(table_counts: np.ndarray, rack_counts: np.ndarray, profile: RuleProfile):
    """Numbered table and rack tiles per run position and colour (with wrap, the 1s again
    at position V+1), the wrapping colours, and the positions where groups may form."""
    return _grid_arrays(table_counts, rack_counts, *_grid_shape(profile))


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


def _search(
    tab: _Tables,
    tgrid,
    rgrid,
    gain,
    wrapable,
    allow_group,
    n_jokers: int,
    bounds,
    meter: Meter,
    beam: int = 0,
    step_cap: int = 0,
    *,
    pins=None,
    host=None,
    grid_of_best: list | None = None,
) -> int:
    """Run the kernel with each score floor in turn until one finds a final state: the
    index of the best final state, or NO_STATE / OVERFLOW. The states created are charged
    to ``meter``; past what it allows, ``SearchBudgetSpent``.

    With wrap, the 1s of a colour are split between position 1 and V+1 (the high 1). Carrying
    the split through the sweep (the kernel's per-colour ``low`` counts) multiplies the states
    by up to three per colour, 14x on game positions. Instead each split is its own sub-problem
    (``_wrap_splits``): the high 1s of each colour are fixed before the sweep, so the kernel
    carries no split; the best sub-problem is the optimum, and each one after the first only
    looks for a better score (its floor), which prunes almost everything. ``grid_of_best``:
    a list that gets the table grid of the sub-problem answered."""
    if grid_of_best is not None:
        grid_of_best.append(tgrid)
    if beam or not wrapable.any():
        args = (tab, tgrid, rgrid, gain, wrapable, allow_group, n_jokers, bounds, meter)
        return _passes(*args, beam, step_cap, pins=pins, host=host)
    best_score = None
    best_grids = None
    last = None
    no_wrap = np.zeros_like(wrapable)
    for tg, rg in _wrap_splits(tgrid, rgrid, wrapable, n_jokers, pins=pins, rack_high=host is not None):
        floors = bounds
        if best_score is not None:  # only a better play is of interest
            floors = sorted({max(b, best_score + 1) for b in bounds}, reverse=True)
        found = _passes(
            tab, tg, rg, gain, no_wrap, allow_group, n_jokers, floors, meter, pins=pins, host=host
        )  # fmt: skip
        last = (tg, rg)
        if found == OVERFLOW:
            return OVERFLOW
        if found >= 0:
            score = int(_buffers().scores[found])
            if best_score is None or score > best_score:
                best_score, best_grids, best = score, (tg, rg), found
    if best_grids is None:
        return NO_STATE
    if grid_of_best is not None:
        grid_of_best[-1] = best_grids[0]
    if best_grids is not last:  # the buffers hold a later sub-problem: search the best one again
        tg, rg = best_grids
        best = _passes(
            tab, tg, rg, gain, no_wrap, allow_group, n_jokers, [best_score], meter, pins=pins, host=host
        )  # fmt: skip
    return best


def _wrap_splits(tgrid, rgrid, wrapable, n_jokers: int, *, pins=None, rack_high: bool = False):
    """Grids of the sub-problems of a wrap search, no high 1 first: for each choice of how many
    1s of each colour sit high (at V+1, after 13), those 1s move from position 1 to V+1 (table
    1s first: a table tile and a rack tile of one face are interchangeable, and a table 1 placed
    high leaves the rack 1 free for more), with no split left for the kernel. A rack 1 moved high
    may still stay on the rack (the kernel plays rack tiles at will): that is the same play as a
    sub-problem with fewer high 1s. A colour takes high 1s only if a run can reach V+1: its 12
    and 13, or jokers for what is missing. ``rack_high`` (a search that tracks host sets): a
    rack 1 counts as a host's rack item where a table 1 does not, so they are not
    interchangeable, and every mix of table and rack 1s high is a sub-problem of its own."""
    last = tgrid.shape[0] - 1
    have = (tgrid + rgrid) > 0
    if pins is not None:  # pinned runs (out of the grids) cover their positions too
        start, end = pins[0], pins[1]
        have |= (np.cumsum(start, axis=0) - np.cumsum(end, axis=0) + end) > 0
    choices = []
    for c in range(tgrid.shape[1]):
        ones = int(tgrid[0, c] + rgrid[0, c]) if wrapable[c] else 0
        missing = int(not have[last - 1, c]) + int(not have[last - 2, c])
        highs = range(ones + 1) if ones and missing <= n_jokers else range(1)
        table_ones = int(tgrid[0, c])
        choices.append(
            [
                (high, from_table)
                for high in highs
                for from_table in (
                    range(min(high, table_ones), max(0, high - (ones - table_ones)) - 1, -1)
                    if rack_high
                    else (min(high, table_ones),)
                )
            ]
        )
    for split in product(*choices):
        tg = tgrid.copy()
        rg = rgrid.copy()
        for c, (high, from_table) in enumerate(split):
            tg[0, c] -= from_table
            rg[0, c] -= high - from_table
            tg[last, c] = from_table
            rg[last, c] = high - from_table
        yield tg, rg


def _passes(tab: _Tables, tgrid, rgrid, gain, wrapable, allow_group, n_jokers: int, bounds, meter: Meter,
            beam: int = 0, step_cap: int = 0, *, pins: PinGrids | None = None, host=None) -> int:  # fmt: skip
    """The kernel with each floor of ``bounds`` in turn (see ``_search``), in one compiled call
    (``_run_passes``); ``pins``: the kernel's pin grids (``dp_decode.pin_grids``), none by default;
    ``host``: the kernel's host arguments (``_host_args``), none by default."""
    buf = _buffers()
    if pins is None:
        pins = _no_pins(tgrid.shape)
    # ``_kernel``'s arguments before and after the pass's own (rest gains, floor, limit, beam)
    head = (
        tgrid, rgrid, gain, wrapable, allow_group, n_jokers,
        tab.move_start, tab.move_end, tab.moves, tab.group_jokers, tab.width,
        tab.jokers_at, tab.n_at, tab.m_at, tab.low_at, tab.low_bits, tab.n_bits, tab.m_bits,
        buf.keys, buf.scores, buf.parents, buf.actions, buf.htab, buf.hinfo,
        tab.final_jokers, tab.debt, tab.needy,
    )  # fmt: skip
    tail = (*pins, tab.pin_drop, tab.pin_add, PRUNE_DEAD, host)
    best, created = _run_passes(head, tail, np.array(bounds, dtype=np.int64), meter.limit(), beam, step_cap)
    meter.spend(int(created))
    if best == OVER_BUDGET:
        raise SearchBudgetSpent
    return int(best)


def _host_args(tab: _Tables, n_rj: int, profile: RuleProfile, freed: int) -> tuple:
    """The kernel's host arguments of a search that tracks the host sets of ``freed`` (one or
    two) freed jokers: the fields sit above the key's other fields (with wrap, the kernel's
    per-colour low counts are unused: ``_wrap_splits``)."""
    second = tab.low_at + HOST_BITS if freed == 2 else -1
    totals = _group_totals(profile, tab.group_jokers.shape)
    return (tab.low_at, n_rj, *type_arrays(tab.types), totals, second)


@lru_cache(maxsize=64)
def _group_totals(profile: RuleProfile, shape: tuple[int, int]) -> np.ndarray:
    """Per (tiles of a value set aside for groups, most of one colour): bit ``z`` set where they
    form groups of distinct colours holding ``z`` jokers in all (each group ``min_size`` to
    ``max_size`` items, at most ``jokers.max_per_set`` jokers, ``GROUP_NUMBERED`` numbered
    tiles or more)."""
    lo, hi = profile.groups.min_size, profile.groups.max_size
    cap = profile.jokers.max_per_set
    out = np.zeros(shape, dtype=np.int64)
    for n in range(shape[0]):
        for m in range(shape[1]):
            if n == 0:
                out[n, m] = 1
                continue
            for k in range(max(m, 1), n // GROUP_NUMBERED + 1):
                small, extra = divmod(n, k)
                sizes = [small + 1] * extra + [small] * (k - extra)
                if max(sizes) > hi:
                    continue
                need = [max(0, lo - size) for size in sizes]
                room = [min(hi - size, cap) for size in sizes]
                if any(a > b for a, b in zip(need, room, strict=True)):
                    continue
                for z in range(sum(need), sum(room) + 1):
                    out[n, m] |= 1 << z
    out.setflags(write=False)
    return out


@lru_cache(maxsize=16)
def _no_pins(shape: tuple[int, int]) -> PinGrids:
    """The kernel's pin grids of a search without pins (shared: never written)."""
    zeros = np.zeros(shape, dtype=np.int64)
    return zeros, zeros, zeros, zeros, zeros


@numba.njit(cache=True, nogil=True)
def _run_passes(head, tail, bounds, limit, beam, step_cap):
    """``_kernel`` with each floor of ``bounds`` in turn until a pass finds a final state:
    (its index, or NO_STATE / OVERFLOW / OVER_BUDGET; the states created by all passes, within
    ``limit``). ``head`` and ``tail``: the kernel's arguments before and after the pass's own.
    Without a beam, where jokers are to be placed and the first floor asks for every rack tile,
    a narrow beam pass (``PROBE_BEAM`` states a step, keeping only states that still place every
    rack tile) goes first: a final state that reaches that floor is the optimum, so it settles
    the search whenever it finds one, at a fraction of the exact pass on big tables with jokers
    (without jokers to place the exact pass is cheap: the probe would only add a pass)."""
    rgrid, gain, n_jokers = head[1], head[2], head[5]
    n_pos, n_col = rgrid.shape
    n_steps = n_pos * n_col
    rest_gain = np.empty(n_steps, dtype=np.int64)
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
    n_bounds = bounds.shape[0]
    probe = beam == 0 and n_jokers > 0 and n_bounds > 0 and min_gain >= 0 and bounds[0] > total - min_gain
    debt_unit = gain[n_pos // 2]
    created = 0
    best = NO_STATE
    for k in range(n_bounds + (1 if probe else 0)):
        if probe and k == 0:
            bound, b, cap = bounds[0], PROBE_BEAM, PROBE_BEAM * PROBE_CAP
        else:
            bound, b, cap = bounds[k - (1 if probe else 0)], beam, step_cap
        # (a compiled call: mypy reads numba's Dispatcher stub, not the kernel's signature)
        best, made = _kernel(*head, rest_gain, bound, limit - created, b, cap, debt_unit, *tail)  # type: ignore[call-arg]
        created += made
        if best != NO_STATE:
            break
    return best, created


NO_BOUND = -(1 << 62)
# exact passes leave out states whose key rules out every continuation (see the module docstring);
# False only to check, in the tests, that no answer depends on it
PRUNE_DEAD = True
PROBE_BEAM = 256  # states kept per step by the pass that looks for a play of the whole rack
PROBE_CAP = 4  # ... which creates at most this many times that per step
SLACK_TILES = (0, 1, 2)  # rack tiles left over in the pruned passes before the full one


@lru_cache(maxsize=64)
def _face_values(profile: RuleProfile) -> np.ndarray:
    """The value of each numbered tile's code (shared: never written)."""
    return np.tile(np.arange(1, profile.tileset.values + 1), profile.tileset.colours)


def _bounds(rack_numbered: np.ndarray, profile: RuleProfile, objective: str) -> list[int]:
    """Score floors for successive kernel passes, the last one ``NO_BOUND`` (no pruning).

    A pass with floor ``L`` drops every state that cannot reach ``L`` and answers the exact
    optimum when that is at least ``L``; else the next, lower floor is tried. Most plays
    that are slow to search place the whole rack, so the first floors ask for all but
    ``k`` rack tiles placed (``tiles``), or all the rack's value (``value``)."""
    n = int(rack_numbered.sum())
    if objective == "tiles":
        return [TILE_WEIGHT * (n - k) for k in SLACK_TILES if k < n] + [NO_BOUND]
    total = int(rack_numbered @ _face_values(profile))
    return [TILE_WEIGHT * total, NO_BOUND]
