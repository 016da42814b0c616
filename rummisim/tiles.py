"""Tile codes, the tile set of a profile, and the text notation used at the edges.

A numbered tile is the integer ``colour * values + (value - 1)``; the joker is the
single code ``colours * values`` that comes after every numbered tile. Racks,
pools and tables are tuples of codes or count vectors of length
``TileSet.n_codes`` (the last entry counts jokers).

Text notation (CLI, logs, tests only): ``K`` black, ``R`` red, ``O`` orange,
``B`` blue (then ``G``, ``P``, ``W``, ``C`` for profiles with more colours),
followed by the value: ``R7``, ``K13``. ``J`` is a joker; inside a table set a
joker may be written with the tile it stands for, ``J(R7)``. A set is written as
space-separated tiles and a table as sets separated by ``|``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

COLOUR_LETTERS = "KROBGPWC"
COLOUR_NAMES = ("black", "red", "orange", "blue", "green", "purple", "white", "cyan")
JOKER_LETTER = "J"

_TOKEN = re.compile(r"^([A-Z])(\d+)$")
_JOKER_TOKEN = re.compile(r"^J(?:\(([A-Z]\d+)\))?$")


class TileError(ValueError):
    """A tile token or tile list that is not valid under the profile's tile set."""


@dataclass(frozen=True)
class TileSet:
    """The physical tiles of a profile: ``colours`` x values ``1..values`` x ``copies``, plus jokers."""

    colours: int
    values: int
    copies: int
    jokers: int

    @property
    def joker(self) -> int:
        """The joker's code (after every numbered tile)."""
        return self.colours * self.values

    @property
    def n_codes(self) -> int:
        """Length of a count vector: every numbered code plus the joker."""
        return self.colours * self.values + 1

    @property
    def size(self) -> int:
        """Total number of physical tiles."""
        return self.colours * self.values * self.copies + self.jokers

    def code(self, colour: int, value: int) -> int:
        """Code of the numbered tile of ``colour`` (0-based) and ``value`` (1-based)."""
        return colour * self.values + value - 1

    def colour_of(self, code: int) -> int:
        return code // self.values

    def value_of(self, code: int) -> int:
        """Face value of a numbered tile (1..values). Undefined for the joker."""
        return code % self.values + 1

    def is_joker(self, code: int) -> bool:
        return code == self.joker

    @cached_property
    def face_values(self) -> np.ndarray:
        """Face value per code; the joker's entry is 0 (its worth depends on context)."""
        values = np.zeros(self.n_codes, dtype=np.int64)
        values[: self.joker] = np.tile(np.arange(1, self.values + 1), self.colours)
        return values

    def full_counts(self) -> np.ndarray:
        """Count vector of the complete tile set."""
        counts = np.full(self.n_codes, self.copies, dtype=np.int64)
        counts[self.joker] = self.jokers
        return counts

    def all_tiles(self) -> tuple[int, ...]:
        """Every physical tile once, in code order (the unshuffled pool)."""
        return tuple(np.repeat(np.arange(self.n_codes), self.full_counts()).tolist())

    def counts(self, tiles: tuple[int, ...] | list[int]) -> np.ndarray:
        """Count vector of a tuple of codes."""
        return np.bincount(np.asarray(tiles, dtype=np.int64), minlength=self.n_codes)

    # ----- notation ---------------------------------------------------------------

    def format_tile(self, code: int) -> str:
        if code == self.joker:
            return JOKER_LETTER
        if not 0 <= code < self.joker:
            raise TileError(f"tile code {code} is outside this tile set (0..{self.joker})")
        return f"{COLOUR_LETTERS[self.colour_of(code)]}{self.value_of(code)}"

    def parse_tile(self, token: str) -> int:
        """Parse one numbered tile or ``J``; raise ``TileError`` naming what is allowed."""
        token = token.strip()
        if token.upper() == JOKER_LETTER:
            if self.jokers == 0:
                raise TileError(f"bad tile {token!r}: this tile set has no jokers")
            return self.joker
        match = _TOKEN.match(token.upper())
        letters = COLOUR_LETTERS[: self.colours]
        allowed = f"a colour letter ({', '.join(letters)}) then a value 1..{self.values}, or J"
        if not match:
            raise TileError(f"bad tile {token!r}: expected {allowed}")
        letter, digits = match.groups()
        if letter not in letters:
            raise TileError(f"bad tile {token!r}: unknown colour {letter!r}; expected {allowed}")
        value = int(digits)
        if not 1 <= value <= self.values:
            raise TileError(f"bad tile {token!r}: value {value} out of range; expected {allowed}")
        return self.code(letters.index(letter), value)


def parse_tiles(text: str, tileset: TileSet) -> tuple[int, ...]:
    """Parse space-separated tiles (``"R7 K13 J"``) into codes."""
    return tuple(tileset.parse_tile(token) for token in text.split())


def format_tiles(tiles, tileset: TileSet) -> str:
    """Format codes as space-separated tiles, in the given order."""
    return " ".join(tileset.format_tile(int(code)) for code in tiles)


def split_joker_token(token: str, tileset: TileSet) -> tuple[int, int | None] | None:
    """For ``J`` or ``J(R7)`` return ``(joker, stands_for_or_None)``; None if not a joker token."""
    match = _JOKER_TOKEN.match(token.strip().upper())
    if not match:
        return None
    if tileset.jokers == 0:
        raise TileError(f"bad tile {token!r}: this tile set has no jokers")
    stands_for = tileset.parse_tile(match.group(1)) if match.group(1) else None
    return tileset.joker, stands_for
