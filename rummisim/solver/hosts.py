"""The sets that may hold a freed table joker (``jokers.reuse: two_rack_tiles``):
``freed_joker_hosts`` lists each set of table and rack tiles that could hold one or more freed
jokers beside two other rack items (``Host``), for the host-set search of ``jokers``. Pure; no I/O.
"""

from __future__ import annotations

from itertools import combinations

from rummisim.geometry import run_geometry
from rummisim.melds import MIN_NUMBERED_TILES, Meld
from rummisim.profile import RuleProfile
from rummisim.solver.common import (
    HOST_RACK_ITEMS,
)
from rummisim.solver.decode import (
    _meld,
)

Host = tuple[Meld, tuple[int, ...], tuple[int, ...]]


def freed_joker_hosts(
    table_counts, rack_counts, profile: RuleProfile, freed: int = 1, limit: int = 1 << 30
) -> list[Host] | None:
    """Every set that can hold ``freed`` freed table jokers (any number) with two other rack items
    (numbered rack tiles or a rack joker; ``validate_move`` asks two per set, not per
    joker), as (set, table tiles in it, rack tiles in it); ``None`` when this enumeration
    does not apply (several rack jokers) or finds more than ``limit`` sets.

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
    found: dict[tuple, Host] = {}

    def add(codes, joker_faces, rack_joker: bool) -> None:
        """``codes``: (code, from rack) per numbered tile; jokers: the freed ones, the rack's."""
        if sum(from_rack for _, from_rack in codes) + rack_joker < HOST_RACK_ITEMS:
            return
        tiles = tuple(code for code, _ in codes) + (joker,) * len(joker_faces)
        faces = tuple(code for code, _ in codes) + tuple(joker_faces)
        meld = _meld(tiles, faces, profile)
        if meld is None:
            return
        t_codes = tuple(sorted(code for code, r in codes if not r))
        r_codes = tuple(sorted(code for code, r in codes if r)) + ((joker,) if rack_joker else ())
        found.setdefault((meld, t_codes, r_codes), (meld, t_codes, r_codes))
        if len(found) > limit:
            raise _TooMany

    def sourced(codes, rack_joker: bool):
        """Table-first sources, then every way to take just enough rack copies to count."""
        forced = [c for c in codes if table_counts[c] == 0]
        optional = [c for c in codes if table_counts[c] > 0 and rack_counts[c] > 0]
        need = max(0, HOST_RACK_ITEMS - len(forced) - rack_joker)
        for chosen in combinations(range(len(optional)), min(need, len(optional))):
            picked = [optional[i] for i in chosen]
            yield [(c, c in forced or c in picked) for c in codes]

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
        avail = [c for c in range(C) if table_counts[ts.code(c, v)] + rack_counts[ts.code(c, v)] > 0]
        for rj in jokers_options:
            n_j = freed + rj
            for size in range(max(MIN_NUMBERED_TILES, lo_size - n_j), min(hi_size - n_j, C - n_j) + 1):
                for cols in combinations(avail, size):
                    codes = [ts.code(c, v) for c in cols]
                    missing = [ts.code(c, v) for c in range(C) if c not in cols][:n_j]
                    for src in sourced(codes, rj):
                        add(src, missing, rj)


def freed_in(host: Host, joker: int) -> int:
    """Freed table jokers a host set holds (its jokers less the rack's)."""
    return host[0].tiles.count(joker) - host[2].count(joker)
