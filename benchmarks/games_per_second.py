"""Full games per second: 4 solver bots on ``standard``, rummisim's solver vs the peer (a benchmark).

    pip install -e ".[bench]"
    python benchmarks/games_per_second.py [--games 20] [--seed 0]

Plays seeds ``seed .. seed+N-1`` twice on one core: with 4 x ``greedy`` (rummisim's
solver; ``baseline`` with a note while ``greedy`` is not registered), and with 4 x a
small bot that asks the peer, PyPI ``rummikub-solver`` (HiGHS), for the play that places
the most tiles. Same seeds, so the same deals; the games then differ as the bots do.
The peer bot turns the peer's sets into rummisim melds (rebuilding the table when the
peer proposes a set our rules forbid, such as three jokers); the engine validates every
move under ``standard``, where table jokers are locked, so a peer move that moves a table
joker is refused and the seat draws: such faults are counted. The first calls (our
per-profile caches; the peer's ``RuleSet`` and cvxpy compilation) are timed apart.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

import numpy as np
from _peer import Peer, PeerUnavailable, peer_table, peer_version

from rummisim import (
    Discard,
    Draw,
    IllegalMove,
    Pass,
    Play,
    load_profile,
    parse_table,
    parse_tiles,
    play_game,
    validate_move,
)
from rummisim.bots import BOTS
from rummisim.engine import TurnView
from rummisim.melds import table_tiles
from rummisim.profile import RuleProfile
from rummisim.solver import solve


class PeerBot:
    """Greedy play chosen by the peer solver: most tiles placed, else draw.

    The peer moves table jokers freely; when its play breaks ``standard``'s locked-joker
    rules (checked with ``validate_move``), the bot asks again with the sets that hold a
    joker left out of the peer's view and kept as they are, which is always legal.
    """

    name = "peer-greedy"

    def __init__(self, peer: Peer, profile: RuleProfile, counts: Counter, solve_seconds: list[float]):
        self.peer = peer
        self.profile = profile
        self.counts = counts
        self.solve_seconds = solve_seconds

    def act(self, view: TurnView):
        ts = self.profile.tileset
        if view.phase == "discard":  # not reached under standard (no discard pile)
            return Discard(max(view.rack, key=lambda t: -1 if t == ts.joker else t))
        no_play = Draw() if view.phase == "start" else Pass()
        initial = not view.opened
        if initial and not self.profile.initial_meld.may_touch_table:
            return self.ask(view, (), view.table, initial=True) or no_play
        play = self.ask(view, view.table, (), initial=initial)
        if play is None or self.legal(view, play):
            return play or no_play
        self.counts["peer plays that moved a locked table joker (asked again, joker sets kept)"] += 1
        kept = tuple(m for m in view.table if m.joker_count(ts.joker))
        movable = tuple(m for m in view.table if not m.joker_count(ts.joker))
        return self.ask(view, movable, kept, initial=initial) or no_play

    def ask(self, view: TurnView, movable, kept, *, initial: bool) -> Play | None:
        """The peer's play on the ``movable`` table sets; ``kept`` sets stay as they are."""
        result = self.peer.solve(table_tiles(movable), view.rack, initial=initial)
        self.solve_seconds.append(result.seconds)
        if not result.played:
            return None
        # the peer's sets hold the movable table tiles and the played ones: the new table
        # is those sets plus the kept ones
        rebuilt, played, loose = peer_table(result, movable, self.profile, initial=False)
        if rebuilt is None or not played:
            self.counts["peer plays rummisim could not rebuild (drew instead)"] += 1
            return None
        if loose:
            self.counts["peer plays rebuilt without a forbidden set (fewer tiles)"] += 1
        return Play(tuple(kept) + tuple(rebuilt), played)

    def legal(self, view: TurnView, play: Play) -> bool:
        try:
            validate_move(self.profile, view.table, view.rack, play.table, play.played, opened=view.opened)
        except IllegalMove:
            return False
        return True


def time_games(profile: RuleProfile, make_bots, seeds) -> tuple[float, list]:
    records = []
    start = time.perf_counter()
    for seed in seeds:
        records.append(play_game(profile, make_bots(), seed))
    return time.perf_counter() - start, records


def describe(records) -> str:
    turns = np.mean([r.turns for r in records])
    ends = Counter(r.end_reason for r in records)
    return f"mean turns {turns:.1f}; endings {dict(ends)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    profile = load_profile("standard")
    seeds = range(args.seed, args.seed + args.games)
    if "greedy" in BOTS:
        ours_bot, note = "greedy", ""
    else:
        ours_bot = "baseline"
        note = "note: bot 'greedy' is not registered yet, so our side is 4 x baseline (no solver)"

    # first calls, timed apart: an opening and a turn position for each solver
    opening = parse_tiles("K10 R10 O10 B2 B3 B4 K7", profile)
    turn_table, turn_rack = parse_table("R1 R2 R3 | K5 O5 B5", profile), parse_tiles("R4 J B9", profile)
    start = time.perf_counter()
    solve(opening, (), profile, initial=True)
    solve(turn_rack, turn_table, profile)
    ours_first = time.perf_counter() - start
    start = time.perf_counter()
    peer = Peer(profile)
    peer_build = time.perf_counter() - start
    peer.solve((), opening, initial=True)
    peer.solve(table_tiles(turn_table), turn_rack, initial=False)
    peer_first = time.perf_counter() - start
    print()  # HiGHS prints its banner on the first solve

    ours_time, ours_records = time_games(profile, lambda: [ours_bot] * 4, seeds)
    counts: Counter = Counter()
    peer_solves: list[float] = []
    peer_time, peer_records = time_games(
        profile, lambda: [PeerBot(peer, profile, counts, peer_solves) for _ in range(4)], seeds
    )

    ours_rate, peer_rate = args.games / ours_time, args.games / peer_time
    print(
        f"{args.games} games (seeds {seeds.start}..{seeds.stop - 1}) on {profile.name}, 4 players, one core"
    )
    if note:
        print(note)
    print(f"{'':<34}{'games/s':>10}{'total s':>10}{'first call ms':>15}")
    print(f"{'ours: 4 x ' + ours_bot:<34}{ours_rate:>10.3f}{ours_time:>10.2f}{ours_first * 1000:>15.1f}")
    print(
        f"{f'peer: 4 x peer-greedy ({peer.backend})':<34}{peer_rate:>10.3f}{peer_time:>10.2f}"
        f"{peer_first * 1000:>15.1f}"
    )
    print(f"ratio ours/peer: {ours_rate / peer_rate:.2f}x games/s")
    print(
        f"peer first call: RuleSet() {peer_build * 1000:.1f} ms, "
        f"first solves {1000 * (peer_first - peer_build):.1f} ms"
    )
    print(f"peer: rummikub-solver {peer_version()}")
    solves = np.asarray(peer_solves) * 1000
    print(
        f"peer solve calls: {solves.size}, median {np.median(solves):.2f} ms, "
        f"{solves.sum() / 1000 / peer_time:.0%} of the peer games' time"
    )
    print(f"ours: {describe(ours_records)}")
    print(f"peer: {describe(peer_records)}")
    faults = Counter(f.rule for r in peer_records for f in r.faults)
    ours_faults = Counter(f.rule for r in ours_records for f in r.faults)
    print(f"faults (moves the engine refused): ours {dict(ours_faults) or 0}, peer {dict(faults) or 0}")
    for what, count in counts.items():
        print(f"peer: {what}: {count}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except PeerUnavailable as exc:
        sys.exit(f"{sys.argv[0]}: {exc}")
