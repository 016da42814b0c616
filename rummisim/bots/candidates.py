"""Simple move candidates shared by the bots: sets a rack can build on its own,
single-tile additions to table sets, and a ranking of tiles to discard.

These are cheap, always-legal building blocks (no table rearrangement), used by
the baseline and random bots for their moves and by every bot for its discard.
Pure; no I/O.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np

from rummisim.contract import Play
from rummisim.melds import (
    MIN_NUMBERED_TILES,
    Meld,
    extension_faces,
    make_meld,
    meld_opening_value,
    set_catalogue,
)
from rummisim.profile import RuleProfile


@lru_cache(maxsize=64)
def _minimal_sets(profile: RuleProfile) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray]:
    cat = set_catalogue(profile)
    index = np.flatnonzero(cat.minimal)
    matrix = cat.matrix[index].astype(np.int64)
    return [cat.faces[i] for i in index], matrix, matrix.sum(axis=1)


def rack_sets(rack, profile: RuleProfile) -> list[Meld]:
    """Minimal sets (runs shorter than twice the minimum length, groups) that the rack
    can build on its own, each with at most one joker (a simple candidate list, not every
    set: ``R7 J J`` is one too, and the solver bots find it)."""
    ts = profile.tileset
    faces, matrix, sizes = _minimal_sets(profile)
    counts = ts.counts(rack)
    have = counts[: ts.joker]
    need = np.maximum(matrix - have, 0).sum(axis=1)
    ok = (need <= min(int(counts[ts.joker]), 1)) & (sizes - need >= MIN_NUMBERED_TILES)
    # catalogue faces are already in normal order, so each Meld is built directly
    return [
        Meld(tuple(f if have[f] > 0 else ts.joker for f in faces[i]), faces[i]) for i in np.flatnonzero(ok)
    ]


def extension_plays(table: tuple[Meld, ...], rack, profile: RuleProfile) -> list[Play]:
    """Every play that adds one numbered rack tile to one end of a table run or to a
    group lacking its colour (each distinct play once; table jokers keep their faces)."""
    have = set(rack)
    plays = []
    for i, meld in enumerate(table):
        for face in extension_faces(meld, profile):
            if face in have:
                grown = make_meld((*meld.tiles, face), (*meld.faces, face), profile)
                plays.append(Play((*table[:i], grown, *table[i + 1 :]), (face,)))
    return plays


def fits(tiles, available: Counter) -> bool:
    """True if ``available`` holds every tile of ``tiles`` (with multiplicity)."""
    need = Counter(tiles)
    return all(available[t] >= n for t, n in need.items())


def opening_value(melds, profile: RuleProfile) -> int:
    return sum(meld_opening_value(m, profile) for m in melds)


def discard_order(rack, profile: RuleProfile) -> list[int]:
    """The rack's distinct tiles, the best one to discard first.

    A tile is worth keeping when it sits in a set the rack can build (most), or
    has a partner for one (same value in another colour, or same colour within two
    values), and jokers are kept above all. Among equally useful tiles the highest
    value goes first, since it costs the most if the round ends.
    """
    ts = profile.tileset
    in_sets = {t for m in rack_sets(rack, profile) for t in m.tiles}
    numbered = [t for t in set(rack) if t != ts.joker]

    def partnered(tile: int) -> bool:
        colour, value = ts.colour_of(tile), ts.value_of(tile)
        return any(
            other != tile
            and (
                (ts.value_of(other) == value)
                or (ts.colour_of(other) == colour and abs(ts.value_of(other) - value) <= 2)
            )
            for other in numbered
        )

    def usefulness(tile: int) -> tuple[int, int, int]:
        if tile == ts.joker:
            return (3, 0, 0)
        rank = 2 if tile in in_sets else 1 if partnered(tile) else 0
        return (rank, -ts.value_of(tile), -tile)

    return sorted(set(rack), key=usefulness)
