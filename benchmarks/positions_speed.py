"""The exact search on the committed position sets, side by side with ``standard``'s sets.

    python benchmarks/positions_speed.py [--profile NAME ...] [--lineup NAME ...] [--repeats 3]

Times ``solve(..., budget=None)`` on every position of ``benchmarks/positions/`` (recorded from
seeded games by ``record_positions.py``), each position ``--repeats`` times (the median
counts), after one warm-up pass over every set. Per set: the positions, the total seconds,
the ratio of the total to the ``standard`` set of the same lineup (target: at most 2x), the
median and the slowest search, the slowest as a multiple of the ``standard`` sets' median
(target: at most 100x), and the searches each method answered (``Solution.method``; a
``cut`` names its give-up, ``Solution.give_up``). The exit code is 1 when a target is missed.

``--as-standard`` also times every other profile's set under ``standard``'s rules (the positions
that are legal there: a wrap run on the table or a third joker is not), beside the same positions
under their own profile: it tells the cost of the rules apart from the difficulty of the positions
their games deal (a set whose games leave bigger racks costs more under any rules).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path

from record_positions import LINEUPS, OUT, load_lines, load_set

from rummisim import load_profile
from rummisim.solver import solve

TOTAL_RATIO = 2.0
SLOWEST_RATIO = 100.0


def timed(positions, profile, repeats: int):
    """Median seconds per position, and the methods that answered."""
    seconds, methods = [], Counter()
    for rack, table, kwargs in positions:
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            solution = solve(rack, table, profile, budget=None, **kwargs)
            runs.append(time.perf_counter() - start)
        seconds.append(statistics.median(runs))
        # (``fallback``: the integer program's cause in versions before 0.3.0, for a side-by-side
        # run of an older checkout on the same sets: ``PYTHONPATH=OLD python positions_speed.py``)
        gave_up = getattr(solution, "give_up", None)
        why = f" ({gave_up.value})" if gave_up is not None else ""
        why = why or (f" ({solution.fallback})" if getattr(solution, "fallback", "") else "")
        methods[solution.method + why] += 1
    return seconds, methods


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="append", default=None)
    parser.add_argument("--lineup", action="append", default=None, choices=sorted(LINEUPS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--as-standard", action="store_true", help="also time each set under standard")
    args = parser.parse_args()
    sets = sorted(Path(OUT).glob("*.jsonl"))
    if not sets:
        parser.error(f"no position sets in {OUT}: run record_positions.py first")
    chosen = []
    for path in sets:
        name, lineup = path.stem.split("--")
        if (args.lineup is None or lineup in args.lineup) and (
            args.profile is None or name in args.profile or name == "standard"
        ):
            profile = load_profile(name)
            chosen.append((name, lineup, profile, load_set(path, profile)))
    for _, _, profile, positions in chosen:  # warm-up: compile, fill the caches
        timed(positions, profile, 1)
    results = {
        (name, lineup): timed(positions, profile, args.repeats) for name, lineup, profile, positions in chosen
    }
    std_median = statistics.median(
        s for (name, _), (secs, _) in results.items() if name == "standard" for s in secs
    )
    print(f"standard sets' median search: {std_median * 1e3:.2f} ms")
    head = f"{'set':36s} {'n':>4s} {'total s':>8s} {'vs std':>7s} {'median ms':>10s} {'max ms':>8s}"
    head += f" {'max/std med':>12s}"
    print(head + "  methods")
    missed = 0
    for (name, lineup), (secs, methods) in results.items():
        std = results.get(("standard", lineup))
        ratio = sum(secs) / sum(std[0]) if std else float("nan")
        worst = max(secs) / std_median
        flag = ""
        if ratio > TOTAL_RATIO or worst > SLOWEST_RATIO:
            flag = "  MISSED"
            missed += 1
        shown = ", ".join(f"{m} {n}" for m, n in methods.most_common())
        print(
            f"{name + ' / ' + lineup:36s} {len(secs):>4d} {sum(secs):>8.3f} {ratio:>6.2f}x "
            f"{statistics.median(secs) * 1e3:>10.2f} {max(secs) * 1e3:>8.1f} {worst:>11.0f}x  {shown}{flag}"
        )
    print(f"targets: total <= {TOTAL_RATIO}x standard's, slowest <= {SLOWEST_RATIO:.0f}x standard's median")
    if args.as_standard:
        as_standard(chosen, sets, args.repeats)
    return 1 if missed else 0


def as_standard(chosen, paths, repeats: int) -> None:
    """Each other profile's set under ``standard``'s rules and under its own, on the positions
    ``standard`` allows (``--as-standard``)."""
    standard = load_profile("standard")
    by_stem = {path.stem: path for path in paths}
    joker = standard.tileset.joker
    print("\nthe same positions under standard's rules (those it allows):")
    print(f"{'set':36s} {'n':>4s} {'own s':>8s} {'as std s':>9s} {'own/std':>8s}  standard's methods")
    for name, lineup, profile, positions in chosen:
        if name == "standard":
            continue
        lines = by_stem[f"{name}--{lineup}"].read_text().splitlines()
        own, under = [], []
        for line, position in zip(lines, positions, strict=True):
            try:
                (parsed,) = load_lines([line], standard)
            except ValueError:  # a set or tile standard's rules do not allow
                continue
            rack, table, _ = parsed
            jokers = rack.count(joker) + sum(meld.tiles.count(joker) for meld in table)
            if jokers > standard.tiles.jokers:
                continue  # more jokers than standard's tiles hold
            own.append(position)
            under.append(parsed)
        own_secs, _ = timed(own, profile, repeats)
        std_secs, methods = timed(under, standard, repeats)
        shown = ", ".join(f"{m} {n}" for m, n in methods.most_common())
        print(
            f"{name + ' / ' + lineup:36s} {len(own):>4d} {sum(own_secs):>8.3f} {sum(std_secs):>9.3f}"
            f" {sum(own_secs) / sum(std_secs):>7.2f}x  {shown}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
