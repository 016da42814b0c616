"""Rule profiles: the built-ins, extends, and strict validation with specific errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummisim import ProfileError, builtin_profiles, load_profile
from rummisim.profile import profile_from_dict


def write(tmp_path: Path, text: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_for(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    return message


def test_builtin_profiles_exist_and_load():
    names = set(builtin_profiles())
    assert {"standard", "classic-wrap", "ramino-discard", "guide-strict-joker", "polish-40"} <= names
    for name in names:
        assert load_profile(name).name == name


def test_standard_is_the_common_modern_rule_set(standard):
    assert standard.tiles.jokers == 2 and standard.tileset.size == 106
    assert standard.runs.wrap == "none"
    assert standard.initial_meld.threshold == 30 and standard.initial_meld.sets == "any"
    assert standard.initial_meld.joker_value == "represented"
    assert standard.jokers.table_jokers == "locked" and standard.jokers.reuse == "two_rack_tiles"
    assert standard.jokers.penalty == 30
    assert standard.match.end == "single_round"
    assert standard.rack_size == 14 and standard.players.max == 4


def test_variant_profiles_differ_where_their_seed_says():
    assert load_profile("classic-wrap").runs.wrap == "high_low"
    classic = load_profile("classic-wrap")
    assert classic.initial_meld.sets == "one_qualifying"
    assert classic.end.when_pool_empty == "until_no_play"
    assert classic.jokers.reuse == "two_rack_tiles"
    ramino = load_profile("ramino-discard")
    assert ramino.discard_pile and ramino.turn.play_after_draw
    assert ramino.match.end == "points" and ramino.match.target_points == 200
    assert load_profile("guide-strict-joker").jokers.take_from_joker_sets is False
    polish = load_profile("polish-40")
    assert polish.initial_meld.threshold == 40 and polish.initial_meld.joker_value == 25
    assert polish.jokers.penalty == 25 and polish.tiles.jokers == 4
    assert polish.end.pool_empty_winner == "lowest_total"
    assert polish.end.pool_empty_scoring == "subtract_winner"
    assert polish.match.end == "rounds" and polish.match.rounds == 4
    assert polish.jokers.reuse == "new_set"


def test_each_variant_line_cites_its_seed():
    for name, path in builtin_profiles().items():
        if name == "standard":
            continue
        for line in path.read_text().splitlines():
            body = line.split("#")[0].strip()
            if body and not body.endswith(":") and not body.startswith(("name:", "description:", "extends:")):
                assert "#" in line and any(s in line for s in ("000", "001", "002", "003", "004")), line


def test_profiles_are_frozen_and_hashable(standard):
    with pytest.raises(Exception):  # noqa: B017 - pydantic raises ValidationError
        standard.rack_size = 10
    again = load_profile("standard")
    assert again == standard and hash(again) == hash(standard)
    assert len({standard, again, load_profile("polish-40")}) == 2


def test_extends_by_name_and_relative_path(tmp_path):
    write(tmp_path, "name: base40\nextends: standard\ninitial_meld:\n  threshold: 40\n", "base.yaml")
    child = write(tmp_path, "name: child\nextends: base.yaml\nruns:\n  wrap: high_low\n", "child.yaml")
    profile = load_profile(child)
    assert profile.name == "child"
    assert profile.initial_meld.threshold == 40 and profile.runs.wrap == "high_low"
    assert profile.initial_meld.sets == "any"  # inherited from standard
    assert profile.extends is None  # resolved


def test_unknown_key_names_key_file_and_valid_keys(tmp_path):
    msg = error_for(tmp_path, "name: x\nextends: standard\nruns:\n  wrapp: none\n")
    assert "unknown key 'runs.wrapp'" in msg
    assert "min_length, wrap" in msg
    msg = error_for(tmp_path, "name: x\nextends: standard\nplayerz: 3\n")
    assert "'playerz'" in msg and "rack_size" in msg


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("rack_size: '14'", ["'rack_size'", "'14'", "integer"]),
        ("rack_size: true", ["'rack_size'", "True"]),
        ("tiles:\n  jokers: 7", ["'tiles.jokers'", "7", "less than or equal to 4"]),
        ("runs:\n  wrap: both", ["'runs.wrap'", "'both'", "'none' or 'high_low'"]),
        (
            "initial_meld:\n  joker_value: twenty",
            ["'initial_meld.joker_value'", "'represented' or an integer"],
        ),
        ("discard_pile: 1", ["'discard_pile'", "boolean"]),
        ("time_limit:\n  search_budget: 0", ["'time_limit.search_budget'", "greater than or equal to 1"]),
        # the keys of the rules-fidelity audit (RULES.md schema)
        ("jokers:\n  max_per_set: 0", ["'jokers.max_per_set'", "greater than or equal to 1"]),
        ("jokers:\n  max_per_set: 5", ["'jokers.max_per_set'", "less than or equal to 4"]),
        ("turn:\n  discard: sometimes", ["'turn.discard'", "'after_play' or 'every_turn'"]),
        ("turn:\n  must_play_if_able: maybe", ["'turn.must_play_if_able'", "boolean"]),
        ("match:\n  target_counts: gross", ["'match.target_counts'", "'positive' or 'net'"]),
        (
            "end:\n  when_pool_empty: stop",
            ["'end.when_pool_empty'", "'play_on', 'until_no_play' or 'end_round'"],
        ),
        ("jokers:\n  reuse: new", ["'jokers.reuse'", "'two_rack_tiles', 'new_set' or 'any'"]),
        ("initial_meld:\n  sets: one", ["'initial_meld.sets'", "'any', 'single' or 'one_qualifying'"]),
    ],
)
def test_wrong_type_or_range_names_path_value_and_allowed(tmp_path, text, fragments):
    msg = error_for(tmp_path, f"name: x\nextends: standard\n{text}\n")
    for fragment in fragments:
        assert fragment in msg, msg


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("players:\n  max: 4\nrack_size: 30", "exceeds the 106 tiles"),
        ("initial_meld:\n  threshold: 200", "no rack of 14 tiles can reach it"),
        ("initial_meld:\n  threshold: 100\n  sets: single", "no rack of 14 tiles can reach it"),
        ("groups:\n  max_size: 5", "at most tiles.colors = 4"),
        ("players:\n  min: 4\n  max: 3", "min 4 is greater than max 3"),
        ("match:\n  end: rounds", "with end: rounds"),
        ("match:\n  end: points\n  rounds: 3", "with end: points"),
        ("match:\n  rounds: 3", "with end: single_round"),
    ],
)
def test_impossible_combinations_are_rejected(tmp_path, text, fragment):
    assert fragment in error_for(tmp_path, f"name: x\nextends: standard\n{text}\n")


def test_reachable_thresholds_are_accepted(tmp_path):
    # a single wrap run 2..13,1 is worth 91; 14 rack tiles at best 8x13 + 6x12 = 176
    several = load_profile(write(tmp_path, "name: x\nextends: standard\ninitial_meld:\n  threshold: 176\n"))
    assert several.initial_meld.threshold == 176
    single = load_profile(
        write(tmp_path, "name: x\nextends: standard\ninitial_meld:\n  threshold: 91\n  sets: single\n")
    )
    assert (single.initial_meld.threshold, single.initial_meld.sets) == (91, "single")


def test_broken_yaml_names_the_line(tmp_path):
    msg = error_for(tmp_path, "name: x\nextends: standard\nruns:\n  wrap: [none\n")
    assert "broken YAML" in msg and "line" in msg


def test_duplicate_keys_are_rejected_not_overwritten(tmp_path):
    msg = error_for(tmp_path, "name: x\nextends: standard\nrack_size: 14\nrack_size: 12\n")
    assert "duplicate key 'rack_size'" in msg and "line 4" in msg


def test_missing_keys_without_extends(tmp_path):
    msg = error_for(tmp_path, "name: x\nrack_size: 14\n")
    assert "missing required key" in msg


def test_extends_cycle_and_unknown_base(tmp_path):
    write(tmp_path, "name: a\nextends: b.yaml\n", "a.yaml")
    write(tmp_path, "name: b\nextends: a.yaml\n", "b.yaml")
    with pytest.raises(ProfileError, match="cycle"):
        load_profile(tmp_path / "a.yaml")
    with pytest.raises(ProfileError, match="unknown profile 'nope'.*standard"):
        load_profile(write(tmp_path, "name: x\nextends: nope\n"))
    with pytest.raises(ProfileError, match="unknown profile 'nope'"):
        load_profile("nope")
    with pytest.raises(ProfileError, match="does not exist"):
        load_profile(tmp_path / "missing.yaml")


def test_a_profile_must_be_a_mapping(tmp_path):
    assert "must be a YAML mapping" in error_for(tmp_path, "- a\n- b\n")


override_strategy = st.fixed_dictionaries(
    {
        "tiles": st.fixed_dictionaries({"jokers": st.integers(0, 4), "copies": st.integers(2, 3)}),
        "runs": st.fixed_dictionaries({"wrap": st.sampled_from(["none", "high_low"])}),
        "initial_meld": st.fixed_dictionaries(
            {
                "threshold": st.integers(0, 60),
                "joker_value": st.sampled_from(["represented", 25, 30]),
                "may_touch_table": st.booleans(),
            }
        ),
        "jokers": st.fixed_dictionaries(
            {"reuse": st.sampled_from(["two_rack_tiles", "any"]), "penalty": st.integers(0, 50)}
        ),
        "end": st.fixed_dictionaries(
            {"pool_empty_winner": st.sampled_from(["fewest_tiles", "lowest_total"])}
        ),
        "first_player": st.sampled_from(["draw_highest", "rotate"]),
    }
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(overrides=override_strategy)
def test_yaml_round_trip(tmp_path, standard, overrides):
    data = standard.to_dict()
    for key, value in overrides.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    profile = profile_from_dict(data)
    path = write(tmp_path, profile.to_yaml(), "round.yaml")
    assert load_profile(path) == profile


# ----- hostile files: one short line each, never a traceback, never a hang ------------------------

ALIAS_BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{n}: &{n} [{','.join(['*' + p] * 9)}]\n" for p, n in zip("abcdef", "bcdefg", strict=True)
)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (bytes(range(128, 256)) * 8, "not a text file in UTF-8"),
        (b"name: x\x00\n", "NUL"),
        (("a: " + "[" * 5000 + "]" * 5000 + "\n").encode(), "nested deeper than 64"),
        (
            ("name: x\nextends: standard\nrack_size: " + "9" * 5000 + "\n").encode(),
            "an integer of 5000 digits",
        ),
        (ALIAS_BOMB.encode(), "expands to more than"),
        (b"name: x\n" + b"#" * (2 << 20), "file too large"),
    ],
)
def test_hostile_files_are_refused_in_one_short_line(tmp_path, content, fragment):
    path = tmp_path / "hostile.yaml"
    path.write_bytes(content)
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    message = str(info.value)
    assert fragment in message and "\n" not in message and len(message) < 300


def test_long_values_are_quoted_as_an_excerpt(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text("name: x\nextends: standard\nrack_size: '" + "y" * 5000 + "'\n")
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    assert "'rack_size'" in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_utf16_and_bom_files_are_read(tmp_path, encoding):
    path = tmp_path / "bom.yaml"
    path.write_bytes("name: bom\nextends: standard\nrack_size: 13\n".encode(encoding))
    assert load_profile(path).rack_size == 13
