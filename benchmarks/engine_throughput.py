"""Games per second of the engine with baseline bots on one core (a benchmark, not a test).

    python benchmarks/engine_throughput.py --games 1000 --profile standard --players 4

Plays seeds 0..N-1 in one process and prints the total time, games/s, and the
median and p95 time per game, plus the mix of round endings.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from rummisim import load_profile, play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()

    profile = load_profile(args.profile)
    bots = ["baseline"] * args.players
    play_game(profile, bots, -1 % 2**32)  # warm the per-profile caches, reported separately
    times, ends, turns = [], Counter(), []
    start = time.perf_counter()
    for seed in range(args.games):
        t0 = time.perf_counter()
        record = play_game(profile, bots, seed)
        times.append(time.perf_counter() - t0)
        ends.update(r.end_reason for r in record.rounds)
        turns.append(record.turns)
    total = time.perf_counter() - start
    ms = np.array(times) * 1000
    print(f"profile {profile.name}, {args.players} x baseline, {args.games} games on one core")
    print(f"total {total:.2f} s  ->  {args.games / total:.1f} games/s")
    print(
        f"per game: median {np.median(ms):.1f} ms, p95 {np.percentile(ms, 95):.1f} ms, "
        f"max {ms.max():.1f} ms; mean turns {np.mean(turns):.1f}"
    )
    print("round endings:", dict(ends))


if __name__ == "__main__":
    main()
