"""The host fields of the tracked host pass (``jokers._tracked_host``): how one or two freed
table jokers' host sets ride in the kernel's key (``kernel._kernel``), their moves at a colour
step (``_host_move``), at the groups of a value (``_host_group_jokers``) and at the top
(``host_lead``), and which host runs beat others (``host_beats``, read by
``kernel._drop_dominated``); ``host_record`` builds the kernel's record of them for a search (the
joker counts the groups of a value may hold, ``_group_totals`` and ``_pair_totals``). The moves
are compiled with numba; pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numba
import numpy as np

from rummisim.profile import RuleProfile
from rummisim.solver.common import (
    HOST_RACK_ITEMS,
)
from rummisim.solver.tables import GROUP_NUMBERED, RunTypes, _Tables, type_arrays

# The host set of one freed table joker (``jokers.reuse: two_rack_tiles``): the key's host
# field is 0..5 before it exists (the rack copies of the current value in its groups, as
# ``_pre_count`` reads them: 0 none, 1..2 of one colour, 3..5 two to four of two colours or more;
# with one freed joker only 0, 1 and 3, the colours), HOST_DONE once it is made, else the run it
# is: HOST_ACTIVE + colour * HOST_PER_COLOUR + type * 6 + rack items (0..2) * 2 + freed joker in
# it (0/1).
HOST_DONE = 6


HOST_ACTIVE = 7


HOST_PER_COLOUR = 24  # 4 untracked run types x 3 counts of rack items x freed joker or not


MAX_HOST_COLOURS = 5  # colours whose host runs the field holds (HOST_ACTIVE + 5 * 24 <= 127)


HOST_MASK = 127


HOST_OPS = 10  # a host run's moves at its colour step: see ``_host_move``


HOST_BITS = 7


HOST_TYPES = ("A", "C", "D", "E")  # the run types a host run takes (untracked joker counts)


class HostFields(NamedTuple):
    """The kernel's record of a search that tracks the host sets of one or two freed table
    jokers in the key (``host_record``; ``_host_move``)."""

    at: int  # the host field's first bit in the key
    n_rj: int  # the rack jokers among the DP's jokers
    after_tile: np.ndarray  # per run type, the type after a tile
    after_joker: np.ndarray  # ... after a joker (-1: none)
    closes: np.ndarray  # ... whether it may close
    top_jokers: np.ndarray  # ... leading jokers that close it at the last position (-1: none)
    group_totals: np.ndarray  # per (n, m) of a value's groups, the joker counts they may hold, as bits
    pair_totals: np.ndarray  # ... where one group holds two jokers or more and two numbered tiles
    second_at: int  # the second host field's first bit, or -1 (one freed joker)
    beats: np.ndarray  # (types, types) a host run of the first type beats one of the second (``host_beats``)
    rack_only: bool  # ``jokers.reuse: new_set``: a host set takes rack items only, one freed joker each
    promote: bool  # one freed joker, not ``rack_only``: its host run starts at a rack item (``promoted_run``)


@numba.njit(cache=True, nogil=True)
def host_run(h):
    """A host field that is a run (``HOST_ACTIVE`` and above) as (its colour's first value, run
    type, rack items, freed joker in it): ``run_field`` puts them back together."""
    r = (h - HOST_ACTIVE) % HOST_PER_COLOUR
    return h - r, r // 6, (r // 2) % 3, r % 2


@numba.njit(cache=True, nogil=True)
def run_field(base, kind, items, freed):
    """The host field of a run of one colour (``base``: ``host_run``'s first value) with this run
    type, rack items (0..2) and freed joker in it or not."""
    return base + kind * 6 + items * 2 + freed


@numba.njit(cache=True, nogil=True, inline="always")
def _host_move(
    hstate, op, c, rack_here, copies, n_rj, spare_tile, after_tile, after_joker, closes, other, two, rack_only
):  # fmt: skip
    """One move of a host field at a colour step (colour ``c``): (its new value, tiles it takes
    from those used here, jokers it places, whether it took the other freed joker), the value -1
    for no such move. Before the host set exists, ``op`` 0 is no move (a group here that takes a
    rack copy of the face counts a rack colour) and 1 starts it with a tile; a host run of this
    colour must take a tile (2), a rack joker (3), the freed joker (4; once it holds it, the other
    freed joker where that has no set yet, ``other``), or close (5..7: with 0..2 jokers appended
    at its end, the freed joker first, then a rack joker; 8..9: with 1..2 appended, the other
    freed joker among them), which makes it the host set when it holds the freed joker and two
    rack items. A rack copy of the face is used here (``rack_here``): one of them is the host's
    tile; ``copies``: the rack copies the groups of this value take here (counted as copies too
    where two freed jokers are tracked, ``two``). ``rack_only`` (``jokers.reuse: new_set``): the
    host run's tiles must be rack copies (the callers never pass ``other`` then). Inlined where
    the kernel calls it, as ``kernel._insert`` is (0.3.6): a call passed its three arrays' fields
    on the stack, once per host move of every state, which was half of a pass that tracks two
    freed jokers (a `ramino-discard` opening: 0.19 s, inlined 0.09 s)."""
    if rack_only and op in (1, 2) and not rack_here:
        return -1, 0, 0, False
    if hstate < HOST_DONE:
        if op == 0:
            return _pre_count(hstate, copies, two), 0, 0, False
        return HOST_ACTIVE + c * HOST_PER_COLOUR + (2 if rack_here else 0), 1, 0, False
    if hstate == HOST_DONE or (hstate - HOST_ACTIVE) // HOST_PER_COLOUR != c:
        return hstate, 0, 0, False
    at, kind, items, freed = host_run(hstate)
    if op == 2:
        return run_field(at, after_tile[kind], min(2, items + (1 if rack_here else 0)), freed), 1, 0, False
    if op == 3:
        if n_rj == 0 or spare_tile or after_joker[kind] < 0:
            return -1, 0, 0, False
        return run_field(at, after_joker[kind], min(2, items + 1), freed), 0, 1, False
    if op == 4:
        if after_joker[kind] < 0 or (freed and not other):
            return -1, 0, 0, False
        return run_field(at, after_joker[kind], items, 1), 0, 1, freed == 1
    if op < 2 or not closes[kind]:
        return -1, 0, 0, False
    took = op >= 8
    if took and not other:
        return -1, 0, 0, False
    appended = op - 7 if took else op - 5
    # the appended jokers: this host's freed joker (where not in yet), the other's, rack jokers
    rack_jokers = appended - (1 if appended and not freed else 0) - (1 if took else 0)
    if rack_jokers < 0 or rack_jokers > n_rj or not (freed or appended) or items + rack_jokers < 2:
        return -1, 0, 0, False
    return HOST_DONE, 0, appended, took


# the moves that promote an open run into the host run: a rack item, a rack joker, the freed joker
PROMOTE_MOVES = 3


@numba.njit(cache=True, nogil=True)
def promoted_run(c, kind, op, rack_here):
    """An open run of colour ``c`` and type ``kind`` that becomes the host run at its first rack
    item or the freed joker (``HostFields.promote``; ``op``: the kernel's op, 2 and above, of a
    host field with no set yet): (the host field it would be with neither, the host move it
    makes, ``_host_move``'s 2 a tile that is a rack item, 3 a rack joker, 4 the freed joker), the
    move -1 where the tile is no rack item (``rack_here``). A run of table tiles alone is any
    open run, so the host run need not be told apart from the others until then: a tracked pass
    that started it at its first tile carried, per open run of table tiles, one state more."""
    move = 2 + (op - 2) % PROMOTE_MOVES
    if move == 2 and not rack_here:
        return 0, -1
    return run_field(HOST_ACTIVE + c * HOST_PER_COLOUR, kind, 0, 0), move


def host_beats(after_tile, after_joker, closes, top_jokers) -> np.ndarray:
    """Per pair of run types (``a``, ``b``), whether a host run of type ``a`` beats one of type
    ``b`` (``_drop_dominated``): every move of ``b`` is one of ``a`` too, into a type that is as
    good, it closes where ``b`` does and at the top with as few leading jokers, and not the other
    way round. The greatest such relation (a simulation), less the pairs that simulate each other."""
    n = len(after_tile)
    sim = np.ones((n, n), dtype=np.bool_)
    changed = True
    while changed:
        changed = False
        for a in range(n):
            for b in range(n):
                if not sim[a, b]:
                    continue
                ok = sim[after_tile[a], after_tile[b]] and (closes[a] or not closes[b])
                if after_joker[b] >= 0:
                    ok = ok and after_joker[a] >= 0 and sim[after_joker[a], after_joker[b]]
                if top_jokers[b] >= 0:
                    ok = ok and 0 <= top_jokers[a] <= top_jokers[b]
                if not ok:
                    sim[a, b] = False
                    changed = True
    return sim & ~sim.T


@numba.njit(cache=True, nogil=True)
def _host_ops(hstate, c, other):
    """The moves of a host field at a colour step of colour ``c`` (``_host_move``): no host set
    yet, nothing or one starts here; the host set is a run of this colour, ``HOST_OPS`` (less
    the two closes with the other freed joker, where it cannot take that: ``other``); else
    none (the field stays)."""
    if hstate < HOST_DONE:
        return 2
    if hstate >= HOST_ACTIVE and (hstate - HOST_ACTIVE) // HOST_PER_COLOUR == c:
        return HOST_OPS if other else HOST_OPS - 2
    return 1


@numba.njit(cache=True, nogil=True)
def _host_state(key, at):
    """The host field at bit ``at`` of ``key``; HOST_DONE where there is none (``at`` -1)."""
    return (key >> at) & HOST_MASK if at >= 0 else HOST_DONE


@numba.njit(cache=True, nogil=True)
def _pre_count(pre, copies, two):
    """A host field before its set (0..5, see HOST_DONE) after ``copies`` rack copies of one
    colour join the groups: one more colour, ``copies`` more copies (four at most, two of one
    colour); without ``two`` the colours alone (0, 1, 3)."""
    if copies <= 0:
        return pre
    colours = min(2, _pre_colours(pre) + 1)
    total = min(4, _pre_copies(pre) + copies) if two else colours
    if colours == 1:
        return min(total, 2)
    return 1 + max(total, 2)


@numba.njit(cache=True, nogil=True)
def _pre_colours(pre):
    """The colours (at most 2) of a host field before its set (``_pre_count``)."""
    return 0 if pre == 0 else (1 if pre <= 2 else 2)


@numba.njit(cache=True, nogil=True)
def _pre_copies(pre):
    """The rack copies (at most 4) of a host field before its set (``_pre_count``)."""
    return pre if pre <= 2 else pre - 1


@numba.njit(cache=True, nogil=True)
def _lowest_bit(bits, at_least):
    """The lowest bit set in ``bits`` at ``at_least`` or above; -1 where none."""
    for z in range(at_least, 62):
        if (bits >> z) & 1:
            return z
    return -1


@numba.njit(cache=True, nogil=True)
def _host_group_jokers(jg, pre, n_rj, allowed, freed, totals, pairs, rack_only):
    """Jokers the groups of a value take when ``freed`` freed jokers (1 or 2) join them, each
    beside two rack items (rack copies in those groups, ``pre`` as ``_pre_count`` counts them, or
    rack jokers), or both in one group beside two: the fewest that some groups of the value's
    tiles hold (``totals``, as bits; ``pairs``: where one group holds two jokers or more and two
    numbered tiles), at least the ``jg`` they need and the freed jokers (and the rack jokers
    among the rack items); -1 where none. ``rack_only`` (``jokers.reuse: new_set``): each freed
    joker in a group of its own. The groups that form with that many are a relaxation (the
    colours of their tiles are not known here, nor, under ``rack_only``, that a host group holds
    no table tile): the decoding finds them, else the play is refused."""
    if not allowed:
        return -1
    colours = _pre_colours(pre)
    if freed == 1:
        if colours >= 2:
            return _lowest_bit(totals, max(jg, 1))
        if colours == 1 and n_rj > 0:
            return _lowest_bit(totals, max(jg, 2))
        return -1
    best = -1
    if not rack_only:  # both in one group beside two rack copies (or one and a rack joker)
        if colours >= 2:
            best = _lowest_bit(pairs, max(jg, 2))
        elif colours == 1 and n_rj > 0:
            best = _lowest_bit(totals, max(jg, 3))
    # each in a group of its own beside two rack items: four, rack jokers for the copies missing
    rack_jokers = max(0, 2 * HOST_RACK_ITEMS - _pre_copies(pre))
    if colours >= 1 and rack_jokers <= n_rj:
        apart = _lowest_bit(totals, max(jg, freed + rack_jokers))
        if apart >= 0 and (best < 0 or apart < best):
            best = apart
    return best


@numba.njit(cache=True, nogil=True)
def host_lead(kind, items, freed, n_rj, top_jokers, extra=0):
    """Leading jokers that close a host run still open at the last position (its type
    ``kind``, ``items`` rack items, the freed joker in it or not; ``extra``: another freed joker
    that must lead it too): a run short of a set closes with them, or the freed jokers (and a
    rack joker, for a second rack item) lead a valid run; -1 where none makes it the host set."""
    lead = top_jokers[kind]
    if lead < 0:
        return -1
    need = (0 if freed else 1) + extra  # the freed jokers lead first
    lead = max(lead, need)
    rack_jokers = lead - need
    if items + rack_jokers < HOST_RACK_ITEMS:
        lead += 1
        rack_jokers += 1
    if rack_jokers > n_rj or items + rack_jokers < HOST_RACK_ITEMS:
        return -1
    return lead


def host_record(tab: _Tables, n_rj: int, profile: RuleProfile, freed: int) -> HostFields:
    """The kernel's record of a search that tracks the host sets of ``freed`` (one or two)
    freed jokers: the fields sit above the key's other fields (with wrap, the kernel's
    per-colour low counts are unused: ``wrap.split_arrays``)."""
    at = tab.kernel.low_at
    after_tile, after_joker, closes, top_jokers = type_arrays(tab.types)
    shape = tab.kernel.group_jokers.shape
    totals, pairs = _group_totals(profile, shape), _pair_totals(profile, shape)
    second = at + HOST_BITS if freed == 2 else -1
    beats = _host_beats(tab.types)
    rack_only = profile.jokers.reuse == "new_set"
    promote = freed == 1 and not rack_only
    arrays = (after_tile, after_joker, closes, top_jokers, totals, pairs)
    return HostFields(at, n_rj, *arrays, second, beats, rack_only, promote)


@lru_cache(maxsize=16)
def _host_beats(types: RunTypes) -> np.ndarray:
    """``host_beats`` of the profile's run types, once per types (shared: never written)."""
    return host_beats(*type_arrays(types))


@lru_cache(maxsize=64)
def _group_totals(profile: RuleProfile, shape: tuple[int, int]) -> np.ndarray:
    """Per (tiles of a value set aside for groups, most of one colour): bit ``z`` set where they
    form groups of distinct colours holding ``z`` jokers in all (each group ``min_size`` to
    ``max_size`` items, at most ``jokers.max_per_set`` jokers, ``GROUP_NUMBERED`` numbered
    tiles or more)."""
    lo, hi = profile.groups.min_size, profile.groups.max_size
    cap = profile.jokers.max_per_set
    out = np.zeros(shape, dtype=np.int64)
    for n in range(shape[0]):
        for m in range(shape[1]):
            if n == 0:
                out[n, m] = 1
                continue
            for k in range(max(m, 1), n // GROUP_NUMBERED + 1):
                small, extra = divmod(n, k)
                span = _joker_span([small + 1] * extra + [small] * (k - extra), lo, hi, cap)
                if span is not None:
                    out[n, m] |= _bit_range(*span)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=64)
def _pair_totals(profile: RuleProfile, shape: tuple[int, int]) -> np.ndarray:
    """``_group_totals`` where one group holds two jokers or more beside two numbered tiles or
    more (two freed jokers in one host group): over every split of the tiles into groups of
    ``GROUP_NUMBERED`` to ``min(max_size, colours)`` tiles, ``m`` groups or more (a relaxation:
    the colours of the tiles are not known, so some splits may not form)."""
    lo, hi = profile.groups.min_size, profile.groups.max_size
    cap = profile.jokers.max_per_set
    widest = min(hi, profile.tileset.colours)
    out = np.zeros(shape, dtype=np.int64)

    def splits(n: int, smallest: int):  # sizes of groups in rising order, summing to n
        if n == 0:
            yield ()
        for size in range(smallest, min(n, widest) + 1):
            for rest in splits(n - size, size):
                yield (size, *rest)

    for n in range(shape[0]):
        for sizes in splits(n, GROUP_NUMBERED):
            for d, pair in enumerate(sizes):
                pair_room = min(hi - pair, cap)  # the jokers the pair's group may hold
                span = _joker_span(sizes[:d] + sizes[d + 1 :], lo, hi, cap)
                if pair_room < 2 or span is None:
                    continue
                bits = _bit_range(span[0] + 2, span[1] + pair_room)
                for m in range(min(len(sizes), shape[1] - 1) + 1):
                    out[n, m] |= bits
    out.setflags(write=False)
    return out


def _joker_span(sizes, lo: int, hi: int, cap: int) -> tuple[int, int] | None:
    """The fewest and the most jokers groups of these numbered ``sizes`` hold in all (each group
    ``lo`` to ``hi`` items, at most ``cap`` jokers); None where one of them cannot be a group."""
    need = [max(0, lo - size) for size in sizes]
    room = [min(hi - size, cap) for size in sizes]
    if any(a > b for a, b in zip(need, room, strict=True)):
        return None
    return sum(need), sum(room)


def _bit_range(first: int, last: int) -> int:
    """Bits ``first`` to ``last`` set (none where ``last < first``)."""
    return ((1 << (last + 1)) - 1) & ~((1 << first) - 1) if last >= first else 0
