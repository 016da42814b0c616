"""The bots, registered by name; specs, lineups and the registry are ``rummisim.bots.registry``.

A bot is configured by a name (``"greedy"``), ``NAME(key=value,...)`` or a mapping
``{name: conservative, params: {...}}``. Every bot gets its own seeded
``numpy.random.Generator`` and must be deterministic given it. A bot implements
``act(view) -> action`` over the contract in ``rummisim.contract``; it never
imports the engine.

Bots (each documented in its class docstring): ``baseline`` (simple, no
solver), ``random`` (a uniformly chosen simple move), ``beginner`` (solver
without rearrangement), ``greedy`` (most tiles), ``value`` (most points) and
``conservative`` (holds tiles back; parameters ``keep_jokers``, ``min_play``,
``dump_at``, ``open_margin``) and ``lookahead`` (determinized Monte-Carlo over
candidate moves; ``rummisim.bots.lookahead``). A new bot is a module here with a ``Bot``
subclass, registered below with ``register``.

A bot from outside the package is named in a spec by its class path
(``package.module:ClassName``) or by an entry point in the group ``rummisim.bots``
(``rummisim.bots.loading``); ``docs/bot-contract.md`` is the contract.
"""

from __future__ import annotations

from rummisim.bots.base import Bot, BotError, BotParams
from rummisim.bots.baseline import BaselineBot
from rummisim.bots.beginner import BeginnerBot
from rummisim.bots.conservative import ConservativeBot
from rummisim.bots.greedy import GreedyBot
from rummisim.bots.lookahead import LookaheadBot
from rummisim.bots.random_bot import RandomBot
from rummisim.bots.registry import (
    BOTS,
    BotSpec,
    bot_label,
    bot_name,
    build_lineup,
    make_bot,
    parse_bot_spec,
    parse_spec,
    register,
    resolve_bot,
    split_bot_specs,
    validate_spec,
)
from rummisim.bots.value import ValueBot

for _cls in (BaselineBot, RandomBot, BeginnerBot, GreedyBot, ValueBot, ConservativeBot, LookaheadBot):
    register(_cls)

__all__ = [
    "BOTS",
    "BaselineBot",
    "BeginnerBot",
    "Bot",
    "BotError",
    "BotParams",
    "BotSpec",
    "ConservativeBot",
    "GreedyBot",
    "LookaheadBot",
    "RandomBot",
    "ValueBot",
    "bot_label",
    "bot_name",
    "build_lineup",
    "make_bot",
    "parse_bot_spec",
    "parse_spec",
    "register",
    "resolve_bot",
    "split_bot_specs",
    "validate_spec",
]
