"""The searches that fall back to the integer program in play, and what the two-host-field
search does with them (a benchmark and a diagnostic, not a test).

    python benchmarks/milp_fallbacks.py [--games 64] [--profile NAME ...] [--relax-tracked]

Plays seeds ``0..games-1`` with four ``greedy`` bots under every built-in profile (or the
``--profile`` subset), recording every ``solve`` call the integer program answered
(``Solution.method == "milp"``), with why the DP handed it on (``Solution.fallback``, one of
``dp.GIVE_UPS``). Then it asks each recorded position again, twice: as shipped,
and with ``dp.TRACK_TWO_HOSTS`` (two freed jokers past the host listing tracked by one search
with two host fields; with ``--relax-tracked`` also ``dp.RELAX_TRACKED``). Per position: the
method and seconds each way, the tiles and points placed (they must agree: both are exact), and
the states the two-field pass created or the cap it ran past. Per profile: the calls, and their
seconds each way.

What this measured on 2 December (docs/solver.md, "Two freed jokers tracked"): 33 calls in 320 games,
20 of them two freed jokers; the two-field pass answered 11 and ran past its cap on 8. At
``6883c4b`` (dead ends left out; ``polish-40``'s games changed with its budget): 39 calls (28 of
them ``polish-40``, 18.9 s), the two-field pass answering 8 (``polish-40`` 18.9 -> 14.7 s, every
other profile slower: 0.5 -> 1.0-2.6 s).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from variant_throughput import chosen_profiles, count_solver_calls

import rummisim.solver.dispatch as dispatch
import rummisim.solver.dp as dp
from rummisim import load_profile, play_game


def two_host_passes() -> list:
    """Wrap ``dp._best`` to log each two-field pass: (answered, refused or past its cap; states)."""
    log: list = []
    inner = dp._best

    def logged(*args, **kwargs):
        two = kwargs.get("host") and len(kwargs.get("forced", ())) == 2
        meter = args[4]
        before = meter.spent
        try:
            found = inner(*args, **kwargs)
        except dp.SearchBudgetSpent:
            if two:
                log.append(("cap", meter.spent - before))
            raise
        if two:
            log.append(("ok" if found is not None else "refused", meter.spent - before))
        return found

    dp._best = logged
    return log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="seeded games per profile")
    parser.add_argument("--profile", action="append", default=None, help="a built-in profile (repeatable)")
    parser.add_argument(
        "--relax-tracked", action="store_true", help="the second asking with dp.RELAX_TRACKED on too"
    )
    args = parser.parse_args()
    names = chosen_profiles(parser, args.profile)
    recorded: list = []
    current = [""]  # the profile being played; "" once play is over (the replays are not recorded)

    def record(call_args, call_kwargs, solution, took):
        if solution.method == "milp" and current[0]:
            recorded.append((current[0], call_args, call_kwargs, solution, took))

    count_solver_calls(record)
    started = time.perf_counter()
    for name in names:
        current[0] = name
        profile = load_profile(name)
        for seed in range(args.games):
            play_game(profile, ["greedy"] * 4, seed)
    print(f"{len(recorded)} integer-program calls in {args.games} games x {len(names)} profiles "
          f"({time.perf_counter() - started:.0f} s of play)")  # fmt: skip

    current[0] = ""
    log = two_host_passes()
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0])
    head = f"{'profile':20s} {'why (Solution.fallback)':>24s} {'shipped':>14s} {'two hosts':>16s}"
    print(f"{head}  tiles,points  two-field passes (states)")
    disagree = 0
    for name, call_args, call_kwargs, _, _ in recorded:
        row = []
        for track in (False, True):
            dp.TRACK_TWO_HOSTS = track
            dp.RELAX_TRACKED = track and args.relax_tracked
            log.clear()
            start = time.perf_counter()
            solution = dispatch.solve(*call_args, **call_kwargs)
            row.append((solution, time.perf_counter() - start, list(log)))
        dp.TRACK_TWO_HOSTS = dp.RELAX_TRACKED = False
        (base, base_s, _), (two, two_s, passes) = row
        placed = (base.tiles_placed, base.value_placed)
        same = placed == (two.tiles_placed, two.value_placed) or not (base.proven and two.proven)
        disagree += not same
        total = totals[name]
        total[0] += 1
        total[1] += base_s
        total[2] += two_s
        total[3] += two.method == "dp"
        shown = ", ".join(f"{kind} {states:,}" for kind, states in passes) or "-"
        line = f"{name:20s} {base.fallback:>24s} {base.method:>5s} {base_s:7.2f}s"
        line += f" {two.method:>5s} {two_s:7.2f}s"
        print(f"{line}  {placed[0]:>3d},{placed[1]:<4d}{'' if same else ' DIFFERENT'}  {shown}")
    print()
    print(f"{'profile':20s} {'calls':>6s} {'shipped s':>10s} {'two hosts s':>12s} {'dp answers':>11s}")
    for name, (calls, base_s, two_s, by_dp) in totals.items():
        print(f"{name:20s} {calls:>6d} {base_s:>10.2f} {two_s:>12.2f} {by_dp:>11d}")
    print(f"answers that differ between the two (both proven): {disagree}")
    return 1 if disagree else 0


if __name__ == "__main__":
    raise SystemExit(main())
