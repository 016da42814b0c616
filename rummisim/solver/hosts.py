"""The sets that may hold a freed table joker, for the host-set search of ``jokers``: under
``jokers.reuse: two_rack_tiles``, ``freed_joker_hosts`` lists each set of table and rack tiles that
could hold one or more freed jokers beside two other rack items (``Host``; ``rack_item_hosts``);
under ``reuse: new_set``, ``new_set_host_sets`` the sets of one freed joker and rack tiles alone.
Pure; no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from itertools import accumulate, combinations

import numpy as np

from rummisim.geometry import run_geometry
from rummisim.melds import MIN_NUMBERED_TILES, Meld
from rummisim.profile import RuleProfile
from rummisim.solver.common import (
    HOST_RACK_ITEMS,
)
from rummisim.solver.decode import (
    _meld,
)
from rummisim.solver.opening import new_set_hosts
from rummisim.solver.pins import Pin, less_pins, make_pins

Host = tuple[Meld, tuple[int, ...], tuple[int, ...]]


def freed_joker_hosts(
    table_counts, rack_counts, profile: RuleProfile, freed: int = 1, limit: int = 1 << 30
) -> list[Host] | None:
    """Every set that can hold ``freed`` freed table jokers (any number) with two other rack items
    (numbered rack tiles or a rack joker; ``validate_move`` asks two per set, not per
    joker), as (set, table tiles in it, rack tiles in it), one set per tiles taken (the first
    found: sets of the same tiles with the jokers at other faces leave the same tiles to the rest
    of the play); ``None`` when this enumeration does not apply (several rack jokers) or finds
    more than ``limit`` sets.

    Complete up to dominance: a tile whose code is both on the table and on the rack comes
    from the table unless it is one of the counted rack tiles (the rack copy can then take
    its place anywhere else). A run reaching 3 or more positions past the span of the freed
    jokers, the rack joker and the counted rack tiles (tiles that only the rack has count
    first) splits into a plain run of table tiles and a smaller host that keeps all of
    them: at least 3 tiles, a numbered one among them (the counted rack items are two, at
    most one a joker), no more jokers than before; so hosts reach at most 2 positions past
    that span."""
    joker = profile.tileset.joker
    if rack_counts[joker] > 1:
        return None
    # (lists: this enumeration reads the counts tens of thousands of times, a numpy scalar each)
    table_counts, rack_counts = table_counts.tolist(), rack_counts.tolist()
    found: dict[tuple, Host] = {}

    def add(codes, joker_faces, rack_joker: bool) -> None:
        """``codes``: (code, from rack) per numbered tile; jokers: the freed ones, the rack's."""
        if sum(from_rack for _, from_rack in codes) + rack_joker < HOST_RACK_ITEMS:
            return
        t_codes = tuple(sorted(code for code, r in codes if not r))
        r_codes = tuple(sorted(code for code, r in codes if r)) + ((joker,) if rack_joker else ())
        if (t_codes, r_codes) in found:
            return  # one set per tiles taken (they score the same and are legal alike)
        tiles = tuple(code for code, _ in codes) + (joker,) * len(joker_faces)
        faces = tuple(code for code, _ in codes) + tuple(joker_faces)
        meld = _meld(tiles, faces, profile)
        if meld is None:
            return
        found[t_codes, r_codes] = (meld, t_codes, r_codes)
        if len(found) > limit:
            raise _TooMany

    def sourced(codes, rack_joker: bool):
        """Table-first sources, then every way to take just enough rack copies to count."""
        for from_rack in _rack_choices(codes, table_counts, rack_counts, rack_joker):
            yield [(c, c in from_rack) for c in codes]

    try:
        _enumerate_hosts(table_counts, rack_counts, profile, freed, add, sourced)
    except _TooMany:
        return None
    return list(found.values())


class _TooMany(Exception):
    pass


def _enumerate_hosts(table_counts, rack_counts, profile: RuleProfile, freed: int, add, sourced) -> None:
    """``freed_joker_hosts``' runs and groups, each passed to ``add``."""
    ts = profile.tileset
    V, C, joker = ts.values, ts.colours, ts.joker
    n_rj = int(rack_counts[joker])
    jokers_options = (False, True) if n_rj else (False,)
    # runs, over positions 1..V (with wrap also V + 1, the high 1; never both 1s in one run)
    geo = run_geometry(profile)
    n_pos = geo.top
    for c in range(C):
        code_at = geo.codes(c)
        if sum(rack_counts[code] > 0 for code in code_at[1:]) + n_rj < HOST_RACK_ITEMS:
            continue  # the counted rack items of a run share its colour
        have = [False] + [bool(table_counts[code] + rack_counts[code]) for code in code_at[1:]]
        # per position, whether one of the 3 positions from it (up or down) holds a rack copy: a
        # window reaching 3 or more positions past its core is left out below, so a window whose
        # end is 3 past the holes and near no rack copy is skipped before its sources are listed
        held = [False] + [bool(rack_counts[code]) for code in code_at[1:]] + [False, False]
        up = [any(held[p : p + 3]) for p in range(n_pos + 1)]
        down = [any(held[max(0, p - 2) : p + 1]) for p in range(n_pos + 1)]
        below = list(accumulate(held))  # positions up to each one that hold a rack copy
        for freed_at in combinations(range(1, n_pos + 1), freed):
            for rj in jokers_options:
                for pr in range(1, n_pos + 1) if rj else (0,):
                    if pr in freed_at:
                        continue
                    holes = set(freed_at) | {pr}
                    a = min(holes - {0})
                    b = max(holes)
                    if any(not have[p] and p not in holes for p in range(a, b + 1)):
                        continue
                    in_holes = sum(held[p] for p in holes)  # rack copies a joker stands for
                    lo_min, hi_max = a, b
                    while lo_min > 1 and have[lo_min - 1]:
                        lo_min -= 1
                    while hi_max < n_pos and have[hi_max + 1]:
                        hi_max += 1
                    reach = 2
                    for lo in range(max(lo_min, a - V), a + 1):
                        for hi in range(max(b, lo + 2), min(hi_max, lo + V - 1) + 1):
                            if not geo.allowed(lo, hi):
                                continue
                            if (lo < a - reach and not up[lo]) or (hi > b + reach and not down[hi]):
                                continue  # no counted item within reach of an end
                            if below[hi] - below[lo - 1] - in_holes + rj < HOST_RACK_ITEMS:
                                continue  # too few rack copies to count two rack items
                            spots = [p for p in range(lo, hi + 1) if p not in holes]
                            codes = [code_at[p] for p in spots]
                            for src in sourced(codes, rj):
                                core = list(freed_at) + ([pr] if pr else [])
                                core += [p for p, (_, r) in zip(spots, src, strict=True) if r]
                                if lo < min(core) - reach or hi > max(core) + reach:
                                    continue
                                faces = [code_at[p] for p in freed_at] + ([code_at[pr]] if pr else [])
                                add(src, faces, rj)
    # groups
    lo_size, hi_size = profile.groups.min_size, profile.groups.max_size
    for v in range(1, V + 1):
        code_of = [ts.code(c, v) for c in range(C)]
        avail = [c for c in range(C) if table_counts[code_of[c]] + rack_counts[code_of[c]] > 0]
        for rj in jokers_options:
            n_j = freed + rj
            for size in range(max(MIN_NUMBERED_TILES, lo_size - n_j), min(hi_size - n_j, C - n_j) + 1):
                for cols in combinations(avail, size):
                    codes = [code_of[c] for c in cols]
                    if sum(rack_counts[code] > 0 for code in codes) + rj < HOST_RACK_ITEMS:
                        continue  # too few rack copies among these colours to count two rack items
                    missing = [code_of[c] for c in range(C) if c not in cols][:n_j]
                    for src in sourced(codes, rj):
                        add(src, missing, rj)


def freed_in(host: Host, joker: int) -> int:
    """Freed table jokers a host set holds (its jokers less the rack's)."""
    return host[0].tiles.count(joker) - host[2].count(joker)


def relaxed_hosts(new_table, table_counts, rack_counts, profile: RuleProfile, left: int) -> Iterator[Host]:
    """Host sets read off a play that treats freed jokers as free (the best bound of a joker
    choice, which ``validate_move`` refused): each part of one of its sets (a run's stretch of
    positions, a group's colours) that holds two rack items, with its jokers and, where the
    set has room, one more joker at either end of a run or a group's missing colour; every
    joker in it a freed one (1 to ``left``, at most ``jokers.max_per_set``). Sources as in
    ``freed_joker_hosts`` (table copies first). Those nearest the play come first: the whole
    set, then shorter parts. These are candidates to try first, not a complete list; made as
    they are taken (0.3.16: ``jokers._guided`` takes a few, and making them all was a tenth of
    ``guide-strict-joker`` greedy's set)."""
    ts = profile.tileset
    joker = ts.joker
    geo = run_geometry(profile)
    most = min(left, profile.jokers.max_per_set)
    found: set[Host] = set()

    def add(numbered: list[int], joker_faces: list[int]) -> Iterator[Host]:
        if not 1 <= len(joker_faces) <= most or len(numbered) < MIN_NUMBERED_TILES:
            return
        # the first sourcing only: a candidate, not a complete list
        from_rack: list[int] = next(_rack_choices(numbered, table_counts, rack_counts), [])
        if len(from_rack) >= HOST_RACK_ITEMS:
            host = _sourced_host(numbered, joker_faces, from_rack, table_counts, rack_counts, profile)
            if host is not None and host not in found:
                found.add(host)
                yield host

    # each set's shape, once: a group's numbered tiles, jokers' faces and first missing face
    # (None where it is full), or a run's positions, codes by position and tiles by position
    shapes: list[tuple] = []  # in the table's order: (True, group's) or (False, run's)
    for meld in new_table:
        if len({ts.value_of(f) for f in meld.faces}) == 1:
            value = ts.value_of(meld.faces[0])
            room = None  # the first missing colour's face, where the group has room for it
            if len(meld.tiles) < profile.groups.max_size:
                faces = (ts.code(c, value) for c in range(ts.colours))
                room = next((f for f in faces if f not in meld.faces), None)
            numbered = [t for t in meld.tiles if t != joker]
            jokers = [f for t, f in zip(meld.tiles, meld.faces, strict=True) if t == joker]
            shapes.append((True, (numbered, jokers, room)))
            continue
        positions = geo.positions(meld.faces)
        if positions is not None:
            code_at = geo.codes(ts.colour_of(meld.faces[0]))
            by_face = dict(zip(meld.faces, meld.tiles, strict=True))
            shapes.append((False, (positions, code_at, [by_face[code_at[p]] for p in positions])))
    # the sets as they are first (those that hold a joker), then with one more joker, then parts
    for stage in range(3):
        for is_group, shape in shapes:
            if is_group:
                numbered, jokers, room = shape
                if stage == 0:
                    yield from add(numbered, jokers)
                elif stage == 1 and room is not None:
                    yield from add(numbered, [*jokers, room])
                continue
            positions, code_at, tiles_at = shape
            n = len(positions)
            sizes = {0: [n], 1: [n], 2: range(n - 1, 1, -1)}[stage]
            for size in sizes:
                for a in range(n - size + 1):
                    part = tiles_at[a : a + size]
                    numbered = [t for t in part if t != joker]
                    jokers = [code_at[positions[a + k]] for k, t in enumerate(part) if t == joker]
                    lo, hi = positions[a], positions[a + size - 1]
                    if stage != 1 and size >= profile.runs.min_length:
                        yield from add(numbered, jokers)
                    if stage == 0:
                        continue
                    for end in (lo - 1, hi + 1):
                        if geo.allowed(min(lo, end), max(hi, end)) and size + 1 >= profile.runs.min_length:
                            yield from add(numbered, jokers + [code_at[end]])


def grown_pin_hosts(pin: Pin, table_counts, rack_counts, profile: RuleProfile) -> list[Host]:
    """The sets a pinned run (under strict joker sets: a table set that keeps its jokers, which
    stays together and may only grow) grows into as the host of one freed joker: its tiles and
    kept jokers, tiles at either end (table or rack tiles) and the freed joker at one of the
    new places, with two rack items in it (a numbered tile of the pin counts where the rack
    holds its code: the rack copy may sit in the pin and the table copy go elsewhere). Every
    extension within a run's length, ``max_per_set`` and the geometry; tiles sourced as in
    ``freed_joker_hosts``. ``table_counts``: the pool with the pin's tiles in it (a kept joker
    at its face). Each host's tiles hold the pin's kept jokers too (``freed_in`` counts them:
    the caller takes the pin's faces out of the kept ones)."""
    ts = profile.tileset
    joker = ts.joker
    geo = run_geometry(profile)
    if pin.kind != "run" or pin.jokers + 1 > profile.jokers.max_per_set:
        return []
    code_at = geo.codes(pin.colour)
    pin_codes = [t for t in pin.tiles if t != joker]
    kept_faces = [f for t, f in zip(pin.tiles, pin.faces, strict=True) if t == joker]
    counts = np.array(table_counts, dtype=np.int64)
    for f in kept_faces:
        counts[f] -= 1  # the pool counts a kept joker at its face; the host holds it as a joker
    found: dict[tuple, Host] = {}
    for lo in range(pin.first, -1, -1):
        for hi in range(pin.last, geo.top):
            if (lo, hi) == (pin.first, pin.last):
                continue
            if not geo.allowed(lo + 1, hi + 1):
                break
            new = [q for q in range(lo, hi + 1) if not pin.first <= q <= pin.last]
            for freed_at in new:
                codes = pin_codes + [code_at[q + 1] for q in new if q != freed_at]
                _add_sourced(found, codes, kept_faces + [code_at[freed_at + 1]], counts, rack_counts, profile)
    return list(found.values())


def _add_sourced(found, codes, joker_faces, table_counts, rack_counts, profile: RuleProfile) -> None:
    """Each sourcing of ``codes`` (``_rack_choices``) that the pools hold, as a host with jokers
    at ``joker_faces``."""
    need = {c: codes.count(c) for c in set(codes)}
    if any(table_counts[c] + rack_counts[c] < n for c, n in need.items()):
        return
    for from_rack in _rack_choices(codes, table_counts, rack_counts):
        if len(from_rack) < HOST_RACK_ITEMS:
            return
        host = _sourced_host(codes, joker_faces, from_rack, table_counts, rack_counts, profile)
        if host is not None:
            found.setdefault(host, host)


def _rack_choices(codes, table_counts, rack_counts, rack_jokers: int = 0):
    """The rack copies a host of ``codes`` takes: table copies first, so the codes only the rack
    holds, then each way to add just enough codes both hold to make two rack items (with
    ``rack_jokers``); fewer where the codes cannot make them."""
    forced = [c for c in codes if table_counts[c] <= 0]
    optional = [c for c in codes if table_counts[c] > 0 and rack_counts[c] > 0]
    need = max(0, HOST_RACK_ITEMS - len(forced) - rack_jokers)
    for chosen in combinations(range(len(optional)), min(need, len(optional))):
        yield forced + [optional[i] for i in chosen]


def _sourced_host(codes, joker_faces, from_rack, table_counts, rack_counts, profile: RuleProfile):
    """The host of ``codes`` (``from_rack`` its rack copies, the rest table copies) and jokers at
    ``joker_faces``, or None where the pools do not hold those copies or they form no set."""
    from_table = list(codes)
    for c in from_rack:
        from_table.remove(c)
    if any(rack_counts[c] < from_rack.count(c) for c in set(from_rack)):
        return None
    if any(table_counts[c] < from_table.count(c) for c in set(from_table)):
        return None
    joker = profile.tileset.joker
    meld = _meld(tuple(codes) + (joker,) * len(joker_faces), tuple(codes) + tuple(joker_faces), profile)
    if meld is None:
        return None
    return meld, tuple(sorted(from_table)), tuple(sorted(from_rack))


def new_set_host_sets(rack_counts, profile: RuleProfile) -> list[Host]:
    """``reuse: new_set``'s host sets (``opening.new_set_hosts``), those with more rack tiles first
    (good plays early raise the floor)."""
    return sorted(new_set_hosts(rack_counts, profile), key=lambda host: -len(host[2]))


def held_hosts(hosts: list[Host], rack_counts) -> list[Host]:
    """Those of ``hosts`` whose rack tiles the rack (``rack_counts``) still holds, in order."""
    return [host for host in hosts if all(rack_counts[t] >= n for t, n in _needs(host[2]))]


@lru_cache(maxsize=1 << 14)
def _needs(codes: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(code, copies) of each code in ``codes`` (a host's rack tiles; they come back pass after pass)."""
    return tuple(Counter(codes).items())


def rack_item_hosts(table_counts, rack_counts, profile, left: int, cap: int) -> list[Host] | None:
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


def outside_pins(table_counts, rack_counts, pinned, freed: int, profile: RuleProfile):
    """``_hosted``'s table counts less the pinned sets' tiles (a kept joker counts at its face,
    as ``_pools`` puts it), and the indices of the pins that could themselves grow into a set
    holding a freed joker beside two rack items (the hosts are sets of their own; a pin may only
    grow, so such a play is not among them: ``grown_pins``); ``None`` for pins the DP does not
    take. A pin's own rack items: its numbered tiles whose code the rack holds (copies are
    interchangeable: the rack copy may sit in the pin and the table copy go elsewhere). A pinned
    run may host when those, plus the rack tiles of its colour that a run grown from it could
    reach (over table and rack tiles, and as many gaps as there are jokers in play), plus the
    rack's jokers, are two or more; a pinned group when it has room for the freed joker and the
    rack items its own do not make up."""
    pins = make_pins(pinned, profile)
    if pins is None:
        return None
    out = less_pins(table_counts, pins)
    if out is None:
        return None
    geo = run_geometry(profile)
    joker = profile.tileset.joker
    n_rj = int(rack_counts[joker])
    gaps = freed + n_rj  # jokers that may fill a gap: the freed ones and the rack's
    hosting = []
    for index, pin in enumerate(pins):
        own = sum(1 for t in set(pin.tiles) if t != joker and rack_counts[t] > 0)
        if pin.kind == "group":
            if profile.groups.max_size - len(pin.faces) >= 1 + max(0, HOST_RACK_ITEMS - own):
                hosting.append(index)
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
            hosting.append(index)
    return out, hosting


def grown_pins(table_counts, rack_counts, pinned, hosting, virtual, freed: int, profile: RuleProfile):
    """For one freed joker, no rack joker and pinned runs that may host (``hosting``): every set
    such a run grows into as the host (``hosts.grown_pin_hosts``), each with the kept faces and
    the pins less that pin's (the pin is released into the host set), as (host, kept faces,
    pins); ``None`` where this does not cover it (a pinned group, more freed jokers, a rack
    joker): the search gives up."""
    pins = make_pins(pinned, profile)
    joker = profile.tileset.joker
    if freed != 1 or rack_counts[joker] or pins is None or any(pins[i].kind != "run" for i in hosting):
        return None
    out = []
    for index in hosting:
        pin = pins[index]
        others = pinned[:index] + pinned[index + 1 :]
        counts = less_pins(table_counts, pins[:index] + pins[index + 1 :])  # (``make_pins(others)``)
        if counts is None:
            return None
        kept = list(virtual)
        for t, f in zip(pin.tiles, pin.faces, strict=True):
            if t == joker:
                kept.remove(f)
        for host in grown_pin_hosts(pin, counts, rack_counts, profile):
            out.append((host, tuple(kept), others))
    return out
