"""Sets on a table: notation, values, and the catalogue of candidate sets per profile.

``parse_meld``/``parse_table`` read ``"R5 R6 J | K5 O5 J(B5)"`` (jokers get faces
from ``rummisim.rules.jokers.assign_jokers``), ``format_table`` writes it;
``rack_penalty`` is what a rack costs at the end of a round; ``set_catalogue`` lists
every run window and group of a profile for the move search.

What a set is (the ``Meld`` type, ``make_meld``, ``is_valid_meld``, runs, groups and
the joker limits) is the rules layer, ``rummisim.rules.sets``; those names are
re-exported here, as older code imports them from this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from rummisim.geometry import run_geometry
from rummisim.profile import RuleProfile
from rummisim.rules.jokers import assign_jokers
from rummisim.rules.sets import (
    MIN_NUMBERED_TILES,
    Meld,
    _run_positions,
    extension_faces,
    face_kind,
    format_meld,
    format_meld_parts,
    is_valid_meld,
    is_valid_meld_parts,
    make_meld,
    max_jokers_in_set,
    meld_opening_value,
    table_tiles,
)
from rummisim.tiles import TileError, TileSet, parse_tiles, split_joker_token

# ----- notation for sets and tables ------------------------------------------------------


def is_valid_set(tiles, profile: RuleProfile) -> bool:
    """True if the tiles (codes, or text such as ``"R12 R13 J"``) can form one valid run
    or group, with every joker standing for a definite tile."""
    if isinstance(tiles, str):
        tiles = parse_tiles(tiles, profile.tileset)
    return assign_jokers(tiles, profile) is not None


EMPTY_TABLE = "(empty)"


def format_table(table, ts: TileSet) -> str:
    """Sets separated by `` | ``; jokers shown with the tile they stand for."""
    return " | ".join(format_meld(m, ts) for m in table) if table else EMPTY_TABLE


def parse_meld(text: str, profile: RuleProfile) -> Meld:
    """Parse one set (``"R5 R6 J"`` or ``"K5 O5 J(B5)"``); raise ``TileError`` if invalid."""
    ts = profile.tileset
    tiles: list[int] = []
    pinned: dict[int, int] = {}
    for token in text.split():
        joker = split_joker_token(token, ts)
        if joker is not None:
            if joker[1] is not None:
                pinned[len(tiles)] = joker[1]
            tiles.append(joker[0])
        else:
            tiles.append(ts.parse_tile(token))
    if not tiles:
        raise TileError("empty set in table (two '|' in a row?)")
    meld = assign_jokers(tiles, profile, pinned)
    if meld is None or any(meld_face not in meld.faces for meld_face in pinned.values()):
        raise TileError(f"not a valid set under profile {profile.name!r}: {text.strip()!r}")
    return meld


def parse_table(text: str, profile: RuleProfile) -> tuple[Meld, ...]:
    """Parse ``"R1 R2 R3 | K5 O5 B5"``; a blank string or ``(empty)`` (what
    ``format_table`` writes for it) is the empty table."""
    if not text.strip() or text.strip() == EMPTY_TABLE:
        return ()
    return tuple(parse_meld(part, profile) for part in text.split("|"))


# ----- values ----------------------------------------------------------------------------


def meld_face_value(meld: Meld, ts: TileSet) -> int:
    """Sum of the values the meld's tiles stand for."""
    return sum(ts.value_of(f) for f in meld.faces)


def tile_penalty(code: int, profile: RuleProfile) -> int:
    """Points one tile costs on a rack at the end of a round (a joker ``jokers.penalty``)."""
    ts = profile.tileset
    return profile.jokers.penalty if code == ts.joker else ts.value_of(code)


def rack_penalty(rack, profile: RuleProfile) -> int:
    """Points a rack is worth at the end of a round (jokers cost ``jokers.penalty``)."""
    return sum(tile_penalty(t, profile) for t in rack)


# ----- catalogue ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Catalogue:
    """Every run window and group of a profile as faces, with a count matrix.

    ``faces[i]`` is a tuple of numbered codes; ``matrix[i]`` its count vector over
    the numbered codes; ``kinds[i]`` 'run' or 'group'; ``minimal[i]`` marks the
    sets that cannot be split into two sets (runs shorter than twice the minimum
    length, every group): any table can be built from minimal sets, which is the
    basis a move search needs.
    """

    faces: tuple[tuple[int, ...], ...]
    kinds: tuple[str, ...]
    matrix: np.ndarray
    values: np.ndarray
    minimal: np.ndarray


@lru_cache(maxsize=64)
def set_catalogue(profile: RuleProfile) -> Catalogue:
    """The cached catalogue of candidate sets for a profile."""
    ts = profile.tileset
    faces: list[tuple[int, ...]] = []
    kinds: list[str] = []
    geo = run_geometry(profile)
    for colour in range(ts.colours):
        for length in range(profile.runs.min_length, ts.values + 1):
            for start in range(1, geo.top - length + 2):
                if not geo.allowed(start, start + length - 1):
                    continue
                faces.append(tuple(geo.code_at(colour, p) for p in range(start, start + length)))
                kinds.append("run")
    for value in range(1, ts.values + 1):
        for size in range(profile.groups.min_size, profile.groups.max_size + 1):
            for colours in combinations(range(ts.colours), size):
                faces.append(tuple(ts.code(c, value) for c in colours))
                kinds.append("group")
    matrix = np.zeros((len(faces), ts.joker), dtype=np.int8)
    for i, f in enumerate(faces):
        matrix[i, list(f)] = 1
    values = np.array([sum(ts.value_of(x) for x in f) for f in faces], dtype=np.int64)
    minimal = np.array(
        [k == "group" or len(f) < 2 * profile.runs.min_length for k, f in zip(kinds, faces, strict=True)]
    )
    for arr in (matrix, values, minimal):
        arr.setflags(write=False)
    return Catalogue(tuple(faces), tuple(kinds), matrix, values, minimal)


__all__ = [
    "EMPTY_TABLE",
    "MIN_NUMBERED_TILES",
    "Catalogue",
    "Meld",
    "_run_positions",
    "assign_jokers",
    "extension_faces",
    "face_kind",
    "format_meld",
    "format_meld_parts",
    "format_table",
    "is_valid_meld",
    "is_valid_meld_parts",
    "is_valid_set",
    "make_meld",
    "max_jokers_in_set",
    "meld_face_value",
    "meld_opening_value",
    "parse_meld",
    "parse_table",
    "rack_penalty",
    "set_catalogue",
    "table_tiles",
]
