"""The committed notebooks execute cleanly against a small run made here, so they cannot rot."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from rummisim import experiment_from_dict, run_experiment

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
pytestmark = pytest.mark.slow

RUNS = {
    "variants": {
        "name": "variants",
        "seed": 3,
        "games": 8,
        "profiles": ["standard", "classic-wrap", "polish-40"],
        "lineups": [["baseline", "baseline", "baseline", "baseline"]],
    },
    "bot-tuning": {
        "name": "bot-tuning",
        "seed": 4,
        "games": 8,
        "profiles": ["standard"],
        "lineups": [["conservative", "baseline", "baseline", "baseline"]],
        "sweep": {"conservative.min_play": [1, 2], "conservative.dump_at": [0, 3]},
    },
    "inside-a-game": {
        "name": "inside-a-game",
        "seed": 5,
        "games": 4,
        "profiles": ["standard"],
        "lineups": [["greedy", "value", "conservative", "beginner"]],
        "turns": True,
    },
}
USES = {
    "compare_variants.ipynb": "variants",
    "first_player_advantage.ipynb": "variants",
    "tune_bots.ipynb": "bot-tuning",
    "inside_a_game.ipynb": "inside-a-game",
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    for name, spec in RUNS.items():
        run_experiment(experiment_from_dict(spec, f"{name}.yaml"), root / name, jobs=1, progress=False)
    return {name: root / name for name in RUNS}


def test_every_notebook_is_committed_executed_without_errors():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(USES)
    for name in USES:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code and all(c.get("execution_count") for c in code), f"{name} is not executed"
        outputs = [o for c in code for o in c.outputs]
        assert not [o for o in outputs if o.output_type == "error"], f"{name} has an error output"
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{name} has no chart"
        source = "\n".join(c.source for c in code)
        assert "import rummisim" in source and "_" + "play_chunk" not in source


@pytest.mark.parametrize("name", sorted(USES))
def test_notebook_runs_against_a_fresh_small_run(name, runs, monkeypatch):
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    monkeypatch.setenv("RUMMISIM_RESULTS", str(runs[USES[name]]))  # restored after the test
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert str(runs[USES[name]]) in text  # it read the run it was pointed at
