"""Rounds per second of four ``greedy`` bots under every built-in profile, and how many solver
calls fell back to the integer program (a benchmark, not a test).

    python benchmarks/profile_speed.py [--games 8] [--repeats 2]

Plays seeds ``0..games-1`` per profile in one process, after one warm-up game (numba and
the per-profile caches), ``repeats`` times in alternation, and prints the median rounds/s
per profile with its ratio to ``standard``, plus the calls that reached the integer program
in the last repetition (openings and turn mode apart). Run it from two checkouts side by side to compare
versions: ``cd DIR && PYTHONPATH=DIR python benchmarks/profile_speed.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

import rummisim.solver.dispatch as solver_module
from rummisim import builtin_profiles, load_profile, play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()

    calls: Counter[str] = Counter()
    solve_milp = solver_module.solve_milp

    def counted_milp(*a, **k):
        calls["milp opening" if k.get("initial") else "milp turn"] += 1
        return solve_milp(*a, **k)

    solver_module.solve_milp = counted_milp
    names = sorted(builtin_profiles())
    rates: dict[str, list[float]] = {name: [] for name in names}
    fallbacks: dict[str, Counter[str]] = {}
    for name in names:
        play_game(load_profile(name), ["greedy"] * 4, 10_000)  # warm-up
    for _ in range(args.repeats):
        for name in names:
            profile = load_profile(name)
            calls.clear()
            start, rounds = time.perf_counter(), 0
            for seed in range(args.games):
                rounds += play_game(profile, ["greedy"] * 4, seed).n_rounds
            rates[name].append(rounds / (time.perf_counter() - start))
            fallbacks[name] = Counter(calls)
    base = statistics.median(rates["standard"])
    print(f"{'profile':<20} {'rounds/s':>9} {'vs standard':>12} {'MILP openings':>14} {'MILP turns':>11}")
    for name in names:
        median = statistics.median(rates[name])
        opening, turn = fallbacks[name]["milp opening"], fallbacks[name]["milp turn"]
        print(f"{name:<20} {median:>9.2f} {median / base:>11.2f}x {opening:>14} {turn:>11}")


if __name__ == "__main__":
    main()
