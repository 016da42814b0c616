"""Adapter for the peer solver, the PyPI package ``rummikub-solver`` (``pip install -e ".[bench]"``).

Shared by ``solver_vs_peer.py`` and ``games_per_second.py``; not part of the package.

The peer's API (rummikub-solver 1.0.0, read from its source):

- ``RuleSet(numbers=13, repeats=2, colours=4, jokers=2, min_len=3, min_initial_value=30,
  solver_backend=MILPSolver.HIGHS)`` builds the set catalogue and three cvxpy problems
  (tile count, total value, initial meld) once; ``MILPSolver.HIGHS`` needs ``highspy``.
- ``state = ruleset.new_game()``; ``state.add_table(*tiles)``, ``state.add_rack(*tiles)``;
  ``state.initial = False`` once the player has opened.
- ``ruleset.solve(state)`` returns ``None`` (no play) or ``ProposedSolution(tiles, sets,
  free_jokers)``: ``tiles`` are the rack tiles to place and ``sets`` the whole new table
  (table plus placed tiles) as tuples of tiles. In the initial mode with tiles on the
  table it solves a second stage that also uses the table (the opening touches the table).
- Tiles are ints: ``1..numbers*colours`` colour-major in the order of the peer's ``Colour``
  enum (BLACK, BLUE, ORANGE, RED, ...), value ``(t - 1) % numbers + 1``, and the joker is
  ``numbers * colours + 1`` (53). rummisim's codes are ``colour * values + value - 1`` with
  colours K R O B (black, red, orange, blue) and the joker 52, so red and blue swap places.

Its model (what it can and cannot play): table jokers move freely, no wrap. Its candidate
sets are runs of 3..5 tiles and groups of 3..4 (longer runs are several sets). A 3-tile set
may hold any number of jokers (``R5 J J`` too, which rummisim's rules allow since a set
needs one numbered tile; ``J J J``, which they reject); a 4-tile group holds no joker and a
4- or 5-tile run holds jokers only inside (the "redundant joker" sets are left out). The
initial mode maximises *numbered* tiles placed (jokers only if needed), and its pre-check
sums the rack's *distinct* values (``Counter({t.value for t in ...})``), so a rack like
``K10 R10 O10`` is refused outright.

Quirks found while writing the benchmarks: the HiGHS backend prints a two-line banner on
stdout at its first solve; and ``ruleset.solve`` calls cvxpy's ``Problem.solve`` with the
default ``warm_start=True``, so HiGHS starts from the previous call's solution and can
return a worse play that it reports as optimal; the answer then depends on what was solved
before (``Peer.cold_tiles`` re-solves without the warm start to show it).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from itertools import product

from rummisim.melds import Meld, assign_jokers, extension_faces
from rummisim.profile import RuleProfile

# The peer's Colour enum member name for each rummisim colour letter.
PEER_COLOUR = {"K": "BLACK", "R": "RED", "O": "ORANGE", "B": "BLUE"}


class PeerUnavailable(RuntimeError):
    """The peer package (or its HiGHS backend) is not installed."""


def peer_version() -> str:
    from importlib.metadata import version

    return version("rummikub-solver")


@dataclass(frozen=True)
class PeerResult:
    """The peer's answer in rummisim codes: ``played`` rack tiles and ``sets`` (the new table)."""

    played: tuple[int, ...]
    sets: tuple[tuple[int, ...], ...]
    free_jokers: int
    seconds: float

    @property
    def tiles_placed(self) -> int:
        return len(self.played)


class Peer:
    """One peer ``RuleSet`` for a rummisim profile, with tile mapping both ways."""

    def __init__(self, profile: RuleProfile, backend: str = "HIGHS"):
        try:
            from rummikub_solver import Colour, MILPSolver, Number, RuleSet
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise PeerUnavailable('the peer solver is not installed: pip install -e ".[bench]"') from exc
        check_shared_model(profile)
        solver = MILPSolver(backend)
        if solver not in MILPSolver.supported():
            raise PeerUnavailable(f"the peer's {backend} backend is not installed (pip install highspy)")
        ts = profile.tileset
        self.profile = profile
        self.ruleset = RuleSet(
            numbers=ts.values,
            repeats=ts.copies,
            colours=ts.colours,
            jokers=ts.jokers,
            min_len=profile.runs.min_length,
            min_initial_value=profile.initial_meld.threshold,
            solver_backend=solver,
        )
        self.backend = str(self.ruleset.backend)
        self.to_peer: dict[int, int] = {}
        self.to_ours: dict[int, int] = {}
        for tile in self.ruleset.tiles:
            if isinstance(tile, Number):
                letter = next(k for k, v in PEER_COLOUR.items() if Colour[v] is tile.colour)
                ours = ts.parse_tile(f"{letter}{tile.value}")
            else:
                ours = ts.joker
            self.to_peer[ours] = int(tile)
            self.to_ours[int(tile)] = ours

    def state(self, table_tiles, rack, *, initial: bool):
        state = self.ruleset.new_game()
        state.add_table(*(self.to_peer[t] for t in table_tiles))
        state.add_rack(*(self.to_peer[t] for t in rack))
        state.initial = initial
        return state

    def solve(self, table_tiles, rack, *, initial: bool) -> PeerResult:
        """The peer's best play. For an initial meld give it no table tiles when the
        profile's opening may not touch the table (else it also plays onto the table)."""
        state = self.state(table_tiles, rack, initial=initial)
        start = time.perf_counter()
        proposal = self.ruleset.solve(state)
        seconds = time.perf_counter() - start
        if proposal is None:
            return PeerResult((), (), 0, seconds)
        return PeerResult(
            tuple(self.to_ours[int(t)] for t in proposal.tiles),
            tuple(tuple(self.to_ours[int(t)] for t in s) for s in proposal.sets),
            proposal.free_jokers,
            seconds,
        )

    def covers(self, tiles) -> bool:
        """True if the peer's candidate sets can hold exactly these tiles (every joker
        included): its own tile-count program with an empty rack, solved cold. (Its
        ``arrange_table`` stops at the first joker count that works, so it cannot say.)"""
        from rummikub_solver import SolverMode

        tiles = list(tiles)
        if not tiles:
            return True
        state = self.state(tiles, (), initial=False)
        placed = self._solve_cold(SolverMode.TILE_COUNT, state)
        return placed is not None

    def cold_tiles(self, table_tiles, rack, *, initial: bool) -> tuple[int, int]:
        """(tiles, numbered tiles) the peer's own program places when cvxpy does not
        warm-start HiGHS from the previous call's solution (the peer always solves with the
        default warm start, which can end on a worse answer reported as optimal)."""
        from rummikub_solver import SolverMode

        state = self.state(table_tiles, rack, initial=initial)
        mode = SolverMode.INITIAL if initial else SolverMode.TILE_COUNT
        return self._solve_cold(mode, state) or (0, 0)

    def _solve_cold(self, mode, state) -> tuple[int, int] | None:
        """Solve one of the peer's cvxpy problems with ``warm_start=False``: (tiles,
        numbered tiles) placed, or None if infeasible."""
        import numpy as np

        solver = self.ruleset._solver  # the peer's RummikubSolver: cvxpy parameters and problems
        solver.rack.value = state.rack_array
        solver.table.value = np.zeros_like(state.table_array) if state.initial else state.table_array
        value = solver._problems[mode].solve(solver=solver.backend, warm_start=False)
        if value is None or not np.isfinite(value):
            return None
        placed = np.rint(solver.tiles.value).astype(int)
        jokers = int(placed[self.to_peer[self.profile.tileset.joker] - 1]) if self.profile.tiles.jokers else 0
        return int(placed.sum()), int(placed.sum()) - jokers

    def initial_precheck(self, rack) -> tuple[int, int]:
        """(sum the peer's initial pre-check sees, the same sum without collapsing
        repeated values); the peer refuses to open when the first is below the threshold."""
        state = self.state((), rack, initial=True)
        collapsed = self.ruleset._state_ideal_number_counts(state)  # values, repeats collapsed
        ts = self.profile.tileset
        full = sum(ts.value_of(t) for t in rack if t != ts.joker)
        full += ts.values * sum(1 for t in rack if t == ts.joker)  # the peer's joker: a top tile
        return sum(collapsed.elements()), full


def check_shared_model(profile: RuleProfile) -> None:
    """The peer models one family of rules; refuse a profile outside it."""
    problems = []
    if profile.wrap:
        problems.append("runs.wrap must be none")
    if profile.groups.min_size != profile.runs.min_length:
        problems.append("groups.min_size must equal runs.min_length")
    if profile.groups.max_size != profile.tiles.colors:
        problems.append("groups.max_size must equal the number of colours")
    if profile.initial_meld.sets != "any" or profile.initial_meld.joker_value != "represented":
        problems.append("initial_meld must be sets: any, joker_value: represented")
    if profile.tiles.colors > 4:
        problems.append("at most 4 colours (the adapter maps K R O B)")
    if problems:
        raise PeerUnavailable(f"profile {profile.name!r} is outside the peer's model: {'; '.join(problems)}")


def numbered_count(tiles, profile: RuleProfile) -> int:
    return sum(1 for t in tiles if t != profile.tileset.joker)


def to_meld(tiles, profile: RuleProfile, prefer_faces=()) -> Meld | None:
    """A peer set as a rummisim ``Meld`` (None if rummisim's rules reject it). A joker keeps
    one of ``prefer_faces`` (its face on the old table) when the set allows it."""
    ts = profile.tileset
    numbered = sorted(t for t in tiles if t != ts.joker)
    jokers = len(tiles) - len(numbered)
    written = tuple(numbered) + (ts.joker,) * jokers
    slots = range(len(numbered), len(written))
    for faces in product(sorted(set(prefer_faces)), repeat=jokers) if jokers and prefer_faces else ():
        meld = assign_jokers(written, profile, dict(zip(slots, faces, strict=True)))
        if meld is not None and all(f in meld.faces for f in faces):
            return meld
    return assign_jokers(written, profile)


def peer_table(result: PeerResult, old_table, profile: RuleProfile, *, initial: bool):
    """The new table of a peer play as rummisim melds.

    Returns ``(table, played, loose)``. Sets that rummisim rejects (``J J J``) and jokers
    the peer left unplaced are taken apart and their tiles attached one by one to the ends
    of runs and to groups; rack tiles that still fit nowhere are not played (``loose``);
    ``table`` is None if a table tile cannot be placed. An initial meld keeps the old
    table as it is and adds the new sets.
    """
    ts = profile.tileset
    old_faces = [f for m in old_table for t, f in zip(m.tiles, m.faces, strict=True) if t == ts.joker]
    melds: list[Meld] = []
    leftovers: list[int] = [ts.joker] * result.free_jokers
    for s in result.sets:
        meld = to_meld(s, profile, old_faces)
        if meld is None:
            leftovers.extend(s)
        else:
            melds.append(meld)
    placed_from_rack = Counter(result.played)
    if not leftovers:
        table = (tuple(old_table) if initial else ()) + tuple(melds)
        return table, tuple(result.played), ()
    # numbered tiles first: a joker attaches anywhere, so it goes last
    leftovers.sort(key=lambda t: t == ts.joker)
    loose: list[int] = []
    for tile in leftovers:
        if not _attach(melds, tile, profile):
            loose.append(tile)
    rack_only = Counter(loose)
    if any(rack_only[t] > placed_from_rack[t] for t in rack_only):
        return None, (), tuple(loose)  # a table tile found no home
    played = list(result.played)
    for t in loose:
        played.remove(t)
    table = (tuple(old_table) if initial else ()) + tuple(melds)
    return table, tuple(played), tuple(loose)


def _attach(melds: list[Meld], tile: int, profile: RuleProfile) -> bool:
    ts = profile.tileset
    for i, meld in enumerate(melds):
        if tile == ts.joker or tile in extension_faces(meld, profile):
            grown = assign_jokers((*meld.tiles, tile), profile, _pins(meld, ts))
        else:
            continue
        if grown is not None:
            melds[i] = grown
            return True
    return False


def _pins(meld: Meld, ts) -> dict[int, int]:
    return {i: f for i, (t, f) in enumerate(zip(meld.tiles, meld.faces, strict=True)) if t == ts.joker}
