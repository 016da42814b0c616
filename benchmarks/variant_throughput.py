"""Rounds per second of the solver bots under every built-in profile, and which search answered
their solver calls (a benchmark, not a test).

    python benchmarks/variant_throughput.py [--games 16] [--repeats 3] [--profile NAME ...]

Rows: four ``greedy`` bots under each built-in profile (or the ``--profile`` subset; ``standard``
greedy always runs, it is the yardstick) and four ``beginner`` bots (``rearrange=False``
searches) under ``standard``. In one process, after one warm-up game per row (numba, the
per-profile caches), every row plays seeds ``0..games-1``, and the rows take turns ``repeats``
times, so a slow spell of the machine hits every row alike. Per row it prints the median
rounds/s over the repeats, the ratio to standard greedy with its target (every profile at least
0.5x standard greedy, beginner at least 0.5x greedy), and the solver calls by method
(``Solution.method``: dp, beam, milp, none) with the MILP calls per 1,000 searches. The calls are
counted by wrapping ``solve`` wherever the bots and the engine hold it (every loaded
``rummisim.*`` module whose ``solve`` is ``rummisim.solver.dispatch.solve``, the package
``rummisim.solver`` too, which modules that import it on first use read); the games are
seeded, so every repeat makes the same calls and the counts are those of one repeat.

Replaces ``profile_speed.py``. To compare two versions, run it in both checkouts:
``cd DIR && PYTHONPATH=DIR python benchmarks/variant_throughput.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

import rummisim.solver.dispatch as dispatch
from rummisim import builtin_profiles, load_profile, play_game
from rummisim.solver import METHODS

TARGET_PROFILE = 0.5  # every built-in profile's greedy rounds/s against standard greedy
TARGET_BEGINNER = 0.5  # beginner against greedy, both under standard
WARM_UP_SEED = 10_000


def count_solver_calls() -> Counter[str]:
    """Wrap ``solve`` in every loaded ``rummisim`` module that holds it; the returned counter
    counts the calls by ``Solution.method``."""
    calls: Counter[str] = Counter()
    inner = dispatch.solve

    def counted(*args, **kwargs):
        solution = inner(*args, **kwargs)
        calls[solution.method] += 1
        return solution

    wrapped = []
    for name, module in list(sys.modules.items()):
        if (name == "rummisim" or name.startswith("rummisim.")) and getattr(module, "solve", None) is inner:
            module.solve = counted
            wrapped.append(name)
    if "rummisim.solver" not in wrapped:
        raise RuntimeError(f"rummisim.solver.solve is not dispatch.solve (wrapped: {wrapped})")
    return calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="seeded games per row and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--profile",
        action="append",
        default=None,
        help="a built-in profile to run (repeatable; default: all)",
    )
    args = parser.parse_args()
    names = sorted(builtin_profiles())
    if args.profile:
        unknown = sorted(set(args.profile) - set(names))
        if unknown:
            parser.error(f"unknown profile(s) {', '.join(unknown)}; built-in: {', '.join(names)}")
        names = [n for n in names if n in args.profile or n == "standard"]
    rows = [(name, "greedy") for name in names] + [("standard", "beginner")]

    import rummisim.bots  # noqa: F401  (load every bot module before wrapping)
    import rummisim.bots.search  # noqa: F401
    import rummisim.engine  # noqa: F401

    calls = count_solver_calls()
    profiles = {name: load_profile(name) for name in names}
    for name, bot in rows:
        play_game(profiles[name], [bot] * 4, WARM_UP_SEED)
    if not calls:
        raise RuntimeError("the warm-up games made no counted solver call: where do the bots import solve?")
    rates: dict[tuple[str, str], list[float]] = {row: [] for row in rows}
    methods: dict[tuple[str, str], Counter[str]] = {}
    started = time.perf_counter()
    for _ in range(args.repeats):
        for row in rows:
            name, bot = row
            calls.clear()
            start, rounds = time.perf_counter(), 0
            for seed in range(args.games):
                rounds += play_game(profiles[name], [bot] * 4, seed).n_rounds
            rates[row].append(rounds / (time.perf_counter() - start))
            methods[row] = Counter(calls)
    wall = time.perf_counter() - started

    base = statistics.median(rates[("standard", "greedy")])
    print(
        f"{args.games} seeded games x {args.repeats} repeats per row, 4 seats, after one warm-up game "
        f"per row ({wall:.0f} s timed)"
    )
    head = f"{'profile':<20}{'bots':<10}{'rounds/s':>10}{'vs std greedy':>15}{'target':>9}{'':>6}"
    head += "".join(f"{m:>8}" for m in METHODS) + f"{'MILP/1k':>9}"
    print(head)
    missed = 0
    for row in rows:
        name, bot = row
        median = statistics.median(rates[row])
        ratio = median / base
        target = TARGET_BEGINNER if bot == "beginner" else TARGET_PROFILE
        ok = ratio >= target
        missed += not ok
        counts = methods[row]
        searches = sum(counts.values())
        per_k = 1000 * counts["milp"] / searches if searches else 0.0
        line = (
            f"{name:<20}{bot:<10}{median:>10.2f}{ratio:>14.2f}x{f'>={target}x':>9}{'ok' if ok else 'MISS':>6}"
        )
        line += "".join(f"{counts[m]:>8}" for m in METHODS) + f"{per_k:>9.1f}"
        print(line)
    print(
        f"targets: every profile's greedy >= {TARGET_PROFILE}x standard greedy; "
        f"beginner >= {TARGET_BEGINNER}x greedy (standard); {missed} row(s) below target"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
