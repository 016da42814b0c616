"""rummisim: a research simulator for Rummikub and its documented rule variants.

The public API is re-exported here; see README.md for a tour.
"""

from __future__ import annotations

from rummisim.engine import GameRecord, RoundRecord, TurnView, play_game
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
from rummisim.runner import load_results, run_experiment
from rummisim.solver import Solution, solve
from rummisim.tiles import TileError, TileSet
from rummisim.tiles import format_tiles as _format_tiles
from rummisim.tiles import parse_tiles as _parse_tiles


def parse_tiles(text: str, profile: RuleProfile) -> tuple[int, ...]:
    """Parse space-separated tiles (``"R7 K13 J"``) under a profile's tile set."""
    return _parse_tiles(text, profile.tileset)


def format_tiles(tiles, profile: RuleProfile) -> str:
    """Format tile codes as space-separated tiles under a profile's tile set."""
    return _format_tiles(tiles, profile.tileset)


__all__ = [
    "Discard",
    "Draw",
    "Experiment",
    "ExperimentError",
    "GameRecord",
    "IllegalMove",
    "Meld",
    "Pass",
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
