"""The dynamic-program solver: hand-made optima, scope, and agreement with the MILP reference
on seeded positions from simulated games (tables from empty to ~80 tiles, racks of 1-25)."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from helpers import POLISH_KEPT_JOKERS_PAST_THE_CAP, with_overrides
from hypothesis import HealthCheck, given, settings
from strategies import game_positions, positions, variant_profile

from rummisim import Meld, load_profile, parse_table, parse_tiles
from rummisim.moves import validate_move
from rummisim.solver import GiveUp, SearchOptions, placed_value, reference_solve, solve
from rummisim.solver.dp import solve_dp, solve_dp_opening
from rummisim.solver.kernel import _ahead_jokers
from rummisim.solver.milp import solve_milp
from rummisim.solver.tables import _tables


def free(base: str):
    return with_overrides(base, jokers={"table_jokers": "free"})


@pytest.fixture(scope="module")
def std_free():
    return free("standard")


def dp_placed(profile, table, rack, objective="tiles"):
    tbl, rk = parse_table(table, profile), parse_tiles(rack, profile)
    result = solve_dp(rk, tbl, profile, objective=objective)
    assert result is not None
    if result.played:
        validate_move(profile, tbl, rk, result.table, result.played, opened=True)
    else:
        assert result.table == tbl
    return len(result.played)


# ----- hand-made positions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "rack", "best", "why"),
    [
        ("R1 R2 R3 R4 R5 R6", "R4", 1, "split a run to insert a duplicate"),
        ("R3 R4 R5", "R6 K3 O3", 3, "shift a run: R6 on the end frees R3 for a group"),
        ("K8 R8 O8 B8", "R9 R10", 2, "take the 4th tile of a group"),
        ("R1 R2 R3 R4 R5", "J", 1, "a joker at the end of a 5-run"),
        ("R1 R2 R3 R4 R5", "J K9", 1, "the joker fits, K9 does not"),
        # RULES.md "open questions": "Two jokers may sit in one set, even beside a single
        # numbered tile (`R7 J J` is a valid run or group)"
        ("", "R1 J J R4 R5 R6", 6, "R1 J J R4 R5 R6, or R1 J J and R4 R5 R6"),
        ("R1 J(R2) J(R3) R4 R5 R6", "K9", 0, "K9 finds no set (the jokers are the table's)"),
        ("R1 J(R2) J(R3) R4 R5 R6", "R7 K4 O4", 3, "R1 J J | R4 K4 O4 | R5 R6 R7"),
        ("K1 K2 K3 | R1 R2 R3 | O1 O2 O3", "B1 K4 R4", 3, "two shifts free K1 and R1 for B1"),
        ("", "R7 R8 J B9 B10 B11", 6, "two new runs, the joker in one"),
        ("R3 R4 R5 J(R6)", "K9 O9", 2, "a free table joker moves to K9 O9"),
        ("", "R12 R13 J", 3, "a joker below a two-tile run at the top (J R12 R13)"),
        ("R12 R13 J(R11)", "K1", 0, "K1 fits nowhere"),
        ("K5 R5 O5 | K6 R6 O6 | K7 R7 O7", "B5 B6 B7", 3, "a new run beside three groups"),
        ("K5 R5 O5 | K6 R6 O6 | K7 R7 O7", "K8", 1, "three groups become three runs plus K8"),
    ],
)
def test_known_optima(std_free, table, rack, best, why):
    assert dp_placed(std_free, table, rack) == best, why


def test_jokers_without_room(std_free):
    # the DP places jokers no set needs afterwards; when they do not fit it hands over
    table, rack = parse_table("K5 O5 B5", std_free), parse_tiles("J J", std_free)
    result = solve_dp(rack, table, std_free, objective="tiles")
    assert result is None or len(result.played) == 1
    assert solve(rack, table, std_free).tiles_placed == 1


def test_wrap_cases():
    wrap = free("classic-wrap")
    std = free("standard")
    assert dp_placed(wrap, "", "R12 R13 R1") == 3
    assert dp_placed(std, "", "R12 R13 R1") == 0
    assert dp_placed(wrap, "", "R13 R1 R2") == 0  # never 13-1-2
    assert dp_placed(wrap, "R11 R12 R13", "R1") == 1
    assert dp_placed(std, "R11 R12 R13", "R1") == 0
    assert dp_placed(wrap, "R1 R2 R3", "R12 R13") == 0  # the table 1 may not leave its run
    assert dp_placed(wrap, "R1 R2 R3 R4", "R12 R13") == 2  # R1 goes high: R12 R13 R1 | R2 R3 R4
    # both copies of K1: one low, one high, around a full K run
    full = " ".join(f"K{v}" for v in range(1, 14))
    assert dp_placed(wrap, full, "K1") == 1
    assert dp_placed(wrap, "", "R12 J R1") == 3
    assert dp_placed(wrap, "", "J R13 R1") == 3


def test_discard_pile_keeps_a_tile():
    ramino = free("ramino-discard")
    assert dp_placed(ramino, "R1 R2 R3", "K10 K11 K12 K13") == 3
    assert dp_placed(ramino, "R1 R2 R3", "R4") == 0
    assert dp_placed(ramino, "R1 R2 R3", "R4 R5") == 1


def test_objective_value_prefers_points():
    std = free("standard")
    # R13 can join a run (R11 R12 R13: 36) or a group (K13 O13 R13: 39); both 3 tiles
    table, rack = "", "R11 R12 R13 K13 O13"
    assert dp_placed(std, table, rack, "tiles") == 3
    result = solve_dp(parse_tiles(rack, std), (), std, objective="value")
    assert placed_value(result.played, std) == 39
    # four low tiles or three high ones: tiles takes four, value takes the points
    rack = "R1 R2 R3 R4 K13 O13 J"
    by_tiles = solve_dp(parse_tiles(rack, std), (), std, objective="tiles")
    by_value = solve_dp(parse_tiles(rack, std), (), std, objective="value")
    assert len(by_tiles.played) >= len(by_value.played)
    assert placed_value(by_value.played, std) >= placed_value(by_tiles.played, std)


def test_locked_jokers(standard):
    # answered by the DP (or, where its play breaks the joker rules, by the MILP through solve)
    for table, rack, best in [
        ("R4 R5 J(R6)", "R6 K9 O9", 3),
        ("R4 R5 J(R6)", "R6 K9", 0),
        ("K5 O5 J(B5) | R1 R2 R3", "R5 K1", 1),
        ("R3 R4 R5 J(R6)", "K9 O9", 0),
        ("R3 R4 R5 J(R6)", "K3 O3", 2),
    ]:
        tbl, rk = parse_table(table, standard), parse_tiles(rack, standard)
        assert solve(rk, tbl, standard).tiles_placed == best, (table, rack)
        result = solve_dp(rk, tbl, standard, objective="tiles")
        if result is not None:
            assert len(result.played) == best, (table, rack)


def test_scope_returns_none():
    # strict joker sets with free table jokers (a joker may leave a set that must stay): no pins
    strict = with_overrides("guide-strict-joker", jokers={"table_jokers": "free"})
    table = parse_table("R3 R4 R5 J(R6)", strict)
    assert solve_dp(parse_tiles("K3 O3", strict), table, strict, objective="tiles") is None
    # strict sets with locked jokers and turns without rearrangement pin sets (test_solver_pins)
    strict = load_profile("guide-strict-joker")
    found = solve_dp(parse_tiles("K3 O3", strict), table, strict, objective="tiles")
    assert found is not None and not found.played
    std = free("standard")
    assert solve_dp(parse_tiles("R4", std), (), std, objective="fun") is None


def test_a_give_up_says_why_and_is_not_proven():
    """``Solution.give_up``: outside the DP's scope; a decoding that finds no room for both rack
    jokers the DP counted as played (``J J`` beside a group of three); a DP answer gives up
    nothing. Where the exact search gives up, the answer is a bounded search's legal play, not
    proven, and never the integer program's; the reference (``reference_solve``) is asked
    explicitly."""
    strict = with_overrides("guide-strict-joker", jokers={"table_jokers": "free"})
    sol = solve("K3 O3", "R3 R4 R5 J(R6)", strict, budget=None)
    assert (sol.method, sol.give_up, sol.proven) == ("cut", GiveUp.SCOPE, False)
    standard = load_profile("standard")
    sol = solve("J J", "K5 O5 B5", standard, budget=None)
    assert (sol.method, sol.give_up, sol.tiles_placed) == ("cut", GiveUp.DECODE, 1)
    ref = reference_solve("J J", "K5 O5 B5", standard)
    assert (ref.method, ref.proven, len(ref.played)) == ("milp", True, 1)
    sol = solve("R12 B9", "R9 R10 R11 | K5 O5 B5", load_profile("polish-40"), budget=None)
    assert (sol.method, sol.give_up, len(sol.played)) == ("dp", None, 1)


def test_kept_jokers_past_the_cap_in_one_long_run_are_cut_apart():
    """A ``polish-40`` game position (4 jokers): K4 K5 J(K6) K7 K8 and J(K9) J(K10) K11 K12 K13
    keep three table jokers, which the DP's K4..K13 of tiles holds in one run, past
    ``max_per_set``; the decoding cuts that run in two so each part keeps its jokers (the integer
    program answered it before). No play (R12 and B9 find no place), proven."""
    polish = load_profile("polish-40")
    sol = solve("R12 B9", POLISH_KEPT_JOKERS_PAST_THE_CAP, polish, budget=None)
    assert (sol.method, sol.proven, sol.played) == ("dp", True, ())
    assert reference_solve("R12 B9", POLISH_KEPT_JOKERS_PAST_THE_CAP, polish).played == ()


def test_a_decoding_without_room_keeps_a_rack_joker_back(std_free):
    """Two rack jokers and one group of three: the DP counts both jokers as played, the decoding
    finds room for one; the bounded answer is the search of the rack less one joker."""
    sol = solve("J J", "K5 O5 B5", std_free, budget=None)
    assert (sol.method, sol.give_up, sol.tiles_placed) == ("cut", GiveUp.DECODE, 1)
    assert solve("J", "K5 O5 B5", std_free, budget=None).method == "dp"


def test_solve_uses_the_dp_and_stays_legal(std_free):
    table = parse_table("R1 R2 R3 R4 R5 R6", std_free)
    solution = solve(parse_tiles("R4", std_free), table, std_free)
    assert solution.tiles_placed == 1 and solution.proven


# ----- agreement with the MILP on positions from simulated games --------------------------------


def agree(profile, positions, objective="tiles"):
    """Compare with the MILP; return (positions, answered by the DP). Both are exact, so
    they agree on tiles and value placed (the tables may differ among equal plays)."""
    answered = 0
    for table, rack in positions:
        dp = solve_dp(rack, table, profile, objective=objective)
        if dp is None:  # outside the DP (or its state bound): solve() falls back to the MILP
            continue
        answered += 1
        ref = solve_milp(rack, table, profile, initial=False, objective=objective, rearrange=True)
        if dp.played:
            validate_move(profile, table, rack, dp.table, dp.played, opened=True)
        key = (
            (lambda p: (len(p), placed_value(p, profile)))
            if objective == "tiles"
            else (lambda p: (placed_value(p, profile), len(p)))
        )
        assert key(dp.played) == key(ref.played), (profile.name, table, rack)
    return len(positions), answered


AGREEMENT = [
    # (profile, positions, seed, max table tiles)
    ("standard-free", 400, 1, 45),
    ("classic-wrap-free", 300, 2, 45),
    ("ramino-discard-free", 450, 3, 45),
    ("standard", 450, 4, 45),  # locked table jokers
    ("polish-40-free", 150, 5, 30),
]


def _profile(name: str):
    return free(name.removesuffix("-free")) if name.endswith("-free") else load_profile(name)


@pytest.mark.parametrize(("name", "n", "seed", "max_table"), AGREEMENT)
def test_agrees_with_milp(name, n, seed, max_table):
    profile = _profile(name)
    total, answered = agree(profile, game_positions(profile, n, seed, max_table=max_table))
    assert total == n and answered >= 0.9 * n


def test_agrees_with_milp_objective_value():
    profile = free("standard")
    total, answered = agree(profile, game_positions(profile, 100, 6, max_table=40), objective="value")
    assert answered >= 90


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "n", "seed", "share"),
    [("standard-free", 100, 11, 0.9), ("classic-wrap-free", 40, 12, 0.5), ("standard", 80, 13, 0.8)],
)
def test_agrees_with_milp_big_tables(name, n, seed, share):
    """Tables of 40-80 tiles. With wrap, big tables with jokers often pass the DP's state
    bound (the 1s tracked low/high multiply the states); solve() then uses the MILP."""
    profile = _profile(name)
    total, answered = agree(profile, game_positions(profile, n, seed, min_table=40, max_table=80))
    assert total == n and answered >= share * n


def test_locked_joker_host_longer_than_a_window(standard):
    """B13 frees J(B13), which joins K4 K5 .. K10 J(K11) K12 beside three rack tiles (K4 K5
    K12): a host longer than any set window. The MILP once cut such runs into short pieces
    and settled for 67 points; its hosts now take any length (``milp._add_hosts``)."""
    table = parse_table(
        "B10 B11 B12 J(B13) | O1 O2 O3 O4 O5 O6 | K13 R13 O13 B13 | O5 O6 O7 | B1 B2 B3 B4 B5 B6 B7 B8"
        " | O7 O8 O9 O10 | K7 R7 B7 | K6 K7 K8 K9 K10 K11 K12 | B3 B4 B5 B6",
        standard,
    )
    rack = parse_tiles("K4 K5 K12 R1 R3 R5 R5 R6 R10 O2 O3 O10 B13", standard)
    dp = solve_dp(rack, table, standard, objective="tiles")
    validate_move(standard, table, rack, dp.table, dp.played, opened=True)
    assert (len(dp.played), placed_value(dp.played, standard)) == (12, 77)
    ref = solve_milp(rack, table, standard, initial=False, objective="tiles", rearrange=True)
    assert (len(ref.played), placed_value(ref.played, standard)) == (12, 77)
    validate_move(standard, table, rack, ref.table, ref.played, opened=True)


# ----- a freed table joker under jokers.reuse: two_rack_tiles (settled by the DP, no MILP) -----

FREED_JOKER_CASES = [
    # (table, rack, tiles placed, why)
    ("R4 R5 J(R6)", "R6 K9 O9", 3, "the freed joker joins K9 O9"),
    ("R4 R5 J(R6)", "R6 K9", 0, "one other rack tile: the joker may not be freed"),
    ("K1 K2 K3 | R7 R8 J(R9)", "R9 O5 O6", 3, "O5 O6 J"),
    ("R7 R8 J(R9) | O5 O6 O7", "R9 O8 B2", 1, "O5 O6 O7 O8 J holds one rack tile: only O8"),
    # RULES.md "open questions": `R7 J J` is a valid run or group
    ("R7 R8 J(R9)", "R9 K5 J", 3, "K5 J J: the freed joker beside K5 and the rack joker"),
    ("R7 R8 J(R9)", "R9 K5 K6 J", 4, "K5 K6 J, the rack joker at the end of R7 R8 R9"),
    ("K1 K2 K3 K4 | R7 R8 J(R9)", "R9 K5 K7", 3, "K1 .. K4 K5 J(K6) K7, or K5 J K7 beside K1 .. K4"),
    ("K1 K2 K3 | R7 R8 J(R9)", "R9 K6 J", 3, "K6 J J (or K1 K2 K3 J J K6)"),
    ("K9 R9 O9 | R4 R5 J(R6)", "R6 B9 O10 O11", 4, "O9 O10 O11 J after the group takes B9"),
    ("K9 R9 O9 | R4 R5 J(R6)", "R6 B9 O10", 1, "B9; freeing the joker would leave it one rack tile"),
    ("K3 O3 J(B3) | R1 R2 R3", "B3 R4 R5", 3, "the joker may stay in a group or join R4 R5"),
    ("K3 O3 J(B3) | R1 R2 R3", "B3 R4", 2, "B3 and R4, the joker kept"),
    ("R10 R11 J(R12) R13 | K1 O1 B1", "R12 K2 K3 O12", 3, "J(K1) K2 K3; O12 finds no set"),
    ("R4 R5 J(R6) | K9 O9 J(B9)", "R6 B9 K1 K2 O3 O4", 6, "two freed jokers, a set each"),
    ("R4 R5 J(R6) | K9 O9 J(B9)", "R6 B9 K1 K3 K5", 5, "K1 J K3 J K5: two rack tiles per set suffice"),
    ("R4 R5 J(R6) | R9 R10 J(R11)", "R6 R11 R7 R8 R12 R13", 6, "two freed jokers"),
    ("R4 R5 J(R6) | O10 O11 J(O12)", "R6 O12 K1 K3", 4, "K1 J K3 J holds both freed jokers"),
]


@pytest.mark.parametrize(("table", "rack", "best", "why"), FREED_JOKER_CASES)
def test_freed_joker_reuse(standard, table, rack, best, why):
    tbl, rk = parse_table(table, standard), parse_tiles(rack, standard)
    dp = solve_dp(rk, tbl, standard, objective="tiles")
    assert dp is not None, why
    if dp.played:
        validate_move(standard, tbl, rk, dp.table, dp.played, opened=True)
    ref = solve_milp(rk, tbl, standard, initial=False, objective="tiles", rearrange=True)
    key = lambda p: (len(p), placed_value(p, standard))  # noqa: E731
    assert key(dp.played) == key(ref.played), why
    assert len(dp.played) == best, why


def test_freed_joker_host_wraps():
    wrap = load_profile("classic-wrap")
    table, rack = parse_table("K4 K5 J(K6)", wrap), parse_tiles("K6 R13 R1", wrap)
    dp = solve_dp(rack, table, wrap, objective="tiles")
    validate_move(wrap, table, rack, dp.table, dp.played, opened=True)
    assert len(dp.played) == 3  # J(R12) R13 R1
    assert len(solve_dp(rack, table, load_profile("standard"), objective="tiles").played) == 0


@pytest.mark.parametrize(("name", "n"), [("standard", 80), ("classic-wrap", 40)])
def test_freed_joker_positions_agree_with_milp(name, n):
    """Game positions with a table joker and its matching tile added to the rack (so the
    joker may be freed), both objectives: the DP answers nearly all and never loses to the MILP."""
    profile = load_profile(name)
    ts = profile.tileset
    rng = np.random.default_rng(21)
    positions = []
    for table, rack in game_positions(profile, 5 * n, 22, max_table=45):
        faces = [f for m in table for t, f in zip(m.tiles, m.faces, strict=True) if t == ts.joker]
        if faces:
            positions.append((table, tuple(sorted(rack + (int(rng.choice(faces)),)))))
    assert len(positions) >= n
    for objective in ("tiles", "value"):
        total, answered = agree(profile, positions[:n], objective=objective)
        assert answered >= 0.85 * total


def test_freed_joker_positions_skip_the_milp(standard, monkeypatch):
    """``solve`` settles these positions with the DP alone (the MILP would take 20-300 ms)."""

    def no_milp(*args, **kwargs):
        raise AssertionError("the MILP was called")

    monkeypatch.setattr("rummisim.solver.dispatch.solve_milp", no_milp)
    for table, rack, best, why in FREED_JOKER_CASES:
        solution = solve(parse_tiles(rack, standard), parse_table(table, standard), standard)
        assert solution.tiles_placed == best and solution.proven, why


@pytest.mark.parametrize("name", ["polish-40", "ramino-discard"])
def test_opening_that_may_touch_the_table_agrees_with_milp(name):
    """With ``may_touch_table`` the opening sets are still rack-only, so the DP's value
    bound below the threshold proves "no opening"; and the best turn-mode play bounds
    every opening, so when it holds rack-only sets worth the threshold ``solve`` takes it.
    Either way the answer must match the MILP's."""
    profile = load_profile(name)
    assert profile.initial_meld.may_touch_table
    no_opening = took_dp = 0
    for table, rack in game_positions(profile, 80, 22, max_table=40):
        rack = rack[:16]
        got = solve(rack, table, profile, initial=True, budget=None)
        ref = solve_milp(rack, table, profile, initial=True, objective="tiles", rearrange=True)
        assert got.proven
        assert (got.tiles_placed, got.value_placed) == (len(ref.played), placed_value(ref.played, profile))
        if got.played:
            validate_move(profile, table, rack, got.table, got.played, opened=False)
        dp = solve_dp_opening(rack, table, profile, objective="tiles")
        if dp is not None and not dp.played:
            no_opening += 1
            assert not ref.played and dp.table == table
        took_dp += bool(dp is not None and dp.played and dp.played == got.played and dp.table == got.table)
    assert no_opening >= 10 and took_dp >= 5  # both shortcuts answer a real share


@settings(derandomize=True, deadline=None, database=None, max_examples=120,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(pos=positions())
def test_dead_end_states_change_no_answer(pos):
    """The exact passes leave out states whose key rules out every continuation
    (``SearchOptions.prune_dead``): the same score on every variant. Not always the same play:
    the probe before a whole-rack floor (``passes.PROBE_BEAM``) keeps the first states of each
    step, and without the dead ends it keeps others, so it may find another play of the same
    score, and the search after it goes another way (0.3.15 measured 26 such plays on the 4,800
    committed positions). Until 0.3.18 this test also asked for the same play in fewer states; a
    ``polish-40+two-rack-tiles`` position that Hypothesis drew in some runs then (its draws
    depended on the modules loaded before it, which ``conftest._no_local_constants`` ends) answers
    two plays of 15 tiles worth 134, in 19,684 states with the pruning and 194,847 without (the
    test below keeps it)."""
    args = (pos.rack, pos.table, pos.profile)
    opts = dict(initial=pos.initial, objective=pos.objective, rearrange=pos.rearrange, budget=None)
    pruned = solve(*args, **opts)
    whole = solve(*args, **opts, options=SearchOptions(prune_dead=False))
    both = (pruned.tiles_placed, pruned.value_placed), (whole.tiles_placed, whole.value_placed)
    if pruned.proven and whole.proven:
        assert both[0] == both[1]
    else:  # without the pruning a pass may run past its cap of states and give up (not proven)
        assert whole.give_up is not None and both[0] >= both[1] if not whole.proven else pruned.give_up


def test_dead_end_pruning_keeps_the_score_where_the_probe_finds_another_play():
    """The position above: the same score with and without the pruning, two plays."""
    profile = variant_profile("polish-40+two-rack-tiles")
    rack = (3, 11, 11, 12, 12, 14, 25, 25, 29, 30, 30, 31, 31, 38, 51)
    table = (
        Meld((52, 52, 38, 51), (12, 25, 38, 51)),
        Meld((52, 52, 32, 33, 34), (30, 31, 32, 33, 34)),
        Meld(tuple(range(15, 24)), tuple(range(15, 24))),
        Meld((0, 1, 2), (0, 1, 2)),
        Meld((0, 1, 2), (0, 1, 2)),
        Meld((3, 4, 5), (3, 4, 5)),
        Meld(tuple(range(41, 49)), tuple(range(41, 49))),
    )
    pruned = solve(rack, table, profile, budget=None)
    whole = solve(rack, table, profile, budget=None, options=SearchOptions(prune_dead=False))
    assert pruned.proven and whole.proven
    assert (pruned.tiles_placed, pruned.value_placed) == (whole.tiles_placed, whole.value_placed) == (15, 134)
    ref = solve_milp(rack, table, profile, initial=False, objective="tiles", rearrange=True)
    assert (len(ref.played), placed_value(ref.played, profile)) == (15, 134)


def test_ahead_jokers_is_the_fewest_over_what_later_colours_may_give_the_groups():
    """An exact pass leaves out, at each colour step, a state whose tiles set aside for this
    value's groups, and the later colours' open runs, need more jokers than are left
    (``kernel._ahead_jokers``): the fewest over every count of their tiles the later colours
    give the groups, their runs that need an item lacking the rest."""
    gj = _tables(load_profile("standard"), 2, 2, False).kernel.group_jokers
    none = np.zeros(4, dtype=np.int64)
    assert _ahead_jokers(gj, 2, 1, none, 0, 4) == 1  # two colours: a joker makes the third
    assert _ahead_jokers(gj, 2, 1, np.array([0, 0, 1, 1]), 0, 2) == 0  # a later colour may
    assert _ahead_jokers(gj, 2, 2, none, 0, 4) == -1  # two copies of one colour: no groups
    assert _ahead_jokers(gj, 2, 2, np.array([0, 0, 2, 2]), 0, 2) == 0  # two groups of three
    # the third colour's one tile goes to the group or to its open run, a joker to the other
    assert _ahead_jokers(gj, 2, 1, np.array([0, 0, 1, 0]), 1, 2) == 1
    for n, m, needs in product(range(gj.shape[0]), range(gj.shape[1]), product(range(3), repeat=2)):
        for avail in product(range(3), repeat=2):
            totals = [
                gj[n + a + b, max(m, a, b)]
                + max(0, needs[0] - avail[0] + a)
                + max(0, needs[1] - avail[1] + b)
                for a, b in product(range(avail[0] + 1), range(avail[1] + 1))
                if n + a + b < gj.shape[0] and gj[n + a + b, max(m, a, b)] >= 0
            ]
            later = needs[0] | needs[1] << 2
            got = _ahead_jokers(gj, n, m, np.array([0, 0, *avail], dtype=np.int64), later, 2)
            assert got == min(totals, default=-1)
