"""Bad input at the CLI and the loaders: one short line, exit 2, never a traceback; names and the
one bot-spec grammar."""

from __future__ import annotations

import pytest

from rummisim import ProfileError, experiment_from_dict, load_profile, play_game
from rummisim.cli import main
from rummisim.experiment import ExperimentError
from rummisim.transcript import Transcript


def one_line_error(capsys, args) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def cli_exit(capsys, args) -> str:
    """argparse errors leave through SystemExit(2)."""
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["play", "--seed", "-1"], "--seed: expected a whole number 0.."),
        (["play", "--seed", "9" * 5000], "--seed: expected a whole number"),
        (
            ["solve", "--rack", "R4", "--budget", str(2**70)],
            "--budget: expected a whole number 1..1000000000",
        ),
        (["solve", "--rack", "R4", "--budget", "0"], "--budget"),
        (["nonsense"], "invalid choice"),
    ],
)
def test_bad_flags_are_one_line(capsys, args, fragment):
    assert fragment in cli_exit(capsys, args)


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("rummisim ")


def test_play_fits_its_default_bots_to_the_profile(tmp_path, capsys):
    two = tmp_path / "two.yaml"
    two.write_text("extends: standard\nplayers: {min: 2, max: 2}\n")
    assert main(["play", "--profile", str(two), "--quiet"]) == 0
    assert "seat 1" in capsys.readouterr().out


def test_a_capped_match_says_so(tmp_path, capsys):
    long = tmp_path / "long.yaml"
    long.write_text("extends: ramino-discard\nmatch: {target_points: 100000, max_rounds: 1}\n")
    assert main(["play", "--profile", str(long), "--quiet"]) == 0
    assert "stopped at its cap of 1 rounds" in capsys.readouterr().out


def test_a_profile_without_a_name_takes_its_file_stem(tmp_path, capsys):
    mine = tmp_path / "my-rules.yaml"
    mine.write_text("extends: standard\nrack_size: 13\n")
    assert load_profile(mine).name == "my-rules"
    assert main(["profiles", "validate", str(mine)]) == 0
    assert "profile 'my-rules'" in capsys.readouterr().out


def test_extends_a_missing_file_names_the_file_that_asked(tmp_path):
    asker = tmp_path / "asker.yaml"
    asker.write_text("extends: nothere.yaml\n")
    with pytest.raises(ProfileError) as info:
        load_profile(asker)
    assert str(info.value).startswith(f"{asker}: key 'extends':") and "nothere.yaml" in str(info.value)


@pytest.mark.parametrize("budget", [2**64, 10**9 + 1])
def test_search_budget_has_an_upper_bound(tmp_path, budget):
    path = tmp_path / "big.yaml"
    path.write_text(f"extends: standard\ntime_limit: {{search_budget: {budget}}}\n")
    with pytest.raises(ProfileError, match="time_limit.search_budget"):
        load_profile(path)


EXPERIMENT = {"name": "e", "seed": 1, "games": 2, "lineups": [["greedy", "baseline"]]}


def test_two_cells_with_one_label_are_refused():
    twin = {"base": "standard", "name": "standard", "overrides": {"rack_size": 13}}
    same = {**EXPERIMENT, "profiles": ["standard", twin]}
    with pytest.raises(ExperimentError, match="both be labelled 'standard'"):
        experiment_from_dict(same, "e.yaml")


def test_one_bot_spec_grammar_everywhere():
    spec = {**EXPERIMENT, "profiles": ["standard"], "lineups": [["conservative(min_play=2)", "greedy"]]}
    exp = experiment_from_dict(spec, "e.yaml")
    assert exp.cells[0].lineup[0] == {"name": "conservative", "params": {"min_play": 2}}
    record = play_game(load_profile("standard"), ["conservative(min_play=2)", "greedy"], 3)
    assert record.bots == ("conservative(min_play=2)", "greedy")
    bad = {**spec, "lineups": [["conservative(min_play=0)", "greedy"]]}
    with pytest.raises(ExperimentError, match=r"lineups\[0\]\[0\].*min_play"):
        experiment_from_dict(bad, "e.yaml")


def test_play_streams_the_same_text_it_would_print_at_the_end(capsys):
    # a long game shows its progress: each turn is printed as it ends, and the whole text is
    # exactly format_game's account of the finished game
    from rummisim.text import format_game  # noqa: PLC0415 - the text play streams

    profile = load_profile("polish-40")
    shown = []
    transcript = Transcript(profile, on_turn=shown.append, on_round=shown.append)
    record = play_game(profile, ["baseline", "greedy"], 5, events=transcript)
    assert len(shown) == record.turns + record.n_rounds and transcript.rounds == list(record.rounds)
    assert main(["play", "--profile", "polish-40", "--bots", "baseline,greedy", "--seed", "5"]) == 0
    assert capsys.readouterr().out == format_game(record, transcript.turns, profile, 5) + "\n"


def test_solver_bots_on_a_tile_set_beyond_the_fast_search_are_refused_with_the_way_out(tmp_path, capsys):
    # 8 colours x 30 values, rack 50: the DP cannot encode the table, so every solver move would
    # be an integer program taking minutes; refused in one line naming search_budget, unless a
    # budget bounds each turn (then the game streams its turns as it goes)
    from rummisim.bots import BotError  # noqa: PLC0415
    from rummisim.bots.registry import check_search_scope  # noqa: PLC0415
    from rummisim.experiment import load_experiment  # noqa: PLC0415
    from rummisim.runner import run_experiment  # noqa: PLC0415

    text = "extends: standard\ntiles: {colors: 8, values: 30}\nrack_size: 50\ngroups: {max_size: 8}\n"
    huge = tmp_path / "huge.yaml"
    huge.write_text(text)
    err = one_line_error(capsys, ["play", "--profile", str(huge), "--bots", "baseline,greedy"])
    assert "beyond what the fast exact move search encodes" in err and "search_budget" in err
    from rummisim.solver import supported  # the public scope check the CLI asks

    assert supported(load_profile("standard")) and not supported(load_profile(huge))
    exp = tmp_path / "exp.yaml"
    exp.write_text(f"name: big\nseed: 1\ngames: 2\nprofiles: [{huge}]\nlineups: [[greedy, greedy]]\n")
    refused = one_line_error(capsys, ["run", str(exp), "--out", str(tmp_path / "out")])
    assert "cell 'huge'" in refused
    assert not (tmp_path / "out").exists()
    # the library refuses the same way: run_experiment checks every cell before writing anything
    with pytest.raises(BotError) as caught:
        run_experiment(load_experiment(exp), tmp_path / "out")
    assert f"rummisim: error: {caught.value}" == refused.strip()
    assert not (tmp_path / "out").exists()
    profile = load_profile(huge)
    check_search_scope(profile, ["baseline", "random"], "--bots")  # no solver bot: fine
    bounded = tmp_path / "bounded.yaml"
    bounded.write_text(text + "time_limit: {search_budget: 2000}\n")
    check_search_scope(load_profile(bounded), ["greedy"], "--bots")  # a budget bounds each turn
    check_search_scope(load_profile("standard"), ["greedy"], "--bots")
    with pytest.raises(BotError, match="^--bots: profile 'huge' .* solver bot 'value'"):
        check_search_scope(profile, ["value", "greedy"], "--bots")


# ----- bounded work before anything runs -----------------------------------------------------------


def test_a_sweep_too_big_is_refused_before_it_is_built():
    """10^6 cells is counted, not expanded: refused at once, naming the limit."""
    import time

    from rummisim.experiment import MAX_CELLS

    spec = {
        "name": "huge",
        "seed": 1,
        "games": 1,
        "profiles": ["standard"],
        "lineups": [["greedy", "greedy"]],
        "sweep": {"initial_meld.threshold": list(range(1000)), "rack_size": list(range(1000))},
    }
    started = time.perf_counter()
    with pytest.raises(ExperimentError) as info:
        experiment_from_dict(spec)
    assert time.perf_counter() - started < 5  # (bounded: nothing is built; generous for a slow machine)
    message = str(info.value)
    assert "1,000,000 cells" in message and f"{MAX_CELLS:,}" in message and "\n" not in message


def test_replay_refuses_an_endless_line_and_huge_numbers(tmp_path, capsys):
    err = one_line_error(capsys, ["replay", "/dev/zero"])
    assert "line longer than" in err
    header = '{"type":"header","format":"rummisim-game-log","version":1,"profile":"standard","seed":%s,"bots":["a","b"]}'
    digits = tmp_path / "digits.jsonl"
    digits.write_text(header % ("9" * 5000) + "\n")
    assert "too many digits" in one_line_error(capsys, ["replay", str(digits)])
    big = tmp_path / "big.jsonl"
    big.write_text(header % (2**70) + "\n")
    assert "2**63" in one_line_error(capsys, ["replay", str(big)])


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs FIFOs")
def test_a_profile_that_extends_a_fifo_is_refused(tmp_path, capsys):
    import os

    fifo = tmp_path / "base.yaml"
    os.mkfifo(fifo)
    child = tmp_path / "child.yaml"
    child.write_text(f"name: child\nextends: {fifo}\n")
    err = one_line_error(capsys, ["profiles", "validate", str(child)])
    assert "a FIFO" in err and "base.yaml" in err
    assert "a FIFO" in one_line_error(capsys, ["play", "--profile", str(fifo)])
    assert "a folder" in one_line_error(capsys, ["play", "--profile", str(tmp_path)])


def test_a_huge_integer_names_its_key(tmp_path, capsys):
    big = tmp_path / "big.yaml"
    big.write_text("name: x\nextends: standard\nrack_size: " + "9" * 5000 + "\n")
    err = one_line_error(capsys, ["profiles", "validate", str(big)])
    assert "key 'rack_size': an integer of 5000 digits at line 3" in err
    exp = tmp_path / "exp.yaml"
    exp.write_text("name: x\nseed: 1\ngames: 2\nprofiles: [standard]\nlineups: [[greedy, greedy]]\n"
                   "sweep:\n  initial_meld.threshold: [30, " + "9" * 500 + "]\n")  # fmt: skip
    err = one_line_error(capsys, ["run", str(exp), "--out", str(tmp_path / "out")])
    assert "key 'sweep.initial_meld.threshold[1]': an integer of 500 digits" in err


def test_play_quiet_prints_only_the_final_scores(capsys):
    assert main(["play", "--profile", "polish-40", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Final scores after 4 round(s): ") and out[-1].startswith("Winner: seat ")
    assert len(out) == 2
