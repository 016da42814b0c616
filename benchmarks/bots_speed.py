"""Speed of each bot: time per decision and games per second (a benchmark, not a test).

    python benchmarks/bots_speed.py --games 20 --profile standard --players 4

For each bot, plays seeds 0..N-1 with every seat taken by that bot, in one
process, and prints games/s, decisions per game, and the median, p95 and max
time of one ``act`` call (every phase counts as one decision).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rummisim import load_profile, play_game
from rummisim.bots import BOTS, make_bot


class Timed:
    """Wraps a bot and records the wall time of each ``act`` call."""

    def __init__(self, bot, times: list[float]):
        self.bot, self.times, self.name = bot, times, bot.name

    def act(self, view):
        start = time.perf_counter()
        action = self.bot.act(view)
        self.times.append(time.perf_counter() - start)
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bots", default=",".join(BOTS))
    args = parser.parse_args()

    profile = load_profile(args.profile)
    print(f"profile {profile.name}, {args.players} seats of one bot, {args.games} games on one core")
    header = ("bot", "games/s", "turns/game", "acts/game", "median ms", "p95 ms", "max ms")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (13, 8, 10, 9, 9, 8, 8), strict=True)))
    for name in args.bots.split(","):
        play_game(profile, [name] * args.players, 2**31)  # warm per-profile caches
        times: list[float] = []
        turns = 0
        start = time.perf_counter()
        for seed in range(args.games):
            rngs = [np.random.default_rng([seed, seat]) for seat in range(args.players)]
            bots = [Timed(make_bot(name, profile, rng), times) for rng in rngs]
            turns += play_game(profile, bots, seed).turns
        total = time.perf_counter() - start
        ms = np.array(times) * 1000
        print(
            f"{name:>13} {args.games / total:8.2f} {turns / args.games:10.1f} {len(ms) / args.games:9.1f} "
            f"{np.median(ms):9.2f} {np.percentile(ms, 95):8.1f} {ms.max():8.1f}"
        )


if __name__ == "__main__":
    main()
