"""What a tracked host pass's states can still add, read off the same pass without host fields
(``solver.backward``, ``SearchOptions.backward``): the most a plain state can add, worked out
backwards over the plain pass's edges, and the tracked states it leaves out. The answers must
not move: the same scores with it as without it, on seeded positions where every host search is
tracked and on a committed game position, where it leaves out about half the states."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import replace

import numpy as np
import pytest
from helpers import FULL_FIRST
from strategies import random_locked_position, variant_profile
from test_solver_tracked_host import TRACKED_ONLY, score, two_rack_tiles

from rummisim import load_profile, parse_table, parse_tiles
from rummisim.moves import validate_move
from rummisim.solver import SearchOptions, reference_solve, solve
from rummisim.solver.backward import ABSENT, DEAD, MAX_STEPS, Edges, Future, build_future, future_ok
from rummisim.solver.budget import Meter
from rummisim.solver.dp import solve_dp
from rummisim.solver.host_fields import HOST_ACTIVE, HOST_PER_COLOUR, run_field
from rummisim.solver.passes import _best

WITHOUT = SearchOptions(max_host_solves=0, new_set_solves=0, pair_host_solves=0, backward=False)


@pytest.mark.parametrize(
    ("name", "n", "seed", "objective"),
    [
        ("standard", 80, 61, "tiles"),
        ("standard", 40, 62, "value"),
        ("guide-strict-joker", 80, 63, "tiles"),
        ("classic-wrap", 50, 64, "tiles"),
        ("ramino-discard", 50, 65, "tiles"),
    ],
)
def test_the_tracked_pass_answers_the_same_with_the_plain_pass_bounds(name, n, seed, objective):
    """Every host search tracked: the same score with the plain pass's bounds as without them,
    a legal play, and on most of these positions fewer states in all."""
    profile = two_rack_tiles(name)
    rng = np.random.default_rng(seed)
    compared = fewer = 0
    for _ in range(n):
        table, rack = random_locked_position(profile, rng)
        ours = solve_dp(rack, table, profile, objective=objective, meter=Meter(options=TRACKED_ONLY))
        plain = solve_dp(rack, table, profile, objective=objective, meter=Meter(options=WITHOUT))
        assert (ours is None) == (plain is None)
        if ours is None:
            continue
        assert score(profile, ours.played, objective) == score(profile, plain.played, objective)
        if ours.played:
            validate_move(profile, table, rack, ours.table, ours.played, opened=True)
        compared += 1
        fewer += ours.nodes < plain.nodes
    assert compared >= n // 2
    assert fewer > 0


def _with_and_without_bounds(profile, rack: str, table: str, tiles: int):
    """A committed position solved with the plain pass's bounds and without them: both proven,
    the same score, ``tiles`` placed, and the play with them legal."""
    # (the first search at the full limits: at its lower ones #195's tracked pass gives up)
    ours = solve(rack, table, profile, budget=None, options=FULL_FIRST)
    plain = solve(rack, table, profile, budget=None, options=replace(FULL_FIRST, backward=False))
    assert ours.proven and plain.proven and ours.tiles_placed == plain.tiles_placed == tiles
    assert ours.value_placed == plain.value_placed
    rack_tiles, old = parse_tiles(rack, profile), parse_table(table, profile)
    validate_move(profile, old, rack_tiles, ours.table, ours.played, opened=True)
    return ours, plain


def test_a_committed_position_keeps_its_play_in_half_the_states():
    """``guide-strict-joker`` trickle-jokers #195 (``benchmarks/positions``): its whole rack, 27
    tiles, is placed either way; with the bounds in 231,862 states, without them 441,550."""
    profile = load_profile("guide-strict-joker")
    rack = "K1 K2 K2 K5 K6 K6 K11 R5 R8 R9 R12 R13 O4 O4 O6 O7 O8 O11 O12 O12 B4 B5 B7 B10 B10 B12 B12"
    table = (
        "K1 R1 O1 | K3 K4 J(K5) | K3 K4 K5 J(K6) K7 K8 K9 K10 K11 K12 K13 | K7 K8 K9 | K10 R10 O10"
        " | R1 R2 R3 R4 | R3 O3 B3 | R4 R5 R6 R7 | R6 R7 R8 R9 R10 | R11 O11 B11 | O1 O2 O3"
        " | O5 O6 O7 O8 O9 O10 | B1 B2 B3 B4 B5 B6 | B6 B7 B8 B9"
    )
    ours, plain = _with_and_without_bounds(profile, rack, table, 27)
    assert ours.nodes < 0.6 * plain.nodes


def test_a_wrap_split_runs_its_plain_pass_once():
    """``classic-wrap`` trickle-jokers #86 (``benchmarks/positions``): a tracked pass over the wrap
    splits, whose plain pass (the same tables: one freed joker) skips the splits it rules out and
    bounds the tracked pass of those it does not (``passes._plain_first``). 0.3.18 ran that plain
    pass twice a split, once to skip and once for the bounds, and a probe: 139,352 states, now
    80,780. The same play as without the bounds (the old order) and as the integer program's, 12
    tiles."""
    profile = load_profile("classic-wrap")
    rack = "K6 K6 K11 R5 R8 R9 R12 O6 O12 O12 B8 B11"
    table = (
        "K1 K2 K3 | K1 R1 O1 | K2 K3 K4 K5 | K4 R4 B4 | K5 R5 O5 | K7 R7 O7 | K7 R7 B7 | K8 K9 K10"
        " | K8 K9 K10 K11 K12 K13 | K13 R13 B13 | R1 R2 R3 | R3 O3 B3 | R6 O6 B6 | R10 R11 J(R12) R13"
        " | R10 O10 B10 | R11 O11 B11 | O1 O2 O3 | O2 J(O3) O4 O5 | O8 O9 O10 | B2 B3 B4"
    )
    ours, _ = _with_and_without_bounds(
        profile, rack, table, len(reference_solve(rack, table, profile).played)
    )
    assert ours.tiles_placed == 12 and ours.nodes < 139_352


def _edges(steps: list[list[tuple[int, int, int]]], first: int, finals: list[bool]) -> Edges:
    """An ``Edges`` record of a made-up pass: ``steps`` of (parent, child, gain) edges, the
    states of step ``t`` numbered on from those of the step before (state 0 the start, the
    first step's states from ``first``), ``finals`` whether each state of the last step closes."""
    n = 64
    record = Edges(
        np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32),
        np.zeros(1, dtype=np.int64), np.zeros(MAX_STEPS, dtype=np.int64),
        np.zeros(MAX_STEPS, dtype=np.int64), np.zeros(n, dtype=np.bool_),
    )  # fmt: skip
    e = 0
    lo = first
    for t, step in enumerate(steps):
        children = sorted({child for _, child, _ in step})
        assert children[0] == lo
        for parent, child, gain in step:
            record.parent[e], record.child[e], record.gain[e] = parent, child, gain
            e += 1
        record.step_lo[t], record.step_hi[t] = lo, children[-1] + 1
        lo = children[-1] + 1
    record.made[0] = e
    record.final_ok[: len(finals)] = finals
    return record


def test_the_most_a_state_can_add_is_its_best_way_to_a_final_state_that_closes():
    """Backwards over the edges: a state's most is its best edge into a child that can still
    close; a state none of whose ways closes is ``DEAD``; per step the keys less their jokers
    placed, with the most over the states that place as few jokers or fewer (``ABSENT`` below
    the fewest)."""
    jokers_at = 8
    # step 0: states 1, 2, 3 from the start; step 1: states 4, 5 (4 closes, 5 does not)
    edges = _edges(
        [
            [(0, 1, 10), (0, 2, 5), (0, 3, 7)],
            [(1, 4, 3), (1, 5, 50), (2, 4, 9), (3, 5, 1)],
        ],
        first=1,
        finals=[True, False],
    )
    keys = np.zeros(6, dtype=np.int64)
    # states 1 and 2 share a key less their jokers (2 and 1 jokers placed); 3 another key
    keys[1], keys[2], keys[3] = 5 | (2 << jokers_at), 5 | (1 << jokers_at), 6
    keys[4], keys[5] = 7, 8
    add = np.full((1, 1), -1, dtype=np.int64)
    future = build_future(keys, edges, 2, jokers_at, add)
    step0 = slice(future.ptr[0], future.ptr[1])
    assert list(future.base[step0]) == [5, 6]
    # key 5: one joker placed adds 9 (state 2 -> 4), two placed 3 (state 1 -> 4, not 50 into 5)
    assert list(future.most[future.ptr[0]][:4]) == [ABSENT, 9, 9, 9]
    assert list(future.most[future.ptr[0] + 1][:2]) == [DEAD, DEAD]  # state 3 only reaches 5
    step1 = slice(future.ptr[1], future.ptr[2])
    assert list(future.base[step1]) == [7, 8]
    assert future.most[future.ptr[1]][0] == 0 and future.most[future.ptr[1] + 1][0] == DEAD


def test_a_tracked_state_is_left_out_only_where_its_projection_cannot_reach_the_floor():
    """``future_ok``: the host run goes back among its colour's open runs (``add``), the key
    less its jokers placed is looked up in its step; a state the plain pass never made stays."""
    width, jokers_at, at = 2, 8, 16
    # colour 0's state 1 plus a run of type 0 is state 2; key 2 (colour 0 in state 2) adds 9
    add = np.full((4, 4), -1, dtype=np.int64)
    add[1, 0] = 2
    most = np.full((1, 8), 9, dtype=np.int64)
    future = Future(np.array([0, 1]), np.array([2]), most, add)
    host = namedtuple("Host", "at second_at")(at, -1)
    hosted = 1 | (run_field(HOST_ACTIVE + 0 * HOST_PER_COLOUR, 0, 1, 1) << at)
    assert future_ok(hosted, 10, 0, 19, future, host, width, jokers_at)  # 10 + 9 reaches 19
    assert not future_ok(hosted, 10, 0, 20, future, host, width, jokers_at)
    unknown = 3 | (run_field(HOST_ACTIVE, 0, 1, 1) << at)  # colour 0 in state 3: no such state
    assert future_ok(unknown, 0, 0, 10**6, future, host, width, jokers_at)


def test_no_bounds_under_new_set():
    """Fuzz seed 42201 (``--tracked-only``): under ``reuse: new_set`` the plain pass's bounds left out
    the states of the best play, the freed joker (freed by an R3 of a missing colour) in R3 J R5 with
    the other R3 and the R5 (3 tiles, 11 points; 2 tiles, 8 points with the bounds). The tracked pass
    runs there without them (why: the test below)."""
    profile = variant_profile("standard+new-set")
    table, rack = parse_table("J(K3) O3 B3 | R6 R7 R8", profile), parse_tiles("R3 R3 R5 B6", profile)
    ours = solve(rack, table, profile, objective="value", budget=None, options=TRACKED_ONLY)
    ref = reference_solve(rack, table, profile, objective="value")
    assert (ours.tiles_placed, ours.value_placed) == (ref.tiles_placed, ref.value_placed) == (3, 11)
    validate_move(profile, table, rack, ours.table, ours.played, opened=True)


@pytest.mark.parametrize(("profile_name", "found"), [("standard", True), ("standard+new-set", False)])
def test_bounds_and_host_runs_that_close_before_a_table_tile(profile_name, found):
    """Why ``new_set`` goes without the bounds: the plain pass never closes a valid run where a run of
    its colour starts (``RunTypes.merges``), while a ``new_set`` host run of rack tiles (``R3 J R5``)
    must close before the table's ``R6``. With the bounds, that pass's tracked pass at the floor of
    the best play finds it under ``two_rack_tiles`` (whose host run goes on through ``R6 R7 R8``, as
    the plain pass's run does) and misses it under ``new_set``."""
    profile = load_profile("standard") if profile_name == "standard" else variant_profile(profile_name)
    table, rack = parse_table("J(K3) O3 B3 | R6 R7 R8", profile), parse_tiles("R3 R3 R5 B6", profile)
    (r3,) = parse_tiles("R3", profile)
    best = {}
    for bounds in (True, False):
        meter = Meter(None, options=replace(TRACKED_ONLY, backward=bounds))
        rest = dict(forced=(r3,), floor=8003, host=True, ceiling=11003)
        best[bounds] = _best(tuple(sorted(rack)), table, profile, "value", meter, **rest)[0]
    assert best[False] == 11003  # R3 frees the joker, which goes with the other R3 and the R5
    assert (best[True] == 11003) is found
