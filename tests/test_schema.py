"""The declared results schema: the runner's rows, the written files and the results page follow it."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from rummisim import schema
from rummisim.experiment import experiment_from_dict
from rummisim.runner import rows, run_experiment
from rummisim.schema import EndReason, SchemaError, Table

RESULTS_PAGE = Path(__file__).resolve().parent.parent / schema.DOC_PAGE


def test_the_results_page_column_tables_are_the_generated_ones():
    section = schema.doc_section(RESULTS_PAGE.read_text(encoding="utf-8"))
    assert section is not None, f"{schema.DOC_PAGE} lost its results-schema markers"
    assert section == schema.markdown(), f"regenerate it: python -m rummisim.schema --write {schema.DOC_PAGE}"


def test_every_declared_column_has_one_extractor_in_order():
    for table, extractors in rows.EXTRACTORS.items():
        assert list(extractors) == [c.name for c in schema.COLUMNS[table]]


def test_an_extractor_missing_or_added_is_an_error():
    extractors = dict(rows.GAMES_EXTRACTORS)
    extractors.pop("turns")
    with pytest.raises(SchemaError, match=r"missing \['turns'\]"):
        schema.check_extractors(Table.GAMES, extractors)
    with pytest.raises(SchemaError, match=r"not declared \['speed'\]"):
        schema.check_extractors(Table.GAMES, {**rows.GAMES_EXTRACTORS, "speed": lambda x: 0})


def test_a_crash_row_holds_exactly_the_declared_columns():
    ident = {name: None for name in schema.column_names(Table.GAMES, ["k"])[:11]}
    for table, values in rows.crash_rows(4, "crash").items():
        schema.check_row(table, {**ident, **values}, ["k"])
        with pytest.raises(SchemaError, match="not declared"):
            schema.check_row(table, {**ident, **values, "extra": 1}, ["k"])


def test_the_vocabulary_is_its_written_values():
    assert [r.value for r in EndReason] == ["out", "pool_exhausted", "turn_cap", "fault"]
    assert EndReason.TURN_CAP == "turn_cap" and f"{EndReason.FAULT}" == "fault"


def test_a_run_writes_the_declared_schema(tmp_path):
    spec = {
        "name": "schema",
        "seed": 5,
        "games": 2,
        "profiles": [
            "standard",
            {"base": "standard", "name": "capped", "overrides": {"end": {"max_turns": 4}}},
        ],
        "lineups": [["greedy", "beginner"]],
        "sweep": {"jokers.penalty": [30]},
    }
    run_experiment(experiment_from_dict(spec), tmp_path / "run", summarize=False, turns=True)
    for table in Table:  # turns.parquet too: written with turns=True
        written = pq.read_schema(tmp_path / "run" / f"{table}.parquet")
        assert written.names == list(schema.column_names(table, ["jokers.penalty"]))
        assert written.remove_metadata().equals(schema.arrow_schema(table, {"jokers.penalty": "int64"}))
    games = pq.read_table(tmp_path / "run" / "games.parquet").to_pandas()
    assert set(games["end_reason"]) <= {r.value for r in EndReason}
    assert (games.loc[games["cell"] == 1, "end_reason"] == EndReason.TURN_CAP).all()
