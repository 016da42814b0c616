"""Jokers: which faces make tiles a set, and which moves of table jokers are legal.

``assign_jokers`` finds faces for the jokers among some tiles (a written set,
``"R5 R6 J"``). ``joker_acceptable`` says which faces a table joker may keep and
which rack tiles free it, and ``check_table_jokers`` (called by
``rummisim.rules.moves.validate_move``) checks a whole move against the profile's
``jokers`` rules:

Under ``table_jokers: locked`` every joker that was on the table keeps standing
for its tile (in a group that is not full, for its value in any missing colour
when ``group_any_missing_colour``), unless a matching tile from the rack is
played this turn, which frees it. Freeing needs the initial meld to be made, or
happens in the opening turn itself where the opening may touch the table (004:
"may add them immediately after coming out with the initial 40"; the opening
sets must still reach the threshold from rack tiles alone), or
``retrieve_before_initial_meld``. A freed joker must sit in a set holding at
least two other tiles from the rack when ``reuse: two_rack_tiles`` (000), and in a
new set of its own made of rack tiles alone when ``reuse: new_set`` (004). With
``take_from_joker_sets: false`` a set holding a joker that is not freed may only
grow: all its tiles stay together. Jokers from the rack may go anywhere.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache, partial
from itertools import combinations, permutations, product

import numpy as np

from rummisim.geometry import RunGeometry, run_geometry
from rummisim.profile import RuleProfile
from rummisim.rules.errors import IllegalMove
from rummisim.rules.sets import MIN_NUMBERED_TILES, Meld, is_valid_meld_parts, make_meld
from rummisim.tiles import TileSet

# ----- joker assignment ----------------------------------------------------------------


def assign_jokers(tiles, profile: RuleProfile, pinned: dict[int, int] | None = None) -> Meld | None:
    """Find faces for the jokers so that ``tiles`` form a valid set, or None.

    ``tiles`` is in written order; a run written with a joker at a given place
    (``"R5 R6 J"``) keeps that reading. ``pinned`` maps positions of jokers to
    declared faces (``J(R7)``). Otherwise groups give jokers the missing colours in
    colour order and runs take the highest-valued placement.
    """
    ts = profile.tileset
    tiles = tuple(int(t) for t in tiles)
    pinned = pinned or {}
    shape = [pinned.get(i, t) for i, t in enumerate(tiles)]  # declared jokers act as their face
    numbered = [t for t in tiles if t != ts.joker]
    if len(numbered) < MIN_NUMBERED_TILES or len(tiles) - len(numbered) > profile.jokers.max_per_set:
        return None
    fixed = [f for f in shape if f != ts.joker]
    free_slots = [i for i, f in enumerate(shape) if f == ts.joker]
    n = len(tiles)
    candidates: list[list[int]] = []
    value = ts.value_of(fixed[0])
    if all(ts.value_of(f) == value for f in fixed):
        missing = [ts.code(c, value) for c in range(ts.colours) if ts.code(c, value) not in fixed]
        if len(missing) >= len(free_slots):
            faces = list(shape)
            for slot, face in zip(free_slots, missing, strict=False):
                faces[slot] = face
            candidates.append(faces)
    colour = ts.colour_of(fixed[0])
    if all(ts.colour_of(f) == colour for f in fixed):
        geo = run_geometry(profile)
        windows = [
            list(range(start, start + n))
            for start in range(1, geo.top - n + 2)
            if geo.allowed(start, start + n - 1)
        ]
        written = _written_window(shape, geo, windows)
        for positions in ([written] if written else []) + sorted(windows, key=lambda p: -p[0]):
            filled = _fill_run(shape, positions, geo, colour)
            if filled is not None:
                candidates.append(filled)
                break
    for faces in candidates:
        if is_valid_meld_parts(tiles, tuple(faces), profile):
            return make_meld(tiles, faces, profile)
    return None


def _written_window(shape: list[int], geo: RunGeometry, windows: list[list[int]]) -> list[int] | None:
    ts = geo.tileset
    for positions in windows:
        if all(
            f == ts.joker or geo.value_at(p) == ts.value_of(f) for f, p in zip(shape, positions, strict=True)
        ):
            return positions
    return None


def _fill_run(shape: list[int], positions: list[int], geo: RunGeometry, colour: int) -> list[int] | None:
    ts = geo.tileset
    wanted = [geo.code_at(colour, p) for p in positions]
    fixed = [f for f in shape if f != ts.joker]
    remaining = list(wanted)
    for f in fixed:
        if f not in remaining:
            return None
        remaining.remove(f)
    faces = list(shape)
    for i, f in enumerate(faces):
        if f == ts.joker:
            faces[i] = remaining.pop(0)
    return faces


# ----- table jokers -------------------------------------------------------------------------------


def joker_acceptable(profile: RuleProfile, meld: Meld, face: int) -> frozenset[int]:
    """Faces a table joker may keep, and tiles that may free it."""
    any_colour = profile.jokers.group_any_missing_colour
    return _acceptable(profile.tileset, any_colour, meld.tiles, meld.faces, face)


@lru_cache(maxsize=1 << 12)
def _acceptable(ts: TileSet, any_colour: bool, tiles, faces, face: int) -> frozenset[int]:
    """``joker_acceptable`` of the set ``tiles`` at ``faces`` (cached: every check of a move
    asks it for each table joker)."""
    numbered = [t for t in tiles if t != ts.joker]
    value = ts.value_of(face)
    is_group = all(ts.value_of(f) == value for f in faces)
    if is_group and any_colour:
        present = {ts.colour_of(t) for t in numbered}
        return frozenset(ts.code(c, value) for c in range(ts.colours) if c not in present)
    return frozenset((face,))


def check_table_jokers(
    profile, table, new_table, played_counts, *, allow_free: bool, accept=None, explain: bool = True
) -> int:
    """Raise ``IllegalMove('joker_rule', ...)`` unless some assignment of the physical
    jokers to the new table's joker slots obeys the profile; return jokers freed. ``accept``
    (an opening that may touch the table) must also hold for the assignment, given the new-table
    sets that hold table jokers under it (else ``opening_below_threshold``).

    The assignments go in ``itertools.permutations`` order, and the first that obeys the rules
    answers. One that puts a locked joker that must be freed (it stands for another tile) in a set
    that cannot take a freed joker under ``jokers.reuse`` (``_may_take_freed``) breaks them, so it
    waits, tried only where no other obeys: for the first rule broken, the reason given.
    ``explain=False`` (the solver's checks, which want the verdict only) skips that and names no
    rule (``UNEXPLAINED``). ``polish-40`` trickle-jokers #49 makes 34 checks that try all 24
    placements of four table jokers: 10.6 ms of its 29 ms search, 2.7 ms without the reasons."""
    ts = profile.tileset
    joker = ts.joker
    locked = profile.jokers.table_jokers == "locked"
    strict_sets = not profile.jokers.take_from_joker_sets
    if not locked and not strict_sets and accept is None:
        return 0  # free jokers move like tiles
    old = [
        (i, face, joker_acceptable(profile, m, face))
        for i, m in enumerate(table)
        if joker in m.tiles
        for t, face in zip(m.tiles, m.faces, strict=True)
        if t == joker
    ]
    if not old:
        return 0
    slots = [
        (j, face)
        for j, m in enumerate(new_table)
        if joker in m.tiles
        for t, face in zip(m.tiles, m.faces, strict=True)
        if t == joker
    ]
    reasons: list[str] = []
    # a locked joker at a face it may not keep must be freed by a played tile of its face (or
    # colours): where none is played, every assignment that puts it there is refused
    # (``_try_freed``, for the reason given here)
    everywhere = range(len(slots))
    fits = [
        everywhere if not locked or strict_sets or any(played_counts[c] for c in ok) else
        {s for s, (_, f) in enumerate(slots) if f in ok}
        for _, _, ok in old
    ]  # fmt: skip
    # a locked joker that must be freed needs a played tile to free it and a set that takes it
    frees = [allow_free and any(played_counts[c] for c in ok) for _, _, ok in old]
    takes: dict[int, bool] = {}  # per new set holding a joker: ``_may_take_freed``

    def may_obey(mapping) -> bool:
        for (_, _, ok), free, s in zip(old, frees, mapping, strict=True):
            j, face = slots[s]
            if face in ok:
                continue
            if not free:
                return False
            if j not in takes:
                takes[j] = _may_take_freed(profile, new_table[j], played_counts)
            if not takes[j]:
                return False
        return True

    def outcome(mapping):
        """0+ (jokers freed) where this assignment obeys the rules, else why not."""
        opening = None
        if accept is not None:
            opening = partial(accept, frozenset(slots[m][0] for m in mapping))
        if locked or strict_sets:
            return _try_mapping(
                profile, table, new_table, played_counts, old, slots, mapping, locked, allow_free, opening
            )
        return 0 if opening is None or opening() else OPENING_SHORT  # free jokers move like tiles

    waiting = []  # the assignments ``may_obey`` rules out
    for mapping in permutations(everywhere, len(old)):
        if any(s not in fit for s, fit in zip(mapping, fits, strict=True)):
            reasons.append(_REASON_ORDER[2 if allow_free else 1])
        elif locked and not may_obey(mapping):
            waiting.append(mapping)
        else:
            found = outcome(mapping)
            if isinstance(found, int):
                return found
            reasons.append(found)
    if not explain:
        raise IllegalMove("joker_rule", UNEXPLAINED)
    for mapping in waiting:
        found = outcome(mapping)
        if isinstance(found, int):
            return found  # (``_may_take_freed`` asks only what every legal assignment meets)
        reasons.append(found)
    if OPENING_SHORT in reasons:
        raise IllegalMove(
            "opening_below_threshold",
            f"the initial meld needs {profile.initial_meld.threshold} from sets of rack tiles alone; "
            "a set holding a table joker does not count",
        )
    priority = sorted(set(reasons), key=lambda r: _REASON_ORDER.index(r))
    raise IllegalMove("joker_rule", priority[0] if priority else "table jokers are unaccounted for")


UNEXPLAINED = "no placement of the table jokers keeps the joker rules (verdict only: explain=False)"


def _may_take_freed(profile, meld: Meld, played_counts) -> bool:
    """Whether the new set ``meld`` may hold a freed joker under ``jokers.reuse``, by the played
    tiles alone: under ``new_set`` its other tiles must all be played ones (its other jokers rack
    jokers), under ``two_rack_tiles`` two of them at least. A necessary condition (the freeing
    tiles and the other freed jokers' sets take played tiles too): ``_try_freed`` decides."""
    joker = profile.tileset.joker
    others = meld.joker_count(joker) - 1  # (the freed joker is one of its jokers)
    numbered = Counter(t for t in meld.tiles if t != joker)
    if profile.jokers.reuse == "new_set":
        return others <= played_counts[joker] and all(played_counts[c] >= n for c, n in numbered.items())
    if profile.jokers.reuse == "two_rack_tiles":
        rack_items = sum(min(int(played_counts[c]), n) for c, n in numbered.items())
        return rack_items + min(others, int(played_counts[joker])) >= 2
    return True


_REASON_ORDER = [
    "a set holding a joker may not be split or have tiles taken from it",
    "joker retrieval is not allowed before the initial meld",
    "a table joker may only change the tile it stands for when a matching rack tile replaces it",
    "a retrieved joker must join a set with at least two other tiles from the rack",
    "a retrieved joker must form a new set with rack tiles only (at least two of them)",
]


OPENING_SHORT = "the opening sets fall short once each played tile counts once"


def _try_mapping(
    profile, table, new_table, played_counts, old, slots, mapping, locked, allow_free, opening=None
):
    """Whether this assignment of old jokers to slots is legal: 0+ (jokers freed) or a reason.

    A joker whose new face is not acceptable must be freed. One that keeps an acceptable face
    may still have been freed by a matching rack tile (what matters under strict joker sets,
    where a freed joker no longer ties its old set together), so those are tried both ways.
    """
    must = [k for k, (_, _, ok) in enumerate(old) if locked and slots[mapping[k]][1] not in ok]
    optional = []
    if locked and allow_free and not profile.jokers.take_from_joker_sets:
        optional = [
            k for k, (_, _, ok) in enumerate(old) if k not in must and any(played_counts[c] for c in ok)
        ]
    reason = None
    for size in range(len(optional) + 1):
        for extra in combinations(optional, size):
            outcome = _try_freed(profile, table, new_table, played_counts, old, slots, mapping, allow_free,
                                 sorted(must + list(extra)), opening)  # fmt: skip
            if isinstance(outcome, int):
                return outcome
            if reason is None or reason == OPENING_SHORT:
                reason = outcome
    return reason


def _try_freed(
    profile, table, new_table, played_counts, old, slots, mapping, allow_free, freed, opening=None
):
    """0+ (jokers freed) when this mapping with ``freed`` jokers retrieved is legal, else a reason.
    ``opening`` (an opening that may touch the table) is called with ``spare(used)``: the
    opening sets may only use played tiles that neither free a joker nor stand beside one."""
    ts = profile.tileset
    if not profile.jokers.take_from_joker_sets:
        freed_melds = Counter(old[k][0] for k in freed)
        for i, meld in enumerate(table):
            n_jokers = meld.joker_count(ts.joker)
            if n_jokers == 0 or freed_melds[i] == n_jokers:
                continue
            # every joker of the set, kept or freed, in one new set that holds its numbered tiles
            # (0.3.7: two sets, each with a copy of them, is the set split)
            hosts = {slots[mapping[k]][0] for k, (mi, _, _) in enumerate(old) if mi == i}
            if len(hosts) > 1:
                return _REASON_ORDER[0]
            (host,) = hosts
            numbered = Counter(t for t in meld.tiles if t != ts.joker)
            if not numbered <= Counter(new_table[host].tiles):
                return _REASON_ORDER[0]
    if not freed:
        return 0 if opening is None or opening() else OPENING_SHORT
    if not allow_free:
        return _REASON_ORDER[1]
    # the freeing choices the played tiles cover (one tile of its face or colours per freed joker);
    # none: no freed joker can be retrieved this way
    choices = [
        freeing
        for freeing in product(*(sorted(old[k][2]) for k in freed))
        if all(played_counts[c] >= freeing.count(c) for c in set(freeing))
    ]
    if not choices:
        return _REASON_ORDER[2]
    rack_jokers = set(range(len(slots))) - set(mapping)
    short = False
    # the freed jokers' sets, and under ``new_set`` the played tiles they take: the same for
    # every choice of freeing tiles
    freed_hosts = sorted({slots[mapping[k]][0] for k in freed})
    need = None
    if profile.jokers.reuse == "new_set":
        need = _new_set_needs(ts, new_table, [slots[mapping[k]][0] for k in freed], slots, mapping)
        if need is None:
            choices = []  # a freed joker's set is not a new one: no freeing choice can do
    for freeing in choices:
        supply = played_counts.copy()
        for c in freeing:
            supply[c] -= 1
        if profile.jokers.reuse == "any":
            fits = partial(_spare_supply, supply)
        elif need is not None:
            fits = partial(_spare_supply, supply - need)
        else:
            fits = partial(_spare_hosts, ts, new_table, freed_hosts, supply, slots, rack_jokers)
        if not fits(None):
            continue
        if opening is None or opening(fits):
            return len(freed)
        short = True
    if short:
        return OPENING_SHORT
    return _REASON_ORDER[4] if profile.jokers.reuse == "new_set" else _REASON_ORDER[3]


def _new_set_needs(ts, new_table, hosts, slots, mapping) -> np.ndarray | None:
    """``reuse: new_set`` (004 "aby stworzyć nowy zestaw"): each freed joker's set is new, made
    of that joker and rack tiles only (a set is 3+ tiles, so 2+ of them). The played tiles those
    sets take (rack jokers included), or None where a set holds another tile from the table: a
    second table joker (kept or freed) or a numbered tile the played ones cannot cover (checked
    by the caller's supply)."""
    if len(set(hosts)) != len(hosts):
        return None  # two freed jokers in one set: the second is not a rack tile
    table_joker_sets = [slots[m][0] for m in mapping]
    if any(table_joker_sets.count(h) != 1 for h in hosts):
        return None
    need = ts.counts([t for h in hosts for t in new_table[h].tiles])
    need[ts.joker] -= len(hosts)  # the freed jokers themselves
    return need


def _spare_supply(supply, used) -> bool:
    """The played tiles ``used`` elsewhere (``None``: none) leave the freeing tiles (``supply`` is
    what is left after them)."""
    return bool((supply if used is None else supply - used).min() >= 0)


def _spare_hosts(ts, new_table, hosts, supply, slots, rack_jokers, used) -> bool:
    """As ``_spare_supply``, and the retrieved jokers' sets still get two rack tiles each."""
    left = supply if used is None else supply - used
    return bool(np.all(left >= 0)) and _hosts_have_rack_tiles(ts, new_table, hosts, left, slots, rack_jokers)


def _hosts_have_rack_tiles(ts, new_table, hosts, supply, slots, rack_jokers) -> bool:
    """Hall's condition for 'each host set holds two tiles from the rack' (a small
    transportation problem: rack tiles by code -> host sets, capacity = copies in the set)."""
    caps = []
    for h in hosts:
        c = Counter(t for t in new_table[h].tiles if t != ts.joker)
        c[ts.joker] = sum(1 for s in rack_jokers if slots[s][0] == h)
        caps.append(c)
    for size in range(1, len(hosts) + 1):
        for subset in combinations(range(len(hosts)), size):
            total = 0
            codes = set().union(*(caps[i].keys() for i in subset))
            for code in codes:
                total += min(int(supply[code]), sum(caps[i][code] for i in subset))
            if total < 2 * size:
                return False
    return True
