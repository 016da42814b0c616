"""Bot registry: names -> bot classes, each with typed, validated parameters.

A bot is configured by a name (``"baseline"``) or a mapping
``{name: baseline, params: {...}}``. Every bot gets its own seeded
``numpy.random.Generator`` and must be deterministic given it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rummisim.bots.base import Bot, BotError
from rummisim.bots.baseline import BaselineBot
from rummisim.profile import RuleProfile

BOTS: dict[str, type[Bot]] = {
    BaselineBot.name: BaselineBot,
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


__all__ = ["BOTS", "Bot", "BotError", "BaselineBot", "make_bot"]
