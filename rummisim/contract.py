"""The bot contract: what the engine shows a bot, and what a bot may answer.

The engine and the bots both import this module and neither imports the other:

- ``Phase``: the step of the turn a bot is asked in (``start``, ``after_draw``,
  ``discard``); a ``StrEnum``, so ``view.phase == "start"`` still reads true.
- ``TurnView``: the seat's own rack and the public information.
- The actions: ``Play``, ``Draw``, ``Pass``, ``Discard``, ``OutOfBudget``; ``QuitGame``, raised
  by a player that ends the game (a person who quits).
- ``Player``: anything with ``act(view) -> Action``; ``BotFactory``: a callable
  ``(profile, rng) -> Player`` with a ``label``, which the engine calls with the
  seat's own generator (the engine spawns every seed).

Which action each phase accepts is the engine's business (``rummisim.engine``);
the rules that decide whether a ``Play`` is legal live in ``rummisim.rules``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from rummisim.melds import Meld
    from rummisim.profile import RuleProfile


class Phase(StrEnum):
    """The step of a turn at which a bot is asked to act."""

    START = "start"  # play, draw (or take the top discard), or run out of search budget
    AFTER_DRAW = "after_draw"  # ``turn.play_after_draw``: play or pass after drawing
    DISCARD = "discard"  # discard-pile variant: the last step of a turn that discards


# ----- actions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """Replace the table with ``table``, using the rack tiles ``played``."""

    table: tuple[Meld, ...]
    played: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw from the deck (``source='deck'``) or take the top discard (``'discard'``)."""

    source: str = "deck"


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without playing (after drawing, or when the pool is empty)."""


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard one rack tile (discard-pile variant, the last step of every turn)."""

    tile: int


@dataclass(frozen=True, slots=True)
class OutOfBudget:
    """The bot's search ran out of ``time_limit.search_budget``; ``best`` is its best play."""

    best: Play | None = None


Action = Play | Draw | Pass | Discard | OutOfBudget


class QuitGame(BaseException):  # noqa: N818 - not an error: a person ended the game
    """A seat's player ends the game (a person at the table typed ``quit``: ``rummisim.human``).
    A ``BaseException``, so the engine, which records a bot's exception as a fault and goes on,
    lets it through to the caller."""


# ----- what a bot sees -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnView:
    """What a bot sees when asked to act (its own rack, public information)."""

    profile: RuleProfile
    seat: int
    phase: Phase
    rack: tuple[int, ...]
    table: tuple[Meld, ...]
    opened: bool
    opened_seats: tuple[bool, ...]
    rack_sizes: tuple[int, ...]
    pool_size: int
    discard_top: int | None
    turn: int

    @classmethod
    def of(
        cls,
        profile: RuleProfile,
        seat: int,
        phase: Phase,
        *,
        racks: Sequence[Sequence[int]],
        table: tuple[Meld, ...],
        opened: Sequence[bool],
        pool_size: int,
        discard: Sequence[int],
        turn: int,
    ) -> TurnView:
        """The view of ``seat`` in a position given whole (every rack, the discard pile): what
        the engine shows a bot, and what ``lookahead``'s rollouts show their policies."""
        return cls(
            profile=profile,
            seat=seat,
            phase=phase,
            rack=tuple(racks[seat]),
            table=table,
            opened=opened[seat],
            opened_seats=tuple(opened),
            rack_sizes=tuple(len(r) for r in racks),
            pool_size=pool_size,
            discard_top=discard[-1] if discard else None,
            turn=turn,
        )


# ----- who plays -------------------------------------------------------------------------


@runtime_checkable
class Player(Protocol):
    """A seat's bot: answers each ``TurnView`` with an action.

    A bot may also keep an int attribute ``search_units``, the search units (solver
    nodes) it has spent so far; the engine reads it before and after each turn to report
    the turn's cost (``rummisim.events.TurnEnded``). Without it the cost is unknown."""

    def act(self, view: TurnView) -> Action: ...


@runtime_checkable
class BotFactory(Protocol):
    """Builds a seat's bot from the rules and the generator the engine spawned for the seat;
    ``label`` names the seat in the game record (``rummisim.bots.BotSpec`` is one)."""

    @property
    def label(self) -> str: ...

    def __call__(self, profile: RuleProfile, rng: np.random.Generator) -> Player: ...


__all__ = [
    "Action",
    "BotFactory",
    "Discard",
    "Draw",
    "OutOfBudget",
    "Pass",
    "Phase",
    "Play",
    "Player",
    "QuitGame",
    "TurnView",
]
