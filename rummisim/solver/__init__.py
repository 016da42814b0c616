"""The move solver: the best play for a rack against a table under a profile.

``solve`` (``dispatch``) is the one entry point; the methods behind it:

- ``dp``: the exact dynamic program over tile values, split by job (``tables``, ``kernel``,
  ``passes``, ``grids``, ``floors``, ``pins``, ``decode``, ``jokers``, ``hosts``, ``listing``,
  ``opening``, ``cored``; see ``dp``'s docstring);
- ``milp``: the integer program (scipy's HiGHS), the independent reference
  (``reference_solve``: the tests, the agreement and fuzz scripts, ``rummisim solve --method
  milp``) and the search of profiles the dynamic program does not encode, with ``patterns``
  (its set patterns); nothing in play reaches it for a profile the DP encodes;
- ``budget``: the search's limits (``SearchOptions``), its meter, and why it gives up (``GiveUp``);
- ``warm``: the compiled search made ready in parts, side by side in a run's workers;
- ``common``: the result type, the objective's gains and shared rule constants.

``supported(profile)``: whether the dynamic program encodes the profile at all (the public scope
check; callers do not reach into ``dp``).

``dispatch`` imports numba and scipy, so its names are loaded on first use (PEP 562):
importing ``rummisim.solver.common`` (or ``OBJECTIVES``) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rummisim.solver.common import OBJECTIVES

if TYPE_CHECKING:
    from rummisim.profile import RuleProfile
    from rummisim.solver.budget import GiveUp, SearchOptions
    from rummisim.solver.dispatch import METHODS, Solution, SolverError, placed_value, reference_solve, solve

__all__ = [
    "METHODS",
    "OBJECTIVES",
    "GiveUp",
    "SearchOptions",
    "Solution",
    "SolverError",
    "placed_value",
    "reference_solve",
    "solve",
    "supported",
]

_FROM_DISPATCH = frozenset(__all__) - {"OBJECTIVES", "supported", "GiveUp", "SearchOptions"}


def supported(profile: RuleProfile) -> bool:
    """Whether the fast exact search (the dynamic program) encodes ``profile``'s tile set and
    runs; where it does not, every search goes to the integer program, which may take minutes a
    move (the CLI refuses solver bots then, unless the profile sets a search budget)."""
    from rummisim.solver.dp import encodable

    return encodable(profile)


def __getattr__(name: str):
    if name in ("GiveUp", "SearchOptions"):
        from rummisim.solver import budget

        return getattr(budget, name)
    if name in _FROM_DISPATCH:
        from rummisim.solver import dispatch

        value = getattr(dispatch, name)
        globals()[name] = value  # later lookups skip this hook
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
