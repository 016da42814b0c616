"""rummisim: a research simulator for Rummikub and its documented rule variants.

The public API is re-exported here; see docs/getting-started.md for a tour.

The names load on first use (PEP 562 ``__getattr__``): ``import rummisim`` imports no
submodule, so neither numpy nor the heavy dependencies (numba, scipy, pyarrow, pandas,
matplotlib) load until something that needs them is used. ``rummisim.engine`` and the
other submodules are reachable as attributes too.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rummisim.api import play_game
    from rummisim.contract import Phase, TurnView
    from rummisim.engine import GameRecord, RoundRecord
    from rummisim.experiment import Experiment, ExperimentError, experiment_from_dict, load_experiment
    from rummisim.melds import (
        Meld,
        assign_jokers,
        format_meld,
        format_table,
        is_valid_meld,
        is_valid_set,
        make_meld,
        parse_meld,
        parse_table,
        set_catalogue,
    )
    from rummisim.moves import Discard, Draw, IllegalMove, Pass, Play, validate_move
    from rummisim.profile import ProfileError, RuleProfile, builtin_profiles, load_profile
    from rummisim.runner import run_experiment
    from rummisim.solver import Solution, solve
    from rummisim.store import load_results
    from rummisim.tiles import TileError, TileSet

# Each re-exported name and the module that defines it.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(["play_game"], "rummisim.api"),
    **dict.fromkeys(["Phase", "TurnView"], "rummisim.contract"),
    **dict.fromkeys(["GameRecord", "RoundRecord"], "rummisim.engine"),
    **dict.fromkeys(
        ["Experiment", "ExperimentError", "experiment_from_dict", "load_experiment"], "rummisim.experiment"
    ),
    **dict.fromkeys(
        [
            "Meld",
            "assign_jokers",
            "format_meld",
            "format_table",
            "is_valid_meld",
            "is_valid_set",
            "make_meld",
            "parse_meld",
            "parse_table",
            "set_catalogue",
        ],
        "rummisim.melds",
    ),
    **dict.fromkeys(["Discard", "Draw", "IllegalMove", "Pass", "Play", "validate_move"], "rummisim.moves"),
    **dict.fromkeys(["ProfileError", "RuleProfile", "builtin_profiles", "load_profile"], "rummisim.profile"),
    **dict.fromkeys(["run_experiment"], "rummisim.runner"),
    **dict.fromkeys(["Solution", "solve"], "rummisim.solver"),
    **dict.fromkeys(["load_results"], "rummisim.store"),
    **dict.fromkeys(["TileError", "TileSet"], "rummisim.tiles"),
}


def parse_tiles(text: str, profile: RuleProfile) -> tuple[int, ...]:
    """Parse space-separated tiles (``"R7 K13 J"``) under a profile's tile set."""
    from rummisim.tiles import parse_tiles as parse

    return parse(text, profile.tileset)


def format_tiles(tiles, profile: RuleProfile) -> str:
    """Format tile codes as space-separated tiles under a profile's tile set."""
    from rummisim.tiles import format_tiles as format_codes

    return format_codes(tiles, profile.tileset)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups skip this hook
        return value
    if not name.startswith("_"):  # a submodule, as ``rummisim.engine`` was after an eager import
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Discard",
    "Draw",
    "Experiment",
    "ExperimentError",
    "GameRecord",
    "IllegalMove",
    "Meld",
    "Pass",
    "Phase",
    "Play",
    "ProfileError",
    "RoundRecord",
    "RuleProfile",
    "TileError",
    "TileSet",
    "TurnView",
    "assign_jokers",
    "builtin_profiles",
    "experiment_from_dict",
    "format_meld",
    "format_table",
    "format_tiles",
    "is_valid_meld",
    "is_valid_set",
    "load_experiment",
    "load_profile",
    "load_results",
    "make_meld",
    "parse_meld",
    "parse_table",
    "parse_tiles",
    "play_game",
    "run_experiment",
    "set_catalogue",
    "solve",
    "Solution",
    "validate_move",
]
