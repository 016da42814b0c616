"""The sets a rack can lay on its own, and the initial meld built from them (see ``dp``).

``rack_only_sets`` lists every valid set (run or group, ``melds.is_valid_meld``) that the rack's
tiles can form alone: each face is covered by a rack tile of that code or by a rack joker, at
most ``jokers.max_per_set`` jokers and at least one numbered tile a set, runs of
``runs.min_length`` up to the number of values (with ``runs.wrap: high_low`` also 12-13-1, never
13-1-2), groups of ``groups.min_size`` to ``groups.max_size`` distinct colours. A joker may also
stand where the rack holds the tile: the joker's worth (its opening value, its rack penalty)
differs from the tile's, so those sets are listed too.

``new_set_hosts``: the sets a freed table joker may join under ``jokers.reuse: new_set`` (itself
and rack tiles only), for ``dp``'s host search.

``best_single_set``: the initial meld that must be ONE set (``initial_meld.sets: single``, the
table untouched) is the best of these sets worth the threshold under the objective (its rack
tiles' gains, ``common.tile_gain``): exact, as the list holds every set the rack can form.

``opening_cores``: the collections of rack-only sets worth at least the threshold that are
minimal (dropping any set falls below it), one per multiset of tiles. Listed by a depth-first
search over the sets by value, highest first, each collection in that order (compiled: ``_cores``):
a collection is reported the moment its value reaches the threshold, and as the set just added is
its least valuable one and the value before it was below the threshold, it is minimal; ``Cores``
holds them. ``dp`` uses them for openings that may also rearrange the table
(``solve_dp_opening``). Under ``initial_meld.sets:
one_qualifying`` a core is one set worth the threshold by itself (the other sets of the opening
are then any play of the other tiles). Pure; no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numba
import numpy as np

from rummisim.melds import (
    MIN_NUMBERED_TILES,
    Meld,
    is_valid_meld,
    make_meld,
    meld_opening_value,
    set_catalogue,
)
from rummisim.profile import RuleProfile
from rummisim.solver.common import tile_gain


@dataclass(frozen=True)
class RackSet:
    """A set of rack tiles: the meld, its tiles (sorted codes, jokers included) and opening value."""

    meld: Meld
    tiles: tuple[int, ...]
    value: int


def rack_only_sets(rack: tuple[int, ...], profile: RuleProfile) -> list[RackSet]:
    """Every valid set the rack's tiles form on their own (see the module docstring), runs
    (colour by colour, by first and then last position) before groups (by value, size, colours).
    The faces a set may cover are the profile's catalogue (``melds.set_catalogue``); those missing
    more faces than the rack's jokers cover are left out at once (``_windows``), the others answered
    by ``_window_sets`` (kept across calls: a window's sets depend only on which of its faces the
    rack holds; ``polish-40``'s host searches list a rack's sets at every host level: about 200 ->
    50 us a rack of 10 to 23 tiles)."""
    return _rack_sets(rack, profile)[0]


def _rack_sets(rack: tuple[int, ...], profile: RuleProfile) -> tuple[list[RackSet], np.ndarray, np.ndarray]:
    """``rack_only_sets`` with each set's codes (a row each, padded with -1) and opening value
    (``_window_block``, kept beside each window's sets)."""
    have = np.bincount(np.asarray(rack, dtype=np.int64), minlength=profile.tileset.n_codes)
    windows, n_j = _windows(have, profile)
    out: list[RackSet] = []
    codes, values = [], []
    for w, key in windows:
        found = _window_block(w, key, n_j, profile)
        if found[0]:
            out.extend(found[0])
            codes.append(found[1])
            values.append(found[2])
    if not out:
        return out, np.zeros((0, 1), dtype=np.int64), np.zeros(0, dtype=np.int64)
    return out, np.concatenate(codes), np.concatenate(values)


@lru_cache(maxsize=1 << 16)
def _window_block(window: int, held_bits: int, n_j: int, profile: RuleProfile) -> tuple:
    """``_window_sets`` with their codes, padded with -1 to the catalogue's longest set, and their
    opening values (shared: never written)."""
    sets = _window_sets(window, held_bits, n_j, profile)
    width = _window_order(profile)[4].shape[0]
    codes = np.full((len(sets), width), -1, dtype=np.int64)
    for i, found in enumerate(sets):
        codes[i, : len(found.tiles)] = found.tiles
    values = np.array([found.value for found in sets], dtype=np.int64)
    codes.setflags(write=False)
    values.setflags(write=False)
    return sets, codes, values


def _windows(have: np.ndarray, profile: RuleProfile) -> tuple[zip, int]:
    """The catalogue's sets whose faces the rack (``have``: counts by code) covers with the jokers a
    set may take, in ``rack_only_sets``' order, as (index, the faces it holds as bits: ``1 << i``
    for face ``i``), with those jokers: a count-matrix product and a gather (after 0.3.23: the faces
    held were a tuple made window by window, 60 us of a rack's 90)."""
    joker = profile.tileset.joker
    n_j = min(int(have[joker]), profile.jokers.max_per_set)
    held = have[:joker] > 0
    order, sizes, matrix, faces_at, bits = _window_order(profile)
    chosen = sizes - matrix @ held <= n_j
    keys = np.append(held, False)[faces_at[chosen]] @ bits  # (a face index past the numbered ones: padding)
    return zip(order[chosen].tolist(), keys.tolist(), strict=True), n_j


@lru_cache(maxsize=64)
def _window_order(profile: RuleProfile) -> tuple[np.ndarray, ...]:
    """The catalogue's sets (``melds.set_catalogue``) in ``rack_only_sets``' order, runs by colour,
    first position and length, then the groups as listed: their indexes, sizes, rows of the count
    matrix, faces (padded with the joker's code) and each face's bit. Shared: never written."""
    ts = profile.tileset
    catalogue = set_catalogue(profile)
    runs = [i for i, kind in enumerate(catalogue.kinds) if kind == "run"]
    runs.sort(
        key=lambda i: (
            ts.colour_of(catalogue.faces[i][0]),
            ts.value_of(catalogue.faces[i][0]),
            len(catalogue.faces[i]),
        )
    )
    groups = [i for i, kind in enumerate(catalogue.kinds) if kind == "group"]
    order = np.array(runs + groups, dtype=np.int64)
    sizes = np.array([len(catalogue.faces[i]) for i in order], dtype=np.int64)
    matrix = catalogue.matrix[order].astype(np.int64)
    width = int(sizes.max())
    faces_at = np.full((len(order), width), ts.joker, dtype=np.int64)
    for row, i in enumerate(order.tolist()):
        faces_at[row, : len(catalogue.faces[i])] = catalogue.faces[i]
    bits = np.left_shift(1, np.arange(width, dtype=np.int64))
    for arr in (order, sizes, matrix, faces_at, bits):
        arr.setflags(write=False)
    return order, sizes, matrix, faces_at, bits


@lru_cache(maxsize=1 << 16)
def _window_sets(window: int, held_bits: int, n_j: int, profile: RuleProfile) -> tuple[RackSet, ...]:
    """The rack-only sets over the faces of the catalogue's set ``window`` where the rack holds the
    faces marked in ``held_bits`` (``_windows``) and ``n_j`` jokers a set: the faces it lacks take
    jokers, and a joker may also stand for a face the rack holds (at least ``MIN_NUMBERED_TILES``
    numbered tiles stay)."""
    joker = profile.tileset.joker
    faces = set_catalogue(profile).faces[window]
    held = [bool(held_bits >> i & 1) for i in range(len(faces))]
    present = [i for i, h in enumerate(held) if h]
    missing = len(faces) - len(present)
    if missing > n_j or len(present) < MIN_NUMBERED_TILES:
        return ()
    out = []
    for extra in range(min(n_j - missing, len(present) - MIN_NUMBERED_TILES) + 1):
        for swapped in combinations(present, extra):
            on_joker = set(swapped)
            tiles = tuple(joker if (not held[i] or i in on_joker) else f for i, f in enumerate(faces))
            found = _rack_set(tiles, faces, profile)
            if found is not None:
                out.append(found)
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def _window_hosts(window: int, held_bits: int, n_j: int, profile: RuleProfile) -> tuple:
    """``_window_sets``' sets that hold a joker, as (rack tiles: the set's tiles less one joker,
    ``new_set_hosts``' host set), one per multiset of rack tiles."""
    joker = profile.tileset.joker
    hosts: dict[tuple[int, ...], tuple[Meld, tuple[int, ...], tuple[int, ...]]] = {}
    for s in _window_sets(window, held_bits, n_j, profile):
        if joker in s.tiles:
            rack_tiles = list(s.tiles)
            rack_tiles.remove(joker)  # the freed one
            hosts.setdefault(tuple(rack_tiles), (s.meld, (), tuple(rack_tiles)))
    return tuple(hosts.items())


@lru_cache(maxsize=1 << 16)
def _rack_set(tiles: tuple[int, ...], faces: tuple[int, ...], profile: RuleProfile) -> RackSet | None:
    """The ``RackSet`` of these tiles at these faces, or None where they are no valid set. Kept
    across calls beside ``_window_sets``: a window whose faces the rack holds in another pattern
    lists many of the same tile tuples (2,000 random ``polish-40`` racks, the first time: 60 us a
    rack with this cache, 75 without; ``polish-40``'s holding positions once spent a fifth of
    their time making these sets)."""
    meld = make_meld(tiles, faces, profile)
    if not is_valid_meld(meld, profile):
        return None
    return RackSet(meld, tuple(sorted(tiles)), meld_opening_value(meld, profile))


def new_set_hosts(rack_counts, profile: RuleProfile) -> list[tuple[Meld, tuple[int, ...], tuple[int, ...]]]:
    """Under ``jokers.reuse: new_set`` (004), every set one freed table joker can make with rack
    tiles alone (rack jokers among them), as ``dp``'s host sets: (set, table tiles in it: none,
    rack tiles in it). Complete: a legal play puts each freed joker in such a set. One set per
    multiset of rack tiles: the rest of the play does not depend on where in its set the joker
    stands (R5 R6 J(R7) or J(R4) R5 R6 take the same tiles)."""
    have = np.array(rack_counts, dtype=np.int64)
    have[profile.tileset.joker] += 1  # the freed joker
    windows, n_j = _windows(have, profile)
    hosts: dict[tuple[int, ...], tuple[Meld, tuple[int, ...], tuple[int, ...]]] = {}
    for w, key in windows:
        for rack_tiles, host in _window_hosts(w, key, n_j, profile):
            hosts.setdefault(rack_tiles, host)
    return list(hosts.values())


def best_single_set(
    rack: tuple[int, ...], profile: RuleProfile, objective: str
) -> tuple[int, RackSet] | None:
    """(score, set) of the best single set worth ``initial_meld.threshold`` or more, with a
    discard pile one that leaves a tile on the rack; ``None`` when there is none."""
    threshold = profile.initial_meld.threshold
    best: tuple[int, RackSet] | None = None
    for s in rack_only_sets(rack, profile):
        if s.value < threshold or (profile.discard_pile and len(s.tiles) >= len(rack)):
            continue
        score = sum(tile_gain(profile, t, objective) for t in s.tiles)
        if best is None or score > best[0]:
            best = (score, s)
    return best


class TooManyCores(Exception):
    """The search for opening cores passed its limit (the caller hands the position on)."""


class Cores:
    """``opening_cores``' answer: the cores in the order found, each a tuple of rack-only sets
    (``cores[k]``, made when asked for: an opening that settles at its first core reads no other),
    held as indices into ``sets`` (``flat``; core ``k`` ends at ``ends[k]``); ``codes``: each set's
    codes, a row each, padded with -1."""

    def __init__(self, sets: list[RackSet], codes: np.ndarray, flat: np.ndarray, ends: np.ndarray):
        self.sets, self.codes, self.flat, self.ends = sets, codes, flat, ends

    def __len__(self) -> int:
        return int(self.ends.shape[0])

    def __getitem__(self, k: int) -> tuple[RackSet, ...]:
        start = int(self.ends[k - 1]) if k else 0
        return tuple(map(self.sets.__getitem__, self.flat[start : self.ends[k]].tolist()))

    def __iter__(self) -> Iterator[tuple[RackSet, ...]]:
        return (self[k] for k in range(len(self)))

    def laid_first(self, laid: tuple[Meld, ...]) -> list[int]:
        """The cores' indices, those made of sets in ``laid`` (each as often as it lies there)
        first, then fewest tiles first, in the order found where these tie."""
        n, n_sets = len(self), len(self.sets)
        if not n:
            return []
        by_tiles: dict[tuple[int, ...], list[int]] = {}  # (sets of the same tiles at other faces)
        for i, s in enumerate(self.sets):
            by_tiles.setdefault(s.tiles, []).append(i)
        have = np.zeros(n_sets, dtype=np.int64)  # how often each set lies in ``laid``
        for meld, times in Counter(laid).items():
            for i in by_tiles.get(tuple(sorted(meld.tiles)), ()):
                if self.sets[i].meld == meld:
                    have[i] = times
        starts = np.r_[0, self.ends[:-1]]
        owner = np.repeat(np.arange(n), self.ends - starts)
        pairs, taken = np.unique(owner * n_sets + self.flat, return_counts=True)
        short = np.zeros(n, dtype=bool)  # (a set taken more often than it lies there)
        short[pairs[taken > have[pairs % n_sets]] // n_sets] = True
        sizes = (self.codes >= 0).sum(axis=1)
        tiles = np.add.reduceat(sizes[self.flat], starts)
        return np.lexsort((tiles, short)).tolist()


def opening_cores(
    rack: tuple[int, ...], profile: RuleProfile, *, limit: int = 1 << 30, nodes: int = 1 << 30
) -> Cores:
    """The minimal collections of rack-only sets worth ``initial_meld.threshold`` (see the
    module docstring), one per multiset of tiles; ``TooManyCores`` past ``limit`` of them or
    ``nodes`` search steps. The search runs compiled (``_cores``; after 0.3.23: ``polish-40``'s
    holding positions, whose racks form hundreds of cores, spent an eighth of their time here)."""
    threshold = profile.initial_meld.threshold
    listed, codes, worth = _rack_sets(rack, profile)
    order = np.argsort(-worth, kind="stable")  # (the most valuable first, as listed where they tie)
    sets, tiles, values = [listed[i] for i in order.tolist()], codes[order], worth[order]
    if profile.initial_meld.sets == "one_qualifying":  # one set worth the threshold alone
        alone: dict[tuple[int, ...], int] = {}  # (the last set of each multiset of tiles)
        for i, s in enumerate(sets):
            if s.value >= threshold:
                alone[s.tiles] = i
        if len(alone) > limit:
            raise TooManyCores
        return Cores(
            sets, tiles, np.array(list(alone.values()), dtype=np.int64), np.arange(1, len(alone) + 1)
        )
    have = np.bincount(np.asarray(rack, dtype=np.int64), minlength=profile.tileset.n_codes)
    room = CORES_ROOM
    while True:
        found, flat, ends = _cores(tiles, values, have, threshold, limit, nodes, room)
        if found == TOO_MANY:
            raise TooManyCores
        if found != NO_ROOM:
            return Cores(sets, tiles, flat, ends)
        room *= 8  # (searched again with room for more)


CORES_ROOM = 1024  # cores ``_cores`` first makes room for


def padded(flat: np.ndarray, sizes: np.ndarray, fill: int) -> np.ndarray:
    """Rows of ``sizes`` items, one after the other in ``flat``, as a matrix padded with ``fill``."""
    out = np.full((sizes.shape[0], int(sizes.max(initial=0))), fill, dtype=np.int64)
    starts = np.cumsum(sizes) - sizes
    out[np.repeat(np.arange(sizes.shape[0]), sizes), np.arange(flat.shape[0]) - np.repeat(starts, sizes)] = (
        flat
    )
    return out


@numba.njit(cache=True, nogil=True)
def _cores(tiles, values, have, threshold, limit, nodes, room):
    """``opening_cores``' depth-first search over the sets (``tiles``: each set's codes, padded
    with -1; ``values``: highest first): each collection in that order, the same set again or a
    later one next, reported where its value reaches ``threshold`` (the set just added is then its
    least valuable, and the value before it was below: it is minimal), the first of each multiset
    of tiles kept. Returns (cores found, or ``TOO_MANY`` past ``limit`` cores or ``nodes`` steps,
    or ``NO_ROOM`` past ``room`` cores; the sets of each core, flat; where each core ends in it).
    A multiset of tiles is told apart by its counts (``rows``), looked up by a hash kept as the
    sets are chosen: the sum of a mix of each code. (Its arrays are made once, never grown: arrays
    assigned again in the loop made it ten times slower.)"""
    n_sets, width = tiles.shape
    n_codes = have.shape[0]
    mix = np.empty(n_codes, dtype=np.uint64)
    for code in range(n_codes):
        mix[code] = _mix(code)
    left = have.copy()
    cap = int(have.sum()) + 1  # (each set takes a tile at least)
    pos = np.zeros(cap, dtype=np.int64)  # the next set to try at each depth
    below = np.zeros(cap, dtype=np.int64)  # the value of the sets chosen before it
    chosen = np.zeros(cap, dtype=np.int64)
    # the cores found: their tiles' hash and counts, their sets; a hash table of their indices
    keys = np.empty(room, dtype=np.uint64)
    rows = np.empty((room, n_codes), dtype=np.int8)  # (a rack holds few tiles of a code)
    ends = np.empty(room, dtype=np.int64)
    flat = np.empty(room * cap, dtype=np.int64)
    slots = np.full(2 * room, -1, dtype=np.int64)
    mask = slots.shape[0] - 1
    found = used = 0
    budget = nodes
    h = np.uint64(0)  # the hash of the tiles chosen
    d = 0
    while d >= 0:
        i = pos[d]
        if i == n_sets:  # this depth is done: back to the set chosen before it
            d -= 1
            if d >= 0:
                h = _give_back(left, tiles[chosen[d]], mix, h)
                pos[d] += 1
            continue
        budget -= 1
        if budget < 0:
            return TOO_MANY, flat, ends
        fits = True
        for w in range(width):
            t = tiles[i, w]
            if t < 0:
                break
            left[t] -= 1
            h += mix[t]
            fits = fits and left[t] >= 0
        chosen[d] = i
        if fits and below[d] + values[i] < threshold:
            below[d + 1] = below[d] + values[i]
            pos[d + 1] = i
            d += 1
            continue
        if fits:
            s = np.int64(h & np.uint64(mask))
            while slots[s] >= 0 and not _same(keys, rows, slots[s], h, have, left):
                s = (s + 1) & mask
            if slots[s] < 0:  # a new multiset of tiles
                if found == room:
                    return NO_ROOM, flat, ends
                slots[s] = found
                keys[found] = h
                for code in range(n_codes):
                    rows[found, code] = have[code] - left[code]
                flat[used : used + d + 1] = chosen[: d + 1]
                used += d + 1
                ends[found] = used
                found += 1
                if found > limit:
                    return TOO_MANY, flat, ends
        h = _give_back(left, tiles[i], mix, h)
        pos[d] += 1
    return found, flat[:used], ends[:found]


TOO_MANY = -1  # ``_cores``: past its limits
NO_ROOM = -2  # ... past the room it was given


@numba.njit(cache=True, nogil=True)
def _mix(code):
    """A 64-bit mix of a code (splitmix64's finaliser): ``_cores``' hash of a multiset of tiles
    is the sum over its tiles."""
    z = np.uint64(code + 1) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, nogil=True, inline="always")
def _give_back(left, set_tiles, mix, h):
    """A set's tiles back among those left; the hash of the tiles chosen without them."""
    for t in set_tiles:
        if t >= 0:
            left[t] += 1
            h -= mix[t]
    return h


@numba.njit(cache=True, nogil=True, inline="always")
def _same(keys, rows, k, h, have, left):
    """Whether ``_cores``' core ``k`` holds the tiles ``have - left`` (hash ``h``)."""
    if keys[k] != h:
        return False
    code = 0
    while code < have.shape[0] and rows[k, code] == have[code] - left[code]:
        code += 1
    return code == have.shape[0]
