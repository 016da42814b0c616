"""A floor that asks for every rack tile is also searched from the top down
(``SearchOptions.mirror_refute``, ``passes._run_passes``): where a rack tile cannot be placed,
the pass from the bottom up carries every table of the values below it before it finds nothing,
the pass from the top down stops at that tile. The plays still come from the pass from the bottom
up: the same play, table and method with and without it, in fewer states where it refutes.

Where the exact search of a turn gives up without a budget, the whole position read the other way
is searched (``SearchOptions.mirror_give_ups``, ``dispatch._settled``): its play, read back, is the
best play (since 0.3.23 any play, its tiles scored by their values before the flip; the whole rack
before). The first search runs with lower limits of the tracked host passes
(``SearchOptions.first_tracked_states``, ``first_tracked_call``); where they bind and the position read
the other way does not settle it, the search runs again with the full ones. The tests of one of
these mechanisms on a position read it from the bottom up (``OFF``, ``NO_RETRY``,
``helpers.BOTTOM_UP``), as every search did before 0.3.23."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BOTTOM_UP, FULL_FIRST, solved_both_ways
from hypothesis import HealthCheck, given, settings
from strategies import positions

from rummisim import load_profile, parse_table, parse_tiles
from rummisim.moves import validate_move
from rummisim.solver import GiveUp, SearchOptions, solve
from rummisim.solver.grids import Grids, _mirrored
from rummisim.solver.reading import flip_codes

# (read from the bottom up: the mechanisms these tests show are those of that reading)
OFF = SearchOptions(mirror_refute=False, rack_first=False)
NO_RETRY = SearchOptions(mirror_give_ups=False, rack_first=False)
TINY_FIRST = SearchOptions(first_tracked_states=256, first_tracked_call=128)

# ``guide-strict-joker`` trickle-jokers #99 of the committed sets: the search from the bottom up gives
# up (one tile short of the integer program's play of the whole rack)
GAVE_UP = (
    "K3 K4 J(K5) | K3 K4 K5 J(K6) K7 K8 K9 K10 | K7 K8 K9 K10 K11 K12 K13 | R1 R2 R3 R4 | R3 O3 B3 | "
    "R4 R5 R6 R7 | R6 R7 R8 R9 R10 | R11 O11 B11 | O1 O2 O3 | O5 O6 O7 O8 O9 O10 | "
    "B1 B2 B3 B4 B5 B6 | B6 B7 B8 B9",
    "K1 K2 K2 K5 K6 K6 K11 R5 R8 R9 R12 R13 O4 O4 O6 O7 O8 O11 O12 O12 B4 B5 B10 B12 B12",
)

# (profile, table, rack): positions whose whole rack's floor the top-down pass refutes at once
REFUTED_FROM_THE_TOP = [
    (  # ``guide-strict-joker`` greedy #203 of the committed sets: 218,228 states without it
        "guide-strict-joker",
        "K1 R1 O1 | K1 O1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 B9 | K11 R11 O11 | J(K11) R11 B11 | "
        "K12 J(R12) B12 | R1 R2 R3 R4 | R4 R5 R6 | R6 R7 R8 | R10 O10 B10 | O2 O3 O4 O5 O6 | "
        "O2 O3 O4 O5 O6 O7 | B2 B3 B4 | B3 B4 B5 B6 | B6 B7 B8",
        "K7 K11 K13 O7 O8 O10 O12 O12 B1 B9 B10 B13 B13",
    ),
    (  # low tiles to rearrange on a big table, and an R13 that nothing holds
        "standard",
        "K1 K2 K3 K4 | R1 R2 R3 R4 | O1 O2 O3 O4 | B1 B2 B3 B4 | K5 R5 O5 B5 | K6 R6 O6 | "
        "K1 R1 O1 | K2 R2 B2 | O3 B3 K3",
        "K5 B6 R6 O4 B4 R13",
    ),
]


def _answer(solution):
    return solution.played, solution.table, solution.method, solution.give_up


@pytest.mark.parametrize("name, table, rack", REFUTED_FROM_THE_TOP)
def test_the_top_down_pass_refutes_in_fewer_states(name, table, rack):
    profile = load_profile(name)
    args = (parse_tiles(rack, profile), parse_table(table, profile), profile)
    mirrored = solve(*args, budget=None, options=BOTTOM_UP)
    plain = solve(*args, budget=None, options=OFF)
    assert mirrored.proven and _answer(mirrored) == _answer(plain)
    assert mirrored.tiles_placed < len(args[0])  # the whole rack is out of reach
    assert mirrored.nodes < plain.nodes


def test_the_mirrored_grids_reverse_the_positions():
    table = np.arange(12, dtype=np.int64).reshape(3, 4)
    grids = Grids(table, table + 100, np.array([5, 6, 7]), np.zeros(4, dtype=np.bool_),
                  np.array([True, True, False]), 2)  # fmt: skip
    back = _mirrored(grids)
    assert back.table.tolist() == table[::-1].tolist()
    assert back.rack.tolist() == (table + 100)[::-1].tolist()
    assert back.gain.tolist() == [7, 6, 5] and back.allow_group.tolist() == [False, True, True]
    assert back.n_jokers == 2 and grids.table.tolist() == table.tolist()  # (a copy: never written)


@settings(derandomize=True, deadline=None, database=None, max_examples=80,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(pos=positions())
def test_the_top_down_pass_changes_no_answer(pos):
    """On every variant: the same play, table and method with and without it."""
    default, without = solved_both_ways(pos, OFF, BOTTOM_UP)
    assert _answer(default) == _answer(without)


def test_a_search_that_gave_up_is_settled_from_the_top():
    profile = load_profile("guide-strict-joker")
    table, rack = parse_table(GAVE_UP[0], profile), parse_tiles(GAVE_UP[1], profile)
    gave_up = solve(rack, table, profile, budget=None, options=NO_RETRY)
    assert gave_up.method == "cut" and gave_up.give_up is not None
    settled = solve(rack, table, profile, budget=None)
    assert settled.method == "dp" and settled.proven and settled.give_up is None
    assert sorted(settled.played) == sorted(rack) and settled.tiles_placed > gave_up.tiles_placed
    validate_move(profile, table, rack, settled.table, settled.played, opened=True)
    # the first search stops at the tracked passes' lower limits: 1,760,020 states to give up before
    assert settled.nodes < gave_up.nodes / 4
    assert solve(rack, table, profile, budget=None, options=FULL_FIRST).played == settled.played


def test_where_the_first_limits_bind_the_search_runs_again_with_the_full_ones():
    """``guide-strict-joker`` greedy #203: tracked host passes of up to 131,803 states, and no play of
    the whole rack: with first limits that bind, the search from the top down settles nothing, and
    the search with the full limits answers as it does where the first limits do not bind."""
    name, table, rack = REFUTED_FROM_THE_TOP[0]
    profile = load_profile(name)
    args = (parse_tiles(rack, profile), parse_table(table, profile), profile)
    again = solve(*args, budget=None, options=TINY_FIRST)
    default = solve(*args, budget=None)
    assert default.method == "dp" and default.tiles_placed < len(args[0])
    assert _answer(again) == _answer(default)
    assert again.nodes > default.nodes  # (the first search and the one from the top down are charged)


# a ``standard`` search of a greedy game (seed 12 of ``variant_throughput.py``'s games): its first
# tracked host pass runs past the first limits; a first search that went on without it listed host
# sets for 1.9 million states, where the full search makes 341,431
LISTED = (
    "K1 O1 B1 | K3 K4 J(K5) | K4 O4 B4 | K6 R6 B6 | K7 K8 K9 K10 K11 | K11 K12 K13 | K13 R13 O13 B13 | "
    "R1 O1 B1 | R2 R3 R4 | R4 R5 R6 R7 | R5 O5 B5 | R7 O7 B7 | R10 J(R11) R12 R13 | B2 B3 B4",
    "K1 K2 K5 K7 K9 R8 R11 R11 O3 O3 O6 O6 O8 O10 O13 B7 B9 B9 B10 B10 B12",
)


def _standard(position: tuple[str, str]):
    """(rack, table, profile) of a ``standard`` position given as (table, rack) text."""
    profile = load_profile("standard")
    return parse_tiles(position[1], profile), parse_table(position[0], profile), profile


def test_a_search_that_ends_at_a_limit_without_a_retry_answers_a_bounded_search():
    rack, table, profile = _standard(LISTED)
    ended = SearchOptions(end_at_tracked_limit=True, mirror_give_ups=False, max_tracked_call=1 << 12)
    cut = solve(rack, table, profile, budget=None, options=ended)
    assert cut.method == "cut" and cut.give_up is GiveUp.TRACKED_STATES
    validate_move(profile, table, rack, cut.table, cut.played, opened=True)


# a ``standard`` search of ``inside-a-game`` (game 270, turn 40, ``objective="value"``): the first
# search ends at its limit after 95,728 states, and the search from the top down, which would run past
# 250,000 before its own limit, stops at as many
PAST_ITS_SHARE = (
    "K3 R3 B3 | K4 R4 O4 | K6 K7 J(K8) | K8 K9 K10 | K9 R9 O9 | K11 R11 B11 | J(K12) R12 B12 | "
    "R7 R8 R9 R10 R11 R12 R13 | O1 O2 O3 O4 O5 O6 O7 | O5 O6 O7 O8 O9 | B7 B8 B9 B10 B11 B12",
    "K2 K4 K5 K8 K12 K13 R1 R6 O10 O10 O11 B2 B4 B4 B5 B8 B13 B13",
)


# (table, rack, objective, tiles, states against the full search's): the first search ends at a
# limit, the search from the top down settles nothing, and the full search answers
ENDED_AT_A_LIMIT = [
    # 1,921,434 states where the first search went on past its limit (0.3.21)
    pytest.param(*LISTED, "tiles", 19, 2, id="listed"),
    # 453,265 states where the search from the top down ran to its own limit
    pytest.param(*PAST_ITS_SHARE, "value", 18, 3, id="past-its-share"),
]


@pytest.mark.parametrize(("table_text", "rack_text", "objective", "tiles", "ratio"), ENDED_AT_A_LIMIT)
def test_a_first_search_that_ends_at_a_limit_answers_as_the_full_search(
    table_text, rack_text, objective, tiles, ratio
):
    args = _standard((table_text, rack_text))
    # the full limits at once, the position read as the default search first reads it
    full = solve(*args, objective=objective, budget=None, options=SearchOptions(mirror_give_ups=False))
    default = solve(*args, objective=objective, budget=None)
    assert full.method == "dp" and full.tiles_placed == tiles
    assert _answer(default) == _answer(full)
    assert default.nodes < ratio * full.nodes  # (the first search and the one from the top down stop)


# ``strength``'s four ``lookahead`` bots (seed 4264241120530435917, turn 47): the search gives up for
# another reason than a tracked limit, and only the search from the top down with the full limits
# and no share of states plays the whole rack
GAVE_UP_ELSEWHERE = (
    "K1 O1 B1 | K1 O1 B1 | K2 R2 B2 | K7 K8 K9 K10 | K10 R10 B10 | K11 O11 B11 | K13 R13 O13 | "
    "R1 R2 R3 R4 | R3 R4 R5 R6 | R6 R7 R8 R9 | R9 R10 J(R11) | R12 O12 B12 | O2 O3 O4 | O8 O9 O10 | "
    "B4 B5 B6 B7 B8 | B11 B12 B13",
    "K2 K3 K4 K6 K6 K9 K12 K12 R5 R11 O6 O7 B3 B5 B8",
)


def test_a_search_that_gave_up_elsewhere_is_read_from_the_top_with_the_full_limits():
    rack, table, profile = _standard(GAVE_UP_ELSEWHERE)
    gave_up = solve(rack, table, profile, budget=None, options=NO_RETRY)
    assert gave_up.method == "cut" and gave_up.give_up is not GiveUp.TRACKED_STATES
    settled = solve(rack, table, profile, budget=None)
    assert settled.method == "dp" and sorted(settled.played) == sorted(rack)
    validate_move(profile, table, rack, settled.table, settled.played, opened=True)


@settings(derandomize=True, deadline=None, database=None, max_examples=60,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(pos=positions())
def test_the_first_limits_change_no_score(pos):
    """On every variant, with first limits that bind on any tracked pass: the same score and method
    (a play of the whole rack read from the top down may lay the table out another way)."""
    default, tiny = solved_both_ways(pos, TINY_FIRST)
    score = (default.tiles_placed, default.value_placed, default.method)
    assert (tiny.tiles_placed, tiny.value_placed, tiny.method) == score


def test_the_codes_read_from_the_top_are_an_involution():
    profile = load_profile("standard")
    flip = flip_codes(profile)
    assert [flip[flip[c]] for c in range(len(flip))] == list(range(len(flip)))
    assert parse_tiles("R13 K1 J", profile) == tuple(flip[c] for c in parse_tiles("R1 K13 J", profile))
