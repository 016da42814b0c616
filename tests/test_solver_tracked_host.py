"""The search that tracks the host set of one freed table joker (``jokers._tracked_host``).

Under ``jokers.reuse: two_rack_tiles`` a freed joker must sit in a set with two other rack
items. Where the host sets of one freed joker are too many to list (``MAX_HOST_SOLVES``), or
the listed ones cannot settle the choice, one kernel pass tracks the set that holds the freed
joker (its run type, rack items and whether the joker is in it, or the groups of a value with
rack copies in them) instead of handing the position to the integer program. These tests
force that search (no host sets listed at all) on seeded random positions with locked table
jokers and compare it with the MILP, and pin two game positions that went to the MILP before.

Two freed jokers: the key gets a second host field, the second set starts only once the first
has, and the first may take the second freed joker (one set holding both). The same comparison
with the MILP, and four game positions whose two freed jokers the MILP answered before (the
listing ran past its limits). Three or more jokers in the tracked search (a rack joker beside
two freed ones): runs without per-run joker counts, a relaxation of ``max_per_set`` that is exact
wherever its play is legal. Under ``jokers.reuse: new_set`` (004, ``polish-40``) the same pass
tracks sets of one freed joker and rack items alone (its host runs take rack copies only, and
each freed joker has a set of its own). "No host set listed" is
``SearchOptions(max_host_solves=0, new_set_solves=0, pair_host_solves=0)``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from helpers import with_overrides
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import DrawRng, random_locked_position

import rummisim.solver.dp as dp
import rummisim.solver.jokers as jokers
import rummisim.solver.passes as passes
from rummisim import load_profile, parse_table, parse_tiles
from rummisim.melds import format_table
from rummisim.moves import validate_move
from rummisim.profile import RuleProfile
from rummisim.solver import SearchOptions, placed_value, solve
from rummisim.solver.budget import GiveUp, Meter
from rummisim.solver.common import TILE_WEIGHT
from rummisim.solver.dp import solve_dp
from rummisim.solver.milp import solve_milp
from rummisim.tiles import format_tiles


def two_rack_tiles(name: str) -> RuleProfile:
    """The profile under 000's ``reuse: two_rack_tiles`` (``polish-40`` follows 004's ``new_set``:
    ``test_tracked_new_set_hosts_agree_with_milp``)."""
    profile = load_profile(name)
    if profile.jokers.reuse == "two_rack_tiles":
        return profile
    return with_overrides(name, jokers={"reuse": "two_rack_tiles"})


def score(profile, played, objective):
    tiles, value = len(played), placed_value(played, profile)
    return (tiles, value) if objective == "tiles" else (value, tiles)


def agrees_with_milp(profile, table, rack, ours, objective) -> None:
    """``ours`` (the DP's answer) scores as the MILP's best play does, and is legal."""
    ref = solve_milp(rack, table, profile, initial=False, objective=objective, rearrange=True)
    where = f"{profile.name}: table {format_table(table, profile.tileset)!r} rack {format_tiles(rack, profile.tileset)!r}"
    assert score(profile, ours.played, objective) == score(profile, ref.played, objective), where
    if ours.played:
        validate_move(profile, table, rack, ours.table, ours.played, opened=True)


# no host set listed: every host search tracked
TRACKED_ONLY = SearchOptions(max_host_solves=0, new_set_solves=0, pair_host_solves=0)


def solve_tracked(rack, table, profile, objective="tiles"):
    """``solve_dp`` with every host search of freed jokers going to the tracking search."""
    return solve_dp(rack, table, profile, objective=objective, meter=Meter(options=TRACKED_ONLY))


def checked_against_milp(profile, n: int, seed: int, objective: str) -> int:
    """``agrees_with_milp`` on ``n`` seeded positions with locked table jokers, every host search
    tracked; the positions checked (those the exact search settles: where it gives up, a bounded
    search answers in play)."""
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(n):
        table, rack = random_locked_position(profile, rng)
        ours = solve_tracked(rack, table, profile, objective)
        if ours is not None:
            agrees_with_milp(profile, table, rack, ours, objective)
            checked += 1
    return checked


@pytest.fixture
def tracked(monkeypatch):
    """The calls of the tracking search, counted: (freed jokers, answered)."""
    answered = []
    inner = jokers._tracked_host

    def counted(*args, **kwargs):
        found = inner(*args, **kwargs)
        answered.append((len(args[7]), found is not None))  # (freed jokers, answered)
        return found

    monkeypatch.setattr(jokers, "_tracked_host", counted)
    return answered


@pytest.mark.parametrize(
    ("name", "n", "seed", "objective", "two"),
    [
        ("standard", 120, 31, "tiles", False),
        ("standard", 60, 32, "value", False),
        ("classic-wrap", 80, 33, "tiles", False),
        ("polish-40", 80, 34, "tiles", False),
        # and positions where two freed jokers get tracked
        ("standard", 150, 41, "tiles", True),
        ("standard", 80, 45, "value", True),
        ("polish-40", 120, 42, "tiles", True),
        ("classic-wrap", 120, 43, "tiles", True),
    ],
)
def test_tracked_host_agrees_with_milp(tracked, name, n, seed, objective, two):
    assert checked_against_milp(two_rack_tiles(name), n, seed, objective) >= 0.8 * n
    # the tracking search answered choices that free a joker (it is what these tests check),
    # and choices that free two jokers went to the search with two host fields
    assert sum(ok for _, ok in tracked) >= 5
    assert sum(ok for freed, ok in tracked if freed == 2) >= (5 if two else 0)


@pytest.mark.parametrize(
    ("name", "overrides", "n", "seed", "objective"),
    [
        ("polish-40", {}, 150, 61, "tiles"),
        ("polish-40", {}, 80, 62, "value"),
        ("standard", {"jokers": {"reuse": "new_set"}}, 120, 63, "tiles"),
        ("classic-wrap", {"jokers": {"reuse": "new_set"}}, 80, 64, "tiles"),
    ],
)
def test_tracked_new_set_hosts_agree_with_milp(tracked, name, overrides, n, seed, objective):
    """Under ``reuse: new_set`` a freed joker's set is new, of that joker and rack tiles alone: the
    tracked host runs take rack copies only, and no set holds two freed jokers. Every host search
    tracked (none listed), the DP scores as the MILP does and its plays are legal, also where a
    set with table tiles would hold the freed joker under ``two_rack_tiles``."""
    profile = with_overrides(name, **overrides) if overrides else load_profile(name)
    assert profile.jokers.reuse == "new_set"
    assert checked_against_milp(profile, n, seed, objective) >= 0.8 * n
    assert sum(ok for _, ok in tracked) >= 5
    assert sum(ok for freed, ok in tracked if freed == 2) >= 1
    # its plays are legal under ``new_set`` (a pass that let host runs take table tiles has about
    # half of them refused here)
    assert sum(ok for _, ok in tracked) >= 0.9 * len(tracked)


@settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(name=st.sampled_from(["standard", "polish-40", "classic-wrap", "ramino-discard"]), data=st.data())
def test_two_tracked_hosts_agree_on_drawn_positions(name, data):
    """The same comparison on positions Hypothesis draws (so a failure shrinks to a small
    table and rack), every host search going to the tracking search, two freed jokers too."""
    profile = two_rack_tiles(name)
    table, rack = random_locked_position(profile, DrawRng(data.draw))
    ours = solve_tracked(rack, table, profile)
    assume(ours is not None)
    agrees_with_milp(profile, table, rack, ours, "tiles")


def test_a_host_with_a_rack_one_after_13(tracked):
    """With wrap, the tracking search tries the rack 1 high where a table 1 of that colour could
    be too: here the freed joker's host is ``O12 J O1`` with the rack's O12 and O1 (the table's
    O1 stays in ``K1 R1 O1``), which a table 1 placed high first would miss (4 tiles, 26 points,
    before the fix)."""
    profile = two_rack_tiles("ramino-discard")
    table = parse_table(
        "B11 J(B12) J(B13) B1 | R3 R4 R5 R6 | R7 R8 R9 R10 R11 R12 R13 R1 | B10 B11 B12"
        " | B5 B6 B7 B8 B9 | B3 B4 B5 B6 B7 B8 B9 B10 | K1 R1 O1",
        profile,
    )
    rack = parse_tiles("R11 O1 O12 B1 B13", profile)
    ours = solve_tracked(rack, table, profile)
    assert ours is not None and (len(ours.played), placed_value(ours.played, profile)) == (4, 37)
    validate_move(profile, table, rack, ours.table, ours.played, opened=True)
    assert any(freed == 1 and ok for freed, ok in tracked)


# (profile, table, rack, tiles, value): openings that may touch the table, with more host sets
# than ``MAX_HOST_SOLVES`` (the MILP answered them before the tracking search)
GAME_POSITIONS = [
    (
        "polish-40",
        "J(K3) K4 K5 | K5 R5 O5 | K6 R6 O6 | K7 R7 B7 | K9 R9 B9 | K10 K11 K12 J(K13) | R13 O13 B13"
        " | O8 O9 O10 O11 O12 | B2 B3 B4",
        "K2 K3 K6 K7 K8 R6 R8 R13 O1 O3 O3 O4 O5 O6 O7 O8 O10 O13 B1 B10",
        18,
        113,
    ),
    (
        "ramino-discard",
        "K2 K3 K4 J(K5) | K3 K4 K5 | K7 K8 K9 | K7 R7 O7 B7 | K11 R11 B11 | K12 K13 K1 | R2 O2 B2"
        " | R3 O3 B3 | R6 O6 B6",
        "K2 K5 K6 K6 K9 K10 K11 K13 R3 R5 R5 R8 R8 R9 R12 R13 O12 O12 B3 B4",
        14,
        104,
    ),
]


@pytest.mark.parametrize(("name", "table", "rack", "tiles", "value"), GAME_POSITIONS)
def test_game_positions_past_the_host_limit_stay_in_the_dp(name, table, rack, tiles, value):
    profile = two_rack_tiles(name)
    table, rack = parse_table(table, profile), parse_tiles(rack, profile)
    found = solve(rack, table, profile, initial=True, budget=None)
    assert found.method == "dp" and found.proven
    assert (found.tiles_placed, found.value_placed) == (tiles, value)
    validate_move(profile, table, rack, found.table, found.played, opened=False)
    ref = solve_milp(rack, table, profile, initial=True, objective="tiles", rearrange=True)
    assert (len(ref.played), placed_value(ref.played, profile)) == (tiles, value)


# (profile, table, rack, initial, tiles, value): two freed jokers whose host sets the listing
# gave up on (the MILP answered them in seeded games of four greedy bots)
TWO_HOST_POSITIONS = [
    (
        "standard",
        "K2 R2 O2 | K3 O3 B3 | K6 R6 B6 | K8 R8 O8 | K10 R10 B10 | K10 O10 B10 | K11 R11 O11 B11"
        " | J(K12) O12 B12 | K13 R13 B13 | R9 O9 B9 | O10 O11 O12 | B1 B2 B3 J(B4) B5 B6 B7 | B7 B8 B9",
        "K1 K3 K5 K7 K7 K8 K11 R10 R12 O1 O9 O13 B4 B11",
        False,
        13,
        99,
    ),
    (
        "guide-strict-joker",
        "K1 R1 B1 | K2 R2 O2 | K2 O2 B2 | K3 O3 B3 | K4 K5 K6 K7 K8 | K7 R7 B7 | K8 O8 B8"
        " | K10 K11 K12 | K11 O11 B11 | J(K12) R12 O12 B12 | K13 R13 O13 | R6 O6 B6"
        " | R8 R9 R10 R11 R12 | O8 O9 J(O10) O11 O12 O13 | B3 B4 B5 | B4 B5 B6 B7 B8 B9 | B9 B10 B11",
        "K1 K4 K6 K9 K12 K13 R3 R7 R9 R11 O3 O5 O5 O10 B1 B10 B13 B13",
        False,
        18,
        135,
    ),
    (
        "polish-40",
        "K1 O1 B1 | K3 K4 J(K5) | K4 O4 B4 | K6 R6 O6 | K7 O7 B7 | K8 R8 O8 | K10 K11 J(K12)"
        " | K10 O10 B10 | R5 O5 B5 | R8 R9 J(R10) R11 R12 | R13 O13 B13 | O9 O10 O11 O12 O13 | B7 B8 B9",
        "K2 K3 K5 K5 K6 K8 K13 R4 R4 R10 R10 R13 O1 O2 O6 O7 O9 O11 B3 B5 B6 B8 B10 B11 B13",
        True,
        24,
        172,
    ),
    (
        "ramino-discard",
        "K3 R3 B3 | J(K5) O5 B5 | K11 R11 O11 | J(K12) O12 B12 | K13 R13 B13",
        "K1 K2 K5 K10 K10 K12 R6 R10 R12 O2 O3 O10 O10 O13 B4 B13",
        True,
        13,
        111,
    ),
]


@pytest.mark.parametrize("pair_host_solves", [400, SearchOptions().pair_host_solves])
@pytest.mark.parametrize(("name", "table", "rack", "initial", "tiles", "value"), TWO_HOST_POSITIONS)
def test_two_freed_jokers_past_the_host_limit(name, table, rack, initial, tiles, value, pair_host_solves):
    """Past 400 host sets (the listing's limit for two freed jokers before 0.3.8) the tracked
    search answers them, proven, with the MILP's optimum (147,000 to 222,000 states); within
    ``pair_host_solves`` the listing answers them itself. The states are charged to the search
    budget like any other pass's: where the budget is too small, the beam pass answers, a legal
    play one tile short."""
    profile = two_rack_tiles(name)
    table, rack = parse_table(table, profile), parse_tiles(rack, profile)
    options = SearchOptions(pair_host_solves=pair_host_solves)
    found = solve(rack, table, profile, initial=initial, budget=None, options=options)
    assert found.method == "dp" and found.proven
    in_play = solve(rack, table, profile, initial=initial, options=options)
    if found.nodes <= in_play.nodes:
        assert (in_play.method, in_play.played) == ("dp", found.played)
    else:
        assert in_play.method == "beam" and in_play.tiles_placed == tiles - 1
        validate_move(profile, table, rack, in_play.table, in_play.played, opened=not initial)
    assert (found.tiles_placed, found.value_placed) == (tiles, value)
    validate_move(profile, table, rack, found.table, found.played, opened=not initial)
    ref = solve_milp(rack, table, profile, initial=initial, objective="tiles", rearrange=True)
    assert (len(ref.played), placed_value(ref.played, profile)) == (tiles, value)


def test_one_kernel_call_past_its_limit_gives_up(tracked):
    """``SearchOptions.max_tracked_call`` bounds one kernel call of the tracked search, apart
    from ``max_tracked_states`` over all of them: a search whose first pass runs past it gives up
    (``GiveUp.TRACKED_STATES``), where the default limits settle the same position."""
    profile = two_rack_tiles("standard")
    rng = np.random.default_rng(31)
    for _ in range(60):
        table, rack = random_locked_position(profile, rng)
        tracked.clear()
        if solve_tracked(rack, table, profile) is not None and any(ok for _, ok in tracked):
            break
    else:
        pytest.fail("no drawn position went to the tracked search")
    options = SearchOptions(max_host_solves=0, pair_host_solves=0, max_tracked_call=10)
    meter = Meter(options=options)
    assert solve_dp(rack, table, profile, objective="tiles", meter=meter) is None
    assert meter.why is GiveUp.TRACKED_STATES
    # the whole search's states are not the limit: one call is
    wide = SearchOptions(
        max_host_solves=0, pair_host_solves=0, max_tracked_states=1 << 30, max_tracked_call=10
    )
    meter = Meter(options=wide)
    assert solve_dp(rack, table, profile, objective="tiles", meter=meter) is None
    assert meter.why is GiveUp.TRACKED_STATES


def test_a_budget_cut_keeps_the_best_legal_play_found():
    """Where the search budget runs out after the exact search found legal plays, the answer is
    the best of those and the beam pass's: here an opening that touches the table, where the
    beam pass alone (on the rack, with the budget left) places 7 tiles."""
    profile = two_rack_tiles("polish-40")
    table = parse_table(
        "K2 R2 J(O2) | K5 R5 B5 | K7 O7 B7 | K8 K9 K10 | K12 R12 O12 B12 | K13 O13 B13 | R2 R3 R4"
        " | R8 R9 R10 | R11 O11 B11 | O4 O5 O6 O7 | B7 B8 B9 | B9 B10 B11 B12",
        profile,
    )
    rack = parse_tiles("K2 K3 K6 K7 K9 K11 K12 R1 R7 R7 R8 R11 R13 O2 O3 O3 O4 O12 B1 B2 J", profile)
    cut = solve(rack, table, profile, initial=True, budget=30_000)  # its exact search: 35,433
    assert cut.method == "beam" and not cut.proven
    validate_move(profile, table, rack, cut.table, cut.played, opened=False)
    assert cut.tiles_placed == 20
    beam_alone = dp.solve_dp_beam(rack, table, profile, initial=True, objective="tiles", states=30_000)
    assert beam_alone is not None and len(beam_alone.played) < cut.tiles_placed


# Three jokers in the tracked search (a rack joker beside two freed ones: runs without per-run
# joker counts, a relaxation of ``max_per_set``), and a refused decoding tried again with the kept
# jokers outside the host runs: two game positions of ``polish-40`` (4 jokers, here under
# ``two_rack_tiles``) that the integer program answered before (the listing gave up: ``why``).
RELAXED_POSITIONS = [
    (  # an opening of 20 rack tiles, a rack joker, two table jokers freed: 3 jokers to track
        "K1 O1 B1 | K7 J(K8) K9 K10 | K7 O7 B7 | K12 R12 O12 B12 | R6 R7 R8 | O7 O8 O9 O10"
        " | B8 B9 B10 J(B11) B12 B13 | R11 O11 B11 | K4 R4 O4",
        "K4 K8 K13 R1 R1 R5 R10 R10 O1 O2 O3 O5 O6 O6 O10 B4 B5 B6 B11 J",
        True,
        19,
        132,
    ),
    (  # R7 frees J(R7); the tracked pass's host run K8..K13 counted the rack's K13, where the
        # kept J(K13) went back: put back in K13 O13 B13 instead, the play is legal
        "K3 R3 O3 | K5 K6 K7 | K11 R11 O11 B11 | K12 O12 B12 | J(K13) O13 B13 | R5 J(R6) J(R7) R8 R9"
        " | R11 O11 B11 | O5 O6 O7 | B3 B4 B5 | B5 B6 B7 B8 | K10 K11 K12 | O6 O7 O8 O9",
        "K2 K9 K9 K13 R1 R7 B10",
        False,
        4,
        38,
    ),
]


@pytest.mark.parametrize(("table", "rack", "initial", "tiles", "value"), RELAXED_POSITIONS)
def test_relaxed_tracking_answers_what_the_milp_did(table, rack, initial, tiles, value):
    profile = two_rack_tiles("polish-40")
    table, rack = parse_table(table, profile), parse_tiles(rack, profile)
    found = solve(rack, table, profile, initial=initial, budget=None)
    assert found.method == "dp" and found.proven
    assert (found.tiles_placed, found.value_placed) == (tiles, value)
    validate_move(profile, table, rack, found.table, found.played, opened=not initial)
    ref = solve_milp(rack, table, profile, initial=initial, objective="tiles", rearrange=True)
    assert (len(ref.played), placed_value(ref.played, profile)) == (tiles, value)


def test_relaxed_tracking_agrees_with_milp(monkeypatch, tracked):
    """Every host search tracked (none listed), with the relaxation, on seeded ``polish-40``
    positions whose rack holds a joker and the tiles of two table jokers (so three jokers may
    be in the tracked search): the MILP's answers wherever the DP answers."""
    relaxed = []
    inner = passes._tables

    def tables(profile, copies, n_jokers, relax_cap=False):
        relaxed.append(relax_cap and n_jokers > profile.jokers.max_per_set)
        return inner(profile, copies, n_jokers, relax_cap)

    monkeypatch.setattr(passes, "_tables", tables)
    profile = two_rack_tiles("polish-40")
    joker = profile.tileset.joker
    rng = np.random.default_rng(53)
    checked = drawn = 0
    while checked < 50 and drawn < 8_000:
        drawn += 1
        table, rack = random_locked_position(profile, rng)
        faces = [f for m in table for t, f in zip(m.tiles, m.faces, strict=True) if t == joker]
        if joker not in rack or sum(f in rack for f in faces) < 2:
            continue
        ours = solve_tracked(rack, table, profile)
        if ours is None:
            continue
        agrees_with_milp(profile, table, rack, ours, "tiles")
        checked += 1
    assert checked == 50 and sum(relaxed) >= 5
    assert sum(ok for freed, ok in tracked if freed == 2) >= 3


def test_host_run_types_beaten_by_another():
    """``host_fields.host_beats``: a host run of type ``a`` beats one of type ``b`` where every move of
    ``b`` is one of ``a`` too, into a type as good, closing where ``b`` closes and at the top with as
    few leading jokers. Of the four types (A one tile, C two items, D a valid run and a joker
    waiting for a tile, E valid), C and E beat D, and nothing else (C closes nowhere E does not,
    but after a joker E waits for a tile where C is valid)."""
    from rummisim.solver.host_fields import host_beats
    from rummisim.solver.tables import _tables, type_arrays

    for name in ("standard", "guide-strict-joker", "classic-wrap"):
        profile = two_rack_tiles(name)
        types = _tables(profile, profile.tileset.copies, 3, True).types
        beats = host_beats(*type_arrays(types))
        names = types.names
        pairs = {(names[a], names[b]) for a, b in zip(*np.nonzero(beats), strict=True)}
        assert pairs == {("C", "D"), ("E", "D")}, name
        assert not (beats & beats.T).any()


def test_a_step_drops_the_states_whose_host_run_another_beats():
    """``kernel._drop_dominated`` on a step of five states: the host run with fewer rack items
    goes where the same key with more items scores as high, and a D run goes beside a C run of
    as many items; a lower score, another colour or the other freed-joker flag keeps a state;
    the states kept stay in order."""
    from rummisim.solver import host_fields as H
    from rummisim.solver import kernel as K

    at = 20
    rest = 0b1011  # the key's other fields, the same in all

    def run(colour, kind, items, freed=0):
        field = H.HOST_ACTIVE + colour * H.HOST_PER_COLOUR + kind * 6 + items * 2 + freed
        return rest | (field << at)

    a, c, d, e = range(4)
    states = [
        (run(0, e, 1), 10),  # beaten: E with two items scores 10
        (run(0, e, 2), 10),
        (run(1, d, 0), 7),  # beaten: C with no item scores 7
        (run(1, c, 0), 7),
        (run(2, e, 0), 9),  # kept: E with two items of colour 2 scores less
        (run(2, e, 2), 8),
        (run(3, d, 1, freed=1), 5),  # kept: the C beside it holds no freed joker
        (run(3, c, 1), 6),
    ]
    n = len(states)
    keys = np.zeros(16, dtype=np.int64)
    scores, parents, actions = np.zeros_like(keys), np.zeros_like(keys), np.zeros_like(keys)
    htab = np.zeros((1 << K.HASH_BITS, 3), dtype=np.int64)
    hinfo = np.zeros(2, dtype=np.int64)
    K._new_step(htab, hinfo, n)
    count = 1  # the step starts after one state of the step before
    for i, (key, score) in enumerate(states):
        count, _ = K._insert(key, score, 0, i, keys, scores, parents, actions, count, 1, htab, hinfo)
    beats = np.zeros((4, 4), dtype=np.bool_)
    beats[c, d] = beats[e, d] = True
    host = SimpleNamespace(at=at, second_at=-1, beats=beats)
    kept = K._drop_dominated.py_func(1, count, keys, scores, parents, actions, htab, hinfo, host)
    assert list(actions[1:kept]) == [1, 3, 4, 5, 6, 7]


def test_floors_above_the_ceiling_are_not_searched(monkeypatch):
    """``passes._best_or_bound`` with a ``ceiling`` (the joker choice's bound, which no legal play
    here passes) runs no floor above it: only the floors between it and ``floor``, then ``floor``."""
    profile = load_profile("standard")
    table = parse_table("K3 K4 K5 | R7 O7 B7", profile)
    rack = parse_tiles("K6 K7 R1 O9 B12", profile)
    seen = []
    search = passes._search

    def spy(tab, grids, bounds, *args, **kwargs):
        seen.append(list(bounds))
        return search(tab, grids, bounds, *args, **kwargs)

    monkeypatch.setattr(passes, "_search", spy)
    meter = Meter()
    weight = TILE_WEIGHT
    found = passes._best_or_bound(rack, table, profile, "tiles", meter, floor=weight)
    assert found is not None and len(found[2]) == 2
    found = passes._best_or_bound(rack, table, profile, "tiles", meter, floor=weight, ceiling=3 * weight)
    assert found is not None and len(found[2]) == 2
    whole, ceiling = seen
    assert whole[0] == 5 * weight and whole[-1] == weight
    assert ceiling == [3 * weight, weight]


def test_a_new_set_host_group_holds_rack_copies_only():
    """The decoding's host group under ``reuse: new_set`` takes rack copies and rack jokers only:
    K5 B5 R5 with rack copies of K and R and one freed joker form K5 R5 B5 J under
    ``two_rack_tiles`` (B5 from the table), and no groups under ``new_set`` (J K5 R5 leaves B5)."""
    from rummisim.solver.decode import _host_groups

    new_set = load_profile("polish-40")
    two = two_rack_tiles("polish-40")
    ts = new_set.tileset
    tiles = list(parse_tiles("K5 B5 R5", new_set))
    rack_colours = tuple(ts.colour_of(t) for t in parse_tiles("R5 K5", new_set))
    formed = _host_groups(list(tiles), 1, rack_colours, 0, two)
    assert formed is not None and [format_tiles(t, ts) for t, _ in formed] == ["K5 R5 B5 J"]
    assert _host_groups(list(tiles), 1, rack_colours, 0, new_set) is None
    # K5 R5 O5 from the table and K5 B5 from the rack: J K5 B5 beside K5 R5 O5
    tiles = list(parse_tiles("K5 R5 O5 B5 K5", new_set))
    rack_colours = tuple(ts.colour_of(t) for t in parse_tiles("B5 K5", new_set))
    formed = _host_groups(tiles, 1, rack_colours, 0, new_set)
    assert formed is not None and sorted(format_tiles(t, ts) for t, _ in formed) == ["K5 B5 J", "K5 R5 O5"]
