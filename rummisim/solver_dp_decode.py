"""The dynamic program's moves and turning its chosen steps back into sets (see ``solver_dp``),
and the sets that may hold a freed table joker.

Each colour step's action word says how the open runs of that colour were treated (bits
0-14: runs of each type extended by a tile, E runs extended by a joker; 15-17: runs
started; 32-35: tiles used; 36-39: tiles set aside for groups); each group step's action
is the number of jokers its groups take. Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from rummisim.melds import Meld, make_meld
from rummisim.profile import RuleProfile

N_TYPES = 4  # run types A, C, D, E (see ``solver_dp``)
TYPE_A, TYPE_C, TYPE_D, TYPE_E = range(N_TYPES)
AFTER_TILE = (TYPE_C, TYPE_E, TYPE_E, TYPE_E)
AFTER_JOKER = (TYPE_D, TYPE_E, TYPE_D, TYPE_D)


@dataclass
class _Run:
    kind: int
    tiles: list[int]
    faces: list[int]


# ----- the DP's moves (their action words are decoded below) ---------------------------------


def group_jokers_needed(n: int, m: int, min_size: int, max_size: int) -> int:
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


def colour_moves(counts: tuple[int, ...], u: int) -> list[tuple[tuple[int, ...], int, int]]:
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


def restore_jokers(new_table: tuple[Meld, ...], virtual: tuple[int, ...], ts) -> tuple[Meld, ...]:
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


def decode(chain: list[int], profile: RuleProfile, n_pos: int, n_jokers: int) -> tuple[Meld, ...] | None:
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
            starts, in_groups = (action >> 15) & 7, (action >> 36) & 15
            if not (open_runs[c] or starts or in_groups):
                continue  # no run of this colour open, none starts, no tile to the groups
            face = ts.code(c, value)
            ext_tile = [(action >> (3 * t)) & 7 for t in range(N_TYPES)]
            joker_e = (action >> 12) & 7
            group_tiles.extend([face] * in_groups)
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
        group_jokers = chain[k]
        k += 1
        if group_tiles or group_jokers:
            made = _groups(group_tiles, group_jokers, profile)
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
            meld = _meld(tuple(tiles_part), tuple(faces_part), profile)
            if meld is None:
                return None
            melds.append(meld)
    return tuple(sorted(melds, key=lambda m: (m.faces, m.tiles)))


@lru_cache(maxsize=65536)
def _meld(tiles: tuple[int, ...], faces: tuple[int, ...], profile: RuleProfile) -> Meld | None:
    """``make_meld``, remembered (the same sets come back turn after turn), or None."""
    try:
        return make_meld(tiles, faces, profile)
    except ValueError:
        return None


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


# ----- sets that may hold a freed table joker (``jokers.reuse: two_rack_tiles``) -------------

Host = tuple[Meld, tuple[int, ...], tuple[int, ...]]
HOST_RACK_ITEMS = 2  # rack items a set holding freed jokers needs, however many it holds


def freed_joker_hosts(
    table_counts, rack_counts, profile: RuleProfile, freed: int = 1, limit: int = 1 << 30
) -> list[Host] | None:
    """Every set that can hold ``freed`` freed table jokers (1 or 2) with two other rack items
    (numbered rack tiles or a rack joker; ``validate_move`` asks two per set, not per
    joker), as (set, table tiles in it, rack tiles in it); ``None`` when this enumeration
    does not apply (several rack jokers) or finds more than ``limit`` sets.

    Complete up to dominance: a tile whose code is both on the table and on the rack comes
    from the table unless it is one of the counted rack tiles (the rack copy can then take
    its place anywhere else). A run reaching 3 or more positions past the span of the freed
    jokers and two counted items (counting tiles that only the rack has first) splits into
    a valid run (no joker, or the rack's only) and a smaller host, except when the rack
    joker is one of the two and the smaller host would keep one numbered tile: then one
    more position stays (reach 3)."""
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
    n_pos = V + 1 if profile.wrap else V
    for c in range(C):
        code_at = [0] + [ts.code(c, (p - 1) % V + 1) for p in range(1, n_pos + 1)]
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
                    reach = 3 if rj else 2
                    for lo in range(max(lo_min, a - V), a + 1):
                        for hi in range(max(b, lo + 2), min(hi_max, lo + V - 1) + 1):
                            if lo == 1 and hi == V + 1:
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
            for size in range(max(2, lo_size - n_j), min(hi_size - n_j, C - n_j) + 1):
                for cols in combinations(avail, size):
                    codes = [ts.code(c, v) for c in cols]
                    missing = [ts.code(c, v) for c in range(C) if c not in cols][:n_j]
                    for src in sourced(codes, rj):
                        add(src, missing, rj)


def freed_in(host: Host, joker: int) -> int:
    """Freed table jokers a host set holds (its jokers less the rack's)."""
    return host[0].tiles.count(joker) - host[2].count(joker)
