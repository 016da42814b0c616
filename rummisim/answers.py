"""A bot's answer copied into the engine's own types before anything uses it.

``own_action`` reads each field of a bot's action once and builds the engine's own ``Play``,
``Draw``, ``Pass``, ``Discard`` or ``OutOfBudget`` from what it read (tile codes as ints, sets as
``Meld``s of tuples): a subclass whose attributes change between reads, or a table the bot
changes afterwards, cannot show the rules one move and make the engine apply another. It sits
below the engine and above the contract and the table notation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummisim.contract import Action, Discard, Draw, OutOfBudget, Pass, Play
from rummisim.melds import Meld


def own_action(action: Any, n_codes: int) -> Action | str:
    """A bot's action copied into the engine's own types, each field read once (a ``Play``
    subclass whose ``played`` changes between reads cannot show the rules one move and the
    table another), or why it cannot be: a play must be made of tile codes of the tile set
    (``0..n_codes - 1``) in sets, the only moves ``validate_move`` and the turn log describe."""
    if isinstance(action, Play):
        return own_play(action.played, action.table, n_codes)
    if isinstance(action, OutOfBudget):
        best = action.best
        if best is None:
            return OutOfBudget()
        if not isinstance(best, Play):
            return f"OutOfBudget.best must be a Play or None, got {type(best).__name__}"
        own = own_play(best.played, best.table, n_codes)
        return own if isinstance(own, str) else OutOfBudget(own)
    if isinstance(action, Draw):
        source = action.source
        return Draw(source) if isinstance(source, str) else f"a draw source is a string, got {source!r}"
    if isinstance(action, Discard):
        tile = action.tile
        if not isinstance(tile, (int, np.integer)) or isinstance(tile, bool):
            return f"a discard is one tile code, got {tile!r}"
        return Discard(int(tile))
    return Pass()  # (the caller checked the kind)


def own_play(played: Any, table: Any, n_codes: int) -> Play | str:
    bad = f"a play of tile codes outside the tile set (0..{n_codes - 1})"
    if not isinstance(played, (tuple, list)) or not isinstance(table, (tuple, list)):
        return bad
    melds = []
    for meld in table:
        if not isinstance(meld, Meld):
            return bad
        tiles, faces = meld.tiles, meld.faces
        if not isinstance(tiles, (tuple, list)) or not isinstance(faces, (tuple, list)):
            return bad
        melds.append((tuple(tiles), tuple(faces)))
    codes = list(played) + [c for tiles, faces in melds for c in (*tiles, *faces)]
    if not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in codes):
        return bad
    if codes and not (min(codes) >= 0 and max(codes) < n_codes):
        return bad
    own_table = tuple(Meld(tuple(map(int, tiles)), tuple(map(int, faces))) for tiles, faces in melds)
    return Play(own_table, tuple(int(c) for c in played))
