"""The batch runner: reproducible for any jobs/chunks/backend, resumable, faults recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from rummisim import play_game
from rummisim.bots import BOTS, GreedyBot
from rummisim.cli import main
from rummisim.experiment import ExperimentError, experiment_from_dict
from rummisim.runner import TABLES, game_seed, load_results, run_experiment, seat_lineup

FAST = {
    "name": "fast",
    "seed": 11,
    "games": 12,
    "profiles": [
        "standard",
        {"base": "standard", "name": "wrap", "overrides": {"runs": {"wrap": "high_low"}}},
    ],
    "lineups": [["baseline", "random", "baseline"]],
}


def experiment(**changes):
    return experiment_from_dict({**FAST, **changes}, "fast.yaml")


def files(out: Path) -> dict[str, bytes]:
    return {name: (out / f"{name}.parquet").read_bytes() for name in TABLES}


def run(out, exp=None, **kwargs):
    kwargs.setdefault("summarize", False)
    return run_experiment(exp or experiment(), out, progress=False, **kwargs)


def test_tables_follow_the_schema_and_the_games(tmp_path):
    exp = experiment()
    result = run(tmp_path / "a", exp)
    assert (result.games_total, result.games_done, result.interrupted) == (24, 24, False)
    data = load_results(tmp_path / "a")
    games, seats, matches = data["games"], data["seats"], data["matches"]
    assert len(games) == len(matches) == 24  # single-round profiles: one round per game
    assert len(seats) == 3 * len(games)
    assert set(games["end_reason"]) <= {"out", "pool_exhausted", "turn_cap", "fault"}
    # Rotation: each deal is played 3 times, once per rotation, with the same seed.
    cell0 = games[games["cell"] == 0]
    assert list(cell0["rotation"]) == [0, 1, 2] * 4
    assert cell0.groupby("deal")["seed"].nunique().eq(1).all()
    # Common random numbers: both cells use the same seeds for the same deal.
    seeds = games.pivot_table(index="game", columns="cell", values="seed")
    assert (seeds[0] == seeds[1]).all()
    # Each row agrees with play_game on the same seed and seats.
    row = games.iloc[4]
    spec = exp.cells[int(row["cell"])]
    bots = seat_lineup(spec.lineup, int(row["rotation"]))
    record = play_game(spec.profile, bots, int(row["seed"]))
    assert record.rounds[0].turns == row["turns"]
    assert record.rounds[0].winner == row["winner"]
    mine = seats[(seats["cell"] == row["cell"]) & (seats["game"] == row["game"])].sort_values("seat")
    assert list(mine["score"]) == list(record.rounds[0].scores)
    assert list(mine["bot"]) == bots
    assert list(mine["order"]) == [(s - record.rounds[0].first_player) % 3 for s in range(3)]
    # The random bot sits in every slot-1 row, whatever the rotation.
    assert set(seats.loc[seats["slot"] == 1, "bot"]) == {"random"}
    assert seats.groupby(["cell", "game"])["won"].sum().eq(1).all()
    manifest = data["manifest"]
    assert manifest["status"] == "complete" and manifest["games_done"] == 24
    assert set(manifest["profiles"]) == {c.profile.digest for c in exp.cells}
    assert manifest["experiment"]["cells"][1]["label"] == "wrap"


def test_game_seed_is_a_function_of_root_and_deal_only():
    assert game_seed(1, 0) == game_seed(1, 0)
    assert len({game_seed(1, d) for d in range(100)}) == 100
    assert game_seed(1, 5) != game_seed(2, 5)
    assert 0 <= game_seed(2**62, 10**6) < 2**63


def test_results_are_byte_identical_for_any_jobs_and_chunk_size(tmp_path):
    run(tmp_path / "one", jobs=1, chunk_size=5)
    run(tmp_path / "two", jobs=2, chunk_size=3)
    run(tmp_path / "big", jobs=2, chunk_size=100)
    one = files(tmp_path / "one")
    assert files(tmp_path / "two") == one
    assert files(tmp_path / "big") == one


def test_refuses_a_non_empty_folder_without_resume(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ExperimentError, match="not empty; pass --resume"):
        run(out)
    run(tmp_path / "s")
    with pytest.raises(ExperimentError, match="different experiment"):
        run(tmp_path / "s", experiment(seed=12), resume=True)


def test_resume_after_a_partial_run_equals_an_uninterrupted_run(tmp_path):
    exp = experiment()
    run(tmp_path / "full", exp, chunk_size=4)
    # Simulate a run killed after some chunks: keep 3 of the 6 chunks, plus a half-written temp folder.
    partial = tmp_path / "partial"
    run(partial, exp, chunk_size=4)
    chunks = sorted((partial / "chunks").iterdir())
    for chunk in chunks[3:]:
        for f in chunk.iterdir():
            f.unlink()
        chunk.rmdir()
    (partial / "chunks" / ".tmp-c0001-g00000004-00000008-999").mkdir()
    for name in TABLES:
        (partial / f"{name}.parquet").unlink()
    result = run(partial, exp, resume=True)
    assert result.games_played == 24 - 3 * 4
    assert files(partial) == files(tmp_path / "full")


def cli_run(tmp_path: Path, games: int) -> list[str]:
    """The CLI command for the FAST experiment with ``games`` per cell, one job, 3-game chunks."""
    spec_path = tmp_path / "exp.yaml"
    spec_path.write_text(yaml.safe_dump({**FAST, "games": games}))
    return [sys.executable, "-m", "rummisim", "run", str(spec_path), "--jobs", "1", "--chunk-size", "3"]


def wait_for_chunks(out: Path, n: int, proc: subprocess.Popen) -> None:
    """Until the run has written ``n`` chunks; fails if it ends or takes 5 minutes first (the
    suite's other workers share the cores, and the run's start imports numba)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "chunks").exists() and len(list((out / "chunks").glob("c*"))) >= n:
            return
        time.sleep(0.02)
    proc.kill()
    _, err = proc.communicate()
    pytest.fail(f"the run did not write {n} chunks (exit {proc.returncode}): {(err or '')[-2000:]}")


@pytest.mark.slow
def test_a_killed_run_resumed_from_the_cli_equals_an_uninterrupted_run(tmp_path):
    cmd = cli_run(tmp_path, 60)
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*cmd, "--out", str(killed), "--no-report"], stderr=subprocess.DEVNULL)
    wait_for_chunks(killed, 4, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    n_done = len(list((killed / "chunks").glob("c*")))
    assert 4 <= n_done < 40, "the run should have been killed mid-way"
    subprocess.run([*cmd, "--out", str(killed), "--resume", "--no-report"], check=True, capture_output=True)
    subprocess.run([*cmd, "--out", str(tmp_path / "clean"), "--no-report"], check=True, capture_output=True)
    assert files(killed) == files(tmp_path / "clean")


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path):
    cmd = cli_run(tmp_path, 3000)
    spec_path = tmp_path / "exp.yaml"
    out = tmp_path / "out"
    # SIGINT at its default in the child: a test run started in the background (``pytest &``
    # in a shell without job control) inherits it ignored, and Python then never raises
    # KeyboardInterrupt, so the run would play to the end
    proc = subprocess.Popen(
        [*cmd, "--out", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wait_for_chunks(out, 2, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    assert f"resume with: rummisim run {spec_path} --out {out} --resume" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    assert 0 < manifest["games_done"] < 6000


class ExplodingBot(GreedyBot):
    """Raises on its third decision."""

    name = "exploding"

    def act(self, view):
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == 3:
            raise RuntimeError("boom")
        return super().act(view)


def test_a_failing_bot_is_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setitem(BOTS, "exploding", ExplodingBot)
    exp = experiment(lineups=[["baseline", "exploding", "baseline"]], profiles=["standard"])
    result = run(tmp_path / "f", exp, summarize=True)
    data = load_results(tmp_path / "f")
    games = data["games"]
    assert len(games) == 12
    assert (games["faults"] >= 1).all()
    assert games["fault"].str.contains("boom").all()
    assert result.faults == 12
    listed = data["manifest"]["faults"]["listed"]
    assert len(listed) == 12 and data["manifest"]["faults"]["games"] == 12
    assert listed[0]["replay"].startswith("rummisim play --profile ")
    assert f"--seed {listed[0]['seed']}" in listed[0]["replay"]


def test_a_crashing_game_and_the_turn_cap_are_faults(tmp_path, monkeypatch):
    import rummisim.runner.rows as runner_rows

    real = runner_rows.play_game
    crash_seed = game_seed(11, 1)

    def flaky(profile, bots, seed, **kwargs):
        if seed == crash_seed:
            raise ValueError("engine exploded")
        return real(profile, bots, seed, **kwargs)

    monkeypatch.setattr(runner_rows, "play_game", flaky)
    capped = {"base": "standard", "name": "capped", "overrides": {"end": {"max_turns": 6}}}
    result = run(tmp_path / "c", experiment(profiles=["standard", capped]), summarize=True)
    games = load_results(tmp_path / "c")["games"]
    crashed = games[games["end_reason"] == "fault"]
    assert set(crashed["deal"]) == {1} and len(crashed) == 6  # 3 rotations x 2 cells
    assert crashed["fault"].str.contains("engine exploded").all()
    capped_rows = games[(games["cell"] == 1) & (games["end_reason"] != "fault")]
    assert (capped_rows["end_reason"] == "turn_cap").all()
    assert capped_rows["fault"].str.startswith("turn cap").all()
    assert result.faults == 6 + len(capped_rows)


def test_replay_command_reproduces_the_game(tmp_path, capsys):
    exp = experiment(lineups=[["baseline", {"name": "conservative", "params": {"min_play": 2}}, "random"]])
    run(tmp_path / "p", exp, summarize=True)
    games = load_results(tmp_path / "p")["games"]
    row = games.iloc[5]
    cell = exp.cells[int(row["cell"])]
    from rummisim.runner import replay_command

    profile_path = tmp_path / "p" / "profiles" / f"{cell.profile.digest}.yaml"
    command = replay_command(str(profile_path), cell.lineup, int(row["rotation"]), int(row["seed"]))
    args = command.split()[1:]
    args[args.index("--bots") + 1] = args[args.index("--bots") + 1].strip("'")
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"after {row['turns']} turns: seat {row['winner']} wins" in out


@pytest.mark.slow
def test_dask_backend_on_a_local_cluster_gives_identical_results(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    run(tmp_path / "loky", jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        run(tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address, chunk_size=5)
    assert files(tmp_path / "dask") == files(tmp_path / "loky")


def test_cli_run_writes_results_and_summary(tmp_path, capsys):
    spec_path = tmp_path / "exp.yaml"
    spec_path.write_text(yaml.safe_dump({**FAST, "games": 6}))
    out = tmp_path / "cli"
    assert main(["run", str(spec_path), "--out", str(out), "--jobs", "1", "--no-report", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "done: 12 games" in err
    for name in ("games.parquet", "seats.parquet", "matches.parquet", "summary.csv", "manifest.json"):
        assert (out / name).exists(), name
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["cell"]) == [0, 1]
    assert main(["run", str(spec_path), "--out", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert main(["run", str(spec_path), "--out", str(out), "--jobs", "0"]) == 2


def test_match_profiles_write_one_match_row_and_several_rounds(tmp_path):
    exp = experiment(profiles=["polish-40"], lineups=[["baseline", "baseline", "baseline"]], games=3)
    run(tmp_path / "m", exp)
    data = load_results(tmp_path / "m")
    assert (data["matches"]["rounds"] == 4).all()
    assert len(data["games"]) == 12
    final = data["seats"].groupby(["game", "seat"])["score"].sum()
    match_scores = data["seats"].groupby(["game", "seat"])["match_score"].first()
    assert (final == match_scores).all()
    for _, m in data["matches"].iterrows():
        assert np.argmax(m["scores"]) == m["winner"] or m["tied"]


def test_interrupted_results_are_not_loaded_as_complete(tmp_path):
    out = tmp_path / "x"
    os.makedirs(out)
    (out / "manifest.json").write_text(json.dumps({"status": "interrupted"}))
    with pytest.raises(ExperimentError, match="--resume"):
        load_results(out)
