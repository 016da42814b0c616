"""Sets ("melds"): validity of runs and groups, joker assignment, and the set catalogue.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from rummisim.profile import RuleProfile
from rummisim.tiles import TileError, TileSet, parse_tiles, split_joker_token

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
        return sum(1 for t in self.tiles if t == joker)


# ----- shape of a sequence of faces ----------------------------------------------------


def _run_positions(faces: tuple[int, ...], ts: TileSet, wrap: bool) -> list[int] | None:
    """Positions (1..values, or values+1 for a high 1) of a same-colour run, sorted; None if
    the faces cannot be one run."""
    colour = ts.colour_of(faces[0])
    if any(ts.colour_of(f) != colour for f in faces):
        return None
    values = sorted(ts.value_of(f) for f in faces)
    if len(set(values)) != len(values):
        return None
    n = len(values)
    if values[-1] - values[0] == n - 1:
        return values
    if wrap and values[0] == 1:
        high = values[1:] + [ts.values + 1]
        if high[-1] - high[0] == n - 1:
            return high
    return None


def face_kind(faces: tuple[int, ...], profile: RuleProfile) -> str | None:
    """'run', 'group' or None for a multiset of faces (order does not matter)."""
    ts = profile.tileset
    n = len(faces)
    if n == 0 or any(not 0 <= f < ts.joker for f in faces):
        return None
    value = ts.value_of(faces[0])
    if all(ts.value_of(f) == value for f in faces):
        colours = {ts.colour_of(f) for f in faces}
        if len(colours) == n and profile.groups.min_size <= n <= profile.groups.max_size:
            return "group"
        return None
    if profile.runs.min_length <= n <= ts.values and _run_positions(faces, ts, profile.wrap):
        return "run"
    return None


def _sort_key_factory(faces: tuple[int, ...], kind: str, ts: TileSet, wrap: bool):
    if kind == "group":
        return ts.colour_of
    positions = _run_positions(faces, ts, wrap)
    high_one = positions is not None and positions[-1] == ts.values + 1
    return lambda f: ts.value_of(f) + (ts.values if high_one and ts.value_of(f) == 1 else 0)


def make_meld(tiles, faces, profile: RuleProfile) -> Meld:
    """Build a normalised ``Meld`` (raises ``ValueError`` if it is not a valid set)."""
    tiles, faces = tuple(int(t) for t in tiles), tuple(int(f) for f in faces)
    if not is_valid_meld_parts(tiles, faces, profile):
        ts = profile.tileset
        raise ValueError(f"not a valid set: {format_meld_parts(tiles, faces, ts)}")
    kind = face_kind(faces, profile)
    key = _sort_key_factory(faces, kind, profile.tileset, profile.wrap)
    order = sorted(range(len(tiles)), key=lambda i: key(faces[i]))
    return Meld(tuple(tiles[i] for i in order), tuple(faces[i] for i in order))


def is_valid_meld_parts(tiles: tuple[int, ...], faces: tuple[int, ...], profile: RuleProfile) -> bool:
    ts = profile.tileset
    if len(tiles) != len(faces):
        return False
    numbered = 0
    for tile, face in zip(tiles, faces, strict=True):
        if tile == ts.joker:
            continue
        if tile != face:
            return False
        numbered += 1
    return (
        numbered >= MIN_NUMBERED_TILES
        and len(tiles) - numbered <= profile.jokers.max_per_set
        and face_kind(faces, profile) is not None
    )


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
    positions = _run_positions(faces, ts, profile.wrap)
    colour = ts.colour_of(faces[0])
    top = ts.values + (1 if profile.wrap else 0)
    out = []
    if positions[0] > 1 and not (positions[0] == 2 and positions[-1] == ts.values + 1):
        out.append(ts.code(colour, positions[0] - 1))
    if positions[-1] < top and not (positions[-1] + 1 == ts.values + 1 and positions[0] == 1):
        out.append(ts.code(colour, (positions[-1] % ts.values) + 1))
    return tuple(dict.fromkeys(out))


# ----- joker assignment ----------------------------------------------------------------


def assign_jokers(tiles, profile: RuleProfile, pinned: dict[int, int] | None = None) -> Meld | None:
    """Find faces for the jokers so that ``tiles`` form a valid set, or None.

    ``tiles`` is in written order; a run written with a joker at a given place
    (``"R5 R6 J"``) keeps that reading. ``pinned`` maps positions of jokers to
    declared faces (``J(R7)``). Otherwise groups give jokers the missing colours in
    colour order and runs take the highest-valued placement.
    """
    ts = profile.tileset
    tiles = tuple(int(t) for t in tiles)
    pinned = pinned or {}
    shape = [pinned.get(i, t) for i, t in enumerate(tiles)]  # declared jokers act as their face
    numbered = [t for t in tiles if t != ts.joker]
    if len(numbered) < MIN_NUMBERED_TILES or len(tiles) - len(numbered) > profile.jokers.max_per_set:
        return None
    fixed = [f for f in shape if f != ts.joker]
    free_slots = [i for i, f in enumerate(shape) if f == ts.joker]
    n = len(tiles)
    candidates: list[list[int]] = []
    value = ts.value_of(fixed[0])
    if all(ts.value_of(f) == value for f in fixed):
        missing = [ts.code(c, value) for c in range(ts.colours) if ts.code(c, value) not in fixed]
        if len(missing) >= len(free_slots):
            faces = list(shape)
            for slot, face in zip(free_slots, missing, strict=False):
                faces[slot] = face
            candidates.append(faces)
    colour = ts.colour_of(fixed[0])
    if all(ts.colour_of(f) == colour for f in fixed):
        top = ts.values + (1 if profile.wrap else 0)
        windows = []
        for start in range(1, top - n + 2):
            positions = list(range(start, start + n))
            if ts.values + 1 in positions and 1 in positions:
                continue
            windows.append(positions)
        written = _written_window(shape, ts, windows)
        for positions in ([written] if written else []) + sorted(windows, key=lambda p: -p[0]):
            faces = _fill_run(shape, positions, ts, colour)
            if faces is not None:
                candidates.append(faces)
                break
    for faces in candidates:
        if is_valid_meld_parts(tiles, tuple(faces), profile):
            return make_meld(tiles, faces, profile)
    return None


def _written_window(shape: list[int], ts: TileSet, windows: list[list[int]]) -> list[int] | None:
    for positions in windows:
        if all(
            f == ts.joker or ((p - 1) % ts.values) + 1 == ts.value_of(f)
            for f, p in zip(shape, positions, strict=True)
        ):
            return positions
    return None


def _fill_run(shape: list[int], positions: list[int], ts: TileSet, colour: int) -> list[int] | None:
    wanted = [ts.code(colour, ((p - 1) % ts.values) + 1) for p in positions]
    fixed = [f for f in shape if f != ts.joker]
    remaining = list(wanted)
    for f in fixed:
        if f not in remaining:
            return None
        remaining.remove(f)
    faces = list(shape)
    for i, f in enumerate(faces):
        if f == ts.joker:
            faces[i] = remaining.pop(0)
    return faces


def is_valid_set(tiles, profile: RuleProfile) -> bool:
    """True if the tiles (codes, or text such as ``"R12 R13 J"``) can form one valid run
    or group, with every joker standing for a definite tile."""
    if isinstance(tiles, str):
        tiles = parse_tiles(tiles, profile.tileset)
    return assign_jokers(tiles, profile) is not None


# ----- notation for sets and tables ------------------------------------------------------


def format_meld_parts(tiles, faces, ts: TileSet) -> str:
    out = []
    for tile, face in zip(tiles, faces, strict=False):
        out.append(f"J({ts.format_tile(face)})" if tile == ts.joker else ts.format_tile(tile))
    return " ".join(out)


def format_meld(meld: Meld, ts: TileSet) -> str:
    return format_meld_parts(meld.tiles, meld.faces, ts)


EMPTY_TABLE = "(empty)"


def format_table(table, ts: TileSet) -> str:
    """Sets separated by `` | ``; jokers shown with the tile they stand for."""
    return " | ".join(format_meld(m, ts) for m in table) if table else EMPTY_TABLE


def parse_meld(text: str, profile: RuleProfile) -> Meld:
    """Parse one set (``"R5 R6 J"`` or ``"K5 O5 J(B5)"``); raise ``TileError`` if invalid."""
    ts = profile.tileset
    tiles, pinned = [], {}
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


def table_tiles(table) -> list[int]:
    return [t for meld in table for t in meld.tiles]


# ----- values ----------------------------------------------------------------------------


def meld_face_value(meld: Meld, ts: TileSet) -> int:
    """Sum of the values the meld's tiles stand for."""
    return sum(ts.value_of(f) for f in meld.faces)


def meld_opening_value(meld: Meld, profile: RuleProfile) -> int:
    """The meld's worth toward the initial meld, with the profile's joker valuation."""
    ts = profile.tileset
    return sum(
        profile.joker_opening_value(ts.value_of(f)) if t == ts.joker else ts.value_of(f)
        for t, f in zip(meld.tiles, meld.faces, strict=True)
    )


def rack_penalty(rack, profile: RuleProfile) -> int:
    """Points a rack is worth at the end of a round (jokers cost ``jokers.penalty``)."""
    ts = profile.tileset
    return sum(profile.jokers.penalty if t == ts.joker else ts.value_of(t) for t in rack)


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
    top = ts.values + (1 if profile.wrap else 0)
    for colour in range(ts.colours):
        for length in range(profile.runs.min_length, ts.values + 1):
            for start in range(1, top - length + 2):
                positions = range(start, start + length)
                if 1 in positions and ts.values + 1 in positions:
                    continue
                faces.append(tuple(ts.code(colour, ((p - 1) % ts.values) + 1) for p in positions))
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
