"""The bot interface: ``act(view) -> action``, plus typed parameter validation."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ValidationError

from rummisim.contract import Action, Draw, Play, TurnView
from rummisim.profile import RuleProfile
from rummisim.referee import legal_play
from rummisim.validation import StrictModel, describe_error, error_line


def _param_path(loc: tuple) -> str:
    """A bot parameter's path in an error, dotted (``candidates.0``); the model itself is ``params``."""
    return ".".join(map(str, loc)) or "params"


class BotError(ValueError):
    """A bot name or parameter that is not valid."""


class BotParams(StrictModel):
    """The base of a bot's ``Params`` model: unknown parameters are errors, values are not
    coerced (``min_play: "2"`` is refused), instances are frozen."""


class NoParams(BotParams):
    """A bot without parameters: any parameter is an error."""


class Bot:
    """Base class. Subclasses set ``name`` and ``Params`` and implement ``act``."""

    name: ClassVar[str] = "bot"
    Params: ClassVar[type[BaseModel]] = NoParams

    def __init__(self, profile: RuleProfile, rng: np.random.Generator, params: BaseModel):
        self.profile = profile
        self.rng = rng
        self.params = params

    @classmethod
    def validate_params(cls, params: dict[str, Any], *, spec_name: str | None = None) -> BaseModel:
        """``params`` as the bot's ``Params`` model, or one ``BotError`` line naming the bot
        (``spec_name``: the name it was asked for by, default ``cls.name``). An unknown parameter
        is an error even when ``Params`` does not forbid extra keys."""
        prefix = f"bot {spec_name or cls.name!r}"
        valid = ", ".join(cls.Params.model_fields) or "(none)"
        unknown = [key for key in params if key not in cls.Params.model_fields]
        if unknown:
            extra = {"type": "extra_forbidden"}
            raise BotError(describe_error(extra, prefix, str(unknown[0]), valid, noun="parameter"))
        try:
            return cls.Params.model_validate(params)
        except ValidationError as exc:
            line = error_line(exc, prefix, lambda *_: valid, noun="parameter", key=_param_path)
            raise BotError(line) from None

    def act(self, view: TurnView) -> Action:  # pragma: no cover - interface
        raise NotImplementedError

    def draw_unless_forced(self, view: TurnView, source: str = "deck") -> Action:
        """Draw, unless ``turn.must_play_if_able`` and some legal play exists: then the play
        the engine itself would force (the most tiles), so that a bot never faults on it."""
        if self.profile.turn.must_play_if_able:
            best = legal_play(self.profile, view.rack, view.table, opened=view.opened)
            if best.is_play:
                return Play(best.table, best.played)
        return Draw(source)
