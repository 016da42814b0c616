"""An example rummisim bot in its own package: ``MinTilesBot`` (the ``my_bot`` entry point)."""

from __future__ import annotations

from my_bot.bot import MinTilesBot, MinTilesParams

__all__ = ["MinTilesBot", "MinTilesParams"]
