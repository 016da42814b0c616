"""Strength and cost of ``lookahead``: one seat against three opponents, seats rotated
(a benchmark, not a test).

    python benchmarks/lookahead_strength.py --games 1000 --jobs 2 \\
        --bot "lookahead(samples=8,depth=8)" --opponent conservative

Game ``g`` plays deal ``g // 4`` (seed ``--seed``, ``g // 4``) with the bot at seat
``g % 4``, so every deal is played from every seat when ``--games`` is a multiple of 4
and seat effects cancel. Prints the bot's win rate with a 95% Wilson interval (the fair
share is 25% with four seats), the cost of its start-of-turn decisions (median and p95 ms
of CPU time, so that a busy machine does not inflate them: every decision and those that
ran rollouts), its other ``act`` calls, games/hour of wall time with ``--jobs`` processes,
and games/hour on 2 dedicated cores from the CPU time per game (the whole game, every seat).
Results do not depend on ``--jobs``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from rummisim import load_profile
from rummisim.bots import validate_spec
from rummisim.contract import Phase
from rummisim.engine import play_game
from rummisim.stats.estimators import wilson_interval

SEATS = 4


class Timed:
    """Wraps a built bot: records the wall time of each ``act`` call by phase, and whether
    a start-phase call ran rollouts."""

    def __init__(self, bot: Any, log: dict[str, list[float]]):
        self.bot, self.log, self.name = bot, log, bot.name

    def act(self, view):
        decisions = getattr(self.bot, "decisions", 0)
        start = time.thread_time()  # CPU time: the machine may be shared
        action = self.bot.act(view)
        ms = (time.thread_time() - start) * 1000
        if view.phase == Phase.START:
            self.log["start"].append(ms)
            if getattr(self.bot, "decisions", 0) > decisions:
                self.log["searched"].append(ms)
        else:
            self.log["other"].append(ms)
        return action

    @property
    def search_units(self) -> int:
        return getattr(self.bot, "search_units", 0)


def play_chunk(task: tuple[str, str, str, int, list[int]]) -> list[dict[str, Any]]:
    profile_name, bot, opponent, seed, games = task
    profile = load_profile(profile_name)
    bot_spec, opponent_spec = validate_spec(bot), validate_spec(opponent)
    out = []
    for game in games:
        deal, seat = divmod(game, SEATS)
        log: dict[str, list[float]] = {"start": [], "searched": [], "other": []}
        # the stream play_game gives the seat (spawn counts children: a fresh copy for each)
        seat_seeds = np.random.SeedSequence([seed, deal]).spawn(2 + SEATS)[2:]
        bots: list[Any] = []
        for s in range(SEATS):
            if s == seat:
                bots.append(Timed(bot_spec(profile, np.random.default_rng(seat_seeds[s])), log))
            else:
                bots.append(opponent_spec)
        start = time.thread_time()
        timed = bots[seat]
        record = play_game(profile, bots, np.random.SeedSequence([seed, deal]))
        out.append(
            {
                "game": game,
                "seat": seat,
                "won": record.winner == seat and not record.tied,
                "tied": record.tied,
                "turns": record.turns,
                "faults": len(record.faults),
                "cpu_seconds": time.thread_time() - start,
                "chosen": dict(getattr(timed.bot, "chosen", {})),
                **log,
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--bot", default="lookahead")
    parser.add_argument("--opponent", default="conservative")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--first", type=int, default=0, help="play games FIRST..GAMES-1 (to extend a run)")
    parser.add_argument("--json", help="write the summary (and per-game rows) to this file")
    args = parser.parse_args()

    games = list(range(args.first, args.games))
    chunks = [games[i : i + args.chunk] for i in range(0, len(games), args.chunk)]
    tasks = [(args.profile, args.bot, args.opponent, args.seed, chunk) for chunk in chunks]
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []

    def progress(part: list[dict[str, Any]]) -> None:
        rows.extend(part)
        wins = sum(r["won"] for r in rows)
        elapsed = time.perf_counter() - start
        print(f"  {len(rows)} games, {wins} wins ({wins / len(rows):.1%}), {elapsed:.0f} s", file=sys.stderr)

    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            for part in pool.map(play_chunk, tasks):
                progress(part)
    else:
        for task in tasks:
            progress(play_chunk(task))
    wall = time.perf_counter() - start

    n = len(rows)
    wins = sum(r["won"] for r in rows)
    low, high = wilson_interval(wins, n)
    start_ms = np.array([x for r in rows for x in r["start"]])
    searched_ms = np.array([x for r in rows for x in r["searched"]])
    other_ms = np.array([x for r in rows for x in r["other"]])

    cpu = float(np.mean([r["cpu_seconds"] for r in rows]))
    chosen: Counter[str] = Counter()
    for r in rows:
        chosen.update(r["chosen"])

    def pct(a: np.ndarray, q: float) -> float:
        return float(np.percentile(a, q)) if len(a) else float("nan")

    summary = {
        "bot": args.bot,
        "opponent": args.opponent,
        "profile": args.profile,
        "games": n,
        "wins": wins,
        "win_rate": wins / n,
        "ci95": [low, high],
        "faults": sum(r["faults"] for r in rows),
        "turns_per_game": float(np.mean([r["turns"] for r in rows])),
        "start_decisions_per_game": len(start_ms) / n,
        "start_ms_median": pct(start_ms, 50),
        "start_ms_p95": pct(start_ms, 95),
        "searched_share": len(searched_ms) / max(len(start_ms), 1),
        "searched_ms_median": pct(searched_ms, 50),
        "searched_ms_p95": pct(searched_ms, 95),
        "other_ms_median": pct(other_ms, 50),
        "chosen": dict(chosen),
        "wall_s": wall,
        "jobs": args.jobs,
        "games_per_hour": n / wall * 3600,
        "cpu_s_per_game": cpu,
        "games_per_hour_2_cores": 2 * 3600 / cpu,
    }
    print(
        f"{args.bot} vs 3x {args.opponent} ({args.profile}), {n} games, seats rotated: "
        f"wins {wins} = {wins / n:.1%} [{low:.1%}, {high:.1%}]; faults {summary['faults']}\n"
        f"start decisions/game {summary['start_decisions_per_game']:.1f}: median "
        f"{summary['start_ms_median']:.1f} ms, p95 {summary['start_ms_p95']:.1f} ms; with rollouts "
        f"({summary['searched_share']:.0%} of them): median {summary['searched_ms_median']:.1f} ms, "
        f"p95 {summary['searched_ms_p95']:.1f} ms; other acts median {summary['other_ms_median']:.2f} ms\n"
        f"choices after rollouts: {dict(chosen)}\n"
        f"wall {wall:.0f} s with {args.jobs} jobs: {summary['games_per_hour']:.0f} games/hour; "
        f"CPU {cpu:.2f} s/game: {2 * 3600 / cpu:.0f} games/hour on 2 dedicated cores"
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"summary": summary, "rows": rows}, fh)


if __name__ == "__main__":
    main()
