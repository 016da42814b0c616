"""Turning the dynamic program's chosen steps back into sets (see ``solver_dp``).

Each colour step's action word says how the open runs of that colour were treated (bits
0-14: runs of each type extended by a tile, E runs extended by a joker; 15-17: runs
started; 32-35: tiles used; 36-39: tiles set aside for groups); each group step's action
is the number of jokers its groups take. Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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
