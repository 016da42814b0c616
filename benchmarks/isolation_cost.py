"""What running a bot in a process of its own costs per decision (a benchmark, not a test).

    python benchmarks/isolation_cost.py [--games 20] [--bot greedy]

Plays seeds ``0..games-1`` of ``standard`` with the bot at seat 0 against two ``greedy`` bots,
once in-process and once isolated (``rummisim.isolation.Isolated``, one factory, so its child
process serves every game after the first), and counts seat 0's decisions. Prints both times,
the child's start (the first game's extra), and the extra per decision of the rest: the JSON
round trip over the pipes, the view and the action copied both ways. The games are the same
either way for a bot that does not draw on its generator (checked).
"""

from __future__ import annotations

import argparse
import time

from rummisim import load_profile, play_game
from rummisim.bots import parse_spec
from rummisim.isolation import Isolated


class Counting:
    """Counts the decisions of the bots a factory builds (a factory itself)."""

    def __init__(self, factory):
        self.factory = factory
        self.label = factory.label
        self.decisions = 0

    def __call__(self, profile, rng):
        return _Counted(self.factory(profile, rng), self)


class _Counted:
    def __init__(self, bot, counter: Counting):
        self.bot, self.counter = bot, counter
        self.name = counter.label

    def act(self, view):
        self.counter.decisions += 1
        return self.bot.act(view)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--bot", default="greedy")
    args = parser.parse_args()
    profile = load_profile("standard")
    spec = parse_spec(args.bot)
    play_game(profile, [spec, "greedy", "greedy"], 10_000)  # warm up (numba, caches)
    times, records = {}, {}
    for how in ("in-process", "isolated"):
        factory = Counting(spec if how == "in-process" else Isolated(spec))
        first = None
        started = time.perf_counter()
        records[how] = []
        for seed in range(args.games):
            records[how].append(play_game(profile, [factory, "greedy", "greedy"], seed).rounds)
            if first is None:
                first = time.perf_counter() - started
        times[how] = (time.perf_counter() - started, first, factory.decisions)
    same = records["in-process"] == records["isolated"]
    (plain, plain_first, n), (iso, iso_first, _) = times["in-process"], times["isolated"]
    per = ((iso - iso_first) - (plain - plain_first)) / max(1, n - n // args.games)
    print(f"{args.games} games, {n} decisions of seat 0 ({args.bot}); same games: {same}")
    start = iso_first - plain_first
    print(f"in-process {plain:.2f} s, isolated {iso:.2f} s; the child's start about {start:.2f} s")
    print(f"extra per decision after the first game: {per * 1000:.2f} ms")


if __name__ == "__main__":
    main()
