"""The lookahead bot: typed parameters, determinism, no peeking at hidden tiles, legal
games under every shipped profile, and the search budget."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import table, tiles, with_overrides

from rummisim import builtin_profiles, engine, load_profile
from rummisim.api import play_game
from rummisim.bots import BotError, LookaheadBot, make_bot, validate_spec
from rummisim.bots.lookahead import hidden_tiles
from rummisim.contract import Draw, OutOfBudget, Phase, Play, TurnView
from rummisim.round_state import RoundState
from rummisim.transcript import Transcript

CHEAP = {"name": "lookahead", "params": {"samples": 2, "depth": 2, "search_below": 0}}


def make(spec, profile, seed: int = 0) -> LookaheadBot:
    bot = make_bot(spec, profile, np.random.default_rng(seed))
    assert isinstance(bot, LookaheadBot)
    return bot


# ----- parameters ------------------------------------------------------------------------


def test_parameters_are_typed_with_documented_defaults(standard):
    bot = make("lookahead", standard)
    assert bot.name == "lookahead" and len((LookaheadBot.__doc__ or "").split()) > 30
    p = bot.params
    assert (p.samples, p.depth, p.rollout, p.budget) == (6, 30, "conservative", None)
    assert (p.search_below, p.margin, p.evaluation, p.trickle) == (6, 0.05, "stuck", True)
    assert p.candidates == ("tiles", "value", "no_jokers", "draw")
    spec = "lookahead(samples=3,depth=0,rollout=greedy,candidates=tiles+draw,budget=500)"
    p = make(spec, standard).params
    assert (p.samples, p.depth, p.rollout, p.candidates, p.budget) == (3, 0, "greedy", ("tiles", "draw"), 500)
    listed = {"name": "lookahead", "params": {"candidates": ["value"], "evaluation": "points"}}
    assert make(listed, standard).params.candidates == ("value",)


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("lookahead(samples=0)", "samples"),
        ("lookahead(samples=two)", "samples"),
        ("lookahead(depth=-1)", "depth"),
        ("lookahead(rollout=lookahead)", "rollout"),
        ("lookahead(candidates=tiles+hold)", "candidates"),
        ("lookahead(candidates=)", "candidates"),
        ("lookahead(budget=0)", "budget"),
        ("lookahead(sharpness=0)", "sharpness"),
        ("lookahead(evaluation=score)", "evaluation"),
        ("lookahead(depht=3)", "depht"),
    ],
)
def test_bad_parameters_are_one_line_errors(spec, fragment):
    with pytest.raises(BotError, match=fragment) as info:
        validate_spec(spec)
    assert "\n" not in str(info.value) and "lookahead" in str(info.value)


# ----- determinism and legal games ----------------------------------------------------------


def test_same_seed_same_game():
    profile = load_profile("standard")
    lineup = [CHEAP, "conservative", "greedy", "conservative"]
    streams: list[list] = [[], []]
    first = play_game(profile, lineup, 21, strict=True, events=streams[0].append)
    second = play_game(profile, lineup, 21, strict=True, events=streams[1].append)
    assert first == second and streams[0] == streams[1]


@pytest.mark.parametrize("profile_name", sorted(builtin_profiles()))
def test_plays_legal_games_under_every_profile(profile_name):
    profile = load_profile(profile_name)
    lineup = [CHEAP, "greedy", CHEAP, "conservative"][: profile.players.max]
    record = play_game(profile, lineup, 7, strict=True)  # strict: any fault raises
    assert not record.faults and record.rounds
    assert any(turn is not None for r in record.rounds for turn in r.opened_turn[::2])


# ----- it never reads hidden information -----------------------------------------------------


def _positions(profile, seed: int, count: int):
    """Mid-game states of a seeded game (copies), each with the seat about to move."""
    states = []

    def observe(state, seat):
        states.append(
            (
                [list(r) for r in state.racks],
                list(state.pool),
                state.table,
                list(state.opened),
                list(state.discard),
                (seat + 1) % len(state.racks),
            )
        )

    engine.play_game(
        profile, [validate_spec("conservative")] * 4, seed, events=Transcript(profile, on_position=observe)
    )
    step = max(len(states) // count, 1)
    return states[step::step][:count]


def _view(profile, racks, pool, table_, opened, discard, seat) -> TurnView:
    state = RoundState(profile, pool, racks, discard=discard, table=table_, opened=opened, strict=True)
    state.turn = 9
    return state.view(seat, Phase.START, profile)


def _reshuffled(profile, racks, pool, discard, seat, rng):
    """The same position for ``seat`` with every tile it cannot see dealt again: the other
    racks (same sizes), the pool and the buried discards."""
    buried = discard[:-1]
    hidden = [t for s, r in enumerate(racks) if s != seat for t in r] + list(pool) + buried
    hidden = rng.permutation(np.asarray(hidden)).tolist()
    new_racks, at = [], 0
    for s, r in enumerate(racks):
        if s == seat:
            new_racks.append(list(r))
        else:
            new_racks.append(hidden[at : at + len(r)])
            at += len(r)
    new_pool = hidden[at : at + len(pool)]
    new_discard = hidden[at + len(pool) :] + discard[-1:]
    return new_racks, new_pool, new_discard


@pytest.mark.parametrize("profile_name", ["standard", "ramino-discard"])
def test_never_peeks_at_hidden_tiles(profile_name):
    profile = load_profile(profile_name)
    rng = np.random.default_rng(4)
    spec = {"name": "lookahead", "params": {"samples": 3, "depth": 3}}
    compared = searched = 0
    for racks, pool, table_, opened, discard, seat in _positions(profile, 3, 8):
        view = _view(profile, racks, pool, table_, opened, discard, seat)
        other = _reshuffled(profile, racks, pool, discard, seat, rng)
        assert other[0] != racks or other[1] != pool  # the hidden tiles moved
        other_view = _view(profile, other[0], other[1], table_, opened, other[2], seat)
        assert other_view == view
        first, second = make(spec, profile, seed=5), make(spec, profile, seed=5)
        assert first.act(view) == second.act(other_view)
        assert first.search_units == second.search_units
        compared += 1
        searched += first.decisions
    assert compared >= 6
    # some positions ran rollouts (under 002's must-play most turns have one candidate)
    assert searched >= 1 or profile.turn.must_play_if_able


def test_hidden_tiles_are_the_full_set_less_what_the_seat_sees(standard):
    view = TurnView(
        profile=standard,
        seat=0,
        phase=Phase.START,
        rack=tiles("R1 R1 J", standard),
        table=table("K5 O5 B5", standard),
        opened=True,
        opened_seats=(True, True),
        rack_sizes=(3, 14),
        pool_size=86,
        discard_top=None,
        turn=4,
    )
    hidden = hidden_tiles(view)
    assert len(hidden) == 106 - 6
    assert tiles("R1", standard)[0] not in hidden and hidden.count(standard.tileset.joker) == 1


# ----- choices and budgets --------------------------------------------------------------------


def _start_view(profile, rack: str, table_text: str) -> TurnView:
    return TurnView(
        profile=profile,
        seat=0,
        phase=Phase.START,
        rack=tiles(rack, profile),
        table=table(table_text, profile) if table_text else (),
        opened=True,
        opened_seats=(True,) * 4,
        rack_sizes=(len(rack.split()), 3, 9, 12),
        pool_size=40,
        discard_top=None,
        turn=30,
    )


def test_goes_out_when_it_can(standard):
    view = _start_view(standard, "R1 R2 R3 B9", "K9 O9 R9")
    action = make("lookahead(samples=2,depth=2)", standard).act(view)
    assert isinstance(action, Play) and sorted(action.played) == sorted(view.rack)


def test_candidates_cover_holds_plays_and_the_draw(standard):
    view = _start_view(standard, "R1 R2 R3 J K13 O2", "K9 O9 B9")
    bot = make("lookahead", standard)
    kinds = [c.kind for c in bot.candidates(view)]
    assert kinds[0] == "hold" and "draw" in kinds and len(kinds) >= 3
    only = make("lookahead(candidates=draw)", standard).candidates(view)
    assert [c.kind for c in only] == ["hold", "draw"]


def test_budget_bounds_the_rollouts(standard):
    view = _start_view(standard, "R1 R2 R3 J K13 O2", "K9 O9 B9")
    free = make("lookahead(samples=6,depth=4)", standard)
    free.act(view)
    capped = make("lookahead(samples=6,depth=4,budget=1)", standard)
    capped.act(view)
    assert 0 < capped.rollout_units < free.rollout_units
    assert free.search_units >= free.rollout_units  # rollouts are counted as its search


def test_the_profiles_search_budget_still_applies():
    tight = with_overrides("standard", time_limit={"search_budget": 1})
    view = _start_view(tight, "R1 R2 R3 J K13 O2 B7 B8 B10 K1 K4 O6 O8", "K9 O9 B9 | R5 R6 R7")
    action = make(CHEAP, tight).act(view)
    assert isinstance(action, OutOfBudget)
    after = make(CHEAP, tight).act(dataclasses.replace(view, phase=Phase.AFTER_DRAW))
    assert not isinstance(after, OutOfBudget | Draw)


def test_search_below_waits_for_a_short_rack(standard):
    view = _start_view(standard, "R1 R2 R3 J K13 O2", "K9 O9 B9")  # racks 6, 3, 9, 12
    early = make("lookahead(samples=2,depth=2,search_below=2)", standard)
    conservative = make_bot("conservative", standard, np.random.default_rng(0))
    assert early.act(view) == conservative.act(view) and early.decisions == 0
    late = make("lookahead(samples=2,depth=2,search_below=3)", standard)
    late.act(view)
    assert late.decisions == 1


def test_rollouts_never_call_the_integer_program_but_its_own_moves_stay_exact(standard):
    bot = make("lookahead", standard)
    assert bot.exact  # the moves it plays are proven best (the integer program where needed)
    assert bot.policies and not any(policy.exact for policy in bot.policies)


def test_the_stuck_evaluation_counts_only_the_tiles_that_cannot_be_played(standard):
    on_table = table("R1 R2 R3", standard)
    racks = [tiles("R4 R5", standard), tiles("K1 O9", standard)]  # the first fits the table
    by_size = make({"name": "lookahead", "params": {"evaluation": "tiles"}}, standard)
    assert by_size.evaluate(racks, 0, None, on_table, (True, True)) == pytest.approx(0.5)
    stuck = make("lookahead", standard)  # the default evaluation
    assert stuck.params.evaluation == "stuck"
    score = stuck.evaluate(racks, 0, None, on_table, (True, True))
    assert score == pytest.approx(1 / (1 + np.exp(-0.5 * 2)))  # 0 tiles stuck against 2
    assert stuck.evaluate(racks, 1, None, on_table, (True, True)) == pytest.approx(1 - score)
    # a seat that has not opened cannot lay tiles off: R4 R5 count as stuck
    assert stuck.evaluate(racks, 0, None, on_table, (False, True)) == pytest.approx(0.5)
    assert stuck.evaluate(racks, 0, 0, on_table, (True, True)) == 1.0  # the round is over


def test_it_holds_like_a_trickling_conservative_by_default(standard):
    bot = make("lookahead", standard)
    assert bot.params.trickle and bot.hold_params.trickle
    assert not make("lookahead(trickle=false)", standard).hold_params.trickle
