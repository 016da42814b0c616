"""The search's compiled code, made ready in parts that processes can compile side by side.

numba compiles the search on its first use in a process and caches it on disk for the processes
after it. On a cold cache, every worker of a run compiled every part it used, each the same code,
about a minute a worker on 2 cores. ``warm_up(part)`` runs small searches that compile one part:

- ``"plain"``: the plain kernel and the passes around it: a turn that rearranges the table, and
  one whose joker choice lists host sets that find nothing (``listing``'s compiled refuter);
- ``"tracked"``: the tracked host pass (``jokers._tracked_host``): the kernel with host fields and
  the plain pass that notes its edges (``backward``), without the plain kernel (``passes._one_pass``).

A run with two workers or more hands both parts to its workers before its games, one task each, so
two idle workers compile them at once (``runner.run``); every worker then loads from the disk cache
what it did not compile. The positions are
the standard tile set's (the compiled code does not depend on the profile's values); a part the
games never use was compiled for nothing, on a cold cache only (a warm one loads it). Pure; no I/O.
"""

from __future__ import annotations

from rummisim.melds import parse_table
from rummisim.profile import RuleProfile
from rummisim.solver.budget import Meter
from rummisim.solver.dispatch import solve
from rummisim.solver.passes import _best_or_bound
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
