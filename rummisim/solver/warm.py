"""The search's compiled code, made ready in parts that processes can compile side by side.

numba compiles the search on its first use in a process and caches it on disk for the processes
after it. On a cold cache, every worker of a run compiled every part it used, each the same code,
about a minute a worker on 2 cores. ``warm_up(part)`` runs small searches that compile one part:

- ``"plain"``: the plain pass that notes its edges (``backward``, the tracked pass's first pass),
  then the plain kernel and the passes around it: a turn that rearranges the table, and one whose
  joker choice lists host sets that find nothing (``listing``'s compiled refuter);
- ``"tracked"``: the tracked host pass (``jokers._tracked_host``): the kernel with host fields,
  without the plain kernel (``passes._one_pass``), then its first pass, which the plain part has
  compiled by then (the kernel with host fields takes longest: about 20 s alone, 25-31 s beside the
  plain part on 2 cores).

A run with two workers or more hands both parts to its workers before its games, one task each, so
two idle workers compile them at once (``runner.run``); every worker then loads from the disk cache
what it did not compile. The positions are the standard tile set's (the compiled code does not
depend on the profile's values); a part the games never use was compiled for nothing, on a cold
cache only (a warm one loads it in about a second). Pure; no I/O.
"""

from __future__ import annotations

from rummisim.melds import parse_table
from rummisim.profile import RuleProfile
from rummisim.solver.backward import edges
from rummisim.solver.budget import Meter
from rummisim.solver.dispatch import solve
from rummisim.solver.floors import NO_BOUND
from rummisim.solver.grids import _grids, _position_gains, _rest_gains
from rummisim.solver.kernel import _buffers, _kernel
from rummisim.solver.passes import Pass, _best_or_bound, _no_pins, _tile_counts
from rummisim.solver.tables import MAX_STATES, _tables
from rummisim.tiles import parse_tiles

PARTS = ("tracked", "plain")  # the longer first


# (rack, table, objective): a turn that rearranges; one whose joker choice lists host sets that
# find nothing (``standard`` beginner-value #31 of the committed positions)
PLAIN_TURNS = (
    ("R4 R8 K9 O2", "R5 R6 R7 | K6 K7 K8 | O3 O4 O5", "tiles"),
    (
        "R7 R12 O3 O4 O9 O13 B6",
        "K1 J(K2) K3 K4 K5 | K8 R8 B8 | K9 R9 J(O9) | O5 O6 O7 | B9 B10 B11",
        "value",
    ),
)
# a locked joker freed by the rack's R6, its host set tracked in the pass
TRACKED = ("R6 B9 B10 K3 K4", "R5 J(R6) R7 | B1 B2 B3", "R6")


def warm_up(part: str, profile: RuleProfile) -> None:
    """Compile (or load from the disk cache) one part of the search (``PARTS``) by small searches
    on ``profile``, the built-in ``standard`` profile (its tile set: the positions above)."""
    if part == "plain":
        _noting_pass(profile)
        for rack, table, objective in PLAIN_TURNS:
            solve(rack, table, profile, objective=objective, budget=None)
    elif part == "tracked":
        rack, table, freeing = TRACKED
        ts = profile.tileset
        _best_or_bound(
            tuple(sorted(parse_tiles(rack, ts))), parse_table(table, profile), profile, "tiles", Meter(),
            forced=parse_tiles(freeing, ts), host=True,
        )  # fmt: skip
    else:
        raise ValueError(f"warm_up: part {part!r}: expected one of {', '.join(PARTS)}")


def _noting_pass(profile: RuleProfile) -> None:
    """The plain pass that notes its edges (``backward``), which the tracked host pass runs first:
    compiled here, first, so that the tracked part finds it in the disk cache when it gets there
    (it compiles the kernel with host fields first) and the two parts take about as long."""
    rack, table, _ = PLAIN_TURNS[0]
    table_counts, rack_counts = _tile_counts(
        parse_tiles(rack, profile.tileset), parse_table(table, profile), profile.tileset
    )
    tab = _tables(profile, profile.tileset.copies, 0)
    assert tab is not None  # (the standard profile's tables)
    grids = _grids(table_counts, rack_counts, profile, _position_gains(profile, "tiles"), 0)
    rest_gain, _, debt_unit = _rest_gains(grids)
    pass_ = Pass(rest_gain, NO_BOUND, MAX_STATES, 0, 0, debt_unit, True)
    _kernel(grids, tab.kernel, _buffers(), pass_, _no_pins(grids.table.shape), None, edges(), None)
