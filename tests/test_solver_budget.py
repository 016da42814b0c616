"""The search budget (``time_limit.search_budget``): deterministic units, a proven optimum
when it suffices, a legal play marked not proven when it runs out, never the integer program;
and the reference integer program's answer re-validated (``SolverError`` rather than an illegal
move)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import table, tiles, with_overrides

import rummisim.solver.dispatch as solver_module
import rummisim.solver.milp as milp_module
import rummisim.solver.passes as passes
from rummisim import load_profile, play_game
from rummisim.moves import validate_move
from rummisim.solver import SolverError, reference_solve, solve
from rummisim.solver.budget import GiveUp, Meter
from rummisim.solver.common import SearchBudgetSpent
from rummisim.solver.common import SearchResult as MilpResult
from rummisim.solver.dispatch import BEAM_SHARE
from rummisim.solver.dp import solve_dp_beam
from rummisim.solver.kernel import Buffers
from rummisim.solver.milp import MILP_UNITS_PER_NONZERO, solve_milp
from rummisim.solver.tables import HASH_BITS

# mid-game positions from seeded greedy games on ``standard`` that take the exact DP
# well over CUT states (locked table jokers make it search several joker choices; 0.3.11: the
# first takes 59,191, 75,000 or more before one host set per tiles taken; 0.3.15: 34,297, the
# kernel leaving out more dead ends; 0.3.16: 16,377, its tracked pass past 100 host sets and after
# the plain pass's bounds)
CUT = 8_000  # a search budget that cuts each of them short (12,000 before 0.3.23's reading)
BIG = [
    (
        "K2 K5 K6 K6 R3 R5 R8 R9 R12 R13 O3 O6 O9 O12 O12 B4",
        "K1 R1 O1 | K2 K3 K4 | K3 K4 J(K5) | K5 R5 O5 | K7 R7 O7 | K7 R7 B7 | K8 K9 K10"
        " | K9 K10 K11 K12 K13 | K11 R11 B11 | R2 O2 B2 | R6 O6 B6",
    ),
    (
        "K7 K11 K13 O7 O8 O10 O12 O12 B1 B10 B13 B13",
        "K1 R1 O1 | K1 R1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 B9 | J(K11) R11 O11"
        " | K11 R11 B11 | K12 J(R12) B12 | R2 R3 R4 | R4 R5 R6 | R6 R7 R8 | R10 O10 B10"
        " | O1 O2 O3 O4 O5 O6 | O2 O3 O4 O5 O6 O7 | B2 B3 B4 | B3 B4 B5 B6 | B6 B7 B8",
    ),
    (
        "R12 O4 O5 O9 O9 B2 B11",
        "K9 K10 K11 | K11 K12 K13 | K4 K5 K6 K7 K8 K9 | R4 R5 R6 | R10 R11 R12 | R5 R6 R7 R8"
        " | O6 O7 O8 | O3 O4 O5 O6 | B3 B4 B5 B6 B7 | K1 O1 B1 | K1 R1 O1 B1 | K2 R2 B2"
        " | K3 R3 O3 | K4 R4 B4 | K7 R7 B7 | K13 R13 O13 | R13 O13 B13 | B9 B10 J(B11) B12"
        " | J(K10) O10 B10",
    ),
]


def legal(profile, table_text, rack_text, solution, opened=True):
    if solution.played:
        validate_move(
            profile,
            table(table_text, profile),
            tiles(rack_text, profile),
            solution.table,
            solution.played,
            opened=opened,
        )
    return True


@pytest.mark.parametrize(("rack", "table_text"), BIG)
def test_a_budget_that_suffices_changes_nothing(standard, rack, table_text):
    free = solve(rack, table_text, standard)
    assert free.proven and free.nodes > CUT  # more than the cut budget below
    # the exact search may spend all but 1/BEAM_SHARE of the budget
    enough = free.nodes * BEAM_SHARE // (BEAM_SHARE - 1) + BEAM_SHARE
    bounded = solve(rack, table_text, standard, budget=enough)
    assert bounded == free


@pytest.mark.parametrize(("rack", "table_text"), BIG)
def test_a_search_cut_short_plays_legally_within_its_budget(standard, rack, table_text):
    best = solve(rack, table_text, standard)
    cut = solve(rack, table_text, standard, budget=CUT)
    assert not cut.proven
    assert cut.nodes <= CUT
    assert legal(standard, table_text, rack, cut)
    assert 0 < cut.tiles_placed <= best.tiles_placed  # the beam pass found a real play
    again = solve(rack, table_text, standard, budget=CUT)
    assert again == cut  # deterministic: no wall clock anywhere


def test_the_profile_budget_is_the_default(standard):
    rack, table_text = BIG[0]
    budgeted = with_overrides("standard", time_limit={"search_budget": CUT})
    by_profile = solve(rack, table_text, budgeted)
    by_argument = solve(rack, table_text, standard, budget=CUT)
    assert (by_profile.played, by_profile.nodes, by_profile.proven) == (
        by_argument.played,
        by_argument.nodes,
        by_argument.proven,
    )


@pytest.mark.parametrize("budget", [1, 10, 100])
def test_a_tiny_budget_finds_nothing_and_says_so(standard, budget):
    rack, table_text = BIG[1]
    cut = solve(rack, table_text, standard, budget=budget)
    assert not cut.is_play and not cut.proven
    assert cut.nodes <= budget
    # a budget spent before the beam pass or the integer program could run says "none"
    assert cut.method == ("beam" if budget > BEAM_SHARE else "none")


def test_small_positions_stay_proven_under_a_small_budget(standard):
    solution = solve("R4 K9 O9", "R1 R2 R3 | K8 O8 B8", standard, budget=2_000)
    assert solution.proven and solution.tiles_placed == 1 and solution.nodes <= 2_000


@pytest.mark.parametrize("states", [2_000, 20_000, 200_000])
def test_beam_pass_is_legal_and_within_its_states(standard, states):
    for rack, table_text in BIG:
        found = solve_dp_beam(
            tiles(rack, standard), table(table_text, standard), standard,
            initial=False, objective="tiles", states=states,
        )  # fmt: skip
        assert found is not None and not found.proven and found.nodes <= states
        assert legal(standard, table_text, rack, found)


def test_beam_pass_for_an_opening_meets_the_threshold(standard):
    rack = "R10 R11 R12 K1 K2 O7 B7 K7 B3"
    found = solve_dp_beam(tiles(rack, standard), (), standard, initial=True, objective="tiles", states=5_000)
    assert found.played
    validate_move(standard, (), tiles(rack, standard), found.table, found.played, opened=False)


def test_a_search_of_pinned_sets_cut_short_ends_with_a_beam_pass():
    """Strict joker sets pin the table's joker sets, and ``rearrange=False`` every table set; a
    search of theirs cut short by the budget gets the beam pass with the pins kept, like any
    other (such searches once went to the integer program)."""
    strict = load_profile("guide-strict-joker")
    rack, table_text = BIG[0]
    best = solve(rack, table_text, strict, budget=None)
    cut = solve(rack, table_text, strict, budget=CUT)  # its exact search: 9,203 (16,347 before 0.3.23)
    assert cut.method == "beam" and not cut.proven and cut.nodes <= CUT
    assert 0 < cut.tiles_placed <= best.tiles_placed
    assert legal(strict, table_text, rack, cut)  # under strict sets: the joker sets stayed together
    standard = load_profile("standard")  # a budget below the exact search's 133 states (220 before 0.3.23)
    cut = solve(rack, table_text, standard, budget=100, rearrange=False)
    assert cut.method == "beam" and not cut.proven and cut.nodes <= 100 and not cut.played


def test_a_game_under_a_small_budget_counts_timeouts_and_stays_legal():
    tight = with_overrides("standard", time_limit={"search_budget": 3_000, "timeout_draw": 1})
    record = play_game(tight, ["greedy", "greedy", "value", "conservative"], 11, strict=True)
    rnd = record.rounds[0]
    assert rnd.timeouts > 0  # some turns ran out of budget and drew the penalty tile
    assert not record.faults
    loose = play_game(load_profile("standard"), ["greedy", "greedy", "value", "conservative"], 11)
    assert loose.rounds[0].timeouts == 0


def test_an_illegal_answer_from_every_formulation_raises(standard, monkeypatch):
    bogus = table("R1 R2 R3 R4", standard)

    def fake_milp(rack, table_, profile, **kwargs):
        return MilpResult(bogus + table("K9 O9 B9", standard), tiles("K9", standard), True, 1)

    monkeypatch.setattr(solver_module, "solve_milp", fake_milp)
    with pytest.raises(SolverError, match=r"rack 'R4 K9' and table 'R1 R2 R3'"):
        reference_solve("R4 K9", "R1 R2 R3", standard)


def test_an_illegal_first_answer_falls_back_to_the_pattern_formulation(standard, monkeypatch):
    calls = []
    real = solver_module.solve_milp

    def first_bogus(rack, table_, profile, **kwargs):
        calls.append(kwargs["formulation"])
        if kwargs["formulation"] == "windows":
            return MilpResult(table("K9 O9 B9", standard), tiles("K9", standard), True, 1)
        return real(rack, table_, profile, **kwargs)

    monkeypatch.setattr(solver_module, "solve_milp", first_bogus)
    solution = reference_solve("R4 K9", "R1 R2 R3", standard)
    assert calls == ["windows", "patterns"]
    assert solution.tiles_placed == 1 and legal(standard, "R1 R2 R3", "R4 K9", solution)


def test_an_opening_that_may_touch_the_table_cut_short_plays_the_rest_on_the_table():
    """Out of budget, an opening that may touch the table falls back to a beam pass over the rack
    alone (a legal opening there too), then one that plays the rest of the rack on the table as a
    turn beside those sets, never to the integer program: a polish-40 opening from a seeded game
    (its exact search: 350,786 states, 17 tiles, in 0.3.9; 141,705 in 0.3.15) that a budget of
    40,000 cuts short (0.3.15: with 60,000 the beam pass, now without dead ends, finds the 17)."""
    polish = load_profile("polish-40")
    rack = tiles("K6 K8 K9 K9 R4 R5 R8 R10 R10 O3 O5 O7 B3 B5 B5 B6 B8 J", polish)
    board = table(
        "K1 R1 O1 B1 | K6 O6 B6 | K7 J(R7) B7 | K11 O11 B11 | R1 R2 R3 | R3 J(R4) R5 | R11 R12 R13"
        " | O2 O3 O4 | O10 O11 O12 O13 | B7 B8 B9 B10 B11",
        polish,
    )
    rack_only = solve_dp_beam(rack, board, polish, initial=True, objective="tiles", states=40_000)
    assert rack_only.table[: len(board)] == board and len(rack_only.played) == 10
    got = solve(rack, board, polish, initial=True, budget=40_000)
    assert got.method == "beam" and not got.proven and got.nodes <= 40_000
    validate_move(polish, board, rack, got.table, got.played, opened=False)
    assert (
        len(rack_only.played)
        < got.tiles_placed
        < solve(rack, board, polish, initial=True, budget=None).tiles_placed
    )


# a late position from a seeded game of four ``lookahead`` bots on ``standard``: freeing the
# locked table jokers (two rack tiles beside each) lists more joker hosts than the DP's limits;
# one search that tracks the two freed jokers' host sets plays 14 tiles, as the integer program
HOSTS = (
    "K1 K4 K8 K9 R1 R3 R4 R8 R9 R9 R10 R13 O5 O10 B1",
    "K2 R2 B2 | K13 J(R13) O13 B13 | R11 R12 R13 | O3 O4 J(O5) | O7 O8 O9 | O9 O10 O11"
    " | K1 O1 B1 | K5 R5 B5 | K6 R6 O6",
)


def no_integer_program(monkeypatch) -> None:
    def no_milp(*args, **kwargs):
        raise AssertionError("solve must never call the integer program")

    monkeypatch.setattr(solver_module, "solve_milp", no_milp)
    monkeypatch.setattr(milp_module, "milp", no_milp)


def test_no_search_calls_the_integer_program(standard, monkeypatch):
    """Two freed jokers past the host listing: the tracked host pass answers exactly, with or
    without a budget; a quick search (``exact=False``) settles for a legal play, not proven."""
    rack, table_text = HOSTS
    ref = reference_solve(rack, table_text, standard)
    no_integer_program(monkeypatch)
    exact = solve(rack, table_text, standard, budget=None)
    assert (exact.method, exact.proven, exact.tiles_placed) == ("dp", True, ref.tiles_placed)
    assert exact.value_placed == ref.value_placed
    assert solve(rack, table_text, standard, budget=200_000).played == exact.played
    settled = solve(rack, table_text, standard, exact=False)
    assert settled.method == "cut" and not settled.proven and settled.give_up is not None
    assert settled.is_play and legal(standard, table_text, rack, settled)
    assert settled.tiles_placed <= exact.tiles_placed
    # a position the DP answers is answered the same, and proven
    small = solve("R4 R5 K6 K7 B9 O10", "R1 R2 R3 | O7 O8 O9", standard, exact=False)
    assert small.method == "dp" and small.proven
    assert small.tiles_placed == solve("R4 R5 K6 K7 B9 O10", "R1 R2 R3 | O7 O8 O9", standard).tiles_placed


def test_a_budget_below_the_search_plays_the_beam_pass(standard, monkeypatch):
    """A budget the exact search runs past: the beam pass spends the rest, and its legal play is
    the answer, not proven, within the budget."""
    rack, table_text = HOSTS
    exact = solve(rack, table_text, standard, budget=None)
    no_integer_program(monkeypatch)
    cut = solve(rack, table_text, standard, budget=exact.nodes // 2)
    assert cut.method in ("beam", "cut") and not cut.proven and cut.nodes <= exact.nodes // 2
    assert cut.is_play and legal(standard, table_text, rack, cut)
    assert (cut.tiles_placed, cut.value_placed) <= (exact.tiles_placed, exact.value_placed)


def test_the_integer_program_is_charged_its_model_per_node(standard):
    """One branch-and-bound node costs ``MILP_UNITS_PER_NONZERO`` units per nonzero of the model;
    a budget below one node's cost stops it before any solving."""
    rack, table_text = HOSTS
    args = (tiles(rack, standard), table(table_text, standard), standard)
    opts = dict(initial=False, objective="tiles", rearrange=True)
    free = solve_milp(*args, **opts)
    assert free.proven and free.nodes > 0 and free.nodes % MILP_UNITS_PER_NONZERO == 0
    assert free.nodes > 200_000  # the joker hosts make a big model: more than a profile's budget
    covered = solve_milp(*args, **opts, units=free.nodes)  # one node: the same answer
    assert (covered.played, covered.table, covered.proven) == (free.played, free.table, True)
    with pytest.raises(SearchBudgetSpent):
        solve_milp(*args, **opts, units=free.nodes - 1)


def test_a_search_that_gave_up_is_no_timeout(monkeypatch):
    """Under a budget profile (``guide-strict-joker``: a timeout draws a penalty tile) a search that
    gives up at a corner of the exact search's scope is an answer, not a budget run out: the bot
    plays it. The corner: a pinned run that could host the freed joker, with the sets it grows
    into left out (0.3.0's search; 0.3.1 tries them, ``hosts.grown_pin_hosts``)."""
    from helpers import turn_view  # noqa: PLC0415

    import rummisim.solver.jokers as jokers  # noqa: PLC0415
    from rummisim.bots import make_bot  # noqa: PLC0415
    from rummisim.contract import OutOfBudget, Play  # noqa: PLC0415

    monkeypatch.setattr(jokers, "grown_pins", lambda *args: None)

    strict = load_profile("guide-strict-joker")
    table_text = "J(B3) B4 B5 B6 B7 | R3 R4 R5 R6 J(R7) | R7 R8 R9 R10 R11 R12"
    rack = "R5 R8 R9 O11 B3 B6"
    assert solve(rack, table_text, strict).give_up is not None
    bot = make_bot("greedy", strict, np.random.default_rng(0))
    action = bot.act(turn_view(strict, rack, table_text, opened=True))
    assert isinstance(action, Play) and not isinstance(action, OutOfBudget)
    validate_move(
        strict, table(table_text, strict), tiles(rack, strict), action.table, action.played, opened=True
    )


def test_a_pass_past_the_state_arrays_charges_the_states_it_made(monkeypatch):
    """A pass that fills the state arrays (``tables.OVERFLOW``) gives up (``GiveUp.STATES``) and
    charges the states it made: at least one, at most the arrays' length (0.3.12; it had charged
    the overflow code added in, fewer than it made or below zero)."""
    profile = load_profile("standard")
    rack, table_ = tiles(BIG[0][0], profile), table(BIG[0][1], profile)
    length = 256  # the search makes tens of thousands of states
    small = Buffers(
        *(np.empty(length, dtype=np.int64) for _ in range(4)),
        np.zeros((1 << HASH_BITS, 3), dtype=np.int64),
        np.zeros(2, dtype=np.int64),
    )
    monkeypatch.setattr(passes, "_buffers", lambda: small)
    meter = Meter()
    found = passes._best_or_bound(rack, table_, profile, "tiles", meter, prune=False)
    assert found is None
    assert meter.why == GiveUp.STATES
    assert 0 < meter.spent <= length
