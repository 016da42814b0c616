"""Record the search positions of seeded games: the position sets ``positions_speed.py`` times.

    python benchmarks/record_positions.py [--games 24] [--per-set 240] [--profile NAME ...] [--no-budget]
        [--dry-run]

For every built-in profile (or the ``--profile`` subset) and every lineup of ``LINEUPS``, it
plays seeds ``0..games-1`` with the profile as shipped (its search budget on), and records
every ``solve`` call the bots and the must-play referee make: the rack, the table, and the
call's mode (``initial``, ``objective``, ``rearrange``; a lookahead rollout's ``exact=False``
searches are recorded as positions like any other). From each (profile, lineup) it keeps
``--per-set`` positions, spread over rack sizes 1 to 25 (the rack sizes are the strata; a
seeded ``numpy`` generator draws within each), and writes them to
``benchmarks/positions/<profile>--<lineup>.jsonl``, one position a line, in text notation
(``"R4 J B9"``, ``"R1 R2 R3 | K5 O5 B5"``). It also prints, per set, the searches its games
made (``exact``: those not of a rollout's fast policy, ``solve(exact=False)``, whose give-ups are
by design), how many of the exact ones gave up in play (``Solution.give_up``) and why, and how
many the integer program answered (``Solution.method == "milp"``: none, for a profile the dynamic
program encodes). ``--give-ups FILE`` also writes each exact search that gave up, one JSON line
(the position, its profile and lineup, and ``Solution.give_up``), to study the corners left.
``--no-budget`` plays every profile without its search budget (``time_limit.search_budget:
null``, every search exact) and only counts: it writes no set (the committed sets come from the
games as shipped), so it measures how often the exact search gives up in each lineup's play.
``--dry-run`` plays the games as shipped and prints the same counts, but writes no set either: the
committed sets stay the inputs of ``positions_speed.py`` (a new version's games search other
positions where ties between plays of one score fall the other way).

The sets are committed, so that the timings are taken on the same positions from run to run;
re-record them (this script) when the bots or the rules change what gets searched.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from variant_throughput import chosen_profiles, count_solver_calls, without_budget

from rummisim import load_profile, play_game
from rummisim.melds import format_table, parse_table
from rummisim.tiles import format_tiles, parse_tiles

HERE = Path(__file__).resolve().parent
OUT = HERE / "positions"

LINEUPS = {
    # every search a greedy bot makes: the best play each turn
    "greedy": ["greedy"] * 4,
    # bots that hold tiles back, so racks grow big and jokers stay late
    "holding": [
        {"name": "conservative", "params": {"trickle": True}},
        "lookahead",
        {"name": "conservative", "params": {"trickle": True}},
        "lookahead",
    ],
    # trickle without keeping jokers: jokers reach the table early and get freed
    "trickle-jokers": [{"name": "conservative", "params": {"trickle": True, "keep_jokers": False}}] * 4,
    # rearrange=False searches (table sets only extended) and value-objective searches
    "beginner-value": ["beginner", "value", "beginner", "value"],
}

MAX_RACK = 25


def position(call_args, call_kwargs, profile) -> dict:
    """One ``solve`` call as a JSON-able position."""
    rack, table = call_args[0], call_args[1]
    ts = profile.tileset
    rack = rack if isinstance(rack, str) else format_tiles(rack, ts)
    table = table if isinstance(table, str) else format_table(table, ts)
    return {
        "rack": rack,
        "table": table,
        "initial": bool(call_kwargs.get("initial", False)),
        "objective": call_kwargs.get("objective", "tiles"),
        "rearrange": bool(call_kwargs.get("rearrange", True)),
    }


def load_set(path: Path, profile):
    """The positions of a set file as ``(rack, table, kwargs)`` for ``solve``."""
    return load_lines(path.read_text().splitlines(), profile)


def load_lines(lines: list[str], profile):
    """``load_set`` of a set file's lines (``ValueError`` where ``profile`` refuses a tile or set)."""
    out = []
    for line in lines:
        p = json.loads(line)
        rack = parse_tiles(p["rack"], profile.tileset)
        table = parse_table(p["table"], profile)
        kwargs = {"initial": p["initial"], "objective": p["objective"], "rearrange": p["rearrange"]}
        out.append((rack, table, kwargs))
    return out


def spread(positions: list[dict], per_set: int, rng: np.random.Generator) -> list[dict]:
    """``per_set`` positions spread over rack sizes: rounds over the sizes, one draw a size, until
    full (sizes that run out drop out)."""
    by_size: dict[int, list[dict]] = defaultdict(list)
    for p in positions:
        size = len(p["rack"].split())
        by_size[min(size, MAX_RACK)].append(p)
    pools = {size: list(rng.permutation(len(ps))) for size, ps in sorted(by_size.items())}
    chosen: list[dict] = []
    while len(chosen) < per_set and any(pools.values()):
        for size, order in pools.items():
            if order and len(chosen) < per_set:
                chosen.append(by_size[size][order.pop()])
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24, help="seeded games per profile and lineup")
    parser.add_argument("--per-set", type=int, default=240, help="positions kept per set")
    parser.add_argument("--profile", action="append", default=None, help="a built-in profile (repeatable)")
    parser.add_argument("--lineup", action="append", default=None, choices=sorted(LINEUPS))
    parser.add_argument("--give-ups", type=Path, default=None, help="write the exact searches that gave up")
    parser.add_argument("--no-budget", action="store_true", help="play without search budgets; write no sets")
    parser.add_argument("--dry-run", action="store_true", help="play as shipped and count; write no sets")
    args = parser.parse_args()
    names = chosen_profiles(parser, args.profile)
    lineups = args.lineup or list(LINEUPS)
    OUT.mkdir(exist_ok=True)
    seen: list[dict] = []
    gave_up: Counter = Counter()
    searches: Counter = Counter()
    current: list = [None, None]  # the profile and lineup being played
    corners: list[str] = []  # JSON lines of the exact searches that gave up

    def record(call_args, call_kwargs, solution, took):
        profile = current[0]
        if profile is None:
            return
        seen.append(position(call_args, call_kwargs, profile))
        quick = call_kwargs.get("exact", True) is False  # a rollout's fast policy search
        if solution.give_up is not None and not quick:
            gave_up[solution.give_up.value] += 1
            why = solution.give_up.value
            corner = {**seen[-1], "profile": profile.name, "lineup": current[1], "give_up": why}
            corners.append(json.dumps(corner, sort_keys=True) + "\n")
        if solution.method == "milp":
            gave_up["milp"] += 1
        searches["quick" if quick else "exact"] += 1

    count_solver_calls(record)
    head = f"{'set':40s} {'searches':>9s} {'exact':>7s} {'kept':>5s} {'racks':>7s} {'gave up':>8s}"
    print(head + "  why   seconds")
    for name in names:
        profile = load_profile(name)
        if args.no_budget:
            profile = without_budget(profile)
        for lineup in lineups:
            seen.clear()
            gave_up.clear()
            searches.clear()
            current[:] = [profile, lineup]
            start = time.perf_counter()
            for seed in range(args.games):
                play_game(profile, LINEUPS[lineup], seed)
            current[0] = None
            took = time.perf_counter() - start
            rng = np.random.default_rng([args.games, len(seen)])
            kept = spread(seen, args.per_set, rng)
            if not (args.no_budget or args.dry_run):
                path = OUT / f"{name}--{lineup}.jsonl"
                path.write_text("".join(json.dumps(p, sort_keys=True) + "\n" for p in kept))
            sizes = [len(p["rack"].split()) for p in kept]
            why = ", ".join(f"{k} {v}" for k, v in gave_up.most_common())
            total = sum(gave_up.values())
            print(
                f"{name + ' / ' + lineup:40s} {len(seen):>9d} {searches['exact']:>7d} {len(kept):>5d} "
                f"{min(sizes):>3d}-{max(sizes):<3d} {total:>8d}  {why or '-'}  {took:.0f}"
            )
    if args.give_ups is not None:
        args.give_ups.write_text("".join(corners))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
