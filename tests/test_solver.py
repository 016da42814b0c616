"""The move solver: hand-made optima, rule modes, and properties on positions from real games."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import with_overrides

from rummisim import load_profile, parse_table, parse_tiles, play_game
from rummisim.moves import validate_move
from rummisim.solver import solve
from rummisim.solver.milp import solve_milp
from rummisim.transcript import Transcript


def placed(profile, table, rack, **kwargs):
    solution = solve(rack, table, profile, **kwargs)
    if solution.played:
        validate_move(
            profile,
            parse_table(table, profile),
            parse_tiles(rack, profile),
            solution.table,
            solution.played,
            opened=not kwargs.get("initial", False),
        )
    return solution.tiles_placed


@pytest.mark.parametrize(
    ("table", "rack", "best", "why"),
    [
        ("R1 R2 R3 R4 R5 R6", "R4", 1, "split a run to insert a duplicate"),
        ("R3 R4 R5", "R6 K3 O3", 3, "shift a run: R6 on the end frees R3 for a group"),
        ("K8 R8 O8 B8", "R9 R10", 2, "take the 4th tile of a group"),
        ("R4 R5 J(R6)", "R6 K9 O9", 3, "free a joker and reuse it with two rack tiles"),
        ("R4 R5 J(R6)", "R6 K9", 0, "a freed joker needs two rack tiles beside it"),
        ("K5 O5 J(B5) | R1 R2 R3", "R5 K1", 1, "R5 completes the group; K1 fits nowhere"),
        ("K1 K2 K3 | R1 R2 R3 | O1 O2 O3", "B1 B2 B3", 3, "a new run beside the old ones"),
        ("K1 K2 K3 | R1 R2 R3 | O1 O2 O3", "B1 K4", 1, "K4 extends; B1 has no group partner free"),
        ("K1 K2 K3 | R1 R2 R3 | O1 O2 O3", "B1 K4 R4", 3, "two shifts free K1 and R1 for B1"),
        ("", "R7 R8 J B9 B10 B11", 6, "two new runs, the joker in one"),
    ],
)
def test_known_optima(standard, table, rack, best, why):
    assert placed(standard, table, rack) == best, why


def test_wrap_cases():
    wrap = load_profile("classic-wrap")
    standard = load_profile("standard")
    assert placed(wrap, "", "R12 R13 R1") == 3
    assert placed(standard, "", "R12 R13 R1") == 0
    assert placed(wrap, "", "R13 R1 R2") == 0
    assert placed(wrap, "R11 R12 R13", "R1") == 1
    assert placed(standard, "R11 R12 R13", "R1") == 0


def test_opening_fails_by_one_point_at_40_but_passes_at_30(standard):
    forty = with_overrides("standard", initial_meld={"threshold": 40})
    assert placed(standard, "", "R13 O13 B13 K1", initial=True) == 3  # 39 points
    assert placed(forty, "", "R13 O13 B13 K1", initial=True) == 0
    assert placed(forty, "", "R13 O13 B13 K1 K2 K3", initial=True) == 6


def test_opening_joker_valuation_and_single_set():
    fixed = with_overrides("standard", initial_meld={"threshold": 40, "joker_value": 25})
    represented = with_overrides("standard", initial_meld={"threshold": 40})
    assert placed(fixed, "", "R10 R11 J", initial=True) == 3
    assert placed(represented, "", "R10 R11 J", initial=True) == 0
    single = with_overrides("classic-wrap", initial_meld={"sets": "single"})
    # two sets worth 33 + 6 may not open in one-set mode; the 33 alone does
    solution = solve("K10 K11 K12 R1 R2 R3", "", single, initial=True)
    assert solution.tiles_placed == 3 and set(solution.played) == set(parse_tiles("K10 K11 K12", single))
    # classic-wrap's one_qualifying: the 33 qualifies and the 6 joins it; 18 + 15 never opens
    qualifying = load_profile("classic-wrap")
    assert placed(qualifying, "", "K10 K11 K12 R1 R2 R3", initial=True) == 6
    assert placed(qualifying, "", "K5 K6 K7 R5 O5 B5", initial=True) == 0
    assert placed(load_profile("standard"), "", "K5 K6 K7 R5 O5 B5", initial=True) == 6


def test_opening_that_may_touch_the_table_also_rearranges():
    polish = with_overrides("polish-40", initial_meld={"threshold": 30})
    # K10 K11 K12 open (33); R4 then joins the table run in the same move
    assert placed(polish, "R1 R2 R3", "K10 K11 K12 R4", initial=True) == 4
    assert placed(load_profile("standard"), "R1 R2 R3", "K10 K11 K12 R4", initial=True) == 3


def test_locked_vs_free_jokers(standard):
    free = with_overrides("standard", jokers={"table_jokers": "free"})
    # with free jokers the table joker can move to join K9 O9
    assert placed(free, "R3 R4 R5 J(R6)", "K9 O9") == 2
    assert placed(standard, "R3 R4 R5 J(R6)", "K9 O9") == 0


def test_strict_joker_sets_can_only_grow():
    strict = load_profile("guide-strict-joker")
    standard = load_profile("standard")
    # R3 may not leave R3 R4 R5 J(R6) under the strict rule
    assert placed(standard, "R3 R4 R5 J(R6)", "K3 O3") == 2
    assert placed(strict, "R3 R4 R5 J(R6)", "K3 O3") == 0
    assert placed(strict, "R3 R4 R5 J(R6)", "R7 K3 O3") == 1


def test_rearrange_false_only_adds(standard):
    assert placed(standard, "R1 R2 R3 R4 R5 R6", "R4", rearrange=False) == 0
    assert placed(standard, "R1 R2 R3 R4 R5 R6", "R7 K1 O1 B1", rearrange=False) == 4


def test_discard_pile_keeps_a_tile():
    ramino = load_profile("ramino-discard")
    assert placed(ramino, "R1 R2 R3", "K10 K11 K12 K13") == 3
    assert placed(ramino, "R1 R2 R3", "R4") == 0


def test_empty_rack_is_no_play(standard):
    solution = solve((), parse_table("R1 R2 R3", standard), standard)
    assert solution.played == () and solution.table == parse_table("R1 R2 R3", standard)
    assert solve("", "", standard).tiles_placed == 0


def test_bad_objective(standard):
    with pytest.raises(ValueError, match="objective must be one of"):
        solve("R1", "", standard, objective="fun")


# ----- properties on positions from simulated games ----------------------------------------


def game_positions(name: str, n: int, seed: int = 0):
    profile = load_profile(name)
    rng = np.random.default_rng(seed)
    positions = []

    def observe(state, seat):
        if len(positions) < n and rng.random() < 0.25:
            nxt = (seat + 1) % len(state.racks)
            positions.append((state.table, tuple(state.racks[nxt]), state.opened[nxt]))

    game = 0
    while len(positions) < n:
        play_game(profile, ["baseline"] * 3, 1000 + game, events=Transcript(profile, on_position=observe))
        game += 1
    return profile, positions


@pytest.mark.parametrize(
    "name", ["standard", "classic-wrap", "ramino-discard", "guide-strict-joker", "polish-40"]
)
def test_solutions_are_legal_and_rearranging_never_loses(name):
    profile, positions = game_positions(name, 25)
    for table, rack, opened in positions:
        full = solve(rack, table, profile, initial=not opened, budget=None)
        if full.played:
            validate_move(profile, table, rack, full.table, full.played, opened=opened)
        if opened:
            simple = solve(rack, table, profile, rearrange=False, budget=None)
            if simple.played:
                validate_move(profile, table, rack, simple.table, simple.played, opened=True)
            assert simple.tiles_placed <= full.tiles_placed
            by_value = solve(rack, table, profile, objective="value", budget=None)
            assert by_value.value_placed >= full.value_placed
            assert by_value.tiles_placed <= full.tiles_placed


@pytest.mark.parametrize("name", ["standard", "classic-wrap", "guide-strict-joker"])
def test_window_and_pattern_formulations_agree(name):
    profile, positions = game_positions(name, 20, seed=3)
    for table, rack, opened in positions:
        kwargs = dict(initial=not opened, objective="tiles", rearrange=True)
        a = solve_milp(rack, table, profile, formulation="windows", **kwargs)
        b = solve_milp(rack, table, profile, formulation="patterns", **kwargs)
        assert len(a.played) == len(b.played)


def test_same_input_same_solution(standard):
    _, positions = game_positions("standard", 5, seed=9)
    for table, rack, _ in positions:
        assert solve(rack, table, standard) == solve(rack, table, standard)
