"""An opening's cores whose rest of the rack finds nothing, searched in one compiled call (after
0.3.23).

``dp._cored_opening`` searches the rest of the rack beside each opening core above the best opening
found so far, and most of those searches find nothing: ``polish-40`` holding #217 searches 74
cores, most in under 600 states, where the Python around each pass cost more than the pass. Where
the rest's search is one plain pass (the table rearranged, no locked joker on it, no wrap:
``CoreRows.applies``), ``CoreRows.refuted`` runs those passes core after core in one call
(``listing.refute_pools``), each as ``dp._best_play_read`` would run it: read from the top down
where ``reading.rack_first`` says so, the floors of the whole rest first and then the one that beats
the best opening (``passes._bounds``, here ``_ladders``). It stops before the first core that
finds a play, passes a limit or needs other tables; the caller's own path takes that core
(uncharged here). So the passes, floors and states are those of the cores one by one, and so are
the answers. Pure; no I/O.
"""

from __future__ import annotations

import numpy as np

from rummisim.melds import Meld
from rummisim.profile import RuleProfile
from rummisim.solver.budget import Meter
from rummisim.solver.common import FROM_THE_TOP, TILE_WEIGHT, tile_gains
from rummisim.solver.common import gain as item_gain
from rummisim.solver.listing import BATCH, refute_pools
from rummisim.solver.opening import Cores
from rummisim.solver.passes import SLACK_TILES, _face_values, _position_gains
from rummisim.solver.reading import _values, above, flip_codes, may_read_down, table_values


class CoreRows:
    """The pools of each core's rest of the rack (``rack`` less the core) on ``base``, read as its
    search reads them: ``tables``, ``racks`` (counts by code, per core), ``sides`` (1 where read
    from the top down), ``gains`` (each core's own score)."""

    def __init__(
        self, rack: tuple[int, ...], base: tuple[Meld, ...], profile: RuleProfile, objective: str,
        cores: Cores, meter: Meter,
    ):  # fmt: skip
        ts = profile.tileset
        n, joker = ts.n_codes, ts.joker
        self.profile, self.objectives = profile, (objective, FROM_THE_TOP[objective])
        self.position = (rack, base, objective, cores)  # (for the tests, which search core by core)
        codes = np.array([t for s in cores.sets for t in s.tiles], dtype=np.int64)
        owner = np.repeat(np.arange(len(cores.sets)), [len(s.tiles) for s in cores.sets])
        in_sets = np.zeros((len(cores.sets), n), dtype=np.int64)
        np.add.at(in_sets, (owner, codes), 1)
        starts = np.r_[0, cores.ends[:-1]]
        taken = np.add.reduceat(in_sets[cores.flat], starts) if len(cores) else np.zeros((0, n), np.int64)
        rest = np.bincount(np.asarray(rack, dtype=np.int64), minlength=n)[None, :] - taken
        self.gains = taken @ np.array(tile_gains(profile, objective), dtype=np.int64)
        self.sizes = rest.sum(axis=1)
        table = np.bincount(np.array([t for m in base for t in m.tiles], dtype=np.int64), minlength=n)
        values = np.array(_values(profile), dtype=np.int64)
        down = np.zeros(len(cores), dtype=bool)
        if may_read_down(profile, meter.options):  # (as ``reading.rack_first`` decides, core by core)
            down = above(rest @ values, rest[:, :joker].sum(axis=1), *table_values(base, profile))
        flip = np.array(flip_codes(profile), dtype=np.int64)
        self.tables = np.where(down[:, None], table[flip][None, :], table[None, :])
        self.racks = np.where(down[:, None], rest[:, flip], rest)
        self.sides = down.astype(np.int64)

    @staticmethod
    def applies(profile: RuleProfile, base: tuple[Meld, ...]) -> bool:
        """Whether the rest's search on ``base`` is one plain pass (``jokers._solve_rack``): the
        table rearranged, no locked joker on it, no wrap (whose passes go round the splits)."""
        joker = profile.tileset.joker
        locked = profile.jokers.table_jokers != "free" and any(joker in m.tiles for m in base)
        return profile.turn.rearrange and not profile.wrap and not locked

    def refuted(self, order: list[int] | range, at: int, best: int, meter: Meter) -> int:
        """How many of the cores ``order[at:]`` (up to ``BATCH``), from the first on, find no
        opening above ``best`` (their rests' passes, charged to ``meter``); it stops before a core
        whose rest is empty (the caller scores that core alone)."""
        rows = np.array(order[at : at + BATCH], dtype=np.int64)
        empty = np.flatnonzero(self.sizes[rows] == 0)
        rows = rows[: empty[0]] if empty.shape[0] else rows
        if not rows.shape[0]:
            return 0
        racks, sides = self.racks[rows], self.sides[rows]
        joker = self.profile.tileset.joker
        floors = np.zeros((rows.shape[0], len(SLACK_TILES) + 1), dtype=np.int64)
        counts = np.zeros(rows.shape[0], dtype=np.int64)
        for side, objective in enumerate(self.objectives):
            mine = np.flatnonzero(sides == side)
            jokers_gain = item_gain(self.profile.jokers.penalty, objective)
            needs = best + 1 - self.gains[rows[mine]] - racks[mine, joker] * jokers_gain
            floors[mine], counts[mine] = _ladders(racks[mine, :joker], needs, self.profile, objective)
        gains = (
            _position_gains(self.profile, self.objectives[0]),
            _position_gains(self.profile, self.objectives[1]),
        )
        tables = self.tables[rows]
        no_caps = np.iinfo(np.int64).max // 2
        done, _ = refute_pools(
            self.profile, meter, (tables, racks), floors, counts, sides, gains, (no_caps, no_caps),
            np.zeros(rows.shape[0], dtype=np.int64),
        )  # fmt: skip
        return done


def _ladders(rack_numbered: np.ndarray, needs: np.ndarray, profile: RuleProfile, objective: str):
    """Per rack (a row of numbered counts by code) and floor ``needs``: the floors its search runs
    in turn (``passes._bounds`` of the rack above the floor, highest first, then the floor), padded,
    and how many they are."""
    out = np.zeros((rack_numbered.shape[0], len(SLACK_TILES) + 1), dtype=np.int64)
    if objective.startswith("tiles"):
        n = rack_numbered.sum(axis=1)
        ladder = TILE_WEIGHT * (n[:, None] - np.array(SLACK_TILES)[None, :])
        ladder[np.array(SLACK_TILES)[None, :] >= n[:, None]] = np.iinfo(np.int64).min
    else:
        ladder = TILE_WEIGHT * (rack_numbered @ _face_values(profile, objective))[:, None]
    keep = ladder > needs[:, None]
    counts = keep.sum(axis=1)
    for j in range(ladder.shape[1]):  # (each ladder falls: those kept come first)
        out[keep[:, j], j] = ladder[keep[:, j], j]
    out[np.arange(out.shape[0]), counts] = needs
    return out, counts + 1
