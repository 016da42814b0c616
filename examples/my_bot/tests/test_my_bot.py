"""The example bot: its rule, every built-in profile without a fault, its spec forms and its
entry point. Runs from rummisim's root (``pytest``: ``examples/my_bot`` is on its pythonpath) or
from ``examples/my_bot`` (installed or not)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from my_bot import MinTilesBot

import rummisim
from rummisim import Draw, Pass, Phase, Play, TurnView
from rummisim.bots import BotError, resolve_bot, validate_spec
from rummisim.bots.loading import entry_point_names

SPEC = "my_bot.bot:MinTilesBot"


def view(text: str, phase: Phase = Phase.START, profile: str = "standard") -> TurnView:
    """An opened seat with ``text`` on its rack, an empty table, 3 seats and a full pool."""
    rules = rummisim.load_profile(profile)
    return TurnView(
        profile=rules,
        seat=0,
        phase=phase,
        rack=rummisim.parse_tiles(text, rules),
        table=(),
        opened=True,
        opened_seats=(True, False, False),
        rack_sizes=(4, 14, 14),
        pool_size=60,
        discard_top=None,
        turn=5,
    )


def bot(min_tiles: int, profile: str = "standard") -> MinTilesBot:
    built = validate_spec(f"{SPEC}(min_tiles={min_tiles})")(
        rummisim.load_profile(profile), np.random.default_rng(0)
    )
    assert isinstance(built, MinTilesBot)
    return built


def test_it_plays_only_when_the_play_places_enough_tiles():
    rack = "R1 R2 R3 K9 B11"  # the best play is the run of 3
    assert isinstance(bot(3).act(view(rack)), Play)
    assert bot(4).act(view(rack)) == Draw()
    assert bot(4).act(view(rack, Phase.AFTER_DRAW)) == Pass()
    assert isinstance(bot(5).act(view("R1 R2 R3")), Play)  # going out always plays


def test_it_plays_when_the_rules_force_a_play():
    # ramino-discard: a player who can play must; one tile stays back for the discard
    assert isinstance(bot(9, "ramino-discard").act(view("R1 R2 R3 K9", profile="ramino-discard")), Play)


@pytest.mark.parametrize("profile", sorted(rummisim.builtin_profiles()))
def test_it_plays_every_built_in_profile_without_a_fault(profile):
    rules = rummisim.load_profile(profile)
    seats = max(rules.players.min, min(3, rules.players.max))
    # strict: a fault (an exception, a wrong action, an illegal move) fails the test
    record = rummisim.play_game(rules, [f"{SPEC}(min_tiles=2)", *["greedy"] * (seats - 1)], 1, strict=True)
    assert record.faults == ()
    assert record.bots[0] == f"{SPEC}(min_tiles=2)"


def test_its_parameters_are_checked():
    with pytest.raises(BotError, match="unknown parameter 'min_tile'; valid parameters: min_tiles"):
        validate_spec(f"{SPEC}(min_tile=2)")
    with pytest.raises(BotError, match="parameter 'min_tiles'"):
        validate_spec({"name": SPEC, "params": {"min_tiles": 0}})


def test_the_entry_point_names_this_class():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    value = pyproject["project"]["entry-points"]["rummisim.bots"]["my_bot"]
    assert resolve_bot(value) is MinTilesBot
    if "my_bot" in entry_point_names():  # pip-installed: the bot's name works too
        assert resolve_bot("my_bot") is MinTilesBot
