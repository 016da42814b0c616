"""A turn's search read from the top down (``solver.reading``, 0.3.23): the same scores as read from
the bottom up on every variant, the sets so read in their normal order, and the choice of reading."""

from __future__ import annotations

from helpers import BOTTOM_UP, solved_both_ways
from hypothesis import HealthCheck, given, settings
from strategies import positions

from rummisim import load_profile, parse_table, parse_tiles
from rummisim.melds import make_meld
from rummisim.moves import validate_move
from rummisim.solver import solve
from rummisim.solver.reading import flip_codes, flip_sets, reads_down


@settings(derandomize=True, deadline=None, database=None, max_examples=80,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(pos=positions())
def test_either_reading_finds_the_same_score(pos):
    """On every variant (wrap and openings are always read from the bottom up): the same tiles and
    value placed, each play legal; the table may be laid out another way."""
    default, bottom_up = solved_both_ways(pos, BOTTOM_UP)
    assert (default.tiles_placed, default.value_placed, default.proven) == (
        bottom_up.tiles_placed,
        bottom_up.value_placed,
        bottom_up.proven,
    )
    if default.played:
        opened = not pos.initial
        validate_move(pos.profile, pos.table, pos.rack, default.table, default.played, opened=opened)


@settings(derandomize=True, deadline=None, database=None, max_examples=60,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(pos=positions())
def test_sets_read_from_the_top_are_the_normal_sets(pos):
    """``flip_sets`` builds what ``make_meld`` builds from the flipped tiles, and reading twice is
    reading not at all (the profiles without wrap)."""
    profile = pos.profile
    if profile.wrap:
        return
    flip = flip_codes(profile)
    down = flip_sets(pos.table, profile)
    assert down == tuple(
        make_meld([flip[t] for t in m.tiles], [flip[f] for f in m.faces], profile) for m in pos.table
    )
    assert flip_sets(down, profile) == tuple(pos.table)


BIG_TABLE = (
    "K1 R1 O1 | K1 R1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 B9 | J(K11) R11 O11"
    " | K11 R11 B11 | K12 J(R12) B12 | R2 R3 R4 | R4 R5 R6 | R6 R7 R8 | R10 O10 B10"
    " | O1 O2 O3 O4 O5 O6 | O2 O3 O4 O5 O6 O7 | B2 B3 B4 | B3 B4 B5 B6 | B6 B7 B8"
)
BIG_RACK = "K7 K11 K13 O7 O8 O10 O12 O12 B1 B10 B13 B13"


def test_a_rack_above_its_table_is_read_from_the_top_in_fewer_states():
    """A rack of high tiles beside a table of low ones: from the top down the floors that ask for
    the rack's tiles bite at once. 10,998 states where the search from the bottom up makes 156,863."""
    profile = load_profile("standard")
    rack, table = parse_tiles(BIG_RACK, profile), parse_table(BIG_TABLE, profile)
    assert reads_down(rack, table, profile)
    down = solve(rack, table, profile, budget=None)
    up = solve(rack, table, profile, budget=None, options=BOTTOM_UP)
    assert down.proven and up.proven and down.method == up.method == "dp"
    assert (down.tiles_placed, down.value_placed) == (up.tiles_placed, up.value_placed)
    assert down.nodes * 5 < up.nodes
    validate_move(profile, table, rack, down.table, down.played, opened=True)


def test_which_way_a_position_is_read():
    profile = load_profile("standard")
    table = parse_table("R1 R2 R3 | K5 O5 B5", profile)  # mean value 3
    assert reads_down(parse_tiles("R7 B9 J", profile), table, profile)  # (jokers do not count)
    assert not reads_down(parse_tiles("R1 B2 K3", profile), table, profile)
    assert not reads_down(parse_tiles("R3 B3", profile), table, profile)  # (a tie: from the bottom up)
    assert not reads_down(parse_tiles("J", profile), table, profile)
    assert not reads_down(parse_tiles("R9", profile), (), profile)


def test_an_opening_that_may_touch_the_table_reads_the_rest_of_its_rack_from_the_top():
    """``polish-40`` holding #122 (``benchmarks/positions``): each opening core's rest of the rack is
    played on the table read from the top down where it lies higher (``dp._best_play_read``): the
    same opening score in 12,795 states, where reading from the bottom up makes 97,364."""
    profile = load_profile("polish-40")
    rack = parse_tiles("K1 K2 K3 K6 K7 K8 K9 K9 K11 K13 R1 R7 R9 R9 O1 O3 O11 O11 B4 B9 B10 J J", profile)
    table = parse_table(
        "K2 K3 K4 K5 | K5 K6 K7 | K12 R12 O12 B12 | K13 R13 O13 | R1 R2 R3 R4 R5 R6 | R4 R5 R6 R7 | R10 R11 R12"
        " | O1 O2 O3 | O5 O6 O7 | O7 O8 O9 O10 | B1 B2 B3 | B1 B2 B3 B4 B5 B6 B7 B8 | B10 B11 B12",
        profile,
    )
    down = solve(rack, table, profile, initial=True, budget=None)
    up = solve(rack, table, profile, initial=True, budget=None, options=BOTTOM_UP)
    assert (
        down.proven
        and up.proven
        and (down.tiles_placed, down.value_placed) == (up.tiles_placed, up.value_placed)
    )
    assert down.tiles_placed == 22 and down.nodes * 4 < up.nodes
    validate_move(profile, table, rack, down.table, down.played, opened=False)
