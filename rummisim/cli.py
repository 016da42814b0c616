"""Command line: ``rummisim run | report | play | replay | solve | profiles | tune``.

Bad input (a broken profile, an unknown bot, a bad tile) prints one line,
``rummisim: error: ...``, on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal, NoReturn, TextIO

import numpy as np

from rummisim import gamelog
from rummisim.bots import BOTS, BotError, split_bot_specs, validate_spec
from rummisim.bots.loading import is_class_path
from rummisim.bots.registry import check_search_scope
from rummisim.contract import QuitGame
from rummisim.engine import play_game
from rummisim.experiment import ExperimentError
from rummisim.isolation import DEFAULT_TIME_LIMIT, Isolated
from rummisim.melds import parse_table, table_tiles
from rummisim.profile import MAX_SEARCH_BUDGET, ProfileError, RuleProfile, builtin_profiles, load_profile
from rummisim.solver import OBJECTIVES
from rummisim.text import final_lines, format_solution, replay_lines, round_lines, solution_json, turn_lines
from rummisim.tiles import TileError, parse_tiles
from rummisim.transcript import Transcript, fan_out

if TYPE_CHECKING:
    from rummisim.events import Event
    from rummisim.replay import Summary as ReplaySummary

EXIT_USAGE = 2


class _LogRefused(Exception):
    """A game log that breaks the rules: the message is ``FILE:LINE: what``, printed as it is."""


class CliError(Exception):
    """A user error reported as one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's error style: one line on stderr, exit 2 (``--help`` shows usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rummisim", description="Rummikub rule-variant simulator for research.")
    parser.add_argument("--version", action="version", version=f"rummisim {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play one seeded game and print a turn-by-turn log")
    play.add_argument("--profile", default="standard", help="built-in profile name or YAML path")
    play.add_argument(
        "--bots",
        default=None,
        help="comma-separated bots, one per seat: a name or NAME(key=value,...), e.g. "
        f"'greedy,conservative(min_play=2),greedy' (available: {', '.join(sorted(BOTS))}, "
        "a bot installed under the rummisim.bots entry points, or package.module:ClassName; "
        "default: baseline in as many seats as the profile's players.max allows, at most 3)",
    )
    play.add_argument(
        "--human",
        type=int,
        metavar="SEAT",
        help="play this seat yourself in the terminal ('help' at the prompt lists the commands); "
        "--bots then names the other seats",
    )
    play.add_argument("--seed", type=_seed_int, default=0, help="game seed (same seed, same game)")
    play.add_argument("--quiet", action="store_true", help="print only the final scores")
    play.add_argument(
        "--isolate",
        action="store_true",
        help="play package.module:Class bots each in a process of its own (shown only its seat's "
        "view, every decision within --bot-time-limit); built-in bots stay in-process",
    )
    _add_time_limit(play)
    play.add_argument(
        "--log",
        metavar="PATH",
        help="also write the game log there: one JSON event a line, hidden tiles included "
        "(docs/game-log.md); check it with 'rummisim replay PATH', see it with 'rummisim view PATH'",
    )

    replay_cmd = sub.add_parser(
        "replay",
        help="check a game log against its profile's rules",
        description="Re-validate every event of a game log (rummisim play --log, or a transcript "
        "written by any tool: docs/game-log.md) against the rules of the profile in its header: "
        "tiles conserved, every move legal, turn order, round ends, scores. Exit 0 with a summary, "
        "or 2 at the first illegal event, naming its line.",
    )
    replay_cmd.add_argument("log", help="the game log (JSON lines)")
    replay_cmd.add_argument(
        "--seat", type=int, help="also print the game as this seat saw it (the others' tiles hidden)"
    )

    view = sub.add_parser(
        "view",
        help="write a game log as one HTML page to step through",
        description="Write a game log (rummisim play --log) as one self-contained HTML page: the "
        "table, the racks, the pool and what each turn did, turn by turn (a slider, the arrow keys). "
        "It needs no server and makes no network request. The log is checked first, as replay does.",
    )
    view.add_argument("log", help="the game log (JSON lines)")
    view.add_argument("--seat", type=int, help="show the game as this seat saw it (the others' tiles hidden)")
    view.add_argument("--out", metavar="PATH", help="the page to write (default: the log's name with .html)")

    solve_cmd = sub.add_parser(
        "solve",
        help="the best play for a rack against a table",
        description="Print the best play for a rack against a table, and the new table. "
        "Tiles: K black, R red, O orange, B blue, then the value (R7, K13); J is a joker. "
        "A table is sets separated by '|', a joker optionally with its tile: 'R1 R2 R3 | K5 O5 J(B5)'.",
    )
    solve_cmd.add_argument("--profile", default="standard", help="built-in profile name or YAML path")
    solve_cmd.add_argument("--table", default="", help="the sets on the table, e.g. 'R1 R2 R3 | K5 O5 B5'")
    solve_cmd.add_argument("--rack", required=True, help="the rack tiles, e.g. 'R4 J B9'")
    solve_cmd.add_argument(
        "--initial", action="store_true", help="the player has not made the initial meld yet"
    )
    solve_cmd.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default="tiles",
        help="tiles: most rack tiles placed, then most points; value: most points, then most tiles",
    )
    solve_cmd.add_argument(
        "--budget",
        type=_budget_int,
        help="search units (DP states, or MILP nodes) the search may spend (default: the profile's)",
    )
    solve_cmd.add_argument(
        "--method",
        choices=("search", "milp"),
        default="search",
        help="search: the exact dynamic program (what bots use); milp: the integer program, the "
        "independent reference (slower, up to minutes)",
    )
    solve_cmd.add_argument("--json", action="store_true", help="print one JSON object instead of text")

    run = sub.add_parser(
        "run",
        help="play every cell of an experiment file in parallel and write tidy results",
        description="Play an experiment (a YAML file, or a built-in one by name: quickstart, variants, "
        "... as in configs/experiments/*.yaml) into a results folder: "
        "games.parquet, seats.parquet, matches.parquet, summary.csv, manifest.json "
        "(and turns.parquet with --turns).",
    )
    run.add_argument(
        "experiment", help="experiment YAML path, or a built-in experiment's name (e.g. quickstart)"
    )
    run.add_argument("--games", type=int, help="games per cell (overrides the file's 'games')")
    run.add_argument("--jobs", type=int, default=None, help="parallel workers (default: all cores)")
    run.add_argument("--out", help="results folder (default: results/<experiment name>)")
    run.add_argument("--seed", type=int, help="root seed (overrides the file's 'seed')")
    run.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    run.add_argument("--backend", choices=("loky", "dask"), default="loky", help="joblib backend")
    run.add_argument("--scheduler", help="dask scheduler address, e.g. tcp://host:8786 (with --backend dask)")
    run.add_argument("--chunk-size", type=int, help="games per chunk written to disk (default 50)")
    run.add_argument("--no-report", action="store_true", help="skip report.md and the charts")
    run.add_argument(
        "--turns",
        action="store_true",
        default=None,
        help="also write turns.parquet, one row per turn (large: see docs/results.md; a resume keeps it)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument(
        "--no-isolate",
        action="store_true",
        help="play package.module:Class bots in-process (default: each in a process of its own, "
        "shown only its seat's view, every decision within --bot-time-limit)",
    )
    _add_time_limit(run)

    report = sub.add_parser(
        "report", help="write report.md and PNG charts for a finished run's results folder"
    )
    report.add_argument("results", help="results folder, e.g. results/quickstart")

    tune = sub.add_parser(
        "tune",
        help="search a bot's parameters or a profile's rule keys with Optuna",
        description="Run an Optuna study over a tune file (a YAML file, or a built-in one by name: "
        "conservative, fair-first-seat, as in configs/tune/*.yaml) into a folder: study.db, "
        "trials.parquet, best.yaml, a validation of the best on fresh deals, report.md and charts.",
    )
    tune.add_argument("tune", help="tune file YAML path, or a built-in tune file's name (e.g. conservative)")
    tune.add_argument("--trials", type=int, help="finished trials to run the study to (overrides 'trials')")
    tune.add_argument("--jobs", type=int, default=None, help="parallel workers (default: all cores)")
    tune.add_argument("--out", help="study folder (default: results/tune-<name>)")
    tune.add_argument("--resume", action="store_true", help="continue the study in --out (or --storage)")
    tune.add_argument(
        "--storage", help="Optuna RDB storage URL shared by several machines, e.g. postgresql://user@host/db"
    )
    tune.add_argument("--backend", choices=("loky", "dask"), default="loky", help="joblib backend")
    tune.add_argument("--scheduler", help="dask scheduler address (with --backend dask)")
    tune.add_argument(
        "--no-validate", action="store_true", help="skip the validation run (for a shared study's workers)"
    )
    tune.add_argument("--quiet", action="store_true", help="no line per trial")

    profiles = sub.add_parser("profiles", help="list, show or validate rule profiles")
    psub = profiles.add_subparsers(dest="profiles_command", required=True)
    psub.add_parser("list", help="list the built-in profiles")
    show = psub.add_parser("show", help="print a fully resolved profile as YAML")
    show.add_argument("profile", help="built-in profile name or YAML path")
    validate = psub.add_parser("validate", help="check a profile file")
    validate.add_argument("path", help="YAML path")
    for command in (*sub.choices.values(), *psub.choices.values()):
        command.formatter_class = argparse.ArgumentDefaultsHelpFormatter  # --help shows defaults
    return parser


def _version() -> str:
    try:
        return metadata.version("rummisim")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _cmd_play(args: argparse.Namespace) -> None:
    profile = load_profile(args.profile)
    human = args.human is not None
    if args.bots is None:
        args.bots = ",".join(["baseline"] * (max(profile.players.min, min(3, profile.players.max)) - human))
    try:  # the grammar, names and parameters, with the registry's one-line errors
        bots = [validate_spec(text) for text in split_bot_specs(args.bots)]
    except BotError as exc:
        raise CliError(f"--bots: {exc}") from None
    if not bots and not human:
        raise CliError("--bots: give at least two comma-separated bot names")
    problem = profile.seat_count_problem(len(bots) + human)
    if problem:
        raise CliError(f"--bots: {problem}, got {len(bots) + human} seats")
    check_search_scope(profile, bots, "--bots")
    seats: list = [
        Isolated(b, args.bot_time_limit) if args.isolate and is_class_path(b.name) else b for b in bots
    ]
    data = [b.as_data() for b in bots]
    if human:
        if not 0 <= args.human <= len(bots):
            raise CliError(f"--human: expected a seat 0..{len(bots)}, got {args.human}")
        from rummisim.human import terminal_seat

        seats.insert(args.human, terminal_seat(profile))
        data.insert(args.human, "human")
    names = [gamelog.bot_label(entry) for entry in data]
    log = _open_log(args.log, gamelog.header(profile, args.seed, data, _version()))
    if not args.quiet:
        print(f"profile {profile.name}, seed {args.seed}, seats: {', '.join(names)}", flush=True)

    def write(event: Event) -> None:
        """Each event as one line as it happens (a crash leaves a log ``replay`` calls truncated)."""
        assert log is not None
        log.write(gamelog.dumps(gamelog.to_dict(event, profile.tileset)) + "\n")

    # the game's one event stream, read by the text (each turn as it ends, so a long game shows its
    # progress, and each round's end; --quiet prints only the final scores) and by the log
    text = Transcript(
        profile,
        on_turn=lambda entry: print("\n".join(turn_lines(entry, profile, names)), flush=True),
        on_round=lambda rnd: print("\n".join(round_lines(rnd)), flush=True),
    )
    readers: list[Callable[[Event], None]] = ([] if args.quiet else [text]) + ([] if log is None else [write])
    try:
        record = play_game(profile, seats, args.seed, events=fan_out(*readers) if readers else None)
    except BrokenPipeError:
        raise
    except QuitGame:
        print("game ended by the player" + (f"; the log so far is in {args.log}" if args.log else ""))
        return
    except OSError as exc:  # the log could not be written
        raise CliError(_os_error(exc)) from None
    finally:
        if log is not None:
            log.close()
    lines = final_lines(record, profile)
    print("\n".join(lines[1:] if args.quiet else lines))  # (quiet: no blank line before them)
    if args.log and not args.quiet:
        print(f"log: {args.log} (check it: rummisim replay {args.log}; see it: rummisim view {args.log})")


def _add_time_limit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot-time-limit",
        type=_time_limit,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help="seconds an isolated bot's decision may take before it is a timeout",
    )


def _time_limit(text: str) -> float:
    """``--bot-time-limit``: seconds, more than 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"expected seconds, 0 < s <= 86400, got {text!r}")
    return value


def _open_log(path: str | None, head: dict) -> TextIO | None:
    """The ``--log`` file, opened and given its header before the game starts (a bad path is
    one error line, before any output); line-buffered, so each event is written as it happens."""
    if path is None:
        return None
    try:
        log = open(path, "w", encoding="utf-8", buffering=1)  # noqa: SIM115 - closed by _cmd_play
        log.write(gamelog.dumps(head) + "\n")
    except OSError as exc:
        raise CliError(f"--log: {_os_error(exc)}") from None
    return log


def _checked_log(path: str, seat: int | None) -> tuple[ReplaySummary, list[dict]]:
    """A game log read and checked by ``rummisim.replay``: its summary and records; its first
    error is ``gamelog.LogError``, which ``main`` prints as ``FILE:LINE: what`` (exit 2).
    ``seat`` (``--seat``) must be one of the game's."""
    from rummisim.replay import replay

    kept: list[dict] = []

    def records(handle: BinaryIO) -> Iterator[tuple[int, dict]]:
        for number, record in gamelog.read_records(gamelog.lines_of(handle.readline)):
            kept.append(record)
            yield number, record

    try:
        with open(path, "rb") as handle:
            summary = replay(records(handle), resolve=load_profile)
    except OSError as exc:
        raise CliError(_os_error(exc)) from None
    except gamelog.LogError as exc:
        raise _LogRefused(f"{path}:{exc.line}: {exc.message}") from None
    seats = len(summary.header.labels)
    if seat is not None and not 0 <= seat < seats:
        raise CliError(f"--seat: expected a seat 0..{seats - 1}, got {seat}")
    return summary, kept


def _cmd_replay(args: argparse.Namespace) -> int:
    """Check a game log (``rummisim.replay``); its errors are ``FILE:LINE: what`` and exit 2."""
    summary, kept = _checked_log(args.log, args.seat)
    head = summary.header
    if args.seat is not None:
        seen = replace(head, view=args.seat)
        for line in gamelog.view_text(seen, (gamelog.view(r, args.seat) for r in kept[1:])):
            print(line)
        print()
    print("\n".join(replay_lines(args.log, summary)))
    print(f"  see it turn by turn: rummisim view {args.log}")
    return 0


def _cmd_view(args: argparse.Namespace) -> int:
    """A checked game log as one self-contained HTML page (``rummisim.viewer``)."""
    from rummisim.viewer import frames, page

    summary, kept = _checked_log(args.log, args.seat)
    head = summary.header
    if head.view is not None:
        raise CliError(f"{args.log} is seat {head.view}'s view of a game; view the full log, with --seat")
    out = Path(args.out) if args.out else Path(args.log).with_suffix(".html")
    text = page(head, frames(head, kept[1:], args.seat), args.seat)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"--out: {_os_error(exc)}") from None
    print(f"{out}: {summary.rounds} round(s), {summary.turns} turns; open it in a browser")
    return 0


def _bounded_int(low: int, high: int):
    """An argparse type: a whole number in ``low..high`` (an error line otherwise)."""

    def parse(text: str) -> int:
        try:
            value = int(text) if len(text) <= 20 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number {low}..{high}, got {text[:40]!r}")
        return value

    return parse


_budget_int = _bounded_int(1, MAX_SEARCH_BUDGET)
_seed_int = _bounded_int(0, 2**63 - 1)


def _cmd_solve(args: argparse.Namespace) -> None:
    from rummisim.solver import reference_solve, solve  # numba, scipy: loaded by the commands that search

    profile = load_profile(args.profile)
    try:
        table = parse_table(args.table, profile)
    except TileError as exc:
        raise CliError(f"--table: {exc}") from None
    try:
        rack = parse_tiles(args.rack, profile.tileset)
    except TileError as exc:
        raise CliError(f"--rack: {exc}") from None
    if not rack:
        raise CliError("--rack: give at least one tile (a player with an empty rack has gone out)")
    _check_tile_counts(table_tiles(table), rack, profile)
    # no --budget: the profile's
    budget: int | Literal["profile"] = "profile" if args.budget is None else args.budget
    if args.method == "milp":
        units = profile.time_limit.search_budget if args.budget is None else args.budget
        mode = dict(initial=args.initial, objective=args.objective)
        solution = reference_solve(rack, table, profile, **mode, units=units)
    else:
        solution = solve(rack, table, profile, initial=args.initial, objective=args.objective, budget=budget)
    if args.json:
        print(json.dumps(solution_json(solution, profile)))
    else:
        print(format_solution(solution, table, rack, profile, initial=args.initial, objective=args.objective))


def _check_tile_counts(table: list[int], rack: tuple[int, ...], profile: RuleProfile) -> None:
    """Refuse a position holding more copies of a tile than the profile's tile set has."""
    ts = profile.tileset
    held = ts.counts(list(table) + list(rack))
    over = np.flatnonzero(held > ts.full_counts())
    if over.size:
        code = int(over[0])
        limit = ts.jokers if code == ts.joker else ts.copies
        raise CliError(
            f"the table and rack hold {held[code]} x {ts.format_tile(code)}, "
            f"but profile {profile.name!r} has only {limit}"
        )


def _os_error(exc: OSError) -> str:
    """One line for a failed read or write: the file and the system's reason."""
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


def _cmd_run(args: argparse.Namespace) -> int:
    try:
        return _run_and_report(args)
    except KeyboardInterrupt:  # outside the playing loop, which saves its chunks and says how to resume
        print("rummisim: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        raise CliError(_os_error(exc)) from None


def _run_and_report(args: argparse.Namespace) -> int:
    import os
    import shlex

    import joblib

    from rummisim.experiment import load_experiment
    from rummisim.runner import check_backend, run_experiment

    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"--jobs: expected a whole number of workers >= 1, got {args.jobs}")
    check_backend(args.backend, args.scheduler)
    experiment = load_experiment(args.experiment, games=args.games, seed=args.seed)
    for cell in experiment.cells:
        check_search_scope(cell.profile, cell.lineup, f"{args.experiment}: cell {cell.label!r}")
    jobs = args.jobs if args.jobs is not None else joblib.cpu_count()
    out = args.out or f"results/{experiment.name}"
    cells = len(experiment.cells)

    def started(workers: int, chunks: int) -> None:
        """Printed once every check has passed, so bad input is one error line and nothing more."""
        cores = os.cpu_count() or 1
        if jobs > cores:
            print(
                f"rummisim: warning: --jobs {jobs} is more than the {cores} CPU core(s); games are "
                f"CPU-bound, so extra workers only add memory ({workers} started: one per chunk at most)",
                file=sys.stderr,
            )
        print(
            f"{experiment.name}: {cells} cell(s) x {experiment.games} games = {cells * experiment.games} "
            f"games, {chunks} chunk(s) to play on {workers} worker(s), backend {args.backend} -> {out}",
            file=sys.stderr,
        )

    result = run_experiment(
        experiment,
        out,
        jobs=jobs,
        chunk_size=args.chunk_size,
        resume=args.resume,
        backend=args.backend,
        scheduler=args.scheduler,
        progress=False if args.quiet else None,
        summarize=args.no_report,  # otherwise the report writes the summary, computed once for both
        on_start=started,
        turns=args.turns,
        isolate=None if args.no_isolate else args.bot_time_limit,
    )
    if result.interrupted:
        if result.removed:
            print(f"interrupted before any game was saved; nothing was left in {out}", file=sys.stderr)
            return 130
        print(
            f"interrupted: {result.games_done} of {result.games_total} games are saved in {out}; "
            f"resume with: rummisim run {shlex.quote(args.experiment)} --out {shlex.quote(out)} --resume"
            + (f" --games {args.games}" if args.games else "")
            + (f" --seed {args.seed}" if args.seed is not None else ""),
            file=sys.stderr,
        )
        return 130
    if result.replayed:
        print(
            f"resume: {len(result.replayed)} damaged chunk(s) played again (first: {result.replayed[0]})",
            file=sys.stderr,
        )
    rate = result.games_played / result.seconds if result.seconds else 0.0
    print(
        f"done: {result.games_total} games ({result.games_played} played now, {rate:.1f} games/s), "
        f"{result.faults} game(s) with faults; results in {out}",
        file=sys.stderr,
    )
    if not args.no_report:
        return _report(out, after_run=True)
    return 0


def _report(out: str, after_run: bool = False) -> int:
    """Write the report; Ctrl-C leaves the previous report.md (it is replaced atomically)."""
    try:
        from rummisim.report import write_report

        path = write_report(out)
    except KeyboardInterrupt:
        done = f"the results in {out} are complete, but " if after_run else ""
        print(
            f"rummisim: interrupted: {done}report.md was not updated; write it with: rummisim report {out}",
            file=sys.stderr,
        )
        return 130
    except OSError as exc:
        raise CliError(_os_error(exc)) from None
    print(f"report: {path} (charts in {Path(out) / 'charts'})", file=sys.stderr)
    return 0


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


def _cmd_tune(args: argparse.Namespace) -> int:
    """``rummisim tune``: checks, the study, then its outputs (see ``rummisim.tune``)."""
    import shlex

    import joblib

    from rummisim.tune import load_tune
    from rummisim.tune.study import run_study, write_outputs

    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"--jobs: expected a whole number of workers >= 1, got {args.jobs}")
    tune = load_tune(args.tune, trials=args.trials)
    experiment = tune.trial_experiment(tune.default_params())
    check_search_scope(experiment.cells[0].profile, experiment.cells[0].lineup, f"{args.tune}")
    jobs = args.jobs if args.jobs is not None else joblib.cpu_count()
    out = args.out or f"results/tune-{tune.name}"
    say = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        result = run_study(
            tune, out, jobs=jobs, resume=args.resume, storage=args.storage, backend=args.backend,
            scheduler=args.scheduler, say=say,
        )  # fmt: skip
        if result.interrupted:
            if result.removed:
                print(f"interrupted before any trial finished; nothing was left in {out}", file=sys.stderr)
                return 130
            resume = f"rummisim tune {shlex.quote(args.tune)} --out {shlex.quote(out)} --resume"
            resume += f" --storage {shlex.quote(args.storage)}" if args.storage else ""
            resume += f" --trials {args.trials}" if args.trials else ""
            print(
                f"interrupted: {result.finished} of {result.target} trials finished, saved in "
                f"{result.storage}; resume with: {resume}",
                file=sys.stderr,
            )
            return 130
        print(
            f"study {tune.name}: {result.finished} trials finished ({result.ran} run now, "
            f"{result.seconds:.0f} s); writing outputs to {out}",
            file=sys.stderr,
        )
        written = write_outputs(
            tune, result, storage=args.storage, jobs=jobs, backend=args.backend, scheduler=args.scheduler,
            validate=not args.no_validate,
        )  # fmt: skip
    except KeyboardInterrupt:
        print(f"rummisim: interrupted; the study is saved: resume with --resume (in {out})", file=sys.stderr)
        return 130
    except OSError as exc:
        raise CliError(_os_error(exc)) from None
    print(f"report: {written['report']} (best: {written['best']})", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "report":
            return _report(args.results)
        if args.command == "tune":
            return _cmd_tune(args)
        if args.command == "replay":
            return _cmd_replay(args)
        if args.command == "view":
            return _cmd_view(args)
        if args.command == "play":
            _cmd_play(args)
        elif args.command == "solve":
            _cmd_solve(args)
        else:
            _cmd_profiles(args)
    except (ProfileError, BotError, TileError, CliError, ExperimentError) as exc:
        print(f"rummisim: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except _LogRefused as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `rummisim play | head`
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
