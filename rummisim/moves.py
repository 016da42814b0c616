"""Actions a bot may take and the validation of a proposed move.

A move is a proposed new table (every set, with each joker's face) plus the
rack tiles it uses. ``validate_move`` checks it against the old table, the rack
and the profile, and raises ``IllegalMove`` naming the broken rule:

=====================  =============================================================
rule                   meaning
=====================  =============================================================
``no_rack_tile``       a move (or a rearrangement) that plays no tile from the rack
``tile_not_in_rack``   a played tile the rack does not hold
``invalid_set``        a set on the new table is not a valid run or group
``table_tile_missing`` a tile that was on the table is not on the new table
``unaccounted_tile``   the new table holds tiles that are neither on the table nor played
``opening_below_threshold``  the initial meld is worth less than the threshold
``opening_single_set`` the profile's initial meld is a single set
``opening_touched_table``    the initial meld used or changed table sets
``rearrange_forbidden``      the profile only allows adding to table sets
``joker_rule``         a table joker moved or was retrieved against the joker rules
``must_keep_discard``  in the discard-pile variant a play must leave a tile to discard
=====================  =============================================================

Joker rules (profile ``jokers``), under ``table_jokers: locked``: every joker that
was on the table keeps standing for its tile (in a group that is not full, for
its value in any missing colour when ``group_any_missing_colour``), unless a
matching tile from the rack is played this turn, which frees it. Freeing needs
the initial meld to be made, or happens in the opening turn itself where the
opening may touch the table (004: "may add them immediately after coming out
with the initial 40"; the opening sets must still reach the threshold from rack
tiles alone), or ``retrieve_before_initial_meld``. A freed joker
must sit in a set holding at least two other tiles from the rack when
``reuse: two_rack_tiles``. With ``take_from_joker_sets: false`` a set holding a
joker that is not freed may only grow: all its tiles stay together. Jokers from
the rack may go anywhere.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations, permutations, product

import numpy as np

from rummisim.melds import (
    Meld,
    format_meld,
    is_valid_meld,
    meld_opening_value,
    table_tiles,
)
from rummisim.profile import RuleProfile
from rummisim.tiles import format_tiles

MAX_OPENING_SUBSETS = 1 << 16


class IllegalMove(ValueError):
    """A move that breaks a rule; ``rule`` is the machine-readable rule name."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


# ----- actions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """Replace the table with ``table``, using the rack tiles ``played``."""

    table: tuple[Meld, ...]
    played: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw from the deck (``source='deck'``) or take the top discard (``'discard'``)."""

    source: str = "deck"


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without playing (after drawing, or when the pool is empty)."""


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard one rack tile (discard-pile variant, the last step of every turn)."""

    tile: int


@dataclass(frozen=True, slots=True)
class OutOfBudget:
    """The bot's search ran out of ``time_limit.search_budget``; ``best`` is its best play."""

    best: Play | None = None


Action = Play | Draw | Pass | Discard | OutOfBudget


@dataclass(frozen=True, slots=True)
class MoveCheck:
    """What a valid move did: the opening value (if it was the initial meld) and jokers freed."""

    opening_value: int | None
    jokers_freed: int


# ----- validation --------------------------------------------------------------------------


def play_limit(profile: RuleProfile, rack_size: int) -> int:
    """The most rack tiles one play may use: all of them, or all but one with a discard pile
    (a play must leave a tile to discard; the player goes out by discarding it)."""
    return rack_size - 1 if profile.discard_pile else rack_size


def _contained(small: Meld, big: Meld) -> bool:
    need = Counter(zip(small.tiles, small.faces, strict=True))
    have = Counter(zip(big.tiles, big.faces, strict=True))
    return all(have[k] >= v for k, v in need.items())


def _injective_containment(old: list[Meld], new: list[Meld]) -> bool:
    """Each old meld sits inside a distinct new meld (tiles and faces kept)."""
    options = [[j for j, n in enumerate(new) if _contained(o, n)] for o in old]
    order = sorted(range(len(old)), key=lambda i: len(options[i]))
    used: set[int] = set()

    def assign(k: int) -> bool:
        if k == len(order):
            return True
        for j in options[order[k]]:
            if j not in used:
                used.add(j)
                if assign(k + 1):
                    return True
                used.discard(j)
        return False

    return assign(0)


def validate_move(
    profile: RuleProfile,
    table: tuple[Meld, ...],
    rack: tuple[int, ...],
    new_table: tuple[Meld, ...],
    played: tuple[int, ...],
    *,
    opened: bool,
) -> MoveCheck:
    """Check a proposed move; return what it did or raise ``IllegalMove``."""
    ts = profile.tileset
    n = ts.n_codes
    if not played:
        if Counter(new_table) != Counter(table):
            raise IllegalMove("no_rack_tile", "a rearrangement must play at least one rack tile")
        raise IllegalMove("no_rack_tile", "a move must play at least one rack tile")
    played_counts = ts.counts(played)
    rack_counts = ts.counts(rack)
    if np.any(played_counts > rack_counts):
        extra = [c for c in range(n) if played_counts[c] > rack_counts[c]]
        raise IllegalMove(
            "tile_not_in_rack", f"played {format_tiles(extra, ts)} which the rack does not hold"
        )
    if len(played) > play_limit(profile, len(rack)):
        raise IllegalMove("must_keep_discard", "with a discard pile a play must leave a tile to discard")
    for meld in new_table:
        if not is_valid_meld(meld, profile):
            raise IllegalMove("invalid_set", f"not a valid set: {format_meld(meld, ts)}")
    old_counts = ts.counts(table_tiles(table))
    new_counts = ts.counts(table_tiles(new_table))
    missing = np.flatnonzero(new_counts < old_counts)
    if missing.size:
        raise IllegalMove(
            "table_tile_missing",
            f"table tile(s) {format_tiles(missing, ts)} are no longer on the table",
        )
    surplus = new_counts - old_counts - played_counts
    if np.any(surplus != 0):
        over = np.flatnonzero(surplus > 0)
        under = np.flatnonzero(surplus < 0)
        detail = []
        if over.size:
            detail.append(f"{format_tiles(over, ts)} appear from nowhere")
        if under.size:
            detail.append(f"played {format_tiles(under, ts)} are not on the new table")
        raise IllegalMove("unaccounted_tile", "; ".join(detail))

    opening_value = None
    accept = None
    if not opened:
        opening_value = _check_opening(profile, table, new_table, played_counts)
        if profile.initial_meld.may_touch_table:
            accept = _OpeningUnderJokers(profile, new_table, played_counts)
    elif not profile.turn.rearrange and not _injective_containment(list(table), list(new_table)):
        raise IllegalMove("rearrange_forbidden", "this profile only allows adding tiles to table sets")
    freed = _check_jokers(
        profile,
        table,
        new_table,
        played_counts,
        allow_free=opened or _may_free_in_opening(profile),
        accept=accept,
    )
    if accept is not None and accept.value is not None:
        opening_value = accept.value
    return MoveCheck(opening_value, freed)


class _OpeningUnderJokers:
    """The opening's value once the physical jokers are placed: a set that holds a table joker
    (retrieved or not) is not made of rack tiles, so it never counts toward the threshold (004:
    jokers are retrieved "after coming out with the initial 40"). Called with the new-table
    sets that hold table jokers under one assignment; True when the rest still reach it."""

    def __init__(self, profile: RuleProfile, new_table, played_counts: np.ndarray):
        self.profile = profile
        self.new_table = new_table
        self.played_counts = played_counts
        self.value: int | None = None

    def __call__(self, holding_table_jokers: frozenset[int]) -> bool:
        single = self.profile.initial_meld.sets == "single"
        melds = [m for j, m in enumerate(self.new_table) if j not in holding_table_jokers]
        value = _best_rack_only_value(self.profile, melds, self.played_counts, single)
        if value < self.profile.initial_meld.threshold:
            return False
        self.value = value
        return True


def _may_free_in_opening(profile: RuleProfile) -> bool:
    """Whether the opening turn may retrieve table jokers: where the opening may touch the
    table, right after laying the opening sets (004: "may add them immediately after coming
    out with the initial 40"). ``retrieve_before_initial_meld`` names turns before that one,
    and a player who has not opened makes no move but the opening, so the key only adds
    retrieval to openings that may not touch the table, where moving a table joker is
    refused anyway (``opening_touched_table``): today it changes no legal move."""
    return profile.initial_meld.may_touch_table or profile.jokers.retrieve_before_initial_meld


def _check_opening(profile, table, new_table, played_counts) -> int:
    threshold = profile.initial_meld.threshold
    single = profile.initial_meld.sets == "single"
    if not profile.initial_meld.may_touch_table:
        remaining = Counter(new_table)
        remaining.subtract(Counter(table))
        if any(v < 0 for v in remaining.values()):
            raise IllegalMove("opening_touched_table", "the initial meld may not use or change table sets")
        new_sets = list(remaining.elements())
        if single and len(new_sets) != 1:
            raise IllegalMove(
                "opening_single_set",
                f"the initial meld must be a single set, got {len(new_sets)}",
            )
        value = sum(meld_opening_value(m, profile) for m in new_sets)
    else:
        value = _best_rack_only_value(profile, new_table, played_counts, single)
        if not profile.turn.rearrange and not _injective_containment(list(table), list(new_table)):
            raise IllegalMove("rearrange_forbidden", "this profile only allows adding tiles to table sets")
    if value < threshold:
        raise IllegalMove(
            "opening_below_threshold",
            f"the initial meld is worth {value} from rack-only sets; it needs {threshold}",
        )
    return value


def _best_rack_only_value(profile, new_table, played_counts, single: bool) -> int:
    """Most opening value of new sets built from played tiles alone (when the opening
    turn may also touch the table, only such sets count toward the threshold)."""
    candidates = []
    for meld in new_table:
        c = profile.tileset.counts(meld.tiles)
        if np.all(c <= played_counts):
            candidates.append((meld_opening_value(meld, profile), c))
    if single or not candidates:
        return max((v for v, _ in candidates), default=0)
    candidates.sort(key=lambda vc: -vc[0])
    best = 0
    budget = [MAX_OPENING_SUBSETS]

    def search(i: int, left: np.ndarray, total: int) -> None:
        nonlocal best
        best = max(best, total)
        budget[0] -= 1
        if i == len(candidates) or budget[0] <= 0:
            return
        if total + sum(v for v, _ in candidates[i:]) <= best:
            return
        value, c = candidates[i]
        if np.all(c <= left):
            search(i + 1, left - c, total + value)
        search(i + 1, left, total)

    search(0, played_counts.copy(), 0)
    return best


# ----- jokers -------------------------------------------------------------------------------


def joker_acceptable(profile: RuleProfile, meld: Meld, face: int) -> frozenset[int]:
    """Faces a table joker may keep, and tiles that may free it."""
    ts = profile.tileset
    numbered = [t for t in meld.tiles if t != ts.joker]
    value = ts.value_of(face)
    is_group = all(ts.value_of(f) == value for f in meld.faces)
    if is_group and profile.jokers.group_any_missing_colour:
        present = {ts.colour_of(t) for t in numbered}
        return frozenset(ts.code(c, value) for c in range(ts.colours) if c not in present)
    return frozenset((face,))


def _check_jokers(profile, table, new_table, played_counts, *, allow_free: bool, accept=None) -> int:
    """Raise ``IllegalMove('joker_rule', ...)`` unless some assignment of the physical
    jokers to the new table's joker slots obeys the profile; return jokers freed. ``accept``
    (an opening that may touch the table) must also hold for the assignment, given the new-table
    sets that hold table jokers under it (else ``opening_below_threshold``)."""
    ts = profile.tileset
    joker = ts.joker
    old = [
        (i, face, joker_acceptable(profile, m, face))
        for i, m in enumerate(table)
        for t, face in zip(m.tiles, m.faces, strict=True)
        if t == joker
    ]
    if not old:
        return 0
    locked = profile.jokers.table_jokers == "locked"
    strict_sets = not profile.jokers.take_from_joker_sets
    if not locked and not strict_sets and accept is None:
        return 0
    slots = [
        (j, face)
        for j, m in enumerate(new_table)
        for t, face in zip(m.tiles, m.faces, strict=True)
        if t == joker
    ]
    reasons: list[str] = []
    opening_short = False
    for mapping in permutations(range(len(slots)), len(old)):
        if locked or strict_sets:
            outcome = _try_mapping(
                profile, table, new_table, played_counts, old, slots, mapping, locked, allow_free
            )
        else:
            outcome = 0  # free table jokers move like tiles
        if isinstance(outcome, int):
            if accept is None or accept(frozenset(slots[m][0] for m in mapping)):
                return outcome
            opening_short = True
            continue
        reasons.append(outcome)
    if opening_short:
        raise IllegalMove(
            "opening_below_threshold",
            f"the initial meld needs {profile.initial_meld.threshold} from sets of rack tiles alone; "
            "a set holding a table joker does not count",
        )
    priority = sorted(set(reasons), key=lambda r: _REASON_ORDER.index(r))
    raise IllegalMove("joker_rule", priority[0] if priority else "table jokers are unaccounted for")


_REASON_ORDER = [
    "a set holding a joker may not be split or have tiles taken from it",
    "joker retrieval is not allowed before the initial meld",
    "a table joker may only change the tile it stands for when a matching rack tile replaces it",
    "a retrieved joker must join a set with at least two other tiles from the rack",
]


def _try_mapping(profile, table, new_table, played_counts, old, slots, mapping, locked, allow_free):
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
                                 sorted(must + list(extra)))  # fmt: skip
            if isinstance(outcome, int):
                return outcome
            reason = reason or outcome
    return reason


def _try_freed(profile, table, new_table, played_counts, old, slots, mapping, allow_free, freed):
    ts = profile.tileset
    if not profile.jokers.take_from_joker_sets:
        freed_melds = Counter(old[k][0] for k in freed)
        for i, meld in enumerate(table):
            n_jokers = meld.joker_count(ts.joker)
            if n_jokers == 0 or freed_melds[i] == n_jokers:
                continue
            hosts = {slots[mapping[k]][0] for k, (mi, _, _) in enumerate(old) if mi == i}
            numbered = Counter(t for t in meld.tiles if t != ts.joker)
            for host in hosts:
                have = Counter(new_table[host].tiles)
                if any(have[t] < c for t, c in numbered.items()):
                    return _REASON_ORDER[0]
    if not freed:
        return 0
    if not allow_free:
        return _REASON_ORDER[1]
    rack_jokers = set(range(len(slots))) - set(mapping)
    for freeing in product(*(sorted(old[k][2]) for k in freed)):
        use = Counter(freeing)
        if any(played_counts[c] < cnt for c, cnt in use.items()):
            continue
        if profile.jokers.reuse == "any":
            return len(freed)
        supply = played_counts.copy()
        for c, cnt in use.items():
            supply[c] -= cnt
        hosts = sorted({slots[mapping[k]][0] for k in freed})
        if _hosts_have_rack_tiles(ts, new_table, hosts, supply, slots, rack_jokers):
            return len(freed)
    if not any(
        all(played_counts[c] >= cnt for c, cnt in Counter(f).items())
        for f in product(*(sorted(old[k][2]) for k in freed))
    ):
        return _REASON_ORDER[2]
    return _REASON_ORDER[3]


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
