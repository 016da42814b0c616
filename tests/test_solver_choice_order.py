"""The order the exact search takes joker choices and host searches in (0.3.17): at the whole
rack's floor a choice that frees every joker relaxes the others, so where it finds no play of the
whole rack they are not searched there; two freed jokers with more host sets than
``SearchOptions.pair_listing_first`` go to their tracked pass first, and their listing only where
that pass finds nothing. Under ``jokers.reuse: new_set`` (no whole-rack-first pass) a choice that
frees one joker and whose bound plays the whole rack has its host sets searched at once (0.3.18).
None may move an answer: each position below is checked against the integer program."""

from __future__ import annotations

from dataclasses import replace

from helpers import BOTTOM_UP
from test_solver_tracked_host import score

from rummisim import load_profile
from rummisim.melds import parse_table
from rummisim.solver import SearchOptions, solve
from rummisim.solver import jokers as jokers_module
from rummisim.solver.milp import solve_milp
from rummisim.tiles import parse_tiles

# ``guide-strict-joker`` greedy #203 (``benchmarks/positions``): two locked jokers, nine choices,
# and no play of the whole rack (12 of its 13 tiles at best)
GUIDE_RACK = "K7 K11 K13 O7 O8 O10 O12 O12 B1 B9 B10 B13 B13"
GUIDE_TABLE = (
    "K1 R1 O1 | K1 O1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 B9 | K11 R11 O11 | J(K11) R11 B11"
    " | K12 J(R12) B12 | R1 R2 R3 R4 | R4 R5 R6 | R6 R7 R8 | R10 O10 B10 | O2 O3 O4 O5 O6"
    " | O2 O3 O4 O5 O6 O7 | B2 B3 B4 | B3 B4 B5 B6 | B6 B7 B8"
)

# ``ramino-discard`` beginner-value #19: an opening on the table whose two choices that free both
# jokers have a few hundred host sets each
RAMINO_RACK = "K5 K8 K12 K12 R1 R6 R7 R10 R10 O3 O4 O6 O6 O7 O10 O12 B3 B7 B9 B12"
RAMINO_TABLE = (
    "K4 R4 B4 | K4 R4 B4 | K7 J(R7) O7 | J(K10) O10 B10 | K11 R11 B11 | K13 R13 O13 B13 | R2 O2 B2"
    " | O3 O4 O5 | B12 B13 B1"
)

# a search from ``guide-strict-joker`` trickle-jokers' games without a budget
# (``record_positions.py --no-budget``) whose tracked pass of two freed jokers runs past its
# states; the listing after it settles it
LISTED_RACK = "R8 R13 O3 O10 O11 B3 B6 B7 B12"
LISTED_TABLE = (
    "K1 K2 K3 K4 | K1 R1 O1 B1 | K5 R5 B5 | K6 K7 K8 | K6 R6 O6 | K9 R9 B9 | K9 O9 B9 | K11 R11 J(O11)"
    " | K11 R11 B11 | R1 R2 R3 | R2 O2 B2 | R4 O4 B4 | R5 R6 R7 | O1 O2 J(O3) O4 O5 O6 O7 O8 O9 O10"
    " O11 O12 O13 | B5 B6 B7"
)


# ``polish-40`` trickle-jokers #49: an opening beside four locked jokers, sixteen joker choices for the
# rest of the rack, fifteen of them bounded by a play of all of it
POLISH_RACK = "K1 K3 K4 K6 K6 K7 K12 R1 R2 R2 R6 R6 R9 R10 O4 O5 O10 B2 B4 B5 B6 B8 B8 B11 B12 B13"
POLISH_TABLE = (
    "K1 R1 O1 | K2 O2 B2 | J(K7) R7 O7 B7 | K9 O9 B9 | K11 R11 B11 | J(K12) R12 O12 B12 | K13 O13 B13"
    " | J(R2) R3 R4 R5 | R7 R8 R9 R10 R11 R12 | O1 O2 O3 | O3 O4 O5 O6 | O11 O12 O13 | B6 B7 J(B8) B9 B10"
)


def milp_score(name, rack, table, *, initial, objective):
    profile = load_profile(name)
    best = solve_milp(
        parse_tiles(rack, profile.tileset), parse_table(table, profile), profile,
        initial=initial, objective=objective, rearrange=True,
    )  # fmt: skip
    return score(profile, best.played, objective)


def test_a_choice_freeing_every_joker_rules_the_whole_rack_out_for_every_choice(monkeypatch):
    """Only the choice that frees both jokers is searched at the whole rack's floor: it finds no
    play there, so neither do the eight others (each keeps a joker where a freed one could
    stand, and pins its set). The answer is the integer program's."""
    profile = load_profile("guide-strict-joker")
    whole = []
    bound = jokers_module._choice_bound

    def counted(rack, full_rack, table, profile, objective, meter, choice, prune, floor, below, *rest):
        if below is None and floor == jokers_module._whole_rack(rack, profile, objective):
            whole.append(choice[:2])
        return bound(rack, full_rack, table, profile, objective, meter, choice, prune, floor, below, *rest)

    monkeypatch.setattr(jokers_module, "_choice_bound", counted)
    ours = solve(GUIDE_RACK, GUIDE_TABLE, profile, budget=None, options=BOTTOM_UP)
    assert whole == [((), (10, 37))]  # the two freeing tiles, no joker kept
    assert ours.proven and ours.method == "dp"
    assert score(profile, ours.played, "tiles") == milp_score(
        "guide-strict-joker", GUIDE_RACK, GUIDE_TABLE, initial=False, objective="tiles"
    )


def test_many_host_sets_of_two_freed_jokers_go_to_the_tracked_pass_first():
    """The same answer with the listing first (as before 0.3.17) and with the tracked pass
    first, the integer program's; the tracked pass first in a third of the states."""
    profile = load_profile("ramino-discard")
    opts = dict(budget=None, initial=True, objective="value")
    ours = solve(RAMINO_RACK, RAMINO_TABLE, profile, **opts)
    listed = solve(
        RAMINO_RACK, RAMINO_TABLE, profile, **opts, options=SearchOptions(pair_listing_first=10**6)
    )
    assert ours.proven and listed.proven
    expected = milp_score("ramino-discard", RAMINO_RACK, RAMINO_TABLE, initial=True, objective="value")
    assert score(profile, ours.played, "value") == score(profile, listed.played, "value") == expected
    assert ours.nodes < 0.5 * listed.nodes


def test_the_listing_settles_what_the_tracked_pass_of_two_freed_jokers_gives_up_on():
    """The tracked pass runs past its states; without a listing after it the search is cut, with
    it the search settles, at the integer program's score."""
    profile = load_profile("guide-strict-joker")
    ours = solve(LISTED_RACK, LISTED_TABLE, profile, budget=None, options=BOTTOM_UP)
    unlisted = solve(
        LISTED_RACK,
        LISTED_TABLE,
        profile,
        budget=None,
        options=replace(BOTTOM_UP, pair_host_solves=0, mirror_give_ups=False),
    )
    assert not unlisted.proven and unlisted.give_up is not None
    assert ours.proven and ours.method == "dp"
    expected = milp_score("guide-strict-joker", LISTED_RACK, LISTED_TABLE, initial=False, objective="tiles")
    assert score(profile, ours.played, "tiles") == expected


def test_a_choice_freeing_one_joker_that_plays_the_whole_rest_is_settled_at_once():
    """Under ``new_set`` the first choice freeing one joker whose bound plays the whole rest of the
    opening has its host sets searched at once: its legal play of the whole rest ends the search,
    and the choices after it are not bounded. 3,563 states (140,517 before 0.3.18, which bounded
    all sixteen choices first), at the integer program's score."""
    profile = load_profile("polish-40")
    ours = solve(POLISH_RACK, POLISH_TABLE, profile, budget=None, initial=True)
    assert ours.proven and ours.method == "dp"
    assert len(ours.played) == 26  # the whole rack
    assert score(profile, ours.played, "tiles") == milp_score(
        "polish-40", POLISH_RACK, POLISH_TABLE, initial=True, objective="tiles"
    )
    assert ours.nodes < 10_000
