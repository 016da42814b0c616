"""Solver positions for the tests, shared so that every solver test draws (and shrinks) the same way.

A position is ``(profile, rack, table, initial, objective, rearrange)`` (``Position``): the
arguments of ``rummisim.solver.solve``. Three sources:

- random positions (``random_position``, ``random_locked_position``): a legal table built from
  random catalogue sets (jokers at legal faces, up to ``jokers.max_per_set`` in a set, so
  ``R7 J J``-style sets too) out of the tile multiset, and a rack drawn from the tiles left
  (jokers, the tiles that free table jokers, tiles next to table sets, random tiles). Both take
  a numpy ``Generator`` or a ``DrawRng``, which answers the same calls with Hypothesis draws,
  so that the strategy ``positions`` replays and shrinks (toward fewer sets, smaller racks);
- positions from seeded games of ``baseline`` bots with perturbed racks (``game_positions``);
- positions recorded from seeded games of the solver bots (``recorded_positions``): every call
  the bots make to ``solve``, with its mode, objective and ``rearrange``.

Profiles (``VARIANTS``, ``variant_profile``): every built-in profile and one override per rule
axis the solver reads (wrap, table jokers, strict joker sets, ``max_per_set`` with 2..4 jokers,
joker reuse, the initial meld's threshold, sets, joker value and ``may_touch_table``,
``turn.rearrange``, the discard pile), each grouped under an axis name. Every variant has no
search budget, so ``solve`` is exact on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
from helpers import tile_near_table, with_overrides
from hypothesis import strategies as st

from rummisim import builtin_profiles, play_game
from rummisim.melds import Meld, format_table, make_meld, max_jokers_in_set, set_catalogue
from rummisim.moves import joker_acceptable
from rummisim.profile import RuleProfile, profile_from_dict
from rummisim.solver import OBJECTIVES
from rummisim.solver.dp import without_rearrange
from rummisim.tiles import format_tiles
from rummisim.transcript import Transcript

# ----- positions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """The arguments of one ``solve`` call; ``label`` names the profile variant, ``source`` where
    the position came from (``random``, ``locked``, ``game``, ``recorded``)."""

    label: str
    profile: RuleProfile
    rack: tuple[int, ...]
    table: tuple[Meld, ...]
    initial: bool = False
    objective: str = "tiles"
    rearrange: bool = True
    source: str = "random"

    def describe(self) -> str:
        """One line that reproduces the position (paste the texts into ``solve``)."""
        ts = self.profile.tileset
        return (
            f"profile {self.label!r} table {format_table(self.table, ts)!r} "
            f"rack {format_tiles(self.rack, ts)!r} initial={self.initial} "
            f"objective={self.objective!r} rearrange={self.rearrange} ({self.source})"
        )

    def __repr__(self) -> str:  # what Hypothesis prints for a falsifying example
        return f"Position({self.describe()})"


# ----- a numpy-like generator drawing from Hypothesis ------------------------------------------


class DrawRng:
    """The few ``numpy.random.Generator`` calls the position builders make, answered by
    Hypothesis draws (so examples replay and shrink). ``random()`` has a resolution of 1e-4."""

    def __init__(self, draw):
        self._draw = draw

    def integers(self, low: int, high: int | None = None) -> int:
        if high is None:
            low, high = 0, low
        return self._draw(st.integers(int(low), int(high) - 1))

    def random(self) -> float:
        return self._draw(st.integers(0, 9_999)) / 10_000

    def choice(self, n, size: int | None = None, replace: bool = True):
        items = list(range(n)) if isinstance(n, int | np.integer) else list(n)
        if size is None:
            return items[self.integers(len(items))]
        out = []
        for _ in range(size):
            k = self.integers(len(items))
            out.append(items[k] if replace else items.pop(k))
        return np.asarray(out, dtype=np.int64)


# ----- random positions ------------------------------------------------------------------------


def random_table(
    profile: RuleProfile,
    rng,
    supply: np.ndarray,
    *,
    max_sets: int = 6,
    max_set_len: int = 7,
    joker_rate: float = 0.6,
):
    """A legal table of ``0..max_sets`` random catalogue sets of at most ``max_set_len`` tiles,
    taken from ``supply`` (updated). A set holds jokers with probability ``joker_rate`` while
    jokers are left, 1 up to ``max_per_set`` of them (0 also possible), at any of its places."""
    ts = profile.tileset
    joker = ts.joker
    catalogue = [f for f in set_catalogue(profile).faces if len(f) <= max_set_len]
    table = []
    n_sets = int(rng.integers(0, max_sets + 1))
    for _ in range(100):
        if len(table) == n_sets:
            break
        faces = catalogue[int(rng.integers(len(catalogue)))]
        most = min(int(supply[joker]), max_jokers_in_set(profile, len(faces)))
        n_jokers = int(rng.integers(0, most + 1)) if most and rng.random() < joker_rate else 0
        meld = _take_set(profile, rng, faces, n_jokers, supply)
        if meld is not None:
            table.append(meld)
    return tuple(table)


def _take_set(profile: RuleProfile, rng, faces, n_jokers: int, supply: np.ndarray):
    """The set of ``faces`` with ``n_jokers`` jokers at random places, its tiles taken from
    ``supply`` (updated); None (and ``supply`` untouched) when the supply lacks them."""
    ts = profile.tileset
    slots = set(rng.choice(len(faces), size=n_jokers, replace=False).tolist())
    tiles = [ts.joker if k in slots else f for k, f in enumerate(faces)]
    need = ts.counts(tiles)
    if np.any(need > supply):
        return None
    supply -= need
    return make_meld(tiles, faces, profile)


def random_position(
    profile: RuleProfile,
    rng,
    *,
    max_sets: int = 6,
    max_set_len: int = 7,
    min_rack: int = 1,
    max_rack: int = 12,
):
    """A legal table (``random_table``) and a rack of ``min_rack..max_rack`` tiles from the rest
    that often holds jokers, the tile a table joker stands for and tiles next to table sets.
    Returns ``(table, rack)``, the rack sorted. (With the defaults and a numpy generator this
    is the generator ``test_solver_jokers_per_set`` has always used, draw for draw.)"""
    ts = profile.tileset
    joker = ts.joker
    supply = ts.full_counts().copy()
    table = random_table(profile, rng, supply, max_sets=max_sets, max_set_len=max_set_len)
    rack: list[int] = []

    def take(code):
        if supply[code] > 0:
            supply[code] -= 1
            rack.append(int(code))

    for _ in range(int(rng.integers(0, int(supply[joker]) + 1))):
        if rng.random() < 0.6:
            take(joker)
    for meld in table:
        for t, face in zip(meld.tiles, meld.faces, strict=True):
            if t == joker and rng.random() < 0.6:
                ok = sorted(joker_acceptable(profile, meld, face))
                take(ok[int(rng.integers(len(ok)))])
    size = int(rng.integers(min_rack, max_rack + 1))
    for _ in range(max(60, 3 * size)):
        if len(rack) >= size:
            break
        if table and rng.random() < 0.5:
            take(tile_near_table(table, ts, rng))
        else:
            take(int(rng.integers(joker)))
    if not rack:
        take(int(rng.integers(joker)))
    return table, tuple(sorted(rack))


def random_locked_position(profile: RuleProfile, rng, *, max_run: int = 6, long_runs: float = 0.25):
    """A legal table of 1..8 random sets holding 1..(all) jokers (runs of 3..``max_run``
    tiles, sometimes up to 10, and groups; a numbered tile and at most
    ``jokers.max_per_set`` jokers a set) and a rack of 1..15 tiles that usually holds the
    tile a table joker stands for, tiles next to table sets, and sometimes a joker.
    (``test_solver_milp_freed``'s generator, draw for draw; the profile needs jokers.)"""
    ts = profile.tileset
    joker = ts.joker
    catalogue = set_catalogue(profile).faces
    supply = ts.full_counts().copy()
    jokers_left = int(rng.integers(1, ts.jokers + 1))
    table = []
    n_sets = int(rng.integers(1, 9))
    for _ in range(200):
        if len(table) == n_sets:
            break
        faces = catalogue[int(rng.integers(len(catalogue)))]
        if len(faces) > (max_run if rng.random() > long_runs else 10):
            continue
        n_jokers = 0
        if jokers_left and (not table or rng.random() < 0.5):
            n_jokers = int(rng.integers(1, min(jokers_left, max_jokers_in_set(profile, len(faces))) + 1))
        meld = _take_set(profile, rng, faces, n_jokers, supply)
        if meld is not None:
            jokers_left -= n_jokers
            table.append(meld)
    table = tuple(table)
    rack = []

    def take(code):
        if supply[code] > 0:
            supply[code] -= 1
            rack.append(int(code))

    size = int(rng.integers(1, 16))
    if rng.random() < 0.85:
        for meld in table:
            for t, face in zip(meld.tiles, meld.faces, strict=True):
                if t == joker and rng.random() < 0.8:
                    ok = sorted(joker_acceptable(profile, meld, face))
                    take(ok[int(rng.integers(len(ok)))])
    while len(rack) < size:
        roll = rng.random()
        if roll < 0.45:  # near a table set: extends runs, fills groups, sits by joker faces
            take(tile_near_table(table, ts, rng))
        elif roll < 0.5:
            take(joker)
            if not supply[joker]:
                size -= 1
        else:
            take(int(rng.integers(joker)))
    return table, tuple(sorted(rack))


# ----- positions from games --------------------------------------------------------------------


def game_positions(profile: RuleProfile, n: int, seed: int, *, max_table: int, min_table: int = 0):
    """Positions from baseline games: the next seat's rack (sometimes a sample of it, sometimes
    with extra tiles from the tiles nobody holds, sometimes with a joker), tables of
    ``min_table..max_table`` tiles. Returns ``[(table, rack)]``."""
    ts = profile.tileset
    rng = np.random.default_rng(seed)
    positions = []

    def observe(state, seat):
        if len(positions) >= n or rng.random() > 0.35:
            return
        table = state.table
        size = sum(len(m) for m in table)
        if not min_table <= size <= max_table:
            return
        nxt = (seat + 1) % len(state.racks)
        rack = list(state.racks[nxt])
        held = ts.counts([t for m in table for t in m.tiles] + [t for r in state.racks for t in r])
        spare = np.repeat(np.arange(ts.n_codes), ts.full_counts() - held).tolist()
        roll = rng.random()
        if roll < 0.2 and rack:
            rack = list(rng.choice(rack, size=int(rng.integers(1, min(3, len(rack)) + 1)), replace=False))
        elif roll < 0.55 and spare:
            extra = int(rng.integers(1, 12))
            picks = rng.choice(len(spare), size=min(extra, len(spare)), replace=False)
            rack += [spare[i] for i in picks]
        if rng.random() < 0.3 and ts.joker in spare:
            rack.append(ts.joker)
        rack = sorted(int(t) for t in rack[:25])
        if rack:
            positions.append((table, tuple(rack)))

    game = 0
    while len(positions) < n:
        play_game(
            profile, ["baseline"] * 3, seed * 7919 + game, events=Transcript(profile, on_position=observe)
        )
        game += 1
    return positions


def recorded_positions(label: str, bots: Sequence[str], games: int, seed: int) -> tuple[Position, ...]:
    """Every ``solve`` call the solver bots make in ``games`` seeded games (seeds ``seed ..``)
    under the variant ``label``, as positions (distinct ones, in order of play). The bots'
    search budget is kept in the game but the positions carry the variant's exact profile."""
    return _recorded(label, tuple(bots), games, seed)


@lru_cache(maxsize=64)
def _recorded(label: str, bots: tuple[str, ...], games: int, seed: int) -> tuple[Position, ...]:
    import rummisim.bots.search as search  # noqa: PLC0415

    profile = variant_profile(label)
    seen: set = set()
    out: list[Position] = []
    inner = search.solve

    def recording(rack, table, prof, **kwargs):
        pos = Position(
            label,
            profile,
            tuple(sorted(int(t) for t in rack)),
            tuple(table),
            bool(kwargs.get("initial", False)),
            kwargs.get("objective", "tiles"),
            bool(kwargs.get("rearrange", True)),
            "recorded",
        )
        key = (pos.rack, frozenset(Counter(pos.table).items()), pos.initial, pos.objective, pos.rearrange)
        if pos.rack and key not in seen:
            seen.add(key)
            out.append(pos)
        return inner(rack, table, prof, **kwargs)

    search.solve = recording
    try:
        for game in range(games):
            play_game(profile, list(bots), seed + game)
    finally:
        search.solve = inner
    return tuple(out)


# ----- profile variants ------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    axis: str
    base: str
    sections: dict


def _variants() -> dict[str, Variant]:
    out: dict[str, Variant] = {}

    def add(axis: str, label: str, base: str, **sections) -> None:
        out[label] = Variant(axis, base, sections)

    for name in sorted(builtin_profiles()):
        add("builtin", name, name)
    add("wrap", "standard+wrap", "standard", runs={"wrap": "high_low"})
    add("wrap", "standard+wrap+free", "standard", runs={"wrap": "high_low"}, jokers={"table_jokers": "free"})
    add("wrap", "classic-wrap+nowrap", "classic-wrap", runs={"wrap": "none"})
    for base in ("standard", "classic-wrap", "polish-40", "ramino-discard"):
        add("table_jokers", f"{base}+free", base, jokers={"table_jokers": "free"})
    add("strict", "standard+strict", "standard", jokers={"take_from_joker_sets": False})
    add(
        "strict",
        "standard+strict+free",
        "standard",
        jokers={"take_from_joker_sets": False, "table_jokers": "free"},
    )
    add("strict", "polish-40+strict", "polish-40", jokers={"take_from_joker_sets": False})
    add("strict", "classic-wrap+strict", "classic-wrap", jokers={"take_from_joker_sets": False})
    for jokers in (2, 3, 4):
        for most in range(1, jokers + 1):
            add(
                "max_per_set",
                f"standard+j{jokers}m{most}",
                "standard",
                tiles={"jokers": jokers},
                jokers={"max_per_set": most},
            )
    add(
        "max_per_set",
        "standard+j4m3+free",
        "standard",
        tiles={"jokers": 4},
        jokers={"max_per_set": 3, "table_jokers": "free"},
    )
    add("max_per_set", "classic-wrap+j3m3", "classic-wrap", tiles={"jokers": 3}, jokers={"max_per_set": 3})
    add("reuse", "standard+reuse-any", "standard", jokers={"reuse": "any"})
    add("reuse", "polish-40+reuse-any", "polish-40", jokers={"reuse": "any"})
    add("reuse", "classic-wrap+reuse-any", "classic-wrap", jokers={"reuse": "any"})
    # polish-40 follows 004's new set; the other reading, 000's two rack tiles beside the joker
    add("reuse", "polish-40+two-rack-tiles", "polish-40", jokers={"reuse": "two_rack_tiles"})
    add("reuse", "standard+new-set", "standard", jokers={"reuse": "new_set"})
    add("reuse", "classic-wrap+new-set", "classic-wrap", jokers={"reuse": "new_set"})
    add(
        "reuse",
        "standard+new-set+strict",
        "standard",
        jokers={"reuse": "new_set", "take_from_joker_sets": False},
    )
    add(
        "reuse",
        "standard+j4m3+new-set",
        "standard",
        tiles={"jokers": 4},
        jokers={"reuse": "new_set", "max_per_set": 3},
    )
    for threshold in (30, 40):
        for sets in ("any", "single", "one_qualifying"):
            for joker_value in ("represented", 25):
                for touch in (False, True):
                    label = (
                        f"standard+open{threshold}-{sets}-{'jrep' if joker_value == 'represented' else 'j25'}"
                    )
                    label += "-touch" if touch else ""
                    meld = {
                        "threshold": threshold,
                        "sets": sets,
                        "joker_value": joker_value,
                        "may_touch_table": touch,
                    }
                    add("opening", label, "standard", initial_meld=meld)
    add("opening", "classic-wrap+touch", "classic-wrap", initial_meld={"may_touch_table": True})
    add("opening", "classic-wrap+single", "classic-wrap", initial_meld={"sets": "single"})
    add("opening", "polish-40+one-qualifying", "polish-40", initial_meld={"sets": "one_qualifying"})
    add("rearrange", "standard+norearrange", "standard", turn={"rearrange": False})
    add("rearrange", "classic-wrap+norearrange", "classic-wrap", turn={"rearrange": False})
    add("rearrange", "polish-40+norearrange", "polish-40", turn={"rearrange": False})
    add("discard", "standard+discard", "standard", discard_pile=True)
    add("discard", "ramino-discard+locked-nowrap", "ramino-discard", runs={"wrap": "none"})
    return out


VARIANTS: dict[str, Variant] = _variants()
AXES: tuple[str, ...] = tuple(dict.fromkeys(v.axis for v in VARIANTS.values()))


def labels(axis: str | None = None) -> list[str]:
    """The variant labels of one axis group (every label when ``axis`` is None)."""
    return [label for label, v in VARIANTS.items() if axis is None or v.axis == axis]


@cache
def variant_profile(label: str) -> RuleProfile:
    """The profile of a variant: its base with its overrides, no search budget, named ``label``."""
    variant = VARIANTS[label]
    profile = with_overrides(variant.base, time_limit={"search_budget": None}, **variant.sections)
    return profile_from_dict({**profile.to_dict(), "name": label}, f"<variant {label}>")


no_rearrange = without_rearrange  # ``rearrange=False`` moves must pass under ``turn.rearrange: false``


# ----- Hypothesis strategies -------------------------------------------------------------------


def profiles(axis: str | None = None) -> st.SearchStrategy[str]:
    """Variant labels (``variant_profile(label)`` is the profile)."""
    return st.sampled_from(labels(axis))


@st.composite
def positions(
    draw,
    variants: Sequence[str] | None = None,
    *,
    initial: bool | None = None,
    objective: str | None = None,
    rearrange: bool | None = None,
    max_sets: int = 7,
    max_rack: int = 25,
) -> Position:
    """A random position under one of ``variants`` (default: every variant). ``initial``,
    ``objective`` and ``rearrange`` are drawn unless given (``rearrange`` is False one time in
    four). Tables: ``random_position`` (0..``max_sets`` sets of up to 7 tiles) or, one time in
    four where the profile has jokers, ``random_locked_position`` (1..8 sets, runs up to 10,
    1..all jokers on the table); racks of 1..``max_rack`` tiles."""
    label = draw(st.sampled_from(list(variants) if variants else labels()))
    profile = variant_profile(label)
    rng = DrawRng(draw)
    if profile.tiles.jokers and draw(st.integers(0, 3)) == 0:
        table, rack = random_locked_position(profile, rng)
        source = "locked"
    else:
        table, rack = random_position(profile, rng, max_sets=max_sets, max_rack=max_rack)
        source = "random"
    return Position(
        label,
        profile,
        rack,
        table,
        draw(st.booleans()) if initial is None else initial,
        draw(st.sampled_from(OBJECTIVES)) if objective is None else objective,
        draw(st.integers(0, 3)) > 0 if rearrange is None else rearrange,
        source,
    )


def recorded(label: str, bots: Sequence[str], games: int, seed: int) -> st.SearchStrategy[Position]:
    """A position recorded from seeded games (``recorded_positions``), drawn by index."""
    return st.deferred(lambda: st.sampled_from(recorded_positions(label, bots, games, seed)))


__all__ = [
    "AXES",
    "VARIANTS",
    "DrawRng",
    "Position",
    "game_positions",
    "labels",
    "no_rearrange",
    "positions",
    "profiles",
    "random_locked_position",
    "random_position",
    "random_table",
    "recorded",
    "recorded_positions",
    "variant_profile",
]
