"""Move validation: ``validate_move``, the one entry point of the rules layer.

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
``opening_below_threshold``  the initial meld (one_qualifying: its best set) is below the threshold
``opening_single_set`` the profile's initial meld is a single set
``opening_touched_table``    the initial meld used or changed table sets
``rearrange_forbidden``      the profile only allows adding to table sets
``joker_rule``         a table joker moved or was retrieved against the joker rules
``must_keep_discard``  in the discard-pile variant a play must leave a tile to discard
=====================  =============================================================

Set validity is ``rummisim.rules.sets``; the joker rules (which table jokers may
move, and when one is freed) are ``rummisim.rules.jokers``; the initial meld's
rules are checked here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rummisim.profile import RuleProfile
from rummisim.rules.errors import IllegalMove
from rummisim.rules.jokers import check_table_jokers
from rummisim.rules.sets import Meld, format_meld, is_valid_meld, meld_opening_value, table_tiles
from rummisim.tiles import format_tiles

MAX_OPENING_SUBSETS = 1 << 16


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


@lru_cache(maxsize=1 << 16)
def _pairs(meld: Meld) -> Counter[tuple[int, int]]:
    """A meld's (tile, face) pairs with their counts, remembered (never changed by callers)."""
    return Counter(zip(meld.tiles, meld.faces, strict=True))


def _contained(small: Meld, big: Meld) -> bool:
    if len(small) > len(big):
        return False
    have = _pairs(big)
    return all(have[k] >= v for k, v in _pairs(small).items())


def _injective_containment(old: list[Meld], new: list[Meld]) -> bool:
    """Each old meld sits inside a distinct new meld (tiles and faces kept)."""
    holding: dict[tuple[int, int], list[int]] = {}  # a (tile, face) pair -> new melds with it
    for j, n in enumerate(new):
        for pair in _pairs(n):
            holding.setdefault(pair, []).append(j)
    options = [
        [j for j in holding.get((o.tiles[0], o.faces[0]), ()) if _contained(o, new[j])]
        if len(o)
        else list(range(len(new)))
        for o in old
    ]
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
    explain: bool = True,
) -> MoveCheck:
    """Check a proposed move; return what it did or raise ``IllegalMove``. ``explain=False``:
    the verdict only, a refusal of the table jokers' moves may name no rule
    (``jokers.check_table_jokers``; the solver's checks, which are mostly refusals)."""
    ts = profile.tileset
    n = ts.n_codes
    if not played:
        if Counter(new_table) != Counter(table):
            raise IllegalMove("no_rack_tile", "a rearrangement must play at least one rack tile")
        raise IllegalMove("no_rack_tile", "a move must play at least one rack tile")
    if min(played) < 0 or max(played) >= n:
        bad = sorted({t for t in played if not 0 <= t < n})
        raise IllegalMove("tile_not_in_rack", f"played tile code(s) {bad} outside the tile set (0..{n - 1})")
    played_counts = ts.counts(played)
    if not Counter(played) <= Counter(rack):  # (multiset inclusion)
        rack_counts = ts.counts(rack)
        extra = [c for c in range(n) if played_counts[c] > rack_counts[c]]
        raise IllegalMove(
            "tile_not_in_rack", f"played {format_tiles(extra, ts)} which the rack does not hold"
        )
    if len(played) > play_limit(profile, len(rack)):
        raise IllegalMove("must_keep_discard", "with a discard pile a play must leave a tile to discard")
    for meld in new_table:
        if not is_valid_meld(meld, profile):
            raise IllegalMove("invalid_set", f"not a valid set: {_shown(meld, ts)}")
    old_tiles, new_tiles = table_tiles(table), table_tiles(new_table)
    if sorted(new_tiles) != sorted(old_tiles + list(played)):
        # (a table tile missing leaves a negative surplus too: named first)
        old_counts, new_counts = ts.counts(old_tiles), ts.counts(new_tiles)
        surplus = new_counts - old_counts - played_counts
        missing = np.flatnonzero(new_counts < old_counts)
        if missing.size:
            raise IllegalMove(
                "table_tile_missing",
                f"table tile(s) {format_tiles(missing, ts)} are no longer on the table",
            )
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
    freed = check_table_jokers(
        profile,
        table,
        new_table,
        played_counts,
        allow_free=opened or _may_free_in_opening(profile),
        accept=accept,
        explain=explain,
    )
    if accept is not None and accept.value is not None:
        opening_value = accept.value
    return MoveCheck(opening_value, freed)


def _shown(meld: Meld, ts) -> str:
    """A set in tile notation, or its codes where some are outside the tile set."""
    if all(0 <= code < ts.n_codes for code in (*meld.tiles, *meld.faces)):
        return format_meld(meld, ts)
    return f"tiles {list(meld.tiles)} with faces {list(meld.faces)} (codes outside 0..{ts.n_codes - 1})"


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

    def __call__(self, holding_table_jokers: frozenset[int], spare=None) -> bool:
        """``spare(used)``: whether the played tiles left after the opening sets ``used`` still
        free the retrieved jokers and give their sets two rack tiles each (one played tile
        counts once: in an opening set or beside a retrieved joker, not both)."""
        single = self.profile.initial_meld.sets != "any"
        melds = [m for j, m in enumerate(self.new_table) if j not in holding_table_jokers]
        value = _best_rack_only_value(self.profile, melds, self.played_counts, single, spare)
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
    """The opening's value toward the threshold, or ``IllegalMove``. ``initial_meld.sets``:
    ``any`` counts every rack-only new set; ``single`` asks for exactly one new set (000/001
    read literally); ``one_qualifying`` for one rack-only set worth the threshold by itself,
    beside which other rack-only sets may be laid (their points do not count)."""
    threshold = profile.initial_meld.threshold
    single = profile.initial_meld.sets != "any"  # the value is one set's
    if not profile.initial_meld.may_touch_table:
        remaining = Counter(new_table)
        remaining.subtract(Counter(table))
        if any(v < 0 for v in remaining.values()):
            raise IllegalMove("opening_touched_table", "the initial meld may not use or change table sets")
        new_sets = list(remaining.elements())
        if profile.initial_meld.sets == "single" and len(new_sets) != 1:
            raise IllegalMove(
                "opening_single_set",
                f"the initial meld must be a single set, got {len(new_sets)}",
            )
        values = [meld_opening_value(m, profile) for m in new_sets]
        value = max(values, default=0) if single else sum(values)
    else:
        value = _best_rack_only_value(profile, new_table, played_counts, single)
        if not profile.turn.rearrange and not _injective_containment(list(table), list(new_table)):
            raise IllegalMove("rearrange_forbidden", "this profile only allows adding tiles to table sets")
    if value < threshold:
        counted = "its best rack-only set" if single else "rack-only sets"
        raise IllegalMove(
            "opening_below_threshold",
            f"the initial meld is worth {value} from {counted}; it needs {threshold}",
        )
    return value


def _best_rack_only_value(profile, new_table, played_counts, single: bool, spare=None) -> int:
    """Most opening value of new sets built from played tiles alone (when the opening
    turn may also touch the table, only such sets count toward the threshold); with
    ``spare``, only sets whose tiles leave ``spare(used counts)`` true."""
    candidates = []
    left = played_counts.tolist()  # (the played tiles not in the sets chosen, as the search goes)
    for meld in new_table:
        counts = tuple(Counter(meld.tiles).items())
        if any(left[t] < n for t, n in counts):
            continue  # (not all its tiles were played)
        if spare is None or spare(profile.tileset.counts(meld.tiles)):
            candidates.append((meld_opening_value(meld, profile), counts))
    if single or not candidates:
        return max((v for v, _ in candidates), default=0)
    candidates.sort(key=lambda vc: -vc[0])
    after = [sum(v for v, _ in candidates[i:]) for i in range(len(candidates) + 1)]
    best = 0
    budget = [MAX_OPENING_SUBSETS]

    def search(i: int, total: int) -> None:
        nonlocal best
        if total > best and (spare is None or spare(played_counts - np.array(left))):
            best = total
        budget[0] -= 1
        if i == len(candidates) or budget[0] <= 0:
            return
        if total + after[i] <= best:
            return
        value, counts = candidates[i]
        if all(left[t] >= n for t, n in counts):
            for t, n in counts:
                left[t] -= n
            search(i + 1, total + value)
            for t, n in counts:
                left[t] += n
        search(i + 1, total)

    search(0, 0)
    return best
