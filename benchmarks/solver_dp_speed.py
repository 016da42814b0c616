"""Speed of the dynamic-program solver against the MILP reference (a benchmark, not a test).

    python benchmarks/solver_dp_speed.py [--positions 300] [--seed 7] [--profile standard] [--free]

Positions: seeded 4-player ``baseline`` games on the profile, recorded from ``play_game``'s
events by a ``Transcript`` (the table and the rack of the seat to move next, turn mode
only: seats that have opened), drawn evenly from early, mid and late turns. Each position
is solved by ``solve_dp`` and by ``solve_milp(formulation="windows")`` (objective
``tiles``); the answers must agree (tiles placed and value placed) wherever the DP
answers. Times are wall clock of the call alone; the first DP call (numba compilation
and the per-profile tables) is reported apart. ``--free`` sets ``jokers.table_jokers:
free`` (the model the peer solver shares).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rummisim import load_profile, play_game
from rummisim.profile import profile_from_dict
from rummisim.solver import placed_value
from rummisim.solver.dp import solve_dp
from rummisim.solver.milp import solve_milp
from rummisim.transcript import Transcript


def positions(profile, n: int, seed: int):
    """``n`` turn-mode positions, a third each from the early, mid and late turns of games."""
    rng = np.random.default_rng(seed)
    games = []
    game = 0
    while sum(len(g) for g in games) < 6 * n:
        seen = []

        def observe(state, seat, seen=seen):
            nxt = (seat + 1) % len(state.racks)
            if state.opened[nxt] and state.racks[nxt]:
                seen.append((state.table, tuple(sorted(state.racks[nxt]))))

        follow = Transcript(profile, on_position=observe)
        play_game(profile, ["baseline"] * 4, seed * 1000 + game, events=follow)
        games.append(seen)
        game += 1
    out = []
    for phase in range(3):
        pool = [p for g in games for p in g[phase * len(g) // 3 : (phase + 1) * len(g) // 3]]
        picks = rng.choice(len(pool), size=min(len(pool), n // 3 + (phase < n % 3)), replace=False)
        out.extend(pool[i] for i in sorted(picks))
    return out


def stats(times: list[float]) -> str:
    ms = np.asarray(times) * 1000
    return f"median {np.median(ms):8.3f} ms   p95 {np.percentile(ms, 95):8.2f} ms   max {ms.max():8.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--free", action="store_true", help="table jokers move like any tile")
    args = parser.parse_args()
    profile = load_profile(args.profile)
    if args.free:
        data = profile.to_dict()
        data["jokers"] = {**data["jokers"], "table_jokers": "free"}
        data["name"] = f"{profile.name}-free"
        profile = profile_from_dict(data, "<benchmark>")
    start = time.perf_counter()
    solve_dp((), (), profile, objective="tiles")
    compile_s = time.perf_counter() - start
    pos = positions(profile, args.positions, args.seed)
    dp_times, milp_times, sizes = [], [], []
    answered = disagree = 0
    for table, rack in pos:
        t0 = time.perf_counter()
        dp = solve_dp(rack, table, profile, objective="tiles")
        t1 = time.perf_counter()
        ref = solve_milp(rack, table, profile, initial=False, objective="tiles", rearrange=True)
        t2 = time.perf_counter()
        dp_times.append(t1 - t0)
        milp_times.append(t2 - t1)
        sizes.append(sum(len(m) for m in table))
        if dp is not None:
            answered += 1
            got = (len(dp.played), placed_value(dp.played, profile))
            want = (len(ref.played), placed_value(ref.played, profile))
            disagree += got != want
    ratio = np.asarray(milp_times) / np.asarray(dp_times)
    sizes_arr = np.asarray(sizes)
    print(
        f"profile {profile.name}, {len(pos)} positions (seed {args.seed}), table tiles "
        f"median {int(np.median(sizes_arr))}, max {sizes_arr.max()}"
    )
    print(f"first DP call (numba compile + tables): {compile_s:.2f} s")
    print(f"solve_dp    {stats(dp_times)}")
    print(f"solve_milp  {stats(milp_times)}")
    print(
        f"per-position speed-up (MILP / DP): median {np.median(ratio):.1f}x, "
        f"p5 {np.percentile(ratio, 5):.1f}x"
    )
    print(
        f"DP answered {answered}/{len(pos)} (the rest fall back to the MILP); "
        f"disagreements where it answered: {disagree}"
    )
    for lo, hi in ((0, 20), (20, 40), (40, 60), (60, 200)):
        sel = (sizes_arr >= lo) & (sizes_arr < hi)
        if sel.any():
            print(
                f"  table {lo:3d}-{hi - 1:3d} tiles: n={sel.sum():3d}  DP "
                f"{stats([t for t, s in zip(dp_times, sel, strict=True) if s])}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
