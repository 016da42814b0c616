"""The bot registry: bot names -> classes, and the one place bot specs are read.

A bot spec is a name (``"greedy"``), the one text grammar ``NAME(key=value,...)``
(``"conservative(min_play=2)"``, values read as YAML scalars), a mapping
``{name: conservative, params: {min_play: 2}}`` or a ``BotSpec``. The CLI, the
experiment loader, the runner and the tests all go through these functions:

- the name is a registered bot (``BOTS``), a class path ``package.module:ClassName`` or
  the name of an entry point in the group ``rummisim.bots`` (``resolve_bot``; the last two
  are imported by ``rummisim.bots.loading``, in whichever process builds the bot, so a spec
  stays plain data that worker processes resolve themselves);
- ``register(cls)``: add a bot class (a ``Bot`` subclass with a ``name`` and a
  ``Params`` model) under its name; usable as a class decorator. A registration lives in
  the process that made it; the runner sends the registered classes an experiment names
  with its chunks (``runner.rows.registered_bots``), so worker processes play them too.
- ``validate_spec(spec) -> BotSpec``: the grammar, the name and the parameters,
  checked without building a bot (no profile needed); ``BotError`` otherwise.
- ``build_lineup(specs, profile, rngs)``: one bot per seat.
- ``check_search_scope(profile, specs, where)``: solver bots refused on a tile set the fast
  exact search cannot encode (unless a search budget bounds each turn).
- ``BotSpec`` is also a ``rummisim.contract.BotFactory``: hand specs to
  ``rummisim.engine.play_game`` as ``[validate_spec(s) for s in specs]`` and the
  engine builds each bot with the generator it spawned for the seat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from rummisim.bots import loading
from rummisim.bots.base import Bot, BotError

if TYPE_CHECKING:
    import numpy as np
    from pydantic import BaseModel

    from rummisim.profile import RuleProfile
from rummisim.validation import excerpt

BOTS: dict[str, type[Bot]] = {}

Spec = str | Mapping[str, Any]


def register(cls: type[Bot], *, replace: bool = False) -> type[Bot]:
    """Register a bot class under ``cls.name`` (``replace=True`` to override a name)."""
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise TypeError(f"a bot is a subclass of rummisim.bots.Bot, got {cls!r}")
    if not replace and cls.name in BOTS and BOTS[cls.name] is not cls:
        raise ValueError(f"bot name {cls.name!r} is already registered to {BOTS[cls.name].__name__}")
    BOTS[cls.name] = cls
    return cls


def foreign_bots(specs: Iterable[Spec]) -> dict[str, type[Bot]]:
    """The bot classes the ``specs`` name that are not rummisim's own (defined outside the
    package), by the name the specs use, resolved as a game resolves them (``resolve_bot``)."""
    found: dict[str, type[Bot]] = {}
    for spec in specs:
        name = parse_spec(spec).name
        if name in found:
            continue
        cls = resolve_bot(name)
        if not (cls.__module__ == "rummisim" or cls.__module__.startswith("rummisim.")):
            found[name] = cls
    return found


def check_search_scope(profile: RuleProfile, specs: Iterable[Spec | BotSpec], where: str) -> None:
    """Refuse solver bots on a tile set the fast exact search (the DP) cannot encode: every move
    would go to the integer program, which on such sets can take minutes a move. One ``BotError``
    line starting with ``where``, with the way out; fine when ``time_limit.search_budget`` bounds
    each turn, or when no seat holds a solver bot. The CLI asks before ``play``, ``run`` and
    ``tune``; ``rummisim.runner.run_experiment`` asks for every cell."""
    from rummisim.bots.search import SearchBot  # noqa: PLC0415 - only this check needs them
    from rummisim.solver import supported  # noqa: PLC0415

    if profile.time_limit.search_budget is not None or supported(profile):
        return
    solver_bots = [b for b in map(validate_spec, specs) if issubclass(b.bot_class(), SearchBot)]
    if solver_bots:
        raise BotError(
            f"{where}: profile {profile.name!r} ({profile.tiles.colors} colours, {profile.tiles.copies} "
            f"copies, {profile.tiles.jokers} jokers) is beyond what the fast exact move search encodes, "
            f"and solver bot {solver_bots[0].label!r} could take minutes a move; set "
            "time_limit.search_budget (e.g. 20000) to bound each turn, or play baseline/random bots"
        )


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot spec: the registered ``name`` and the parameters as given (unvalidated
    until ``validate_spec`` or a build). Calling it builds the bot (a ``BotFactory``)."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """A short label, also accepted by the grammar: ``conservative(min_play=2)``."""
        if not self.params:
            return self.name
        inner = ",".join(f"{key}={_format_value(value)}" for key, value in sorted(self.params.items()))
        return f"{self.name}({inner})"

    def as_data(self) -> str | dict[str, Any]:
        """The spec as plain data: the name, or ``{name: ..., params: {...}}``."""
        return {"name": self.name, "params": dict(self.params)} if self.params else self.name

    @property
    def trusted(self) -> bool:
        """Whether the bot is one of rummisim's own (a class of ``rummisim.bots``): the engine
        then shows it its own rules object instead of a copy (``engine.Seats``)."""
        return self.bot_class().__module__.startswith("rummisim.bots.")

    def bot_class(self) -> type[Bot]:
        """The class the name stands for (``resolve_bot``); ``BotError`` if none."""
        return resolve_bot(self.name)

    def validate_params(self) -> BaseModel:
        """The parameters checked by the bot's ``Params`` model; ``BotError`` if not valid."""
        return self.bot_class().validate_params(dict(self.params), spec_name=self.name)

    def __call__(self, profile: RuleProfile, rng: np.random.Generator) -> Bot:
        cls, params = self.bot_class(), self.validate_params()
        try:
            return cls(profile, rng, params)
        except Exception as exc:  # noqa: BLE001 - user code may fail in any way
            why = f"{type(exc).__name__}: {excerpt(str(exc), 200, quote=False)}"
            raise BotError(f"bot {self.label!r}: its constructor raised {why}") from None


def resolve_bot(name: str) -> type[Bot]:
    """The bot class for a spec's name: a registered bot, else a ``package.module:ClassName``
    class path, else an installed ``rummisim.bots`` entry point; ``BotError`` if none."""
    if not isinstance(name, str):
        raise BotError(f"a bot name is a string, got {name!r}")
    if name in BOTS:
        return BOTS[name]
    if loading.is_class_path(name):
        return loading.load_class_path(name)
    found = loading.load_entry_point(name)
    if found is None:
        raise BotError(f"unknown bot {name!r}; available: {', '.join(available_bots())}")
    return found


def available_bots() -> list[str]:
    """What a spec's name may be: the registered bots, the entry-point bots, and a class path."""
    names = sorted(BOTS)
    plugins = [name for name in loading.entry_point_names() if name not in BOTS]
    if plugins:
        names += [f"{name} (entry point)" for name in plugins]
    return [*names, "or package.module:ClassName"]


def parse_spec(spec: Spec | BotSpec) -> BotSpec:
    """Read a bot spec (the grammar or a mapping) without checking the name or parameters."""
    if isinstance(spec, BotSpec):
        return spec
    if isinstance(spec, str):
        parsed = parse_bot_spec(spec)
        return BotSpec(parsed) if isinstance(parsed, str) else BotSpec(parsed["name"], parsed["params"])
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"name", "params"}
        if unknown or "name" not in spec:
            raise BotError(f"a bot spec needs 'name' and optional 'params', got keys {sorted(spec)}")
        return BotSpec(spec["name"], spec.get("params") or {})
    raise BotError(f"a bot spec is a name or a mapping, got {spec!r}")


def validate_spec(spec: Spec | BotSpec) -> BotSpec:
    """Check a bot spec's grammar, name and parameters; return it parsed, or raise ``BotError``."""
    parsed = parse_spec(spec)
    parsed.validate_params()
    return parsed


def build_lineup(
    specs: Sequence[Spec | BotSpec], profile: RuleProfile, rngs: Sequence[np.random.Generator]
) -> list[Bot]:
    """One bot per seat, each with its own generator; ``BotError`` for a bad spec."""
    return [validate_spec(spec)(profile, rng) for spec, rng in zip(specs, rngs, strict=True)]


def make_bot(spec: Spec | BotSpec, profile: RuleProfile, rng: np.random.Generator) -> Bot:
    """Build one bot from a spec; raise ``BotError`` if invalid."""
    return parse_spec(spec)(profile, rng)


def bot_name(spec: Spec | BotSpec) -> str:
    """The registered name in a bot spec."""
    return parse_spec(spec).name


def bot_label(spec: Spec | BotSpec) -> str:
    """A short label for a bot spec, also accepted by the grammar: ``conservative(min_play=2)``."""
    return parse_spec(spec).label


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def parse_bot_spec(text: str) -> str | dict[str, Any]:
    """Parse ``greedy`` or ``conservative(min_play=2,keep_jokers=false)`` into a bot spec
    (a name, or ``{name: ..., params: {...}}``).

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
    for item in _split_top_level(rest[:-1]):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BotError(f"bad bot spec {text!r}: parameter {item!r} is not key=value")
        try:
            params[key.strip()] = yaml.safe_load(value.strip())
        except yaml.YAMLError:
            raise BotError(
                f"bad bot spec {text!r}: parameter {key.strip()}: {value.strip()!r} is not a YAML value "
                "(a number, true/false, a word or a [list, of, words])"
            ) from None
    return {"name": name.strip(), "params": params}


def split_bot_specs(text: str) -> list[str]:
    """Split a comma-separated list of bot specs, keeping commas inside parentheses."""
    return _split_top_level(text)


def _split_top_level(text: str) -> list[str]:
    """Split on the commas outside parentheses and brackets (``a(x=1,y=[2, 3]),b``)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        depth += (char in "([") - (char in ")]")
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]
