"""The move solver: the best play for a rack against a table under a profile.

``solve`` (``dispatch``) is the one entry point; the methods behind it:

- ``dp``: the exact dynamic program over tile values (numba kernel), with ``dp_decode``
  (its run types, decoding into sets, joker hosts);
- ``milp``: the integer program (scipy's HiGHS), the independent reference in tests and
  the rare fallback in play, with ``patterns`` (its set patterns);
- ``common``: the result type, the objective's gains and shared rule constants.

``dispatch`` imports numba and scipy, so its names are loaded on first use (PEP 562):
importing ``rummisim.solver.common`` (or ``OBJECTIVES``) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rummisim.solver.common import OBJECTIVES

if TYPE_CHECKING:
    from rummisim.solver.dispatch import METHODS, Solution, SolverError, placed_value, solve

__all__ = ["METHODS", "OBJECTIVES", "Solution", "SolverError", "placed_value", "solve"]

_FROM_DISPATCH = frozenset(__all__) - {"OBJECTIVES"}


def __getattr__(name: str):
    if name in _FROM_DISPATCH:
        from rummisim.solver import dispatch

        value = getattr(dispatch, name)
        globals()[name] = value  # later lookups skip this hook
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
