"""Shared fixtures, and the Hypothesis set-up every test module shares."""

from __future__ import annotations

import pytest

from rummisim import load_profile
from rummisim.profile import RuleProfile


def _no_local_constants() -> None:
    """Recent Hypothesis (6.170 here) draws some values from the constants of the local modules
    loaded so far (``providers._get_local_constants``). So a ``derandomize=True`` test drew other
    examples depending on which ``rummisim`` modules the tests before it had imported, and
    ``pytest -n`` workers, which run different tests first, drew different positions from one run
    to the next (session 38: a position that one derandomized test drew in some runs only). With the
    pool empty, a derandomized test draws the same examples in every run, whatever ran before it.
    ``tests/test_hypothesis_setup.py`` checks it. Hypothesis has no setting for this; the name is
    private, so where a version lacks it nothing is changed."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover (a Hypothesis without the module)
        return
    if hasattr(providers, "_get_local_constants") and hasattr(providers, "Constants"):
        empty = providers.Constants()
        providers._get_local_constants = lambda: empty


_no_local_constants()


@pytest.fixture(scope="session")
def standard() -> RuleProfile:
    return load_profile("standard")
