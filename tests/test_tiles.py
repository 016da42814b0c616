from __future__ import annotations

import pytest

from rummisim import format_tiles, load_profile, parse_tiles
from rummisim.tiles import TileError, TileSet


def test_codes_are_colour_times_value_with_jokers_last(standard):
    ts = standard.tileset
    assert ts.code(0, 1) == 0
    assert ts.code(1, 7) == 13 + 6
    assert ts.joker == 52
    assert ts.n_codes == 53
    assert ts.size == 106
    assert [ts.format_tile(c) for c in (0, 12, 13, 51, 52)] == ["K1", "K13", "R1", "B13", "J"]


def test_four_joker_tileset_has_108_tiles():
    assert load_profile("polish-40").tileset.size == 108
    assert TileSet(4, 13, 2, 4).full_counts()[-1] == 4


def test_parse_and_format_round_trip(standard):
    text = "R7 K13 O1 B12 J"
    codes = parse_tiles(text, standard)
    assert format_tiles(codes, standard) == text
    assert parse_tiles("r7 k13", standard) == parse_tiles("R7 K13", standard)


@pytest.mark.parametrize(
    ("token", "fragment"),
    [
        ("X7", "unknown colour 'X'"),
        ("R14", "value 14 out of range"),
        ("R0", "value 0 out of range"),
        ("7", "expected a colour letter"),
        ("RR", "expected a colour letter"),
    ],
)
def test_bad_tokens_are_rejected_with_a_clear_error(standard, token, fragment):
    with pytest.raises(TileError, match=fragment):
        parse_tiles(f"R1 {token}", standard)


def test_joker_rejected_when_the_set_has_none(standard):
    ts = TileSet(4, 13, 2, 0)
    with pytest.raises(TileError, match="no jokers"):
        ts.parse_tile("J")


def test_all_tiles_matches_counts():
    ts = TileSet(3, 10, 2, 1)
    tiles = ts.all_tiles()
    assert len(tiles) == ts.size == 61
    assert list(ts.counts(tiles)) == list(ts.full_counts())
