"""Moves: the names older code imports from here, re-exported from where they now live.

The action types (``Play``, ``Draw``, ``Pass``, ``Discard``, ``OutOfBudget``,
``Action``) are the bot contract, ``rummisim.contract``; move validation
(``validate_move``, ``IllegalMove``, ``MoveCheck``, ``play_limit``) and the joker
rules (``joker_acceptable``) are the rules layer, ``rummisim.rules``. New code
imports from those modules.
"""

from __future__ import annotations

from rummisim.contract import Action, Discard, Draw, OutOfBudget, Pass, Play
from rummisim.rules.errors import IllegalMove
from rummisim.rules.jokers import joker_acceptable
from rummisim.rules.moves import MAX_OPENING_SUBSETS, MoveCheck, play_limit, validate_move

__all__ = [
    "MAX_OPENING_SUBSETS",
    "Action",
    "Discard",
    "Draw",
    "IllegalMove",
    "MoveCheck",
    "OutOfBudget",
    "Pass",
    "Play",
    "joker_acceptable",
    "play_limit",
    "validate_move",
]
