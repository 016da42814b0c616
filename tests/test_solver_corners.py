"""Corners where the exact search once gave up in play (``benchmarks/record_positions.py
--give-ups``, 0.3.1), each now settled exactly: the answer is proven, legal, and scores what the
integer program's does.

- Kept jokers whose first-choice homes collide (``jokers_placed.restore_jokers``): the greedy
  pass put the kept J(B13) in the run that then had no room for the kept J(B12); the sets are
  put back and every assignment tried.
- A joker choice whose best steps do not decode (``passes.Undecoded``): its score is a bound
  that another choice's play reaches, or (freeing jokers) its host sets are searched as for a
  refused play, instead of the whole search giving up.
- Pins beside rack jokers that could pass ``max_per_set`` (``beginner`` openings under
  ``polish-40``, every table set pinned): the pass is a relaxation whose decoded sets are checked.
- The tracked host pass under strict joker sets (``guide-strict-joker``) keeps the pins (it took
  none and its plays broke a pinned set), and one rack copy no longer counts both for the first
  host run and for the groups of the second freed joker (``K1 J(K2) K3`` and ``K1 R1 J(O1)`` from
  one rack K1).
- Two freed jokers in the groups of one value (0.3.3): each needs two rack items in its group, so
  the kernel counts the rack copies in those groups (four at most), not only their colours, and
  two freed jokers in one group need a split of the value's tiles where one group holds both.
- 0.3.4: the tracked pass with wrap skips the splits that its relaxation without host fields
  rules out; openings that may touch the table take the whole rack's bound without its host
  search; under ``reuse: new_set`` a kept joker no longer goes back into a host set.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummisim import load_profile, parse_table, parse_tiles
from rummisim.moves import validate_move
from rummisim.solver import passes, reference_solve, solve
from rummisim.solver.dp import without_rearrange
from rummisim.solver.grids import _grids as grids_of
from rummisim.solver.grids import _position_gains
from rummisim.solver.host_fields import _group_totals, _pair_totals
from rummisim.solver.jokers_placed import restore_jokers
from rummisim.solver.wrap import split_arrays

CORNERS = [
    # (profile, table, rack, initial, rearrange, tiles placed)
    (
        "polish-40",
        "K3 J(R3) O3 | K9 R9 O9 B9 | K11 R11 B11 | J(K13) R13 O13 | B11 J(B12) B13 | K8 R8 O8 | K6 R6 O6",
        "B3",
        False,
        True,
        1,
    ),
    (
        "polish-40",
        "K5 O5 B5 | K7 R7 O7 | K9 R9 B9 | K11 J(R11) O11 | K12 R12 O12 B12 | J(R7) R8 R9 J(R10) | B10 B11 B12",
        "K3 K5 K7 K13 R1 R7 R11 O10",
        False,
        True,
        5,
    ),
    (
        "polish-40",
        "K1 R1 O1 B1 | J(K2) R2 B2 | K3 R3 O3 | K4 R4 B4 | K6 K7 K8 | J(K9) O9 B9 | K10 R10 B10 | "
        "J(K13) R13 B13 | R5 R6 R7 | R10 J(R11) R12 R13 | R12 O12 B12 | O11 O12 O13 | B2 B3 B4 B5 B6 | "
        "B8 B9 B10 B11 | K11 K12 K13 | K8 O8 B8",
        "K2 K5 O6 O13",
        False,
        True,
        3,
    ),
    (
        "guide-strict-joker",
        "K1 K2 K3 K4 K5 | K8 R8 B8 | K9 R9 B9 | K11 R11 B11 | K11 O11 B11 | K12 R12 J(O12) | "
        "K13 R13 O13 J(B13) | O2 O3 O4 O5 O6 O7 | O9 O10 O11 O12 | B4 B5 B6 | B5 B6 B7 B8 B9 B10",
        "K1 K3 K6 K9 K10 K13 R1 R2 R4 R7 R8 R12 O6 O8 O12 B3 B3 B13",
        False,
        True,
        16,
    ),
    ("polish-40", "O11 O12 J(O13)", "K3 K7 K11 K13 R1 R2 R6 O9 O9 B1 B4 B8 J J", True, False, 6),
    (
        "polish-40",
        "J(K12) R12 B12 | J(B11) B12 B13",
        "K3 K5 K12 R3 R5 R5 R8 O3 O13 B8 B8 B11 J J",
        True,
        False,
        9,
    ),
    # 0.3.3: both freed jokers (J(R7), J(K10)) could join the groups of 12 with three rack
    # copies (K12 K12 B12) between them; the kernel counted two rack colours, not the four rack
    # items two groups need, so its best play did not decode (14 tiles, 103 points answered)
    (
        "ramino-discard",
        "K4 R4 B4 | K4 O4 B4 | K7 J(R7) O7 | J(K10) O10 B10 | K11 R11 B11 | K13 R13 O13 | R2 O2 B2 | "
        "R3 R4 R5 R6 | B12 B13 B1",
        "K5 K8 K12 K12 R1 R10 R10 O3 O4 O6 O6 O7 O8 O10 B3 B7 B9 B10 B12",
        True,
        True,
        14,
    ),
    # 0.3.3: the tracked host pass with wrap past 2^19 states (now 2^20, and the best split no
    # longer searched twice); 15 tiles answered where the optimum is 16
    (
        "ramino-discard",
        "J(K4) O4 B4 | K8 K9 K10 K11 | K12 O12 B12 | R1 O1 B1 | R2 R3 R4 | R10 R11 J(R12) R13 | "
        "R13 O13 B13 | O8 O9 O10 O11 | B10 B11 B12",
        "K1 K4 K5 K5 K7 K12 R1 R5 R6 R8 R9 R12 O6 O6 O8 B6 B8 B11",
        True,
        True,
        16,
    ),
    # 0.3.4: the tracked host pass with wrap ran past 2^20 states on floors no split could reach
    # (the splits whose pass without host fields reaches no floor are now skipped; 2^21 states
    # in all); 11 and 12 tiles answered where the optima are 13
    (
        "classic-wrap",
        "K1 K2 K3 K4 | K6 K7 K8 | K7 R7 O7 | K11 O11 B11 | K12 R12 O12 | R1 R2 R3 | R1 O1 B1 | "
        "R2 O2 B2 | R3 R4 R5 R6 | R6 R7 R8 R9 | O2 O3 O4 | O6 O7 J(O8) O9 O10 | B1 B2 B3 B4 B5 B6 | "
        "B5 B6 B7 B8 | B8 B9 B10",
        "K4 K9 K12 R5 R8 R9 R13 O5 O6 O8 O10 O13 B7 B12",
        False,
        True,
        13,
    ),
    (
        "classic-wrap",
        "K2 O2 B2 | K4 R4 O4 | K6 K7 K8 | K7 R7 O7 | K11 O11 B11 | K12 R12 O12 | R1 R2 R3 | "
        "R1 R2 R3 | R5 R6 R7 R8 R9 | R6 O6 B6 | O1 O2 O3 | J(O8) O9 O10 | B3 B4 B5 | B5 B6 B7 B8 | "
        "B8 B9 B10",
        "K3 K4 K9 K12 R5 R8 R9 R13 O5 O6 O8 O10 O13 B2 B7 B12",
        False,
        True,
        13,
    ),
    # 0.3.4: openings that may touch the table (``polish-40``, ``reuse: new_set``): the host
    # search of the whole rack's best play ran past its states, where that play is only the bound
    # of every opening (now its bound serves, ``dp._best_play``'s ``bound_only``)
    (
        "polish-40",
        "K1 O1 B1 | K2 K3 K4 K5 K6 K7 J(K8) | K4 O4 B4 | K6 R6 B6 | K8 K9 K10 | K8 R8 O8 | "
        "K10 J(R10) O10 | K12 R12 O12 B12 | K13 O13 B13 | B2 B3 B4 | B7 J(B8) B9",
        "K1 K2 K9 K11 R2 R4 R4 R5 R6 R8 R10 R13 R13 O5 O6 O9 O10 O11 B5 B8 B10",
        True,
        True,
        20,
    ),
    (
        "polish-40",
        "K3 R3 O3 | K4 K5 K6 K7 K8 | K4 R4 O4 | K5 O5 B5 | K6 R6 O6 | K7 O7 B7 | K9 R9 O9 | "
        "K11 K12 J(K13) | R3 R4 R5 | R5 R6 R7 R8 | R10 R11 R12 R13 | J(O11) O12 O13 | B1 B2 B3 B4 B5 | "
        "B7 B8 B9 B10 B11",
        "K2 K3 K9 K10 K13 K13 R1 R2 R7 R8 R9 R10 R13 O4 O5 O7 O8 O8 O11 O13 B6 B12 B12",
        True,
        True,
        23,
    ),
    # 0.3.4: under ``reuse: new_set`` a kept joker went back into a host set (rack tiles and the
    # freed joker only), so the play was refused; it now goes to another set that holds its face
    (
        "polish-40",
        "K1 K2 J(K3) | K5 R5 J(O5) | K7 R7 B7 | K9 K10 K11 | K12 O12 B12 | K13 R13 B13 | R4 O4 B4 | "
        "R7 R8 R9 R10 | O6 O7 O8 | J(O11) O12 O13 | B2 B3 B4 B5 B6 B7 B8",
        "K3 K4 R12 O1 O1 O2 O4 O5 O9 O9 B1 B2",
        False,
        True,
        10,
    ),
    # 0.3.5: the tracked host pass ran floors above the joker choice's bound (which no legal play
    # passes: now its ceiling), then past 2^20 states in one call
    (
        "guide-strict-joker",
        "K1 K2 K3 K4 K5 | K1 R1 B1 | K4 K5 K6 K7 | K10 O10 B10 | K13 R13 J(O13) B13 | "
        "R2 J(R3) R4 R5 R6 | O1 O2 O3 | O5 O6 O7 O8 | O8 O9 O10 | B2 B3 B4 B5 B6 B7 B8 | B6 B7 B8 B9",
        "K10 K12 R1 R3 R4 R8 R8 R13 O2 O5 O11 O13 B11",
        False,
        True,
        10,
    ),
    # 0.3.5: as above, and its last floor passed 2^20 states until the states whose host run
    # another state beats (as many rack items or more, a type that can do all it can) were dropped
    (
        "guide-strict-joker",
        "K1 K2 K3 | K1 R1 O1 | K2 R2 O2 | K3 K4 K5 K6 K7 | K7 K8 K9 K10 K11 J(K12) K13 | K9 O9 B9 | "
        "K11 K12 K13 | R2 R3 R4 R5 R6 | R6 R7 R8 | R10 R11 R12 | O1 O2 O3 O4 O5 O6 | "
        "O3 O4 O5 O6 O7 O8 | O10 J(O11) O12 | O10 O11 O12 O13 | B1 B2 B3 | B3 B4 B5 B6 B7 | B7 B8 B9",
        "K8 K10 K12 R7 R9 R9 R11 O9 O13 B2 B5 B6 B10 B12",
        False,
        True,
        13,
    ),
    # 0.3.5: the whole rack first: the choice freeing both jokers places all 18 tiles (a host set
    # read off its play), so the other six choices are not searched below the whole rack
    (
        "guide-strict-joker",
        "K1 R1 O1 | K1 O1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 O9 B9 | J(K11) R11 O11 B11 | "
        "K11 R11 B11 | K12 J(R12) B12 | R1 R2 R3 R4 R5 R6 R7 R8 | R4 R5 R6 R7 R8 R9 R10 | "
        "R10 O10 B10 | O2 O3 O4 O5 O6 | O2 O3 O4 O5 O6 O7 | B2 B3 B4 B5 B6 | B2 B3 B4 B5 B6 B7 B8",
        "K6 K7 K8 K11 K13 R12 O7 O8 O10 O12 O12 B1 B7 B8 B9 B10 B13 B13",
        False,
        True,
        18,
    ),
]


@pytest.mark.parametrize(("name", "table_text", "rack_text", "initial", "rearrange", "tiles"), CORNERS)
def test_corner_is_settled_exactly(name, table_text, rack_text, initial, rearrange, tiles):
    profile = load_profile(name)
    table, rack = parse_table(table_text, profile), parse_tiles(rack_text, profile)
    got = solve(rack, table, profile, initial=initial, rearrange=rearrange, budget=None)
    assert got.method == "dp" and got.proven and got.give_up is None
    assert got.tiles_placed == tiles
    rules = profile if rearrange else without_rearrange(profile)
    validate_move(rules, table, rack, got.table, got.played, opened=not initial)
    ref = reference_solve(rack, table, profile, initial=initial, rearrange=rearrange)
    assert (ref.tiles_placed, ref.value_placed) == (got.tiles_placed, got.value_placed)


def test_kept_jokers_find_homes_where_the_first_choice_collides():
    """J(B13) could go to the run or the group; the run (more numbered tiles) comes first, but
    then J(B12), whose face only the run holds, would be its third joker (cap 2)."""
    profile = load_profile("polish-40")
    ts = profile.tileset
    run_faces = list(parse_tiles("B9 B10 B11 B12 B13", profile))
    run = (list(run_faces), run_faces)
    run[0][1] = ts.joker  # the DP's joker at B10
    group_faces = list(parse_tiles("R13 O13 B13", profile))
    group = (list(group_faces), group_faces)
    virtual = tuple(parse_tiles("B13 B12", profile))
    assert restore_jokers([run, group], virtual, profile, runs=[run])
    assert run[0].count(ts.joker) == 2 and group[0].count(ts.joker) == 1
    assert run[0][3] == ts.joker and group[0][2] == ts.joker


def test_strict_sets_tracked_pass_keeps_the_pins_value_objective():
    """``guide-strict-joker``, objective ``value``: the tracked pass without the pins split
    ``O9 O10 O11 J(O12) O13``; with them it proves the optimum (11 tiles, 77 points)."""
    profile = load_profile("guide-strict-joker")
    table = parse_table(
        "K1 R1 O1 | K2 R2 O2 | K3 R3 O3 B3 | K4 R4 B4 | K4 O4 B4 | K5 R5 O5 B5 | K6 R6 O6 | K6 R6 B6 | "
        "K7 K8 K9 K10 K11 K12 K13 | K8 R8 O8 | K12 R12 O12 B12 | K13 R13 J(O13) | R7 R8 R9 R10 R11 R12 | "
        "O4 O5 O6 O7 O8 O9 O10 O11 | O9 O10 O11 J(O12) O13 | B5 B6 B7 B8 B9 | B9 B10 B11 B12",
        profile,
    )
    rack = parse_tiles("K1 K10 K11 R4 R9 R11 R13 O1 O13 B2 B2", profile)
    got = solve(rack, table, profile, objective="value", budget=None)
    assert got.method == "dp" and got.proven and (got.tiles_placed, got.value_placed) == (11, 77)
    validate_move(profile, table, rack, got.table, got.played, opened=True)
    ref = reference_solve(rack, table, profile, objective="value")
    assert (ref.tiles_placed, ref.value_placed) == (11, 77)


def test_two_freed_jokers_in_one_group_need_a_group_that_holds_both():
    """``host_fields._pair_totals``: K12 K12 B12 B12 form two groups of two tiles; one of them holds
    both freed jokers only with a third joker in the other (two jokers in all: no)."""
    profile = load_profile("standard")
    pairs, totals = _pair_totals(profile, (9, 5)), _group_totals(profile, (9, 5))
    assert (totals[4, 2] >> 2) & 1 and not (pairs[4, 2] >> 2) & 1 and (pairs[4, 2] >> 3) & 1
    assert (pairs[2, 1] >> 2) & 1  # K12 B12 J J
    assert not pairs[3, 3]  # three of one colour: three groups of one tile, none a group of the DP


def test_wrap_splits_that_cannot_hold_their_high_ones_are_left_out():
    """0.3.4: each high 1 (after 13) ends a run of its own through 12 and 13, so a split whose
    high 1s need more jokers for the missing 12s and 13s than the search has is not searched. A
    `classic-wrap` table with all eight 1s beside a rack with two jokers: of the 81 splits, 38
    can hold their high 1s (two K1s high need a joker for the second K13, two R1s three, ...)."""
    profile = load_profile("classic-wrap")
    table = parse_table(
        "K1 K2 K3 K4 K5 | K1 K2 K3 K4 K5 K6 K7 | K9 O9 B9 | K10 K11 K12 | K12 R12 O12 | K13 O13 B13 | "
        "R1 R2 R3 R4 R5 R6 | R1 R2 R3 R4 R5 R6 R7 R8 | O1 O2 O3 O4 O5 O6 O7 | O1 O2 O3 O4 O5 O6 O7 O8 | "
        "B1 B2 B3 B4 B5 B6 | B1 B2 B3 B4 B5 B6",
        profile,
    )
    rack = parse_tiles("K7 K8 K8 K10 R7 R11 O10 O12 B9 B12 J J", profile)
    table_counts, rack_counts = passes._tile_counts(rack, table, profile.tileset)
    grids = grids_of(table_counts, rack_counts, profile, _position_gains(profile, "tiles"), 2)
    tables, racks = split_arrays(grids)
    assert len(tables) == 38
    have = grids.table + grids.rack
    for split_table, split_rack in zip(tables, racks, strict=True):
        high = split_table[-1] + split_rack[-1]
        need = sum(max(0, h - have[-2, c]) + max(0, h - have[-3, c]) for c, h in enumerate(high))
        assert need <= 2
    # the answer is the one every split was searched for before (0.3.3: 66.8 million states)
    got = solve(rack, table, profile, budget=None)
    assert got.proven and got.tiles_placed == 10
    validate_move(profile, table, rack, got.table, got.played, opened=True)


@pytest.mark.parametrize("bounds", [[passes.NO_BOUND], [10000, 9070, 9000, passes.NO_BOUND], [10000]])
def test_wrap_splits_searched_in_one_compiled_call_as_one_by_one(bounds):
    """``passes._search_splits`` (after 0.3.10) runs a wrap search's splits in one compiled call.
    It must run the same passes as the loop over the splits it replaced (floors round the
    splits, each split after a play looking only above it): the same best score, split and steps,
    and the same states charged; a floor no split reaches answers NO_STATE."""
    from rummisim.solver.budget import Meter
    from rummisim.solver.tables import _tables

    profile = load_profile("classic-wrap")
    table = parse_table("B3 B4 B5 | R1 R2 R3 | K11 R11 O11", profile)
    rack = parse_tiles("K12 K13 K1 O12 O13 O1 B1 B2 R4 J", profile)  # K1, O1 high; B1 low
    table_counts, rack_counts = passes._tile_counts(rack, table, profile.tileset)
    grids = grids_of(table_counts, rack_counts, profile, _position_gains(profile, "tiles"), 1)
    tab = _tables(profile, profile.tileset.copies, 1)
    one_by_one, meter = passes.NO_STATE, Meter()
    no_wrap = np.zeros_like(grids.wrapable)
    splits = [
        grids._replace(table=t, rack=r, wrapable=no_wrap) for t, r in zip(*split_arrays(grids), strict=True)
    ]
    for floor in bounds:
        for split in splits:
            above = floor if one_by_one == passes.NO_STATE else max(floor, one_by_one[0] + 1)
            found = passes._passes(tab, split, [above], meter)
            if found >= 0:
                best = passes._best_state(found, split)
                one_by_one = (best.score, best.steps.tolist(), best.table.tolist())
        if one_by_one != passes.NO_STATE:
            break
    compiled = Meter()
    got = passes._search_splits(tab, grids, bounds, compiled, None, None, None)
    assert compiled.spent == meter.spent > 0
    if one_by_one == passes.NO_STATE:
        assert got == passes.NO_STATE and bounds == [10000]
    else:
        assert (got.score, got.steps.tolist(), got.table.tolist()) == one_by_one
        assert got.score == 9059 and len(splits) == 4


def test_host_sets_listed_once_per_tiles_taken():
    """``hosts.freed_joker_hosts`` lists one host set per tiles taken (after 0.3.10): K5 K6 J(K7)
    and J(K4) K5 K6 take the same tiles and leave the same rest of the play, so they are one host
    (they were two); so are K5 K6 K7 J(K8) and J(K4) K5 K6 K7 with the table's K7. The group K5 R5
    beside the joker is a host of its own."""
    from rummisim.solver.hosts import freed_joker_hosts

    profile = load_profile("standard")
    ts = profile.tileset
    table = parse_table("K7 R7 O7", profile)
    rack = parse_tiles("K5 R5 K6", profile)
    table_counts, rack_counts = passes._tile_counts(rack, table, ts)
    table_counts[ts.joker] += 1  # the freed joker
    hosts = freed_joker_hosts(table_counts, rack_counts, profile)
    taken = [(h[1], h[2]) for h in hosts]
    assert len(taken) == len(set(taken))
    k5, r5, k6, k7 = (parse_tiles(t, profile)[0] for t in ("K5", "R5", "K6", "K7"))
    assert taken.count(((), tuple(sorted((k5, r5))))) == 1  # K5 R5 J
    assert taken.count(((), tuple(sorted((k5, k6))))) == 1  # K5 K6 J(K7) or J(K4) K5 K6
    assert taken.count(((k7,), tuple(sorted((k5, k6))))) == 1  # K5 K6 K7 J(K8) or J(K4) K5 K6 K7
