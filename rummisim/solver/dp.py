"""Exact move search as a dynamic program over tile values (van Rijn, Takes & Vis 2015).

The program walks the positions 1..V of a run (plus V+1, the high 1, with wrap) and, inside
each position, the colours one by one; its state holds the open runs per colour, the jokers
placed and the tiles set aside for groups (``kernel``).

The search by job, one module each:

- ``tables``: the state key's layout, the run types and the colour moves, per profile;
- ``kernel``: the compiled pass over the steps (numba);
- ``passes``: one pass over a position (pools, wrap splits, the beam pass), over the position's
  ``grids``, under the score floors of ``floors``;
- ``pins``: table sets that must stay together; ``decode``: steps back into sets, with
  ``jokers_placed``: where kept and spare jokers go;
- ``jokers``: locked table jokers (the choices, their host sets, the tracked host pass);
  ``hosts``: the sets that may hold a freed joker; ``listing``: passes that find nothing, in one
  compiled call (a host listing's, and the pairs of two freed jokers' new sets);
- ``opening``: the sets a rack forms alone and the opening cores; ``cored``: the cores' rests
  that find nothing, in one call of ``listing``'s;
- ``budget``: the search's limits (``SearchOptions``), its ``Meter`` and ``GiveUp``;
- ``warm``: the compiled code made ready in two parts that processes compile side by side;
- ``dp`` (this module): the entry points (turns, openings, the beam pass) and the scope.

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

Scope: turn mode with or without rearrangement, objectives ``tiles`` and ``value``, wrap
``none`` and ``high_low``, ``discard_pile``, any jokers on the rack, table jokers ``free``
or ``locked``, strict joker sets with ``locked`` table jokers, any ``max_per_set``, every
``jokers.reuse``, every opening rule. Outside it (``encodable``: ``runs.min_length`` other than
3, more than 7 open runs per colour, 8 colours; strict joker sets with ``free`` table jokers), and
at the corners where a part of the search gives up (the decoding cannot place every joker within
``max_per_set``; a set that keeps some of its jokers and frees others; a freed joker whose host
a pinned group could be, or a pinned run beside two freed jokers or a rack joker,
``hosts.grown_pins``; pins whose jokers could pass
``max_per_set``; past a bound of states or host sets), the search says why (``Meter.fail``, a
``GiveUp``), and ``solver.solve`` answers the best legal play of a bounded search, not proven
best. Pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, overload

import numpy as np

from rummisim.geometry import run_geometry
from rummisim.melds import Meld
from rummisim.moves import IllegalMove, validate_move
from rummisim.profile import RuleProfile, profile_from_dict
from rummisim.solver.budget import GiveUp, Meter
from rummisim.solver.common import (
    FROM_THE_TOP,
    OBJECTIVES,
    SearchBudgetSpent,
    SearchResult,
    tile_gain,
    tile_gains,
)
from rummisim.solver.cored import CoreRows
from rummisim.solver.jokers import _solve_rack
from rummisim.solver.opening import TooManyCores, best_single_set, opening_cores
from rummisim.solver.passes import (
    NO_BOUND,
    Undecoded,
    _Best,
    _best,
    _Found,
    _grids,
    _search,
)
from rummisim.solver.pins import pin_all, strict_pins
from rummisim.solver.reading import flip_play, flip_sets, flip_tiles, rack_first
from rummisim.solver.tables import (
    _tables,
)


def _scope_jokers(profile: RuleProfile) -> int:
    """Jokers for the scope checks: the most a position holds without per-run joker counts
    (positions with more build their own tables, or give up when those are too big)."""
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
    down: bool = False,
) -> SearchResult | None:
    """Best turn-mode play (the player has opened), or ``None`` when the position is outside
    what the DP handles (see the module docstring). ``rearrange=False`` (or the profile's
    ``turn.rearrange: false``): only new sets from the rack and rack tiles added to table sets
    (every table set pinned). ``down``: the position read from the top down (``reading``), the play
    read back. The states are charged to ``meter``; past its budget, ``SearchBudgetSpent``."""
    if not rearrange:
        profile = without_rearrange(profile)
    meter = meter or Meter()
    if objective not in OBJECTIVES or not supported(profile, table, pins=True):
        meter.fail(GiveUp.SCOPE)
        return None
    rack = tuple(sorted(int(t) for t in rack))
    return _play(rack, tuple(table), profile, objective, meter, down)


def _play(
    rack: tuple[int, ...], table: tuple[Meld, ...], profile: RuleProfile, objective: str, meter, down: bool
):
    """``solve_dp`` on a sorted rack, past the scope checks."""
    found = _best_play_read(rack, table, profile, objective, meter, down=down)
    if found is None:
        return None
    if not found[2]:
        return SearchResult(table, (), True, meter.spent)
    return SearchResult(found[1], found[2], True, meter.spent)


@overload
def _best_play(
    rack, table, profile, objective, meter, floor: int | None = None, bound_only: Literal[False] = False
) -> _Found | None: ...


@overload
def _best_play(
    rack, table, profile, objective, meter, floor: int | None = None, *, bound_only: bool
) -> _Found | Undecoded | None: ...


def _best_play(
    rack, table, profile, objective, meter, floor: int | None = None, bound_only: bool = False
) -> _Found | Undecoded | None:
    """(score, new table, played) of the best turn-mode play of a sorted rack, ``()`` played
    for none (score 0); with ``floor``, a score below ``floor`` when no play reaches it.
    ``bound_only``: where the best play would need the joker-host search, its bound as an
    ``Undecoded`` instead (``jokers._solve_rack``; with a discard pile, that bound as it is).

    With a discard pile the play must leave a tile: when the best play empties the rack, the
    best play of the rack less one tile of some code. Leaving out ``code`` scores at most the
    rack's whole gain less that tile's, so the codes go best bound first and the first play
    that reaches the next bound settles it (usually the first or second solve)."""
    found = _solve_rack(rack, rack, table, profile, objective, meter, floor=floor, bound_only=bound_only)
    if found is None or isinstance(found, Undecoded):
        return found
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
    """The initial meld, or ``None`` when the DP cannot settle it (it says why: ``Meter.fail``).

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
        meter.fail(GiveUp.SCOPE)
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
        meter.fail(GiveUp.STATES)
        return None
    if top < profile.initial_meld.threshold:
        return SearchResult(table, (), True, meter.spent)
    # an opening that may touch the table: a core beside the best play of the rest on the table,
    # rearranged (no pins needed) or, without rearrangement, with every table set pinned
    if single or (touch and not supported(profile, table, pins=not profile.turn.rearrange)):
        meter.fail(GiveUp.SCOPE)
        return None
    base = table if touch else ()
    found = _cored_opening(rack, base, profile, objective, meter)
    if found is None:
        return None
    if not found[2]:
        return SearchResult(table, (), True, meter.spent)
    new_table = found[1] if touch else table + found[1]
    return SearchResult(new_table, found[2], True, meter.spent)


MAX_CORES = 4000  # opening cores past which the search gives up (0.3.9; 400 before)


MAX_CORE_NODES = 200_000  # ... and the steps of the search listing them (20,000 before)


# up to this many cores on a table are solved in turn without the bound of the whole rack (0.3.14:
# 8, 2 before; on the committed positions of ``polish-40`` and ``ramino-discard`` the bound's pass
# cost more than the cores it spared: 19-21% fewer states on greedy and beginner-value, 10-17% more
# on two sets whose bound stopped the cores early, the same answers)
FEW_CORES = 8


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
    (then no rack tile does two jobs). Where its best bound frees a locked joker outside a
    host, that bound serves (``Undecoded``, ``_best_play``'s ``bound_only``): its host search
    would only settle a bound, and cost most of the search in big openings. Else the cores go
    in turn, those made of sets of that play first, then fewest tiles first, and the search
    stops when an opening reaches ``best(rack)`` (or its bound). The play of the rest is only
    looked for above the best opening so far (the DP prunes below that floor); once there is one,
    the cores whose rest's search is one plain pass and finds nothing go in one compiled call
    (``cored.CoreRows``, the same passes and states). ``None`` when a search is outside the DP's
    scope or there are more than ``MAX_CORES`` cores."""
    full: _Found | Undecoded | None = None
    if not base:  # on the empty table the best play is cheap, and usually the answer
        full = _best_play(rack, base, profile, objective, meter)
        if full is None or not full[2]:
            return full  # None: outside the DP's scope; no play at all: no opening either
        if _opens_alone(profile, base, rack, full):
            return full
    try:
        cores = opening_cores(rack, profile, limit=MAX_CORES, nodes=MAX_CORE_NODES)
    except TooManyCores:
        meter.fail(GiveUp.OPENING_CORES)
        return None
    if not cores:
        return 0, base, ()
    if full is None and len(cores) > FEW_CORES:
        full = _best_play_read(rack, base, profile, objective, meter, bound_only=True)
        if full is None:
            return None
        if not isinstance(full, Undecoded) and (not full[2] or _opens_alone(profile, base, rack, full)):
            return full  # no play at all, or one that opens alone
    order: list[int] | range = range(len(cores))
    if full is not None and not isinstance(full, Undecoded):
        order = cores.laid_first(full[1])  # (those made of sets of that play first)
    gains = tile_gains(profile, objective)
    best: _Found = (0, base, ())
    rows: CoreRows | None = None  # (made once a core has an opening: the floor is known)
    batched = CoreRows.applies(profile, base)
    at = 0
    while at < len(order):
        if full is not None and best[2] and best[0] >= full[0]:
            break
        if best[2] and batched:
            rows = rows or CoreRows(rack, base, profile, objective, cores, meter)
            at += rows.refuted(order, at, best[0], meter)  # (those that find nothing, in one call)
            if at == len(order):
                break
        core = cores[order[at]]
        at += 1
        used = [t for s in core for t in s.tiles]
        rest = list(rack)
        for t in used:
            rest.remove(t)
        if profile.discard_pile and not rest:
            continue
        g = sum(gains[t] for t in used)
        floor = best[0] + 1 - g if best[2] else None
        sub = _best_play_read(tuple(rest), base, profile, objective, meter, floor) if rest else (0, base, ())
        if sub is None:
            return None
        score = g + (sum(gains[t] for t in sub[2]) if sub[2] else 0)
        if sub[0] == NO_BOUND or (best[2] and score <= best[0]):
            continue
        best = (score, sub[1] + tuple(s.meld for s in core), tuple(sorted(used + list(sub[2]))))
        meter.keep(best)
    return best


@overload
def _best_play_read(
    rack, table, profile, objective, meter: Meter, floor: int | None = None,
    bound_only: Literal[False] = False, *, down: bool | None = None,
) -> _Found | None: ...  # fmt: skip


@overload
def _best_play_read(
    rack, table, profile, objective, meter: Meter, floor: int | None = None, *, bound_only: bool,
    down: bool | None = None,
) -> _Found | Undecoded | None: ...  # fmt: skip


def _best_play_read(
    rack, table, profile, objective, meter: Meter, floor: int | None = None, bound_only: bool = False,
    *, down: bool | None = None,
) -> _Found | Undecoded | None:  # fmt: skip
    """``_best_play`` of a turn-mode play, read from the top down where ``down`` says so (None:
    where ``reading.rack_first`` does, as for an opening's rest of the rack on the table), its play
    and the plays the meter kept on the way read back. Either reading scores a play the same
    (0.3.23: ``polish-40``'s openings of 8 million states in games without a budget make 4.4
    million)."""
    if down is None:
        down = rack_first(rack, table, profile, meter.options)
    if not down:
        return _best_play(rack, table, profile, objective, meter, floor, bound_only=bound_only)
    before = list(meter.kept)
    try:
        found = _best_play(
            flip_tiles(rack, profile), flip_sets(table, profile), profile, FROM_THE_TOP[objective], meter,
            floor, bound_only=bound_only,
        )  # fmt: skip
    finally:  # (also where the budget runs out: the beam pass after it reads the kept plays)
        meter.kept[:] = [k if k in before else flip_play(k, profile) for k in meter.kept]
    if found is None or isinstance(found, Undecoded):
        return found
    if not found[2]:
        return found[0], table, ()
    return flip_play(found, profile)


def _opens_alone(profile, base, rack, full: _Found) -> bool:
    """Whether the best play of the whole rack is itself an opening that frees no table joker
    (then no rack tile does two jobs, and it bounds every opening)."""
    check = _opening_check(profile, base, rack, full)
    return check is not None and check.jokers_freed == 0


def _opening_check(profile, base, rack, found: _Found):
    """``validate_move``'s verdict on a play as the initial meld (``None``: refused)."""
    try:
        return validate_move(profile, base, rack, found[1], found[2], opened=False, explain=False)
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
        opts = pin_all(base, ts.joker)
    elif profile.jokers.table_jokers == "locked":
        faces = tuple(f for m in base for t, f in zip(m.tiles, m.faces, strict=True) if t == ts.joker)
        opts["virtual"] = faces
        if not profile.jokers.take_from_joker_sets:  # the joker sets pinned, their jokers kept
            opts["pinned"] = strict_pins(base, tuple((False, f) for f in faces), profile)
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
    geo = run_geometry(profile)
    gain = np.array([geo.value_at(p + 1) for p in range(geo.top)], dtype=np.int64)
    grids = _grids(np.zeros_like(rack_counts), rack_counts, profile, gain, n_rj)
    best = _search(tab, grids, [NO_BOUND], meter)
    if not isinstance(best, _Best):
        return None
    return best.score + n_rj * profile.joker_opening_value(ts.values)
