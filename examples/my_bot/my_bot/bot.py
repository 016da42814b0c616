"""``MinTilesBot``: the solver's best play, but only when it places at least ``min_tiles`` tiles.

A custom bot is a subclass of ``rummisim.bots.Bot`` with an ``act(view)`` method and, if it
takes parameters, a ``Params`` model (a ``rummisim.bots.BotParams``). rummisim builds one per
seat as ``MinTilesBot(profile, rng, params)``, with ``params`` already validated, and asks it
for an action at every step of the seat's turns (see docs/bot-contract.md in rummisim).
"""

from __future__ import annotations

from pydantic import Field

from rummisim import Discard, Pass, Phase, Play, TurnView, solve
from rummisim.bots import Bot, BotParams
from rummisim.contract import Action
from rummisim.moves import play_limit


class MinTilesParams(BotParams):
    """``min_tiles``: the fewest rack tiles a play must place (a play that goes out always may)."""

    min_tiles: int = Field(default=3, ge=1)


class MinTilesBot(Bot):
    """Makes the play that places the most rack tiles (the exact solver, with full table
    rearrangement), but only when it places at least ``min_tiles`` of them or empties the
    rack; otherwise it draws (and after drawing, passes). Before its initial meld it searches
    for an opening, so the profile's threshold applies. With a discard pile it discards its
    highest numbered tile. Under ``turn.must_play_if_able`` it plays the forced play instead
    of drawing (``draw_unless_forced``), so it never faults. Deterministic: it does not use
    its random generator.
    """

    name = "my_bot"
    Params = MinTilesParams
    params: MinTilesParams

    def act(self, view: TurnView) -> Action:
        if view.phase == Phase.DISCARD:
            return Discard(self.highest_tile(view.rack))
        best = solve(view.rack, view.table, self.profile, initial=not view.opened)
        # a rack smaller than min_tiles still goes out; with a discard pile one tile stays back
        enough = min(self.params.min_tiles, play_limit(self.profile, len(view.rack)))
        if best.is_play and best.tiles_placed >= enough:
            return Play(best.table, best.played)
        if view.phase == Phase.AFTER_DRAW:
            return Pass()
        return self.draw_unless_forced(view)

    def highest_tile(self, rack: tuple[int, ...]) -> int:
        """The numbered tile worth the most (a joker is kept unless it is all that is left)."""
        tiles = self.profile.tileset
        numbered = [tile for tile in rack if not tiles.is_joker(tile)]
        return max(numbered, key=tiles.value_of) if numbered else rack[0]
