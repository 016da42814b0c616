"""The game log: ``rummisim.events`` as JSON lines and back, one seat's view, and its text.

After the precedent of mjai (the replay format of Mahjong AI), a log is one JSON object a
line, each with a ``"type"``. The first line is the ``header`` (the format and its version,
the package version, the profile in full with its digest, the seed and the bots as data);
then the events, with tiles in the notation of ``rummisim.tiles`` (``"R7"``, ``"J"``) and
tables as lists of sets in the notation of ``rummisim.melds`` (``"K5 O5 J(B5)"``: every
joker with the tile it stands for). ``docs/game-log.md`` describes every field.

- ``header`` / ``read_header``: the first line, written and read back (the profile is
  rebuilt from its data and checked against its digest).
- ``to_dict`` / ``from_dict``: one event to a JSON-ready dict and back (``from_dict`` also
  reads hand-written logs: see the optional keys there).
- ``read_records``: text lines to ``(line number, dict)`` pairs, with one-line errors.
- ``view``: one seat's view of a record: the other racks, their draws and the pool order
  become counts.
- ``view_text``: a viewed log as the text ``rummisim play`` streams, hidden tiles hidden.

Pure: no file is read or written here (``rummisim.cli`` does that); ``rummisim.replay``
checks a log against the rules.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rummisim import events as ev
from rummisim.melds import format_meld, format_table
from rummisim.profile import ProfileError, RuleProfile, profile_from_dict
from rummisim.rules.jokers import assign_jokers
from rummisim.rules.sets import Meld, is_valid_meld_parts, make_meld
from rummisim.schema import EndReason
from rummisim.tiles import TileError, TileSet, format_tiles, split_joker_token
from rummisim.validation import excerpt

FORMAT = "rummisim-game-log"
VERSION = 1

EVENT_TYPES = (
    "deal",
    "draw",
    "take_discard",
    "play",
    "discard",
    "pass",
    "timeout",
    "fault",
    "turn_end",
    "round_end",
    "game_end",
)
TURN_TYPES = frozenset(EVENT_TYPES[1:9])  # the events inside a turn: they carry round, turn and seat


class LogError(ValueError):
    """A record that is not a valid game-log line: ``line`` (1-based, None when not known
    yet) and what is wrong."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message

    def at(self, line: int) -> LogError:
        """The same error placed on ``line`` (when it had none)."""
        return self if self.line is not None else LogError(line, self.message)

    def __str__(self) -> str:
        return self.message if self.line is None else f"{self.line}: {self.message}"


# ----- the header -------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The first line, read: the rules, the seed, the bots (as data) and their labels, and
    the seat whose view this is (None: the full log)."""

    profile: RuleProfile
    seed: int | None
    bots: tuple[Any, ...]
    labels: tuple[str, ...]
    view: int | None
    package_version: str | None


def header(
    profile: RuleProfile, seed: int | None, bots: Sequence[Any], package_version: str | None
) -> dict[str, Any]:
    """The header record: ``bots`` as data (``BotSpec.as_data()``: a name or ``{name, params}``)."""
    return {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "rummisim": package_version,
        "profile": profile.to_dict(),
        "profile_digest": profile.digest,
        "seed": seed,
        "bots": list(bots),
    }


def bot_label(data: Any) -> str:
    """A seat's label from its spec as data: the name, or ``name(key=value,...)``."""
    if isinstance(data, Mapping):
        params = data.get("params") or {}
        inner = ",".join(f"{key}={json.dumps(value)}" for key, value in sorted(params.items()))
        return f"{data.get('name')}({inner})" if inner else str(data.get("name"))
    return str(data)


def read_header(record: Mapping[str, Any], resolve: Callable[[str], RuleProfile] | None = None) -> Header:
    """Read the header record; ``LogError`` (without a line) when it is not one.

    ``profile`` is the profile's data (as ``header`` writes it), or a name or path that
    ``resolve`` loads (a hand-written log may say ``"profile": "standard"``). When the
    header gives ``profile_digest`` the profile must have that digest: the same rules.
    """
    if record.get("type") != "header":
        raise LogError(None, f"the first line must be the header, got type {record.get('type')!r}")
    if record.get("format") != FORMAT:
        raise LogError(None, f"header: format {record.get('format')!r} is not {FORMAT!r}")
    version = record.get("version")
    if version != VERSION:
        raise LogError(None, f"header: format version {version!r}; this rummisim reads version {VERSION}")
    raw = _key(record, "profile", "header")
    try:
        if isinstance(raw, Mapping):
            profile = profile_from_dict(dict(raw), "header profile")
        elif isinstance(raw, str) and resolve is not None:
            profile = resolve(raw)
        else:
            raise LogError(None, "header: 'profile' must be the profile's data (an object) or its name")
    except ProfileError as exc:
        raise LogError(None, f"header: {exc}") from None
    digest = record.get("profile_digest")
    if digest is not None and digest != profile.digest:
        raise LogError(
            None,
            f"header: profile {profile.name!r} has digest {profile.digest}, but the header says {digest} "
            "(the rules differ from the ones the game was played under)",
        )
    seed = record.get("seed")
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise LogError(
            None, f"header: 'seed' must be an integer 0 <= seed < 2**63 or null, got {excerpt(seed)}"
        )
    bots = _key(record, "bots", "header")
    if not isinstance(bots, list) or not all(isinstance(b, str | Mapping) for b in bots):
        raise LogError(None, "header: 'bots' must be a list with one name (or {name, params}) per seat")
    problem = profile.seat_count_problem(len(bots))
    if problem:
        raise LogError(None, f"header: {problem}, got {len(bots)} bots")
    view = record.get("view")
    if view is not None and (not isinstance(view, int) or not 0 <= view < len(bots)):
        raise LogError(None, f"header: 'view' must be a seat 0..{len(bots) - 1}, got {view!r}")
    package = record.get("rummisim")
    return Header(
        profile,
        seed,
        tuple(bots),
        tuple(bot_label(b) for b in bots),
        view,
        package if isinstance(package, str) else None,
    )


# ----- events to records ----------------------------------------------------------------------


def to_dict(event: ev.Event, ts: TileSet) -> dict[str, Any]:
    """One event as a JSON-ready dict (tiles and tables in notation)."""

    def tiles(codes: Iterable[int]) -> list[str]:
        return [ts.format_tile(int(c)) for c in codes]

    if isinstance(event, ev.Dealt):
        return {
            "type": "deal",
            "round": event.round_index,
            "first": event.first_player,
            "racks": [tiles(rack) for rack in event.racks],
            "pool": tiles(event.pool),
            "discard": tiles(event.discard),
        }
    if isinstance(event, ev.GameEnded):
        return {
            "type": "game_end",
            "scores": list(event.scores),
            "winner": event.winner,
            "tied": event.tied,
            "capped": event.match_capped,
            "rounds": event.rounds,
        }
    if isinstance(event, ev.RoundEnded):
        return {
            "type": "round_end",
            "round": event.round_index,
            "winner": event.winner,
            "tied": event.tied,
            "reason": str(event.end_reason),
            "turns": event.turns,
            "scores": list(event.scores),
            "rack_points": list(event.rack_points),
            "racks": [tiles(rack) for rack in event.racks],
        }
    where = {"round": event.round_index, "turn": event.turn, "seat": event.seat}

    def move(played: Iterable[int], table: Iterable[Meld]) -> dict[str, Any]:
        # a play's tiles and table, as ``play`` writes them and an illegal move's ``fault`` too
        return {"tiles": tiles(played), "table": [format_meld(m, ts) for m in table]}

    if isinstance(event, ev.Drew):
        return {"type": "draw", **where, "tiles": tiles(event.tiles)}
    if isinstance(event, ev.TookDiscard):
        return {"type": "take_discard", **where, "tile": ts.format_tile(event.tile)}
    if isinstance(event, ev.Played):
        return {
            "type": "play",
            **where,
            "phase": event.phase,
            **move(event.played, event.table),
            "opened": event.opened,
            "forced": event.forced,
        }
    if isinstance(event, ev.Discarded):
        return {"type": "discard", **where, "tile": ts.format_tile(event.tile)}
    if isinstance(event, ev.Passed):
        return {"type": "pass", **where}
    if isinstance(event, ev.TimedOut):
        return {"type": "timeout", **where}
    if isinstance(event, ev.Faulted):
        fault = {"type": "fault", **where, "rule": event.rule, "message": event.message}
        if event.played is not None and event.table is not None:  # an illegal move: the move refused
            fault.update(move(event.played, event.table))
        return fault
    return {
        "type": "turn_end",
        **where,
        "rack_before": tiles(event.rack_before),
        "opened_before": event.opened_before,
        "actions": list(event.actions),
        "played": tiles(event.played),
        "table_tiles": event.table_tiles,
        "rack_after": event.rack_after,
        "pool_size": event.pool_size,
        "search_units": event.search_units,
    }


def dumps(record: Mapping[str, Any]) -> str:
    """One record as one compact JSON line (without the newline)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


# ----- records to events ----------------------------------------------------------------------


def _key(record: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in record:
        raise LogError(None, f"{what}: missing key {key!r}")
    return record[key]


MAX_INT = 2**63  # integers in a log (rounds, turns, seats, scores) stay within |n| < 2**63


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -MAX_INT < value < MAX_INT


def _int(record: Mapping[str, Any], key: str, what: str, default: int | None = None) -> int:
    value = record.get(key, default) if default is not None else _key(record, key, what)
    if not _is_int(value):
        raise LogError(None, f"{what}: {key!r} must be an integer below 2**63, got {excerpt(value)}")
    return value


def _bool(record: Mapping[str, Any], key: str, what: str, default: bool) -> bool:
    value = record.get(key, default)
    if not isinstance(value, bool):
        raise LogError(None, f"{what}: {key!r} must be true or false, got {value!r}")
    return value


def _str(record: Mapping[str, Any], key: str, what: str, default: str | None = None) -> str:
    value = record.get(key, default) if default is not None else _key(record, key, what)
    if not isinstance(value, str):
        raise LogError(None, f"{what}: {key!r} must be a string, got {value!r}")
    return value


def _ints(record: Mapping[str, Any], key: str, what: str) -> tuple[int, ...]:
    value = _key(record, key, what)
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        raise LogError(None, f"{what}: {key!r} must be a list of integers below 2**63, got {excerpt(value)}")
    return tuple(value)


def parse_tile(text: Any, ts: TileSet, what: str) -> int:
    """One tile (``"R7"``, ``"J"``); ``LogError`` naming ``what`` otherwise."""
    if not isinstance(text, str):
        raise LogError(None, f"{what}: a tile is a string such as 'R7' or 'J', got {text!r}")
    try:
        return ts.parse_tile(text)
    except TileError as exc:
        raise LogError(None, f"{what}: {exc}") from None


def tile_list(record: Mapping[str, Any], key: str, ts: TileSet, what: str) -> tuple[int, ...]:
    """A list of tiles under ``key``."""
    value = _key(record, key, what)
    if not isinstance(value, list):
        raise LogError(None, f"{what}: {key!r} must be a list of tiles, got {value!r}")
    return tuple(parse_tile(t, ts, f"{what}: {key!r}") for t in value)


def parse_set(text: Any, profile: RuleProfile, what: str = "set") -> Meld:
    """One set as written in a log (``"K5 O5 J(B5)"``), into a ``Meld``, normalised when it is
    a valid set and kept as written when it is not (the rules then reject it by name). A
    joker written without its tile (``J``) gets the face ``assign_jokers`` finds."""
    ts = profile.tileset
    if not isinstance(text, str):
        raise LogError(None, f"{what}: a set is a string such as 'R5 R6 J(R7)', got {text!r}")
    tiles: list[int] = []
    faces: list[int] = []
    pinned: dict[int, int] = {}
    try:
        for token in text.split():
            joker = split_joker_token(token, ts)
            if joker is None:
                code = ts.parse_tile(token)
                tiles.append(code)
                faces.append(code)
                continue
            if joker[1] is not None:
                pinned[len(tiles)] = joker[1]
            tiles.append(ts.joker)
            faces.append(ts.joker if joker[1] is None else joker[1])
    except TileError as exc:
        raise LogError(None, f"{what} {text!r}: {exc}") from None
    if not tiles:
        raise LogError(None, f"{what}: an empty set")
    if ts.joker in faces:  # a joker written without its tile: the reading assign_jokers finds
        found = assign_jokers(tiles, profile, pinned)
        return found if found is not None else Meld(tuple(tiles), tuple(faces))
    if is_valid_meld_parts(tuple(tiles), tuple(faces), profile):
        return make_meld(tiles, faces, profile)
    return Meld(tuple(tiles), tuple(faces))


def parse_sets(record: Mapping[str, Any], key: str, profile: RuleProfile, what: str) -> tuple[Meld, ...]:
    """A table: a list of sets under ``key``."""
    value = _key(record, key, what)
    if not isinstance(value, list):
        raise LogError(None, f"{what}: {key!r} must be a list of sets, got {value!r}")
    return tuple(parse_set(text, profile, f"{what}: set") for text in value)


def describe(record: Mapping[str, Any]) -> str:
    """How errors name a record: ``play by seat 2``, ``deal of round 0``, ``game_end``."""
    kind = record.get("type")
    if kind in TURN_TYPES and "seat" in record:
        return f"{kind} by seat {record['seat']}"
    if kind in ("deal", "round_end") and "round" in record:
        return f"{kind} of round {record['round']}"
    return str(kind)


def from_dict(record: Mapping[str, Any], profile: RuleProfile) -> ev.Event:
    """A record back into its event (``to_dict``'s inverse); ``LogError`` without a line.

    Keys a hand-written log may leave out: a deal's ``pool`` (read as empty: the order is
    unknown) and ``discard``; a play's ``phase``, ``opened`` and ``forced``; a fault's move
    (``tiles`` and ``table``, together: absent or null, the fault has none); a round end's
    ``tied``, ``turns``, ``rack_points`` and ``racks``; a game end's ``tied``, ``capped`` and
    ``rounds`` (``rummisim.replay`` checks only the keys a record has)."""
    ts = profile.tileset
    kind = record.get("type")
    what = describe(record)
    if kind == "deal":
        racks = _key(record, "racks", what)
        if not isinstance(racks, list):
            raise LogError(None, f"{what}: 'racks' must be a list with one list of tiles per seat")
        return ev.Dealt(
            _int(record, "round", what),
            _int(record, "first", what),
            tuple(tile_list({"rack": r}, "rack", ts, what) for r in racks),
            tile_list(record, "pool", ts, what) if record.get("pool") is not None else (),
            tile_list(record, "discard", ts, what) if record.get("discard") is not None else (),
        )
    if kind == "game_end":
        return ev.GameEnded(
            _ints(record, "scores", what),
            _int(record, "winner", what),
            _bool(record, "tied", what, False),
            _bool(record, "capped", what, False),
            _int(record, "rounds", what, default=0),
        )
    if kind == "round_end":
        reason = _str(record, "reason", what)
        if reason not in {r.value for r in EndReason if r != EndReason.FAULT}:
            raise LogError(None, f"{what}: unknown reason {reason!r} (out, pool_exhausted or turn_cap)")
        racks = record.get("racks") or []
        if not isinstance(racks, list):
            raise LogError(None, f"{what}: 'racks' must be a list with one list of tiles per seat")
        return ev.RoundEnded(
            _int(record, "round", what),
            _int(record, "winner", what),
            _bool(record, "tied", what, False),
            EndReason(reason),
            _int(record, "turns", what, default=0),
            _ints(record, "scores", what),
            _ints(record, "rack_points", what) if "rack_points" in record else (),
            tuple(tile_list({"rack": r}, "rack", ts, what) for r in racks),
        )
    if kind not in TURN_TYPES:
        raise LogError(None, f"unknown event type {kind!r} (one of: header, {', '.join(EVENT_TYPES)})")
    rnd, turn, seat = _int(record, "round", what), _int(record, "turn", what), _int(record, "seat", what)
    if kind == "draw":
        return ev.Drew(rnd, turn, seat, tile_list(record, "tiles", ts, what))
    if kind == "take_discard":
        return ev.TookDiscard(rnd, turn, seat, parse_tile(_key(record, "tile", what), ts, what))
    if kind == "discard":
        return ev.Discarded(rnd, turn, seat, parse_tile(_key(record, "tile", what), ts, what))
    if kind == "play":
        return ev.Played(
            rnd,
            turn,
            seat,
            _str(record, "phase", what, default="start"),
            tile_list(record, "tiles", ts, what),
            parse_sets(record, "table", profile, what),
            _bool(record, "opened", what, False),
            _bool(record, "forced", what, False),
        )
    if kind == "pass":
        return ev.Passed(rnd, turn, seat)
    if kind == "timeout":
        return ev.TimedOut(rnd, turn, seat)
    if kind == "fault":
        rule, message = _str(record, "rule", what), _str(record, "message", what)
        given = [key for key in ("tiles", "table") if record.get(key) is not None]
        if not given:
            return ev.Faulted(rnd, turn, seat, rule, message)
        if len(given) == 1:
            raise LogError(
                None, f"{what}: a fault's move is 'tiles' and 'table' together, got only {given[0]!r}"
            )
        return ev.Faulted(
            rnd,
            turn,
            seat,
            rule,
            message,
            tile_list(record, "tiles", ts, what),
            parse_sets(record, "table", profile, what),
        )
    actions = _key(record, "actions", what)
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise LogError(None, f"{what}: 'actions' must be a list of strings")
    units = record.get("search_units")
    if units is not None and (not isinstance(units, int) or isinstance(units, bool)):
        raise LogError(None, f"{what}: 'search_units' must be an integer or null, got {units!r}")
    return ev.TurnEnded(
        rnd,
        turn,
        seat,
        tile_list(record, "rack_before", ts, what),
        _bool(record, "opened_before", what, False),
        tuple(actions),
        tile_list(record, "played", ts, what),
        _int(record, "table_tiles", what),
        _int(record, "rack_after", what),
        _int(record, "pool_size", what),
        units,
    )


# ----- lines to records --------------------------------------------------------------------------


MAX_LINE_BYTES = 1 << 20  # one record a line: a few KB at most; a longer line is refused


def lines_of(read: Callable[[int], bytes]) -> Iterator[bytes]:
    """The lines of a log from ``read`` (a binary file's ``readline``), none over
    ``MAX_LINE_BYTES``: an endless line (``/dev/zero``) is refused, not read to the end."""
    for number in itertools.count(1):
        line = read(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES:
            raise LogError(number, f"line longer than {MAX_LINE_BYTES} bytes (a record is a few KB)")
        yield line


def read_records(lines: Iterable[str | bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each non-blank line, lazily; ``LogError`` at the first line
    that is not one JSON object with a known ``type`` (a half-written last line is one)."""
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise LogError(number, "not UTF-8 text") from None
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise LogError(number, f"not a complete JSON object (a truncated file?): {exc.msg}") from None
        except RecursionError:
            raise LogError(number, "JSON nested too deeply") from None
        except ValueError:  # an integer past Python's digit limit for text
            raise LogError(number, "a number with too many digits (integers stay below 2**63)") from None
        if not isinstance(record, dict):
            raise LogError(number, f"expected a JSON object with a 'type', got {type(record).__name__}")
        kind = record.get("type")
        if kind != "header" and kind not in EVENT_TYPES:
            raise LogError(number, f"unknown event type {kind!r} (one of: header, {', '.join(EVENT_TYPES)})")
        yield number, record


# ----- one seat's view ----------------------------------------------------------------------------


def view(record: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """``record`` as ``seat`` sees it: every list of tiles it may not see is replaced by its
    count (the other seats' racks at the deal and before their turns, the tiles they draw,
    the pool, the illegal moves they proposed: the tiles and the sets of a fault's move).
    What is on the table, the discards, the faults' rules and messages and the racks shown
    at the round's end stay; the header gets ``"view": seat``."""
    out = dict(record)
    kind = record.get("type")
    if kind == "header":
        out["view"] = seat
    elif kind == "deal":
        out["racks"] = [rack if s == seat else _count(rack) for s, rack in enumerate(record["racks"])]
        if out.get("pool") is not None:
            out["pool"] = _count(record["pool"])
    elif kind == "draw" and record.get("seat") != seat:
        out["tiles"] = _count(record["tiles"])
    elif kind == "turn_end" and record.get("seat") != seat:
        out["rack_before"] = _count(record["rack_before"])
    elif kind == "fault" and record.get("seat") != seat:  # the engine shows no one a refused move
        for key in ("tiles", "table"):
            if record.get(key) is not None:
                out[key] = _count(record[key])
    return out


def _count(tiles: Any) -> Any:
    return len(tiles) if isinstance(tiles, list) else tiles


# ----- the text of a (viewed) log ---------------------------------------------------------------


def view_text(head: Header, records: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The log as text, turn by turn (like ``rummisim play``): what each seat did, the table
    after a play, rack sizes and the pool; with ``head.view`` set, that seat's rack after each
    of its turns, and counts where the log has counts. Reads a log ``rummisim.replay`` passed."""
    ts = head.profile.tileset
    me = head.view
    labels = head.labels
    sizes: list[int] = []
    pool = 0
    rack: list[int] = []
    turn: dict[str, Any] | None = None

    def flush() -> Iterator[str]:
        nonlocal turn
        if turn is None:
            return
        what = ", ".join(turn["words"]) or "nothing"
        yield f"  turn {turn['turn']:>3}  seat {turn['seat']} ({labels[turn['seat']]}): {what}"
        if turn["table"] is not None:
            yield f"            table: {format_table(turn['table'], ts)}"
        yield f"            racks: {' '.join(map(str, sizes))}   pool: {pool}"
        if turn["seat"] == me:
            yield f"            your rack: {format_tiles(sorted(rack), ts) or '(empty)'}"
        turn = None

    def tiles(value: Any) -> list[int]:
        return [ts.parse_tile(t) for t in value]

    for record in records:
        kind = record["type"]
        if kind in TURN_TYPES and (turn is None or turn["turn"] != record["turn"]):
            yield from flush()
            turn = {"turn": record["turn"], "seat": record["seat"], "words": [], "table": None}
        seat: int = record.get("seat", -1)
        words: list[str] = turn["words"] if turn is not None and kind in TURN_TYPES else []
        if kind == "deal":
            yield from flush()
            racks = record["racks"]
            sizes = [r if isinstance(r, int) else len(r) for r in racks]
            dealt = sum(sizes) + len(record.get("discard") or [])
            given = record.get("pool")
            pool = given if isinstance(given, int) else len(given) if given is not None else ts.size - dealt
            yield ""
            yield f"Round {record['round'] + 1}: seat {record['first']} starts"
            if me is not None:
                rack = tiles(racks[me])
                yield f"  your rack (seat {me}): {format_tiles(sorted(rack), ts)}"
            if record.get("discard"):
                yield f"  discard pile: {' '.join(record['discard'])}"
        elif kind == "draw":
            drawn = record["tiles"]
            count = drawn if isinstance(drawn, int) else len(drawn)
            sizes[seat] += count
            pool -= count
            if seat == me:
                rack += tiles(drawn)
            words.append(f"draws {' '.join(drawn)}" if isinstance(drawn, list) else f"draws {count}")
        elif kind == "take_discard":
            sizes[seat] += 1
            if seat == me:
                rack += tiles([record["tile"]])
            words.append(f"takes the top discard {record['tile']}")
        elif kind == "play" and turn is not None:
            played = record["tiles"]
            sizes[seat] -= len(played)
            if seat == me:
                for code in tiles(played):
                    rack.remove(code)
            note = " (initial meld)" if record.get("opened") else ""
            forced = "must play: " if record.get("forced") else ""
            words.append(f"{forced}plays [{' '.join(played)}]{note}")
            turn["table"] = tuple(parse_set(text, head.profile) for text in record["table"])
        elif kind == "discard":
            sizes[seat] -= 1
            if seat == me:
                rack.remove(ts.parse_tile(record["tile"]))
            words.append(f"discards {record['tile']}")
        elif kind == "pass":
            words.append("passes (pool empty)")
        elif kind == "timeout":
            words.append("out of search budget")
        elif kind == "fault":
            words.append(f"fault {record['rule']}: {record['message']}")
        elif kind == "round_end":
            yield from flush()
            yield from _round_text(record, labels)
        elif kind == "game_end":
            yield from flush()
            totals = "  ".join(f"seat {s}: {score:+d}" for s, score in enumerate(record["scores"]))
            yield ""
            yield f"Final scores after {record.get('rounds', '?')} round(s): {totals}"
            tie = " (level on points; most rounds won breaks the tie)" if record.get("tied") else ""
            yield f"Winner: seat {record['winner']} ({labels[record['winner']]}){tie}"
    yield from flush()


def _round_text(record: Mapping[str, Any], labels: Sequence[str]) -> Iterator[str]:
    reason = {"out": "went out", "pool_exhausted": "pool exhausted", "turn_cap": "turn cap reached"}
    tie = " (tie broken by turn order)" if record.get("tied") else ""
    yield (
        f"Round {record['round'] + 1} over after {record.get('turns', '?')} turns: seat {record['winner']} "
        f"({labels[record['winner']]}) wins ({reason.get(record['reason'], record['reason'])}){tie}"
    )
    racks = record.get("racks") or [None] * len(record["scores"])
    for seat, (score, rack) in enumerate(zip(record["scores"], racks, strict=True)):
        left = f"  left: {' '.join(rack) or '(empty)'}" if rack is not None else ""
        yield f"  seat {seat}: {score:+d}{left}"


__all__ = [
    "EVENT_TYPES",
    "FORMAT",
    "VERSION",
    "Header",
    "LogError",
    "bot_label",
    "describe",
    "dumps",
    "from_dict",
    "header",
    "parse_set",
    "parse_sets",
    "parse_tile",
    "read_header",
    "read_records",
    "tile_list",
    "to_dict",
    "view",
    "view_text",
]
