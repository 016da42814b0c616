"""Win rates of bots against each other, 4 seats, seat rotation (a measurement, not a test).

    python benchmarks/bot_tournament.py --deals 250 --bots greedy,value,conservative,beginner --jobs 2

Each seeded deal is played once per rotation of the lineup through the seats, so
every bot sits in every seat equally often and seat effects cancel. Prints each
bot's wins, win rate with a 95% Wilson interval, and mean score.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from joblib import Parallel, delayed

from rummisim import load_profile, play_game


def play(profile_name: str, lineup: list[str], deal: int, shift: int):
    profile = load_profile(profile_name)
    seats = lineup[shift:] + lineup[:shift]
    record = play_game(profile, seats, deal)
    return seats, record.winner, record.scores, len(record.faults)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=250)
    parser.add_argument("--bots", default="greedy,value,conservative,beginner")
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    lineup = args.bots.split(",")
    tasks = [(d, s) for d in range(args.deals) for s in range(len(lineup))]
    start = time.perf_counter()
    results = Parallel(n_jobs=args.jobs)(delayed(play)(args.profile, lineup, d, s) for d, s in tasks)
    elapsed = time.perf_counter() - start
    wins = dict.fromkeys(lineup, 0)
    scores = {b: [] for b in lineup}
    faults = 0
    for seats, winner, score, nf in results:
        wins[seats[winner]] += 1
        for seat, bot in enumerate(seats):
            scores[bot].append(score[seat])
        faults += nf
    n = len(results)
    print(
        f"{n} games on {args.profile} ({args.deals} deals x {len(lineup)} seat rotations), "
        f"{elapsed:.0f} s with {args.jobs} job(s), faults {faults}"
    )
    print(f"{'bot':<14}{'wins':>6}{'win rate':>10}{'95% interval':>18}{'mean score':>12}")
    for bot in lineup:
        lo, hi = wilson(wins[bot], n)
        print(
            f"{bot:<14}{wins[bot]:>6}{wins[bot] / n:>10.3f}{f'{lo:.3f}-{hi:.3f}':>18}"
            f"{np.mean(scores[bot]):>12.1f}"
        )


if __name__ == "__main__":
    main()
