"""Size and time cost of ``rummisim run --turns`` (the per-turn table).

    python benchmarks/turns_cost.py --games 1000 --jobs 2 --repeat 2

1. End to end: the same experiment (``standard``, ``[greedy, value, conservative, beginner]``,
   seats rotated) run with and without ``--turns``, alternated (without, with, with, without, ...)
   so that a drifting machine load hits both alike; wall time and the CPU time of the run's whole
   process tree (its workers included), the size of each table and of the chunks.
2. In one process: the same games played with and without the events callback (plus building
   the rows), alternated game by game, CPU time only: the overhead without the noise of a busy
   machine.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

LINEUP = ["greedy", "value", "conservative", "beginner"]


def spec(games: int) -> dict:
    return {"name": "turns-cost", "seed": 90, "games": games, "profiles": ["standard"], "lineups": [LINEUP]}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def end_to_end(games: int, jobs: int, repeat: int, root: Path) -> None:
    path = root / "turns-cost.yaml"
    path.write_text(yaml.safe_dump(spec(games)))
    order = [
        kind for i in range(repeat) for kind in (("plain", "turns") if i % 2 == 0 else ("turns", "plain"))
    ]
    times: dict[str, list[tuple[float, float]]] = {"plain": [], "turns": []}
    for i, kind in enumerate(order):
        out = root / f"{kind}-{i}"
        command = [sys.executable, "-m", "rummisim", "run", str(path), "--out", str(out), "--jobs", str(jobs)]
        command += ["--quiet", "--no-report", *(["--turns"] if kind == "turns" else [])]
        cpu, start = children_cpu(), time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times[kind].append((time.perf_counter() - start, children_cpu() - cpu))
        chunks = sum(p.stat().st_size for p in (out / "chunks").rglob("*.parquet"))
        tables = {p.stem: p.stat().st_size for p in sorted(out.glob("*.parquet"))}
        wall, cpu = times[kind][-1]
        print(f"{kind:5} wall {wall:6.1f} s  cpu {cpu:6.1f} s  chunks {chunks:,} B  {tables}")
    for kind, runs in times.items():
        wall, cpu = (statistics.median(r[k] for r in runs) for k in (0, 1))
        print(f"{kind:5} median of {len(runs)}: wall {wall:.1f} s, cpu {cpu:.1f} s")


def in_process(games: int) -> None:
    from rummisim import load_profile
    from rummisim.api import lineup
    from rummisim.bots import bot_label, bot_name
    from rummisim.engine import play_game
    from rummisim.runner.plan import game_seed, seat_lineup
    from rummisim.runner.turns import turn_rows

    profile = load_profile("standard")
    play_game(profile, lineup(LINEUP), 1)  # warm the solver up
    plain = with_turns = building = 0.0
    rows = 0
    for game in range(games):
        deal, rotation = divmod(game, len(LINEUP))
        seats, seed = seat_lineup(tuple(LINEUP), rotation), game_seed(90, deal)
        for turns in (True, False) if game % 2 else (False, True):
            start = time.process_time()
            if not turns:
                play_game(profile, lineup(seats), seed)
                plain += time.process_time() - start
                continue
            events: list = []
            play_game(profile, lineup(seats), seed, events=events.append)
            played = time.process_time()
            rows += len(
                turn_rows(
                    events, profile.tileset, [bot_name(s) for s in seats], [bot_label(s) for s in seats]
                )
            )
            building += time.process_time() - played
            with_turns += time.process_time() - start
    print(
        f"in one process, {games} games: {plain:.2f} s cpu without, {with_turns:.2f} s with events and rows "
        f"(+{(with_turns / plain - 1) * 100:.1f}%; building {rows} rows: {building:.3f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games of the end-to-end runs")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each kind, alternated")
    parser.add_argument("--in-process-games", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        end_to_end(args.games, args.jobs, args.repeat, Path(root))
    in_process(args.in_process_games)


if __name__ == "__main__":
    main()
