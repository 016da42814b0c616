"""The move solver: the best play for a rack against a table under a profile.

``solve(rack, table, profile, initial=..., objective=..., rearrange=...)`` returns a
``Solution``: the rack tiles to play, the full new table (each joker with its
face), the number and value of the tiles placed, and whether the result is a
proven optimum. Every solution passes ``moves.validate_move``.

Modes: turn mode rearranges the whole table; ``initial=True`` makes the initial
meld (rack tiles only, at least the threshold; with ``may_touch_table`` the same
move may also rearrange the table); ``rearrange=False`` only builds new sets
from the rack and adds tiles to table sets without breaking them.

Turn mode with full rearrangement goes to the dynamic program over tile values
(``solver_dp``, exact, compiled with numba), and so does the rack-only initial meld
(``solve_dp_opening``: a value bound proves "no opening", else the best rack-only
play is the answer when it meets the opening rules); positions outside its scope
(``rearrange=False``, a few locked-joker tables: three freed jokers, several rack
jokers beside a freed one, too many sets that could hold freed jokers) go to the
integer program (``solver_milp``). ``budget`` (default: the profile's
``time_limit.search_budget``) bounds the integer program in branch-and-bound
nodes, never wall time, so results stay reproducible; a search cut short returns
its best play with ``proven=False``. The dynamic program has its own fixed bound
on states (deterministic) and always finishes fast or hands over.
"""

from __future__ import annotations

from dataclasses import dataclass

from rummisim.melds import Meld, parse_table
from rummisim.moves import IllegalMove, validate_move
from rummisim.profile import RuleProfile
from rummisim.solver_dp import solve_dp, solve_dp_opening
from rummisim.solver_milp import solve_milp
from rummisim.tiles import parse_tiles

OBJECTIVES = ("tiles", "value")


@dataclass(frozen=True, slots=True)
class Solution:
    """A play: ``played`` rack tiles and the whole ``table`` after it.

    ``played == ()`` means there is no legal play (e.g. the opening threshold
    cannot be met); ``table`` is then the unchanged table.
    """

    played: tuple[int, ...]
    table: tuple[Meld, ...]
    tiles_placed: int
    value_placed: int
    proven: bool
    nodes: int = 0

    @property
    def is_play(self) -> bool:
        return bool(self.played)


def placed_value(played, profile: RuleProfile) -> int:
    """Points a play sheds from the rack (a joker counts its rack penalty)."""
    ts = profile.tileset
    return sum(profile.jokers.penalty if t == ts.joker else ts.value_of(t) for t in played)


def _is_legal(profile, table, rack, result, *, opened: bool) -> bool:
    try:
        validate_move(profile, table, rack, result.table, result.played, opened=opened)
    except IllegalMove:
        return False
    return True


def solve(
    rack,
    table,
    profile: RuleProfile,
    *,
    initial: bool = False,
    objective: str = "tiles",
    rearrange: bool = True,
    budget: int | None = None,
) -> Solution:
    """The best play (see the module docstring). ``rack`` and ``table`` may be codes and
    melds or text (``"R4 J B9"``, ``"R1 R2 R3 | K5 O5 B5"``)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if isinstance(rack, str):
        rack = parse_tiles(rack, profile.tileset)
    if isinstance(table, str):
        table = parse_table(table, profile)
    rack, table = tuple(int(t) for t in rack), tuple(table)
    if budget is None:
        budget = profile.time_limit.search_budget
    if not rack:
        return Solution((), table, 0, 0, True)
    options = dict(initial=initial, objective=objective, rearrange=rearrange, node_limit=budget)
    result = None
    if initial or rearrange:
        # the value-by-value dynamic program answers most positions exactly and fast; it
        # returns None outside its scope (or past its state bound)
        if initial:
            result = solve_dp_opening(rack, table, profile, objective=objective)
        else:
            result = solve_dp(rack, table, profile, objective=objective)
        if result and result.played and not _is_legal(profile, table, rack, result, opened=not initial):
            result = None
    if result is None:
        result = solve_milp(rack, table, profile, **options)
    if result.played and not _is_legal(profile, table, rack, result, opened=not initial):
        # the aggregated joker model can, rarely, decode into sets the engine refuses;
        # the pattern formulation places every joker explicitly and is exact
        result = solve_milp(rack, table, profile, formulation="patterns", **options)
    return Solution(
        played=result.played,
        table=result.table,
        tiles_placed=len(result.played),
        value_placed=placed_value(result.played, profile),
        proven=result.proven,
        nodes=result.nodes,
    )
