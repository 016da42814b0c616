"""The joker choices of a position (``_choices``): each locked table joker kept at a face or freed
by a rack tile, and under strict joker sets the sets that keep their jokers pinned; the bound of
one choice (``_choice_bound``), the choices' results gathered best first, and which of them is a
legal play (``_legal``, ``_first_legal``, ``_legal_above``). A strict set that keeps one joker and
frees another (a split, 0.3.10) is searched apart (``_split_best``): the set, its freeing tile in
the freed joker's place (or without that place, at the run's end), grows into the freed joker's
host. ``_with_host``: the DP beside one
more host set; ``_best_grown``: the best play beside each pinned run grown into a freed joker's
host. ``jokers._solve_rack`` runs the search. Pure; no I/O.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from rummisim.profile import RuleProfile
from rummisim.solver.budget import GiveUp, Meter
from rummisim.solver.common import is_legal, tile_gains
from rummisim.solver.hosts import grown_pins
from rummisim.solver.passes import NO_BOUND, Undecoded, _best, _best_or_bound, _Found, _pools
from rummisim.solver.pins import NO_PINS, split_pins, strict_pins


def _choices(table, locked, rack_counts, profile: RuleProfile) -> tuple[list[tuple], list[tuple]] | None:
    """The joker choices of a position, as (kept faces, forced rack tiles, pinned sets): each
    locked joker kept at a face it may keep, or freed by a rack tile of such a face (the rack
    holding enough of them); under strict joker sets the sets of the kept jokers pinned
    (``pins.strict_pins``), a choice whose kept faces no table holds left out. Beside them, the
    choices where a strict set keeps one joker and frees another (the only one freed), as (kept
    faces, forced tiles, pinned sets, the split set's index; ``pins.split_pins``). None where
    some other split could be played (the search gives up)."""
    options = [
        [(False, f) for f in sorted(ok)] + [(True, f) for f in sorted(ok) if rack_counts[f] > 0]
        for _, ok in locked
    ]
    choices = []
    splits = []
    for choice in product(*options):
        forced = tuple(f for freed, f in choice if freed)
        if any(forced.count(f) > rack_counts[f] for f in forced):
            continue
        virtual = tuple(f for freed, f in choice if not freed)
        pinned: Any = ()
        if not profile.jokers.take_from_joker_sets:  # dp pins: the sets of kept jokers stay
            pinned = strict_pins(table, choice, profile, rack_counts)
            if pinned is None:
                variants = split_pins(table, choice, profile)
                if variants is None or len(forced) != 1:
                    return None
                if variants is not NO_PINS:
                    splits += [(virtual, forced, *variant) for variant in variants]
                continue
            if pinned is NO_PINS:
                continue  # kept jokers of one set at faces no set holds
        choices.append((virtual, forced, pinned))
    return choices, splits


def _split_best(
    rack, full_rack, table, profile, objective, meter: Meter, splits, floor: int
) -> _Found | None:
    """The best legal play of the split choices (``_choices``, 0.3.10) if it reaches ``floor``,
    else no play: the split set, its freeing tile in the freed joker's place (or without that
    place, where the freed joker stood at the run's end: ``pins.split_pins``), grows into the
    freed joker's host (``hosts.grown_pins``: tiles at either end, two rack items in it), and the
    DP places the rest beside that set and the other pins, in full (``prune=False``: the floor
    alone prunes; ``_best_grown``). None where it gives up (a rack joker, a play
    ``validate_move`` refuses)."""
    best: _Found | None = (NO_BOUND, table, ())
    for virtual, forced, pinned, index in splits:
        table_counts, rack_counts, _ = _pools(rack, table, profile, objective, virtual, forced)
        grown = grown_pins(table_counts, rack_counts, pinned, [index], virtual, 1, profile)
        if grown is None:
            meter.fail(GiveUp.STRICT_SPLIT)
            return None
        args = (rack, full_rack, table, profile, objective, forced, floor, False, (), grown)
        best = _best_grown(*args, best, meter, None, GiveUp.STRICT_SPLIT)
        if best is None:
            return None
        if best[2]:
            floor = max(floor, best[0] + 1)
    return best


def _best_grown(
    rack, full_rack, table, profile, objective, forced, floor, prune, placed, grown, found, meter: Meter,
    ceiling, refused: GiveUp,
) -> _Found | None:  # fmt: skip
    """The best of ``found`` (a play found before: under strict joker sets, a tracked pass keeping
    the pins, its hosts outside them) and each pinned run grown into the host of the last freed
    joker (``grown``: ``hosts.grown_pins``, as (host, kept faces, pins)), if it reaches ``floor``,
    else a score below it; None where a search gives up, or where a play that reaches it is
    refused (``refused``: the reason then)."""
    if found[0] >= floor:
        if not _legal(profile, table, full_rack, found):
            meter.fail(refused)
            return None
        floor = found[0] + 1
    for host, kept, pins in grown:
        play = _with_host(
            rack, table, profile, objective, meter, forced, prune, placed, host, kept, pins, floor, ceiling
        )
        if play is None:
            return None
        if play[2] and play[0] >= floor:
            if not _legal(profile, table, full_rack, play):
                meter.fail(refused)
                return None
            found, floor = play, play[0] + 1
    return found


def _choice_bound(
    rack, full_rack, table, profile, objective, meter, choice, prune, floor, below, bound_only, ladder=True
):
    """The best play of one joker choice (``_best_or_bound``, its freed jokers free) if it reaches
    ``floor``, else a score below ``floor``; ``below``: a score its plays stay below (no floor
    above it is run; ``ladder``: ``_best_or_bound``'s). None where the search gives up, also on a
    decoding that fails (an ``Undecoded`` bound), unless the search settles (``Meter.settle``) or
    wants the bound only."""
    virtual, forced, pinned = choice
    opts: dict[str, Any] = dict(virtual=virtual, forced=forced, prune=prune, floor=floor, ladder=ladder)
    if pinned:
        opts["pinned"] = pinned
    if below is not None:
        opts["ceiling"] = below - 1
    found = _best_or_bound(rack, table, profile, objective, meter, **opts)
    if found is None or (isinstance(found, Undecoded) and not (meter.settle or bound_only)):
        return None
    return found


def _gather(known: dict, choices: list) -> tuple[list, int | None]:
    """The choices' results as ``_settle`` takes them, best bound first (ties in the choices'
    order), and the best bound of those that free no joker and did not decode (``Undecoded``;
    a bound only)."""
    results = []
    undecoded = None
    for i, (virtual, forced, pinned) in enumerate(choices):
        found = known.get(i)
        if found is None:
            continue
        if isinstance(found, Undecoded) and not forced:  # no freed joker: a bound only
            undecoded = found.score if undecoded is None else max(undecoded, found.score)
            continue
        results.append((found, virtual, forced, pinned))
    results.sort(key=lambda r: -r[0][0])
    return results, undecoded


def _whole_rack(rack, profile: RuleProfile, objective: str) -> int:
    """The score of a play of the whole rack, which no play passes."""
    gains = tile_gains(profile, objective)
    return sum(gains[t] for t in rack)


def _legal_above(found, above: int, profile, table, full_rack, meter: Meter | None = None) -> bool:
    """Whether a joker choice's bound is a legal play that reaches ``above`` (0.3.9). The choices
    after it then search above it only (their plays below it do not matter), and one that plays
    the whole rack settles the search: under ``reuse: new_set``, which has no whole-rack-first
    pass, ``polish-40``'s openings had searched every joker choice after the first, keeping
    every joker, had placed the whole rack."""
    if isinstance(found, Undecoded) or not found[2] or found[0] < above:
        return False
    return _legal(profile, table, full_rack, found, meter)


def _bound(results, undecoded, rack, full_rack, table, profile, meter) -> _Found | Undecoded:
    """``_solve_rack``'s ``bound_only`` answer from the joker choices' bounds (best first): the
    best play where it is legal, else the best bound (``Undecoded``); the best legal play on the
    way is kept (``Meter.keep``: a search cut short by its budget answers it)."""
    bound = results[0][0][0] if undecoded is None else max(results[0][0][0], undecoded)
    best, _ = _first_legal(results, full_rack, table, profile, meter)
    if best is None:
        return Undecoded(bound)
    meter.keep(best)
    return best if best[0] >= bound else Undecoded(bound)


def _first_legal(
    results, full_rack, table, profile, meter: Meter | None = None
) -> tuple[_Found | None, list]:
    """The first of the joker choices' results (best first) that is a legal play, or no play
    (the table as it is), else None; and the choices before it whose play ``validate_move``
    refuses or whose steps did not decode (``passes.Undecoded``)."""
    pending = []
    for result in results:
        found = result[0]
        if isinstance(found, Undecoded) or (found[2] and not _legal(profile, table, full_rack, found, meter)):
            pending.append(result)
            continue
        return (found if found[2] else (found[0], table, ())), pending
    return None, pending


def _legal(profile, table, full_rack, found: _Found, meter: Meter | None = None) -> bool:
    """Whether a play the DP found keeps the table's joker rules. A play of the whole rack
    under a discard pile counts as legal here: the keep-back is ``_best_play``'s job (it then
    searches the rack less one tile), not a reason to look for other joker hosts. With ``meter``,
    the verdict is remembered for the rest of its search (``Meter.verdicts``: ``polish-40`` greedy
    #94 checks 29 plays, 56 times without it)."""
    if meter is None:
        return _checked(profile, table, full_rack, found)
    key = (table, full_rack, found[1], found[2])
    verdict = meter.verdicts.get(key)
    if verdict is None:
        verdict = meter.verdicts[key] = _checked(profile, table, full_rack, found)
    return verdict


def _checked(profile, table, full_rack, found: _Found) -> bool:
    return is_legal(profile, table, full_rack, found[1], found[2], opened=True, waive=("must_keep_discard",))


def _with_host(
    rack, table, profile, objective, meter, forced, prune, placed, host, kept, pins, floor, ceiling,
    counts=None,
):  # fmt: skip
    """``_best`` with one more host set placed (``host``, beside those in ``placed``; ``kept``: the
    kept jokers' faces, ``pins``: the pinned sets), above ``floor``: one pass at it, no floor ladder
    (a host set's search looks above a legal play already found, and mostly finds nothing).
    ``counts``: the table's and rack's tile counts (``passes._tile_counts``), the same for every
    host set of a listing."""
    return _best(
        rack, table, profile, objective, meter, virtual=kept, forced=forced, prune=prune,
        hosts=placed + (host,), floor=floor, pinned=pins, ceiling=ceiling, ladder=False, counts=counts,
    )  # fmt: skip
