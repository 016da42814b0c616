"""Set validity: what a run or a group is, and the ``Meld`` that holds a valid set.

A ``Meld`` pairs the physical tiles of a set with the numbered tile each
position stands for (``faces``): a joker's face is the tile it represents, a
numbered tile's face is itself. Melds are normalised by ``make_meld`` (runs in
run order, groups in colour order) so equal sets compare and hash equal.

Rules decided here (RULES.md "open questions"):

- A run holds each value at most once; with ``runs.wrap: high_low`` the 1 may
  follow the top value (12-13-1) but a run never passes through it (13-1-2).
- A group holds distinct colours, at most ``groups.max_size`` tiles.
- Every joker stands for one definite tile, declared by the player (``J(R8)``);
  a set holds at least one numbered tile and at most ``jokers.max_per_set``
  jokers, so ``R7 J J`` is a set (a run or a group, as its faces say) under the
  default of two (RULES.md "open questions").

Finding faces for jokers is ``rummisim.rules.jokers``; notation for whole tables,
rack values and the set catalogue are ``rummisim.melds``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rummisim.geometry import RunGeometry, run_geometry
from rummisim.profile import RuleProfile
from rummisim.tiles import TileSet

MIN_NUMBERED_TILES = 1  # a set of jokers alone stands for nothing in particular


def max_jokers_in_set(profile: RuleProfile, size: int) -> int:
    """Most jokers a set of ``size`` tiles may hold under the profile."""
    return max(0, min(profile.jokers.max_per_set, size - MIN_NUMBERED_TILES))


@dataclass(frozen=True, slots=True)
class Meld:
    """A set on the table: physical tiles and the numbered tile each one stands for."""

    tiles: tuple[int, ...]
    faces: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.tiles)

    def joker_count(self, joker: int) -> int:
        return self.tiles.count(joker)


# ----- shape of a sequence of faces ----------------------------------------------------


def _run_positions(faces: tuple[int, ...], ts: TileSet, wrap: bool) -> list[int] | None:
    """Positions (1..values, or values+1 for a high 1) of a same-colour run, sorted; None if
    the faces cannot be one run (``geometry.RunGeometry.positions``)."""
    return RunGeometry(ts, wrap).positions(faces)


def face_kind(faces: tuple[int, ...], profile: RuleProfile) -> str | None:
    """'run', 'group' or None for a multiset of faces (order does not matter)."""
    shape = _face_shape(tuple(faces), profile)
    return None if shape is None else shape[0]


@lru_cache(maxsize=1 << 16)
def _face_shape(faces: tuple[int, ...], profile: RuleProfile) -> tuple[str, tuple[int, ...]] | None:
    """(kind, the order of the faces' indices that normalises the set: groups in colour order,
    runs in run order) of a tuple of faces, or None when they form no set; remembered (the
    same faces come back position after position, turn after turn)."""
    ts = profile.tileset
    n = len(faces)
    if n == 0 or any(not 0 <= f < ts.joker for f in faces):
        return None
    value = ts.value_of(faces[0])
    if all(ts.value_of(f) == value for f in faces):
        colours = [ts.colour_of(f) for f in faces]
        if len(set(colours)) == n and profile.groups.min_size <= n <= profile.groups.max_size:
            return "group", tuple(sorted(range(n), key=colours.__getitem__))
        return None
    if not profile.runs.min_length <= n <= ts.values:
        return None
    positions = _run_positions(faces, ts, profile.wrap)
    if not positions:
        return None
    high_one = positions[-1] == ts.values + 1
    at = [ts.value_of(f) + (ts.values if high_one and ts.value_of(f) == 1 else 0) for f in faces]
    return "run", tuple(sorted(range(n), key=at.__getitem__))


def make_meld(tiles, faces, profile: RuleProfile) -> Meld:
    """Build a normalised ``Meld`` (raises ``ValueError`` if it is not a valid set)."""
    tiles, faces = tuple(int(t) for t in tiles), tuple(int(f) for f in faces)
    shape = _valid_shape(tiles, faces, profile)
    if shape is None:
        ts = profile.tileset
        raise ValueError(f"not a valid set: {format_meld_parts(tiles, faces, ts)}")
    order = shape[1]
    return Meld(tuple(tiles[i] for i in order), tuple(faces[i] for i in order))


def is_valid_meld_parts(tiles: tuple[int, ...], faces: tuple[int, ...], profile: RuleProfile) -> bool:
    return _valid_shape(tiles, faces, profile) is not None


def _valid_shape(tiles, faces, profile: RuleProfile) -> tuple[str, tuple[int, ...]] | None:
    """The faces' shape (``_face_shape``) when the tiles match their faces and form a valid set
    (a numbered tile, at most ``jokers.max_per_set`` jokers), else None."""
    ts = profile.tileset
    if len(tiles) != len(faces):
        return None
    numbered = 0
    for tile, face in zip(tiles, faces, strict=True):
        if tile == ts.joker:
            continue
        if tile != face:
            return None
        numbered += 1
    if numbered < MIN_NUMBERED_TILES or len(tiles) - numbered > profile.jokers.max_per_set:
        return None
    return _face_shape(tuple(faces), profile)


def is_valid_meld(meld: Meld, profile: RuleProfile) -> bool:
    """True if the meld's tiles match its faces and the faces form a run or group."""
    return _is_valid_meld_cached(meld, profile)


@lru_cache(maxsize=200_000)
def _is_valid_meld_cached(meld: Meld, profile: RuleProfile) -> bool:
    return is_valid_meld_parts(meld.tiles, meld.faces, profile)


@lru_cache(maxsize=100_000)
def extension_faces(meld: Meld, profile: RuleProfile) -> tuple[int, ...]:
    """Faces that could be added to ``meld`` as one more tile without breaking it
    (the missing colours of a group, the tiles just below and above a run)."""
    ts = profile.tileset
    faces = meld.faces
    kind = face_kind(faces, profile)
    if len(faces) >= (profile.groups.max_size if kind == "group" else ts.values):
        return ()
    if kind == "group":
        value = ts.value_of(faces[0])
        present = {ts.colour_of(f) for f in faces}
        return tuple(ts.code(c, value) for c in range(ts.colours) if c not in present)
    geo = run_geometry(profile)
    positions = geo.positions(faces)
    assert positions is not None  # a valid set that is not a group is a run
    colour = ts.colour_of(faces[0])
    lo, hi = positions[0], positions[-1]
    out = []
    if geo.allowed(lo - 1, hi):
        out.append(geo.code_at(colour, lo - 1))
    if geo.allowed(lo, hi + 1):
        out.append(geo.code_at(colour, hi + 1))
    return tuple(dict.fromkeys(out))


# ----- notation and value of one set ----------------------------------------------------


def format_meld_parts(tiles, faces, ts: TileSet) -> str:
    out = []
    for tile, face in zip(tiles, faces, strict=False):
        out.append(f"J({ts.format_tile(face)})" if tile == ts.joker else ts.format_tile(tile))
    return " ".join(out)


def format_meld(meld: Meld, ts: TileSet) -> str:
    return format_meld_parts(meld.tiles, meld.faces, ts)


def meld_opening_value(meld: Meld, profile: RuleProfile) -> int:
    """The meld's worth toward the initial meld, with the profile's joker valuation."""
    ts = profile.tileset
    return sum(
        profile.joker_opening_value(ts.value_of(f)) if t == ts.joker else ts.value_of(f)
        for t, f in zip(meld.tiles, meld.faces, strict=True)
    )


def table_tiles(table) -> list[int]:
    return [t for meld in table for t in meld.tiles]
