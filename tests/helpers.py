"""Test helpers: profiles with overrides, tile and table parsing, scripted bots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rummisim import load_profile, parse_table, parse_tiles
from rummisim.contract import Discard, Draw, OutOfBudget, Pass, Phase, Play, TurnView
from rummisim.melds import Meld
from rummisim.profile import RuleProfile, profile_from_dict
from rummisim.solver import SearchOptions, solve
from rummisim.solver.budget import DEFAULT_OPTIONS

# the default search read from the bottom up, as every search was before 0.3.23 (``solver.reading``):
# for tests of a mechanism on a position whose search from the top down does not reach it
BOTTOM_UP = SearchOptions(rack_first=False)

# ... with its first search at the full limits of the tracked host passes
# (``SearchOptions.first_tracked_states``): for tests of what those passes do within them
FULL_FIRST = replace(
    BOTTOM_UP,
    first_tracked_states=BOTTOM_UP.max_tracked_states,
    first_tracked_call=BOTTOM_UP.max_tracked_call,
)

# A ``polish-40`` game table (4 jokers): K9-K13 keeps two jokers, K4-K8 one, and the DP's run
# K4..K13 of tiles holds all three, past ``max_per_set``; the decoding cuts it in two. R12 B9: no play.
POLISH_KEPT_JOKERS_PAST_THE_CAP = (
    "K4 K5 J(K6) K7 K8 | J(K9) J(K10) K11 K12 K13 | R2 R3 R4 | R5 R6 R7 | O3 O4 O5 | B1 B2 B3 "
    "| B9 B10 B11 | R8 O8 B8 | J(K13) R13 B13 | R13 O13 B13"
)


def with_overrides(base: str, **sections) -> RuleProfile:
    """A built-in profile with some keys replaced: with_overrides('standard', runs={'wrap': ...})."""
    data = load_profile(base).to_dict()
    for key, value in sections.items():
        if isinstance(value, dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    data["name"] = f"{base}-test"
    return profile_from_dict(data, "<test>")


def tiles(text: str, profile: RuleProfile) -> tuple[int, ...]:
    return parse_tiles(text, profile)


def table(text: str, profile: RuleProfile):
    return parse_table(text, profile)


class ScriptBot:
    """Plays a fixed list of actions (each an action or a callable of the view), then
    draws (or passes after drawing, or discards its last tile)."""

    name = "script"

    def __init__(self, actions: list | None = None):
        self.actions = list(actions or [])
        self.views: list[TurnView] = []

    def act(self, view: TurnView):
        self.views.append(view)
        if self.actions:
            action = self.actions.pop(0)
            return action(view) if isinstance(action, Callable) else action
        if view.phase == "discard":
            return Discard(view.rack[-1])
        return Draw() if view.phase == "start" else Pass()


def tile_near_table(table, ts, rng) -> int:
    """A random tile near a table set (random positions): a face of some set moved up to 3
    values along its run, or the same value in another colour."""
    meld = table[int(rng.integers(len(table)))]
    face = meld.faces[int(rng.integers(len(meld.faces)))]
    colour, value = ts.colour_of(face), ts.value_of(face)
    if rng.random() < 0.6:
        value = min(ts.values, max(1, value + int(rng.integers(-3, 4))))
    else:
        colour = int(rng.integers(ts.colours))
    return ts.code(colour, value)


def turn_view(
    profile, rack: str, table_text: str = "", *, opened: bool, phase=Phase.START, discard_top=None,
    sizes=(14, 14), pool: int = 40, turn: int = 3,
) -> TurnView:  # fmt: skip
    """Seat 0's view of a hand-set position (the rack and table in notation)."""
    return TurnView(
        profile=profile,
        seat=0,
        phase=phase,
        rack=tuple(sorted(tiles(rack, profile))),
        table=table(table_text, profile) if table_text else (),
        opened=opened,
        opened_seats=(opened, True),
        rack_sizes=sizes,
        pool_size=pool,
        discard_top=tiles(discard_top, profile)[0] if discard_top else None,
        turn=turn,
    )


class Troublemaker:
    """Raises, answers the wrong kind of action, plays an illegal table, runs out of budget and
    discards a tile it does not hold, each on its own turns; otherwise draws."""

    name = "troublemaker"

    def __init__(self):
        self.turns = 0

    def act(self, view):
        if view.phase == "discard":
            return Discard(-1) if view.turn % 2 else Discard(view.rack[0])
        if view.phase == "after_draw":
            return Pass()
        self.turns += 1
        step = self.turns % 5
        if step == 1:
            raise RuntimeError("boom")
        if step == 2:
            return Discard(view.rack[0])  # the wrong kind of action
        if step == 3:
            tile = view.rack[0]
            return Play(table=(*view.table, Meld((tile, tile, tile), (tile, tile, tile))), played=(tile,) * 3)
        if step == 4:
            return OutOfBudget()
        return Draw()


def solved_both_ways(pos, options, base=DEFAULT_OPTIONS):
    """``solve`` of a Hypothesis position (``strategies.positions``) without a budget, with the
    ``base`` search options (the default ones) and with ``options`` (a search option switched off)."""
    args = (pos.rack, pos.table, pos.profile)
    opts = dict(initial=pos.initial, objective=pos.objective, rearrange=pos.rearrange, budget=None)
    return solve(*args, **opts, options=base), solve(*args, **opts, options=options)
