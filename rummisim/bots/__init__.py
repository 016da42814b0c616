"""Bot registry: names -> bot classes, each with typed, validated parameters.

A bot is configured by a name (``"greedy"``) or a mapping
``{name: conservative, params: {...}}``. Every bot gets its own seeded
``numpy.random.Generator`` and must be deterministic given it.

Bots (each documented in its class docstring): ``baseline`` (simple, no
solver), ``random`` (a uniformly chosen simple move), ``beginner`` (solver
without rearrangement), ``greedy`` (most tiles), ``value`` (most points) and
``conservative`` (holds tiles back; parameters ``keep_jokers``, ``min_play``,
``dump_at``, ``open_margin``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rummisim.bots.base import Bot, BotError
from rummisim.bots.baseline import BaselineBot
from rummisim.bots.beginner import BeginnerBot
from rummisim.bots.conservative import ConservativeBot
from rummisim.bots.greedy import GreedyBot
from rummisim.bots.random_bot import RandomBot
from rummisim.bots.value import ValueBot
from rummisim.profile import RuleProfile

BOTS: dict[str, type[Bot]] = {
    cls.name: cls for cls in (BaselineBot, RandomBot, BeginnerBot, GreedyBot, ValueBot, ConservativeBot)
}


def make_bot(spec: str | Mapping[str, Any], profile: RuleProfile, rng: np.random.Generator) -> Bot:
    """Build a bot from a name or ``{name: ..., params: {...}}``; raise ``BotError`` if invalid."""
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, Mapping):
        unknown = set(spec) - {"name", "params"}
        if unknown or "name" not in spec:
            raise BotError(f"a bot spec needs 'name' and optional 'params', got keys {sorted(spec)}")
        name, params = spec["name"], spec.get("params") or {}
    else:
        raise BotError(f"a bot spec is a name or a mapping, got {spec!r}")
    if name not in BOTS:
        raise BotError(f"unknown bot {name!r}; available: {', '.join(sorted(BOTS))}")
    cls = BOTS[name]
    return cls(profile, rng, cls.validate_params(params))


__all__ = [
    "BOTS",
    "BaselineBot",
    "BeginnerBot",
    "Bot",
    "BotError",
    "ConservativeBot",
    "GreedyBot",
    "RandomBot",
    "ValueBot",
    "make_bot",
]
