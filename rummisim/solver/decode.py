"""Turning the DP's chosen steps back into sets (``decode``, ``build_table``), with the spare
jokers placed where a set has room; a tracked host pass's steps split into its host set
(``split_host``).

The DP places only the jokers some set needs; every other joker (the table's must stay, the
rack's score) is added afterwards where a set has room (``add_spare_jokers``). If they do not
fit, the decoding answers ``None`` and the search gives up (``GiveUp.DECODE``); ``solve`` then
searches the rack less one joker. Runs longer than V (wrap: 1 low and high in one run) are cut
in two. Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

import numpy as np

from rummisim.geometry import run_geometry
from rummisim.melds import MIN_NUMBERED_TILES, Meld, make_meld
from rummisim.profile import RuleProfile
from rummisim.solver.common import (
    HOST_RACK_ITEMS,
)
from rummisim.solver.host_fields import (
    host_lead,
)
from rummisim.solver.jokers_placed import add_spare_jokers, restore_jokers
from rummisim.solver.pins import Pin
from rummisim.solver.replay import replay, replay_tables
from rummisim.solver.tables import (
    G_AT,
    GROUP_NUMBERED,
    HOST2_GROUP_AT,
    HOST2_OP_AT,
    HOST_GROUP_AT,
    HOST_OP_AT,
    HOST_PROMOTE_AT,
    HOST_SHARE_AT,
    TYPE_A,
    X_AT,
    RunTypes,
    type_arrays,
)


def build_table(
    chain,
    profile: RuleProfile,
    types: RunTypes,
    n_pos: int,
    n_jokers: int,
    virtual: tuple[int, ...] = (),
    hosts: tuple[Meld, ...] = (),
    pins: tuple[Pin, ...] = (),
    host: HostMoves | None = None,
    kept_outside_hosts: bool = False,
) -> tuple[Meld, ...] | None:
    """The new table of the chosen steps: the DP's sets (the ``pins`` with their own tiles and
    what they took) and the ``hosts`` sets, the kept jokers (``virtual``, outside the pins)
    back as jokers, then the jokers no set needed added where a set has room
    (``jokers.max_per_set``). None when they do not fit; the empty table when the steps make
    no set (the table was empty: no play). ``host``: the steps of a search that tracked the
    host set of a freed joker (``split_host``): ``chain`` is then its steps less the host's;
    ``kept_outside_hosts``: the kept jokers go to other sets than its host runs where they can;
    under ``jokers.reuse: new_set`` they never go to the ``hosts`` sets or the host runs where
    another set takes them (a new set holds its freed joker and rack tiles only: a kept joker
    there is refused)."""
    decoded = decode(chain, profile, types, n_pos, pins, host)
    if decoded is None:
        return None
    runs, groups = decoded
    if not (runs or groups or hosts):
        # no set at all: a play with a set would score more, whatever jokers it leaves out,
        # so there is none (the jokers counted as placed have nowhere to go)
        return ()
    joker = profile.tileset.joker
    pinned = sum(pin.jokers for pin in pins)  # the pins' own jokers are not the DP's
    spare = n_jokers + pinned - sum(tiles.count(joker) for tiles, _ in runs + groups)
    if spare < 0:
        return None
    host_sets = [(list(h.tiles), list(h.faces)) for h in hosts]
    avoid: frozenset[int] = frozenset()
    new_set = profile.jokers.reuse == "new_set"  # a host set holds its freed joker and rack tiles only
    if host is not None and (kept_outside_hosts or new_set):
        avoid = frozenset(range(len(runs) - len(host.runs), len(runs)))  # the last runs (``decode``)
    if new_set:
        avoid |= frozenset(range(len(runs) + len(groups), len(runs) + len(groups) + len(host_sets)))
    if virtual and not restore_jokers(runs + groups + host_sets, virtual, profile, avoid, runs):
        return None
    if not add_spare_jokers(runs, groups, spare, profile):
        return None
    melds: list[Meld] = []
    for tiles, faces in runs + groups + host_sets:
        pieces = _split_long(tiles, faces, profile)
        if pieces is None:
            return None
        for tiles_part, faces_part in pieces:
            meld = _meld(tuple(tiles_part), tuple(faces_part), profile)
            if meld is None:
                return None
            melds.append(meld)
    return tuple(sorted(melds, key=lambda m: (m.faces, m.tiles)))


def decode(chain, profile: RuleProfile, types: RunTypes, n_pos: int, pins: tuple[Pin, ...] = (), host=None):
    """Replay the chosen steps (action words, first step first) into runs and groups (lists of
    tiles and faces), or None: the compiled ``replay`` walks the steps and this builds the sets
    it lists, the ``pins`` with their own tiles and those they took. ``host`` (``split_host``):
    the host runs join the runs, last, and the groups of its value hold the freed joker beside
    two rack items."""
    ts = profile.tileset
    C, joker = ts.colours, ts.joker
    steps = np.asarray(chain, dtype=np.int64)
    if steps.shape[0] != n_pos * (C + 1):
        return None
    lift_at, lift_kind, _ = _lift_of(host)
    out = replay(steps, n_pos, C, *replay_tables(pins, n_pos, profile, types), lift_at, lift_kind)
    if out is None:
        return None
    closed, at, to_groups, group_jokers, taken, lifted = (a.tolist() for a in out)
    codes = _codes(profile)
    pinned_runs = [pin for pin in pins if pin.kind == "run"] if pins else []
    runs: list[tuple[list[int], list[int]]] = []
    for c, first, n, mask, pin, off in closed:
        faces = list(codes[c][first : first + n])
        tiles = _masked(faces, mask, joker)
        if pin >= 0:
            own = pinned_runs[pin].tiles
            tiles[off : off + len(own)] = own
            if n > ts.values:  # with wrap, a pinned run of the low 1 to the high 1 is cut outside the pin
                pieces = _split_pinned(tiles, faces, (off, len(own)), profile)
                if pieces is None:
                    return None
                runs.extend(pieces)
                continue
        runs.append((tiles, faces))
    groups: list[tuple[list[int], list[int]]] = []
    for p, counts, n_jokers in zip(at, to_groups, group_jokers, strict=True):
        group_tiles = [codes[c][p + 1] for c, n in enumerate(counts) for _ in range(n)]
        formed = _value_groups(group_tiles, n_jokers, p, host, profile)
        if formed is None:
            return None
        groups.extend(formed)
    for pin, took in zip([pin for pin in pins if pin.kind != "run"] if pins else [], taken, strict=True):
        extra = [codes[c][pin.first + 1] for c in range(C) if took[c]]
        groups.append((list(pin.tiles) + extra, list(pin.faces) + extra))
    if host is not None:
        prefix = None
        if host.promoted is not None:
            first, n, mask = lifted
            if n == 0:
                return None
            faces = list(codes[ts.colour_of(host.runs[0][1][0])][first : first + n])
            prefix = (_masked(faces, mask, joker), faces, first)
        host_runs = _host_runs(host, prefix, profile)
        if host_runs is None:
            return None
        runs.extend(host_runs)
    return runs, groups


def _masked(faces: list[int], mask: int, joker: int) -> list[int]:
    """A run's tiles from its faces: a joker where bit ``i`` of ``mask`` is set (a new list)."""
    return [joker if mask >> i & 1 else f for i, f in enumerate(faces)] if mask else faces[:]


@lru_cache(maxsize=64)
def _codes(profile: RuleProfile) -> tuple[tuple[int, ...], ...]:
    """Per colour, the code at each run position (``RunGeometry.codes``)."""
    geo = run_geometry(profile)
    return tuple(tuple(geo.codes(c)) for c in range(profile.tileset.colours))


def _lift_of(host) -> tuple[int, int, int]:
    """``HostMoves.promoted`` of a decoding's ``host``: (step, type, leading jokers), the step -1
    where no open run was promoted into the host run."""
    return host.promoted if host is not None and host.promoted is not None else (-1, 0, 0)


def _host_runs(host, prefix, profile: RuleProfile):
    """The tracked host runs as (tiles, faces) lists; with ``prefix`` (the open run promoted into
    the first, ``HostMoves.promoted``: its tiles, faces and first position, 1-based), that run's
    tiles first, then the host run's own, with the leading jokers it closed with at the top
    before them; None where the two do not meet."""
    runs = [(list(tiles), list(faces)) for tiles, faces in host.runs]
    if prefix is None:
        return runs
    tiles, faces, first = prefix
    lead = host.promoted[2]
    codes_c = run_geometry(profile).codes(profile.tileset.colour_of(runs[0][1][0]))
    end = first + len(faces)
    if end >= len(codes_c) or codes_c[end] != runs[0][1][0] or first - lead < 1:
        return None
    leading = [codes_c[q] for q in range(first - lead, first)]
    runs[0] = ([profile.tileset.joker] * lead + tiles + runs[0][0], leading + faces + runs[0][1])
    return runs


def _value_groups(tiles: list[int], jokers: int, p: int, host, profile: RuleProfile):
    """The groups of the tiles the steps of position ``p`` set aside (``_groups``), those of a
    tracked host set there holding their freed jokers (``_host_groups``); None if none form."""
    joining = [colours for value, colours in host.groups if value == p] if host is not None else []
    if joining:
        return _host_groups(tiles, jokers, joining[0], host.rack_jokers, profile, freed=len(joining))
    return _groups(tiles, jokers, profile)


def _split_pinned(tiles, faces, where: tuple[int, int], profile: RuleProfile):
    """A run longer than the values cut into two valid runs, the pin at ``where`` (index of
    its first tile, length) whole in one of them; None if there is no such cut."""
    lo, length = where
    cut = _cut(tiles, profile, keep_whole=(lo, lo + length))
    if cut is None:
        return None
    return (tiles[:cut], faces[:cut]), (tiles[cut:], faces[cut:])


def _cut(tiles, profile: RuleProfile, keep_whole: tuple[int, int] = (0, 0)) -> int | None:
    """The first place a run can be cut into two valid runs (each within the values, holding a
    numbered tile), not inside ``keep_whole`` (a half-open range of indexes); None if none."""
    ts = profile.tileset
    need = profile.runs.min_length
    for cut in range(need, len(tiles) - need + 1):
        if keep_whole[0] < cut < keep_whole[1]:
            continue
        left, right = tiles[:cut], tiles[cut:]
        if (
            len(left) <= ts.values
            and len(right) <= ts.values
            and sum(t != ts.joker for t in left) >= MIN_NUMBERED_TILES
            and sum(t != ts.joker for t in right) >= MIN_NUMBERED_TILES
        ):
            return cut
    return None


@lru_cache(maxsize=65536)
def _meld(tiles: tuple[int, ...], faces: tuple[int, ...], profile: RuleProfile) -> Meld | None:
    """``make_meld``, remembered (the same sets come back turn after turn), or None."""
    try:
        return make_meld(tiles, faces, profile)
    except ValueError:
        return None


def _groups(tiles: list[int], jokers: int, profile: RuleProfile) -> list[tuple[list[int], list[int]]] | None:
    """Groups of distinct colours from same-value tiles plus the jokers they need (round
    robin over ``k`` groups of ``GROUP_NUMBERED`` or more tiles, the ``k`` that needs
    exactly ``jokers``, at most ``jokers.max_per_set`` in a group), as new lists."""
    formed = _group_split(tuple(sorted(tiles)), jokers, profile)
    return None if formed is None else [(list(t), list(f)) for t, f in formed]


@lru_cache(maxsize=1 << 14)
def _group_split(tiles: tuple[int, ...], jokers: int, profile: RuleProfile):
    """``_groups`` of sorted tiles, remembered (tuples: callers get copies)."""
    if not tiles:
        return () if jokers == 0 else None
    ts = profile.tileset
    lo, hi = profile.groups.min_size, profile.groups.max_size
    cap = profile.jokers.max_per_set
    value = ts.value_of(tiles[0])
    for k in range(1, len(tiles) // GROUP_NUMBERED + 1):
        members: list[list[int]] = [[] for _ in range(k)]
        for idx, t in enumerate(tiles):
            members[idx % k].append(t)
        if any(len(set(m)) != len(m) or len(m) > hi for m in members):
            continue
        need = [max(0, lo - len(m)) for m in members]
        if sum(need) != jokers or max(need) > cap:
            continue
        out = []
        for m, j in zip(members, need, strict=True):
            colours = {ts.colour_of(t) for t in m}
            missing = [ts.code(c, value) for c in range(ts.colours) if c not in colours][:j]
            out.append((tuple(m + [ts.joker] * j), tuple(m + missing)))
        return tuple(out)
    return None


def _split_long(
    tiles: list[int], faces: list[int], profile: RuleProfile
) -> list[tuple[list[int], list[int]]] | None:
    """A run longer than the values (wrap mode: 1 low and high) cut into two valid runs."""
    if len(tiles) <= profile.tileset.values:
        return [(tiles, faces)]
    cut = _cut(tiles, profile)
    if cut is None:
        return None
    return [(tiles[:cut], faces[:cut]), (tiles[cut:], faces[cut:])]


@dataclass(frozen=True)
class HostMoves:
    """The host sets of the freed jokers in a search that tracked them (``split_host``): the
    runs among them as (tiles, faces), the others as the position whose groups hold the freed
    joker with the colours that put a rack copy in those groups, and the rack jokers among the
    DP's jokers."""

    runs: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    groups: tuple[tuple[int, tuple[int, ...]], ...]
    rack_jokers: int
    # the host run promoted out of the open runs (``host_fields.promoted_run``): (the step, the
    # type of the open run whose tiles come first, the leading jokers it closes with at the top)
    promoted: tuple[int, int, int] | None = None


def split_host(chain, tgrid, n_pos: int, profile: RuleProfile, types: RunTypes, n_rj: int, fields: int = 1):
    """The tracked host sets (``fields``: one or two freed jokers) taken out of the chosen
    steps: (the steps with the hosts' tiles and flags removed, as ``decode`` reads them;
    ``HostMoves``), or None where they are not consistent."""
    ts = profile.tileset
    C, joker = ts.colours, ts.joker
    geo = run_geometry(profile)
    steps = [int(a) for a in chain]
    op_at = (HOST_OP_AT, HOST2_OP_AT)[:fields]
    group_at = (HOST_GROUP_AT, HOST2_GROUP_AT)[:fields]
    # per field: the open run (colour, first position, items), its type, rack items, freed joker
    run: list[tuple[int, int, list[tuple[int, int]]] | None] = [None] * fields
    state = [(TYPE_A, 0, 0)] * fields
    made: list[tuple[int, int, list[tuple[int, int]]] | None] = [None] * fields
    joined: list[tuple[int, tuple[int, ...]] | None] = [None] * fields
    taken = False  # the second freed joker sits in the first host set
    promoted: tuple[int, int] | None = None  # (step, type) of the open run promoted into it
    lead_promoted = 0
    k = 0
    for p in range(n_pos):
        in_groups = []
        for c in range(C):
            action = steps[k]
            for at in op_at:
                action &= ~(15 << at)
            action &= ~(1 << HOST_SHARE_AT) & ~(7 << HOST_PROMOTE_AT)
            lifted = (steps[k] >> HOST_PROMOTE_AT) & 7  # an open run promoted into the host run
            used = (action >> X_AT) & 15
            ops = [(steps[k] >> at) & 15 for at in op_at]
            # the rack copies played here that count as each host run's rack item (one copy
            # that both runs take counts for the one the share bit names)
            counts = [used > tgrid[p, c]] * fields
            # the rack copies of this face in the groups (those a host run does not count)
            copies = min((action >> G_AT) & 15, used - tgrid[p, c])
            waiting = fields == 2 and run[1] is None and made[1] is None and joined[1] is None
            if (
                fields == 2
                and ops[0] in (1, 2)
                and (ops[1] in (1, 2) or (ops[1] == 0 and copies > 0 and waiting))
                and used - tgrid[p, c] == 1
            ):
                second = bool((steps[k] >> HOST_SHARE_AT) & 1)
                counts = [not second, second]
            if ops[0] in (1, 2) and counts[0]:
                copies = min(copies, used - tgrid[p, c] - 1)
            in_groups.extend([c] * max(0, copies))
            face = geo.code_at(c, p + 1)
            for f, op in enumerate(ops):
                if not op:
                    continue
                if op in (1, 2):  # the host run's tile: not one the other runs take
                    action -= 1 << X_AT
                if op == 1 or (f == 0 and lifted):
                    if run[f] is not None or made[f] is not None or joined[f] is not None:
                        return None
                    run[f] = (c, p, [])
                    state[f] = (TYPE_A, 0, 0) if op == 1 else (lifted - 1, 0, 0)
                    if op != 1:
                        promoted = (k, lifted - 1)
                current = run[f]
                if current is None or current[0] != c:
                    return None
                kind, items, freed = state[f]
                if op in (1, 2):
                    if op == 2:
                        kind = types.after_tile[kind]
                    items += counts[f]
                    current[2].append((face, face))
                elif op in (3, 4):
                    kind = types.after_joker[kind]
                    items += op == 3
                    if op == 4 and freed:  # the second freed joker joins the first's set
                        taken = True
                    freed |= op == 4
                    current[2].append((joker, face))
                else:  # closed here, with jokers appended at this position and the next
                    if op >= 8:  # the second freed joker among them
                        taken = True
                    for q in range(p, p + op - (7 if op >= 8 else 5)):
                        if q >= n_pos:
                            return None
                        current[2].append((joker, geo.code_at(c, q + 1)))
                    made[f], run[f] = current, None
                state[f] = (kind, items, freed)
            steps[k] = action
            k += 1
        for f, at in enumerate(group_at):
            if (steps[k] >> at) & 1:
                joined[f] = (p, tuple(in_groups))
                steps[k] &= ~(1 << at)
        k += 1
    if taken and (run[1] is not None or made[1] is not None or joined[1] is not None):
        return None
    for f in range(fields):
        current = run[f]
        if current is not None:  # still open at the last position: leading jokers close it
            kind, items, freed = state[f]
            # the second freed joker in no set: it leads the first host run
            alone = fields == 2 and run[1] is None and made[1] is None and joined[1] is None
            extra = int(f == 0 and alone and not taken)
            taken = taken or extra == 1
            lead = host_lead(kind, min(items, HOST_RACK_ITEMS), freed, n_rj, type_arrays(types)[3], extra)
            if lead < 0 or current[1] - lead < 0:
                return None
            c, first, members = current
            if f == 0 and promoted is not None:  # the jokers lead its open run's tiles (``decode``)
                lead_promoted = lead
                made[f] = current
                continue
            leading = [(joker, geo.code_at(c, q + 1)) for q in range(first - lead, first)]
            made[f] = (c, first - lead, leading + members)
        elif made[f] is None and joined[f] is None and not (f == 1 and taken):
            return None  # a freed joker is in no set
    host_runs = tuple((tuple(t for t, _ in m[2]), tuple(fc for _, fc in m[2])) for m in made if m is not None)
    lifted_run = None if promoted is None else (*promoted, lead_promoted)
    return steps, HostMoves(host_runs, tuple(j for j in joined if j is not None), n_rj, lifted_run)


def _host_groups(
    tiles: list[int], jokers: int, rack_colours, rack_jokers: int, profile: RuleProfile, freed: int = 1
):
    """``_groups`` of a value whose groups hold ``freed`` freed jokers (1 or 2), each in a group
    with two rack items, or two in one such group: a group of distinct colours with one or more
    of the ``jokers`` and, besides the freed ones in it, two rack items (tiles of
    ``rack_colours``, whose rack copy it takes, or rack jokers), and the groups of the rest (the
    other freed joker's, then ``_groups``); None if there are none. Under ``jokers.reuse:
    new_set`` a host group holds one freed joker, rack copies and rack jokers only."""
    ts = profile.tileset
    lo, hi = profile.groups.min_size, profile.groups.max_size
    cap = profile.jokers.max_per_set
    value = ts.value_of(tiles[0]) if tiles else 0
    new_set = profile.jokers.reuse == "new_set"
    most = 1 if new_set else min(freed, 2)  # freed jokers one group holds
    colours = sorted({ts.colour_of(t) for t in tiles})
    for size in range(GROUP_NUMBERED, len(colours) + 1):
        for chosen in combinations(colours, size):
            if new_set and not all(c in rack_colours for c in chosen):
                continue
            for n_j, held in product(range(1, min(cap, jokers) + 1), range(most, 0, -1)):
                if not lo <= size + n_j <= hi or held > n_j:
                    continue
                from_rack = min(rack_jokers, n_j - held)
                items = sum(c in rack_colours for c in chosen) + from_rack
                if items < HOST_RACK_ITEMS or (new_set and from_rack < n_j - held):
                    continue
                rest = list(tiles)
                for c in chosen:
                    rest.remove(ts.code(c, value))
                if held < freed:  # the other freed joker's group, from the rack copies left
                    left = list(rack_colours)
                    for c in chosen:
                        if c in left:
                            left.remove(c)
                    formed = _host_groups(
                        rest, jokers - n_j, tuple(left), rack_jokers - from_rack, profile, freed - held
                    )
                else:
                    formed = _groups(rest, jokers - n_j, profile)
                if formed is None:
                    continue
                members = [ts.code(c, value) for c in chosen]
                missing = [ts.code(c, value) for c in range(ts.colours) if c not in chosen][:n_j]
                return [(members + [ts.joker] * n_j, members + missing)] + formed
    return None
