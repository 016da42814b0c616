"""The package imports light: the heavy dependencies load only when something needs them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import rummisim

HEAVY = ("numba", "scipy", "pyarrow", "pandas", "matplotlib")


def _heavy_after(statement: str) -> list[str]:
    """The heavy modules in ``sys.modules`` after ``statement`` runs in a fresh interpreter."""
    code = (
        f"import json, sys\n{statement}\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_rummisim_loads_no_heavy_module():
    assert _heavy_after("import rummisim") == []


@pytest.mark.parametrize(
    "module",
    [
        "tiles",
        "profile",
        "contract",
        "rules",
        "melds",
        "moves",
        "referee",
        "engine",
        "bots",
        "api",
        "experiment",
        "cli",
    ],
)
def test_core_modules_load_no_heavy_module(module):
    assert _heavy_after(f"import rummisim.{module}") == []


def test_the_cli_parser_loads_no_heavy_module():
    # what `rummisim --help` builds before it prints (the bot names, the objectives)
    assert _heavy_after("from rummisim.cli import _build_parser; _build_parser().format_help()") == []


def test_solving_loads_the_solver():
    # the lazy re-export really reaches the solver (and so its heavy dependencies)
    assert "numba" in _heavy_after("import rummisim; rummisim.solve")


def test_every_exported_name_resolves_and_is_listed():
    for name in rummisim.__all__:
        assert getattr(rummisim, name) is not None, name
    assert set(rummisim.__all__) <= set(dir(rummisim))
    assert rummisim.api.play_game is rummisim.play_game  # submodules stay reachable as attributes
    assert rummisim.contract.TurnView is rummisim.TurnView is rummisim.engine.TurnView
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        rummisim.no_such_name  # noqa: B018
