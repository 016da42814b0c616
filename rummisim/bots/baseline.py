"""The baseline bot: simple, always legal, no table rearrangement."""

from __future__ import annotations

from rummisim.bots.base import Bot
from rummisim.bots.candidates import rack_sets
from rummisim.contract import Action, Discard, Pass, Phase, Play, TurnView
from rummisim.melds import Meld, extension_faces, make_meld, meld_opening_value
from rummisim.rules import play_limit

SEARCH_NODES = 3000


class BaselineBot(Bot):
    """Plays the obvious moves and never rearranges the table.

    - Before its initial meld: lays down new sets from its rack (runs of up to
      five tiles and groups, using at most one joker per set) worth the most
      opening points; it opens as soon as they reach the threshold (one set when
      the profile asks for a single set).
    - After it: lays down as many tiles as it can in new sets, then adds single
      rack tiles to the ends of runs and to groups that lack their colour.
    - Otherwise it draws (under ``turn.must_play_if_able``, when the solver finds a
      legal play it cannot see, it makes that play instead). In the discard-pile variant it keeps a tile back,
      and discards its highest tile that fits no set it could build.
    Deterministic; it does not use its random generator.
    """

    name = "baseline"

    def act(self, view: TurnView) -> Action:
        if view.phase == Phase.DISCARD:
            return Discard(self.choose_discard(view.rack))
        play = self.plan(view)
        if play is not None:
            return play
        return self.draw_unless_forced(view) if view.phase == Phase.START else Pass()

    # ----- planning ---------------------------------------------------------------------

    def plan(self, view: TurnView) -> Play | None:
        rack = list(view.rack)
        best = self._plan_for(rack, view)
        if best is None or len(best.played) <= play_limit(self.profile, len(rack)):
            return best
        best = None  # the discard-pile variant needs a tile left to discard
        ts = self.profile.tileset
        for tile in sorted(set(rack), key=lambda t: -ts.face_values[t] if t != ts.joker else -99):
            rest = list(rack)
            rest.remove(tile)
            candidate = self._plan_for(rest, view)
            if candidate is not None and (best is None or len(candidate.played) > len(best.played)):
                best = candidate
        return best

    def _plan_for(self, rack: list[int], view: TurnView) -> Play | None:
        profile = self.profile
        candidates = self.rack_sets(rack)
        if not view.opened:
            chosen = self._best_opening(candidates, rack)
            if not chosen:
                return None
            return _play(view.table, chosen)
        chosen = self._best_cover(candidates, rack)
        used = [t for m in chosen for t in m.tiles]
        left = list(rack)
        for t in used:
            left.remove(t)
        table = list(view.table) + chosen
        extended = _extend(table, left, profile)
        played = used + extended
        if not played:
            return None
        return Play(tuple(table), tuple(played))

    def rack_sets(self, rack: list[int]) -> list[Meld]:
        """Minimal sets (runs of length < 2 x min, groups) the rack can build, <= 1 joker each."""
        return rack_sets(rack, self.profile)

    def _best_opening(self, candidates: list[Meld], rack: list[int]) -> list[Meld]:
        profile = self.profile
        threshold = profile.initial_meld.threshold
        scored = sorted(((meld_opening_value(m, profile), m) for m in candidates), key=lambda vm: -vm[0])
        if profile.initial_meld.sets != "any":  # the best set worth the threshold by itself
            if not scored or scored[0][0] < threshold:
                return []
            first = scored[0][1]
            if profile.initial_meld.sets == "single":
                return [first]
            rest = list(rack)  # one_qualifying: more sets of the other tiles may join it
            for t in first.tiles:
                rest.remove(t)
            return [first, *_search(scored, rest)]
        chosen = _search(scored, rack)
        value = sum(meld_opening_value(m, profile) for m in chosen)
        return chosen if chosen and value >= threshold else []

    def _best_cover(self, candidates: list[Meld], rack: list[int]) -> list[Meld]:
        """Most tiles, then most points, in new sets."""
        ts = self.profile.tileset
        scored = sorted(
            ((len(m) * 1000 + sum(ts.value_of(f) for f in m.faces), m) for m in candidates),
            key=lambda vm: -vm[0],
        )
        return _search(scored, rack)

    def choose_discard(self, rack: tuple[int, ...]) -> int:
        ts = self.profile.tileset
        in_sets = {t for m in self.rack_sets(list(rack)) for t in m.tiles}
        numbered = [t for t in rack if t != ts.joker]
        loose = [t for t in numbered if t not in in_sets]
        pick_from = loose or numbered or list(rack)
        return max(pick_from, key=lambda t: (ts.face_values[t], t))


def _search(scored: list[tuple[int, Meld]], rack: list[int]) -> list[Meld]:
    """Disjoint subset of candidate sets (``(score, meld)``, best first) fitting in the
    rack with the largest total score: a depth-first search bounded by ``SEARCH_NODES``."""
    left: dict[int, int] = {}
    for t in rack:
        left[t] = left.get(t, 0) + 1
    suffix = [0] * (len(scored) + 1)
    for i in range(len(scored) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + scored[i][0]
    best: list[Meld] = []
    best_score = 0
    nodes = 0
    chosen: list[Meld] = []

    def dfs(i: int, score: int) -> None:
        nonlocal best, best_score, nodes
        nodes += 1
        if score > best_score:
            best, best_score = list(chosen), score
        if i == len(scored) or nodes > SEARCH_NODES or score + suffix[i] <= best_score:
            return
        value, meld = scored[i]
        if all(left.get(t, 0) >= meld.tiles.count(t) for t in set(meld.tiles)):
            for t in meld.tiles:
                left[t] -= 1
            chosen.append(meld)
            dfs(i + 1, score + value)
            chosen.pop()
            for t in meld.tiles:
                left[t] += 1
        dfs(i + 1, score)

    dfs(0, 0)
    return best


def _extend(table: list[Meld], left: list[int], profile) -> list[int]:
    """Add rack tiles one at a time to the ends of runs / to groups; return the tiles added."""
    added: list[int] = []
    changed = True
    while changed:
        changed = False
        for i, meld in enumerate(table):
            for face in extension_faces(meld, profile):
                if face in left:
                    table[i] = make_meld((*meld.tiles, face), (*meld.faces, face), profile)
                    left.remove(face)
                    added.append(face)
                    changed = True
                    break
    return added


def _play(table, new_sets: list[Meld]) -> Play:
    played = [t for m in new_sets for t in m.tiles]
    return Play(tuple(table) + tuple(new_sets), tuple(played))
