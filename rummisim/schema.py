"""The results schema: every column the runner writes, with its type and meaning, and the
vocabularies its values come from.

This module is the one place that says what a results folder holds. The runner builds its Arrow
schemas from it (``arrow_schema``), its row extractors are checked against it when they are
imported (``check_extractors``: a column declared and not extracted, or extracted and not
declared, is an error) and so is every hand-built row (``check_row``). The stats compare against
its enums, and the column tables of the documentation's results page (``docs/results.md``) are
generated from it (``markdown``; a test compares).

Adding a per-round statistic takes two steps, and a third the tests ask for:

1. declare the column here: a ``Column(name, type, meaning)`` in ``GAMES`` (one row per round),
   ``SEATS`` (seat per round) or ``MATCHES`` (per game), at the place it should stand;
2. write its extractor in ``rummisim/runner/rows.py``: one entry, in the same place, of
   ``GAMES_EXTRACTORS``, ``SEATS_EXTRACTORS`` or ``MATCHES_EXTRACTORS``, a function of the
   ``RowContext`` (the game record, the round, the seat) that returns the value. Crash rows
   (``crash_rows`` there) list every column too and get the value a crashed game has (mostly
   None);
3. run ``python -m rummisim.schema --write docs/results.md`` to regenerate the column tables of the
   results page (``tests/test_schema.py`` fails until the page matches).

``TURNS`` (``turns.parquet``, one row per turn, written only by ``rummisim run --turns``) works
the same way, with its extractors in ``rummisim/runner/turns.py`` (functions of one turn's events).

Nothing else changes: the merge, the store and ``load_results`` carry any column. Summaries
(``rummisim.stats``) use a column only once you write the statistic.

The vocabularies are ``StrEnum``s, so a member is its written value: ``EndReason.TURN_CAP ==
"turn_cap"``, and ``games["end_reason"] == EndReason.FAULT`` compares as the string does.
Pure; imports nothing heavy (pyarrow only inside ``arrow_schema``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any


class EndReason(StrEnum):
    """How a round ended (the ``end_reason`` column and ``RoundRecord.end_reason``)."""

    OUT = "out"  # a player emptied the rack
    POOL_EXHAUSTED = "pool_exhausted"  # the pool ran dry (everyone passed, or end.when_pool_empty)
    TURN_CAP = "turn_cap"  # the round reached end.max_turns (recorded as a fault too)
    FAULT = "fault"  # the engine crashed: the game has no winner (written by the runner only)


class RunStatus(StrEnum):
    """The ``status`` of a results folder's ``manifest.json``."""

    RUNNING = "running"
    INTERRUPTED = "interrupted"
    COMPLETE = "complete"


class Table(StrEnum):
    """The Parquet tables of a results folder, in the order they are written and merged."""

    GAMES = "games"  # one row per round
    SEATS = "seats"  # one row per seat per round
    MATCHES = "matches"  # one row per game (a match of rounds)
    TURNS = "turns"  # one row per turn; written only by ``rummisim run --turns`` (``OPTIONAL_TABLES``)


#: The tables a run writes only when asked (``run --turns``); every other table is always written.
OPTIONAL_TABLES: frozenset[Table] = frozenset({Table.TURNS})


class TurnPhase(StrEnum):
    """Where a seat stood when its turn began (the ``phase`` column of ``turns.parquet``)."""

    INITIAL_MELD = "initial_meld"  # it had not made its initial meld: a play this turn is that meld
    OPENED = "opened"  # it had made its initial meld on an earlier turn


class TurnAction(StrEnum):
    """What a turn did (the ``action`` column of ``turns.parquet``), from the turn's events.

    A discard that ends a discard-pile turn is not an action of its own (``discarded`` holds it);
    a fault shows in ``fault`` and the action says what the engine did instead (an illegal play
    that becomes a draw is ``draw``; a play the engine makes under ``turn.must_play_if_able`` is
    ``play``)."""

    PLAY = "play"  # played from the rack without drawing
    DRAW = "draw"  # drew from the pool and did not play
    DRAW_PLAY = "draw_play"  # drew from the pool, then played (turn.play_after_draw)
    TAKE_DISCARD = "take_discard"  # took the top discard and did not play
    TAKE_DISCARD_PLAY = "take_discard_play"  # took the top discard, then played
    PASS = "pass"  # neither played nor drew: the pool was empty
    TIMEOUT = "timeout"  # the search ran out of time_limit.search_budget (what followed: the tile columns)


class SchemaError(ValueError):
    """A row or an extractor that does not match the declared columns (a programming error)."""


#: Column types: the Arrow type each name stands for (see ``arrow_type``).
TYPES = ("int32", "int64", "string", "bool", "float64", "list<int32>", "list<string>")


@dataclass(frozen=True)
class Column:
    """One declared column: its name, type (one of ``TYPES``) and what a value means."""

    name: str
    type: str
    meaning: str

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise SchemaError(f"column {self.name!r}: unknown type {self.type!r}; one of {TYPES}")


#: Every table starts with these, then one column per sweep key (typed from the key's values)...
IDENTITY: tuple[Column, ...] = (
    Column("experiment", "string", "the experiment's name"),
    Column("cell", "int32", "the cell's index (cell 0 is the baseline of the paired changes)"),
    Column("cell_label", "string", "the cell's label (profile, lineup and sweep values that differ)"),
    Column("profile", "string", "the profile's name"),
    Column("profile_hash", "string", "the profile's digest (`OUT/profiles/<hash>.yaml` holds it)"),
    Column("lineup", "string", "the unrotated lineup, bot labels joined by commas"),
)
#: ...and then these.
GAME_IDENTITY: tuple[Column, ...] = (
    Column("deal", "int64", "the deal: game // rotations; the same deal in every cell with the tile set"),
    Column("rotation", "int32", "seats the lineup is rotated by: game % rotations"),
    Column("game", "int64", "the game's index in its cell"),
    Column("seed", "int64", "the game's seed (`rummisim play --seed` replays it)"),
)

GAMES: tuple[Column, ...] = (
    Column("round", "int32", "the round's index in its match (0 for a crashed game)"),
    Column("n_players", "int32", "seats at the table"),
    Column("first_player", "int32", "the seat that moved first this round (-1 for a crash)"),
    Column("turns", "int32", "turns played in the round"),
    Column("winner", "int32", "the winning seat (-1 for a crash)"),
    Column("winner_bot", "string", "the winner's bot label (null for a crash)"),
    Column("tied", "bool", "the win was decided by a tie-break"),
    Column("end_reason", "string", "how the round ended: " + ", ".join(f"`{r}`" for r in EndReason)),
    Column("pool_left", "int32", "tiles left in the pool (null for a crash)"),
    Column("opened_turns", "list<int32>", "the turn each seat made its initial meld, by seat (null = never)"),
    Column("faults", "int32", "bot faults in the round"),
    Column("timeouts", "int32", "turns whose search ran out of budget"),
    Column("fault", "string", "text of the first fault, the turn cap or the crash (null when none)"),
)
SEATS: tuple[Column, ...] = (
    Column("round", "int32", "the round's index in its match"),
    Column("n_players", "int32", "seats at the table"),
    Column("seat", "int32", "the seat"),
    Column("order", "int32", "the seat's place in the play order (0 = moved first this round)"),
    Column("slot", "int32", "the seat's position in the unrotated lineup"),
    Column("bot", "string", "the bot's name"),
    Column("bot_label", "string", "the bot's label (name and parameters)"),
    Column("score", "int32", "the seat's score for the round"),
    Column("tiles_left", "int32", "tiles left on the rack"),
    Column("points_left", "int32", "points left on the rack (jokers at their penalty)"),
    Column("won", "bool", "the seat won the round"),
    Column("opened_turn", "int32", "the turn of the seat's initial meld (null = never)"),
    Column("match_score", "int32", "the seat's final net match score"),
    Column("match_won", "bool", "the seat won the match (as the match counts its points)"),
)
MATCHES: tuple[Column, ...] = (
    Column("n_players", "int32", "seats at the table"),
    Column("rounds", "int32", "rounds played (0 for a crash)"),
    Column("capped", "bool", "the match stopped at match.max_rounds before its target"),
    Column("winner", "int32", "the winning seat (-1 for a crash)"),
    Column("winner_bot", "string", "the winner's bot label (null for a crash)"),
    Column("tied", "bool", "the win was decided by a tie-break"),
    Column("scores", "list<int32>", "final cumulative scores, by seat (null for a crash)"),
    Column("error", "string", "the crash, when the engine crashed (null otherwise)"),
)

_TILES = 'tiles as written in the notation (`"R7"`, `"J"`)'
_ACTIONS = ", ".join(f"`{a}`" for a in TurnAction)
TURNS: tuple[Column, ...] = (
    Column("round", "int32", "the round's index in its match"),
    Column("turn", "int32", "the turn in the round: 1 = the first player's first; games' `turns` = the last"),
    Column("seat", "int32", "the seat whose turn it is"),
    Column("bot", "string", "the seat's bot name"),
    Column("bot_label", "string", "the seat's bot label (name and parameters)"),
    Column("phase", "string", "`initial_meld`: not opened before the turn (a play opens); `opened`"),
    Column("rack_before", "list<string>", f"the rack when the turn began, sorted: {_TILES}"),
    Column("action", "string", f"what the turn did: {_ACTIONS} (`TurnAction`)"),
    Column("tiles_drawn", "int32", "tiles drawn from the pool or taken from the discard pile"),
    Column("tiles_played", "list<string>", "rack tiles played onto the table, sorted (empty: none)"),
    Column("value_played", "int32", "their face values; a joker at the value of the tile it stands for"),
    Column("discarded", "string", "the tile discarded at the end of the turn (discard pile; null: none)"),
    Column("table_tiles_after", "int32", "tiles on the table after the turn"),
    Column("rack_after", "int32", "tiles on the seat's rack after the turn"),
    Column("pool_after", "int32", "tiles left in the pool after the turn"),
    Column("search_units", "int64", "search units the bot spent (null: the bot does not count them)"),
    Column("fault", "string", "the rule of the seat's first fault this turn (null when none)"),
)

#: The columns after the identity, per table.
COLUMNS: dict[Table, tuple[Column, ...]] = {
    Table.GAMES: GAMES, Table.SEATS: SEATS, Table.MATCHES: MATCHES, Table.TURNS: TURNS,
}  # fmt: skip
#: What one row of each table stands for.
ROW_MEANS = {
    Table.GAMES: "round", Table.SEATS: "seat per round", Table.MATCHES: "game (match)",
    Table.TURNS: "turn (only with `rummisim run --turns`)",
}  # fmt: skip

#: ``ratings.csv`` (written beside ``summary.csv`` by ``rummisim.stats.ratings``), one row per cell
#: and bot label, for the cells with two or more distinct bots: these columns, then one column per
#: sweep key, then ``RATINGS``. Not a Parquet table: it is derived from ``seats`` on every summary.
RATINGS_IDENTITY: tuple[Column, ...] = (
    Column("cell", "int32", "the cell's index; -1, -2, ...: the 1st, 2nd, ... profile's overall rating"),
    Column("cell_label", "string", "the cell's label; `all (<profile>)` for an overall rating"),
    Column("profile", "string", "the profile's name"),
    Column("lineup", "string", "the unrotated lineup (overall: every bot label rated, first seen first)"),
)
RATINGS: tuple[Column, ...] = (
    Column("bot", "string", "the bot's name"),
    Column("bot_label", "string", "the bot's label (name and parameters): the rated player"),
    Column("seats", "int32", "seats the bot holds in the lineup (null for an overall rating)"),
    Column("games", "int64", "games (matches) with a rated round the bot played"),
    Column("rounds", "int64", "rounds rated: completed rounds the bot sat in (crashed rounds are left out)"),
    Column("mu", "float64", "Plackett-Luce skill (openskill, prior 25) from each round's order of finish"),
    Column("sigma", "float64", "its uncertainty (prior 25/3; no drift: bots do not learn)"),
    Column("ordinal", "float64", "the conservative rating mu - 3 sigma"),
    Column("rank", "int32", "1 = the highest mu in the cell"),
    Column("pairs", "int64", "pairwise comparisons: one per round and pair of seats holding different bots"),
    Column("pair_win_rate", "float64", "share of those comparisons the bot finished above (ties count half)"),
    Column("bt_score", "float64", "Bradley-Terry log-strength fitted to the pairwise results (cell mean 0)"),
    Column("bt_rank", "int32", "1 = the highest bt_score in the cell; compare with `rank`"),
)


def ratings_columns(keys: Iterable[str] = ()) -> tuple[str, ...]:
    """Every column of ``ratings.csv`` in order, with the sweep-key columns ``keys``."""
    return (*(c.name for c in RATINGS_IDENTITY), *keys, *(c.name for c in RATINGS))


def column_names(table: Table | str, keys: Iterable[str] = ()) -> tuple[str, ...]:
    """Every column of ``table`` in order, with the sweep-key columns ``keys``."""
    return (
        *(c.name for c in IDENTITY),
        *keys,
        *(c.name for c in GAME_IDENTITY),
        *(c.name for c in COLUMNS[Table(table)]),
    )


def key_type(values: Iterable[Any]) -> str:
    """The column type of a sweep key from its values in the cells (None = absent)."""
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if kinds <= {bool} and present:
        return "bool"
    if kinds <= {int} and present:
        return "int64"
    if kinds <= {int, float} and present:
        return "float64"
    return "string"


def arrow_type(name: str):
    """The pyarrow type of a declared column type."""
    import pyarrow as pa

    if name == "list<int32>":
        return pa.list_(pa.int32())
    if name == "list<string>":
        return pa.list_(pa.string())
    return {"int32": pa.int32(), "int64": pa.int64(), "string": pa.string(), "bool": pa.bool_(),
            "float64": pa.float64()}[name]  # fmt: skip


def arrow_schema(table: Table | str, key_types: Mapping[str, str]):
    """The Arrow schema of ``table`` with the sweep-key columns ``key_types`` (name -> type)."""
    import pyarrow as pa

    columns = [*IDENTITY, *(Column(k, t, "") for k, t in key_types.items()), *GAME_IDENTITY]
    columns += COLUMNS[Table(table)]
    return pa.schema([pa.field(c.name, arrow_type(c.type)) for c in columns])


def _difference(what: str, got: Iterable[str], want: Iterable[str], *, ordered: bool) -> None:
    got, want = list(got), list(want)
    if got == want or (not ordered and sorted(got) == sorted(want)):
        return
    missing = [c for c in want if c not in got]
    extra = [c for c in got if c not in want]
    parts = (f"missing {missing}" if missing else "", f"not declared {extra}" if extra else "")
    detail = "; ".join(part for part in parts if part)
    raise SchemaError(f"{what}: {detail or 'columns out of the declared order'} (see rummisim/schema.py)")


def check_extractors(table: Table | str, extractors: Mapping[str, Any]) -> None:
    """Raise ``SchemaError`` unless ``extractors`` name exactly the declared columns of ``table``
    after the identity, in order."""
    table = Table(table)
    _difference(f"the {table} extractors", extractors, (c.name for c in COLUMNS[table]), ordered=True)


def check_row(table: Table | str, row: Mapping[str, Any], keys: Iterable[str] = ()) -> None:
    """Raise ``SchemaError`` unless ``row`` holds exactly the columns of ``table`` (in any order)."""
    table = Table(table)
    _difference(f"a {table} row", row, column_names(table, keys), ordered=False)


# ----- documentation --------------------------------------------------------------------------

# The page that holds the generated column tables, between these markers.
DOC_PAGE = "docs/results.md"
DOC_START = f"<!-- results-schema: generated by `python -m rummisim.schema --write {DOC_PAGE}` -->"
DOC_END = "<!-- results-schema: end -->"


def markdown() -> str:
    """The results page's column tables, between its markers."""
    identity = ", ".join(f"`{c.name}`" for c in IDENTITY)
    after = ", ".join(f"`{c.name}`" for c in GAME_IDENTITY)
    lines = [
        DOC_START,
        "",
        f"Every table starts with the identifying columns {identity}, then one column per sweep key "
        f"(named by its key path, typed from its values), then {after}:",
        "",
        "| column | type | meaning |",
        "| --- | --- | --- |",
        *(f"| `{c.name}` | {c.type} | {c.meaning} |" for c in (*IDENTITY, *GAME_IDENTITY)),
    ]
    for table, columns in COLUMNS.items():
        lines += ["", f"`{table}.parquet`, one row per {ROW_MEANS[table]}, then:", ""]
        lines += ["| column | type | meaning |", "| --- | --- | --- |"]
        lines += [f"| `{c.name}` | {c.type} | {c.meaning} |" for c in columns]
    intro = "`ratings.csv`, one row per cell and bot (cells with 2+ distinct bots; sweep keys after lineup):"
    lines += ["", intro, ""]
    lines += ["| column | type | meaning |", "| --- | --- | --- |"]
    lines += [f"| `{c.name}` | {c.type} | {c.meaning} |" for c in (*RATINGS_IDENTITY, *RATINGS)]
    lines += ["", DOC_END]
    return "\n".join(lines)


def doc_section(text: str) -> str | None:
    """The generated section of a page's text (markers included), or None without markers."""
    start, end = text.find(DOC_START), text.find(DOC_END)
    if start < 0 or end < start:
        return None
    return text[start : end + len(DOC_END)]


def main(argv: list[str]) -> int:
    """``python -m rummisim.schema``: print the generated section; ``--write docs/results.md``: replace it."""
    if len(argv) == 2 and argv[0] == "--write":
        path = Path(argv[1])
        text = path.read_text(encoding="utf-8")
        old = doc_section(text)
        if old is None:
            print(f"{path}: no results-schema markers", file=sys.stderr)
            return 2
        path.write_text(text.replace(old, markdown()), encoding="utf-8")
        return 0
    print(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
