"""Game flow with scripted deals: scoring, each variant axis, faults and matches."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import ScriptBot, table, tiles, with_overrides

from rummisim import load_profile, play_game
from rummisim.api import play_round  # bot specs by name or built bots
from rummisim.engine import choose_first_player, deal
from rummisim.moves import Discard, Draw, OutOfBudget, Pass, Play
from rummisim.round_state import score_round
from rummisim.schema import EndReason
from rummisim.transcript import Transcript

# ----- scoring examples from the seeds (RULES.md) -------------------------------------------


def racks_worth(profile, *texts):
    return [tiles(t, profile) for t in texts]


def test_scoring_example_seed_000(standard):
    racks = racks_worth(standard, "", "R5", "R10", "K3")
    scores, points = score_round(standard, racks, 0, "out")
    assert scores == (18, -5, -10, -3)
    assert points == (0, 5, 10, 3)


def test_scoring_example_seed_002(standard):
    racks = racks_worth(standard, "", "K12 R13", "O10 B7", "K5 R6 O7")
    assert score_round(standard, racks, 0, "out")[0] == (60, -25, -17, -18)


def test_scoring_example_seed_003(standard):
    # 003: "3, 5, 9 and 13 remaining ... 30"; the others -14 and -22; winner +66
    racks = racks_worth(standard, "K3 R5 O9 B13", "K1 K13", "", "R9 O13")
    assert score_round(standard, racks, 2, "out")[0] == (-30, -14, 66, -22)


def test_joker_penalty_on_a_rack(standard):
    polish = load_profile("polish-40")
    assert score_round(standard, racks_worth(standard, "", "J R2"), 0, "out")[0] == (32, -32)
    assert score_round(polish, racks_worth(polish, "", "J R2"), 0, "out")[0] == (27, -27)


# ----- pool exhaustion: both endings and both scorings ------------------------------------------


@pytest.mark.parametrize(
    ("winner_rule", "scoring", "expected_winner", "expected_scores"),
    [
        ("fewest_tiles", "standard", 0, (7, -7)),
        ("lowest_total", "standard", 1, (-26, 26)),
        ("lowest_total", "subtract_winner", 1, (-19, 19)),
        ("fewest_tiles", "subtract_winner", 0, (0, 0)),  # the loser's 7 is below the winner's 26
    ],
)
def test_pool_exhaustion(winner_rule, scoring, expected_winner, expected_scores):
    profile = with_overrides(
        "standard", end={"pool_empty_winner": winner_rule, "pool_empty_scoring": scoring}
    )
    racks = racks_worth(profile, "K13 R13", "K1 R2 O4")
    record, _ = play_round(profile, [ScriptBot(), ScriptBot()], racks=racks, pool=(), strict=True)
    assert record.end_reason == "pool_exhausted"
    assert record.turns == 2  # both pass once, in a row
    assert record.winner == expected_winner
    assert record.scores == expected_scores
    assert record.tiles_left == (2, 3) and record.rack_points == (26, 7)


def test_passes_only_count_once_the_pool_is_empty(standard):
    racks = racks_worth(standard, "K13 R13", "K1 R2 O4")
    record, _ = play_round(
        standard, [ScriptBot(), ScriptBot()], racks=racks, pool=tiles("B7 B9", standard), strict=True
    )
    # two draws empty the pool, then two passes end the round
    assert record.turns == 4 and record.tiles_left == (3, 4)


def test_a_capped_round_is_recorded(standard):
    capped = with_overrides("standard", end={"max_turns": 3})
    racks = racks_worth(capped, "K13 R13", "K1 R2 O4")
    pool = tiles("B1 B3 B5 B7 B9 B11", capped)
    record, _ = play_round(capped, [ScriptBot(), ScriptBot()], racks=racks, pool=pool, strict=True)
    assert record.end_reason == EndReason.TURN_CAP == "turn_cap" and record.turns == 3


# ----- going out, opening thresholds, wrap, jokers in the opening ------------------------------


def test_going_out_ends_the_round(standard):
    racks = racks_worth(standard, "K10 K11 K12", "K1 R2 O4")
    opening = Play(table("K10 K11 K12", standard), tiles("K10 K11 K12", standard))
    record, log = play_round(standard, [ScriptBot([opening]), ScriptBot()], racks=racks, pool=(), strict=True)
    assert record.end_reason == "out" and record.winner == 0 and record.turns == 1
    assert record.scores == (7, -7)
    assert record.opened_turn == (1, None)
    assert log[0].actions == ("plays",)


@pytest.mark.parametrize(
    ("initial_meld", "rack", "opens"),
    [
        ({"threshold": 30}, "K10 K11 K12 R1", True),  # opening 30 vs 40: 33 points
        ({"threshold": 40}, "K10 K11 K12 R1", False),
        ({"threshold": 40}, "K10 K11 J R1", False),  # joker counted as K12: 33
        ({"threshold": 40, "joker_value": 25}, "K10 K11 J R1", True),  # joker worth 25: 46
    ],
)
def test_opening_threshold_and_joker_valuation_in_play(initial_meld, rack, opens):
    profile = with_overrides("standard", initial_meld=initial_meld)
    racks = racks_worth(profile, rack, "K1 R2 O4")
    record, _ = play_round(
        profile, ["baseline", "baseline"], racks=racks, pool=tiles("B1 B5", profile), strict=True
    )
    assert (record.opened_turn[0] == 1) is opens


def test_wrap_lets_the_baseline_open_with_12_13_1():
    wrap = load_profile("classic-wrap")
    standard = load_profile("standard")
    for profile, size in ((wrap, 4), (standard, 3)):
        racks = racks_worth(profile, "O11 O12 O13 O1 K5", "K1 R2 O4")
        record, log = play_round(profile, ["baseline", "baseline"], racks=racks, pool=(), strict=True)
        assert len(log[0].played) == size
        assert record.tiles_left[0] == 5 - size


# ----- play after drawing ---------------------------------------------------------------------


def test_play_after_draw_only_where_allowed():
    for after, expect_phases in ((False, ["start", "start"]), (True, ["start", "after_draw"])):
        profile = with_overrides("standard", turn={"play_after_draw": after})
        bot = ScriptBot([Draw(), Play(table("K10 K11 K12", profile), tiles("K10 K11 K12", profile))])
        racks = racks_worth(profile, "K10 K11 R1", "K1 R2 O4")
        record, _ = play_round(
            profile, [bot, ScriptBot()], racks=racks, pool=tiles("K12", profile), strict=not after
        )
        assert [v.phase for v in bot.views][:2] == expect_phases
        if after:
            assert record.opened_turn[0] == 1 and record.tiles_left[0] == 1


def test_draw_count():
    profile = with_overrides("standard", turn={"draw_count": 3})
    racks = racks_worth(profile, "K13 R13", "K1 R2 O4")
    record, _ = play_round(
        profile, [ScriptBot(), ScriptBot()], racks=racks, pool=tiles("B1 B3 B5 B7", profile), strict=True
    )
    assert record.tiles_left == (2 + 3, 3 + 1)


# ----- the discard pile (seed 002) --------------------------------------------------------------


def test_take_the_discard_play_and_go_out_by_discarding():
    # drawing although a play exists is only legal without must_play_if_able (see
    # test_rules_fidelity for that rule)
    profile = with_overrides("ramino-discard", turn={"must_play_if_able": False})
    racks = racks_worth(profile, "K10 K11 K12 R5", "K1 R2 O4")
    bot = ScriptBot(
        [
            Draw("discard"),
            Play(table("K10 K11 K12 K13", profile), tiles("K10 K11 K12 K13", profile)),
            Discard(tiles("R5", profile)[0]),
        ]
    )
    record, log = play_round(
        profile,
        [bot, ScriptBot()],
        racks=racks,
        pool=tiles("B1 B2", profile),
        discard=tiles("K13", profile),
        strict=True,
    )
    assert [v.phase for v in bot.views] == ["start", "after_draw", "discard"]
    assert record.end_reason == "out" and record.winner == 0 and record.turns == 1
    assert log[0].actions == ("takes the top discard", "plays after drawing", "discards R5")


def test_every_discard_turn_ends_with_a_discard():
    profile = load_profile("ramino-discard")
    racks = racks_worth(profile, "K10 K11 K12 R5 B9", "K1 R2 O4")
    first = Play(table("K10 K11 K12", profile), tiles("K10 K11 K12", profile))
    bot = ScriptBot([first, Discard(tiles("B9", profile)[0])])
    states = []
    record, _ = play_round(
        profile,
        [bot, ScriptBot()],
        racks=racks,
        pool=tiles("B1 B2 B3", profile),
        discard=tiles("O1", profile),
        strict=True,
        events=Transcript(
            profile, on_position=lambda s, seat: states.append((list(s.racks[0]), list(s.discard)))
        ),
    )
    rack_after, discard_after = states[0]
    assert rack_after == list(tiles("R5", profile))
    assert discard_after == list(tiles("O1 B9", profile))


def test_playing_the_whole_rack_is_a_fault_with_a_discard_pile():
    profile = load_profile("ramino-discard")
    racks = racks_worth(profile, "K10 K11 K12", "K1 R2 O4")
    bot = ScriptBot([Play(table("K10 K11 K12", profile), tiles("K10 K11 K12", profile))])
    record, _ = play_round(
        profile, [bot, ScriptBot()], racks=racks, pool=tiles("B1", profile), discard=tiles("O1", profile)
    )
    assert record.faults[0].rule == "must_keep_discard"
    assert record.faults[0].seat == 0


# ----- joker retrieval in play ----------------------------------------------------------------------


def test_joker_retrieval_and_reuse_in_play(standard):
    start = table("R4 R5 J", standard)
    racks = racks_worth(standard, "R6 K9 O9 B1", "K1 R2 O4")
    good = Play(table("R4 R5 R6 | K9 O9 J(B9)", standard), tiles("R6 K9 O9", standard))
    record, log = play_round(
        standard,
        [ScriptBot([good]), ScriptBot()],
        racks=racks,
        pool=(),
        table=start,
        opened=[True, True],
        strict=True,
    )
    assert log[0].actions == ("plays",) and record.tiles_left[0] == 1
    # a freed joker placed with only one rack tile is a fault, and the game goes on
    racks = racks_worth(standard, "R6 B1", "K1 R2 O4")
    bad = Play(table("R4 R5 R6 | K1 K2 K3 J(K4)", standard), tiles("R6", standard))
    record, _ = play_round(
        standard,
        [ScriptBot([bad]), ScriptBot()],
        racks=racks,
        pool=(),
        table=start + table("K1 K2 K3", standard),
        opened=[True, True],
    )
    assert record.faults[0].rule == "joker_rule"
    assert record.tiles_left[0] == 2


# ----- faults never corrupt a game -----------------------------------------------------------------


class Crasher:
    name = "crasher"

    def act(self, view):
        raise RuntimeError("boom")


def test_a_crashing_bot_is_recorded_and_the_game_goes_on(standard):
    racks = racks_worth(standard, "K13 R13", "K1 R2 O4")
    record, _ = play_round(standard, [Crasher(), ScriptBot()], racks=racks, pool=tiles("B1", standard))
    assert record.faults[0].rule == "bot_error" and "boom" in record.faults[0].message
    assert record.tiles_left[0] == 3  # it drew instead
    with pytest.raises(RuntimeError):
        play_round(standard, [Crasher(), ScriptBot()], racks=racks, pool=(), strict=True)


def test_an_illegal_move_is_a_fault_naming_the_rule(standard):
    racks = racks_worth(standard, "R1 R2 R3", "K1 R2 O4")
    low = Play(table("R1 R2 R3", standard), tiles("R1 R2 R3", standard))
    record, _ = play_round(standard, [ScriptBot([low]), ScriptBot()], racks=racks, pool=tiles("B1", standard))
    assert record.faults[0].rule == "opening_below_threshold"
    assert record.tiles_left[0] == 4


def test_wrong_action_kind_is_a_fault(standard):
    racks = racks_worth(standard, "K13 R13", "K1 R2 O4")
    record, _ = play_round(
        standard, [ScriptBot([Discard(0)]), ScriptBot()], racks=racks, pool=tiles("B1", standard)
    )
    assert record.faults[0].rule == "wrong_action"


# ----- search budget ----------------------------------------------------------------------------------


def test_out_of_budget_penalty_and_best_found():
    penalty = with_overrides("standard", time_limit={"search_budget": 10, "timeout_draw": 2})
    racks = racks_worth(penalty, "K10 K11 K12 R1", "K1 R2 O4")
    pool = tiles("B1 B3 B5", penalty)
    record, _ = play_round(
        penalty, [ScriptBot([OutOfBudget()]), ScriptBot()], racks=racks, pool=pool, strict=True
    )
    assert record.timeouts == 1 and record.tiles_left[0] == 6
    best = with_overrides("polish-40", initial_meld={"threshold": 30})
    play = Play(table("K10 K11 K12", best), tiles("K10 K11 K12", best))
    record, _ = play_round(
        best, [ScriptBot([OutOfBudget(play)]), ScriptBot()], racks=racks, pool=pool, strict=True
    )
    assert record.timeouts == 1 and record.opened_turn[0] == 1


# ----- deal, seating, matches ----------------------------------------------------------------------


def test_deal_sizes_and_conservation(standard):
    state = deal(standard, 4, np.random.default_rng(1))
    assert [len(r) for r in state.racks] == [14] * 4
    assert len(state.pool) == 106 - 56
    assert sorted(state.all_tiles()) == sorted(standard.tileset.all_tiles())
    ramino = load_profile("ramino-discard")
    state = deal(ramino, 3, np.random.default_rng(1))
    assert len(state.discard) == 1 and len(state.pool) == 106 - 42 - 1


def test_first_player_rules(standard):
    seats = {choose_first_player(standard, 4, 0, np.random.default_rng(s)) for s in range(40)}
    assert seats == {0, 1, 2, 3}
    assert choose_first_player(standard, 4, 0, np.random.default_rng(5)) == choose_first_player(
        standard, 4, 0, np.random.default_rng(5)
    )
    polish = load_profile("polish-40")
    record = play_game(polish, ["baseline"] * 3, 11)
    assert [r.first_player for r in record.rounds] == [0, 1, 2, 0]


def test_rounds_match_sums_round_scores():
    record = play_game(load_profile("polish-40"), ["baseline"] * 4, 3)
    assert record.n_rounds == 4
    assert record.scores == tuple(np.sum([r.scores for r in record.rounds], axis=0))
    assert record.scores[record.winner] == max(record.scores)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("counts", ["positive", "net"])
def test_a_200_point_match(seed, counts):
    # 002: "La partita giunge al termine quando un giocatore accumula 200 punti positivi o più":
    # positive points are what a round winner receives; 'net' is the cumulative-total reading
    ramino = with_overrides("ramino-discard", match={"target_counts": counts})
    record = play_game(ramino, ["baseline"] * 3, seed, strict=True)
    scores = np.array([r.scores for r in record.rounds])
    standing = np.cumsum(np.maximum(scores, 0) if counts == "positive" else scores, axis=0)
    assert standing[-1].max() >= 200 or record.match_capped
    assert all(row.max() < 200 for row in standing[:-1])
    assert record.winner == int(np.argmax(standing[-1]))
    assert record.scores == tuple(scores.sum(axis=0))  # the record keeps the net totals


def test_same_deal_across_profiles_sharing_a_tile_set():
    a = deal(load_profile("standard"), 4, np.random.default_rng(9))
    b = deal(load_profile("classic-wrap"), 4, np.random.default_rng(9))
    assert a.racks == b.racks and a.pool == b.pool


def test_player_count_must_fit_the_profile(standard):
    with pytest.raises(ValueError, match="allows 2..4 players"):
        play_game(standard, ["baseline"] * 5, 0)


def test_pass_at_the_start_means_draw(standard):
    racks = racks_worth(standard, "K13 R13", "K1 R2 O4")
    record, _ = play_round(
        standard, [ScriptBot([Pass()]), ScriptBot()], racks=racks, pool=tiles("B1", standard), strict=True
    )
    assert record.tiles_left[0] == 3
