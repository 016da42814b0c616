"""The rule readings of the rules-fidelity audit, each pinned with the seed sentence it encodes:
two jokers in one set, seed 002's turn and match end, joker retrieval in the opening turn,
an empty pool under a discard pile, must-play, and the pool running out."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import ScriptBot, table, tiles, with_overrides

from rummisim import is_valid_meld, load_profile, play_game
from rummisim.bots import make_bot
from rummisim.engine import play_round
from rummisim.moves import Discard, Draw, Play
from rummisim.referee import legal_play
from rummisim.transcript import Transcript

# ----- two jokers in one set --------------------------------------------------------------------


def test_a_set_of_one_tile_and_two_jokers_is_played_and_checked(standard):
    # RULES.md: "Two jokers may sit in one set, even beside a single numbered tile (R7 J J)"
    racks = [tiles("R7 J J K1", standard), tiles("K2 R4 O9", standard)]
    opened = (True, True)
    move = Play(table("R7 J(R8) J(R9)", standard), tiles("R7 J J", standard))
    record, _ = play_round(
        standard,
        [ScriptBot([move]), ScriptBot()],
        racks=racks,
        pool=tiles("B1 B2 B3", standard),
        opened=opened,
        strict=True,
    )
    assert record.faults == ()
    # with jokers.max_per_set: 1 the same move is an invalid set (a recorded fault)
    one = with_overrides("standard", jokers={"max_per_set": 1})
    record, _ = play_round(
        one, [ScriptBot([move]), ScriptBot()], racks=racks, pool=tiles("B1 B2 B3", one), opened=opened
    )
    assert [f.rule for f in record.faults][:1] == ["invalid_set"]


def test_the_engine_sees_two_joker_sets_as_plays(standard):
    # the referee's question ("is there a legal play?") must know the new sets
    assert legal_play(standard, tiles("R7 J J", standard), (), opened=True).tiles_placed == 3
    one = with_overrides("standard", jokers={"max_per_set": 1})
    assert not legal_play(one, tiles("R7 J J", one), (), opened=True).is_play


# ----- seed 002's turn: a discard follows a play ---------------------------------------------------


def _discard_round(discard_rule: str, *, pool: str = "B1 B2 B3"):
    profile = with_overrides("ramino-discard", turn={"discard": discard_rule, "must_play_if_able": False})
    racks = [tiles("K1 R2 O4", profile), tiles("K5 R9 O11", profile)]
    states = []
    record, log = play_round(
        profile,
        [ScriptBot(), ScriptBot()],
        racks=racks,
        pool=tiles(pool, profile) if pool else (),
        discard=tiles("O9", profile),
        strict=True,
        events=Transcript(
            profile,
            on_position=lambda s, seat: states.append((len(s.racks[0]), len(s.racks[1]), len(s.discard))),
        ),
    )
    return record, log, states


def test_after_play_a_turn_that_only_draws_ends_without_a_discard():
    # 002: "A differenza di molti altri giochi di ramino, nel quale un giocatore inizia il suo turno
    # pescando una carta e lo finisce scartandone un'altra, nel Rummikub ... ognuna di queste mosse
    # è condizionata da certi atti": a draw alone is not followed by a discard, so racks grow
    _, log, states = _discard_round("after_play")
    assert states[0] == (4, 3, 1) and states[1] == (4, 4, 1)
    assert log[0].actions == ("draws 1",)


def test_every_turn_is_classic_rummy():
    # the other reading: every turn ends with a discard, so a rack never grows
    _, log, states = _discard_round("every_turn")
    assert states[0] == (3, 3, 2)
    assert log[0].actions[0] == "draws 1" and log[0].actions[1].startswith("discards")


@pytest.mark.parametrize("rule", ["after_play", "every_turn"])
def test_an_empty_pool_under_a_discard_pile_is_a_pass_without_a_discard(rule):
    # RULES.md open questions: "When the pool is empty, a player who cannot play passes"; nobody
    # sheds tiles into the discard pile without playing, so nobody goes out that way
    record, log, states = _discard_round(rule, pool="")
    assert all(a == ("passes (pool empty)",) for a in (entry.actions for entry in log))
    assert states[0] == (3, 3, 1)
    assert record.end_reason == "pool_exhausted" and record.tiles_left == (3, 3)


def test_going_out_is_melding_all_but_one_and_discarding_it():
    # 002: "combina tutte le sue piastrelle nella sua mano e scarica la piastrella finale"
    profile = load_profile("ramino-discard")
    racks = [tiles("K10 K11 K12 R5", profile), tiles("K1 R2 O4", profile)]
    bot = ScriptBot(
        [Play(table("K10 K11 K12", profile), tiles("K10 K11 K12", profile)), Discard(tiles("R5", profile)[0])]
    )
    record, _ = play_round(profile, [bot, ScriptBot()], racks=racks, pool=tiles("B1", profile), strict=True)
    assert record.end_reason == "out" and record.winner == 0 and record.turns == 1


# ----- seed 002's match end -----------------------------------------------------------------------


def test_positive_points_end_the_match_where_the_net_total_would_not():
    # 002: "La partita giunge al termine quando un giocatore accumula 200 punti positivi o più".
    # Find seeded matches where the two readings part: the positive count ends no later.
    positive = load_profile("ramino-discard")
    net = with_overrides("ramino-discard", match={"target_counts": "net"})
    parted = 0
    for seed in range(12):
        a = play_game(positive, ["baseline"] * 3, seed, strict=True)
        b = play_game(net, ["baseline"] * 3, seed, strict=True)
        assert a.n_rounds <= b.n_rounds  # positive points never lag the net total
        assert a.rounds == b.rounds[: a.n_rounds]  # the same rounds, until one reading stops
        parted += a.n_rounds < b.n_rounds
    assert parted > 0


# ----- must play if able ---------------------------------------------------------------------------


def test_must_play_a_draw_with_a_legal_play_is_a_fault_and_the_engine_plays():
    # 002: "Nel caso in cui il giocatore non è in grado di combinare ... deve pescare": only a
    # player who cannot play draws; one who draws anyway is recorded and the best play is made
    profile = with_overrides("standard", turn={"must_play_if_able": True})
    racks = [tiles("K10 K11 K12 R5", profile), tiles("K1 R2 O4", profile)]
    record, log = play_round(
        profile, [ScriptBot([Draw()]), ScriptBot()], racks=racks, pool=tiles("B1 B2 B3", profile)
    )
    assert [(f.seat, f.rule) for f in record.faults] == [(0, "must_play")]
    assert log[0].actions == ("must play", "plays")
    assert sorted(log[0].played) == sorted(tiles("K10 K11 K12", profile))
    assert record.opened_turn[0] == 1


def test_must_play_a_player_without_a_play_draws_freely():
    profile = with_overrides("standard", turn={"must_play_if_able": True})
    racks = [tiles("K1 R5 O9", profile), tiles("K2 R4 O8", profile)]
    record, log = play_round(
        profile, [ScriptBot(), ScriptBot()], racks=racks, pool=tiles("B1 B2", profile), strict=True
    )
    assert record.faults == ()
    assert log[0].actions == ("draws 1",)


def test_drawing_instead_of_playing_is_allowed_by_default(standard):
    # 000/004: "jeśli nie może lub nie chce położyć żadnej karty, musi dobrać" (cannot or will not)
    racks = [tiles("K10 K11 K12 R5", standard), tiles("K1 R2 O4", standard)]
    record, _ = play_round(
        standard, [ScriptBot(), ScriptBot()], racks=racks, pool=tiles("B1 B2", standard), strict=True
    )
    assert record.faults == ()


@pytest.mark.parametrize(
    "bot",
    [
        "conservative",
        {"name": "conservative", "params": {"min_play": 4}},
        {"name": "conservative", "params": {"open_margin": 20}},
        "beginner",
        "baseline",
        "random",
        "greedy",
        "value",
    ],
)
def test_every_bot_obeys_must_play(bot):
    # a bot never faults under must_play_if_able: conservative's holds give way to the rule
    profile = with_overrides("standard", turn={"must_play_if_able": True})
    for seed in range(3):
        record = play_game(profile, [bot, "greedy"], seed)
        assert record.faults == (), record.faults[:1]


def test_conservative_keeps_its_jokers_when_forced_to_play():
    profile = with_overrides("standard", turn={"must_play_if_able": True})
    racks = [tiles("K10 K11 K12 J R5 B1", profile), tiles("K1 R2 O4", profile)]
    table_now = table("R6 R7 R8", profile)
    bot = make_bot({"name": "conservative", "params": {"min_play": 5}}, profile, np.random.default_rng(0))
    record, log = play_round(
        profile,
        [bot, ScriptBot()],
        racks=racks,
        pool=tiles("B1 B2", profile),
        table=table_now,
        opened=(True, True),
        strict=True,
    )
    played = Counter(log[0].played)
    assert played and profile.tileset.joker not in played  # it played, but held the joker back


# ----- the pool runs out ---------------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "ends_at"), [("end_round", 2), ("play_on", 4)])
def test_when_the_pool_is_empty(rule, ends_at):
    # 004: "gdy wszystkie kamienie w woreczku zostaną wykorzystane zanim któryś z graczy przejdzie do
    # Rummikub, gracz z najniższą liczbą na swoim stojaku wygrywa daną rundę" (end_round); 000: "If the
    # pool runs out of tiles, play continues until there is a winner or no player can make a valid
    # play" (play_on)
    profile = with_overrides("standard", end={"when_pool_empty": rule, "pool_empty_winner": "lowest_total"})
    racks = [tiles("K13 R13", profile), tiles("K1 R2 O4", profile)]
    record, _ = play_round(
        profile, [ScriptBot(), ScriptBot()], racks=racks, pool=tiles("B7 B9", profile), strict=True
    )
    assert record.end_reason == "pool_exhausted"
    assert record.turns == ends_at
    assert record.winner == 1  # the lowest rack total


@pytest.mark.parametrize(
    ("rule", "reason", "turns"), [("play_on", "pool_exhausted", 4), ("until_no_play", "turn_cap", 12)]
)
def test_until_no_play_goes_on_while_a_seat_could_play(rule, reason, turns):
    """000: "If the pool runs out of tiles, play continues until there is a winner or no player
    can make a valid play". Seat 1 could lay R1 R2 R3 but only ever draws: under ``play_on`` the
    round ends once both seats passed in a row; under ``until_no_play`` it goes on (the exact
    search says seat 1 can play), until the turn cap, recorded as such."""
    profile = with_overrides("classic-wrap", end={"when_pool_empty": rule, "max_turns": 12})
    racks = [tiles("K13 R11", profile), tiles("R1 R2 R3 O9", profile)]
    record, _ = play_round(
        profile, [ScriptBot(), ScriptBot()], racks=racks, pool=tiles("B7 B9", profile),
        opened=(True, True), strict=True,
    )  # fmt: skip
    assert record.end_reason == reason
    assert record.turns == turns


def test_until_no_play_ends_when_no_seat_can_play():
    """000's "no player can make a valid play": once every seat passed in a row and the exact
    search finds no play for any of them, the round ends as under ``play_on``."""
    profile = load_profile("classic-wrap")
    assert profile.end.when_pool_empty == "until_no_play"
    racks = [tiles("K13 R11", profile), tiles("K1 R2 O4", profile)]
    record, _ = play_round(
        profile, [ScriptBot(), ScriptBot()], racks=racks, pool=tiles("B7 B9", profile), strict=True
    )
    assert record.end_reason == "pool_exhausted" and record.turns == 4


# ----- invariants of seeded games under every profile and the new keys ----------------------------

VARIANTS = [
    ("standard", {}),
    ("classic-wrap", {}),
    ("guide-strict-joker", {}),
    ("polish-40", {}),
    ("ramino-discard", {}),
    ("standard", {"turn": {"must_play_if_able": True}}),
    ("standard", {"jokers": {"max_per_set": 1}}),
    ("polish-40", {"jokers": {"max_per_set": 1}, "turn": {"must_play_if_able": True}}),
    (
        "ramino-discard",
        {"turn": {"discard": "every_turn", "must_play_if_able": False}, "match": {"target_counts": "net"}},
    ),
    ("standard", {"end": {"when_pool_empty": "end_round"}}),
    ("standard", {"end": {"when_pool_empty": "until_no_play", "max_turns": 300}}),
    ("standard", {"jokers": {"reuse": "new_set"}, "initial_meld": {"sets": "one_qualifying"}}),
]
LINEUP = ["greedy", "conservative", "baseline", "random", "value", "beginner"]


@pytest.mark.slow
@pytest.mark.parametrize(("base", "overrides"), VARIANTS)
def test_seeded_games_keep_the_invariants(base, overrides):
    profile = with_overrides(base, **overrides) if overrides else load_profile(base)
    full = Counter(profile.tileset.all_tiles())
    for seed in range(3):
        players = 2 + seed % 3
        bots = [LINEUP[(seed + k) % len(LINEUP)] for k in range(players)]

        def observe(state, seat):
            assert Counter(state.all_tiles()) == full
            assert all(is_valid_meld(m, profile) for m in state.table)

        record = play_game(profile, bots, seed, events=Transcript(profile, on_position=observe))
        assert record.faults == (), record.faults[:1]
        for rnd in record.rounds:
            assert sum(rnd.scores) == 0  # the winner receives what the losers lose
        assert record.scores == tuple(sum(r.scores[s] for r in record.rounds) for s in range(players))
