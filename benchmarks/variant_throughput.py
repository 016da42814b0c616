"""Rounds per second of the solver bots under every built-in profile, and which search answered
their solver calls (a benchmark, not a test).

    python benchmarks/variant_throughput.py [--games 64] [--repeats 3] [--profile NAME ...]
        [--track-two-hosts] [--relax-tracked] [--no-budget]

Rows: four ``greedy`` bots under each built-in profile (or the ``--profile`` subset; ``standard``
greedy always runs, it is the yardstick) and four ``beginner`` bots (``rearrange=False``
searches) under ``standard``. In one process, after one warm-up game per row (numba, the
per-profile caches), every row plays seeds ``0..games-1``, and the rows take turns ``repeats``
times, so a slow spell of the machine hits every row alike. Each game's time is the median of
its repeats; a row's rounds/s is its rounds over the sum of those times, and its ratio to
standard greedy comes with a 95% bootstrap interval (games resampled with replacement, each row
on its own, 2,000 resamples from a seeded generator). The target (every profile at least 0.5x
standard greedy, beginner at least 0.5x greedy) is judged on the point ratio.

Why an interval and 64 games: the time is heavy-tailed. A few searches a hundred games (a
table joker freed by a rack tile whose host sets the DP cannot list, see docs/solver.md) go to the
integer program at 0.3-1.5 s each, as long as a hundred ordinary turns, and ``standard`` has
them too. With 16 games a row holds 0-5 of them, and whether the yardstick drew one decides
the ratios (16 games put classic-wrap at 0.35x; games 16-47 of standard alone took 3.4 s, 1.4 s
of it in two such calls). The ``milp s`` column gives the seconds those calls took (their
share of the row's time), ``slowest`` the slowest single search, ``w/o milp`` the ratio with
every row's integer-program seconds taken out of its time (what the search alone does).

Also per row: the solver calls by method (``Solution.method``: dp, beam, milp, none, cut) with
the MILP calls per 1,000 searches. ``--no-budget`` plays every profile without its search budget
(``time_limit.search_budget: null``): every search exact, no beam or cut answers, so the two
profiles with a budget (``polish-40``, ``guide-strict-joker``) play other games, and the rows
show what their budget saves. The calls are counted by wrapping ``solve`` wherever the bots and
the engine hold it (every loaded ``rummisim.*`` module whose ``solve`` is
``rummisim.solver.dispatch.solve``, the package ``rummisim.solver`` too, which modules that
import it on first use read); the games are seeded, so every repeat makes the same calls and
the counts and seconds are those of the last repeat.

Replaces ``profile_speed.py``. To compare two versions, run it in both checkouts:
``cd DIR && PYTHONPATH=DIR python benchmarks/variant_throughput.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict

import numpy as np

import rummisim.solver.dispatch as dispatch
import rummisim.solver.dp as dp
from rummisim import builtin_profiles, load_profile, play_game
from rummisim.profile import RuleProfile, profile_from_dict
from rummisim.solver import METHODS

TARGET_PROFILE = 0.5  # every built-in profile's greedy rounds/s against standard greedy
TARGET_BEGINNER = 0.5  # beginner against greedy, both under standard
WARM_UP_SEED = 10_000
RESAMPLES = 2_000  # bootstrap resamples of a row's games
BOOT_SEED = 2026


class Calls:
    """Solver calls by ``Solution.method``: how many, their seconds, the slowest one; the
    integer program's calls also by why the DP handed them on (``Solution.fallback``)."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.slowest = 0.0
        self.why: Counter[str] = Counter()
        self.why_seconds: defaultdict[str, float] = defaultdict(float)

    def clear(self) -> None:
        self.count.clear()
        self.seconds.clear()
        self.slowest = 0.0
        self.why.clear()
        self.why_seconds.clear()

    def __bool__(self) -> bool:
        return bool(self.count)


def count_solver_calls(record=None) -> Calls:
    """Wrap ``solve`` in every loaded ``rummisim`` module that holds it; the returned ``Calls``
    counts and times the calls by ``Solution.method``. ``record``: also called with each call's
    arguments, keyword arguments, ``Solution`` and seconds."""
    import rummisim.bots  # noqa: F401  (load every module that holds ``solve`` before wrapping)
    import rummisim.bots.search  # noqa: F401
    import rummisim.engine  # noqa: F401

    calls = Calls()
    inner = dispatch.solve

    def counted(*args, **kwargs):
        start = time.perf_counter()
        solution = inner(*args, **kwargs)
        took = time.perf_counter() - start
        calls.count[solution.method] += 1
        calls.seconds[solution.method] += took
        calls.slowest = max(calls.slowest, took)
        if solution.method == "milp":
            calls.why[solution.fallback] += 1
            calls.why_seconds[solution.fallback] += took
        if record is not None:
            record(args, kwargs, solution, took)
        return solution

    wrapped = []
    for name, module in list(sys.modules.items()):
        if (name == "rummisim" or name.startswith("rummisim.")) and getattr(module, "solve", None) is inner:
            module.solve = counted
            wrapped.append(name)
    if "rummisim.solver" not in wrapped:
        raise RuntimeError(f"rummisim.solver.solve is not dispatch.solve (wrapped: {wrapped})")
    return calls


def without_budget(profile: RuleProfile) -> RuleProfile:
    """The profile with ``time_limit.search_budget: null`` (its name kept)."""
    data = profile.to_dict()
    data["time_limit"] = {**data["time_limit"], "search_budget": None}
    return profile_from_dict(data, f"{profile.name} without its search budget")


def chosen_profiles(parser: argparse.ArgumentParser, chosen: list[str] | None, keep: tuple[str, ...] = ()):
    """The built-in profiles named by ``--profile`` (all when none is), plus ``keep``; an unknown
    name is a usage error."""
    names = sorted(builtin_profiles())
    if not chosen:
        return names
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        parser.error(f"unknown profile(s) {', '.join(unknown)}; built-in: {', '.join(names)}")
    return [n for n in names if n in chosen or n in keep]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="seeded games per row and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--profile",
        action="append",
        default=None,
        help="a built-in profile to run (repeatable; default: all)",
    )
    parser.add_argument(
        "--track-two-hosts",
        action="store_true",
        help="two freed jokers past the host listing go to the search with two host fields "
        "(dp.TRACK_TWO_HOSTS), not the MILP",
    )
    parser.add_argument(
        "--relax-tracked",
        action="store_true",
        help="the tracked host pass also takes three jokers and retries a refused decoding "
        "(dp.RELAX_TRACKED)",
    )
    parser.add_argument(
        "--no-budget",
        action="store_true",
        help="every profile without its search budget (every search exact)",
    )
    args = parser.parse_args()
    dp.TRACK_TWO_HOSTS = args.track_two_hosts
    dp.RELAX_TRACKED = args.relax_tracked
    names = chosen_profiles(parser, args.profile, keep=("standard",))  # the yardstick always runs
    rows = [(name, "greedy") for name in names] + [("standard", "beginner")]
    calls = count_solver_calls()
    profiles = {name: load_profile(name) for name in names}
    if args.no_budget:
        profiles = {name: without_budget(profile) for name, profile in profiles.items()}
    for name, bot in rows:
        play_game(profiles[name], [bot] * 4, WARM_UP_SEED)
    if not calls:
        raise RuntimeError("the warm-up games made no counted solver call: where do the bots import solve?")
    # per row: each game's time in each repeat, its rounds, and the last repeat's calls
    times: dict[tuple[str, str], np.ndarray] = {row: np.zeros((args.repeats, args.games)) for row in rows}
    rounds: dict[tuple[str, str], np.ndarray] = {}
    stats: dict[tuple[str, str], tuple[Counter[str], dict[str, float], float]] = {}
    causes: dict[tuple[str, str], list[tuple[str, int, float]]] = {}
    started = time.perf_counter()
    for repeat in range(args.repeats):
        for row in rows:
            name, bot = row
            calls.clear()
            got = []
            for seed in range(args.games):
                start = time.perf_counter()
                got.append(play_game(profiles[name], [bot] * 4, seed).n_rounds)
                times[row][repeat, seed] = time.perf_counter() - start
            rounds[row] = np.array(got, dtype=float)
            stats[row] = (Counter(calls.count), dict(calls.seconds), calls.slowest)
            causes[row] = [(why, n, calls.why_seconds[why]) for why, n in calls.why.most_common()]
    wall = time.perf_counter() - started

    rng = np.random.default_rng(BOOT_SEED)
    game_time = {row: np.median(times[row], axis=0) for row in rows}
    rate = {row: rounds[row].sum() / game_time[row].sum() for row in rows}
    boot = {}
    for row in rows:
        pick = rng.integers(0, args.games, size=(RESAMPLES, args.games))
        boot[row] = rounds[row][pick].sum(axis=1) / game_time[row][pick].sum(axis=1)
    print(
        f"{args.games} seeded games x {args.repeats} repeats per row, 4 seats, after one warm-up game "
        f"per row ({wall:.0f} s timed); a game's time is the median of its repeats"
    )
    head = f"{'profile':<20}{'bots':<10}{'rounds/s':>10}{'vs std greedy':>15}{'95% interval':>16}"
    head += f"{'target':>9}{'':>6}{'milp s':>14}{'slowest':>9}{'w/o milp':>10}"
    head += "".join(f"{m:>7}" for m in METHODS) + f"{'MILP/1k':>9}"
    print(head)
    missed = 0
    yardstick = ("standard", "greedy")
    # rounds/s with the integer program's seconds (the last repeat's) taken out of the row's time
    bare = {row: rounds[row].sum() / (game_time[row].sum() - stats[row][1].get("milp", 0.0)) for row in rows}
    for row in rows:
        name, bot = row
        ratio = rate[row] / rate[yardstick]
        lo, hi = np.percentile(boot[row] / boot[yardstick], [2.5, 97.5]) if row != yardstick else (1.0, 1.0)
        target = TARGET_BEGINNER if bot == "beginner" else TARGET_PROFILE
        ok = ratio >= target
        missed += not ok
        counts, seconds, slowest = stats[row]
        searches = sum(counts.values())
        per_k = 1000 * counts["milp"] / searches if searches else 0.0
        milp_s = seconds.get("milp", 0.0)
        share = milp_s / times[row][-1].sum()
        line = f"{name:<20}{bot:<10}{rate[row]:>10.2f}{ratio:>14.2f}x{f'[{lo:.2f}, {hi:.2f}]':>16}"
        milp_col = f"{milp_s:.2f} ({share:.0%})"
        line += f"{f'>={target}x':>9}{'ok' if ok else 'MISS':>6}{milp_col:>14}{slowest:>8.2f}s"
        line += f"{bare[row] / bare[yardstick]:>9.2f}x"
        line += "".join(f"{counts[m]:>7}" for m in METHODS) + f"{per_k:>9.1f}"
        print(line)
    print(
        f"targets: every profile's greedy >= {TARGET_PROFILE}x standard greedy; "
        f"beginner >= {TARGET_BEGINNER}x greedy (standard); {missed} row(s) below target "
        "(judged on the point ratio; the interval shows how much the games drawn decide it)"
    )
    print(
        "w/o milp: the ratio with each row's integer-program seconds (its last repeat's) taken out "
        "of its time and of the yardstick's: what the search alone does"
    )
    print("integer-program calls by why the DP handed them on (Solution.fallback; dp.GIVE_UPS):")
    for row in rows:
        if causes[row]:
            parts = ", ".join(f"{why} {n} ({seconds:.2f} s)" for why, n, seconds in causes[row])
            print(f"  {row[0]} {row[1]}: {parts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
