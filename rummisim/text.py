"""Games and solutions as text: what ``rummisim play`` streams turn by turn (``turn_lines``,
``round_lines``, ``final_lines``; ``format_game`` for a finished game), what ``rummisim replay``
prints for a log that follows the rules (``replay_lines``), and what ``rummisim solve`` prints
(``format_solution``, or ``solution_json`` for ``--json``). Pure functions of the records; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rummisim.melds import format_meld, format_table
from rummisim.schema import EndReason
from rummisim.tiles import format_tiles

if TYPE_CHECKING:
    from rummisim.engine import GameRecord, RoundRecord
    from rummisim.profile import RuleProfile
    from rummisim.replay import Summary as ReplaySummary
    from rummisim.solver import Solution
    from rummisim.transcript import TurnLog


def replay_lines(path: str, summary: ReplaySummary) -> list[str]:
    """What ``rummisim replay`` prints for a log that follows the rules."""
    head = summary.header
    profile = head.profile
    draws = "the pool's order" if summary.pool_order else "the unseen tiles (no pool order in the log)"
    scores = "  ".join(f"seat {s} ({head.labels[s]}): {score:+d}" for s, score in enumerate(summary.scores))
    tie = " (level on points; most rounds won breaks the tie)" if summary.tied else ""
    capped = f" (the match stopped at match.max_rounds: {profile.match.max_rounds})" if summary.capped else ""
    return [
        f"{path}: ok: every event follows the rules of profile {profile.name!r} (digest {profile.digest})",
        f"  seed {head.seed}, seats: {', '.join(head.labels)}",
        f"  {summary.rounds} round(s){capped}, {summary.turns} turns, {summary.plays} plays, "
        f"{summary.faults} fault(s), {summary.timeouts} timeout(s); draws checked against {draws}",
        f"  scores: {scores}",
        f"  winner: seat {summary.winner} ({head.labels[summary.winner]}){tie}",
    ]


def format_game(record: GameRecord, turns: Sequence[TurnLog], profile: RuleProfile, seed: int) -> str:
    """A readable turn-by-turn account of a game and its final scores, from its record and the
    turns a ``rummisim.transcript.Transcript`` of its events kept: the text ``rummisim play``
    streams."""
    lines = [f"profile {profile.name}, seed {seed}, seats: {', '.join(record.bots)}"]
    by_round: dict[int, list] = {}
    for entry in turns:
        by_round.setdefault(entry.round_index, []).append(entry)
    for rnd in record.rounds:
        for entry in by_round.get(rnd.round_index, []):
            lines.extend(turn_lines(entry, profile, record.bots))
        lines.extend(round_lines(rnd))
    return "\n".join(lines + final_lines(record, profile))


def turn_lines(entry: TurnLog, profile: RuleProfile, bots: Sequence[str]) -> list[str]:
    """One turn (with the round's header before its first turn)."""
    ts = profile.tileset
    lines = []
    if entry.turn == 1:
        lines += ["", f"Round {entry.round_index + 1}: seat {entry.seat} starts"]
    what = ", ".join(entry.actions)
    if entry.played:
        what += f" [{format_tiles(sorted(entry.played), ts)}]"
    lines.append(f"  turn {entry.turn:>3}  seat {entry.seat} ({bots[entry.seat]}): {what}")
    if entry.played:
        lines.append(f"            table: {format_table(entry.table, ts)}")
    sizes = " ".join(str(s) for s in entry.rack_sizes)
    lines.append(f"            racks: {sizes}   pool: {entry.pool_size}")
    return lines


def round_lines(rnd: RoundRecord) -> list[str]:
    """How a round ended: the winner, each seat's score and what is left, the faults."""
    reason = {
        EndReason.OUT: "went out",
        EndReason.POOL_EXHAUSTED: "pool exhausted",
        EndReason.TURN_CAP: "turn cap reached",
    }[rnd.end_reason]
    tie = " (tie broken by turn order)" if rnd.tied else ""
    lines = [
        f"Round {rnd.round_index + 1} over after {rnd.turns} turns: seat {rnd.winner} wins ({reason}){tie}"
    ]
    for seat, (score, points, left) in enumerate(
        zip(rnd.scores, rnd.rack_points, rnd.tiles_left, strict=True)
    ):
        lines.append(f"  seat {seat}: {score:+d}  ({left} tiles, {points} points left)")
    for fault in rnd.faults:
        lines.append(f"  fault: turn {fault.turn} seat {fault.seat}: {fault.rule}: {fault.message}")
    return lines


def final_lines(record: GameRecord, profile: RuleProfile) -> list[str]:
    """The match's final scores, a note on a capped match, and the winner."""
    lines = [""]
    totals = "  ".join(f"seat {s}: {score:+d}" for s, score in enumerate(record.scores))
    lines.append(f"Final scores after {record.n_rounds} round(s): {totals}")
    tie = " (level on points; most rounds won breaks the tie)" if record.tied else ""
    if record.match_capped:
        lines.append(
            f"Note: the match stopped at its cap of {profile.match.max_rounds} rounds (match.max_rounds) "
            f"before anyone reached {profile.match.target_points} points"
        )
    lines.append(f"Winner: seat {record.winner} ({record.bots[record.winner]}){tie}")
    return lines


def solution_json(solution: Solution, profile: RuleProfile) -> dict:
    """The ``solve --json`` object: counts, tiles played, the new table (jokers as ``J(R7)``),
    whether the play is a proven optimum, and which search answered (``Solution.method``; where
    the exact search gave up, also why: ``give_up``)."""
    ts = profile.tileset
    out = {
        "tiles_placed": solution.tiles_placed,
        "value_placed": solution.value_placed,
        "played": [ts.format_tile(t) for t in sorted(solution.played)],
        "table": [format_meld(m, ts) for m in solution.table],
        "proven": solution.proven,
        "search_units": solution.nodes,
        "method": solution.method,
    }
    if solution.give_up is not None:
        out["give_up"] = solution.give_up.value
    return out


def format_solution(
    solution: Solution, table, rack, profile: RuleProfile, *, initial: bool, objective: str
) -> str:
    """A readable account of a solved position."""
    ts = profile.tileset
    mode = "initial meld" if initial else "turn"
    lines = [
        f"profile {profile.name}, {mode}, objective {objective}",
        f"table:     {format_table(table, ts)}",
        f"rack:      {format_tiles(sorted(rack), ts) or '(empty)'}",
    ]
    if solution.is_play:
        lines.append(f"play:      {format_tiles(sorted(solution.played), ts)}")
        lines.append(f"new table: {format_table(solution.table, ts)}")
    else:
        if not solution.proven:
            why = "none found within the search budget"
        elif initial:
            why = f"the initial meld cannot reach {profile.initial_meld.threshold} points with this rack"
        else:
            why = "no rack tile can be placed"
        lines.append(f"play:      no play ({why}); draw instead")
        lines.append(f"new table: {format_table(solution.table, ts)} (unchanged)")
    proven = "proven optimal"
    if not solution.proven:
        why = "the search budget ran out"
        if solution.give_up is not None:
            why = f"the exact search gave up: {solution.give_up.value}"
        proven = f"NOT proven optimal ({why})"
    by = f"method {solution.method}"
    lines.append(
        f"placed {solution.tiles_placed} tile(s) worth {solution.value_placed} point(s); {proven}; "
        f"{solution.nodes} search units; answered by {by}"
    )
    return "\n".join(lines)
