"""The conservative bot: holds tiles back until a play is worth it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, Field

from rummisim.bots.search import SearchBot
from rummisim.contract import Phase, TurnView
from rummisim.profile import ProfileError, RuleProfile, profile_from_dict
from rummisim.validation import StrictModel

if TYPE_CHECKING:
    from rummisim.solver import Solution


class ConservativeParams(StrictModel):
    """Parameters of ``conservative`` (``{name: conservative, params: {...}}``)."""

    keep_jokers: bool = True
    min_play: int = Field(default=1, ge=1)
    dump_at: int = Field(default=0, ge=0)
    open_margin: int = Field(default=0, ge=0)
    trickle: bool = False


class ConservativeBot(SearchBot):
    """Plays the most tiles, but holds tiles back while it can afford to.

    Parameters:

    - ``keep_jokers`` (default true): it keeps the jokers on its rack: it plays
      the best play of its other tiles, unless the best play with the jokers
      goes out.
    - ``min_play`` (default 1): it plays only when the play places at least
      ``min_play`` rack tiles or goes out; otherwise it draws.
    - ``dump_at`` (default 0, off): when any opponent holds ``dump_at`` tiles or
      fewer, it drops every hold and plays the play that sheds the most points
      (``objective="value"``), as the round may end soon.
    - ``open_margin`` (default 0): it makes its initial meld only when the
      opening is worth at least the threshold plus ``open_margin`` (it searches
      under the profile with that higher threshold, so the move is legal under
      the real one).
    - ``trickle`` (default false): once it has opened, while the pool is not empty and it
      cannot go out, it lays a single rack tile on the table (its lowest that fits alone,
      jokers kept) instead of its whole play, so that it need not draw; the rest of the play
      stays on its rack, out of the opponents' reach, to go out with later. Without a single
      tile that fits it makes its play.

    Under ``turn.must_play_if_able`` (002) holding back is only partial: when the
    rules above would draw but a legal play exists, it plays the best play
    without its jokers (with ``keep_jokers``), else the best play; ``min_play``
    and ``open_margin`` cannot make it draw then.

    "Goes out" means the play empties the rack (in the discard-pile variant, all
    but the tile it then discards). Once the pool is empty nothing is gained by
    waiting, so every hold is dropped and it plays the most tiles it can.
    Otherwise it plays like ``greedy`` (``objective="tiles"``, full
    rearrangement). Shared phase, discard-pile and budget handling:
    ``rummisim.bots.search``. Deterministic; it does not use its random generator.
    """

    name = "conservative"
    Params = ConservativeParams
    params: ConservativeParams  # validated by Params (``validate_params``)
    objective = "tiles"

    def __init__(self, profile: RuleProfile, rng: np.random.Generator, params: BaseModel):
        super().__init__(profile, rng, params)
        self.opening_profile = _with_higher_threshold(profile, self.params.open_margin)

    def choose(self, view: TurnView) -> Solution | None:
        chosen = self.hold_or_play(view)
        must_play = view.phase == Phase.START and self.profile.turn.must_play_if_able
        if must_play and not (chosen and chosen.is_play):
            return self.least_held_play(view)
        return chosen

    def least_held_play(self, view: TurnView) -> Solution | None:
        """Under ``turn.must_play_if_able`` a hold may not become a draw: ``min_play`` and
        ``open_margin`` give way, but the jokers stay on the rack when another play exists."""
        if self.holds_jokers(view):
            rest = self.without_jokers(view, self.profile)
            if rest is not None and rest.is_play:
                return rest
        return self.search(view, view.rack, "tiles")

    def holds_jokers(self, view: TurnView) -> bool:
        return self.params.keep_jokers and self.profile.tileset.joker in view.rack

    def without_jokers(self, view: TurnView, profile: RuleProfile) -> Solution | None:
        """The best play of the rack less its jokers (``keep_jokers``)."""
        joker = self.profile.tileset.joker
        return self.search(view, [t for t in view.rack if t != joker], "tiles", profile)

    def hold_or_play(self, view: TurnView) -> Solution | None:
        """The play the hold-back rules allow (``None``: hold everything and draw)."""
        params = self.params
        if self.dumping(view):
            return self.search(view, view.rack, "value")
        if view.pool_size == 0:
            return self.search(view, view.rack, "tiles")
        profile = self.profile if view.opened else self.opening_profile
        if profile is None:  # no rack can reach threshold + open_margin
            return None
        best = self.search(view, view.rack, "tiles", profile)
        if best is None or not best.is_play or self.goes_out(view, best):
            return best
        if self.holds_jokers(view):
            best = self.without_jokers(view, profile)
            if best is None or not best.is_play:
                return None
        if self.goes_out(view, best):
            return best
        if best.tiles_placed < params.min_play:
            return None
        if params.trickle and view.opened and best.tiles_placed > 1:
            return self.single_tile(view) or best
        return best

    def single_tile(self, view: TurnView) -> Solution | None:
        """The play of one rack tile, the lowest that fits the table alone (jokers kept)."""
        ts = self.profile.tileset
        for code in sorted(set(view.rack) - {ts.joker}, key=lambda t: (ts.value_of(t), t)):
            play = self.search(view, [code], "tiles")
            if play is not None and play.is_play:
                return play
        return None

    def dumping(self, view: TurnView) -> bool:
        """Is some opponent within ``dump_at`` tiles of going out?"""
        limit = self.params.dump_at
        return limit > 0 and any(
            size <= limit for seat, size in enumerate(view.rack_sizes) if seat != view.seat
        )


def _with_higher_threshold(profile: RuleProfile, margin: int) -> RuleProfile | None:
    """The profile with ``initial_meld.threshold`` raised by ``margin`` (``None`` if no
    rack could reach it)."""
    if margin == 0:
        return profile
    data = profile.to_dict()
    data["name"] = f"{profile.name}+open_margin{margin}"
    data["initial_meld"] = {**data["initial_meld"], "threshold": profile.initial_meld.threshold + margin}
    try:
        return profile_from_dict(data, f"<conservative open_margin={margin}>")
    except ProfileError:
        return None
