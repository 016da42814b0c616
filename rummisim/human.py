"""A person at the table: ``rummisim play --profile P --human N``, in the terminal.

``HumanSeat`` is a ``contract.Player`` that shows its person the seat's view (the rack sorted
and numbered, the table's sets numbered, the others' tile counts, the pool and the discard
pile) and reads their commands, one a line:

- tiles to lay, ``R4 J B9`` (or rack numbers, ``0 3 5``): the exact search finds a legal table
  that places exactly those tiles (rearranging the table where the profile allows), together
  with what was laid before in the turn; the new table is shown, and ``done`` plays it;
- ``table R1 R2 R3 | K5 O5 B5 R4``: a whole new table of your own (jokers as ``J(R6)``);
- ``undo``: take back the last tiles laid this turn; ``done``: play what is laid;
- ``draw`` (``take`` for the top discard with a discard pile; ``pass`` after drawing): with
  an empty pool a draw is a pass, as the rules say; under ``turn.must_play_if_able`` a draw by a
  seat that can play is refused once with the rule, and a second one lets the referee play the
  best play for it (the engine's ``must_play`` fault), so the game always goes on;
- ``hint``: the best play and its tiles and points; ``help``; ``quit``.

A request the rules refuse gets the rule in one line and the turn goes on; every rule of the
profile holds (the opening threshold, the joker rules, the discard pile, must-play), since every
table is checked by ``rules.validate_move`` before it is offered, and the engine checks it again.
The person's lines come from ``read`` and the screen goes to ``write`` (a script in the tests;
``terminal_seat`` wires them to stdin and stdout). ``quit`` (or the end of the input) raises
``contract.QuitGame``, which the engine does not catch as a bot fault.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable

from rummisim.contract import Action, Discard, Draw, Pass, Phase, Play, QuitGame, TurnView
from rummisim.melds import Meld, format_meld, parse_table
from rummisim.moves import IllegalMove, play_limit, validate_move
from rummisim.profile import RuleProfile, profile_from_dict
from rummisim.referee import legal_play
from rummisim.solver import placed_value, solve
from rummisim.tiles import TileError, format_tiles, parse_tiles

HELP = """\
commands (one a line):
  R4 J B9        lay these rack tiles (or their numbers: 0 3 5); the search arranges the table
  table ... | ...  lay a whole new table of your own, sets split by '|', jokers as J(R6)
  undo           take back the last tiles laid this turn
  done           play what is laid (an empty line does too)
  draw           draw a tile (take: the top discard; pass: end the turn after drawing)
  hint           the best play the rules allow
  help           this text;  quit: end the game"""


_Step = tuple[tuple[int, ...], tuple[Meld, ...]]  # rack tiles laid so far this turn, the table then


class HumanSeat:
    """A seat played by a person through ``read``/``write`` (see the module docstring)."""

    name = "human"

    def __init__(self, profile: RuleProfile, read: Callable[[], str | None], write: Callable[[str], None]):
        self.profile = profile
        self.read = read
        self.write = write
        # the search for "exactly these tiles" treats them as the whole rack; the discard
        # keep-back is checked against the real rack by ``validate_move``
        data = profile.to_dict()
        data["discard_pile"] = False
        self.warned = False
        self.search_rules = profile_from_dict(data, f"<{profile.name} without the discard keep-back>")

    # ----- the turn ---------------------------------------------------------------------------

    def act(self, view: TurnView) -> Action:
        if view.phase == Phase.DISCARD:
            return self.discard(view)
        self.show(view)
        self.warned = False  # told this turn that the rules make them play
        laid: list[_Step] = []  # (tiles, table) per step
        while True:
            line = self.ask("your move (help for the commands)")
            word = line.split(" ", 1)[0].lower() if line else "done"
            table = laid[-1][1] if laid else view.table
            played = laid[-1][0] if laid else ()
            if word == "help":
                self.write(HELP)
            elif word == "quit":
                raise QuitGame
            elif word == "hint":
                self.hint(view, table, played)
            elif word == "undo":
                if laid:
                    laid.pop()
                    self.write("taken back; the table is again:")
                    self.show_table(laid[-1][1] if laid else view.table)
                else:
                    self.write("nothing laid this turn to take back")
            elif word == "done":
                if laid:
                    return Play(table, played)
                if view.phase == Phase.AFTER_DRAW:
                    return Pass()
                self.write("nothing laid: lay tiles, or 'draw'")
            elif word in ("draw", "take", "pass"):
                action = self.draw(view, word, bool(laid))
                if action is not None:
                    return action
            elif word == "table":
                step = self.own_table(view, line[len("table") :])
                if step is not None:
                    laid = [step]
                    self.show_table(step[1])
            else:
                step = self.lay(view, line, played)
                if step is not None:
                    laid.append(step)
                    self.write(f"laid {format_tiles(step[0], self.profile.tileset)}; the table would be:")
                    self.show_table(step[1])
                    self.write("'done' plays it; more tiles, 'undo' or 'hint' go on")

    def ask(self, prompt: str) -> str:
        self.write(f"{prompt}> ")
        line = self.read()
        if line is None:
            raise QuitGame
        return line.strip()

    def draw(self, view: TurnView, word: str, laid: bool) -> Action | None:
        if laid:
            self.write("tiles are laid this turn: 'done' plays them, 'undo' takes them back")
            return None
        if view.phase == Phase.AFTER_DRAW:
            if word != "pass":
                self.write("you drew already: lay tiles and 'done', or 'pass'")
                return None
            return Pass()
        if word == "pass":
            word = "draw"
        if (
            self.profile.turn.must_play_if_able
            and legal_play(self.profile, view.rack, view.table, opened=view.opened).is_play
        ):
            if not self.warned:
                self.warned = True
                self.write(
                    "refused (must_play): you can play, and the rules say you must (turn.must_play_if_able); "
                    "'hint' shows a play, 'draw' again lets the referee play its best for you"
                )
                return None
            self.write("the referee plays its best play for you (a must_play fault)")
        if word == "take":
            if not self.profile.discard_pile or view.discard_top is None:
                self.write("there is no discard pile to take from")
                return None
            return Draw("discard")
        if view.pool_size == 0:
            self.write("the pool is empty: you pass")
        return Draw()

    def lay(self, view: TurnView, text: str, before: tuple[int, ...]) -> _Step | None:
        """The table placing ``before`` and the tiles named in ``text``, or None (said why)."""
        tiles = self.tiles_named(view, text, before)
        if tiles is None:
            return None
        wanted = tuple(sorted(before + tiles))
        rules, rearrange = self.search_rules, self.profile.turn.rearrange
        found = solve(wanted, view.table, rules, initial=not view.opened, rearrange=rearrange, budget=None)
        if found.tiles_placed < len(wanted):
            shown = format_tiles(wanted, self.profile.tileset)
            if not view.opened:
                meld = self.profile.initial_meld
                needs = f"the initial meld needs {meld.threshold} from sets of rack tiles, sets: {meld.sets}"
                self.write(f"refused: no opening lays exactly {shown} ({needs})")
            elif found.tiles_placed:
                best = format_tiles(found.played, self.profile.tileset)
                self.write(f"refused: no legal table places all of {shown} (at most {best})")
            else:
                self.write(f"refused: no legal table places {shown}")
            return None
        return self.checked(view, found.played, found.table)

    def own_table(self, view: TurnView, text: str) -> _Step | None:
        try:
            table = parse_table(text.strip(), self.profile)
        except (TileError, ValueError) as exc:
            self.write(f"refused: {exc}")
            return None
        ts = self.profile.tileset
        added = Counter(t for m in table for t in m.tiles)
        added.subtract(t for m in view.table for t in m.tiles)
        if any(n < 0 for n in added.values()):
            missing = sorted(t for t, n in added.items() if n < 0)
            self.write(
                f"refused (table_tile_missing): table tile(s) {format_tiles(missing, ts)} are not on it"
            )
            return None
        return self.checked(view, tuple(sorted(added.elements())), table)

    def checked(self, view: TurnView, played: tuple[int, ...], table: tuple[Meld, ...]) -> _Step | None:
        try:
            validate_move(self.profile, view.table, view.rack, table, played, opened=view.opened)
        except IllegalMove as exc:
            self.write(f"refused ({exc.rule}): {exc.message}")
            return None
        return played, table

    def tiles_named(self, view: TurnView, text: str, before: tuple[int, ...]) -> tuple[int, ...] | None:
        ts = self.profile.tileset
        rack = list(view.rack)
        tiles: list[int] = []
        for token in text.split():
            if token.isdigit():
                if int(token) >= len(rack):
                    self.write(f"refused: no tile number {token} on your rack (0..{len(rack) - 1})")
                    return None
                tiles.append(rack[int(token)])
                continue
            try:
                tiles.extend(parse_tiles(token, ts))
            except TileError as exc:
                self.write(f"refused: {exc} (type 'help' for the commands)")
                return None
        left = Counter(rack)
        left.subtract(before)
        left.subtract(tiles)
        short = sorted(t for t, n in left.items() if n < 0)
        if short:
            self.write(f"refused (tile_not_in_rack): your rack holds no more {format_tiles(short, ts)}")
            return None
        if not tiles:
            self.write("name the tiles to lay, e.g. R4 J B9 (help for the commands)")
            return None
        if len(before) + len(tiles) > play_limit(self.profile, len(rack)):
            self.write("refused (must_keep_discard): with a discard pile a play must leave a tile to discard")
            return None
        return tuple(tiles)

    def hint(self, view: TurnView, table: tuple[Meld, ...], played: tuple[int, ...]) -> None:
        best = legal_play(self.profile, view.rack, view.table, opened=view.opened)
        if not best.is_play:
            self.write("hint: no legal play; draw")
            return
        ts = self.profile.tileset
        points = placed_value(best.played, self.profile)
        self.write(f"hint: lay {format_tiles(best.played, ts)} ({best.tiles_placed} tiles, {points} points):")
        self.show_table(best.table)

    def discard(self, view: TurnView) -> Discard:
        ts = self.profile.tileset
        self.write(f"your rack: {self.numbered(view.rack)}")
        while True:
            line = self.ask("discard which tile (a tile or its number)")
            if line.lower() == "quit":
                raise QuitGame
            rack = list(view.rack)
            if line.isdigit() and int(line) < len(rack):
                return Discard(rack[int(line)])
            try:
                tiles = parse_tiles(line, ts)
            except TileError as exc:
                self.write(f"refused: {exc}")
                continue
            if len(tiles) == 1 and tiles[0] in rack:
                return Discard(tiles[0])
            self.write("refused: name one tile of your rack")

    # ----- the screen -------------------------------------------------------------------------

    def numbered(self, rack) -> str:
        ts = self.profile.tileset
        return "  ".join(f"{i}:{ts.format_tile(t)}" for i, t in enumerate(rack))

    def show_table(self, table: tuple[Meld, ...]) -> None:
        ts = self.profile.tileset
        if not table:
            self.write("  (the table is empty)")
        for i, meld in enumerate(table):
            self.write(f"  [{i}] {format_meld(meld, ts)}")

    def show(self, view: TurnView) -> None:
        ts = self.profile.tileset
        self.write("")
        self.write(f"--- turn {view.turn}: your move (seat {view.seat}) ---")
        self.write("table:")
        self.show_table(view.table)
        others = ", ".join(f"seat {s}: {n} tiles" for s, n in enumerate(view.rack_sizes) if s != view.seat)
        discard = ""
        if self.profile.discard_pile:
            top = "none" if view.discard_top is None else ts.format_tile(view.discard_top)
            discard = f"; discard pile top: {top}"
        self.write(f"{others}; pool: {view.pool_size} tiles{discard}")
        status = (
            ""
            if view.opened
            else f" (not opened: the initial meld needs {self.profile.initial_meld.threshold})"
        )
        self.write(f"your rack{status}: {self.numbered(view.rack)}")


def terminal_seat(profile: RuleProfile) -> HumanSeat:
    """The seat of a person at this terminal (``rummisim play --human``): lines from stdin, the
    screen on stdout, a prompt (ending in ``"> "``) left open for the answer."""

    def read() -> str | None:
        line = sys.stdin.readline()
        return line if line else None

    def write(text: str) -> None:
        print(text, end="" if text.endswith("> ") else "\n", flush=True)

    return HumanSeat(profile, read, write)
