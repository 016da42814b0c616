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
search over the sets by value, highest first, each collection in that order: a collection is
reported the moment its value reaches the threshold, and as the set just added is its least
valuable one and the value before it was below the threshold, it is minimal. ``dp`` uses them
for openings that may also rearrange the table (``solve_dp_opening``). Under ``initial_meld.sets:
one_qualifying`` a core is one set worth the threshold by itself (the other sets of the opening
are then any play of the other tiles). Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

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
    have = np.bincount(np.asarray(rack, dtype=np.int64), minlength=profile.tileset.n_codes)
    windows, n_j = _windows(have, profile)
    out: list[RackSet] = []
    for w, key in windows:
        out.extend(_window_sets(w, key, n_j, profile))
    return out


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


def opening_cores(
    rack: tuple[int, ...], profile: RuleProfile, *, limit: int = 1 << 30, nodes: int = 1 << 30
) -> list[tuple[RackSet, ...]]:
    """The minimal collections of rack-only sets worth ``initial_meld.threshold`` (see the
    module docstring), one per multiset of tiles; ``TooManyCores`` past ``limit`` of them or
    ``nodes`` search steps."""
    threshold = profile.initial_meld.threshold
    sets = sorted(rack_only_sets(rack, profile), key=lambda s: -s.value)
    if profile.initial_meld.sets == "one_qualifying":  # one set worth the threshold alone
        alone = {s.tiles: (s,) for s in sets if s.value >= threshold}
        if len(alone) > limit:
            raise TooManyCores
        return list(alone.values())
    # the tile counts packed into one integer, a field of ``bits`` per code whose top bit (a
    # guard) is set in the tiles left: a set fits them where subtracting its counts leaves every
    # guard set (a field that falls short borrows its own guard, never the next field's)
    bits = max(rack.count(t) for t in set(rack)).bit_length() + 1 if rack else 2
    guard = sum(1 << (bits * code + bits - 1) for code in range(profile.tileset.n_codes))
    needs = [_packed(s.tiles, bits) for s in sets]
    found: dict[int, tuple[RackSet, ...]] = {}
    chosen: list[RackSet] = []
    budget = [nodes]

    def search(start: int, value: int, left: int, used: int) -> None:
        for i in range(start, len(sets)):
            budget[0] -= 1
            if budget[0] < 0:
                raise TooManyCores
            rest = left - needs[i]
            if rest & guard != guard:
                continue  # the tiles left do not hold this set
            s = sets[i]
            chosen.append(s)
            if value + s.value >= threshold:
                key = used + needs[i]  # the multiset of tiles of the collection
                if key not in found:
                    found[key] = tuple(chosen)
                    if len(found) > limit:
                        raise TooManyCores
            else:
                search(i, value + s.value, rest, used + needs[i])
            chosen.pop()

    search(0, 0, _packed(rack, bits) + guard, 0)
    return list(found.values())


def _packed(tiles, bits: int) -> int:
    """The counts of ``tiles``' codes packed into one integer, ``bits`` a code."""
    out = 0
    for t in tiles:
        out += 1 << (bits * t)
    return out
