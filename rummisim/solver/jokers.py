"""Locked table jokers: the joker choices of a position and the host sets of freed jokers.

Each choice of keeping every table joker (at a face it may keep; in the DP it is a tile of
that face, which only relaxes the rules that a set holds a numbered tile and at most
``max_per_set`` jokers: the decoding puts the joker back in a set that keeps them, else
``None``) or freeing it (the matching rack tile must be played; the joker is free in the DP)
bounds the optimum from above (``_solve_rack``; the choices, and the strict sets split between
kept and freed jokers, are listed and searched in ``choices``). The best bound is the answer when its play
passes ``validate_move`` (``_settle``). Under ``reuse: two_rack_tiles`` a better bound that
frees jokers is then settled exactly: each set that may hold a freed joker with two other rack
items (``hosts.freed_joker_hosts``) is set aside, and the DP solves the tiles left above the
best legal play so far (one host set after the other, for any number of freed jokers; a set may
hold up to ``max_per_set`` of them; ``_host_sets_search``); under ``reuse: new_set`` the hosts
are the sets of rack tiles alone, one freed joker each: the freed jokers' sets are a multiset of
them, and each level takes its next set among the one it placed and those after it (no pair of
sets is searched twice; with two freed jokers and few sets, every pair at once, 0.3.8:
``listing.pair_search``). A listing's sets (and pairs) that find nothing run in one compiled call
(``listing.refuted_rows``, after 0.3.23): the same passes, floors and states as one by one.
Before that, a choice's refused bound is settled from its own play where it can be (``_guided``):
host sets read off that play are placed one by one and the rest solved with the floor at the
bound, so a legal play found there is the choice's optimum (the same tiles in another
arrangement); a choice that gives up leaves the others to go on, and a legal play reaching its
bound still proves the position. The choices first look for a play of the whole rack (not under
``reuse: new_set``), which settles the position wherever one is legal (``_solve_rack``). Under strict
joker sets the host search first relaxes the pins (exact where its play keeps them); where that
play breaks a pin, the hosts are sets of the tiles outside the pins, which the DP keeps
(``_hosted`` with ``pinned``); the tracked pass below always keeps the pins (``_hosted``'s
``tracked_pins``). A joker
choice that no table realises (two kept jokers at one face with no set for both) is skipped.

The tracked host pass (``_tracked_host``). Where the host sets of one or two freed jokers are too
many to list (``SearchOptions.max_host_solves``), or the listed ones cannot settle the choice, one
pass tracks the set that holds each freed joker instead: the key gets a host field, before it exists
the colours of the current value that put a rack copy in its groups, then the run it is (colour, run
type, rack items 0..2, freed joker in it or not), then done (``host_fields._host_move``); in an
exact pass with one freed joker (not under ``reuse: new_set``) a run of table tiles stays among the
open runs until its first rack item or the freed joker, where it is promoted into the host field
(``host_fields.promoted_run``, 0.3.13). A run takes a tile that counts as a rack item where a rack
copy of that face is played at that step (copies of a face are interchangeable), a rack joker, or
the freed joker (even where a tile of that face stays on the rack: the freed joker cannot move to
another set); it closes as the host set with the freed joker and two rack items in it, jokers
appended at its end if need be. The freed joker joins the groups of a value that hold rack copies of
two colours (or one and a rack joker; ``decode._host_groups`` forms them). With a host set placed
(``_guided``, or the listing's second level), the last one or two freed jokers' hosts are tracked at
once: the placed set and the floor keep that pass small. Two freed jokers: a second host field,
which starts only once the first has (the jokers are interchangeable); where both host runs take a
tile of one face and one rack copy is played there, it counts for one of them (the action's share
bit says which), and so where the first host run takes a tile of a face whose other copies go to the
groups of the second, which counts their rack copies (0.3.2: one rack copy counted twice made plays
``validate_move`` refused); the first host run may take the second freed joker too (one set holding
both); both may join the groups of one value, each in a group with two rack items (four in all: the
host fields count the groups' rack copies, 0.3.3) or both in one group (a split of the value's tiles
where one group holds two jokers and two tiles, ``host_fields._pair_totals``); ``_host_groups`` finds the
groups, else the play is refused. With three or more jokers in the search (a rack joker beside the
freed ones) its runs go without per-run joker counts, a relaxation of ``max_per_set`` that is exact
wherever its play is legal; and a decoding ``validate_move`` refuses is tried once more with the
kept jokers put back outside the host runs (a host run may have counted a tile of a kept joker's
face as its rack item). Where the pass decodes into a refused play or passes
``SearchOptions.max_tracked_states``, the search gives up (``GiveUp``). Under ``reuse: new_set``
(0.3.6) the same pass tracks a new set of the freed joker and rack items alone: a host run takes a
tile only where a rack copy of its face is played there (``host_fields._host_move``'s
``rack_only``), each freed joker has a set of its own, and a host group is the freed joker beside
rack copies and rack jokers (``decode._host_groups``). The host searches of a choice run no floor
above its bound (their ``ceiling``: no legal play of the choice passes it; 0.3.5). Pure; no I/O."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal, overload

import numpy as np

from rummisim.melds import Meld
from rummisim.moves import joker_acceptable
from rummisim.profile import RuleProfile
from rummisim.solver.budget import GiveUp, Meter, TrackedLimitReached
from rummisim.solver.choices import (
    _best_grown,
    _bound,
    _choice_bound,
    _choices,
    _first_legal,
    _gather,
    _legal,
    _legal_above,
    _split_best,
    _whole_rack,
)
from rummisim.solver.common import (
    SearchBudgetSpent,
)
from rummisim.solver.hosts import (
    Host,
    freed_in,
    grown_pins,
    held_hosts,
    new_set_host_sets,
    outside_pins,
    rack_item_hosts,
    relaxed_hosts,
)
from rummisim.solver.listing import BATCH, Listing, batched, capped_host, pair_search, refuted_rows
from rummisim.solver.passes import (
    NO_BOUND,
    Undecoded,
    _best,
    _Found,
    _pools,
    _tile_counts,
)
from rummisim.solver.pins import (
    pin_all,
)
from rummisim.solver.reach import out_of_reach


@overload
def _solve_rack(
    rack: tuple[int, ...], full_rack: tuple[int, ...], table: tuple[Meld, ...], profile: RuleProfile,
    objective: str, meter: Meter, *, floor: int | None = None, bound_only: Literal[False] = False,
) -> _Found | None: ...  # fmt: skip


@overload
def _solve_rack(
    rack: tuple[int, ...], full_rack: tuple[int, ...], table: tuple[Meld, ...], profile: RuleProfile,
    objective: str, meter: Meter, *, floor: int | None = None, bound_only: bool,
) -> _Found | Undecoded | None: ...  # fmt: skip


def _solve_rack(
    rack: tuple[int, ...],
    full_rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    objective: str,
    meter: Meter,
    *,
    floor: int | None = None,
    bound_only: bool = False,
) -> _Found | Undecoded | None:
    """The best play of ``rack`` (score, new table, played), or None if unknown.
    Locked table jokers: a bound per choice of keeping or freeing each, then ``_settle``; a
    choice whose best steps do not decode (``passes.Undecoded``) is a bound that another choice's
    play may still reach (else, under ``Meter.settle``, the best legal play, not proven).
    With ``floor``, only a play scoring at least ``floor`` is looked for (the searches prune
    below it): the answer is the best play when that reaches ``floor``, else a score below it.
    ``bound_only``: where the best bound is not a legal play (it frees a joker outside a host,
    or does not decode), that bound as an ``Undecoded`` instead of settling it (no host search).

    The whole rack first (0.3.5): each choice is searched with the floor at a play of the whole
    rack, those that free more jokers first, and a bound that reaches it and is legal, or that
    ``_guided`` settles, is the answer (no play beats the whole rack), before any choice is
    searched lower. The others are then searched below it (their floors at the whole rack are not
    run again), and ``_settle`` skips the ``_guided`` already tried. On ``guide-strict-joker``'s
    greedy positions the lower passes of the choices that could not place the whole rack were two
    thirds of the states. A choice that frees every joker (no pins) and finds no play of the whole
    rack ends this pass (0.3.17): at that floor it relaxes every other choice (each freeing tile
    is a rack tile such a play places anyway, a freed joker may stand where a kept one does, and no
    set is pinned), so no other choice places the whole rack either (``guide-strict-joker``
    greedy's set: 896,033 -> 828,140 states). Not under ``reuse: new_set`` (0.3.8): a choice that
    frees jokers reaches the whole rack there with its freed jokers beside table tiles, which
    ``_guided`` does not settle. There, in the choices' order, a choice that frees one joker and
    whose bound plays the whole rack has its host sets searched at once at that floor
    (``_one_host_whole``, 0.3.18).
    Past a choice whose bound is a legal play, the next choices search above it only, and a legal
    play of the whole rack ends the search (``_legal_above``, 0.3.9). Under ``reuse: new_set`` a
    floor that the rack cannot reach with its freed jokers in sets of rack tiles alone ends it
    before any choice (``reach.out_of_reach``, 0.3.24)."""
    ts = profile.tileset
    if not profile.turn.rearrange:  # dp pins (rearrange=False): every table set stays as it is
        return _best(rack, table, profile, objective, meter, floor=floor, **pin_all(table, ts.joker))
    locked = table_jokers(table, profile)
    if not locked or profile.jokers.table_jokers == "free":
        return _best(rack, table, profile, objective, meter, floor=floor)
    whole = _whole_rack(rack, profile, objective)
    if floor is not None and out_of_reach(rack, table, locked, profile, objective, floor, whole):
        return NO_BOUND, table, ()  # (under ``reuse: new_set``: no joker choice reaches the floor)
    rack_counts = np.bincount(np.asarray(rack, dtype=np.int64), minlength=ts.n_codes)
    listed = _choices(table, locked, rack_counts, profile)
    if listed is None:
        meter.fail(GiveUp.STRICT_SPLIT)
        return None
    choices, splits = listed
    # for ``_hosted``, over all choices (lower for a quick search, ``Meter.quick``)
    host_cap = meter.host_caps(new_set=profile.jokers.reuse == "new_set")
    # a floor below every score: a choice no table can realise (two kept jokers at one face with
    # no set to hold both) answers "nothing reaches it", not None
    low = NO_BOUND + 1 if floor is None else floor
    args = (rack, full_rack, table, profile, objective)
    split: _Found | None = None
    if splits:  # a strict set that keeps one joker and frees another (0.3.10)
        split = _split_best(*args, meter, splits, low)
        if split is None:
            return None
        if split[2]:
            meter.keep(split)
            if split[0] >= whole or not choices:
                return split
            low = split[0] + 1
    found = _search_choices(*args, meter, choices, low, whole, host_cap, bound_only)
    if split is None or not split[2] or found is None:
        return found
    score = found.score if isinstance(found, Undecoded) else found[0]
    return found if score > split[0] else split


def table_jokers(table: tuple[Meld, ...], profile: RuleProfile) -> list[tuple[int, frozenset[int]]]:
    """Each table joker's face and the faces it may keep (``moves.joker_acceptable``), set by set."""
    joker = profile.tileset.joker
    return [
        (face, joker_acceptable(profile, meld, face))
        for meld in table
        if joker in meld.tiles
        for t, face in zip(meld.tiles, meld.faces, strict=True)
        if t == joker
    ]


def _search_choices(
    rack, full_rack, table, profile, objective, meter: Meter, choices, low: int, whole: int, host_cap,
    bound_only: bool,
) -> _Found | Undecoded | None:  # fmt: skip
    """``_solve_rack``'s search of the joker choices (but the splits) above ``low``."""
    args = (rack, full_rack, table, profile, objective)
    # the pruned passes may pick another of several best tables than the full search does;
    # when that settles nothing, search in full
    for prune in (True, False):
        known: dict[int, Any] = {}  # the choices' bounds found so far
        guided: set[tuple] = set()  # (kept faces, forced tiles) of choices ``_guided`` tried
        below = None  # where the other choices' bounds lie below
        if prune and whole > low and profile.jokers.reuse != "new_set":
            # the whole rack first, those choices that free more jokers first: the first whose
            # bound reaches it and settles to a legal play is the answer (no play beats it)
            for i in sorted(range(len(choices)), key=lambda i: -len(choices[i][1])):
                found = _choice_bound(*args, meter, choices[i], prune, whole, None, bound_only)
                if found is None:
                    return None
                if not isinstance(found, Undecoded) and found[0] < whole:
                    if not choices[i][0] and not choices[i][2]:
                        break  # it freed every joker: no other choice places the whole rack
                    continue
                known[i] = found
                if not bound_only:
                    settled = _settle_whole(*args, (found, *choices[i]), meter, whole)
                    if settled is not None:
                        return settled
                    # (where ``_settle_whole`` did not try ``_guided``, ``_try_guided`` would not either)
                    guided.add(choices[i][:2])
            below = whole
        above = low  # past a legal play, the next choices only look above it
        new_set = prune and whole > low and profile.jokers.reuse == "new_set"
        ladder = below is None  # none where the whole-rack-first pass ruled the whole rack out
        for i, choice in enumerate(choices):
            if i not in known:
                found = _choice_bound(*args, meter, choice, prune, above, below, bound_only, ladder)
                if found is None:
                    return None
                known[i] = found
                if _legal_above(found, above, profile, table, full_rack, meter):
                    if found[0] >= whole:
                        meter.keep(found)
                        return found  # no play beats a legal play of the whole rack
                    above = found[0] + 1
                elif new_set and not bound_only and _frees_one(found, choice, whole):
                    settled = _one_host_whole(*args, choice, found, prune, host_cap, meter)
                    if settled is not None and settled[2]:
                        return settled
                    if settled is not None:
                        known[i] = Undecoded(whole - 1)  # its legal plays fall short of the whole rack
        results, undecoded = _gather(known, choices)
        if bound_only and results:
            return _bound(results, undecoded, rack, full_rack, table, profile, meter)
        settled = _settle(results, *args, prune, host_cap, meter, low, undecoded, frozenset(guided))
        if settled is not None:
            return settled
        if host_cap[0] < 0 or host_cap[1] < 0:
            return None  # the host search ran past its limits: a full pass would too
    return None


def _frees_one(found, choice, whole: int) -> bool:
    """Whether a joker choice's bound is a play of the whole rack that frees one joker."""
    return not isinstance(found, Undecoded) and found[0] >= whole and len(choice[1]) == 1


def _one_host_whole(rack, full_rack, table, profile, objective, choice, found, prune, host_cap, meter):
    """Under ``reuse: new_set``, which has no whole-rack-first pass: a choice that frees one joker
    and whose bound plays the whole rack, settled at once at that floor (0.3.18). A legal play of
    the whole rack ends the search (no play beats it; the other choices are not searched); no
    play (``()`` played): the choice's legal plays fall short of it; None where the host search
    gives up (``meter.why`` as it was: ``_settle`` asks again). ``polish-40`` trickle-jokers #49:
    sixteen choices of four table jokers, fifteen of them bounded by the whole rest of an opening,
    whose first settles it in 694 states, where their bounds took 139,000."""
    virtual, forced, pinned = choice
    why = meter.why
    found = _hosted(
        rack, full_rack, table, profile, objective, virtual, forced, found[0], prune, (), host_cap, meter,
        tracked_pins=pinned, ceiling=found[0],
    )  # fmt: skip
    if found is None:
        meter.why = why
        return None
    if found[2]:
        meter.keep(found)
    return found


def _settle_whole(rack, full_rack, table, profile, objective, result, meter: Meter, whole):
    """A legal play of the whole rack from a joker choice's bound that reaches it (``result``: the
    bound, its kept faces, forced tiles and pins): the bound's play where it is legal, else what
    ``_guided`` finds (host sets read off that play; no other host search), or None (the search
    goes on; ``meter`` keeps the legal plays found on the way, for a search cut short)."""
    found, virtual, forced, pinned = result
    if isinstance(found, Undecoded):
        return None
    if _legal(profile, table, full_rack, found, meter):
        return found if len(found[2]) == len(rack) else None
    args = (rack, full_rack, table, profile, objective, virtual, forced)
    found = _try_guided(*args, found, True, meter, pinned)
    if found is None or len(found[2]) < len(rack):
        return None
    meter.keep(found)
    return found


def _try_guided(rack, full_rack, table, profile, objective, virtual, forced, bound, prune, meter, pinned):
    """``_guided`` where it applies: under ``reuse: two_rack_tiles``, a bound that decoded, not in
    a quick search (``Meter.quick``); else None. Its give-ups leave ``meter.why`` as it was (the
    full host search may still settle the choice)."""
    if meter.quick or profile.jokers.reuse != "two_rack_tiles" or isinstance(bound, Undecoded):
        return None
    why = meter.why
    found = _guided(rack, full_rack, table, profile, objective, virtual, forced, bound, prune, meter, pinned)
    meter.why = why
    return found


def _settle(
    results, rack, full_rack, table, profile, objective, prune, host_cap, meter, floor=None, undecoded=None,
    guided=frozenset(),
) -> _Found | None:  # fmt: skip
    """The best legal play from the bounds of each joker choice (best first): the first legal
    play, unless a better bound freed jokers; such a choice is then solved exactly by
    ``_hosted`` (the sets that may hold the freed jokers), above the legal play found (and
    ``floor``, when given). Where that gives up: None, or under ``Meter.settle`` the best legal
    play found so far (``Meter.cut``; the rest of the search then quick, ``Meter.quick``).
    A choice that frees jokers and whose steps did not decode (``passes.Undecoded``) goes to
    ``_hosted`` like one whose play is refused. ``undecoded``: the best bound of the choices that
    free none and did not decode (under ``Meter.settle``): the answer is proven only where a
    legal play reaches it. ``guided``: (kept faces, forced tiles) of the choices whose ``_guided``
    already came to nothing (``_settle_whole``), not tried again."""
    best, pending = _first_legal(results, full_rack, table, profile, meter)
    if best is not None:
        meter.keep(best)
    # choices freeing one joker first: their plays may settle those that free several
    pending.sort(key=lambda r: (len(r[2]) != 1, -r[0][0]))
    unsettled: tuple[int, GiveUp | None] | None = None  # the best bound of a choice given up on
    for found, virtual, forced, pinned in pending:
        if best is not None and found[0] <= best[0]:
            continue
        if not forced:
            # a refused play that frees no joker (a pin's jokers past ``max_per_set``; 0.3.8)
            if floor is not None and found[0] < floor:
                continue
            meter.fail(GiveUp.REFUSED)
            if not meter.settle:
                return None
            if unsettled is None or found[0] > unsettled[0]:
                unsettled = (found[0], GiveUp.REFUSED)
            continue
        if profile.jokers.reuse == "any":
            meter.fail(GiveUp.HOSTS_REUSE_ANY)
            return None
        above = NO_BOUND if best is None else best[0] + 1
        if floor is not None:
            above = max(above, floor)
        args = (rack, full_rack, table, profile, objective, virtual, forced)
        # (a choice whose ``_guided`` came to nothing before is not guided again)
        sub = None if (virtual, forced) in guided else _try_guided(*args, found, prune, meter, pinned)
        if sub is None and unsettled is None:
            sub = _hosted(*args, above, prune, (), host_cap, meter, tracked_pins=pinned, ceiling=found[0])
            if sub is None and pinned and host_cap[0] >= 0 and host_cap[1] >= 0:
                # without the pins its best play broke a pinned set: host sets beside the pins
                sub = _hosted(*args, above, prune, (), host_cap, meter, pinned, ceiling=found[0])
            if sub is None and not meter.settle:
                return None
        if sub is None:
            # past the host limits: the other choices go on with ``_guided`` only; a play that
            # reaches this bound still settles the position
            if unsettled is None or found[0] > unsettled[0]:
                unsettled = (found[0], meter.why)
            continue
        if sub[2] and sub[0] >= above:
            best = sub
            meter.keep(best)
    if undecoded is not None and (unsettled is None or undecoded > unsettled[0]):
        unsettled = (undecoded, GiveUp.DECODE)
    if unsettled is not None and (best is None or best[0] < unsettled[0]):
        # the best legal play so far, not proven best; the rest of the search quick
        meter.cut = meter.quick = True
        meter.why = unsettled[1]
        return best if best is not None else (0, table, ())
    return best


GUIDED_PASSES = 8  # DP passes ``_guided`` may run for one joker choice (0.3.14; 48 before)
GUIDED_TRACKED = 2  # ... and tracked host passes (``_tracked_host``) beside a host set it placed


def _guided(
    rack, full_rack, table, profile, objective, virtual, forced, bound: _Found, prune, meter: Meter,
    pinned=(), placed: tuple[Host, ...] = (), play: _Found | None = None, passes: list[int] | None = None,
):  # fmt: skip
    """A legal play that reaches a joker choice's bound (its best play with the freed jokers
    free, which ``validate_move`` refused), or None. The host sets read off that play
    (``relaxed_hosts``) go first: with one placed, the DP solves the tiles left with the floor at
    the bound, so a legal play it finds is the choice's optimum; where its play still leaves a
    freed joker outside a host, the hosts read off that play are tried next (depth first), within
    ``GUIDED_PASSES`` passes, then, for the first ``GUIDED_TRACKED`` host sets, one pass that
    tracks the last freed jokers' hosts (``_tracked_host``). Often the bound is reached by another
    arrangement of the same tiles; where it is not, ``_hosted`` searches the choice in full."""
    passes = [GUIDED_PASSES, GUIDED_TRACKED] if passes is None else passes
    play = bound if play is None else play
    joker = profile.tileset.joker
    left = len(forced) - sum(freed_in(host, joker) for host in placed)
    table_counts, rack_counts, _ = _pools(rack, table, profile, objective, virtual, forced, placed)
    for host in relaxed_hosts(play[1], table_counts, rack_counts, profile, left):
        if passes[0] <= 0:
            return None
        passes[0] -= 1
        hosts = placed + (host,)
        opts = dict(virtual=virtual, forced=forced, prune=prune, hosts=hosts, floor=bound[0], pinned=pinned)
        found = _best(rack, table, profile, objective, meter, **opts)
        if found is None or not found[2] or found[0] < bound[0]:
            continue
        if _legal(profile, table, full_rack, found):
            return found
        if left > freed_in(host, joker):
            args = (rack, full_rack, table, profile, objective, virtual, forced, bound, prune, meter)
            found = _guided(*args, pinned, hosts, found, passes)
            if found is None and passes[1] > 0 and left - freed_in(host, joker) in (1, 2):
                passes[1] -= 1  # the last freed jokers' hosts tracked, beside this host set
                found = _tracked_host(
                    rack, full_rack, table, profile, objective, meter, virtual, forced, bound[0], prune,
                    hosts, pinned, ceiling=bound[0],
                )  # fmt: skip
            if found is not None and found[2] and found[0] >= bound[0]:
                return found
    return None


def _hosted(
    rack, full_rack, table, profile, objective, virtual, forced, floor, prune, placed, host_cap, meter,
    pinned=(), tracked_pins=None, ceiling=None,
):  # fmt: skip
    """``_host_sets_search``; where that gives up on one or two freed jokers (too many host
    sets, or a host play it cannot place), one search that tracks the host sets
    (``_tracked_host``), except in a quick search (``Meter.quick``). Two freed jokers under
    ``reuse: two_rack_tiles`` list their host sets within their own, wider limits
    (``SearchOptions.pair_host_solves``, 0.3.8) before the tracked pass. ``pinned``: the sets that
    stay together (strict joker sets); ``tracked_pins``: those the tracked search keeps, where
    the listing searches without them (default: ``pinned``)."""
    args = (rack, full_rack, table, profile, objective, virtual, forced)
    tracked_pins = pinned if tracked_pins is None else tracked_pins
    left = len(forced) - sum(freed_in(host, profile.tileset.joker) for host in placed)
    tracked = left in (1, 2) and not meter.quick  # (``reuse: any`` never comes here: ``_settle``)
    if placed and tracked:
        # a host set placed and the floor keep this pass small (a few thousand states)
        before = meter.spent
        found = _tracked_host(
            rack, full_rack, table, profile, objective, meter, virtual, forced, floor, prune, placed,
            tracked_pins, ceiling=ceiling,
        )  # fmt: skip
        host_cap[1] -= meter.spent - before
        if found is not None or host_cap[1] < 0:
            return found
    caps = host_cap
    tracked_first = False
    listed = None  # the listing's host sets, where they are already known
    if not placed and left == 2 and not meter.quick and profile.jokers.reuse == "two_rack_tiles":
        caps = host_cap[2:]  # two freed jokers: the listing's own, wider limits (``host_caps``)
        first = meter.options.pair_listing_first
        listed = _listed_hosts(rack, table, profile, objective, virtual, forced, (), pinned, first)
        tracked_first = _many_hosts(listed, first)
        if tracked_first:
            listed = None  # (cut short at ``first``: the listing lists them again, in full)
    if tracked_first:
        found = _tracked_host(
            rack, full_rack, table, profile, objective, meter, virtual, forced, floor, prune, (),
            tracked_pins, ceiling=ceiling,
        )  # fmt: skip
        if found is not None:
            return found
        tracked, gave_up = False, meter.why  # (the listing next; no second tracked pass)
    before = meter.spent
    found = _host_sets_search(
        *args, floor, prune, placed, caps, meter, pinned, tracked_pins, ceiling, listed=listed
    )  # fmt: skip
    if caps is not host_cap:
        host_cap[2:] = caps
        if min(caps) < 0:
            host_cap[0] = -1  # past them: ``_solve_rack`` gives up after the tracked pass
    if tracked_first and found is None and meter.spent == before:
        meter.why = gave_up  # the listing refused at once: the tracked pass's reason stands
    if found is not None or placed or not tracked:
        return found
    return _tracked_host(
        rack, full_rack, table, profile, objective, meter, virtual, forced, floor, prune, (), tracked_pins,
        ceiling=ceiling,
    )  # fmt: skip


def _many_hosts(listed, first: int) -> bool:
    """Whether two freed jokers have more host sets to list (``_listed_hosts``, cut short past
    ``first``) than ``SearchOptions.pair_listing_first`` (0.3.17): their tracked pass then goes
    before the listing, which runs only where that pass finds nothing. Between 100 and 2,000 host
    sets the tracked pass mostly costs less: ``ramino-discard`` beginner-value #19 lists two
    choices' host sets in 68,000 states each, 15 ms, where the pass settles them in a third of
    that; a listing that settles what the pass gives up on is still there (one search of 3,150 in
    ``guide-strict-joker`` trickle-jokers' games without a budget)."""
    return listed is not None and (listed[0] is None or len(listed[0]) + len(listed[1]) > first)


def _host_sets_search(
    rack, full_rack, table, profile, objective, virtual, forced, floor, prune, placed, host_cap, meter,
    pinned=(), tracked_pins=None, ceiling=None, among=None, listed=None,
):  # fmt: skip
    """The best play of a joker choice that frees table jokers (the ``forced`` rack tiles
    replace them), under ``reuse: two_rack_tiles``, if it reaches ``floor`` (else a score
    below ``floor``), with the sets in ``placed`` taken. Each freed joker gets a set with
    two other rack items (``freed_joker_hosts``; several freed jokers may share one, up to
    ``jokers.max_per_set``), one set after the other, for any number of freed jokers: the
    DP on the tiles left, the other freed jokers still free, bounds the play, best bound
    first; a legal play settles that branch, an illegal one recurses. Complete: every legal
    play holds a set with some of the freed jokers left, which is one of the hosts listed.
    ``pinned`` (strict joker sets: the sets of the choice's kept jokers, ``pins.strict_pins``): the
    DP keeps them as pins, and the hosts are sets of the other tiles. Without ``pinned`` under
    strict joker sets the DP relaxes the pins: exact where its play keeps them, else ``None``.
    ``None`` when this cannot be settled here (the search gives up).

    Under ``reuse: new_set`` a play's sets are a multiset of the listed ones (one freed joker each):
    the next level takes its set from ``among`` (this level's sets at or after the one placed, those
    the rack still holds), so a pair is searched once. Up to ``NEW_SET_PAIRS`` sets, two freed
    jokers go to the DP a pair at once (a pass with a free joker costs about ten without one).
    ``listed``: ``_listed_hosts``' answer where the caller has it (``_hosted``)."""
    ts = profile.tileset
    counts = _tile_counts(rack, table, ts)  # (the same for each host set's pass below)
    left = len(forced) - sum(freed_in(host, ts.joker) for host in placed)
    hosts: list[Host] | None
    grown: list[tuple[Host, tuple[int, ...], tuple]] = []  # pinned runs grown into the host
    if profile.jokers.reuse == "new_set":  # a set of one freed joker and rack tiles alone
        rack_counts = _pools(rack, table, profile, objective, virtual, forced, placed, counts)[1]
        hosts = new_set_host_sets(rack_counts, profile) if among is None else held_hosts(among, rack_counts)
    else:
        if listed is None:
            listed = _listed_hosts(
                rack, table, profile, objective, virtual, forced, placed, pinned, host_cap[0], counts
            )
        if listed is None:
            meter.fail(GiveUp.PIN_MAY_HOST)
            return None
        hosts, grown = listed
    if hosts is None or len(hosts) + len(grown) > host_cap[0]:
        host_cap[0] = -1  # past the limits: ``_solve_rack`` gives up at once
        meter.fail(GiveUp.hosts(left))
        return None
    top = _whole_rack(rack, profile, objective)
    best: _Found = (NO_BOUND, table, ())
    args = (rack, full_rack, table, profile, objective, virtual, forced)
    if profile.jokers.reuse == "new_set" and left == 2 and len(hosts) <= NEW_SET_PAIRS:
        # each pair of sets once, with no bound of one set and the other joker free first
        return pair_search(
            rack, full_rack, table, profile, objective, meter, virtual, forced, floor, prune, placed, hosts,
            host_cap, pinned, ceiling, counts,
        )  # fmt: skip
    bounds = []
    # a pinned run grown into the host: the pin released, its jokers no longer kept ones
    # (host, kept faces, pins, freed jokers it holds: a grown pin's jokers are its kept ones and one)
    tries = [(host, virtual, pinned, freed_in(host, ts.joker)) for host in hosts]
    tries += [(host, kept, pins, 1) for host, kept, pins in grown]
    listing = None
    if batched(profile, pinned):
        listing = Listing(rack, table, profile, objective, virtual, forced, placed, hosts, counts)
    i = 0
    while i < len(tries):
        if floor > top:
            break  # a play of the whole rack is known
        if listing is not None and i < len(hosts):  # the sets that find nothing, in one compiled call
            rows = np.arange(i, min(i + BATCH, len(hosts)))[:, None]
            i += refuted_rows(profile, objective, meter, listing, rows, floor, host_cap)
            if i == len(tries):
                break
        host, kept, pins, freed = tries[i]
        i += 1
        found = capped_host(
            rack, table, profile, objective, meter, forced, prune, placed, host, kept, pins, floor, ceiling,
            counts, host_cap, left,
        )  # fmt: skip
        if found is None:
            return None
        if found[0] < floor:
            continue
        if left == freed:  # every freed joker has its set: a legal play
            if not _legal(profile, table, full_rack, found):
                meter.fail(GiveUp.HOSTS_REFUSED)
                return None
            best = found
            floor = found[0] + 1
        else:
            bounds.append((found, host))
    bounds.sort(key=lambda r: -r[0][0])
    for i, (found, host) in enumerate(bounds):
        if found[0] < floor:
            break
        if not _legal(profile, table, full_rack, found):
            if profile.jokers.reuse == "new_set":  # the next set among this one and those after it
                later = [h for f, h in bounds[i:] if f[0] >= floor]
                sub = (floor, prune, placed + (host,), host_cap, meter, pinned, tracked_pins, found[0], later)
                found = _host_sets_search(*args, *sub)
            else:
                found = _hosted(
                    *args, floor, prune, placed + (host,), host_cap, meter, pinned, tracked_pins, found[0]
                )
            if found is None:
                return None
            if not found[2] or found[0] < floor:
                continue
        best = found
        floor = found[0] + 1
    return best


NEW_SET_PAIRS = 32  # up to this many new-set host sets, two freed jokers search every pair at once


def _listed_hosts(rack, table, profile, objective, virtual, forced, placed, pinned, cap, counts=None):
    """The host sets ``_host_sets_search`` lists under ``reuse: two_rack_tiles`` (None past
    ``cap`` of them) and the pinned runs grown into a host; None where a pin could itself host
    and no grown run stands for it (``GiveUp.PIN_MAY_HOST``). ``pinned``: the hosts are sets of
    the tiles outside the pins, the pins kept as they are."""
    table_counts, rack_counts, _ = _pools(rack, table, profile, objective, virtual, forced, placed, counts)
    left = len(forced) - sum(freed_in(host, profile.tileset.joker) for host in placed)
    grown: list[tuple[Host, tuple[int, ...], tuple]] | None = []
    if pinned:
        outside = outside_pins(table_counts, rack_counts, pinned, left, profile)
        if outside is not None and outside[1]:
            grown = grown_pins(table_counts, rack_counts, pinned, outside[1], virtual, left, profile)
        if outside is None or grown is None:
            return None
        table_counts = outside[0]
    return rack_item_hosts(table_counts, rack_counts, profile, left, cap), grown


def _tracked_host(
    rack, full_rack, table, profile, objective, meter, virtual, forced, floor, prune, placed=(), pinned=(),
    ceiling=None,
):  # fmt: skip
    """``_hosted`` for one or two freed jokers by one search that tracks their host sets
    (``_best`` with ``host``): its best play if that reaches ``floor``, else a score below
    ``floor``; None where that search does not apply, runs past ``SearchOptions.max_tracked_states``
    (or ``max_tracked_call`` in one kernel call) or decodes into a play that ``validate_move``
    refuses, also once more with the kept jokers put back outside the host runs. Its states
    count against the search budget like any other pass (past the budget: ``SearchBudgetSpent``)."""
    cap = meter.options.max_tracked_states
    capped = meter.left is None or meter.left > cap
    grown: list | None = None  # the pinned runs grown into the host, where the pins are relaxed
    kept_pins = pinned
    if pinned:
        # its host sets are runs and groups outside the pins: complete unless a pin could itself
        # grow into a host (``hosts.outside_pins``); then it relaxes the pins instead (exact where its
        # play keeps them)
        table_counts, rack_counts, _ = _pools(rack, table, profile, objective, virtual, forced, placed)
        left = len(forced) - sum(freed_in(host, profile.tileset.joker) for host in placed)
        outside = outside_pins(table_counts, rack_counts, pinned, left, profile)
        if outside is None or outside[1]:
            if outside is not None:
                grown = grown_pins(table_counts, rack_counts, pinned, outside[1], virtual, left, profile)
            pinned = ()
    opts = dict(
        virtual=virtual, forced=forced, prune=prune, floor=floor, host=True, hosts=placed, pinned=pinned,
        ceiling=ceiling,
    )  # fmt: skip

    options = meter.options
    if profile.jokers.reuse == "new_set":
        # no plain-pass bounds (``backward``): the plain pass never closes a valid run where a run of
        # its colour starts (``tables.RunTypes.merges``: extending it places the same tiles), but a
        # ``new_set`` host run of rack tiles must close before a table tile, so its states' plain
        # projections are made only by worse paths, whose futures the plain pass cut (fuzz seed
        # 42201: ``J(K3) O3 B3 | R6 R7 R8`` with ``R3 R3 R5 B6``, the host ``R3 J R5`` before ``R6``)
        options = replace(options, backward=False)

    def tracked_pass(limit: int | None, kept_outside_hosts: bool = False):
        """One pass within ``limit`` states: (its answer, its meter, whether it ran past the limit);
        past the search budget, where the pass is charged to it, ``SearchBudgetSpent``."""
        sub = Meter(limit, options=options, call_limit=options.max_tracked_call if capped else None)
        try:
            found = _best(rack, table, profile, objective, sub, **opts, kept_outside_hosts=kept_outside_hosts)
            return found, sub, False
        except SearchBudgetSpent:
            if not capped:
                raise  # the search budget is spent
            return None, sub, True
        finally:
            meter.spend(sub.spent)

    found, sub, past = tracked_pass(cap if capped else meter.left)
    if past:
        meter.fail(GiveUp.TRACKED_STATES)  # past its own limit
        if meter.options.end_at_tracked_limit:
            raise TrackedLimitReached
        return None
    if found is None:
        meter.fail(sub.why or GiveUp.TRACKED_NOT_APPLICABLE)
        return None
    if found[0] >= floor and not _legal(profile, table, full_rack, found):
        if virtual:
            # the kept jokers back into sets other than the host runs: a tile of the kept
            # joker's face there may be a rack item the host run counted (one more pass)
            found, retry, _ = tracked_pass(sub.left, kept_outside_hosts=True)
            if found is not None and _legal(profile, table, full_rack, found):
                return found
            sub = retry
        if grown is not None:
            # the relaxed pins played a pinned set apart: the hosts outside the pins (one pass
            # that keeps them) and each pinned run grown into the host (0.3.9)
            opts["pinned"] = kept_pins
            found, _, past = tracked_pass(sub.left)
            args = (rack, full_rack, table, profile, objective, forced, floor, prune, placed, grown)
            if found is not None and not past:
                found = _best_grown(*args, found, meter, ceiling, GiveUp.TRACKED_REFUSED)
            if found is not None:
                return found
        meter.fail(GiveUp.TRACKED_REFUSED)
        return None
    return found
