"""The bot family: registry and typed parameters, legal play under every profile,
determinism, conservative's parameters in scripted positions, the discard pile,
the search budget, and a tournament (slow) showing greedy well ahead."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
import yaml
from helpers import ScriptBot, table, tiles, turn_view
from joblib import Parallel, delayed

import rummisim.bots.search as search_module
from rummisim import builtin_profiles, engine, load_profile
from rummisim.api import play_game, play_round  # bot specs by name: the public calls
from rummisim.bots import BOTS, Bot, BotError, build_lineup, make_bot, register, registry, validate_spec
from rummisim.bots.candidates import discard_order
from rummisim.contract import Discard, Draw, OutOfBudget, Pass, Phase, Play
from rummisim.rules import validate_move
from rummisim.solver import Solution
from rummisim.stats import wilson_interval

FAMILY = ("random", "beginner", "greedy", "value", "conservative")
HOLDING = {"name": "conservative", "params": {"min_play": 2, "dump_at": 5, "open_margin": 5}}


def make(spec, profile):
    return make_bot(spec, profile, np.random.default_rng(0))


# ----- registry and parameters ------------------------------------------------------------


def test_registry_holds_the_family_with_documented_behaviour(standard):
    assert set(FAMILY) <= set(BOTS)
    for name in FAMILY:
        bot = make(name, standard)
        assert bot.name == name
        assert len((type(bot).__doc__ or "").split()) > 30, f"{name} documents its behaviour"


def test_yaml_spec_configures_conservative(standard):
    spec = yaml.safe_load(
        "name: conservative\nparams: {keep_jokers: false, min_play: 3, dump_at: 4, open_margin: 6}"
    )
    bot = make(spec, standard)
    assert bot.name == "conservative"
    assert (bot.params.keep_jokers, bot.params.min_play) == (False, 3)
    assert (bot.params.dump_at, bot.params.open_margin) == (4, 6)
    assert bot.opening_profile.initial_meld.threshold == 36
    defaults = make({"name": "conservative"}, standard).params
    assert (defaults.keep_jokers, defaults.min_play, defaults.dump_at, defaults.open_margin) == (
        True,
        1,
        0,
        0,
    )


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        (
            {"name": "conservative", "params": {"min_plays": 2}},
            [
                "'conservative'",
                "unknown parameter 'min_plays'",
                "keep_jokers, min_play, dump_at, open_margin",
            ],
        ),
        (
            {"name": "conservative", "params": {"min_play": 0}},
            ["'conservative'", "'min_play'", "got 0", "greater than or equal to 1"],
        ),
        (
            {"name": "conservative", "params": {"dump_at": -1}},
            ["'conservative'", "'dump_at'", "got -1", "greater than or equal to 0"],
        ),
        (
            {"name": "conservative", "params": {"open_margin": -5}},
            ["'conservative'", "'open_margin'", "greater than or equal to 0"],
        ),
        (
            {"name": "conservative", "params": {"keep_jokers": "yes"}},
            ["'conservative'", "'keep_jokers'", "'yes'", "boolean"],
        ),
        (
            {"name": "conservative", "params": {"min_play": 2.5}},
            ["'conservative'", "'min_play'", "integer"],
        ),
        ({"name": "greedy", "params": {"depth": 2}}, ["'greedy'", "unknown parameter 'depth'", "(none)"]),
        ({"name": "gredy"}, ["unknown bot 'gredy'", "greedy", "conservative"]),
    ],
)
def test_bad_parameters_are_clear_errors(standard, spec, fragments):
    with pytest.raises(BotError) as info:
        make(spec, standard)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_validate_spec_reads_every_form_with_one_grammar():
    text = validate_spec("conservative(min_play=2,keep_jokers=false)")
    mapping = validate_spec({"name": "conservative", "params": {"min_play": 2, "keep_jokers": False}})
    assert text == mapping and text.label == "conservative(keep_jokers=false,min_play=2)"
    assert validate_spec("greedy").as_data() == "greedy"
    assert mapping.as_data() == {"name": "conservative", "params": {"min_play": 2, "keep_jokers": False}}
    for bad in ("greedy(", "gredy", {"name": "greedy", "params": {"depth": 2}}, {"bot": "greedy"}, 3):
        with pytest.raises(BotError):
            validate_spec(bad)


def test_a_list_parameter_in_the_text_grammar_and_a_bad_value_in_one_line():
    """``lookahead(candidates=[tiles, value])``: the commas inside brackets belong to the value,
    in one spec and in a list of specs; a value YAML cannot read is a ``BotError`` naming it."""
    spec = validate_spec("lookahead(candidates=[tiles, value],samples=2)")
    assert spec.as_data() == {"name": "lookahead", "params": {"candidates": ["tiles", "value"], "samples": 2}}
    specs = registry.split_bot_specs("lookahead(candidates=[tiles, value]),greedy")
    assert specs == ["lookahead(candidates=[tiles, value])", "greedy"]
    with pytest.raises(BotError, match=r"parameter min_play: '\[1' is not a YAML value") as caught:
        validate_spec("conservative(min_play=[1)")
    assert "\n" not in str(caught.value)


def test_register_adds_a_bot_by_name(standard, monkeypatch):
    monkeypatch.setattr(registry, "BOTS", dict(BOTS))

    class Drawer(Bot):
        """Always draws (and discards its highest tile)."""

        name = "drawer"

        def act(self, view):
            return Discard(view.rack[-1]) if view.phase == Phase.DISCARD else Draw()

    assert register(Drawer) is Drawer
    with pytest.raises(ValueError, match="already registered"):
        register(type("Other", (Bot,), {"name": "drawer"}))
    bots = build_lineup(["drawer", "greedy"], standard, [np.random.default_rng(s) for s in range(2)])
    assert [type(b) for b in bots] == [Drawer, BOTS["greedy"]]
    record = play_game(standard, ["drawer", "greedy"], 4)
    assert record.bots == ("drawer", "greedy") and record.winner == 1


def test_the_engine_takes_built_bots_or_factories_not_names(standard):
    named, built = [], []
    by_name = play_game(standard, ["greedy", "conservative(min_play=2)"], 11, events=named.append)
    factories = [validate_spec("greedy"), validate_spec("conservative(min_play=2)")]
    assert engine.play_game(standard, factories, 11, events=built.append) == by_name  # it seeds each bot
    assert built == named
    with pytest.raises(TypeError, match="neither a bot"):
        engine.play_game(standard, ["greedy", "greedy"], 11)


# ----- legal play under every profile --------------------------------------------------------

LINEUPS = (["random", "beginner", "greedy"], ["value", HOLDING, "conservative"], ["beginner", "random"])


@pytest.mark.parametrize("profile_name", sorted(builtin_profiles()))
@pytest.mark.parametrize("lineup", range(len(LINEUPS)))
def test_every_bot_plays_legal_games(profile_name, lineup):
    profile = load_profile(profile_name)
    bots = LINEUPS[lineup]
    record = play_game(profile, bots, 100 + lineup, strict=True)  # strict: any fault raises
    assert not record.faults
    assert record.rounds and all(r.turns > 0 for r in record.rounds)
    assert any(turn is not None for r in record.rounds for turn in r.opened_turn)


@pytest.fixture
def global_rngs():
    """Python's and numpy's global generators, restored after a test that seeds them (no state
    leaks into the tests that run after it in the same worker)."""
    saved = random.getstate(), np.random.get_state()
    yield
    random.setstate(saved[0])
    np.random.set_state(saved[1])


def test_same_seed_same_record(global_rngs):
    profile = load_profile("ramino-discard")  # discard pile, play after drawing: every phase
    lineup = ["random", HOLDING]
    random.seed(1)
    np.random.seed(1)
    streams: list[list] = [[], [], [], []]
    first = play_game(profile, lineup, 5, strict=True, events=streams[0].append)
    random.seed(2)  # the global generators must not matter
    np.random.seed(2)
    second = play_game(profile, lineup, 5, strict=True, events=streams[1].append)
    assert first == second and streams[0] == streams[1]
    standard = load_profile("standard")
    runs = [
        play_game(standard, ["random", "greedy", "beginner"], 9, events=streams[2 + k].append)
        for k in range(2)
    ]
    assert runs[0] == runs[1] and streams[2] == streams[3]


def test_random_bot_picks_uniformly_among_legal_simple_moves(standard):
    view = _view(standard, "K1 K2 K3 R5 R6 R7 O9 B9 K9 J", "R1 R2 R3 | K10 K11 K12", opened=True)

    def choices(seed):
        bot = make_bot("random", standard, np.random.default_rng(seed))
        return [bot.act(view) for _ in range(200)]

    actions = choices(3)
    assert actions == choices(3) and actions != choices(4)
    plays = {a for a in actions if isinstance(a, Play)}
    assert len(plays) >= 10 and Draw() in actions
    for play in plays:
        validate_move(standard, view.table, view.rack, play.table, play.played, opened=True)
    assert {len(p.played) for p in plays} >= {1, 3}  # single-tile additions and new sets
    nothing = _view(standard, "K1 R5 O9 B13", "R1 R2 R3", opened=True)
    assert make("random", standard).act(nothing) == Draw()


# ----- conservative's parameters in scripted positions ---------------------------------------

OPPONENT = "B7 B9 B11"


def first_turn(profile, params, rack, *, opened=True, pool="K13 O11", opponent=OPPONENT, table_text=""):
    """Seat 0 (conservative with ``params``) moves first against a bot that only draws."""
    bot = {"name": "conservative", "params": params}
    record, log = play_round(
        profile,
        [bot, ScriptBot()],
        racks=[tiles(rack, profile), tiles(opponent, profile)],
        pool=tiles(pool, profile) if pool else (),
        opened=[opened, True],
        table=table(table_text, profile) if table_text else (),
        strict=True,
    )
    return record, log[0]


def played(turn, profile) -> str:
    ts = profile.tileset
    return " ".join(ts.format_tile(t) for t in sorted(turn.played))


def test_min_play_holds_small_plays_back(standard):
    rack = "R1 R2 R3 K9"
    _, turn = first_turn(standard, {"min_play": 3}, rack)
    assert turn.actions == ("plays",) and played(turn, standard) == played_of("R1 R2 R3", standard)
    _, turn = first_turn(standard, {"min_play": 4}, rack)
    assert turn.actions == ("draws 1",) and turn.played == ()
    # going out is always allowed, and an empty pool ends every hold
    record, turn = first_turn(standard, {"min_play": 4}, "R1 R2 R3")
    assert turn.actions == ("plays",) and record.winner == 0 and record.turns == 1
    _, turn = first_turn(standard, {"min_play": 4}, rack, pool="")
    assert turn.actions == ("plays",) and len(turn.played) == 3


def test_keep_jokers_unless_going_out(standard):
    rack = "R1 R2 R3 K9 K10 J B5"
    _, turn = first_turn(standard, {"keep_jokers": False}, rack)
    assert len(turn.played) == 6
    _, turn = first_turn(standard, {}, rack)  # the default keeps jokers
    assert played(turn, standard) == played_of("R1 R2 R3", standard)
    record, turn = first_turn(standard, {}, "R1 R2 R3 K9 K10 J")
    assert len(turn.played) == 6 and record.winner == 0 and record.turns == 1


def test_dump_at_switches_to_shedding_points(standard):
    # most tiles: K1 K2 J K4 K5 (5 tiles, 42 points); most points: R13 O13 J (3 tiles, 56)
    rack = "K1 K2 K4 K5 R13 O13 J"
    most_tiles, most_points = played_of("K1 K2 K4 K5 J", standard), played_of("R13 O13 J", standard)
    for params, expected in (
        ({"keep_jokers": False}, most_tiles),
        ({"keep_jokers": False, "dump_at": 2}, most_tiles),  # the opponent holds 3 tiles
        ({"keep_jokers": False, "dump_at": 3}, most_points),
        ({"dump_at": 5}, most_points),  # dumping also releases the joker
    ):
        _, turn = first_turn(standard, params, rack)
        assert played(turn, standard) == expected, params
    _, turn = first_turn(standard, {"dump_at": 3}, rack, opponent="B7 B9 B11 B13")
    assert turn.actions == ("draws 1",)  # keeps the joker, and K1 K2 K4 K5 make no set


def test_open_margin_raises_the_opening_bar(standard):
    rack = "R10 R11 R12 K1 O5 B7"  # the best opening is worth 33
    for margin, opens in ((0, True), (3, True), (4, False)):
        record, turn = first_turn(standard, {"open_margin": margin}, rack, opened=False)
        assert (turn.actions == ("plays",)) is opens, margin
        assert (record.opened_turn[0] == 1) is opens
    _, turn = first_turn(standard, {"open_margin": 500}, rack, opened=False)  # unreachable bar
    assert turn.actions == ("draws 1",)


def test_conservative_defaults_differ_from_greedy_only_by_the_joker(standard):
    rack = "R1 R2 R3 K9 K10 J B5"
    view = _view(standard, rack, "", opened=True)
    greedy, conservative = make("greedy", standard), make("conservative", standard)
    assert len(greedy.act(view).played) == 6
    assert len(conservative.act(view).played) == 3
    plain = _view(standard, "R1 R2 R3 K9 K10 K11 B5", "O4 O5 O6", opened=True)
    assert greedy.act(plain) == conservative.act(plain)


def test_trickle_lays_one_tile_and_keeps_the_rest(standard):
    # the best play is R1 R2 R3 + K9 on the table's K10 K11 K12 (4 tiles); trickling lays the
    # lowest tile that fits alone (K9) and keeps the run R1 R2 R3 on the rack
    rack, on_table = "R1 R2 R3 K9 B5", "K10 K11 K12"
    _, turn = first_turn(standard, {}, rack, table_text=on_table)
    assert played(turn, standard) == played_of("R1 R2 R3 K9", standard)
    _, turn = first_turn(standard, {"trickle": True}, rack, table_text=on_table)
    assert played(turn, standard) == played_of("K9", standard)
    # no single tile fits alone: the whole play
    _, turn = first_turn(standard, {"trickle": True}, "R1 R2 R3 K5 B5", table_text=on_table)
    assert played(turn, standard) == played_of("R1 R2 R3", standard)
    # going out, the opening and an empty pool are never held back
    record, turn = first_turn(standard, {"trickle": True}, "R1 R2 R3 K9", table_text=on_table)
    assert len(turn.played) == 4 and record.winner == 0
    _, turn = first_turn(standard, {"trickle": True}, "R10 R11 R12 K9 K10 K11 B5", opened=False)
    assert len(turn.played) == 6
    _, turn = first_turn(standard, {"trickle": True}, rack, table_text=on_table, pool="")
    assert len(turn.played) == 4


def played_of(text: str, profile) -> str:
    return " ".join(profile.tileset.format_tile(t) for t in sorted(tiles(text, profile)))


# ----- every phase, the discard pile and the search budget ----------------------------------


def _view(profile, rack, table_text, *, opened, phase=Phase.START, discard_top=None, sizes=(14, 14)):
    return turn_view(
        profile, rack, table_text, opened=opened, phase=phase, discard_top=discard_top, sizes=sizes
    )


@pytest.mark.parametrize("name", FAMILY)
def test_every_phase_gets_its_kind_of_action(name):
    profile = load_profile("ramino-discard")
    bot = make(name, profile)
    start = _view(profile, "K1 R5 O9 B13", "R1 R2 R3", opened=True, discard_top="K7")
    assert isinstance(bot.act(start), Play | Draw)
    after = dataclasses.replace(start, phase=Phase.AFTER_DRAW)
    assert isinstance(bot.act(after), Play | Pass)
    action = bot.act(dataclasses.replace(start, phase=Phase.DISCARD))
    assert isinstance(action, Discard) and action.tile in start.rack


@pytest.mark.parametrize("name", ["beginner", "greedy", "value", "conservative"])
def test_discard_pile_keeps_a_tile_back_and_goes_out(name):
    profile = load_profile("ramino-discard")
    record, log = play_round(
        profile,
        [name, ScriptBot()],
        racks=[tiles("R1 R2 R3 R4", profile), tiles(OPPONENT, profile)],
        pool=tiles("K13 O11", profile),
        discard=tiles("B2", profile),
        opened=[True, True],
        strict=True,
    )
    assert record.winner == 0 and record.turns == 1 and record.end_reason == "out"
    assert len(log[0].played) == 3 and log[0].actions[-1].startswith("discards")


def test_a_play_that_would_empty_the_rack_keeps_one_back(monkeypatch):
    profile = load_profile("ramino-discard")
    tried = []

    def places_everything(rack, table_, profile_, **kwargs):  # a solver blind to the discard rule
        tried.append(tuple(sorted(rack)))
        return Solution(tuple(sorted(rack)), table_, len(rack), 0, proven=True)

    monkeypatch.setattr(search_module, "solve", places_everything)
    bot = make("greedy", profile)
    view = _view(profile, "R1 R2 R3 K9", "", opened=True)
    k9 = tiles("K9", profile)[0]
    assert discard_order(view.rack, profile)[0] == k9  # the one tile that fits no set
    action = bot.act(view)
    assert action.played == tiles("R1 R2 R3", profile) and tried[-1] == action.played
    assert bot.act(dataclasses.replace(view, phase=Phase.DISCARD, rack=(k9,))) == Discard(k9)


def test_discards_the_least_useful_tile():
    profile = load_profile("ramino-discard")
    view = _view(profile, "R1 R2 R3 K9 O13 B5 B6 J", "", opened=True, phase=Phase.DISCARD)
    assert make("value", profile).act(view) == Discard(tiles("O13", profile)[0])
    assert discard_order(view.rack, profile)[-1] == profile.tileset.joker


@pytest.mark.parametrize("name", ["beginner", "greedy", "value", "conservative"])
def test_takes_the_discard_that_lets_it_play(name):
    profile = load_profile("ramino-discard")
    bot = make(name, profile)
    useful = _view(profile, "R5 R6 K1 O9", "", opened=True, discard_top="R7")
    assert bot.act(useful) == Draw("discard")
    useless = _view(profile, "R5 R6 K1 O9", "", opened=True, discard_top="B12")
    assert bot.act(useless) == Draw()


def test_a_turn_remembers_its_solver_answers(monkeypatch):
    # deciding to take the top discard searches the rack with it; once it is taken, that search
    # is not run again, but it is charged again (results do not depend on the memo), and a new
    # turn forgets it
    profile = load_profile("ramino-discard")
    asked = []
    real = search_module.solve

    def counting(rack, table_, profile_, **kwargs):
        asked.append(tuple(rack))
        return real(rack, table_, profile_, **kwargs)

    monkeypatch.setattr(search_module, "solve", counting)
    bot = make("greedy", profile)
    start = _view(profile, "R5 R6 K1 O9", "", opened=True, discard_top="R7")
    assert bot.act(start) == Draw("discard")
    with_top = tuple(sorted(tiles("R5 R6 R7 K1 O9", profile)))
    assert asked.count(with_top) == 1
    units = bot.search_units
    after = dataclasses.replace(start, phase=Phase.AFTER_DRAW, rack=with_top, discard_top=None)
    action = bot.act(after)
    assert isinstance(action, Play) and action.played == tiles("R5 R6 R7", profile)
    assert asked.count(with_top) == 1
    searched = real(with_top, (), profile, initial=False, objective="tiles", budget=None)
    assert bot.search_units - units == max(searched.nodes, 1)
    bot.act(start)
    assert asked.count(with_top) == 2


def test_greedy_and_value_choose_different_plays(standard):
    view = _view(standard, "K1 K2 K4 K5 R13 O13 J", "", opened=True)
    assert len(make("greedy", standard).act(view).played) == 5
    assert make("value", standard).act(view).played == tuple(sorted(tiles("R13 O13 J", standard)))


def test_beginner_never_rearranges(standard):
    # R4 fits only by splitting R1..R6 into R1 R2 R3 R4 | R4 R5 R6
    view = _view(standard, "R4 K9", "R1 R2 R3 R4 R5 R6", opened=True)
    assert make("beginner", standard).act(view) == Draw()
    action = make("greedy", standard).act(view)
    assert isinstance(action, Play) and action.played == tiles("R4", standard)


def test_not_opened_bots_make_a_legal_initial_meld():
    polish = load_profile("polish-40")  # 40 points, jokers worth 25, may touch the table
    view = _view(polish, "K10 K11 K12 B1 O5", "R1 R2 R3", opened=False)
    for name in ("beginner", "greedy", "value", "conservative"):
        assert make(name, polish).act(view) == Draw(), name
    view = _view(polish, "K10 K11 J B1 O5", "R1 R2 R3", opened=False)
    for name in ("beginner", "greedy", "value"):
        action = make(name, polish).act(view)
        assert isinstance(action, Play) and set(tiles("K10 K11 J", polish)) <= set(action.played), name
    assert make("conservative", polish).act(view) == Draw()  # it keeps its joker back


def test_search_cut_short_reports_out_of_budget(monkeypatch):
    budgeted = load_profile("guide-strict-joker")  # has a search budget
    view = _view(budgeted, "R1 R2 R3 B9", "", opened=True)
    monkeypatch.setattr(search_module, "solve", _fake_solution(budgeted))
    for name in ("beginner", "greedy", "value", "conservative"):
        action = make(name, budgeted).act(view)
        assert isinstance(action, OutOfBudget) and action.best == Play(
            table("R1 R2 R3", budgeted), tiles("R1 R2 R3", budgeted)
        )
        after = make(name, budgeted).act(dataclasses.replace(view, phase=Phase.AFTER_DRAW))
        assert isinstance(after, Play)  # the engine takes OutOfBudget only at the start
    unlimited = load_profile("standard")
    monkeypatch.setattr(search_module, "solve", _fake_solution(unlimited))
    assert isinstance(make("greedy", unlimited).act(dataclasses.replace(view, profile=unlimited)), Play)


def _fake_solution(profile):
    melds = table("R1 R2 R3", profile)

    def fake(rack, table_, profile_, **kwargs):
        played = tiles("R1 R2 R3", profile)
        return Solution(played, melds, 3, 6, proven=False, nodes=10)

    return fake


def test_out_of_budget_in_a_game_applies_the_timeout_rule(monkeypatch):
    budgeted = load_profile("guide-strict-joker")  # on timeout: draw one tile, play nothing
    monkeypatch.setattr(search_module, "solve", _fake_solution(budgeted))
    record, log = play_round(
        budgeted,
        ["greedy", ScriptBot()],
        racks=[tiles("R1 R2 R3 B9", budgeted), tiles(OPPONENT, budgeted)],
        pool=tiles("K13", budgeted),
        opened=[True, True],
    )
    assert record.timeouts >= 1 and log[0].played == ()
    assert log[0].actions[0].startswith("out of search budget")


# ----- tournament --------------------------------------------------------------------------


def _tournament_game(seed: int, rotation: int, names: tuple[str, ...]):
    lineup = names[rotation:] + names[:rotation]
    record = play_game(load_profile("standard"), list(lineup), seed, strict=True)
    scores = {name: record.scores[seat] for seat, name in enumerate(lineup)}
    return lineup[record.winner], scores


@pytest.mark.slow
def test_greedy_beats_random_and_beginner():
    """192 games of greedy, beginner and random on ``standard``: 64 seeded deals, each
    played in the 3 seat rotations so that seat effects cancel."""
    names = ("greedy", "beginner", "random")
    jobs = [(seed, rotation) for seed in range(64) for rotation in range(3)]
    results = Parallel(n_jobs=-1)(delayed(_tournament_game)(s, r, names) for s, r in jobs)
    n = len(results)
    wins = {name: sum(1 for winner, _ in results if winner == name) for name in names}
    low, _ = wilson_interval(wins["greedy"], n)
    for opponent in ("beginner", "random"):
        _, opponent_high = wilson_interval(wins[opponent], n)
        assert low > opponent_high, (wins, low, opponent_high)
        ahead = sum(1 for _, scores in results if scores["greedy"] > scores[opponent])
        assert wilson_interval(ahead, n)[0] > 0.5, (opponent, ahead, n)
