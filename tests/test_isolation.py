"""Bots in a process of their own (``rummisim.isolation``): only the seat's view crosses the pipe,
and a hang, a sleep, a crash, ``sys.exit``, a raised ``KeyboardInterrupt`` or a killed process is
a timeout or a fault while the game goes on."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from rummisim import load_profile, play_game
from rummisim.bots import parse_spec
from rummisim.cli import main
from rummisim.isolation import Isolated

BOTS = textwrap.dedent(
    """
    import gc, os, signal, sys, time
    from rummisim.bots import Bot
    from rummisim.contract import Draw

    class Sleeper(Bot):
        def act(self, view):
            if 6 < view.turn < 16:
                time.sleep(100)
            return Draw()

    class Exiter(Bot):
        def act(self, view):
            sys.exit(3)

    class Interrupter(Bot):
        def act(self, view):
            raise KeyboardInterrupt

    class Killer(Bot):
        def act(self, view):
            if view.turn < 12:
                os.kill(os.getpid(), signal.SIGKILL)
            return Draw()

    class Printer(Bot):
        def act(self, view):
            print("noise that must not reach the protocol")
            return Draw()

    class Peeker(Bot):
        def act(self, view):
            engine = [o for o in gc.get_objects() if type(o).__name__ in ("_Round", "RoundState")]
            if engine:
                raise RuntimeError(f"found {len(engine)} engine objects")
            return Draw()
    """
)


@pytest.fixture
def module(tmp_path, monkeypatch) -> str:
    (tmp_path / "rs_isolation_bots.py").write_text(BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    return "rs_isolation_bots"


@pytest.mark.parametrize(
    ("cls", "rule", "message"),
    [
        ("Exiter", "bot_error", "SystemExit: 3"),
        ("Interrupter", "bot_error", "KeyboardInterrupt"),
        ("Killer", "bot_error", "its process ended (exit code -9)"),
    ],
)
def test_a_crash_exit_interrupt_or_kill_is_a_fault_and_the_game_goes_on(module, cls, rule, message):
    standard = load_profile("standard")
    record = play_game(standard, [Isolated(parse_spec(f"{module}:{cls}"), 5.0), "greedy"], 3)
    assert record.winner == 1 and record.rounds[0].end_reason in ("out", "pool_exhausted")
    faults = [f for f in record.faults if f.seat == 0]
    assert faults and all(f.rule == rule and message in f.message for f in faults)
    if cls == "Killer":  # each decision after a kill starts a new process; from turn 12 it draws
        assert len(faults) >= 5 and all(f.turn < 12 for f in faults)


def test_a_hang_is_a_timeout_under_the_profiles_rule(module):
    """From turn 7 to 15 every decision sleeps: each is cut at the limit, counted as a timeout
    (the profile's ``on_timeout: penalty`` draws), and the game goes on and ends normally."""
    standard = load_profile("standard")
    record = play_game(standard, [Isolated(parse_spec(f"{module}:Sleeper"), 0.3), "greedy"], 3)
    assert record.rounds[0].end_reason in ("out", "pool_exhausted") and record.winner == 1
    assert record.rounds[0].timeouts >= 3 and not record.faults


def test_only_the_view_crosses_and_prints_do_not_break_the_protocol(module):
    standard = load_profile("standard")
    peeker = f"{module}:Peeker"
    inside = play_game(standard, [peeker, "greedy"], 3)  # in-process it reaches the engine
    assert inside.faults and "found" in inside.faults[0].message
    record = play_game(standard, [Isolated(parse_spec(peeker)), "greedy"], 3)
    assert not record.faults
    record = play_game(standard, [Isolated(parse_spec(f"{module}:Printer")), "greedy"], 3)
    assert not record.faults


def test_an_isolated_bot_plays_the_same_game_as_in_process():
    standard = load_profile("standard")
    factory = Isolated(parse_spec("greedy"))
    for seed in (1, 2):
        isolated = play_game(standard, [factory, "value", "greedy"], seed)
        plain = play_game(standard, ["greedy", "value", "greedy"], seed)
        assert isolated.rounds == plain.rounds
    assert len(factory.idle) <= 1  # the second game reused the first one's child


def test_the_cli_isolates_class_path_bots(module, tmp_path, capsys):
    args = [
        "play",
        "--bots",
        f"{module}:Sleeper,greedy",
        "--seed",
        "3",
        "--isolate",
        "--bot-time-limit",
        "0.3",
    ]
    assert main([*args, "--quiet"]) == 0
    assert "Final scores" in capsys.readouterr().out
    exp = tmp_path / "exp.yaml"
    exp.write_text(
        f"name: iso\nseed: 1\ngames: 2\nprofiles: [standard]\nlineups: [[{module}:Peeker, greedy]]\n"
    )
    assert (
        main(["run", str(exp), "--out", str(tmp_path / "iso"), "--jobs", "1", "--quiet", "--no-report"]) == 0
    )
    manifest = json.loads((tmp_path / "iso" / "manifest.json").read_text())
    assert manifest["faults"]["games"] == 0  # isolated by default: nothing to peek at
    out = tmp_path / "inside"
    assert (
        main(["run", str(exp), "--out", str(out), "--jobs", "1", "--quiet", "--no-report", "--no-isolate"])
        == 0
    )
    assert json.loads((out / "manifest.json").read_text())["faults"]["games"] == 2


def test_a_bad_time_limit_is_one_line(capsys):
    with pytest.raises(SystemExit) as info:
        main(["play", "--bot-time-limit", "0"])
    assert info.value.code == 2
    assert "--bot-time-limit: expected seconds" in capsys.readouterr().err
