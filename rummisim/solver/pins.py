"""Pins (``Pin``, ``make_pins``, ``pin_grids``): table sets that must stay together and may only grow;
the pins of a search without rearrangement (``pin_all``) and of a joker choice under strict joker
sets (``strict_pins``, with ``split_may_play``; a set split between kept and freed jokers,
``split_pins``).

Pins: table sets that must stay together and may only grow (``pins.Pin``). Under
``take_from_joker_sets: false`` each joker choice pins the sets whose jokers it all keeps
(a set whose jokers are all freed is released); without rearrangement (``rearrange=False``
or ``turn.rearrange: false``, checked by ``validate_move`` under that profile) every table
set is pinned with its jokers at their faces, and the pool is the rack alone. A pinned
set's tiles leave the grids. A pinned run ``a..b`` of colour ``c`` costs the kernel no
state while in flight: at the step ``(a, c)`` up to that many open runs of type ``A`` or
``C`` may join it (left growth; they leave the colour state instead of taking a tile), and
after the step ``(b, c)`` it comes back as a valid run ``E`` (right growth, or it closes).
Joining a valid run ``E`` or ``D`` is never needed (it could close instead, the same tiles
placed), which also rules out merging two pins: rearrange=False forbids that, and under
strict sets it never places more. A pinned group takes at most one tile of each colour it
lacks (counts per step, no state). Spare jokers may go to pinned sets at decoding. With
wrap, a pinned run of the low 1 to 12 may take a 13 only, one holding every value does not
grow, no short run from the low 1 joins a pin that ends at the high 1, and a longer run is
cut outside its pin (``None`` if it cannot be).

A pinned run leaves the DP's pool and comes back as a valid
run after its last tile; a short open run of its colour (``A``, ``C``) may join it on the left:
in a colour step's action, the runs of those types that were neither extended nor closed are
the joined ones. A pinned group takes at most one tile of each colour it lacks: the tiles of a
step that neither runs, new runs nor groups used.
 Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from rummisim.geometry import run_geometry
from rummisim.melds import Meld, face_kind, is_valid_meld_parts
from rummisim.profile import RuleProfile
from rummisim.solver.common import HOST_RACK_ITEMS


@dataclass(frozen=True)
class Pin:
    """A table set that stays together (see ``dp``): a run of one colour over the positions
    ``first..last`` (0-based, ``value - 1``), or a group at position ``first`` that may still
    take a tile of each colour in ``missing``; its tiles and faces in face order."""

    kind: str  # "run" or "group"
    colour: int  # a run's colour; -1 for a group
    first: int
    last: int
    tiles: tuple[int, ...]
    faces: tuple[int, ...]
    missing: tuple[int, ...]  # groups: colours it may take (one tile each)
    jokers: int


def make_pins(sets, profile: RuleProfile) -> tuple[Pin, ...] | None:
    """Pins for table sets given as (tiles, faces) (jokers at the faces they keep), or
    ``None`` where the DP does not pin such a set: a group with fewer free places than
    missing colours (one count per colour would not do)."""
    pins = []
    for tiles, faces in sets:
        pin = _pin(tuple(tiles), tuple(faces), profile)
        if pin is None:
            return None
        pins.append(pin)
    return tuple(pins)


@lru_cache(maxsize=1 << 14)
def _pin(tiles: tuple[int, ...], faces: tuple[int, ...], profile: RuleProfile) -> Pin | None:
    """``make_pins`` for one set, remembered (a table's sets come back search after search)."""
    ts = profile.tileset
    joker = ts.joker
    order = sorted(range(len(faces)), key=lambda i: (ts.value_of(faces[i]), ts.colour_of(faces[i])))
    tiles = tuple(int(tiles[i]) for i in order)
    faces = tuple(int(faces[i]) for i in order)
    values = [ts.value_of(f) for f in faces]
    n_jokers = sum(t == joker for t in tiles)
    if len(set(values)) == 1:
        present = {ts.colour_of(f) for f in faces}
        missing = tuple(c for c in range(ts.colours) if c not in present)
        room = profile.groups.max_size - len(faces)
        if room <= 0:
            missing = ()
        elif room < len(missing):
            return None
        p = values[0] - 1
        return Pin("group", -1, p, p, tiles, faces, missing, n_jokers)
    colour = ts.colour_of(faces[0])
    if any(ts.colour_of(f) != colour for f in faces):
        return None
    positions = run_geometry(profile).positions(faces)  # a high 1 (after 13) is V + 1
    if positions is None:
        return None
    if positions != values:
        tiles, faces = tiles[1:] + tiles[:1], faces[1:] + faces[:1]  # in run order
    return Pin("run", colour, positions[0] - 1, positions[-1] - 1, tiles, faces, (), n_jokers)


def pin_joins(pin: Pin, n_pos: int, wrap: bool) -> tuple[bool, bool]:
    """Whether a short run of type A / C may join a pinned run on the left. With wrap, not
    where that run would start at the low 1 while the pin ends at the high 1: 14 tiles, and
    no cut leaves the pin whole with 3 tiles on each side."""
    if not (wrap and pin.last == n_pos - 1):
        return True, True
    return pin.first != 1, pin.first != 2


def pin_tail(pin: Pin, profile: RuleProfile) -> bool:
    """With wrap, a pinned run of the low 1 to 12: it may take a 13 (one tile, like a group
    takes a colour), never the high 1 after it (14 tiles, and no cut leaves it whole)."""
    return profile.wrap and pin.first == 0 and pin.last == profile.tileset.values - 2


def pin_grows(pin: Pin, profile: RuleProfile) -> bool:
    """Whether a pinned run comes back as an open run after its last tile: not when it holds
    every value already, nor a ``pin_tail`` run."""
    return len(pin.tiles) < profile.tileset.values and not pin_tail(pin, profile)


class PinGrids(NamedTuple):
    """The kernel's record of the pins (``pin_grids``), each grid (positions, colours)."""

    start: np.ndarray  # pinned runs whose first tile is there
    end: np.ndarray  # pinned runs whose last tile is there and that grow on (``pin_grows``)
    absorb: np.ndarray  # pinned groups (or ``pin_tail`` runs) that may take one tile of that face
    join_a: np.ndarray  # pinned runs starting there that a run of type A may join (``pin_joins``)
    join_c: np.ndarray  # ... that a run of type C may join


def pin_grids(pins: tuple[Pin, ...], n_pos: int, profile: RuleProfile) -> PinGrids:
    """The kernel's view of the pins, per position and colour: pinned runs starting there,
    pinned runs ending there that grow on (``pin_grows``), pinned groups that may take a tile
    of that face, and pinned runs starting there that a run of type A / C may join
    (``pin_joins``)."""
    start = np.zeros((n_pos, profile.tileset.colours), dtype=np.int64)
    end = np.zeros_like(start)
    absorb = np.zeros_like(start)
    join_a = np.zeros_like(start)
    join_c = np.zeros_like(start)
    for pin in pins:
        if pin.kind == "run":
            start[pin.first, pin.colour] += 1
            end[pin.last, pin.colour] += pin_grows(pin, profile)
            if pin_tail(pin, profile):
                absorb[pin.last + 1, pin.colour] += 1
            a_ok, c_ok = pin_joins(pin, n_pos, profile.wrap)
            join_a[pin.first, pin.colour] += a_ok
            join_c[pin.first, pin.colour] += c_ok
        else:
            for c in pin.missing:
                absorb[pin.first, c] += 1
    return PinGrids(start, end, absorb, join_a, join_c)


def pin_all(table: tuple[Meld, ...], joker: int) -> dict:
    """``_best``'s options without rearrangement: every table set pinned, with its jokers."""
    return dict(
        virtual=tuple(f for m in table for t, f in zip(m.tiles, m.faces, strict=True) if t == joker),
        pinned=tuple((m.tiles, m.faces) for m in table),
    )


NO_PINS = ((), ())  # ``strict_pins``: the choice keeps no legal table


def strict_pins(table: tuple[Meld, ...], choice, profile: RuleProfile, rack_counts=None):
    """The pinned sets of a joker choice under ``take_from_joker_sets: false`` (``choice``: a
    (freed, face) per table joker, in table order): each set whose jokers are all kept, the
    jokers at their chosen faces; a set whose jokers are all freed is released. ``None``
    when a set keeps some of its jokers and frees others (a split: ``split_pins``), unless no
    legal play from a rack of ``rack_counts`` does so (``split_may_play``);
    ``NO_PINS`` when no legal table makes the choice: the chosen faces make a kept set invalid
    (two jokers of a group at one colour), or such a split cannot be played."""
    found = _strict(table, choice, profile, rack_counts, split=False)
    return found if found is None or found is NO_PINS else found[0]


def split_pins(table: tuple[Meld, ...], choice, profile: RuleProfile):
    """A split choice's pins (0.3.10). The referee wants every joker of the split set, the freed
    one too, in one set beside all its numbered tiles, and a kept joker keeps its face. Where the
    set is a run that frees one joker under ``reuse: two_rack_tiles``, that set holds the run with
    the freeing tile in the freed joker's place (a table copy there swaps with the freeing tile; a
    joker there keeps it: another choice), or, where the freed joker stood at the run's end, the
    run without that place, and the freed joker at a new place beside it with two rack items (the
    host of ``hosts.grown_pins``; under ``reuse: any`` it needs none, which that does not list). So: a
    list of (the pins of ``strict_pins`` with the split set as one of those runs, its index);
    ``NO_PINS`` as in ``strict_pins``; ``None`` for any other split (the search gives up)."""
    found = _strict(table, choice, profile, None, split=True)
    if found is None or found is NO_PINS:
        return found
    pinned, at, shorter = found
    if at is None:
        return None  # (no set is split: ``strict_pins`` answers such a choice)
    variants = [(pinned, at)]
    if shorter is not None:
        variants.append((pinned[:at] + (shorter,) + pinned[at + 1 :], at))
    return variants


def _strict(table, choice, profile: RuleProfile, rack_counts, *, split: bool):
    """``strict_pins`` (``split=False``) and ``split_pins``: (pins, the split set's index or None,
    the split set less its freed joker's place where that is the run's end, else None),
    ``NO_PINS`` or None."""
    ts = profile.tileset
    joker = ts.joker
    pinned: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    at = shorter = None
    hosted = profile.jokers.reuse == "two_rack_tiles"  # the split set hosts with two rack items
    k = 0
    for meld in table:
        n = meld.joker_count(joker)
        if not n:
            continue
        mine = choice[k : k + n]
        k += n
        n_freed = sum(freed for freed, _ in mine)
        if n_freed == n:
            continue
        if n_freed and not split:
            if rack_counts is not None and not split_may_play(meld, mine, rack_counts, profile):
                return NO_PINS
            return None
        if n_freed and (
            at is not None or n_freed > 1 or face_kind(meld.faces, profile) != "run" or not hosted
        ):
            return None
        kept = iter(mine)
        pairs = [
            (t, next(kept) if t == joker else (False, f)) for t, f in zip(meld.tiles, meld.faces, strict=True)
        ]
        tiles = tuple(f if freed else t for t, (freed, f) in pairs)  # a freed joker's place: its freeing tile
        faces = tuple(f for _, (_, f) in pairs)
        if not is_valid_meld_parts(tiles, faces, profile):
            return NO_PINS
        if n_freed:
            at = len(pinned)
            (i,) = [i for i, (_, (freed, _)) in enumerate(pairs) if freed]
            if _at_end(faces, faces[i], profile):
                shorter = (tiles[:i] + tiles[i + 1 :], faces[:i] + faces[i + 1 :])
        pinned.append((tiles, faces))
    return tuple(pinned), at, shorter


def _at_end(faces, face: int, profile: RuleProfile) -> bool:
    """Whether ``face`` is at an end of the run of ``faces`` (with wrap, a high 1 after the 13)."""
    ts = profile.tileset
    places = run_geometry(profile).positions(faces)
    if places is None:
        return False
    place = ts.values + 1 if ts.value_of(face) == 1 and places[-1] == ts.values + 1 else ts.value_of(face)
    return place in (places[0], places[-1])


def split_may_play(meld: Meld, mine, rack_counts, profile: RuleProfile) -> bool:
    """Whether a legal play may free some jokers of the strict set ``meld`` and keep the others
    (``mine``: its jokers' (freed, face), the freed ones' faces those of their freeing tiles). The
    referee then wants every joker of the set, the freed ones too, in one set ``S`` beside all its
    numbered tiles (``rules.jokers._try_freed``). Ruled out where (each a necessary condition, so
    no legal play is lost; 0.3.7):

    - ``reuse: new_set``: ``S`` holds table tiles and a kept table joker, never a new set;
    - a run, without wrap: a freed joker that moves (one that keeps its face is the choice that
      keeps it) goes outside the run's span, where every face is taken, and there is no room;
    - ``reuse: two_rack_tiles``: ``S`` needs two rack items beside the freeing tiles, rack jokers
      or rack copies of its codes (copies are interchangeable: those of the run's colour, of the
      group's value), and the rack holds fewer."""
    reuse = profile.jokers.reuse
    if reuse == "new_set":
        return False
    ts = profile.tileset
    run = face_kind(meld.faces, profile) == "run"
    n_freed = sum(freed for freed, _ in mine)
    if run and not profile.wrap:
        values = [ts.value_of(f) for f in meld.faces]
        if min(values) - 1 + ts.values - max(values) < n_freed:
            return False
    if reuse != "two_rack_tiles":
        return True
    key = ts.colour_of if run else ts.value_of  # what the set's codes share
    shared = key(next(f for t, f in zip(meld.tiles, meld.faces, strict=True) if t != ts.joker))
    items = int(rack_counts[ts.joker]) + sum(int(rack_counts[c]) for c in range(ts.joker) if key(c) == shared)
    items -= sum(1 for freed, f in mine if freed and key(f) == shared)  # the freeing tiles
    return items >= HOST_RACK_ITEMS


def less_pins(table_counts: np.ndarray, pins) -> np.ndarray | None:
    """The table counts less the pinned sets' faces (a kept joker counts at its face, as
    ``_pools`` puts it); ``None`` when the pins hold more of a face than the counts."""
    out = table_counts.copy()
    for pin in pins:
        for face in pin.faces:
            out[face] -= 1
    return None if (out < 0).any() else out
