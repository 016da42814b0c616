"""report.md and the charts: written for a finished run, missing data skipped with a note."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rummisim import experiment_from_dict, run_experiment
from rummisim.cli import main

SPEC = {
    "name": "rep",
    "seed": 21,
    "games": 6,
    "profiles": [
        "standard",
        {"base": "standard", "name": "standard-40", "overrides": {"initial_meld": {"threshold": 40}}},
    ],
    "lineups": [["baseline", "random", "baseline"]],
    "compare": {"standard": "standard-40"},
}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "run"
    run_experiment(experiment_from_dict(SPEC, "rep.yaml"), out, jobs=1, progress=False)
    return out


def test_report_holds_the_tables_charts_and_notes(finished, capsys):
    assert main(["report", str(finished)]) == 0
    text = (finished / "report.md").read_text()
    summary = pd.read_csv(finished / "summary.csv")
    # the cells table quotes the summary's numbers with their intervals
    row = summary.iloc[1]
    assert f"{row['turns_mean']:.1f} [{row['turns_mean_low']:.1f}, {row['turns_mean_high']:.1f}]" in text
    assert "## Paired changes against cell 0" in text and "1: standard-40" in text
    assert "## Bots" in text and "| 0: standard | random |" in text
    for chart in ("seat_win_rates", "win_rates", "turns", "points_left", "forest_turns", "forest_win_rates"):
        assert (finished / "charts" / f"{chart}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"(charts/{chart}.png)" in text
    # no sweep and no match profile: those charts are skipped with a note, not an error
    assert "Win rate against the swept parameters: skipped (" in text
    assert "Rounds per match: skipped (" in text
    assert not (finished / "charts" / "sweep.png").exists()
    assert "report:" in capsys.readouterr().err
    # compare: the paired table and comparisons.csv (standard against standard-40 here)
    comparisons = pd.read_csv(finished / "comparisons.csv")
    assert set(comparisons["measure"]) == {"turns", "first_seat_won", "won:baseline", "won:random"}
    assert (comparisons[["cell", "baseline_cell"]] == [0, 1]).all().all()
    turns = comparisons.set_index("measure").loc["turns"]
    assert turns["diff"] == pytest.approx(turns["mean_cell"] - turns["mean_baseline"])
    assert turns["diff"] == pytest.approx(-summary.loc[1, "turns_diff_vs_cell0"])  # the same pairs, reversed
    assert "## Paired comparisons (`compare:`)" in text and "| standard | standard-40 |" in text


def test_report_on_a_missing_or_unfinished_run_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert "no manifest.json" in capsys.readouterr().err
    (tmp_path / "manifest.json").write_text(json.dumps({"status": "interrupted"}))
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "interrupted" in err and "--resume" in err and len(err.strip().splitlines()) == 1
