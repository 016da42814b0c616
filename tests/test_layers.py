"""The package's layers only point down: every import (also one inside a function) goes to a
lower layer. The README's layer diagram is this list; change both together."""

from __future__ import annotations

import ast
from pathlib import Path

import rummisim

PACKAGE = Path(rummisim.__file__).parent

# Bottom to top; a module may import only from layers below its own.
LAYERS = [
    {"tiles", "validation", "schema"},
    {"profile", "geometry"},  # geometry: where runs may lie (the wrap)
    {"rules"},  # sets -> jokers -> moves: set validity, joker rules, validate_move
    {"melds", "contract", "events"},  # table notation and the catalogue; the bot contract; game events
    {"moves", "answers"},  # re-exports of the contract's actions and the rules; a bot's answer copied
    {"solver"},
    {"referee"},  # legal_play: the solver as the referee of must-play
    {"round_end"},  # how a round nobody went out of ends (until_no_play asks the referee)
    {"round_state"},  # the round as a state machine: the turn flow of the engine, replay, rollouts
    {"transcript"},  # a game followed from its event stream: positions, the text log's turns
    {"engine", "bots", "gamelog"},  # neither imports the other; gamelog: events <-> JSON lines
    # replay: a game log checked against the rules; text: games and solutions as text
    {"api", "experiment", "stats", "replay", "isolation", "text"},
    {"store", "plots"},
    {"runner", "report"},
    {"tune", "viewer", "human"},  # Optuna studies; a game log as a page; a person's seat
    {"cli"},
    {"__init__", "__main__"},
]
RANK = {name: rank for rank, layer in enumerate(LAYERS) for name in layer}


def _part(module: str) -> str:
    """``rummisim.rules.sets`` -> ``rules``; ``rummisim`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> set[str]:
    """The rummisim modules a file imports at run time (not under ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("rummisim")}
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("rummisim")
        ):
            if node.module == "rummisim":
                found |= {f"rummisim.{a.name}" for a in node.names}
            else:
                found.add(node.module)
    return found


def test_every_module_has_a_layer():
    parts = {
        _part(".".join(("rummisim", *p.relative_to(PACKAGE).with_suffix("").parts)))
        for p in PACKAGE.rglob("*.py")
    }
    assert parts <= set(RANK), sorted(parts - set(RANK))


def test_imports_point_down():  # a module without a layer fails the test above
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _part(".".join(("rummisim", *path.relative_to(PACKAGE).with_suffix("").parts)))
        for target in map(_part, _imports(path)):
            if source in RANK and target in RANK and target != source and RANK[target] >= RANK[source]:
                upward.append(f"{path.relative_to(PACKAGE)} imports rummisim.{target}")
    assert upward == []


def test_the_engine_and_the_bots_meet_only_in_the_contract():
    engine = _imports(PACKAGE / "engine.py")
    bots = set().union(*(_imports(p) for p in (PACKAGE / "bots").glob("*.py")))
    assert not any(_part(m) == "bots" for m in engine)
    assert not any(_part(m) == "engine" for m in bots)
    assert "rummisim.contract" in engine and "rummisim.contract" in bots
