"""The ``rummisim solve`` command: text and JSON output, no-play results, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rummisim import load_profile, parse_table, parse_tiles, validate_move
from rummisim.cli import main


def solve_json(capsys, *args: str) -> dict:
    assert main(["solve", *args, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # exactly one JSON object on one line
    return json.loads(out)


def assert_legal(result: dict, table: str, rack: str, *, opened: bool = True) -> None:
    """The printed move passes the engine's validation (the printed table parses back)."""
    profile = load_profile("standard")
    new_table = parse_table(" | ".join(result["table"]), profile)
    played = parse_tiles(" ".join(result["played"]), profile)
    validate_move(
        profile, parse_table(table, profile), parse_tiles(rack, profile), new_table, played, opened=opened
    )


def test_json_inserts_a_duplicate_by_splitting_a_run(capsys):
    # R4 fits only by splitting R1..R6 into R1 R2 R3 R4 | R4 R5 R6: exactly one tile placed
    result = solve_json(capsys, "--table", "R1 R2 R3 R4 R5 R6", "--rack", "R4 K9")
    assert result["tiles_placed"] == 1 and result["value_placed"] == 4
    assert result["played"] == ["R4"]
    assert sorted(result["table"]) == ["R1 R2 R3 R4", "R4 R5 R6"]
    assert result["proven"] is True
    assert_legal(result, "R1 R2 R3 R4 R5 R6", "R4 K9")


def test_json_places_the_rack_joker_and_writes_its_tile(capsys):
    # R4 extends the run; the joker joins the group (as R5, the only missing colour);
    # B9 fits nowhere. Value: 4 + the joker's 30-point rack penalty.
    table, rack = "R1 R2 R3 | K5 O5 B5", "R4 J B9"
    result = solve_json(capsys, "--table", table, "--rack", rack)
    assert result["tiles_placed"] == 2 and result["value_placed"] == 34
    assert sorted(result["played"]) == ["J", "R4"]
    assert sorted(result["table"]) == ["K5 J(R5) O5 B5", "R1 R2 R3 R4"]
    assert_legal(result, table, rack)


def test_value_objective_prefers_points_over_tiles(capsys):
    # one joker, two uses: K1 K2 J(K3) K4 (4 tiles, 7 + 30 points) or O13 B13 J (3 tiles, 26 + 30)
    rack = "K1 K2 K4 O13 B13 J"
    by_tiles = solve_json(capsys, "--rack", rack)
    assert by_tiles["tiles_placed"] == 4 and by_tiles["value_placed"] == 37
    assert by_tiles["table"] == ["K1 K2 J(K3) K4"]
    by_value = solve_json(capsys, "--rack", rack, "--objective", "value")
    assert by_value["tiles_placed"] == 3 and by_value["value_placed"] == 56
    assert sorted(by_value["played"]) == ["B13", "J", "O13"]


def test_initial_meld_threshold(capsys):
    result = solve_json(capsys, "--rack", "K10 R10 O10 B2", "--initial")
    assert result["tiles_placed"] == 3 and result["value_placed"] == 30
    assert result["table"] == ["K10 R10 O10"]
    # 29 points: no play, which is a normal result (exit 0)
    result = solve_json(capsys, "--rack", "K10 R10 O9 B2", "--initial")
    assert result.pop("search_units") > 0
    assert result == {
        "tiles_placed": 0, "value_placed": 0, "played": [], "table": [], "proven": True, "method": "dp"
    }  # fmt: skip


def test_initial_meld_leaves_the_table_alone(capsys):
    # under standard rules the opening may not touch table sets: the table is kept as it is
    table = "R1 R2 R3 | K5 O5 B5"
    result = solve_json(capsys, "--table", table, "--rack", "K10 R10 O10 R4 R5", "--initial")
    assert result["played"] == ["K10", "R10", "O10"]
    assert sorted(result["table"]) == ["K10 R10 O10", "K5 O5 B5", "R1 R2 R3"]
    assert_legal(result, table, "K10 R10 O10 R4 R5", opened=False)


def test_text_output_names_the_move_and_the_new_table(capsys):
    assert main(["solve", "--table", "R1 R2 R3 | K5 O5 B5", "--rack", "R4 J B9"]) == 0
    out = capsys.readouterr().out
    assert "profile standard, turn, objective tiles" in out
    assert "play:      R4 J" in out
    assert "new table: " in out and "R1 R2 R3 R4" in out and "J(R5)" in out
    assert "placed 2 tile(s) worth 34 point(s); proven optimal" in out


def test_text_output_says_clearly_when_there_is_no_play(capsys):
    assert main(["solve", "--rack", "K10 R10 O9", "--initial"]) == 0
    out = capsys.readouterr().out
    assert "no play (the initial meld cannot reach 30 points" in out
    assert "placed 0 tile(s)" in out
    assert main(["solve", "--table", "R1 R2 R3", "--rack", "B9 K13"]) == 0
    out = capsys.readouterr().out
    assert "no play (no rack tile can be placed)" in out and "R1 R2 R3 (unchanged)" in out


def test_solve_under_another_profile(capsys):
    # 12-13-1 wraps under classic-wrap, not under standard
    wrapped = solve_json(capsys, "--profile", "classic-wrap", "--table", "R11 R12 R13", "--rack", "R1")
    assert wrapped["tiles_placed"] == 1 and wrapped["table"] == ["R11 R12 R13 R1"]
    assert solve_json(capsys, "--table", "R11 R12 R13", "--rack", "R1")["tiles_placed"] == 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--rack", "X4"], "--rack: bad tile 'X4'"),
        (["--rack", "R14"], "value 14 out of range"),
        (["--rack", ""], "--rack: give at least one tile"),
        (["--rack", "R4", "--table", "R1 R2"], "--table: not a valid set under profile 'standard': 'R1 R2'"),
        (["--rack", "R4", "--table", "R1 R2 R3 || K1 O1 B1"], "--table: empty set"),
        (["--rack", "R4", "--table", "R5 J J J"], "not a valid set"),  # 3 jokers: max_per_set 2
        (["--rack", "R4", "--table", "R5 R6 R7 | K2 Q2 B2"], "unknown colour 'Q'"),
        (["--rack", "R4 R4", "--table", "R4 R5 R6"], "hold 3 x R4, but profile 'standard' has only 2"),
        (["--rack", "J J J"], "hold 3 x J"),
        (["--rack", "R4", "--profile", "nope"], "unknown profile 'nope'"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, fragment):
    assert main(["solve", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert fragment in captured.err and captured.err.count("\n") == 1
    assert captured.err.startswith("rummisim: error: ")


def test_bad_table_exits_2_without_a_traceback_in_a_subprocess():
    result = subprocess.run(
        [sys.executable, "-m", "rummisim", "solve", "--table", "R1 R2 | K5 O5 B5", "--rack", "R3", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rummisim: error: --table:")


def test_bad_profile_file_exits_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nextends: standard\nruns:\n  wrap: sometimes\n")
    result = subprocess.run(
        [sys.executable, "-m", "rummisim", "solve", "--profile", str(bad), "--rack", "R4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "runs.wrap" in lines[0]


BIG_RACK = "K7 K11 K13 O7 O8 O10 O12 O12 B1 B10 B13 B13"
BIG_TABLE = (
    "K1 R1 O1 | K1 R1 B1 | K3 K4 K5 | K3 K4 K5 K6 K7 K8 K9 | K9 R9 B9 | J(K11) R11 O11"
    " | K11 R11 B11 | K12 J(R12) B12 | R2 R3 R4 | R4 R5 R6 | R6 R7 R8 | R10 O10 B10"
    " | O1 O2 O3 O4 O5 O6 | O2 O3 O4 O5 O6 O7 | B2 B3 B4 | B3 B4 B5 B6 | B6 B7 B8"
)


def test_budget_option_cuts_the_search_and_says_so(capsys):
    full = solve_json(capsys, "--table", BIG_TABLE, "--rack", BIG_RACK)
    # (281,219 units in 0.3.15, 156,863 in 0.3.17; 10,998 since 0.3.23, read from the top down)
    assert full["proven"] is True and full["search_units"] > 8_000
    cut = solve_json(capsys, "--table", BIG_TABLE, "--rack", BIG_RACK, "--budget", "6000")
    assert cut["proven"] is False and cut["search_units"] <= 6_000
    assert 0 < cut["tiles_placed"] <= full["tiles_placed"]
    assert_legal(cut, BIG_TABLE, BIG_RACK)
    assert main(["solve", "--table", BIG_TABLE, "--rack", BIG_RACK, "--budget", "6000"]) == 0
    assert "NOT proven optimal (the search budget ran out)" in capsys.readouterr().out
    assert main(["solve", "--table", BIG_TABLE, "--rack", BIG_RACK, "--budget", "3"]) == 0
    assert "no play (none found within the search budget)" in capsys.readouterr().out


@pytest.mark.parametrize("budget", ["0", "-5", "many"])
def test_bad_budget_exits_2(capsys, budget):
    with pytest.raises(SystemExit) as exc:
        main(["solve", "--rack", "R4", "--budget", budget])
    assert exc.value.code == 2
    assert (
        f"argument --budget: expected a whole number 1..1000000000, got '{budget}'" in capsys.readouterr().err
    )


def test_which_search_answered_and_why(capsys):
    """``method`` always; ``give_up`` where the exact search gave up: here two rack jokers beside
    a group of three, which the DP counts as played and the decoding finds room for one of.
    ``--method milp`` asks the integer program instead."""
    result = solve_json(capsys, "--table", "K5 O5 B5", "--rack", "J J")
    assert (result["method"], result["give_up"], result["proven"]) == ("cut", "decode", False)
    assert result["tiles_placed"] == 1
    assert main(["solve", "--table", "K5 O5 B5", "--rack", "J J"]) == 0
    assert "NOT proven optimal (the exact search gave up: decode)" in capsys.readouterr().out
    result = solve_json(capsys, "--table", "K5 O5 B5", "--rack", "J J", "--method", "milp")
    assert (result["method"], result["tiles_placed"], result["proven"]) == ("milp", 1, True)
    result = solve_json(capsys, "--rack", "R4 R5 R6")
    assert result["method"] == "dp" and "give_up" not in result
