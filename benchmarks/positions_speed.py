"""The exact search on the committed position sets, side by side with ``standard``'s sets.

    python benchmarks/positions_speed.py [--profile NAME ...] [--lineup NAME ...] [--repeats 3]

Times ``solve(..., budget=None)`` on every position of ``benchmarks/positions/`` (recorded from
seeded games by ``record_positions.py``), each position ``--repeats`` times (the median
counts), after one warm-up pass over every set. Per set: the positions, the total seconds,
the ratio of the total to the ``standard`` set of the same lineup (target: at most 2x), the
median and the slowest search, the slowest as a multiple of the ``standard`` sets' median
(target: at most 100x), and the searches each method answered (``Solution.method``; a
``cut`` names its give-up, ``Solution.give_up``). The exit code is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path

from record_positions import LINEUPS, OUT, load_set

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
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
