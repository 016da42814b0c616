"""The results schema: every column the runner writes, with its type and meaning, and the
vocabularies its values come from.

This module is the one place that says what a results folder holds. The runner builds its Arrow
schemas from it (``arrow_schema``), its row extractors are checked against it when they are
imported (``check_extractors``: a column declared and not extracted, or extracted and not
declared, is an error) and so is every hand-built row (``check_row``). The stats compare against
its enums, and the README's column tables are generated from it (``markdown``; a test compares).

Adding a per-round statistic takes two steps, and a third the tests ask for:

1. declare the column here: a ``Column(name, type, meaning)`` in ``GAMES`` (one row per round),
   ``SEATS`` (seat per round) or ``MATCHES`` (per game), at the place it should stand;
2. write its extractor in ``rummisim/runner/rows.py``: one entry, in the same place, of
   ``GAMES_EXTRACTORS``, ``SEATS_EXTRACTORS`` or ``MATCHES_EXTRACTORS``, a function of the
   ``RowContext`` (the game record, the round, the seat) that returns the value. Crash rows
   (``crash_rows`` there) list every column too and get the value a crashed game has (mostly
   None);
3. run ``python -m rummisim.schema --write README.md`` to regenerate the README's column tables
   (``tests/test_schema.py`` fails until the README matches).

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


class SchemaError(ValueError):
    """A row or an extractor that does not match the declared columns (a programming error)."""


#: Column types: the Arrow type each name stands for (see ``arrow_type``).
TYPES = ("int32", "int64", "string", "bool", "float64", "list<int32>")


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

#: The columns after the identity, per table.
COLUMNS: dict[Table, tuple[Column, ...]] = {Table.GAMES: GAMES, Table.SEATS: SEATS, Table.MATCHES: MATCHES}
#: What one row of each table stands for.
ROW_MEANS = {Table.GAMES: "round", Table.SEATS: "seat per round", Table.MATCHES: "game (match)"}


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

README_START = "<!-- results-schema: generated by `python -m rummisim.schema --write README.md` -->"
README_END = "<!-- results-schema: end -->"


def markdown() -> str:
    """The README's column tables, between its markers."""
    identity = ", ".join(f"`{c.name}`" for c in IDENTITY)
    after = ", ".join(f"`{c.name}`" for c in GAME_IDENTITY)
    lines = [
        README_START,
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
    lines += ["", README_END]
    return "\n".join(lines)


def readme_section(text: str) -> str | None:
    """The generated section of a README's text (markers included), or None without markers."""
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        return None
    return text[start : end + len(README_END)]


def main(argv: list[str]) -> int:
    """``python -m rummisim.schema``: print the README section; ``--write README.md``: replace it."""
    if len(argv) == 2 and argv[0] == "--write":
        path = Path(argv[1])
        text = path.read_text(encoding="utf-8")
        old = readme_section(text)
        if old is None:
            print(f"{path}: no results-schema markers", file=sys.stderr)
            return 2
        path.write_text(text.replace(old, markdown()), encoding="utf-8")
        return 0
    print(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
