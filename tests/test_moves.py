"""Move validation: every illegal-move kind, the opening rules and the joker rules."""

from __future__ import annotations

import pytest
from helpers import table, tiles, with_overrides

from rummisim import IllegalMove, Meld, load_profile, validate_move
from rummisim.rules.jokers import UNEXPLAINED


def check(profile, old: str, rack: str, new: str, played: str, *, opened: bool = True, explain: bool = True):
    """``validate_move``'s answer; each call also checks that the verdict-only check
    (``explain=False``, the solver's) gives the same one."""
    move = (table(old, profile), tiles(rack, profile), table(new, profile), tiles(played, profile))
    if explain:
        try:
            verdict = check(profile, old, rack, new, played, opened=opened, explain=False)
        except IllegalMove as illegal:
            verdict = illegal
    try:
        result = validate_move(profile, *move, opened=opened, explain=explain)
    except IllegalMove as illegal:
        if explain:
            assert isinstance(verdict, IllegalMove), verdict
            # the same rule, or none named where the table jokers' moves are refused
            assert verdict.rule == illegal.rule or verdict.message == UNEXPLAINED, (verdict, illegal)
        raise
    if explain:
        assert verdict == result
    return result


def rejects(rule: str, *args, **kwargs) -> str:
    with pytest.raises(IllegalMove) as info:
        check(*args, **kwargs)
    assert info.value.rule == rule, info.value
    return info.value.message


def test_the_verdict_only_check_names_no_joker_rule(standard):
    old, rack, new = "R4 R5 J | K1 K2 K3 K4", "R6 K5", "R4 R5 R6 | K1 K2 K3 K4 K5 J(K6)"
    assert "two other tiles from the rack" in rejects("joker_rule", standard, old, rack, new, "R6 K5")
    with pytest.raises(IllegalMove) as info:
        check(standard, old, rack, new, "R6 K5", explain=False)
    assert info.value.rule == "joker_rule" and info.value.message == UNEXPLAINED


# ----- the basic kinds -------------------------------------------------------------------


def test_a_legal_extension(standard):
    result = check(standard, "R1 R2 R3", "R4 K9", "R1 R2 R3 R4", "R4")
    assert result.opening_value is None and result.jokers_freed == 0


def test_rearrangement_without_a_rack_tile(standard):
    msg = rejects("no_rack_tile", standard, "R1 R2 R3 R4 R5 R6", "K1", "R1 R2 R3 | R4 R5 R6", "")
    assert "rearrangement" in msg
    rejects("no_rack_tile", standard, "R1 R2 R3", "K1", "R1 R2 R3", "")


def test_tile_not_in_rack(standard):
    msg = rejects("tile_not_in_rack", standard, "R1 R2 R3", "K9", "R1 R2 R3 R4", "R4")
    assert "R4" in msg
    rejects("tile_not_in_rack", standard, "", "K9 K10 K11", "K9 K10 K11 | R5 R6 R7", "K9 K10 K11 R5 R6 R7")


def test_invalid_set(standard):
    ts = standard.tileset
    bad = Meld(tiles("R1 R2 R4", standard), tiles("R1 R2 R4", standard))
    with pytest.raises(IllegalMove) as info:
        validate_move(standard, (), tiles("R1 R2 R4", standard), (bad,), bad.tiles, opened=True)
    assert info.value.rule == "invalid_set"
    assert "R1 R2 R4" in info.value.message
    # a joker whose face does not match its place
    liar = Meld((ts.code(1, 1), ts.code(1, 2), ts.joker), tiles("R1 R2 K3", standard))
    with pytest.raises(IllegalMove, match="invalid_set"):
        validate_move(standard, (), liar.tiles, (liar,), liar.tiles, opened=True)


def test_table_tile_missing(standard):
    msg = rejects("table_tile_missing", standard, "R1 R2 R3 | K5 O5 B5", "R4", "R1 R2 R3 R4", "R4")
    assert "K5" in msg and "O5" in msg


def test_tiles_from_nowhere_or_played_but_not_placed(standard):
    rejects("unaccounted_tile", standard, "R1 R2 R3", "R4 R5", "R1 R2 R3 R4 R5", "R4")
    rejects("unaccounted_tile", standard, "R1 R2 R3", "R4 R5", "R1 R2 R3 R4", "R4 R5")


def test_rearranging_the_table_is_allowed_with_a_rack_tile(standard):
    # split a run and insert: R1..R6 + R4 -> R1 R2 R3 R4 | R4 R5 R6
    split = check(standard, "R1 R2 R3 R4 R5 R6", "R4", "R1 R2 R3 R4 | R4 R5 R6", "R4")
    assert split.opening_value is None and split.jokers_freed == 0
    # take the 4th tile of a group to build a run
    taken = check(standard, "K8 R8 O8 B8", "R9 R10", "K8 O8 B8 | R8 R9 R10", "R9 R10")
    assert taken.opening_value is None and taken.jokers_freed == 0


def test_rearrange_false_allows_only_additions():
    profile = with_overrides("standard", turn={"rearrange": False})
    check(profile, "R1 R2 R3 R4 R5 R6", "R7 K1", "R1 R2 R3 R4 R5 R6 R7", "R7")
    rejects("rearrange_forbidden", profile, "R1 R2 R3 R4 R5 R6", "R4", "R1 R2 R3 R4 | R4 R5 R6", "R4")


def test_must_keep_a_tile_to_discard():
    profile = load_profile("ramino-discard")
    rejects("must_keep_discard", profile, "", "K10 K11 K12", "K10 K11 K12", "K10 K11 K12", opened=False)
    check(profile, "", "K10 K11 K12 R5", "K10 K11 K12", "K10 K11 K12", opened=False)


# ----- the initial meld --------------------------------------------------------------------


def test_opening_threshold_30_vs_40(standard):
    forty = with_overrides("standard", initial_meld={"threshold": 40})
    assert check(standard, "", "K10 K11 K12", "K10 K11 K12", "K10 K11 K12", opened=False).opening_value == 33
    msg = rejects(
        "opening_below_threshold", forty, "", "K10 K11 K12", "K10 K11 K12", "K10 K11 K12", opened=False
    )
    assert "33" in msg and "40" in msg
    check(
        forty,
        "",
        "K10 K11 K12 R1 R2 R3 R4",
        "K10 K11 K12 | R1 R2 R3 R4",
        "K10 K11 K12 R1 R2 R3 R4",
        opened=False,
    )
    rejects("opening_below_threshold", standard, "", "R1 R2 R3", "R1 R2 R3", "R1 R2 R3", opened=False)


def test_joker_valuation_in_the_opening():
    represented = with_overrides("standard", initial_meld={"threshold": 40})
    fixed = with_overrides("standard", initial_meld={"threshold": 40, "joker_value": 25})
    rejects("opening_below_threshold", represented, "", "K10 K11 J", "K10 K11 J", "K10 K11 J", opened=False)
    assert check(fixed, "", "K10 K11 J", "K10 K11 J", "K10 K11 J", opened=False).opening_value == 46


def test_opening_single_set_vs_several():
    single = with_overrides("classic-wrap", initial_meld={"sets": "single"})
    rejects(
        "opening_single_set",
        single,
        "",
        "K10 K11 K12 R1 R2 R3",
        "K10 K11 K12 | R1 R2 R3",
        "K10 K11 K12 R1 R2 R3",
        opened=False,
    )
    check(single, "", "K10 K11 K12 R1", "K10 K11 K12", "K10 K11 K12", opened=False)
    several = load_profile("standard")
    check(several, "", "K5 K6 K7 R5 O5 B5", "K5 K6 K7 | R5 O5 B5", "K5 K6 K7 R5 O5 B5", opened=False)


def test_opening_may_not_touch_the_table(standard):
    msg = rejects(
        "opening_touched_table",
        standard,
        "R1 R2 R3",
        "R4 K10 K11 K12",
        "R1 R2 R3 R4 | K10 K11 K12",
        "R4 K10 K11 K12",
        opened=False,
    )
    assert "initial meld" in msg
    # the same move is fine once opened
    check(standard, "R1 R2 R3", "R4 K10 K11 K12", "R1 R2 R3 R4 | K10 K11 K12", "R4 K10 K11 K12")


def test_opening_that_may_touch_the_table_counts_rack_only_sets():
    polish = load_profile("polish-40")  # threshold 40, may_touch_table
    check(
        polish,
        "R1 R2 R3",
        "R4 K10 K11 K12 K13",
        "R1 R2 R3 R4 | K10 K11 K12 K13",
        "R4 K10 K11 K12 K13",
        opened=False,
    )
    # 33 from the rack plus R4 added to a table run is still below 40
    rejects(
        "opening_below_threshold",
        polish,
        "R1 R2 R3",
        "R4 K10 K11 K12",
        "R1 R2 R3 R4 | K10 K11 K12",
        "R4 K10 K11 K12",
        opened=False,
    )


# ----- jokers -----------------------------------------------------------------------------------


def test_retrieve_a_joker_with_the_matching_tile_and_reuse_it(standard):
    result = check(standard, "R4 R5 J", "R6 K9 O9", "R4 R5 R6 | K9 O9 J(B9)", "R6 K9 O9")
    assert result.jokers_freed == 1


def test_a_locked_joker_cannot_change_its_tile_without_a_replacement(standard):
    msg = rejects("joker_rule", standard, "R3 R4 R5 J(R6)", "K9 O9", "R3 R4 R5 | K9 O9 J(B9)", "K9 O9")
    assert "matching rack tile" in msg
    free = with_overrides("standard", jokers={"table_jokers": "free"})
    check(free, "R3 R4 R5 J(R6)", "K9 O9", "R3 R4 R5 | K9 O9 J(B9)", "K9 O9")


def test_a_locked_joker_may_move_keeping_its_tile(standard):
    # split R3 J(R4) R5 R6 R7 R8 into R3 J(R4) R5 | R6 R7 R8 R9 by adding R9
    result = check(standard, "R3 J(R4) R5 R6 R7 R8", "R9", "R3 J(R4) R5 | R6 R7 R8 R9", "R9")
    assert result.jokers_freed == 0  # the joker moved with its set, still R4: not freed


def test_freed_joker_needs_two_rack_tiles_in_its_new_set(standard):
    msg = rejects(
        "joker_rule", standard, "R4 R5 J | K1 K2 K3 K4", "R6 K5", "R4 R5 R6 | K1 K2 K3 K4 K5 J(K6)", "R6 K5"
    )
    assert "two other tiles from the rack" in msg
    free_reuse = with_overrides("standard", jokers={"reuse": "any"})
    check(free_reuse, "R4 R5 J | K1 K2 K3 K4", "R6 K5", "R4 R5 R6 | K1 K2 K3 K4 K5 J(K6)", "R6 K5")


def test_the_replacing_tile_does_not_count_toward_the_two(standard):
    # R6 frees the joker; its new set holds R6 and R7 from the rack, but R6 was the replacement
    rejects("joker_rule", standard, "R4 R5 J(R6)", "R6 R7", "R4 R5 R6 R7 J(R8)", "R6 R7")
    check(standard, "R4 R5 J(R6)", "R6 R7 R9", "R4 R5 R6 R7 J(R8) R9", "R6 R7 R9")


def test_two_locked_jokers_each_judged_under_every_placement(standard):
    # two table jokers change places: each stands for another tile now, so both must be freed
    old = "R4 R5 J(R6) | K7 J(K8) K9"
    new = "R4 R5 R6 | K7 K8 K9 | K1 K2 J(K3) | O1 O2 J(O3)"
    result = check(standard, old, "R6 K8 K1 K2 O1 O2", new, "R6 K8 K1 K2 O1 O2")
    assert result.jokers_freed == 2
    # one freeing tile played: under either placement a joker stands for another tile without
    # its replacement (R6 is not played), and that is the reason given
    msg = rejects(
        "joker_rule", standard, old, "K8 K1 K2 O1", "J(R3) R4 R5 | K7 K8 K9 | K1 K2 J(K3)", "K8 K1 K2"
    )
    assert "matching rack tile" in msg
    # the joker that keeps its tile may stay where it is
    check(standard, old, "K8 K1 K2 O1", "R4 R5 J(R6) | K7 K8 K9 | K1 K2 J(K3)", "K8 K1 K2")
    # both freed, but one reused beside a single rack tile
    msg = rejects(
        "joker_rule", standard, old + " | B5 B6 B7", "R6 K8 K1 K2 B8",
        "R4 R5 R6 | K7 K8 K9 | K1 K2 J(K3) | B5 B6 B7 B8 J(B9)", "R6 K8 K1 K2 B8",
    )  # fmt: skip
    assert "two other tiles from the rack" in msg


def test_group_joker_freed_by_either_missing_colour(standard):
    old, rack, new, played = "K5 O5 J(B5)", "R5 K1 K2", "K5 O5 R5 | K1 K2 J(K3)", "R5 K1 K2"
    assert check(standard, old, rack, new, played).jokers_freed == 1
    exact = with_overrides("standard", jokers={"group_any_missing_colour": False})
    rejects("joker_rule", exact, old, rack, new, played)
    check(exact, old, "B5 K1 K2", "K5 O5 B5 | K1 K2 J(K3)", "B5 K1 K2")


def test_joker_retrieval_in_the_opening_turn_where_the_opening_may_touch_the_table():
    # 004: "Może je dodawać natychmiast po tym, jak wyjdzie ze swoimi początkowymi 40" (he may
    # add them immediately after coming out with his initial 40): the opening sets reach 40 on
    # their own, then the same turn frees the table joker with B5 and reuses it.
    polish = load_profile("polish-40")
    old = "B3 B4 J(B5)"
    rack = "K13 R13 O13 B13 B5 R7 O7"
    new = "B3 B4 B5 | K13 R13 O13 B13 | J(K7) R7 O7"
    check(polish, old, rack, new, rack, opened=False)
    # the retrieved joker does not count toward the opening: without the 13s it is refused
    short = rejects(
        "opening_below_threshold",
        polish,
        old,
        "B5 R7 O7 K9",
        "B3 B4 B5 | J(K7) R7 O7",
        "B5 R7 O7",
        opened=False,
    )
    assert "needs 40" in short
    # the opening sets and the joker rules are judged under one placement of the jokers: here
    # the freed J(K13) can only sit in O8 J O10 O11 (J R2 R3 holds one rack tile), so that set
    # is not rack-only and nothing else reaches 40
    rejects(
        "opening_below_threshold",
        polish,
        "K11 K12 J(K13) | R3 R4 R5 R6",
        "K13 O8 O10 O11 J R2 B1",
        "K11 K12 K13 | O8 J(O9) O10 O11 | J(R1) R2 R3 | R4 R5 R6",
        "K13 O8 O10 O11 J R2",
        opened=False,
    )
    # standard's opening may not touch the table at all (000, 003)
    standard = load_profile("standard")
    rejects("opening_touched_table", standard, old, rack, new, rack, opened=False)


def test_sets_holding_a_joker_may_not_lose_tiles_under_the_strict_rule(standard):
    strict = load_profile("guide-strict-joker")
    args = ("R3 R4 R5 J(R6)", "R7 K3 O3", "R4 R5 J(R6) R7 | R3 K3 O3", "R7 K3 O3")
    check(standard, *args)
    msg = rejects("joker_rule", strict, *args)
    assert "set holding a joker" in msg
    # growing it is fine, and so is splitting it once the joker is replaced
    check(strict, "R3 R4 R5 J(R6)", "R7", "R3 R4 R5 J(R6) R7", "R7")
    check(strict, "R3 R4 R5 J(R6)", "R6 K9 O9", "R3 R4 R5 R6 | K9 O9 J(B9)", "R6 K9 O9")


def test_a_strict_set_with_two_jokers_keeps_them_in_one_set():
    """A set that keeps a joker may not be split, even where each part gets a copy of its
    numbered tiles (0.3.7: the referee had let ``K9 J J`` become ``K9 R9 J | K9 R9 J``, with a K9
    from the run); one of its jokers freed moves within the set, beside two more rack items."""
    strict = load_profile("guide-strict-joker")
    old = "K9 J(O9) J(B9) | K4 K5 K6 K7 K8 K9 K10 K11 K12"
    new = "K9 R9 J(O9) | K9 R9 J(O9) | K4 K5 K6 | K6 K7 K8 | K10 K11 K12"
    msg = rejects("joker_rule", strict, old, "K6 K8 R9 R9", new, "K6 R9 R9")
    assert "set holding a joker" in msg
    check(load_profile("standard"), old, "K6 K8 R9 R9", new, "K6 R9 R9")
    check(strict, "R3 J(R4) J(R5) R6", "R4 R7 R8 K1", "R3 R4 J(R5) R6 R7 R8 J(R9)", "R4 R7 R8")
    # ... which needs two rack items besides the freeing tile
    rejects("joker_rule", strict, "R3 J(R4) J(R5) R6", "R4 R7 K1", "R3 R4 J(R5) R6 R7 J(R8)", "R4 R7")


def test_a_group_joker_freed_by_its_tile_may_keep_another_acceptable_face_under_the_strict_rule():
    # J(R2) in a group of 2s also stands for K2 (any missing colour). Played R2 frees it, and
    # the freed joker, now K2 in a run with two rack tiles, no longer ties its old set together
    # (found by a batch run: greedy proposed this and the engine had refused it).
    strict = load_profile("guide-strict-joker")
    old = "J(R2) O2 B2 | K3 K4 K5 K6"
    new = "R2 O2 B2 | K1 J(K2) K3 K4 | K4 K5 K6"
    check(strict, old, "K1 K4 R2", new, "K1 K4 R2")
    # the freed joker still needs two other rack tiles in its new set (kept, it ties its old set)
    rejects("joker_rule", strict, old, "K1 R2", "R2 O2 B2 | K1 J(K2) K3 | K4 K5 K6", "K1 R2")
    check(load_profile("standard"), old, "K1 R2", "R2 O2 B2 | K1 J(K2) K3 | K4 K5 K6", "K1 R2")


def test_rack_jokers_go_anywhere(standard):
    # a rack joker played into a new set or onto a table set frees no table joker
    assert check(standard, "R1 R2 R3", "J K1 K2", "R1 R2 R3 | K1 K2 J(K3)", "J K1 K2").jokers_freed == 0
    assert check(standard, "R1 R2 R3", "J", "R1 R2 R3 J(R4)", "J").jokers_freed == 0


def test_two_table_jokers_identity_is_matched(standard):
    # both jokers stay as they are while a tile is added elsewhere
    check(
        standard,
        "R4 J(R5) R6 | K7 J(O7) B7",
        "K8 K9 K10",
        "R4 J(R5) R6 | K7 J(O7) B7 | K8 K9 K10",
        "K8 K9 K10",
    )
    check(standard, "R4 J(R5) R6 | K2 K3 J(K4)", "K1 R7", "R4 J(R5) R6 R7 | K1 K2 K3 J(K4)", "K1 R7")
    # the K4 joker may not turn into R7 without a K4 from the rack
    rejects(
        "joker_rule", standard, "R4 J(R5) R6 | K2 K3 J(K4)", "K1 R7", "R4 J(R5) R6 J(R7) | K1 K2 K3", "K1"
    )


@pytest.mark.parametrize(
    ("played", "extra", "rule", "fragment"),
    [
        ((99,), (), "tile_not_in_rack", "played tile code(s) [99] outside the tile set (0..52)"),
        ((-1,), (), "tile_not_in_rack", "played tile code(s) [-1] outside the tile set (0..52)"),
        (None, (77, 78), "invalid_set", "tiles [16, 77, 78] with faces [16, 77, 78] (codes outside 0..52)"),
    ],
)
def test_codes_outside_the_tile_set_are_refused_not_a_crash(standard, played, extra, rule, fragment):
    """A move built by hand (or by a bot's bug) from codes the tile set does not have is an
    illegal move with its rule, not a numpy error."""
    old, rack = table("R1 R2 R3", standard), tiles("R4 K5", standard)
    r4 = tiles("R4", standard)[0]
    new = old + ((Meld((r4, *extra), (r4, *extra)),) if extra else ())
    with pytest.raises(IllegalMove) as err:
        validate_move(standard, old, rack, new, played or (r4,), opened=True)
    assert err.value.rule == rule and fragment in err.value.message


def test_one_qualifying_opening_needs_one_set_worth_the_threshold_alone():
    """000: "deve giocare un insieme con un valore almeno di 30 punti" (a set worth at least 30):
    under ``sets: one_qualifying`` one rack-only set reaches 30 by itself and others may join it;
    two sets worth 30 only together do not open."""
    classic = load_profile("classic-wrap")
    assert classic.initial_meld.sets == "one_qualifying"
    both = check(classic, "", "K10 K11 K12 R1 R2 R3", "K10 K11 K12 | R1 R2 R3", "K10 K11 K12 R1 R2 R3",
                 opened=False)  # fmt: skip
    assert both.opening_value == 33  # what counts: the qualifying set
    msg = rejects(
        "opening_below_threshold", classic, "", "K5 K6 K7 R5 O5 B5", "K5 K6 K7 | R5 O5 B5", "K5 K6 K7 R5 O5 B5",
        opened=False,
    )  # fmt: skip
    assert "best rack-only set" in msg
    several = load_profile("standard")  # sets: any counts both
    check(several, "", "K5 K6 K7 R5 O5 B5", "K5 K6 K7 | R5 O5 B5", "K5 K6 K7 R5 O5 B5", opened=False)


def test_one_qualifying_opening_that_may_touch_the_table():
    """The same reading where the opening turn may also rearrange the table (002, 004): the
    qualifying set is rack-only, the rest of the rack may go to table sets."""
    profile = with_overrides(
        "polish-40", initial_meld={"sets": "one_qualifying", "joker_value": "represented"}
    )
    check(profile, "R1 R2 R3", "R4 K10 K11 K12 K13", "R1 R2 R3 R4 | K10 K11 K12 K13", "R4 K10 K11 K12 K13",
          opened=False)  # fmt: skip
    rejects(
        "opening_below_threshold", profile, "R1 R2 R3", "K10 K11 K12 B5 O5 K5 R9",
        "R1 R2 R3 | K10 K11 K12 | B5 O5 K5", "K10 K11 K12 B5 O5 K5", opened=False,
    )  # fmt: skip


def test_freed_joker_makes_a_new_set_under_polish_40():
    """004: the freed joker must be used "z 2 lub więcej kamieniami ze swojego stojaka, aby stworzyć
    nowy zestaw" (with two or more rack tiles, to create a new set): under ``reuse: new_set`` it may
    not join a table run beside two rack tiles, as 000's ``two_rack_tiles`` lets it."""
    polish = load_profile("polish-40")
    assert polish.jokers.reuse == "new_set"
    table, rack = "B3 B4 J(B5) | K8 K9 K10", "B5 K11 K12 O1"
    onto_table_run = "B3 B4 B5 | K8 K9 K10 K11 K12 J(K13)"
    msg = rejects("joker_rule", polish, table, rack, onto_table_run, "B5 K11 K12")
    assert "new set" in msg
    check(polish, table, rack, "B3 B4 B5 | K8 K9 K10 | K11 K12 J(K13)", "B5 K11 K12")
    two_rack_tiles = with_overrides("polish-40", jokers={"reuse": "two_rack_tiles"})
    check(two_rack_tiles, table, rack, onto_table_run, "B5 K11 K12")


def test_new_set_holds_one_freed_joker_and_rack_tiles_only():
    """004's new set is the joker and rack tiles: a second table joker (freed or kept) in it is
    not a rack tile, and neither is a table tile moved into it."""
    profile = with_overrides("standard", jokers={"reuse": "new_set"})
    table = "R3 R4 J(R5) | B7 B8 J(B9)"
    # both jokers freed into one new set beside two rack tiles: the second is no rack tile
    rejects("joker_rule", profile, table, "R5 B9 K1 O1", "R3 R4 R5 | B7 B8 B9 | K1 O1 J J", "R5 B9 K1 O1")
    # each in a new set of its own: legal
    check(
        profile, table, "R5 B9 K1 O1 K2 O2", "R3 R4 R5 | B7 B8 B9 | K1 O1 J(R1) | K2 O2 J(R2)",
        "R5 B9 K1 O1 K2 O2",
    )  # fmt: skip
    # a table tile (R4) taken into the joker's set beside two rack tiles: not a new set
    old, rack, new = "R4 R5 R6 J(R7) R8", "R7 K4 O4", "R5 R6 R7 R8 | R4 K4 O4 J(B4)"
    rejects("joker_rule", profile, old, rack, new, rack)
    check(with_overrides("standard"), old, rack, new, rack)
