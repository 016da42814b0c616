"""An opening's cores whose rest finds nothing, searched in one compiled call (``solver.cored``,
after 0.3.23): the cores it counts as refuted are those whose searches one by one
(``dp._best_play_read``) find nothing above the best opening, charged the same states, and it stops
at a core whose search finds one; an opening so searched is the opening searched core by core, its
play, table and states."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import VARIANTS, recorded_positions, variant_profile

import rummisim.solver.dp as dp
from rummisim import load_profile
from rummisim.solver import solve
from rummisim.solver.budget import Meter
from rummisim.solver.cored import CoreRows
from rummisim.solver.passes import NO_BOUND

# the profiles whose openings search cores: beside the table (``may_touch_table``), on an empty
# one, with free table jokers, with a discard pile, opening sets worth the threshold alone
NAMES = ["polish-40", "standard", "standard+open30-any-jrep-touch", "polish-40+free", "ramino-discard+locked-nowrap",
         "polish-40+one-qualifying"]  # fmt: skip


def _profile(name):
    return variant_profile(name) if name in VARIANTS else load_profile(name)


HOLDING = ["conservative(trickle=true)", "lookahead"] * 2  # (big racks at the opening: many cores)


def _openings(name, seed, n):
    """``n`` openings of 12 tiles or more, spread over those searched in two seeded games of bots
    that hold tiles back, as (table, rack, objective)."""
    found = [p for p in recorded_positions(name, HOLDING, 2, seed) if p.initial and len(p.rack) >= 12]
    picks = np.linspace(0, len(found) - 1, min(n, len(found))).astype(int)
    return [(found[i].table, found[i].rack, found[i].objective) for i in sorted(set(picks.tolist()))]


@pytest.mark.parametrize("name", NAMES)
def test_refuted_cores_are_the_searches_one_by_one(monkeypatch, name):
    """Every call made while solving recorded openings is checked against the cores' searches run one
    by one on a fresh meter: those it counts find nothing above the best opening, in the states it
    charged; the core it stops at is one whose search finds an opening, or has no rest."""
    profile = _profile(name)
    real = CoreRows.refuted
    seen = {"cores": 0, "calls": 0, "found": 0}

    def checked(self, order, at, best, meter):
        spent = meter.spent
        done = real(self, order, at, best, meter)
        rack, base, objective, cores = self.position
        states = 0
        for i, k in enumerate(order[at : at + done + 1]):
            used = [t for s in cores[k] for t in s.tiles]
            rest = list(rack)
            for t in used:
                rest.remove(t)
            if not rest:
                assert i == done  # the batch stops before a core without a rest
                break
            alone = Meter(None, options=meter.options)
            floor = best + 1 - int(self.made.set_gain[self.rows[k]].sum())
            found = dp._best_play_read(tuple(rest), base, profile, objective, alone, floor)
            assert found is not None
            if i < done:
                assert found[0] == NO_BOUND  # refuted, as the batch said
                states += alone.spent
            elif found[0] != NO_BOUND:
                seen["found"] += 1
        assert meter.spent - spent == states
        seen["cores"] += done
        seen["calls"] += 1
        return done

    monkeypatch.setattr(CoreRows, "refuted", checked)
    for table, rack, objective in _openings(name, 4500, 60):
        solve(rack, table, profile, initial=True, objective=objective, budget=None)
    assert seen["calls"] >= 5 and seen["cores"] >= 20 and seen["found"] >= 1, seen


@pytest.mark.parametrize("name", NAMES)
def test_openings_in_one_call_are_the_openings_core_by_core(monkeypatch, name):
    """Solved with the cores in one call and core by core (``CoreRows.applies`` off), recorded
    openings give the same play, table and states."""
    profile = _profile(name)
    positions = _openings(name, 4500, 40)

    def answers():
        out = []
        for table, rack, objective in positions:
            s = solve(rack, table, profile, initial=True, objective=objective, budget=None)
            out.append((s.played, s.table, s.method, s.nodes))
        return out

    batched = answers()
    monkeypatch.setattr(CoreRows, "applies", staticmethod(lambda profile, base: False))
    assert answers() == batched
