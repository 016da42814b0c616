"""The search's parts warmed side by side (``solver.warm``): each part runs the searches that compile
it, the tracked part a tracked host pass and the plain part none, but the plain pass that notes its
edges and a host listing's refuter."""

from __future__ import annotations

import pytest

import rummisim.solver.listing as listing
import rummisim.solver.passes as passes
from rummisim import load_profile
from rummisim.solver.backward import edges
from rummisim.solver.warm import PARTS, warm_up


def _spied(monkeypatch) -> dict[str, int]:
    """Counts of the passes with and without host fields, and of the listing refuter's calls."""
    seen = {"tracked": 0, "plain": 0, "refuter": 0}
    search, refute = passes._search, listing.refute_rows

    def counted_search(*args, **kwargs):
        seen["tracked" if kwargs.get("host") is not None else "plain"] += 1
        return search(*args, **kwargs)

    def counted_refute(*args, **kwargs):
        seen["refuter"] += 1
        return refute(*args, **kwargs)

    monkeypatch.setattr(passes, "_search", counted_search)
    monkeypatch.setattr(listing, "refute_rows", counted_refute)
    return seen


def test_the_tracked_part_runs_a_tracked_host_pass_and_no_plain_one(monkeypatch):
    seen = _spied(monkeypatch)
    warm_up("tracked", load_profile("standard"))
    assert seen == {"tracked": 1, "plain": 0, "refuter": 0}


def test_the_plain_part_runs_plain_passes_and_the_listing_refuter_but_no_tracked_pass(monkeypatch):
    seen = _spied(monkeypatch)
    noted = edges().made
    noted[0] = 0
    warm_up("plain", load_profile("standard"))
    assert noted[0] > 0  # (the plain pass that notes its edges ran)
    assert seen["tracked"] == 0
    assert seen["plain"] > 0
    assert seen["refuter"] > 0


def test_the_parts_are_named_and_an_unknown_one_is_refused():
    assert PARTS == ("tracked", "plain")
    with pytest.raises(ValueError, match="expected one of tracked, plain"):
        warm_up("beam", load_profile("standard"))
