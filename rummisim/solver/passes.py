"""One pass of the DP over a position (``_best``): the pools of table and rack tiles, the grids
the kernel walks, its score floors, the wrap splits and the decoding of the best final state.

The kernel's inputs (``kernel._kernel``) are records: the position's ``Grids`` (``_grids``; one
per wrap split, ``wrap.split_arrays``), the profile's ``tables.KernelTables`` (``_Tables.kernel``),
the state ``kernel.Buffers``, the ``pins.PinGrids`` (``_no_pins`` without pins), the tracked
host sets' ``host_fields.HostFields`` (``_host_fields``) or None, and per floor a ``Pass`` (its floor,
budget and beam), which ``_run_passes`` makes in compiled code.

Bounding. Each kernel pass has a score floor: a state whose score plus the most the
rack tiles after it can add stays below the floor is dropped, so the pass answers the
exact optimum whenever that reaches the floor, and nothing otherwise. The floors ask
for the whole rack, then all but one or two rack tiles, then nothing (a full pass;
``floors.score_floors``).
The positions that are slow to search (big tables, jokers) mostly place the whole rack,
and those passes usually keep far fewer states. A search that settles a joker choice knows a
ceiling as well (the choice's bound, which no legal play passes): the floors above it are not
run (0.3.5; on ``guide-strict-joker``'s slowest tracked passes they were up to 60% of the states).
Dead ends: an exact pass does not make a
state whose key alone rules out every continuation (its colour's open runs need more items at
the next position than the tiles of that face and the jokers left; a run that cannot close at
the top; after the last colour of a value, groups that cannot form with the jokers left). These
were 42% of the states on the benchmark's hard positions; as each is a function of the key, no
state that lives, nor its score or parent, changes (a search answers the same play), only the
states charged to the budget and the limits fall (about half). With locked jokers, a pruned
pass may pick another of several best tables than a full pass; if none of them passes
``validate_move``, the full passes are run before giving up.

Wrap: the 1s of a colour are split between position 1 and V+1 (the high 1); each split is
its own sub-problem (``wrap.split_arrays``), the high 1s fixed before the sweep; the floors go round
the splits, highest first, and once a play is found each split only looks for a better score.

Search budget: every state created is charged to a ``Meter``; a search that would pass what
the meter allows stops with ``SearchBudgetSpent``. The beam pass (``_best`` with
``beam_states``, ``dp.solve_dp_beam``) is the anytime answer ``solver.solve`` uses then: one
pass of the same kernel that keeps, after each step, only the best states (by score less a
tile's worth per tile that their open runs still need; ranking by score alone keeps runs begun
that cannot close), within a given number of states. Its play is legal but not proven best.
Pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numba
import numpy as np
from numba.core import types
from numba.extending import overload

from rummisim.melds import Meld
from rummisim.profile import RuleProfile
from rummisim.solver.backward import Edges, build_future, no_future, pass_edges
from rummisim.solver.budget import UNLIMITED, GiveUp, Meter
from rummisim.solver.common import SearchBudgetSpent, tile_gains
from rummisim.solver.common import gain as item_gain
from rummisim.solver.decode import (
    build_table,
    split_host,
)
from rummisim.solver.floors import NO_BOUND, score_floors
from rummisim.solver.grids import (
    Grids,
    _grids,
    _mirrored,
    _position_gains,
    _rest_gains,
)
from rummisim.solver.host_fields import (
    HOST_BITS,
    HOST_TYPES,
    MAX_HOST_COLOURS,
    HostFields,
    host_record,
)
from rummisim.solver.hosts import (
    Host,
    freed_in,
)
from rummisim.solver.kernel import (
    Buffers,
    _buffers,
    _kernel,
)
from rummisim.solver.pins import (
    PinGrids,
    less_pins,
    make_pins,
    pin_grids,
)
from rummisim.solver.tables import (
    MAX_KEY_BITS,
    MAX_STATES,
    NO_STATE,
    OVER_BUDGET,
    OVERFLOW,
    KernelTables,
    _Tables,
    _tables,
)
from rummisim.solver.wrap import split_arrays

_Found = tuple[int, tuple[Meld, ...], tuple[int, ...]]  # score, new table, played


class Undecoded(NamedTuple):
    """A pass's best score whose steps the decoding could not turn into a legal table (spare or
    kept jokers past ``max_per_set``, ``GiveUp.DECODE``): an upper bound of its plays, no play
    (``_best_or_bound``; ``_best`` answers None instead)."""

    score: int


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
    gains = tile_gains(profile, objective)  # (a numbered tile's: its value's)
    for f in virtual:
        table_counts[f] += 1
    for f in forced:
        table_counts[f] += 1
        rack_counts[f] -= 1
        offset += gains[f]
    for host in hosts:
        table_counts[joker] -= freed_in(host, joker)
        for t in host[1]:
            table_counts[t] -= 1
        for t in host[2]:
            rack_counts[t] -= 1
            offset += gains[t]
    return table_counts, rack_counts, offset


def _best(*args: Any, **kwargs: Any) -> _Found | None:
    """``_best_or_bound`` where a decoding that fails (``GiveUp.DECODE``) answers None."""
    found = _best_or_bound(*args, **kwargs)
    return None if isinstance(found, Undecoded) else found


def _best_or_bound(
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
    ceiling: int | None = None,
    ladder: bool = True,
    counts: tuple[np.ndarray, np.ndarray] | None = None,
) -> _Found | Undecoded | None:
    """(score, new table, played) of the best play, treating table jokers as free,
    except ``virtual``: table jokers kept at these faces (tiles of that face in the DP, jokers
    again in the answer); ``forced``: rack tiles that must be played. With ``beam_states``,
    one beam pass that creates about that many states at most (a good play, not proven).
    ``pinned``: table sets as (tiles, faces), their jokers at faces of ``virtual``, that stay
    together and may only grow (``pins.Pin``); ``None`` where pins do not apply.
    ``host``: the one or two table jokers left free are freed jokers, each of which the play puts
    in a set with two other rack items, or both in one such set (the kernel tracks those sets);
    ``None`` where this does not apply (see ``_host_fields``). It also takes three or more jokers,
    its runs then without per-run joker counts (a relaxation of ``max_per_set``: the decoding
    refuses a set past the cap, and the caller checks the play);
    ``kept_outside_hosts``: the kept jokers go back into sets other than the host runs where
    they can (``jokers_placed.restore_jokers``). ``ceiling``: an upper bound of every legal play
    (a joker choice's bound): with ``floor``, no floor above it is run. ``ladder`` (with
    ``floor``): the whole rack's floors above ``floor`` first, else one pass at ``floor``. Where the
    decoding fails: its score as an ``Undecoded`` bound (a joker choice's bound, which another
    choice's play may still reach). ``counts``: ``_tile_counts`` of the table and rack, where the
    caller has them (a host listing, the same for each host set; never written).

    The DP places only the jokers some set needs; every other joker (the table's must stay,
    the rack's score) is added afterwards where a set has room. If they do not fit, the
    answer is ``None`` (the DP score assumed they would)."""
    ts = profile.tileset
    C = ts.colours
    joker = ts.joker
    if counts is None:
        counts = _tile_counts(rack, table, ts)
    real_counts, full_rack_counts = counts
    table_counts, rack_counts, offset = _pools(
        rack, table, profile, objective, virtual, forced, hosts, counts
    )
    n_tj, n_rj = int(table_counts[joker]), int(rack_counts[joker])
    fewest, most = _count_range(table_counts, rack_counts, joker)
    if n_tj + n_rj > ts.jokers or fewest < 0:
        meter.fail(GiveUp.SCOPE)
        return None
    copies = max(ts.copies, most)
    n_jokers = n_tj + n_rj
    pins = make_pins(pinned, profile) if pinned else ()
    if pins is None:
        meter.fail(GiveUp.PINS)
        return None
    relaxed = False  # a pinned set with the DP's jokers could pass ``max_per_set``
    if pins:
        cap = profile.jokers.max_per_set
        if n_jokers > cap:  # runs that count their jokers (``tables``) take no pins
            meter.fail(GiveUp.PINS)
            return None
        # the kernel does not count a pin's jokers: a relaxation, whose decoded sets are checked
        # (``make_meld``); where its best steps pass the cap, the search gives up
        relaxed = n_jokers + max(pin.jokers for pin in pins) > cap
        table_counts = less_pins(table_counts, pins)
        pin_jokers = sorted(
            f for pin in pins for t, f in zip(pin.tiles, pin.faces, strict=True) if t == joker
        )
        if table_counts is None or pin_jokers != sorted(virtual):
            meter.fail(GiveUp.PINS)  # every kept joker sits in a pin
            return None
        virtual = ()
    tab = _tables(profile, copies, n_jokers, host)
    if tab is None:
        meter.fail(GiveUp.STATES)
        return None
    host_fields = None
    if host:
        if beam_states or n_tj not in (1, 2) or tab.types.n != len(HOST_TYPES):
            meter.fail(GiveUp.TRACKED_NOT_APPLICABLE)
            return None
        if tab.kernel.low_at + n_tj * HOST_BITS > MAX_KEY_BITS or C > MAX_HOST_COLOURS:
            meter.fail(GiveUp.TRACKED_NOT_APPLICABLE)
            return None
        host_fields = host_record(tab, n_rj, profile, n_tj)
    if floor is None:
        bounds = score_floors(rack_counts[:joker], profile, objective) if prune else [NO_BOUND]
    else:
        jokers_gain = offset + n_rj * item_gain(profile.jokers.penalty, objective)
        need = floor - jokers_gain
        # a ceiling (an upper bound of every legal play here): the floors above it reach nothing
        top = -NO_BOUND if ceiling is None else ceiling - jokers_gain
        # the ladder: the whole rack's floors above ``floor`` first (each pass prunes more, and
        # the first that finds a play answers); without it, one pass at ``floor`` (0.3.9: where
        # ``floor`` beats a legal play already found, most passes find nothing, and every floor of
        # the ladder then ran in vain)
        bounds = [need]
        if ladder and prune:
            bounds = [
                b for b in score_floors(rack_counts[:joker], profile, objective) if need < b <= top
            ] + bounds
    known = None  # (a host listing's pass that found nothing is not run again: ``Meter.replayed``)
    listed = hosts and floor is not None and host_fields is None and not beam_states
    if listed and meter.options.reuse_refuted:
        known = (table_counts.tobytes(), rack_counts.tobytes(), tuple(int(b) for b in bounds), pinned)
        if meter.replayed(known):
            return NO_BOUND, table, ()
    grids = _grids(table_counts, rack_counts, profile, _position_gains(profile, objective), n_jokers)
    n_pos = grids.table.shape[0]
    n_steps = n_pos * (C + 1)
    beam = step_cap = 0
    if beam_states:
        # half the states for the steps' caps: one state's moves may pass a cap a little
        step_cap = min(max(1, beam_states // (2 * n_steps)), (MAX_STATES - 1) // n_steps // 2)
        beam, bounds = step_cap, [NO_BOUND]  # it keeps what a step may create
    kernel_pins = pin_grids(pins, n_pos, profile) if pins else None
    # a tracked search with wrap skips the splits where the same search without host fields
    # reaches no floor (``_search``)
    wraps = host_fields is not None and grids.wrapable.any()
    plain = _tables(profile, copies, n_jokers, False) if wraps else None
    spent = meter.spent
    best = _search(tab, grids, bounds, meter, beam, step_cap, pins=kernel_pins, host=host_fields, plain=plain)
    if best == NO_STATE and floor is not None:
        if known is not None:
            meter.refuted[known] = meter.spent - spent
        return NO_BOUND, table, ()  # nothing reaches the floor
    if not isinstance(best, _Best):
        meter.fail(GiveUp.STATES)
        return None
    score = best.score + offset + n_rj * item_gain(profile.jokers.penalty, objective)

    def decoded() -> _Found | None:
        """The play of the best final state: the chain of its steps, the tracked host sets
        split out, the table built; None where the decoding fails."""
        steps = best.steps
        if steps is None:
            return None
        moves = None
        if host_fields is not None:
            split = split_host(steps, best.table, n_pos, profile, tab.types, n_rj, n_tj)
            if split is None:
                return None
            steps, moves = split
        host_sets = tuple(h[0] for h in hosts)
        new_table = build_table(
            steps, profile, tab.types, n_pos, n_jokers, virtual, host_sets, pins, moves, kept_outside_hosts
        )
        if new_table is None:
            return None
        new_tiles = np.array([t for m in new_table for t in m.tiles], dtype=np.int64)
        played = _played(new_tiles, real_counts, full_rack_counts)
        if played.shape[0] and played[0] < 0:
            return None
        return score, new_table, tuple(played.tolist())

    found = decoded()
    if found is None:
        meter.fail(GiveUp.PINS if relaxed else GiveUp.DECODE)
        return Undecoded(score)
    return found


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


class _Best(NamedTuple):
    """The best final state of a search (``_search``): its score, the actions of its steps in
    order (None where they do not chain back to the first state), and the table grid of the
    sub-problem it answers (with wrap, the high 1s of its split at position V+1)."""

    score: int
    steps: np.ndarray | None
    table: np.ndarray


def _search(
    tab: _Tables,
    grids: Grids,
    bounds,
    meter: Meter,
    beam: int = 0,
    step_cap: int = 0,
    *,
    pins: PinGrids | None = None,
    host: HostFields | None = None,
    plain: _Tables | None = None,
) -> _Best | int:
    """Run the kernel with each score floor in turn until one finds a final state: its
    ``_Best``, or NO_STATE / OVERFLOW. The states created are charged to ``meter``; past what
    it allows, ``SearchBudgetSpent``.

    With wrap, the 1s of a colour are split between position 1 and V+1 (the high 1). Carrying
    the split through the sweep (the kernel's per-colour ``low`` counts) multiplies the states
    by up to three per colour, 14x on game positions. Instead each split is its own sub-problem
    (``wrap.split_arrays``): the high 1s of each colour are fixed before the sweep, so the kernel
    carries no split; the best sub-problem is the optimum. The floors go round the splits, the
    highest floor first: every split is searched at one floor before any at the next one down,
    and the first floor that a split reaches settles it (a split whose optimum reaches the floor
    answers it exactly; the others lie below). Within a floor, each split after a play is found
    only looks for a better score, which prunes almost everything. (0.3.4; before, each split
    went down every floor in turn: a split far from the whole rack ran its low, costly floors
    before the split that places it all was tried, and one position ran past 2^20 states.) A
    sub-problem's best play is read out of the state arrays as soon as it is found (the next one
    reuses them). ``plain`` (a search that tracks host sets, ``host``): the tables of the same
    search without host fields, a relaxation (a freed joker may go anywhere, and its runs count
    their jokers) whose pass makes about a quarter of the tracked one's states: a split whose
    plain pass reaches no floor is skipped at that floor (0.3.4; the tracked pass on the splits
    of ``classic-wrap`` positions with a freed joker ran past 2^20 states proving floors no split
    could reach). Going floor by floor costs a plain search's median about 15% on
    ``classic-wrap``'s greedy set (0.27 against 0.23 ms) and takes the slowest of its holding
    set from 33 to 16 ms."""
    if beam or not grids.wrapable.any():
        return _best_state(_passes(tab, grids, bounds, meter, beam, step_cap, pins=pins, host=host), grids)
    return _search_splits(tab, grids, bounds, meter, pins, host, plain)


def _search_splits(
    tab: _Tables, grids: Grids, bounds, meter: Meter, pins: PinGrids | None, host: HostFields | None,
    plain: _Tables | None,
) -> _Best | int:  # fmt: skip
    """``_search`` over the wrap splits (``wrap.split_arrays``; with ``host``, every mix of table
    and rack 1s high) in one compiled call (``_run_splits``), without a round trip to Python per
    split (a listing of host sets runs thousands of small passes). Each pass may create what the
    meter allows one kernel call (``Meter.limit``)."""
    tables, racks = split_arrays(grids, pins=pins, rack_high=host is not None)
    mirror = pins is None and meter.options.mirror_refute
    if pins is None:
        pins = _no_pins(grids.table.shape)
    n_pos, n_col = grids.table.shape
    steps = np.empty(n_pos * (n_col + 1), dtype=np.int64)
    bounds = np.array(bounds, dtype=np.int64)
    left = UNLIMITED if meter.left is None else meter.left
    call = UNLIMITED if meter.call_limit is None else meter.call_limit
    records = tuple(grids), tuple(tab.kernel), None if plain is None else tuple(plain.kernel)
    edges = pass_edges(host is not None, meter.options)
    plain_first = plain is not None and edges is not None and plain.types == tab.types
    found, split, chained, created = _run_splits(
        *records, tuple(_buffers()), tuple(pins), host, tables, racks, bounds, left, call,
        meter.options.prune_dead, steps, edges, plain_first, mirror,
    )  # fmt: skip
    meter.spend(int(created))
    if found == OVER_BUDGET:
        raise SearchBudgetSpent
    if split < 0:
        return int(found)
    return _Best(int(found), steps if chained else None, tables[split])


@numba.njit(cache=True, nogil=True)
def _run_splits(
    grids, tables, plain, buffers, pins, host, split_tables, split_racks, bounds, left, call, prune, steps,
    edges, plain_first, mirror,
):  # fmt: skip
    """The floors of ``bounds`` round the wrap splits (``split_tables``, ``split_racks``: each
    split's grids), highest floor first, each split after a play only looking for a better score
    (``_search``); with ``plain`` (the tables of the same search without host fields), a split
    whose plain pass reaches no floor is skipped at that floor (``plain_first``: that plain pass
    also bounds the tracked one, ``_plain_first``). (The best score, its split,
    whether its steps chained into ``steps``, the states created), or (NO_STATE / OVERFLOW /
    OVER_BUDGET, -1, False, states created). Each pass may create ``call`` states, all of them
    ``left``; ``edges``, ``mirror``: ``_run_passes``'."""
    table, rack, gain, wrapable, allow_group, n_jokers = grids
    no_wrap = np.zeros_like(wrapable)
    parents, actions, scores = buffers[2], buffers[3], buffers[1]
    above = np.empty(1, dtype=np.int64)
    zero = np.int64(0)  # (no beam: typed, not a literal, which numba would compile apart)
    best_score = 0
    best_split = -1
    chained = False
    created = 0
    for floor in bounds:
        for k in range(split_tables.shape[0]):
            above[0] = floor if best_split < 0 else max(floor, best_score + 1)
            split = (split_tables[k], split_racks[k], gain, no_wrap, allow_group, n_jokers)
            if edges is not None and plain_first:  # (one plain pass: ``_plain_first``; edges for numba)
                limit = min(left - created, call)
                found, made = _plain_first(split, tables, buffers, pins, host, above[0], limit, prune, edges)
            else:
                if plain is not None:
                    limit = min(left - created, call)
                    found, made = _run_passes(
                        split, plain, buffers, pins, None, above, limit, zero, zero, prune, None, mirror
                    )
                    created += made
                    if found == OVER_BUDGET:
                        return found, -1, False, created
                    if found == NO_STATE:
                        continue  # (a pass without host fields reaches no floor: a tracked one cannot)
                limit = min(left - created, call)
                found, made = _run_passes(
                    split, tables, buffers, pins, host, above, limit, zero, zero, prune, edges, mirror
                )
            created += made
            if found in (OVERFLOW, OVER_BUDGET):
                return found, -1, False, created
            if found >= 0:
                best_score = scores[found]
                best_split = k
                chained = _chain(parents, actions, found, steps) == steps.shape[0]
        if best_split >= 0:
            return best_score, best_split, chained, created
    return NO_STATE, -1, False, created


def _best_state(found: int, grids: Grids) -> _Best | int:
    """The ``_Best`` of the final state ``found`` of the kernel's last pass over ``grids``
    (NO_STATE, OVERFLOW: as they are)."""
    if found < 0:
        return found
    buf = _buffers()
    n_pos, n_col = grids.table.shape
    steps = np.empty(n_pos * (n_col + 1), dtype=np.int64)
    chained = _chain(buf.parents, buf.actions, found, steps) == steps.shape[0]
    return _Best(int(buf.scores[found]), steps if chained else None, grids.table)


def _passes(tab: _Tables, grids: Grids, bounds, meter: Meter, beam: int = 0, step_cap: int = 0, *,
            pins: PinGrids | None = None, host: HostFields | None = None) -> int:  # fmt: skip
    """The kernel with each floor of ``bounds`` in turn (see ``_search``), in one compiled call
    (``_run_passes``); ``pins``: the kernel's pin grids (``pins.pin_grids``), none by default;
    ``host``: the kernel's host fields (``_host_fields``), none by default."""
    no_pins = pins is None
    if pins is None:
        pins = _no_pins(grids.table.shape)
    bounds = np.array(bounds, dtype=np.int64)
    # (the records cross into compiled code as plain tuples, named again there: numba reads a
    # named tuple's field names each call, which took a few microseconds a call)
    records = tuple(grids), tuple(tab.kernel), tuple(_buffers()), tuple(pins)
    limit, prune = meter.limit(), meter.options.prune_dead
    edges = pass_edges(host is not None, meter.options)
    # (exact searches with wrap go to the splits, ``_search``; a beam pass is never mirrored)
    mirror = no_pins and meter.options.mirror_refute
    best, created = _run_passes(*records, host, bounds, limit, beam, step_cap, prune, edges, mirror)
    meter.spend(int(created))
    if best == OVER_BUDGET:
        raise SearchBudgetSpent
    return int(best)


@lru_cache(maxsize=16)
def _no_pins(shape: tuple[int, int]) -> PinGrids:
    """The kernel's pin grids of a search without pins (shared: never written)."""
    zeros = np.zeros(shape, dtype=np.int64)
    return PinGrids(zeros, zeros, zeros, zeros, zeros)


class Pass(NamedTuple):
    """The kernel's record of one pass (``_run_passes`` makes one per floor): its floor, its
    budget, its beam."""

    rest_gain: np.ndarray  # (P * C,) most score the rack tiles after each colour step can still add
    bound: int  # the floor: states whose score plus ``rest_gain`` stays below it are dropped
    limit: int  # states this pass may create (the search budget left): past it, OVER_BUDGET
    beam: int  # 0: exact; else keep the ``beam`` best states of each step (a heuristic pass)
    step_cap: int  # with ``beam``: states a step may create (best states are expanded first)
    debt_unit: int  # with ``beam``: the rank a state loses per tile its open runs still need
    prune: bool  # the pass leaves out dead-end states (``SearchOptions.prune_dead``)


@numba.njit(cache=True, nogil=True)
def _run_passes(grids, tables, buffers, pins, host, bounds, limit, beam, step_cap, prune, edges, mirror):
    """``_kernel`` with each floor of ``bounds`` in turn until a pass finds a final state:
    (its index, or NO_STATE / OVERFLOW / OVER_BUDGET; the states created by all passes, within
    ``limit``). ``grids``, ``tables``, ``buffers``, ``pins``: the kernel's records as plain
    tuples (``_passes``), named again here; ``host``: its ``HostFields`` or None; the same for
    every pass, and each pass gets its own ``Pass`` (``prune``: the passes leave out dead-end
    states, ``SearchOptions.prune_dead``).
    Without a beam, where jokers are to be placed and the first floor asks for every rack tile,
    a narrow beam pass (``PROBE_BEAM`` states a step, keeping only states that still place every
    rack tile) goes first: a final state that reaches that floor is the optimum, so it settles
    the search whenever it finds one, at a fraction of the exact pass on big tables with jokers
    (without jokers to place the exact pass is cheap: the probe would only add a pass). A probe
    that dropped no state was that exact pass: where it finds nothing, the next floor follows
    (0.3.15: 1% fewer states on the committed positions, 9% on ``ramino-discard`` greedy).
    ``edges`` (``backward.Edges`` as a tuple, or None: ``SearchOptions.backward``, 0.3.16): an exact
    pass with ``host`` goes after the same pass without host fields, which notes its edges there;
    where that finds nothing the tracked pass cannot either, else it leaves out the states that
    cannot reach the floor by what their projections can still add (``backward``). ``mirror``
    (no pins, ``SearchOptions.mirror_refute``; without a beam or host fields, and the grids
    without wrap): a floor that asks for every rack tile and that the pass from the bottom up
    does not settle in ``MIRROR_AFTER`` states is searched from the top down (``_mirrored``), up to
    ``MIRROR_STATES`` states: where that finds nothing, no play reaches the floor (0.3.20). The
    pass is exact either way, and finds nothing where a rack tile cannot be placed: from the bottom
    up it carries every table of the values below that tile first, from the top down those above
    it. The plays still come from the pass from the bottom up, so no answer changes. On the 4,800
    committed positions the states fall by 7% (``guide-strict-joker`` greedy #203 218,228 ->
    166,201: its whole rack's floor, 48,195 states from the bottom up, takes 27 from the top)."""
    grids, tables, buffers, pins = Grids(*grids), KernelTables(*tables), Buffers(*buffers), PinGrids(*pins)
    rest_gain, whole, debt_unit = _rest_gains(grids)
    n_bounds = bounds.shape[0]
    probe = beam == 0 and grids.n_jokers > 0 and n_bounds > 0 and bounds[0] > whole
    # the whole rack's floors also from the top down (``mirror``, ``MIRROR_STATES``)
    mirror = mirror and beam == 0 and host is None and n_bounds > 0 and bounds[0] > whole
    m_grids, m_rest, m_debt = grids, rest_gain, debt_unit
    if mirror:
        m_grids = _mirrored(grids)
        m_rest, _, m_debt = _rest_gains(m_grids)
    created = 0
    best = NO_STATE
    for j in range(n_bounds):
        bound = bounds[j]
        if probe and j == 0:
            left, cap = limit - created, PROBE_BEAM * PROBE_CAP
            pass_ = Pass(rest_gain, bound, left, PROBE_BEAM, cap, debt_unit, prune)
            best, made, exact = _one_pass(grids, tables, buffers, pass_, pins, host)
            created += made
            if best != NO_STATE:
                break
            if exact:
                continue  # the probe dropped no state: it was the exact pass at this floor
        if mirror and bound > whole and limit - created > MIRROR_AFTER + MIRROR_STATES:
            # the pass from the bottom up, a few states; past them, the same floor from the top
            # down, a few states: where that finds nothing, no play reaches the floor
            pass_ = Pass(rest_gain, bound, MIRROR_AFTER, 0, 0, debt_unit, prune)
            best, made, _ = _one_pass(grids, tables, buffers, pass_, pins, host)
            created += made
            if best == NO_STATE:
                continue
            if best != OVER_BUDGET:
                break
            m_pass = Pass(m_rest, bound, MIRROR_STATES, 0, 0, m_debt, prune)
            best, made, _ = _one_pass(m_grids, tables, buffers, m_pass, pins, host)
            created += made
            if best == NO_STATE:
                continue
        pass_ = Pass(rest_gain, bound, limit - created, beam, step_cap, debt_unit, prune)
        if host is not None and edges is not None and beam == 0:
            best, made, _ = _tracked_after_plain(grids, tables, buffers, pass_, pins, host, Edges(*edges))
        else:
            best, made, _ = _one_pass(grids, tables, buffers, pass_, pins, host)
        created += made
        if best != NO_STATE:
            break
    return best, created


def _one_pass(grids, tables, buffers, pass_, pins, host):
    """``_kernel`` at ``pass_`` without edges (compiled code only: the overload below)."""
    raise NotImplementedError("compiled code only")


@overload(_one_pass)
def _one_pass_typed(grids, tables, buffers, pass_, pins, host):
    """``_one_pass`` chosen by ``host``'s type when numba types the caller: a plain pass, or a
    tracked one with a ``Future`` that leaves out no state (``backward.no_future``). So a tracked
    ``_run_passes`` does not compile the plain kernel (numba compiles both branches of a run-time
    ``host is None``), nor a second tracked kernel without a ``Future``."""
    if isinstance(host, types.NoneType):

        def plain(grids, tables, buffers, pass_, pins, host):
            return _kernel(grids, tables, buffers, pass_, pins, None, None, None)

        return plain

    def tracked(grids, tables, buffers, pass_, pins, host):
        return _kernel(grids, tables, buffers, pass_, pins, host, None, no_future(tables.add))

    return tracked


@numba.njit(cache=True, nogil=True)
def _plain_first(grids, tables, buffers, pins, host, bound, limit, prune, edges):
    """A wrap split's tracked pass at the one floor ``bound``, where the same tables serve the pass
    without host fields (one or two jokers): ``_tracked_after_plain`` alone, that plain pass first,
    its edges noted, then the tracked pass under its bounds; (found, states created). The split's
    search ran that plain pass anyway, to skip the splits it rules out, then ``_run_passes``: a probe
    and the plain pass again. Here it runs once, and no probe: the plain pass's bounds prune the
    tracked pass where the probe would guess (on the committed positions it found no play there,
    `classic-wrap` trickle-jokers #86: 26,539 of its 107,319 states)."""
    grids = Grids(*grids)
    rest_gain, _, debt_unit = _rest_gains(grids)
    pass_ = Pass(rest_gain, bound, limit, 0, 0, debt_unit, prune)
    tab, buf, pin_grids_ = KernelTables(*tables), Buffers(*buffers), PinGrids(*pins)
    best, made, _ = _tracked_after_plain(grids, tab, buf, pass_, pin_grids_, host, Edges(*edges))
    return best, made


@numba.njit(cache=True, nogil=True)
def _tracked_after_plain(grids, tables, buffers, pass_, pins, host, edges):
    """``_kernel`` with ``host`` at ``pass_``'s floor after the same pass without host fields,
    its edges noted in ``edges`` (``_run_passes``): (best, states of both, exact)."""
    edges.made[0] = 0
    best, made, exact = _kernel(grids, tables, buffers, pass_, pins, None, edges, None)
    if best in (NO_STATE, OVER_BUDGET):
        return best, made, exact
    rest = Pass(pass_.rest_gain, pass_.bound, pass_.limit - made, 0, 0, pass_.debt_unit, pass_.prune)
    if best < 0 or edges.made[0] > edges.parent.shape[0]:
        # past the state or edge arrays: the tracked pass without the plain one's bounds
        best, more, exact = _one_pass(grids, tables, buffers, rest, pins, host)
        return best, made + more, exact
    n_steps = grids.table.shape[0] * (grids.table.shape[1] + 1)
    future = build_future(buffers.keys, edges, n_steps, tables.jokers_at, tables.add)
    best, more, exact = _kernel(grids, tables, buffers, rest, pins, host, None, future)
    return best, made + more, exact


PROBE_BEAM = 256  # states kept per step by the pass that looks for a play of the whole rack


PROBE_CAP = 4  # ... which creates at most this many times that per step


MIRROR_AFTER = 128  # states of a floor of the whole rack from the bottom up before it is
# searched from the top down (``_run_passes``) ...
MIRROR_STATES = 256  # ... in at most this many states, then from the bottom up in full
