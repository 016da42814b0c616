"""The random bot: a uniformly chosen simple legal move (module not named ``random``
so that it can never shadow the standard library's)."""

from __future__ import annotations

from collections import Counter

from rummisim.bots.base import Bot
from rummisim.bots.candidates import extension_plays, fits, opening_value, rack_sets
from rummisim.contract import Action, Discard, Draw, Pass, Phase, Play, TurnView
from rummisim.melds import Meld
from rummisim.rules import play_limit


class RandomBot(Bot):
    """Picks uniformly at random among simple legal moves.

    The options it draws from, each equally likely:

    - after its initial meld: every new set the rack can build on its own (runs
      shorter than twice the minimum length, groups, at most one joker each),
      and every single rack tile added to one end of a table run or to a group
      that lacks its colour;
    - before it: every single rack set worth the opening threshold, and (when
      the profile allows several sets) one opening made by taking rack sets in
      a random order while they fit, if it reaches the threshold;
    - ``Draw()`` (in the ``start`` phase; also ``Draw("discard")`` when there is
      a discard pile) or ``Pass()`` (after drawing).

    Under ``turn.must_play_if_able`` it draws only when it has no play: it picks among
    its plays, and when it sees none but the solver finds one, it makes that play.
    It never rearranges the table (except in that forced case). With a discard pile it only considers plays
    that leave a tile on the rack, and discards a uniformly chosen rack tile.
    All choices use its seeded generator, so it is deterministic given it.
    """

    name = "random"

    def act(self, view: TurnView) -> Action:
        rack = view.rack
        if view.phase == Phase.DISCARD:
            return Discard(rack[int(self.rng.integers(len(rack)))])
        limit = play_limit(self.profile, len(rack))  # with a discard pile, a tile is kept to discard
        options: list[Action] = [p for p in self.plays(view) if len(p.played) <= limit]
        if view.phase == Phase.START:
            if self.profile.turn.must_play_if_able and options:
                return options[int(self.rng.integers(len(options)))]
            options.append(self.draw_unless_forced(view))
            if self.profile.discard_pile and view.discard_top is not None and isinstance(options[-1], Draw):
                options.append(Draw("discard"))
        else:
            options.append(Pass())
        return options[int(self.rng.integers(len(options)))]

    def plays(self, view: TurnView) -> list[Play]:
        sets = rack_sets(view.rack, self.profile)
        if view.opened:
            new_sets = [Play((*view.table, meld), meld.tiles) for meld in sets]
            return new_sets + extension_plays(view.table, view.rack, self.profile)
        return [
            Play((*view.table, *melds), tuple(t for m in melds for t in m.tiles))
            for melds in self.openings(view, sets)
        ]

    def openings(self, view: TurnView, sets: list[Meld]) -> list[list[Meld]]:
        profile = self.profile
        threshold = profile.initial_meld.threshold
        openings = [[meld] for meld in sets if opening_value([meld], profile) >= threshold]
        if profile.initial_meld.sets != "single" and sets:
            left = Counter(view.rack)
            chosen: list[Meld] = []
            for index in self.rng.permutation(len(sets)):
                meld = sets[int(index)]
                if fits(meld.tiles, left):
                    left.subtract(meld.tiles)
                    chosen.append(meld)
            if profile.initial_meld.sets == "one_qualifying":  # one of them worth it alone
                reached = max(opening_value([meld], profile) for meld in chosen)
            else:
                reached = opening_value(chosen, profile)
            if len(chosen) > 1 and reached >= threshold:
                openings.append(chosen)
        return openings
