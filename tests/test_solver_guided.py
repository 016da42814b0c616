"""Joker choices settled from their own bound (``jokers._guided``).

Where a joker choice's best play with the freed jokers free (its bound) breaks the rule that
a freed joker sits beside two other rack items, another arrangement of the same tiles often
keeps it. ``_guided`` reads host sets off that play, places one, and solves the rest with the
floor at the bound: a legal play it finds reaches the bound, so it is that choice's optimum.
These tests check that every play ``_guided`` returns is legal and reaches its bound, that the
answers still agree with the integer program, and pin game positions that the search gave up
on before (the tracked host pass ran past its states; the MILP places more tiles).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import FULL_FIRST
from strategies import random_locked_position

import rummisim.solver.jokers as jokers
from rummisim import load_profile, parse_table, parse_tiles
from rummisim.moves import validate_move
from rummisim.solver import placed_value, reference_solve, solve


@pytest.fixture
def guided(monkeypatch):
    """The plays ``_guided`` returned at the top of its search, with the bounds they answer."""
    found = []
    inner = jokers._guided

    def recorded(*args, **kwargs):
        play = inner(*args, **kwargs)
        if play is not None and not kwargs and len(args) <= 11:  # (not its own recursion)
            found.append((args[7], play, args))
        return play

    monkeypatch.setattr(jokers, "_guided", recorded)
    return found


def check_guided_plays(found) -> None:
    """Each play reaches its bound and keeps every joker rule."""
    for bound, play, args in found:
        rack, full_rack, table, profile = args[:4]
        assert play[0] >= bound[0] and play[2]
        validate_move(profile, table, full_rack, play[1], play[2], opened=True)


def score(profile, played, objective):
    tiles, value = len(played), placed_value(played, profile)
    return (tiles, value) if objective == "tiles" else (value, tiles)


# (table, rack, tiles, settled from a bound) under ``guide-strict-joker``, recorded by
# ``benchmarks/record_positions.py`` (greedy, greedy, trickle): in 0.3.0 a bounded search answered
# them (16, 10 and 23 tiles); since 0.3.3 the tracked host pass (its cap 2^20 states, was 2^19)
# settles the third before ``_guided`` is reached
GAME_POSITIONS = [
    (
        "K1 R1 O1 | K1 O1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 O9 B9 | J(K11) R11 O11 B11"
        " | K11 R11 B11 | K12 J(R12) B12 | R1 R2 R3 R4 R5 R6 R7 R8 | R4 R5 R6 R7 R8 R9 R10"
        " | R10 O10 B10 | O2 O3 O4 O5 O6 | O2 O3 O4 O5 O6 O7 | B2 B3 B4 B5 B6 | B2 B3 B4 B5 B6 B7 B8",
        "K6 K7 K8 K11 K13 R12 O7 O8 O10 O12 O12 B1 B7 B8 B9 B10 B13 B13",
        18,
        True,
    ),
    (
        "K1 R1 O1 | K1 O1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 B9 | K11 R11 O11"
        " | J(K11) R11 B11 | K12 J(R12) B12 | R1 R2 R3 R4 | R4 R5 R6 | R6 R7 R8 | R10 O10 B10"
        " | O2 O3 O4 O5 O6 | O2 O3 O4 O5 O6 O7 | B2 B3 B4 | B3 B4 B5 B6 | B6 B7 B8",
        "K7 K11 K13 O7 O8 O10 O12 O12 B1 B9 B10 B13 B13",
        12,
        True,
    ),
    (
        "K3 K4 J(K5) | K3 K4 K5 J(K6) K7 K8 K9 | K7 K8 K9 K10 K11 K12 K13 | K10 R10 O10"
        " | R1 R2 R3 R4 | R3 O3 B3 | R4 R5 R6 R7 | R6 R7 R8 | R9 O9 B9 | R11 O11 B11 | O1 O2 O3"
        " | O5 O6 O7 | B2 B3 B4 B5 B6 | B6 B7 B8",
        "K1 K2 K2 K5 K6 K6 K11 R5 R8 R9 R12 R13 O4 O4 O6 O7 O8 O12 O12 B4 B5 B10 B12 B12",
        24,
        True,  # 0.3.5: the whole rack first (``_settle_whole``), from the bound of a choice
    ),
]


@pytest.mark.parametrize(("table_text", "rack_text", "tiles", "from_bound"), GAME_POSITIONS)
def test_game_positions_are_settled_exactly(guided, table_text, rack_text, tiles, from_bound):
    profile = load_profile("guide-strict-joker")
    table, rack = parse_table(table_text, profile), parse_tiles(rack_text, profile)
    # (the first search at the full limits: at its lower ones the third's tracked pass gives up,
    # and the position read from the top down settles it, ``test_solver_mirror``)
    ours = solve(rack, table, profile, budget=None, options=FULL_FIRST)
    assert (ours.method, ours.proven, ours.give_up) == ("dp", True, None)
    assert len(ours.played) == tiles
    validate_move(profile, table, rack, ours.table, ours.played, opened=True)
    ref = reference_solve(rack, table, profile)
    assert score(profile, ours.played, "tiles") == score(profile, ref.played, "tiles")
    assert bool(guided) == from_bound  # the position was settled from a bound
    check_guided_plays(guided)


@pytest.mark.parametrize(
    ("name", "n", "seed", "objective"),
    [
        ("guide-strict-joker", 150, 61, "tiles"),
        ("guide-strict-joker", 100, 62, "value"),
        ("standard", 150, 63, "tiles"),
        ("classic-wrap", 100, 64, "tiles"),
    ],
)
def test_guided_plays_reach_their_bound_and_agree_with_milp(guided, name, n, seed, objective):
    """Seeded positions with locked table jokers: every play ``_guided`` returns is legal and
    reaches its bound, and every proven answer scores as the MILP's best play."""
    profile = load_profile(name)
    rng = np.random.default_rng(seed)
    for _ in range(n):
        table, rack = random_locked_position(profile, rng)
        ours = solve(rack, table, profile, objective=objective, budget=None)
        if not ours.proven:
            continue
        ref = reference_solve(rack, table, profile, objective=objective)
        assert score(profile, ours.played, objective) == score(profile, ref.played, objective)
    assert guided  # the search settled some choices from their bounds
    check_guided_plays(guided)
