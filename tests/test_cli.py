"""The command line: play, profiles list/show/validate, and one-line errors with exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rummisim import load_profile
from rummisim.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummisim", *args], capture_output=True, text=True, timeout=120
    )


def test_play_prints_a_readable_reproducible_log():
    args = ("play", "--profile", "standard", "--bots", "baseline,baseline,baseline", "--seed", "7")
    first, second = run(*args), run(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    out = first.stdout
    assert "Round 1: seat" in out
    assert "turn   1  seat" in out
    assert "table:" in out and "racks:" in out and "pool:" in out
    assert "Final scores after 1 round(s)" in out and "Winner: seat" in out
    assert run("play", "--seed", "8").stdout != out


@pytest.mark.parametrize("name", ["classic-wrap", "ramino-discard", "guide-strict-joker", "polish-40"])
def test_play_every_profile(name, capsys):
    assert main(["play", "--profile", name, "--bots", "baseline,baseline", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert f"profile {name}" in out and "Winner: seat" in out


def test_bad_profile_exits_2_with_one_line_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nextends: standard\ntiles:\n  jokers: nine\n")
    result = run("play", "--profile", str(bad), "--seed", "1")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rummisim: error:")
    assert "tiles.jokers" in lines[0] and str(bad) in lines[0]
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [oops\n")
    result = run("play", "--profile", str(broken))
    assert result.returncode == 2 and "line" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["play", "--profile", "nope"], "unknown profile 'nope'"),
        (["play", "--bots", "baseline,wizard"], "unknown bot 'wizard'"),
        (["play", "--bots", "baseline"], "allows 2..4 players"),
        (["profiles", "validate", "/no/such/file.yaml"], "does not exist"),
    ],
)
def test_user_errors_exit_2(capsys, args, fragment):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


def test_profiles_list_show_validate(tmp_path, capsys):
    assert main(["profiles", "list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == 5 and any(line.startswith("polish-40 ") for line in listing)
    assert main(["profiles", "show", "polish-40"]) == 0
    shown = capsys.readouterr().out
    assert "extends" not in shown and "threshold: 40" in shown
    for key in ("must_play_if_able: false", "discard: after_play", "max_per_set: 2",
                "when_pool_empty: end_round", "target_counts: positive"):  # fmt: skip
        assert key in shown  # profiles show includes the keys of the rules-fidelity audit
    path = tmp_path / "resolved.yaml"
    path.write_text(shown)
    assert main(["profiles", "validate", str(path)]) == 0
    assert "ok" in capsys.readouterr().out
    assert load_profile(path) == load_profile("polish-40")
