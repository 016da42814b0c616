"""Batch-runner speed: games/s for several --jobs, and the runner's overhead over a plain loop.

    python benchmarks/runner_scaling.py                       # jobs 1 and 2, 200 greedy games
    python benchmarks/runner_scaling.py --jobs 1 2 4 8 16 --games 1600   # on a 16-core machine

Every configuration plays the same seeded games (4 greedy bots, standard). The
plain loop calls ``play_game`` on the same seeds and seats in this process, with no
chunking, tables or files; the runner with ``--jobs 1`` does the same work
in-process plus building Arrow tables and writing chunk files, so their ratio is
the runner's overhead. A warm-up run first fills the numba cache and starts the
worker pool. Each configuration runs ``--repeats`` times, interleaved, and the
median is reported.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rummisim import play_game
from rummisim.experiment import experiment_from_dict
from rummisim.runner import game_seed, run_experiment, seat_lineup


def make_experiment(games: int, lineup: list[str]):
    return experiment_from_dict(
        {"name": "scaling", "seed": 99, "games": games, "profiles": ["standard"], "lineups": [lineup]},
        "<benchmark>",
    )


def plain_loop(experiment) -> float:
    cell = experiment.cells[0]
    rotations = experiment.rotations(cell)
    start = time.perf_counter()
    for game in range(experiment.games):
        deal, rotation = divmod(game, rotations)
        play_game(cell.profile, seat_lineup(cell.lineup, rotation), game_seed(experiment.seed, deal))
    return time.perf_counter() - start


def runner(experiment, jobs: int, chunk: int, root: Path, tag: str) -> float:
    start = time.perf_counter()
    run_experiment(experiment, root / tag, jobs=jobs, chunk_size=chunk, progress=False, summarize=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--chunk-size", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bot", default="greedy")
    args = parser.parse_args()

    experiment = make_experiment(args.games, [args.bot] * 4)
    times: dict[str, list[float]] = {"loop": [], **{f"jobs={j}": [] for j in args.jobs}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warm = make_experiment(max(args.jobs) * 2, [args.bot] * 4)
        for jobs in args.jobs:  # compile / load the numba cache in every worker, start the pools
            runner(warm, jobs, 1, root, f"warm-{jobs}")
        plain_loop(warm)
        for repeat in range(args.repeats):
            times["loop"].append(plain_loop(experiment))
            for jobs in args.jobs:
                seconds = runner(experiment, jobs, args.chunk_size, root, f"{jobs}-{repeat}")
                times[f"jobs={jobs}"].append(seconds)

    n = experiment.games
    loop = statistics.median(times["loop"])
    base = statistics.median(times[f"jobs={args.jobs[0]}"])
    print(f"{n} games, 4 x {args.bot}, standard, chunk size {args.chunk_size}, median of {args.repeats}")
    print(f"{'config':<10} {'median s':>9} {'games/s':>9} {'speed-up':>9}  runs (s)")
    for name, values in times.items():
        med = statistics.median(values)
        speedup = base / med if name != "loop" else float("nan")
        runs = " ".join(f"{v:.2f}" for v in values)
        print(f"{name:<10} {med:>9.2f} {n / med:>9.1f} {speedup:>9.2f}  {runs}")
    if "jobs=1" in times:
        one = statistics.median(times["jobs=1"])
        pairs = [r / p for r, p in zip(times["jobs=1"], times["loop"], strict=True)]
        print(
            f"runner overhead (jobs=1 vs plain loop): {100 * (one / loop - 1):+.1f}% on medians; "
            f"per-repeat ratios {' '.join(f'{p:.3f}' for p in pairs)}"
        )


if __name__ == "__main__":
    main()
