"""The move solver: the best play for a rack against a table under a profile.

``solve`` (``dispatch``) is the one entry point; the methods behind it:

- ``dp``: the exact dynamic program over tile values (numba kernel), with ``dp_decode``
  (its run types, decoding into sets, joker hosts);
- ``milp``: the integer program (scipy's HiGHS), the independent reference in tests and
  the rare fallback in play, with ``patterns`` (its set patterns);
- ``common``: the result type, the objective's gains and shared rule constants.
"""

from rummisim.solver.common import OBJECTIVES
from rummisim.solver.dispatch import METHODS, Solution, SolverError, placed_value, solve

__all__ = ["METHODS", "OBJECTIVES", "Solution", "SolverError", "placed_value", "solve"]
