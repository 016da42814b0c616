"""Bots in a process of their own: ``Isolated(spec, time_limit)`` is a bot factory whose bot runs
the spec's bot in a child Python process, speaking JSON lines over pipes (after mjai).

The child gets the rules, the bot spec and a seed once, then one message per decision: the seat's
``TurnView`` (its rack, the table, the counts, the top discard), nothing else. It answers one
action. So the bot cannot reach the engine's state (no hidden rack, no pool is in its process),
and every decision has a wall-clock limit:

- no answer within ``time_limit`` seconds (a hang, a sleep): the child is killed and the decision
  is ``OutOfBudget()``, so the profile's ``time_limit.on_timeout`` rule applies (a timeout is
  counted and recorded in the game log);
- the child crashes, calls ``sys.exit``, raises ``KeyboardInterrupt``, is killed or answers
  something that is not an action: ``IsolatedBotError``, which the engine records as the seat's
  ``bot_error`` fault, and the seat draws;

and the game goes on: the next decision starts a new child (the bot loses what it kept in memory).
The child's own prints go to stderr, never into the protocol. A child ends with its bot (when the
factory's bot is collected, or the process exits). Built-in bots stay in-process; ``rummisim run``
isolates class-path bots (``package.module:Class``) by default, ``rummisim play --isolate`` every
bot it names. Protocol, one JSON object a line: parent ``{"init": {"spec", "profile", "seed"}}``
then ``{"view": {...}}`` per decision; child ``{"ready": true}``, then ``{"action": {...}}`` or
``{"error": "..."}``.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
import weakref
from typing import Any

import numpy as np

from rummisim.bots.registry import BotSpec, parse_spec
from rummisim.contract import Action, Discard, Draw, OutOfBudget, Pass, Phase, Play, TurnView
from rummisim.melds import Meld
from rummisim.profile import RuleProfile, profile_from_dict

DEFAULT_TIME_LIMIT = 10.0  # seconds a decision may take (``--bot-time-limit``)
START_LIMIT = 60.0  # seconds a child may take to start and build its bot (imports included)
MAX_ANSWER_BYTES = 1 << 20


class IsolatedBotError(RuntimeError):
    """An isolated bot's process failed a decision (crashed, exited, answered nonsense)."""


class Isolated:
    """A bot factory (``contract.BotFactory``): ``spec``'s bot in a child process, each decision
    within ``time_limit`` seconds. A child outlives its game: when a game's bot is collected its
    child goes back to this factory, and the next game's bot sends it a new ``init`` (a fresh bot
    with its own seed) instead of starting Python again; the factory's idle children end with
    it."""

    def __init__(self, spec: BotSpec, time_limit: float = DEFAULT_TIME_LIMIT):
        self.spec = spec
        self.time_limit = time_limit
        self.idle: list[subprocess.Popen] = []
        weakref.finalize(self, _kill_all, self.idle)

    @property
    def label(self) -> str:
        return self.spec.label

    def __call__(self, profile: RuleProfile, rng: np.random.Generator) -> IsolatedBot:
        return IsolatedBot(self.spec, profile, int(rng.integers(2**63)), self.time_limit, self.idle)


def _kill_all(processes: list) -> None:
    while processes:
        _kill(processes.pop())


class IsolatedBot:
    """The parent's side of one isolated bot (see the module docstring)."""

    def __init__(
        self, spec: BotSpec, profile: RuleProfile, seed: int, time_limit: float, idle: list | None = None
    ):
        self.spec = spec
        self.profile = profile
        self.seed = seed
        self.time_limit = time_limit
        self.name = spec.label
        self.idle = idle if idle is not None else []  # children to reuse, and to hand back
        self.process: subprocess.Popen | None = None
        self._finalizer: Any = None

    def act(self, view: TurnView) -> Action:
        if self.process is None or self.process.poll() is not None:
            self._start()
        assert self.process is not None
        message = {"view": _view_data(view)}
        answer = self._ask(message, self.time_limit)
        if answer is None:  # no answer in time: killed; the profile's timeout rule applies
            self._stop()
            return OutOfBudget()
        if "error" in answer:
            raise IsolatedBotError(f"isolated bot {self.name!r}: {answer['error']}")
        try:
            return _action(answer["action"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IsolatedBotError(f"isolated bot {self.name!r}: not an action: {exc}") from None

    def _start(self) -> None:
        self._stop()
        while self.idle and self.process is None:
            spare = self.idle.pop()
            if spare.poll() is None:
                self.process = spare
            else:
                _kill(spare)
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "rummisim.isolation"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,  # the bot's own output (its prints go there too)
            )
        self._finalizer = weakref.finalize(self, _hand_back, self.process, self.idle)
        init = {"init": {"spec": self.spec.as_data(), "profile": self.profile.to_dict(), "seed": self.seed}}
        ready = self._ask(init, START_LIMIT)
        if ready is None or "error" in ready:
            why = "did not start in time" if ready is None else ready["error"]
            self._stop()
            raise IsolatedBotError(f"isolated bot {self.name!r}: {why}")

    def _ask(self, message: dict, limit: float) -> dict | None:
        """Send one message and read one answer line within ``limit`` seconds (None: no answer
        in time). ``IsolatedBotError`` when the child is gone or its answer is not JSON."""
        process = self.process
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write((json.dumps(message) + "\n").encode())
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise IsolatedBotError(
                f"isolated bot {self.name!r}: its process ended ({self._exit()})"
            ) from None
        line = _read_line(process.stdout.fileno(), limit)
        if line is None:
            return None
        if not line:
            raise IsolatedBotError(f"isolated bot {self.name!r}: its process ended ({self._exit()})")
        try:
            answer = json.loads(line)
        except ValueError:
            raise IsolatedBotError(f"isolated bot {self.name!r}: answered a line that is not JSON") from None
        if not isinstance(answer, dict):
            raise IsolatedBotError(f"isolated bot {self.name!r}: answered {type(answer).__name__}")
        return answer

    def _exit(self) -> str:
        assert self.process is not None
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "no exit code"
        return f"exit code {code}"

    def _stop(self) -> None:
        """End this bot's child (after a timeout or a failure it is not handed back)."""
        if self._finalizer is not None:
            self._finalizer.detach()
        if self.process is not None:
            _kill(self.process)
        self.process = None
        self._finalizer = None


def _hand_back(process: subprocess.Popen, idle: list) -> None:
    """A collected bot's child, still alive, goes back to its factory for the next game."""
    if process.poll() is None:
        idle.append(process)
    else:
        _kill(process)


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()


def _read_line(fd: int, limit: float) -> bytes | None:
    """One line from ``fd`` within ``limit`` seconds: the line (``b""`` at the end of the stream),
    or None when the time ran out."""
    deadline = time.monotonic() + limit
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in data:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return b""
            data += chunk
            if len(data) > MAX_ANSWER_BYTES:
                raise IsolatedBotError(f"an answer longer than {MAX_ANSWER_BYTES} bytes")
    return data.split(b"\n", 1)[0]


# ----- the messages ---------------------------------------------------------------------------


def _view_data(view: TurnView) -> dict[str, Any]:
    return {
        "seat": view.seat,
        "phase": str(view.phase),
        "rack": list(view.rack),
        "table": [[list(m.tiles), list(m.faces)] for m in view.table],
        "opened": view.opened,
        "opened_seats": list(view.opened_seats),
        "rack_sizes": list(view.rack_sizes),
        "pool_size": view.pool_size,
        "discard_top": view.discard_top,
        "turn": view.turn,
    }


def _view(data: dict[str, Any], profile: RuleProfile) -> TurnView:
    return TurnView(
        profile=profile,
        seat=int(data["seat"]),
        phase=Phase(data["phase"]),
        rack=tuple(int(t) for t in data["rack"]),
        table=tuple(Meld(tuple(tiles), tuple(faces)) for tiles, faces in data["table"]),
        opened=bool(data["opened"]),
        opened_seats=tuple(bool(o) for o in data["opened_seats"]),
        rack_sizes=tuple(int(n) for n in data["rack_sizes"]),
        pool_size=int(data["pool_size"]),
        discard_top=None if data["discard_top"] is None else int(data["discard_top"]),
        turn=int(data["turn"]),
    )


def _play_data(play: Play) -> dict[str, Any]:
    return {
        "played": [int(t) for t in play.played],
        "table": [[list(map(int, m.tiles)), list(map(int, m.faces))] for m in play.table],
    }


def _action_data(action: Any) -> dict[str, Any]:
    if isinstance(action, Play):
        return {"type": "play", **_play_data(action)}
    if isinstance(action, Draw):
        return {"type": "draw", "source": str(action.source)}
    if isinstance(action, Discard):
        return {"type": "discard", "tile": int(action.tile)}
    if isinstance(action, OutOfBudget):
        return {"type": "out_of_budget", "best": None if action.best is None else _play_data(action.best)}
    if isinstance(action, Pass):
        return {"type": "pass"}
    raise TypeError(f"not an action: {type(action).__name__}")


def _play(data: dict[str, Any]) -> Play:
    table = tuple(
        Meld(tuple(int(t) for t in tiles), tuple(int(f) for f in faces)) for tiles, faces in data["table"]
    )
    return Play(table, tuple(int(t) for t in data["played"]))


def _action(data: dict[str, Any]) -> Action:
    kind = data["type"]
    if kind == "play":
        return _play(data)
    if kind == "draw":
        return Draw(str(data["source"]))
    if kind == "discard":
        return Discard(int(data["tile"]))
    if kind == "out_of_budget":
        return OutOfBudget(None if data["best"] is None else _play(data["best"]))
    if kind == "pass":
        return Pass()
    raise ValueError(f"unknown action type {kind!r}")


# ----- the child ------------------------------------------------------------------------------


def child(stdin: Any, protocol: Any) -> None:
    """The child's loop: build the bot from the first message, then answer each view."""

    def send(message: dict) -> None:
        protocol.write((json.dumps(message) + "\n").encode())
        protocol.flush()

    bot = profile = None
    for raw in stdin:
        message = json.loads(raw)
        try:
            if "init" in message:
                init = message["init"]
                profile = profile_from_dict(init["profile"], "<isolated bot's profile>")
                rng = np.random.default_rng(np.random.SeedSequence(int(init["seed"])))
                bot = parse_spec(init["spec"])(profile, rng)
                send({"ready": True})
            else:
                assert bot is not None and profile is not None
                send({"action": _action_data(bot.act(_view(message["view"], profile)))})
        except BaseException as exc:  # noqa: BLE001 - sys.exit, Ctrl-C and any error are the bot's fault
            send({"error": f"{type(exc).__name__}: {str(exc)[:300]}"})


if __name__ == "__main__":  # the child process
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # the bot's prints go to stderr, never into the protocol
    with os.fdopen(protocol_fd, "wb") as out:
        child(sys.stdin.buffer, out)
