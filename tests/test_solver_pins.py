"""Pinned sets in the dynamic program: strict joker sets (``take_from_joker_sets: false``) and
turns without rearrangement (``rearrange=False``) answered by the DP, checked against the MILP
reference and ``validate_move`` on hand-made and recorded game positions."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import with_overrides
from strategies import variant_profile

import rummisim.bots.search as search_module
from rummisim import load_profile, parse_table, parse_tiles, play_game
from rummisim.moves import validate_move
from rummisim.solver import GiveUp, placed_value, reference_solve, solve
from rummisim.solver.dp import solve_dp, without_rearrange
from rummisim.solver.milp import solve_milp


def _key(solution_played, profile, objective):
    placed = (len(solution_played), placed_value(solution_played, profile))
    return placed if objective == "tiles" else placed[::-1]


def _contains(old, new) -> bool:
    have = Counter(zip(new.tiles, new.faces, strict=True))
    return all(have[k] >= n for k, n in Counter(zip(old.tiles, old.faces, strict=True)).items())


def _play(profile, table_text, rack_text, *, rearrange=True, objective="tiles"):
    """solve() and the MILP on a position; the DP must answer, legally and as well."""
    table, rack = parse_table(table_text, profile), parse_tiles(rack_text, profile)
    sol = solve(rack, table, profile, objective=objective, rearrange=rearrange, budget=None)
    assert sol.method == "dp", (table_text, rack_text)
    rules = profile if rearrange else without_rearrange(profile)
    if sol.played:
        validate_move(rules, table, rack, sol.table, sol.played, opened=True)
    ref = solve_milp(rack, table, profile, initial=False, objective=objective, rearrange=rearrange)
    assert _key(sol.played, profile, objective) == _key(ref.played, profile, objective)
    return table, sol


# ----- strict joker sets ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def strict():
    return load_profile("guide-strict-joker")


def test_strict_set_grows_on_both_ends(strict):
    table, sol = _play(strict, "R3 J(R4) R5 | K9 O9 B9", "R1 R2 R6 R7 K4 O4")
    assert sol.tiles_placed == 4  # K4 O4 cannot take the joker's R4: the set stays together
    grown = [m for m in sol.table if _contains(table[0], m)]
    assert grown and len(grown[0]) == 7


def test_strict_set_keeps_its_tiles(strict):
    """R3 may not leave R3 J(R4) R5 R6 under strict sets; under standard it joins K3 O3."""
    _, sol = _play(strict, "R3 J(R4) R5 R6", "K3 O3")
    assert not sol.played
    standard = load_profile("standard")
    _, sol = _play(standard, "R3 J(R4) R5 R6", "K3 O3")
    assert sol.tiles_placed == 2


def test_freeing_the_joker_releases_the_set(strict):
    """R4 frees the joker: R3 may then leave for K3 O3, beside the freed joker."""
    table, sol = _play(strict, "R3 J(R4) R5 R6", "R4 K3 O3")
    assert sol.tiles_placed == 3
    assert not any(_contains(table[0], m) for m in sol.table)


def test_freed_joker_hosted_beside_pinned_sets(strict):
    """A joker freed from a released set takes a set of two rack tiles while another joker set
    stays pinned: the DP settles it (host sets beside the pins), where it once left it to the
    MILP."""
    table, sol = _play(strict, "B6 J(B7) B8 B9 B10 | J(K6) O6 B6 | R2 O2 B2", "K6 B7 B8")
    assert sol.tiles_placed == 3
    assert table[0] in sol.table  # the joker set B6 J(B7) B8 B9 B10 stays as it was
    hosts = [m for m in sol.table if strict.tileset.joker in m.tiles and m != table[0]]
    b7_b8 = parse_tiles("B7 B8", strict)  # the joker as B6 or as B9 beside them (read from the top down)
    assert len(hosts) == 1 and sorted(t for t in hosts[0].tiles if t != strict.tileset.joker) == list(b7_b8)
    assert len(hosts[0]) == 3
    # the freed joker joins table tiles and two rack tiles: J(R4) R5 R6 R7 R8 R9
    table, sol = _play(
        strict, "K1 J(K2) K3 K4 K5 K6 | R13 O13 B13 | O2 O3 J(O4) O5 O6 | R5 R6 R7", "R2 R8 R9 O4"
    )
    assert sol.tiles_placed == 3 and table[0] in sol.table


def test_a_pin_that_could_hold_the_freed_joker_grows_into_its_host(strict):
    """Host sets are sets of their own. Where the DP without the pins breaks one and a pinned
    run could itself grow around the freed joker and two rack tiles (here R3 R4 R5 R6 J(R7)
    with J R8 R9, R8 R9 from the rack), the sets the pin grows into are hosts too
    (``hosts.grown_pin_hosts``): the search proves the optimum (4 tiles). Before 0.3.1 it gave
    up on that choice (``PIN_MAY_HOST``) and answered 2 tiles."""
    table = parse_table("J(B3) B4 B5 B6 B7 | R3 R4 R5 R6 J(R7) | R7 R8 R9 R10 R11 R12", strict)
    rack = parse_tiles("R5 R8 R9 O11 B3 B6", strict)
    sol = solve(rack, table, strict, budget=None)
    assert (sol.method, sol.give_up, sol.proven) == ("dp", None, True)
    assert sol.tiles_placed == reference_solve(rack, table, strict).tiles_placed == 4
    validate_move(strict, table, rack, sol.table, sol.played, opened=True)


def test_a_pin_holding_a_tile_the_rack_also_holds_may_host_the_freed_joker():
    """Copies of a face are interchangeable, so a pinned set's tile whose code the rack holds is
    a rack item the pin already has: R4 R5 R6 J(R7) R8 holds R6, the rack too, and with R2 from
    the rack R2 J R4 R5 R6 J(R7) R8 hosts the joker that O7 frees (the table R6 joins K6 O6).
    The pin grown into the host is one of the host sets (``hosts.grown_pin_hosts``; the pin's
    R6 counts as a rack item), so the search proves the optimum, 5 tiles (found by
    ``tests/fuzz_solver.py``, where the DP once answered 4 as proven; 0.3.0 gave up on it)."""
    profile = variant_profile("classic-wrap+strict")
    table = parse_table(
        "R4 R5 R6 J(R7) R8 | O5 O6 J(O7) O8 | K1 R1 O1 B1 | O8 O9 O10 O11 O12 | R9 R10 R11 R12 R13 "
        "| K3 K4 K5 K6 K7 | R7 R8 R9 R10 R11 R12 R13 R1 | K7 R7 O7 B7",
        profile,
    )
    _proven_as_milp(profile, table, parse_tiles("K6 R2 R6 O6 O7 B3", profile), 5)


def _proven_as_milp(profile, table, rack, tiles: int) -> None:
    """The DP proves a legal play of ``tiles`` tiles, as many as the integer program places."""
    sol = solve(rack, table, profile, budget=None)
    ref = solve_milp(rack, table, profile, initial=False, objective="tiles", rearrange=True)
    assert (sol.method, sol.give_up, sol.proven) == ("dp", None, True)
    assert sol.tiles_placed == len(ref.played) == tiles
    validate_move(profile, table, rack, sol.table, sol.played, opened=True)


@pytest.mark.parametrize(
    ("table", "rack", "tiles"),
    [
        # R4 frees J(R4), which moves to the end beside R7 and R8: R3 R4 J(R5) R6 R7 R8 J(R9)
        ("R3 J(R4) J(R5) R6", "R4 R7 R8 K1", 3),
        # J(R2) R3 R4 R5 J(R6) R7 R8 R9, or the freed joker at R10
        ("R3 J(R4) R5 J(R6) R7", "R4 R8 R9", 3),
        # beside another set: K5 K6 K7 K8 and the split run
        ("R3 J(R4) J(R5) R6 | K5 K6 K7", "R4 R7 R8 K1 K8 K8", 4),
        # the freed joker at the run's end: R1 R2 R3 R4 J(R5) R6 J(R7)
        ("R3 R4 J(R5) J(R6)", "R6 R1 R2 K1", 3),
        # a seeded ``guide-strict-joker`` game without a budget: R9 frees J(R9) and the run grows
        # into R2 .. R9 J(R10) R11 R12 J(R13), holding R3 and R12 from the rack (14 tiles)
        (
            "K1 R1 B1 | K2 R2 B2 | K3 K4 K5 | K4 R4 O4 | K7 K8 K9 | K11 K12 K13 | K13 O13 B13 | R1 R2 R3 R4 R5 "
            "| R5 R6 R7 R8 J(R9) J(R10) R11 R12 | R6 O6 B6 | R8 O8 B8 | R11 O11 B11 | O1 O2 O3 | O2 O3 O4 O5 "
            "| O7 O8 O9 O10 O11 O12 | B3 B4 B5 B6",
            "K1 K7 K8 K10 K11 R3 R9 R12 R13 O5 O6 O12 B3 B5 B7",
            14,
        ),
    ],
)
def test_a_strict_set_split_between_kept_and_freed_jokers(strict, table, rack, tiles):
    """A strict set that keeps one joker and frees the other: the referee wants both jokers in
    one set beside its numbered tiles, so the run with the freeing tile in the freed joker's place
    grows into the freed joker's host (``pins.split_pins``, ``jokers._split_best``, 0.3.10).
    0.3.9 gave up on each (``STRICT_SPLIT``)."""
    _proven_as_milp(strict, parse_table(table, strict), parse_tiles(rack, strict), tiles)


@pytest.mark.parametrize(
    ("table", "rack"),
    [
        ("R11 J(R12) R13 J(R1)", "R12 R9 R10 K1"),  # J(R8) R9 R10 R11 R12 R13 J(R1)
        ("R11 J(R12) R13 J(R1)", "R1 R9 R10 K1"),  # the high 1 frees J(R1), which moves to R8
        ("R11 J(R12) J(R13) R1", "R12 R9 R10 K1"),  # J(R8) R9 R10 R11 R12 J(R13) R1
    ],
)
def test_a_strict_set_split_with_wrap(table, rack):
    """The same under wrap (a 1 after the 13 ends a run): 3 tiles each, where 0.3.9 gave up."""
    profile = variant_profile("classic-wrap+strict")
    _proven_as_milp(profile, parse_table(table, profile), parse_tiles(rack, profile), 3)


def test_a_tracked_pass_that_plays_a_pinned_set_apart(strict):
    """R1 frees J(R1). A pinned run (``O5 .. J(O9) O10 O11``) could grow into the freed joker's
    host, so the tracked pass relaxes the pins, and its best play takes O7 O8 out of that run,
    which ``validate_move`` refuses. Then one tracked pass that keeps the pins (its hosts are sets
    outside them) and each pinned run grown into the host (``choices._best_grown``) prove the
    optimum: 15 tiles, J(R1) hosted in ``R8 R9 R10 J R12``. 0.3.8 gave up (``TRACKED_REFUSED``) and
    answered 14 (a position from a seeded ``greedy`` game of 0.3.9's ``record_positions.py``)."""
    table = parse_table(
        "K1 J(R1) O1 | K3 K4 K5 K6 K7 | K8 O8 B8 | K9 R9 B9 | K13 R13 O13 | R2 R3 R4 R5 R6 | R7 O7 B7 "
        "| R9 R10 R11 | R10 R11 R12 R13 | O6 O7 O8 J(O9) O10 O11 | B7 B8 B9 B10 B11 | B11 B12 B13",
        strict,
    )
    rack = parse_tiles("K2 K2 K4 K5 K6 K10 K13 R1 R3 R7 R8 R12 O4 O5 O5 O11 B2 B4", strict)
    _proven_as_milp(strict, table, rack, 15)


def test_strict_joinable_pins_and_free_sets(strict):
    """Sets without a joker may still be broken up; a short run joins a pinned run."""
    _, sol = _play(strict, "K1 K2 K3 K4 K5 K6 | O7 J(O8) O9", "K4 O5 O6 R9")
    assert sol.tiles_placed == 3  # K4: split K1..K6; O5 O6 join O7 J O9 on the left


# ----- no rearrangement ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def standard():
    return load_profile("standard")


def test_rack_jokers_extend_table_sets(standard):
    table, sol = _play(standard, "R3 R4 R5 | K7 O7 B7 | B10 B11 B12", "R7 J", rearrange=False)
    assert sol.tiles_placed == 2  # the joker onto a table run (R7 to the group, or after R5 J)
    for old in table:
        assert any(_contains(old, new) for new in sol.table)
    joker = standard.tileset.joker
    assert any(joker in new.tiles and any(_contains(old, new) for old in table) for new in sol.table)
    # two rack jokers with nowhere else to go: both onto table sets (K1 J J is a set too)
    table, sol = _play(standard, "R3 R4 R5 | B10 B11 B12", "J J", rearrange=False)
    assert sol.tiles_placed == 2 and len(sol.table) == 2


def test_group_takes_its_fourth_colour(standard):
    table, sol = _play(standard, "K7 O7 B7 | R1 R2 J(R3)", "R7 R4 R5 K2", rearrange=False)
    assert sol.tiles_placed == 3  # R7 to the group, R4 R5 after the joker; K2 stays
    faces = {tuple(sorted(m.faces)) for m in sol.table}
    assert tuple(sorted(parse_tiles("K7 R7 O7 B7", standard))) in faces


def test_no_merging_without_rearrangement(standard):
    """R6 between two table runs: full rearrangement may merge them into one run; without it
    each table run stays in a set of its own (the same tile count: merging never places more)."""
    table, sol = _play(standard, "R3 R4 R5 | R7 R8 R9", "R6", rearrange=False)
    assert sol.tiles_placed == 1
    assert all(sum(_contains(old, new) for old in table) <= 1 for new in sol.table)
    # splitting a table run would place a tile; without rearrangement it may not
    _, sol = _play(standard, "R1 R2 R3 R4 R5 R6", "R4", rearrange=False)
    assert not sol.played
    _, sol = _play(standard, "R1 R2 R3 R4 R5 R6", "R4")
    assert sol.tiles_placed == 1


def test_table_jokers_keep_their_faces(standard):
    """K7 O7 J(B7): the rack's B7 may not take the joker's place without rearrangement."""
    table, sol = _play(standard, "K7 O7 J(B7) | K1 K2 K3", "B7 R7 B8 B9", rearrange=False)
    assert sol.tiles_placed == 4  # R7 into the group, B7 B8 B9 a new run
    for old in table:
        assert any(_contains(old, new) for new in sol.table)


def test_wrap_pins():
    wrap = load_profile("classic-wrap")
    # a pinned 12 13 1 run takes 11 on the left; a pinned 1..12 takes 13, not the high 1 too
    _, sol = _play(wrap, "R12 R13 R1 | B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12", "R11 B13 B1", rearrange=False)
    assert sol.tiles_placed == 2


def test_short_runs_join_the_pins_of_one_start(standard):
    """Two pinned R5 R6 R7 runs, R3 R4 R4 on the rack: a run of two and a run of one join them on
    the left (the decoding gives the longer run the first pin it may join), every tile placed."""
    table, sol = _play(standard, "R5 R6 R7 | R5 R6 R7 | K1 O1 B1", "R3 R4 R4 R1", rearrange=False)
    assert sol.tiles_placed == 4  # R1 to the group
    lengths = sorted(len(m) for m in sol.table)
    assert lengths == [4, 4, 5]
    for old in table:
        assert any(_contains(old, new) for new in sol.table)


# ----- recorded game positions -----------------------------------------------------------------


def recorded(profile, bots, seeds, limit):
    """Turn-mode solver calls (rack, table, rearrange) of seeded games."""
    calls = []
    original = search_module.solve

    def wrapped(rack, table, prof, **kw):
        if not kw.get("initial") and len(calls) < limit:
            calls.append((tuple(rack), tuple(table), kw.get("rearrange", True)))
        return original(rack, table, prof, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search_module, "solve", wrapped)
        for seed in seeds:
            play_game(profile, [bots] * 4, seed)
    return calls


def check_agreement(profile, positions, objective):
    """Every answer legal; a proven one as good as the MILP's, one where the exact search gave up
    no better; returns the share the DP answered (proven)."""
    by_dp = 0
    for rack, table, rearrange in positions:
        sol = solve(rack, table, profile, objective=objective, rearrange=rearrange, budget=None)
        rules = profile if rearrange else without_rearrange(profile)
        if sol.played:
            validate_move(rules, table, rack, sol.table, sol.played, opened=True)
        by_dp += sol.method == "dp"
        assert sol.proven == (sol.method == "dp") and (sol.give_up is None) == sol.proven
        ref = solve_milp(rack, table, profile, initial=False, objective=objective, rearrange=rearrange)
        mine, theirs = _key(sol.played, profile, objective), _key(ref.played, profile, objective)
        assert mine == theirs if sol.proven else mine <= theirs, (profile.name, objective, table, rack)
    return by_dp / max(1, len(positions))


SWEEP = [
    # (profile, bot, seeds, positions, least share answered by the DP)
    ("guide-strict-joker", "greedy", range(3), 90, 0.9),
    ("standard", "beginner", range(2), 120, 0.99),
    ("classic-wrap", "beginner", range(2), 80, 0.95),
    ("strict-wrap", "greedy", range(2), 60, 0.85),
]


def _profile(name):
    if name == "strict-wrap":
        return with_overrides("guide-strict-joker", runs={"wrap": "high_low"})
    return load_profile(name)


@pytest.mark.parametrize("objective", ["tiles", "value"])
@pytest.mark.parametrize(("name", "bot", "seeds", "limit", "share"), SWEEP)
def test_recorded_positions_agree_with_milp(name, bot, seeds, limit, share, objective):
    profile = _profile(name)
    positions = recorded(profile, bot, seeds, limit)
    assert len(positions) >= limit // 2
    assert check_agreement(profile, positions, objective) >= share


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["tiles", "value"])
@pytest.mark.parametrize(
    ("name", "bot", "seeds", "limit", "share"),
    [
        ("guide-strict-joker", "greedy", range(10, 22), 400, 0.9),
        ("standard", "beginner", range(10, 18), 600, 0.99),
        ("classic-wrap", "beginner", range(10, 18), 500, 0.95),
        ("ramino-discard", "beginner", range(10, 14), 400, 0.95),
        ("polish-40", "beginner", range(10, 14), 400, 0.9),
        ("strict-wrap", "greedy", range(10, 18), 300, 0.85),
    ],
)
def test_recorded_positions_agree_with_milp_sweep(name, bot, seeds, limit, share, objective):
    profile = _profile(name)
    positions = recorded(profile, bot, seeds, limit)
    assert check_agreement(profile, positions, objective) >= share


def test_scope_corners_give_up(standard):
    """Corners the pins do not describe answer None here; ``solve`` then names the corner and
    answers a bounded search's legal play, not proven."""
    # a set that keeps one of its two jokers and frees the other while another set's joker is
    # freed too (R4 frees J(R4), K5 frees J(K5)), which a legal play may do: the split is searched
    # only where it frees the choice's one joker (``pins.split_pins``). The optimum, 4 tiles, is
    # no split (R7 beside the strict set, J(K5) hosted in K8 R8 J), but it is not proven
    strict = load_profile("guide-strict-joker")
    table = parse_table("R3 J(R4) J(R5) R6 | J(K5) K6 K7", strict)
    rack = parse_tiles("R4 R7 R8 K1 K5 K8", strict)
    assert solve_dp(rack, table, strict, objective="tiles") is None
    sol = solve(rack, table, strict, budget=None)
    assert (sol.method, sol.give_up, sol.proven) == ("cut", GiveUp.STRICT_SPLIT, False)
    assert len(solve_milp(rack, table, strict, initial=False, objective="tiles", rearrange=True).played) == 4
    # under ``reuse: any`` the split set's freed joker needs no rack items, which the grown hosts
    # (two rack items each) do not list: R3 R4 J(R5) R6 R7 J(R8) places 2, the search gives up
    anywhere = with_overrides("standard", jokers={"take_from_joker_sets": False, "reuse": "any"})
    table, rack = parse_table("R3 J(R4) J(R5) R6", anywhere), parse_tiles("R4 R7 K1", anywhere)
    sol = solve(rack, table, anywhere, budget=None)
    assert (sol.method, sol.give_up, sol.proven) == ("cut", GiveUp.STRICT_SPLIT, False)
    # a choice that frees no joker, whose play validate_move refuses: the pinned set J(K6) K7 .. K10
    # beside both rack jokers (the pin's joker counts as a tile in the DP: three jokers, cap 2);
    # no host search settles it, so the search names it (before 0.3.8 it went to one, for no freed
    # joker, and the answer was cut without a reason)
    polish = with_overrides("polish-40", jokers={"take_from_joker_sets": False})
    table, rack = parse_table("J(K6) K7 K8 K9 K10", polish), parse_tiles("J J", polish)
    assert solve_dp(rack, table, polish, objective="tiles") is None
    sol = solve(rack, table, polish, budget=None)
    assert (sol.method, sol.give_up, sol.proven) == ("cut", GiveUp.REFUSED, False)
    assert len(solve_milp(rack, table, polish, initial=False, objective="tiles", rearrange=True).played) == 1


@pytest.mark.parametrize(
    ("table", "rack", "why"),
    [
        ("R3 J(R4) J(R5) R6", "R4 K1", "R4 is the only rack item: none left beside the freeing tile"),
        ("B2 J(B3) B4 B5 B6 J(B7) B8", "B7 B7 K5 R6 R6 O1", "one B7 frees, the other is the only rack item"),
        ("J(R1) J(R2) R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13", "R2 R7 R9 K1", "no room: 1 to 13 is taken"),
    ],
)
def test_a_split_that_no_legal_play_makes_is_left_out(why, table, rack):
    """A strict set that would keep one joker and free another (``validate_move`` then wants
    both jokers, the freed one moved, in one set with all its numbered tiles and, under
    ``two_rack_tiles``, two rack items besides the freeing tile): where the rack cannot, that
    choice is left out and the DP answers the rest exactly (0.3.7; before, it gave up)."""
    _play(load_profile("guide-strict-joker"), table, rack)


def test_opening_without_rearrangement_that_may_touch_the_table():
    """polish-40: the opening may touch the table; without rearrangement it only adds to sets."""
    polish = load_profile("polish-40")
    table, rack = parse_table("R3 R4 R5 | K7 O7 B7", polish), parse_tiles("K12 O12 B12 R12 R6 R2 K9", polish)
    sol = solve(rack, table, polish, initial=True, rearrange=False, budget=None)
    validate_move(without_rearrange(polish), table, rack, sol.table, sol.played, opened=False)
    ref = solve_milp(rack, table, polish, initial=True, objective="tiles", rearrange=False)
    assert _key(sol.played, polish, "tiles") == _key(ref.played, polish, "tiles")
    assert sol.tiles_placed == 6  # the 12s, then R2 and R6 around R3 R4 R5
    # no opening: the value bound settles it
    sol = solve(parse_tiles("K12 O12 R2", polish), table, polish, initial=True, rearrange=False)
    assert not sol.played


def test_the_milp_recolours_a_kept_group_joker_under_strict_sets():
    """``K11 J(O11) B11`` stays together under strict joker sets, but its joker may stand for any
    colour the group lacks: with ``O11`` from the rack it becomes ``K11 J(R11) O11 B11``. Both
    searches place the tile."""
    profile = load_profile("guide-strict-joker")
    table = parse_table("K11 J(O11) B11 | R1 R2 R3", profile)
    rack = parse_tiles("O11 K4", profile)
    for method in (solve_milp, solve_dp):
        kwargs = {"initial": False, "rearrange": True} if method is solve_milp else {}
        got = method(rack, table, profile, objective="tiles", **kwargs)
        assert got.played == parse_tiles("O11", profile), method.__name__
        validate_move(profile, table, rack, got.table, got.played, opened=True)
