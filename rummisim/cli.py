"""Command line: ``rummisim play | profiles``.

Bad input (a broken profile, an unknown bot, a bad tile) prints one line,
``rummisim: error: ...``, on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rummisim.bots import BOTS, BotError
from rummisim.engine import GameRecord, play_game
from rummisim.melds import format_table
from rummisim.profile import ProfileError, RuleProfile, builtin_profiles, load_profile
from rummisim.tiles import TileError, format_tiles

EXIT_USAGE = 2


class CliError(Exception):
    """A user error reported as one line with exit status 2."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rummisim", description="Rummikub rule-variant simulator for research."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play one seeded game and print a turn-by-turn log")
    play.add_argument("--profile", default="standard", help="built-in profile name or YAML path")
    play.add_argument(
        "--bots",
        default="baseline,baseline,baseline",
        help=f"comma-separated bot names, one per seat (available: {', '.join(sorted(BOTS))})",
    )
    play.add_argument("--seed", type=int, default=0, help="game seed (same seed, same game)")
    play.add_argument("--quiet", action="store_true", help="print only the final scores")

    profiles = sub.add_parser("profiles", help="list, show or validate rule profiles")
    psub = profiles.add_subparsers(dest="profiles_command", required=True)
    psub.add_parser("list", help="list the built-in profiles")
    show = psub.add_parser("show", help="print a fully resolved profile as YAML")
    show.add_argument("profile", help="built-in profile name or YAML path")
    validate = psub.add_parser("validate", help="check a profile file")
    validate.add_argument("path", help="YAML path")
    return parser


def _cmd_play(args: argparse.Namespace) -> None:
    profile = load_profile(args.profile)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not bots:
        raise CliError("--bots: give at least two comma-separated bot names")
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise CliError(f"--bots: unknown bot {unknown[0]!r}; available: {', '.join(sorted(BOTS))}")
    if not profile.players.min <= len(bots) <= profile.players.max:
        raise CliError(
            f"--bots: profile {profile.name!r} allows {profile.players.min}.."
            f"{profile.players.max} players, got {len(bots)}"
        )
    record = play_game(profile, bots, args.seed, log=not args.quiet)
    print(format_game(record, profile, args.seed))


def format_game(record: GameRecord, profile: RuleProfile, seed: int) -> str:
    """A readable turn-by-turn account of a game with its final scores."""
    ts = profile.tileset
    lines = [f"profile {profile.name}, seed {seed}, seats: {', '.join(record.bots)}"]
    by_round: dict[int, list] = {}
    for entry in record.log:
        by_round.setdefault(entry.round_index, []).append(entry)
    for rnd in record.rounds:
        lines.append("")
        lines.append(f"Round {rnd.round_index + 1}: seat {rnd.first_player} starts")
        for entry in by_round.get(rnd.round_index, []):
            who = f"seat {entry.seat} ({record.bots[entry.seat]})"
            what = ", ".join(entry.actions)
            if entry.played:
                what += f" [{format_tiles(sorted(entry.played), ts)}]"
            lines.append(f"  turn {entry.turn:>3}  {who}: {what}")
            if entry.played:
                lines.append(f"            table: {format_table(entry.table, ts)}")
            sizes = " ".join(str(s) for s in entry.rack_sizes)
            lines.append(f"            racks: {sizes}   pool: {entry.pool_size}")
        reason = {
            "out": "went out",
            "pool_exhausted": "pool exhausted, everyone passed",
            "capped": "turn cap reached",
        }[rnd.end_reason]
        tie = " (tie broken by turn order)" if rnd.tied else ""
        lines.append(
            f"Round {rnd.round_index + 1} over after {rnd.turns} turns: seat {rnd.winner} wins "
            f"({reason}){tie}"
        )
        for seat, (score, points, left) in enumerate(
            zip(rnd.scores, rnd.rack_points, rnd.tiles_left, strict=True)
        ):
            lines.append(f"  seat {seat}: {score:+d}  ({left} tiles, {points} points left)")
        for fault in rnd.faults:
            lines.append(f"  fault: turn {fault.turn} seat {fault.seat}: {fault.rule}: {fault.message}")
    lines.append("")
    totals = "  ".join(f"seat {s}: {score:+d}" for s, score in enumerate(record.scores))
    lines.append(f"Final scores after {record.n_rounds} round(s): {totals}")
    tie = " (level on points; most rounds won breaks the tie)" if record.tied else ""
    lines.append(f"Winner: seat {record.winner} ({record.bots[record.winner]}){tie}")
    return "\n".join(lines)


def _cmd_profiles(args: argparse.Namespace) -> None:
    if args.profiles_command == "list":
        for name in builtin_profiles():
            profile = load_profile(name)
            print(f"{name:<20} {profile.description}")
    elif args.profiles_command == "show":
        print(load_profile(args.profile).to_yaml(), end="")
    else:
        profile = load_profile(args.path)
        print(f"{args.path}: ok (profile {profile.name!r})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "play":
            _cmd_play(args)
        else:
            _cmd_profiles(args)
    except (ProfileError, BotError, TileError, CliError) as exc:
        print(f"rummisim: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `rummisim play | head`
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
