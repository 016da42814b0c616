"""The public game calls: ``play_game`` and ``play_round`` that also take bot specs.

``rummisim.play_game(profile, ["greedy"] * 4, seed)`` is the convenience over
``rummisim.engine.play_game``: each seat that is a bot spec (``"greedy"``,
``"conservative(min_play=2)"``, ``{name: ..., params: ...}``) becomes a
``rummisim.bots.BotSpec``, a factory the engine calls with the generator it spawned
for that seat, so the same seed gives the same game either way. Built bots (an
``act(view)`` method) and factories pass through unchanged. This layer sits above
the engine and the bots, which do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from rummisim import engine
from rummisim.bots.registry import parse_spec
from rummisim.contract import BotFactory, Player
from rummisim.engine import GameRecord, RoundRecord
from rummisim.events import Event
from rummisim.profile import RuleProfile
from rummisim.transcript import TurnLog

SeatEntry = Player | BotFactory | str | Mapping[str, Any]


def lineup(bots: Sequence[SeatEntry]) -> list[Player | BotFactory]:
    """The seats as the engine takes them: bot specs (a name, the ``NAME(key=value)``
    grammar or a mapping) read into ``BotSpec`` factories, whose name and parameters are
    checked when the engine builds the bot (``BotError``); bots and factories unchanged."""
    return [parse_spec(entry) if isinstance(entry, str | Mapping) else entry for entry in bots]


def play_game(
    profile: RuleProfile,
    bots: Sequence[SeatEntry],
    seed: int | np.random.SeedSequence | None,
    *,
    strict: bool = False,
    events: Callable[[Event], None] | None = None,
) -> GameRecord:
    """Play one match; ``bots`` may mix bot specs, built bots and factories. The other
    arguments are ``rummisim.engine.play_game``'s (``events``: the game's one event stream;
    ``rummisim.transcript.Transcript`` follows it turn by turn)."""
    return engine.play_game(profile, lineup(bots), seed, strict=strict, events=events)


def play_round(
    profile: RuleProfile, bots: Sequence[SeatEntry], **position: Any
) -> tuple[RoundRecord, tuple[TurnLog, ...]]:
    """Play one round from a hand-set position (``rummisim.engine.play_round``'s keyword
    arguments), bot specs allowed."""
    return engine.play_round(profile, lineup(bots), **position)
