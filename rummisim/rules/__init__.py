"""The rules layer: is this a set, which faces may the jokers take, is this move legal.

One entry point: ``validate_move(profile, table, rack, new_table, played, opened=...)``
returns a ``MoveCheck`` or raises ``IllegalMove`` naming the broken rule. The
modules, bottom up:

- ``sets``: runs and groups, the ``Meld`` type, ``make_meld`` and ``is_valid_meld``.
- ``jokers``: ``assign_jokers`` (faces for a written set) and the legality of
  moving table jokers (``joker_acceptable``, ``check_table_jokers``).
- ``moves``: ``validate_move`` (rack and table accounting, the initial meld,
  rearrangement, the discard keep-back), ``play_limit``.

Every check takes the ``RuleProfile``; nothing here plays a game or searches.
``rummisim.melds`` and ``rummisim.moves`` re-export these names for older imports.
"""

from __future__ import annotations

from rummisim.rules.errors import IllegalMove
from rummisim.rules.jokers import assign_jokers, check_table_jokers, joker_acceptable
from rummisim.rules.moves import MoveCheck, play_limit, validate_move
from rummisim.rules.sets import (
    MIN_NUMBERED_TILES,
    Meld,
    extension_faces,
    face_kind,
    is_valid_meld,
    is_valid_meld_parts,
    make_meld,
    max_jokers_in_set,
    meld_opening_value,
)

__all__ = [
    "MIN_NUMBERED_TILES",
    "IllegalMove",
    "Meld",
    "MoveCheck",
    "assign_jokers",
    "check_table_jokers",
    "extension_faces",
    "face_kind",
    "is_valid_meld",
    "is_valid_meld_parts",
    "joker_acceptable",
    "make_meld",
    "max_jokers_in_set",
    "meld_opening_value",
    "play_limit",
    "validate_move",
]
