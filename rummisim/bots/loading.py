"""Bots from outside the package: ``package.module:ClassName`` and ``rummisim.bots`` entry points.

A bot spec's name that is not a registered bot (``rummisim.bots.registry.BOTS``) is looked up
here, in this order:

- ``package.module:ClassName`` (a dotted attribute path after the colon is allowed): the module
  is imported from ``sys.path`` (so ``PYTHONPATH`` or an installed package) and the attribute
  taken from it;
- the name of an entry point in the group ``rummisim.bots`` of an installed distribution
  (``[project.entry-points."rummisim.bots"] my_bot = "my_bot.bot:MinTilesBot"``), whose value
  is such a ``module:ClassName``.

Either way the object must be a subclass of ``rummisim.bots.Bot`` that implements ``act``, with
a pydantic ``Params`` model (``check_bot_class``); anything else is one ``BotError`` line naming
the spec and what is allowed. Specs stay data (the name string), so a worker process resolves
the class itself by importing the module: nothing but the name is pickled.

The entry points are read once per process and cached; a name that is not found re-reads them
once before giving up, so a distribution installed (or put on ``sys.path``) later is found.
``clear_cache()`` forgets them. The contract is documented in ``docs/bot-contract.md``.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from importlib import metadata
from typing import Any

from pydantic import BaseModel

from rummisim.bots.base import Bot, BotError
from rummisim.validation import excerpt

ENTRY_POINT_GROUP = "rummisim.bots"

_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
CLASS_PATH = re.compile(rf"({_DOTTED}):({_DOTTED})")

CONTRACT_HINT = "a custom bot is a subclass of rummisim.bots.Bot with act(view) (see docs/bot-contract.md)"


def is_class_path(name: str) -> bool:
    """Does the spec name a class by path (``package.module:ClassName``) rather than by name?"""
    return ":" in name


def load_class_path(name: str) -> type[Bot]:
    """Import ``package.module:ClassName`` and check that it is a bot class; ``BotError`` if not."""
    match = CLASS_PATH.fullmatch(name.strip())
    if match is None:
        raise BotError(f"bad bot spec {excerpt(name)}: expected a bot name or package.module:ClassName")
    module_name, attribute = match.groups()
    try:
        module = importlib.import_module(module_name)
    except SystemExit as exc:  # a module that ends the process as it is imported
        raise BotError(
            f"bot {name!r}: module {module_name!r} called sys.exit({excerpt(exc.code)}) while it was "
            "imported; a bot module may only define its bot"
        ) from None
    except Exception as exc:  # noqa: BLE001 - user code may fail to import in any way
        raise BotError(
            f"bot {name!r}: cannot import module {module_name!r} ({_one_line(exc)}); the module must be "
            "importable (on PYTHONPATH or installed)"
        ) from None
    found: Any = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            bots = _bot_classes(module)
            hint = f"; bot classes there: {', '.join(bots)}" if bots else f"; {CONTRACT_HINT}"
            raise BotError(f"bot {name!r}: module {module_name!r} has no attribute {attribute!r}{hint}")
        found = getattr(found, part)
    return check_bot_class(found, name)


def check_bot_class(obj: Any, name: str) -> type[Bot]:
    """``obj`` if it is a usable bot class (a ``Bot`` subclass that implements ``act``, with a
    pydantic ``Params`` model), else ``BotError`` naming the spec ``name``."""
    if not isinstance(obj, type):
        raise BotError(f"bot {name!r} is a {type(obj).__name__}, not a class; {CONTRACT_HINT}")
    if not issubclass(obj, Bot):
        has_act = " has act(view) but" if callable(getattr(obj, "act", None)) else ""
        raise BotError(
            f"bot {name!r}: class {obj.__name__}{has_act} does not subclass rummisim.bots.Bot; "
            + CONTRACT_HINT
        )
    if obj.act is Bot.act:
        raise BotError(f"bot {name!r}: class {obj.__name__} does not implement act(view); {CONTRACT_HINT}")
    params = getattr(obj, "Params", None)
    if not (isinstance(params, type) and issubclass(params, BaseModel)):
        raise BotError(
            f"bot {name!r}: {obj.__name__}.Params is {excerpt(params)}, not a pydantic model; "
            "subclass rummisim.bots.BotParams (or leave Params out for a bot without parameters)"
        )
    return obj


def entry_point_names() -> list[str]:
    """The bot names declared under the ``rummisim.bots`` entry-point group, sorted."""
    return sorted(_entry_points())


def load_entry_point(name: str) -> type[Bot] | None:
    """The bot class of the entry point ``name``, or ``None`` if no installed distribution declares
    it (after re-reading the entry points once). ``BotError`` if it cannot be loaded or is not a
    bot, or if two distributions declare it."""
    points = _entry_points().get(name)
    if points is None:
        clear_cache()
        points = _entry_points().get(name)
    if points is None:
        return None
    values = sorted({point.value for point in points})
    if len(values) > 1:
        raise BotError(
            f"bot {name!r}: entry points in group {ENTRY_POINT_GROUP!r} disagree: {', '.join(values)}; "
            "name the one you mean as package.module:ClassName"
        )
    try:
        loaded = points[0].load()
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code may fail to import in any way
        raise BotError(
            f"bot {name!r}: its entry point {points[0].value!r} cannot be loaded ({_one_line(exc)})"
        ) from None
    return check_bot_class(loaded, name)


def clear_cache() -> None:
    """Forget the entry points read so far (the next lookup reads them again)."""
    _entry_points.cache_clear()


@cache
def _entry_points() -> dict[str, list[metadata.EntryPoint]]:
    found: dict[str, list[metadata.EntryPoint]] = {}
    for point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(point.name, []).append(point)
    return found


def _bot_classes(module: Any) -> list[str]:
    return sorted(
        key for key, value in vars(module).items() if not key.startswith("_") and _is_bot_class(value)
    )


def _is_bot_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, Bot) and value.act is not Bot.act


def _one_line(exc: BaseException) -> str:
    return excerpt(f"{type(exc).__name__}: {exc}", 120, quote=False)
