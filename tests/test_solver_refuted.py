"""A pass with a host set placed that found nothing at its floor is not run again in the same
search (``SearchOptions.reuse_refuted``, ``Meter.replayed``): the host listings of a position
often search the same tiles at the same floor (the same rest after another host set or opening
core, the full search after the pruned one). The pass is replayed, its states charged again, so
the answer, the states a search reports and where a budget cuts it short are what they were
without it; only the kernel calls are fewer."""

from __future__ import annotations

import pytest
from helpers import solved_both_ways
from hypothesis import HealthCheck, given, settings
from strategies import positions

from rummisim import load_profile, parse_table, parse_tiles
from rummisim.solver import SearchOptions, passes, solve

OFF = SearchOptions(reuse_refuted=False)

# (profile, table, rack, initial): positions from the committed sets whose searches repeat a pass
REPEATING = [
    (
        "guide-strict-joker",
        "K1 K2 K3 | K1 R1 B1 | K4 R4 B4 | K6 R6 B6 | K6 O6 B6 | K8 J(K9) K10 K11 K12 | K8 R8 O8 | "
        "R1 R2 R3 R4 R5 | R7 O7 B7 | R9 O9 B9 | O1 O2 O3 | O3 O4 O5 O6 O7 | O10 O11 O12 O13 | "
        "B1 B2 B3 | B2 B3 B4 B5 | B7 B8 B9 B10 B11 | B11 B12 B13 | J(B11) B12 B13",
        "K9 R5 R10",
        False,
    ),
    (
        "standard",
        "K1 R1 O1 B1 | K3 R3 O3 | K4 K5 K6 K7 | K6 K7 K8 K9 | R1 R2 R3 | R4 O4 B4 | R5 R6 R7 | "
        "R6 O6 B6 | J(R7) R8 R9 R10 R11 R12 R13 | R13 O13 B13 | O8 O9 O10 | O9 J(O10) O11 O12 | "
        "B1 B2 B3 B4 B5 | B7 B8 B9",
        "R7 O12 B3 B10 B11",
        False,
    ),
]

# ... and a ``polish-40`` opening that repeated passes of its host listings, which now run in one
# compiled call without looking in the memo (``listing.refuted_rows``, after 0.3.23): the same answers,
# states and cuts either way
LISTED = [
    (
        "polish-40",
        "J(K4) R4 B4 | K8 R8 O8 | O11 O12 O13 | B9 B10 B11 B12 B13",
        "K1 K3 K3 K4 K8 K11 K13 R5 R6 R7 R12 O4 O7 O11 B12 J",
        True,
    ),
]


def _outcome(solution):
    return solution.played, solution.table, solution.nodes, solution.method, solution.give_up


def _kernel_calls(monkeypatch) -> list[int]:
    """A counter of the compiled passes ``passes._passes`` runs."""
    calls = [0]
    run = passes._run_passes

    def counted(*args):
        calls[0] += 1
        return run(*args)

    monkeypatch.setattr(passes, "_run_passes", counted)
    return calls


@pytest.mark.parametrize("name, table, rack, initial", REPEATING)
def test_a_refuted_pass_is_replayed_not_run(monkeypatch, name, table, rack, initial):
    profile = load_profile(name)
    args = (parse_tiles(rack, profile), parse_table(table, profile), profile)
    calls = _kernel_calls(monkeypatch)
    reused = solve(*args, initial=initial, budget=None)
    with_reuse, calls[0] = calls[0], 0
    full = solve(*args, initial=initial, budget=None, options=OFF)
    assert reused.proven and _outcome(reused) == _outcome(full)
    assert with_reuse < calls[0]


@pytest.mark.parametrize("name, table, rack, initial", REPEATING + LISTED)
def test_a_budget_cuts_the_search_where_it_did(name, table, rack, initial):
    """The replayed pass is charged its states: a budget that runs out part of the way gives the
    same answer, at every share of the states the full search takes."""
    profile = load_profile(name)
    args = (parse_tiles(rack, profile), parse_table(table, profile), profile)
    states = solve(*args, initial=initial, budget=None).nodes
    for share in (0.3, 0.6, 0.9, 1.2):
        budget = int(states * share)
        reused = solve(*args, initial=initial, budget=budget)
        full = solve(*args, initial=initial, budget=budget, options=OFF)
        assert _outcome(reused) == _outcome(full)


@settings(derandomize=True, deadline=None, database=None, max_examples=80,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(pos=positions())
def test_replaying_refuted_passes_changes_no_answer(pos):
    """On every variant: the same play, table, states and method with and without the replay."""
    default, without = solved_both_ways(pos, OFF)
    assert _outcome(default) == _outcome(without)
