"""Run geometry: where a run of one colour may lie. The one place that knows ``runs.wrap``.

Positions ``1..V`` are the values ``1..V`` (``V = tiles.values``). With ``runs.wrap:
high_low`` position ``V + 1`` is the high 1, the 1 after the top value (``12 13 1``). A run
covers consecutive positions, holds at most ``V`` tiles and never both 1s: ``13 1 2`` is no
run, nor ``1 2 ... 13 1``. Every module that walks runs position by position (the sets,
the move search's dynamic program, its decoding, the integer program, the single-set
openings) asks this module instead of re-deriving the wrap. Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from rummisim.tiles import TileSet

if TYPE_CHECKING:
    from rummisim.profile import RuleProfile


@dataclass(frozen=True)
class RunGeometry:
    """The run positions of one tile set under one wrap rule."""

    tileset: TileSet
    wrap: bool

    @property
    def top(self) -> int:
        """The highest position: ``V``, or ``V + 1`` (the high 1) with wrap."""
        return self.tileset.values + (1 if self.wrap else 0)

    def value_at(self, position: int) -> int:
        """The value at a position (the high 1 is a 1)."""
        return (position - 1) % self.tileset.values + 1

    def code_at(self, colour: int, position: int) -> int:
        """The tile code of a colour at a position."""
        return self.tileset.code(colour, self.value_at(position))

    def codes(self, colour: int) -> tuple[int, ...]:
        """Codes of a colour indexed by position (index 0 unused, 0), ``1..top`` (cached)."""
        return _codes(self, colour)

    def allowed(self, lo: int, hi: int) -> bool:
        """Whether positions ``lo..hi`` may hold one run (any length up to ``V``)."""
        return (
            1 <= lo <= hi <= self.top
            and hi - lo + 1 <= self.tileset.values
            and not (lo == 1 and hi == self.tileset.values + 1)
        )

    def positions(self, faces) -> list[int] | None:
        """Positions of a same-colour run's faces, ascending; None if they cannot be one run
        (mixed colours, a value twice, a gap, or both 1s)."""
        ts = self.tileset
        colour = ts.colour_of(faces[0])
        if any(ts.colour_of(f) != colour for f in faces):
            return None
        values = sorted(ts.value_of(f) for f in faces)
        if len(set(values)) != len(values):
            return None
        n = len(values)
        if values[-1] - values[0] == n - 1:
            return values
        if self.wrap and values[0] == 1:
            high = values[1:] + [ts.values + 1]
            if high[-1] - high[0] == n - 1:
                return high
        return None


@lru_cache(maxsize=256)
def _codes(geo: RunGeometry, colour: int) -> tuple[int, ...]:
    """``RunGeometry.codes``, once per geometry and colour."""
    return (0, *(geo.code_at(colour, p) for p in range(1, geo.top + 1)))


@lru_cache(maxsize=64)
def run_geometry(profile: RuleProfile) -> RunGeometry:
    """The run geometry of a profile (cached)."""
    return RunGeometry(profile.tileset, profile.wrap)
