from __future__ import annotations

import pytest
from helpers import with_overrides

from rummisim import is_valid_set, parse_meld, parse_table, parse_tiles, set_catalogue
from rummisim.melds import (
    assign_jokers,
    format_table,
    meld_opening_value,
    rack_penalty,
)
from rummisim.tiles import TileError


def tiles(text, profile):
    return tuple(parse_tiles(text, profile))


def valid(text, profile):
    return is_valid_set(parse_tiles(text, profile), profile)


@pytest.mark.parametrize(
    "text",
    [
        "R1 R2 R3",
        "K9 K10 K11 K12",
        "R5 B5 O5",
        "K7 R7 O7 B7",
        "R4 J R6",
        "J R5 R6",
        "K5 O5 J",
        "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13",
        "R11 R12 R13",
        "B3 B4 J J",
        # two jokers beside one numbered tile (RULES.md open questions: "Two jokers may sit
        # in one set, even beside a single numbered tile")
        "R5 J J",
        "R7 J J",
        "J B3 J",
        "R13 J J",
        "R3 J J R6",
    ],
)
def test_valid_sets(standard, text):
    assert valid(text, standard)
    assert is_valid_set(text, standard)  # text is accepted directly too


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("R1 R2", "too short"),
        ("R1 R2 R4", "gap"),
        ("R1 K2 R3", "mixed colours"),
        ("R5 R5 R6", "value twice in a run"),
        ("R5 R5 B5", "duplicate colour in a group"),
        ("K5 R5 O5 B5 K5", "group of five"),
        ("R12 R13 R1", "no wrap in standard"),
        ("J J J", "jokers only"),
        ("R3 J J J", "three jokers in a set under max_per_set 2"),
        ("K5 R5 O5 B5 J", "a joker cannot be a 5th group tile"),
    ],
)
def test_invalid_sets(standard, text, why):
    assert not valid(text, standard), why


@pytest.mark.parametrize("text", ["R7 J J", "J B3 J", "R3 J J R6", "K5 J O5 J"])
def test_one_joker_per_set(text):
    # jokers.max_per_set: 1 ("some house rules allow one joker per set", RULES.md)
    one = with_overrides("standard", jokers={"max_per_set": 1})
    assert not valid(text, one)
    assert valid("R3 J R5", one) and valid("K5 J O5", one)


def test_two_jokers_declared_faces_decide_the_set(standard):
    # "The player declares what each joker stands for" (RULES.md open questions)
    run = parse_meld("J(R8) R7 J(R9)", standard)
    group = parse_meld("R7 J(K7) J(B7)", standard)
    assert sorted(run.faces) == sorted(tiles("R7 R8 R9", standard))
    assert sorted(group.faces) == sorted(tiles("R7 K7 B7", standard))
    assert sorted(parse_meld("R13 J(R11) J(R12)", standard).faces) == sorted(tiles("R11 R12 R13", standard))
    assert parse_meld("R13 J J", standard) is not None  # undeclared: some valid reading is taken


def test_wrap_allows_12_13_1_but_never_13_1_2():
    wrap = with_overrides("standard", runs={"wrap": "high_low"})
    assert valid("R12 R13 R1", wrap)
    assert valid("R11 R12 R13 R1", wrap)
    assert valid("R1 R2 R3", wrap)
    assert not valid("R13 R1 R2", wrap)
    assert not valid("R12 R13 R1 R2", wrap)
    assert valid("R12 J R1", wrap)
    # 13 tiles is the longest run; the 1 can never appear twice
    assert valid("R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1", wrap)
    assert not valid("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1", wrap)


def test_joker_faces_follow_written_order(standard):
    ts = standard.tileset
    assert format_table([parse_meld("R5 R6 J", standard)], ts) == "R5 R6 J(R7)"
    assert format_table([parse_meld("J R5 R6", standard)], ts) == "J(R4) R5 R6"
    assert format_table([parse_meld("R4 J R6", standard)], ts) == "R4 J(R5) R6"
    assert format_table([parse_meld("K5 O5 J(B5)", standard)], ts) == "K5 O5 J(B5)"
    # a run at the top cannot extend upwards, so the joker goes below
    assert format_table([parse_meld("R12 R13 J", standard)], ts) == "J(R11) R12 R13"


def test_declared_joker_must_fit(standard):
    with pytest.raises(TileError, match="not a valid set"):
        parse_meld("R5 R6 J(B7)", standard)


def test_parse_table_and_empty_table(standard):
    melds = parse_table("R1 R2 R3 | K5 O5 B5", standard)
    assert len(melds) == 2
    assert parse_table("  ", standard) == ()
    assert parse_table(format_table((), standard.tileset), standard) == ()  # round trip
    assert parse_table(format_table(melds, standard.tileset), standard) == melds
    with pytest.raises(TileError, match="empty set"):
        parse_table("R1 R2 R3 | | K5 O5 B5", standard)


def test_opening_value_uses_the_profile_joker_valuation(standard):
    fixed = with_overrides("standard", initial_meld={"joker_value": 25})
    meld = parse_meld("R5 R6 J", standard)
    assert meld_opening_value(meld, standard) == 5 + 6 + 7
    assert meld_opening_value(parse_meld("R5 R6 J", fixed), fixed) == 5 + 6 + 25


def test_rack_penalty_counts_jokers_at_the_penalty(standard):
    assert rack_penalty(parse_tiles("R3 K10 J", standard), standard) == 3 + 10 + 30
    p25 = with_overrides("standard", jokers={"penalty": 25})
    assert rack_penalty(parse_tiles("J J", p25), p25) == 50


def test_assign_jokers_returns_none_for_non_sets(standard):
    assert assign_jokers(parse_tiles("R1 K7 J", standard), standard) is None


def test_catalogue_counts(standard):
    cat = set_catalogue(standard)
    runs = sum(1 for k in cat.kinds if k == "run")
    groups = sum(1 for k in cat.kinds if k == "group")
    assert runs == 4 * sum(14 - length for length in range(3, 14))  # 264 windows
    assert groups == 13 * (4 + 1)
    assert cat.matrix.shape == (runs + groups, 52)
    assert set_catalogue(standard) is cat  # cached per profile
    wrap = with_overrides("standard", runs={"wrap": "high_low"})
    assert sum(1 for k in set_catalogue(wrap).kinds if k == "run") == 4 * sum(
        15 - length for length in range(3, 14)
    )
    # minimal sets: runs of 3-5 and all groups
    assert int(cat.minimal.sum()) == 4 * (11 + 10 + 9) + 65
    for faces in cat.faces:
        assert valid(" ".join(standard.tileset.format_tile(f) for f in faces), standard)


def test_extension_faces(standard):
    from rummisim.melds import extension_faces

    ts = standard.tileset

    def ext(text, profile=standard):
        return sorted(ts.format_tile(f) for f in extension_faces(parse_meld(text, profile), profile))

    assert ext("R4 R5 R6") == ["R3", "R7"]
    assert ext("R1 R2 R3") == ["R4"]
    assert ext("R11 R12 R13") == ["R10"]
    assert ext("K5 O5 B5") == ["R5"]
    assert ext("K5 O5 B5 R5") == []
    wrap = with_overrides("standard", runs={"wrap": "high_low"})
    assert ext("R11 R12 R13", wrap) == ["R1", "R10"]
    assert ext("R12 R13 R1", wrap) == ["R11"]
    assert ext("R1 R2 R3", wrap) == ["R4"]
    full = " ".join(f"R{v}" for v in range(2, 14))
    assert ext(full, wrap) == ["R1"]
    assert ext(full + " R1", wrap) == []
