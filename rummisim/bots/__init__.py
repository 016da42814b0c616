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
import yaml

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
        spec = parse_bot_spec(spec)  # "greedy" or "conservative(min_play=2)": one grammar everywhere
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


def bot_name(spec: str | Mapping[str, Any]) -> str:
    """The registered name in a bot spec (``"greedy"``, ``"conservative(min_play=2)"`` or
    ``{name: ..., params: ...}``)."""
    if isinstance(spec, str):
        spec = parse_bot_spec(spec)
    return spec if isinstance(spec, str) else str(spec["name"])


def bot_label(spec: str | Mapping[str, Any]) -> str:
    """A short label for a bot spec, also accepted by ``parse_bot_spec``: ``conservative(min_play=2)``."""
    if isinstance(spec, str):
        spec = parse_bot_spec(spec)
        if isinstance(spec, str):
            return spec
    params = spec.get("params") or {}
    if not params:
        return str(spec["name"])
    inner = ",".join(f"{key}={_format_value(value)}" for key, value in sorted(params.items()))
    return f"{spec['name']}({inner})"


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def parse_bot_spec(text: str) -> str | dict[str, Any]:
    """Parse ``greedy`` or ``conservative(min_play=2,keep_jokers=false)`` into a bot spec.

    Values are read as YAML scalars (``2`` an int, ``false`` a bool). Raises ``BotError``.
    """
    text = text.strip()
    if "(" not in text:
        if not text or ")" in text:
            raise BotError(f"bad bot spec {text!r}: expected NAME or NAME(key=value,...)")
        return text
    name, _, rest = text.partition("(")
    if not rest.endswith(")") or not name.strip():
        raise BotError(f"bad bot spec {text!r}: expected NAME or NAME(key=value,...)")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest[:-1].split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BotError(f"bad bot spec {text!r}: parameter {item!r} is not key=value")
        params[key.strip()] = yaml.safe_load(value.strip())
    return {"name": name.strip(), "params": params}


def split_bot_specs(text: str) -> list[str]:
    """Split a comma-separated list of bot specs, keeping commas inside parentheses."""
    parts, depth, current = [], 0, []
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


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
    "bot_label",
    "bot_name",
    "make_bot",
    "parse_bot_spec",
    "split_bot_specs",
]
