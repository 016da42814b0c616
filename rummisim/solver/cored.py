"""An opening's cores whose rest of the rack finds nothing, searched in one compiled call (after
0.3.23).

``dp._cored_opening`` searches the rest of the rack beside each opening core above the best opening
found so far, and most of those searches find nothing: ``polish-40`` holding #217 searches 74
cores, most in under 600 states, where the Python around each pass cost more than the pass. Where
the rest's search is one plain pass (the table rearranged, no locked joker on it, no wrap:
``CoreRows.applies``), ``CoreRows.refuted`` runs those passes core after core in one call
(``listing.refute_rows``), each as ``dp._best_play_read`` would run it: read from the top down
where ``reading.rack_first`` says so, the floors of the whole rest first and then the one that beats
the best opening (``floors.score_floors``). It stops before the first core that finds a play, passes a
limit or needs other tables; the caller's own path takes that core (uncharged here). So the passes,
floors and states are those of the cores one by one, and so are the answers. Pure; no I/O.
"""

from __future__ import annotations

import numpy as np

from rummisim.melds import Meld
from rummisim.profile import RuleProfile
from rummisim.solver.budget import Meter
from rummisim.solver.common import tile_gains
from rummisim.solver.listing import BATCH, Rows, batched, refute_rows
from rummisim.solver.opening import Cores, padded
from rummisim.solver.passes import _tile_counts
from rummisim.solver.reading import _values, above, flip_codes, may_read_down, table_values


class CoreRows:
    """The rests of the cores of ``rack`` on ``base`` as ``listing.refute_rows`` takes them: each
    side's pools (the table and the rack as read, ``reading``), less a core's sets (``rows``: the
    indices of its sets, counted on the side it is read from, padded with a set that takes
    nothing); per core its side (``sides``: 1 where read from the top down) and rest (``sizes``:
    tiles)."""

    def __init__(
        self, rack: tuple[int, ...], base: tuple[Meld, ...], profile: RuleProfile, objective: str,
        cores: Cores, meter: Meter,
    ):  # fmt: skip
        ts = profile.tileset
        n, joker = ts.n_codes, ts.joker
        self.profile, self.objective = profile, objective
        self.position = (rack, base, objective, cores)  # (for the tests, which search core by core)
        n_sets = len(cores.sets)
        owner, at = np.nonzero(cores.codes >= 0)
        in_sets = np.zeros((2 * n_sets + 1, n), dtype=np.int64)  # (each set read either way; none)
        np.add.at(in_sets, (owner, cores.codes[owner, at]), 1)
        flip = np.array(flip_codes(profile), dtype=np.int64)
        in_sets[n_sets : 2 * n_sets] = in_sets[:n_sets, flip]
        gains = in_sets[:n_sets] @ np.array(tile_gains(profile, objective), dtype=np.int64)
        table, counts = _tile_counts(rack, base, ts)
        rows = padded(cores.flat, np.diff(cores.ends, prepend=0), 2 * n_sets)
        taken = in_sets[rows].sum(axis=1)
        self.sizes = counts.sum() - taken.sum(axis=1)
        down = np.zeros(len(cores), dtype=bool)
        if may_read_down(profile, meter.options):  # (as ``reading.rack_first`` decides, core by core)
            values = np.array(_values(profile), dtype=np.int64)
            rest = counts[None, :] - taken
            down = above(rest @ values, rest[:, :joker].sum(axis=1), *table_values(base, profile))
        self.sides = down.astype(np.int64)
        self.rows = np.where(down[:, None] & (rows < n_sets), rows + n_sets, rows)
        # (the read sets' score is the set's: either reading scores a play the same)
        set_gain = np.r_[gains, gains, 0]
        pools = np.stack([table, table[flip]]), np.stack([counts, counts[flip]])
        self.made = Rows(*pools, np.zeros_like(in_sets), in_sets, set_gain)

    @staticmethod
    def applies(profile: RuleProfile, base: tuple[Meld, ...]) -> bool:
        """Whether the rest's search on ``base`` is one plain pass (``jokers._solve_rack``): the
        table rearranged, no locked joker on it, no wrap (whose passes go round the splits)."""
        joker = profile.tileset.joker
        locked = profile.jokers.table_jokers != "free" and any(joker in m.tiles for m in base)
        return profile.turn.rearrange and batched(profile, ()) and not locked

    def refuted(self, order: list[int] | range, at: int, best: int, meter: Meter) -> int:
        """How many of the cores ``order[at:]`` (up to ``BATCH``), from the first on, find no
        opening above ``best`` (their rests' passes, charged to ``meter``); it stops before a core
        whose rest is empty (the caller scores that core alone)."""
        cs = np.array(order[at : at + BATCH], dtype=np.int64)
        empty = np.flatnonzero(self.sizes[cs] == 0)
        cs = cs[: empty[0]] if empty.shape[0] else cs
        if not cs.shape[0]:
            return 0
        no_caps = np.iinfo(np.int64).max // 2
        done, _ = refute_rows(
            self.profile, self.objective, meter, self.made, self.rows[cs], self.sides[cs], best + 1, True,
            (no_caps, no_caps), np.zeros(cs.shape[0], dtype=np.int64),
        )  # fmt: skip
        return done
