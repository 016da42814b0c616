"""The host listings' passes in one compiled call (``solver.listing``, after 0.3.23): the rows it counts
as refuted are those that the passes one by one (``choices._with_host``) refute, charged the same
states and caps, and it stops at a row that finds a play; the pairs of new-set host sets come in the
order of the recursion they replace (each set, then each at or after it that the rack still holds)."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import VARIANTS, random_locked_position, variant_profile

import rummisim.solver.jokers as jokers
import rummisim.solver.listing as listing
from rummisim import load_profile
from rummisim.solver import solve
from rummisim.solver.budget import Meter
from rummisim.solver.choices import _with_host
from rummisim.solver.hosts import held_hosts
from rummisim.solver.passes import _pools


def _profile(name):
    return variant_profile(name) if name in VARIANTS else load_profile(name)


@pytest.mark.parametrize(
    ("name", "seed"), [("polish-40", 4101), ("standard", 4102), ("standard+new-set", 4103)]
)
def test_refuted_rows_are_the_passes_one_by_one(monkeypatch, name, seed):
    """Every call made while solving seeded positions with table jokers to free is checked against
    the rows' passes run one by one on a fresh meter."""
    profile = _profile(name)
    real = listing.refuted_rows
    seen = {"rows": 0, "calls": 0, "found": 0}

    def checked(profile_, objective, meter, lst, rows, floor, host_cap, starts=None):
        caps, spent = list(host_cap), meter.spent
        done = real(profile_, objective, meter, lst, rows, floor, host_cap, starts)
        rack, table, prof, obj, virtual, forced, placed, counts = lst.position
        states = 0
        for i, row in enumerate(rows[: done + 1].tolist()):
            sets = tuple(lst.hosts[h] for h in row)
            alone = Meter(None, settle=True, options=meter.options)
            found = _with_host(
                rack, table, prof, obj, alone, forced, True, placed + sets[:-1], sets[-1], virtual, (), floor,
                None, counts,
            )  # fmt: skip
            assert found is not None
            if i < done:
                assert found[0] < floor  # refuted, as the batch said
                states += alone.spent
            elif found[0] >= floor:
                seen["found"] += 1  # the batch stopped at the row that finds a play
        assert meter.spent - spent == states
        assert host_cap == [caps[0] - done, caps[1] - states, *caps[2:]]
        seen["rows"] += done
        seen["calls"] += 1
        return done

    monkeypatch.setattr(listing, "refuted_rows", checked)  # (pair_search's)
    monkeypatch.setattr(jokers, "refuted_rows", checked)  # (_host_sets_search's)
    rng = np.random.default_rng(seed)
    for i in range(60):
        table, rack = random_locked_position(profile, rng)
        solve(rack, table, profile, objective=("tiles", "value")[i % 2], budget=None)
    assert seen["calls"] >= 10 and seen["rows"] >= 20 and seen["found"] >= 1, seen


@pytest.mark.parametrize(("name", "seed"), [("polish-40", 4111), ("standard+new-set", 4112)])
def test_pair_rows_follow_the_levels(monkeypatch, name, seed):
    """``pair_rows`` lists, for each set in turn, the sets at or after it that the rack holds beside
    it (``held_hosts`` on the pools with the first set placed), with each level's size and first row."""
    profile = _profile(name)
    real = listing.pair_rows
    levels = []

    def checked(lst):
        rows, sizes, firsts = real(lst)
        rack, table, prof, obj, virtual, forced, placed, counts = lst.position
        expected, first = [], []
        for i, host in enumerate(lst.hosts):
            rack_counts = _pools(rack, table, prof, obj, virtual, forced, placed + (host,), counts)[1]
            first.append(len(expected))
            expected += [(i, lst.hosts.index(h, i)) for h in held_hosts(lst.hosts[i:], rack_counts)]
        assert [tuple(r) for r in rows.tolist()] == expected
        assert firsts.tolist() == first
        assert sizes.sum() == len(expected)
        levels.append(len(expected))
        return rows, sizes, firsts

    monkeypatch.setattr(listing, "pair_rows", checked)
    rng = np.random.default_rng(seed)
    for i in range(60):
        table, rack = random_locked_position(profile, rng)
        solve(rack, table, profile, objective=("tiles", "value")[i % 2], budget=None)
    assert len(levels) >= 3 and sum(levels) >= 10, levels
