"""A position read from the top down: each tile of value ``v`` as the same colour's ``V + 1 - v``
(``flip_codes``, ``flip_tiles``), its sets and plays so read (``flip_sets``, ``flip_play``), and
which way a turn's search reads a position (``rack_first``, ``reads_down``, ``above``). Pure; no I/O.

Why read from the top down. The DP sweeps the values from 1 up, and its floors (``passes``) drop a
state once the rack tiles it has passed without placing rule the floor out: they bite only after
the sweep has passed rack tiles, and the table's tiles, which every state must place, multiply the
states meanwhile. Read so that the rack's tiles come before the table's, the same search makes
fewer states. ``reads_down``: where the rack's numbered tiles lie higher than the table's on
average, from the top down.

Exact either way: the search read from the top down scores each numbered tile by its value before
the flip (``common.FROM_THE_TOP``), so each of its plays scores what it scores read back, and a play
is legal read back exactly when it is legal so read (runs, groups, joker faces and the joker rules
read the same in both directions). Not with wrap (13-1-2 is no run, 2-1-13 read back), nor for an
opening, whose threshold reads the values, nor without rearrangement (every table set pinned: too few
states to pay for the flip; ``beginner``'s games ran 10% slower so).
"""

from __future__ import annotations

from functools import lru_cache

from rummisim.melds import Meld
from rummisim.profile import RuleProfile
from rummisim.solver.budget import SearchOptions


@lru_cache(maxsize=64)
def flip_codes(profile: RuleProfile) -> tuple[int, ...]:
    """Each code read from the top down: a tile of value ``v`` as the same colour's ``V + 1 - v``
    (the joker as itself)."""
    ts = profile.tileset
    numbered = [ts.code(ts.colour_of(c), ts.values + 1 - ts.value_of(c)) for c in range(ts.joker)]
    return tuple(numbered) + tuple(range(ts.joker, ts.n_codes))


def flip_tiles(tiles, profile: RuleProfile) -> tuple[int, ...]:
    """Tiles read the other way (``flip_codes``, its own inverse: it also reads them back), sorted."""
    flip = flip_codes(profile)
    return tuple(sorted(flip[t] for t in tiles))


def flip_sets(melds, profile: RuleProfile) -> tuple[Meld, ...]:
    """Valid sets of a profile without wrap, read the other way, in their normal order: a run's
    tiles reversed (lowest face first again), a group's as they are (colour order)."""
    return tuple(_flipped_meld(m, profile) for m in melds)


@lru_cache(maxsize=1 << 14)
def _flipped_meld(meld: Meld, profile: RuleProfile) -> Meld:
    """One set of ``flip_sets``, remembered (a table's sets come back search after search)."""
    flip, ts = flip_codes(profile), profile.tileset
    tiles, faces = tuple(flip[t] for t in meld.tiles), tuple(flip[f] for f in meld.faces)
    if ts.value_of(meld.faces[0]) != ts.value_of(meld.faces[1]):  # a run (a group's faces share a value)
        tiles, faces = tiles[::-1], faces[::-1]
    return Meld(tiles, faces)


def flip_play(found: tuple[int, tuple[Meld, ...], tuple[int, ...]], profile: RuleProfile):
    """A play (score, table, played) read the other way; read from the top down, it is read back
    (the score stays: ``common.FROM_THE_TOP``)."""
    return found[0], flip_sets(found[1], profile), flip_tiles(found[2], profile)


def rack_first(
    rack: tuple[int, ...], table: tuple[Meld, ...], profile: RuleProfile, options: SearchOptions
) -> bool:
    """Whether a turn-mode search (a turn's, or an opening's rest of the rack on the table) reads
    the position from the top down: where it may (``may_read_down``) and ``reads_down``."""
    return may_read_down(profile, options) and reads_down(rack, table, profile)


def may_read_down(profile: RuleProfile, options: SearchOptions) -> bool:
    """Whether a turn-mode search may read its position from the top down:
    ``SearchOptions.rack_first``, no wrap, the table rearranged (without rearrangement every set is
    pinned: too few states to pay for the flip)."""
    return options.rack_first and not profile.wrap and profile.turn.rearrange


def reads_down(rack: tuple[int, ...], table: tuple[Meld, ...], profile: RuleProfile) -> bool:
    """Whether a turn's search reads the position from the top down: where the rack's numbered
    tiles' mean value is above the table's (see the module docstring)."""
    values, joker = _values(profile), profile.tileset.joker
    rack_numbered = len(rack) - rack.count(joker)
    return bool(above(sum(map(values.__getitem__, rack)), rack_numbered, *table_values(table, profile)))


def table_values(table: tuple[Meld, ...], profile: RuleProfile) -> tuple[int, int]:
    """(the face values of the table's numbered tiles, how many they are), for ``above``."""
    values, joker = _values(profile), profile.tileset.joker
    table_sum = table_numbered = 0
    for m in table:
        table_sum += sum(map(values.__getitem__, m.tiles))
        table_numbered += len(m.tiles) - m.tiles.count(joker)
    return table_sum, table_numbered


def above(rack_sum, rack_numbered, table_sum: int, table_numbered: int):
    """``reads_down`` by the sums and counts of numbered tiles (racks as numbers, or arrays of them:
    ``cored.CoreRows``): the rack's mean above the table's, both holding some."""
    return (
        (rack_numbered > 0) & (table_numbered > 0) & (rack_sum * table_numbered > table_sum * rack_numbered)
    )


@lru_cache(maxsize=64)
def _values(profile: RuleProfile) -> tuple[int, ...]:
    """Each code's face value, the joker's 0."""
    ts = profile.tileset
    return tuple(ts.value_of(c) for c in range(ts.joker)) + (0,) * (ts.n_codes - ts.joker)
