"""A rest of the rack that no joker choice can play up to its floor under ``jokers.reuse: new_set``
(``solver.reach``, 0.3.24): where the check says so, the integer program finds no play
reaching that floor either; on an opening that may touch the table it rules out most cores' rests
at once, with the same answer in fewer states; a joker that may stand in for the missing face, or a
host set that may hold the tile, keeps the floor in reach."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import random_locked_position, variant_profile

import rummisim.solver.jokers as jokers
from rummisim import load_profile, parse_table, parse_tiles
from rummisim.solver import solve
from rummisim.solver.choices import _whole_rack
from rummisim.solver.common import tile_gains
from rummisim.solver.jokers import table_jokers
from rummisim.solver.milp import solve_milp
from rummisim.solver.reach import out_of_reach


def _floors(rack, gains, whole):
    """Floors near the whole rack: less the smallest gains of 0..5 tiles, and one below each."""
    smallest = sorted(gains[t] for t in rack)
    for k in range(6):
        floor = whole - sum(smallest[:k])
        yield from (floor, floor - 1)


@pytest.mark.parametrize("name", ["polish-40", "standard+new-set", "standard+j4m3+new-set"])
def test_a_floor_out_of_reach_is_one_the_integer_program_does_not_reach(name):
    """Random tables of locked jokers (some in groups, whose jokers may keep several faces) and racks
    that hold their faces: wherever the check rules a floor out, the integer program's best turn
    scores below it; it rules out floors on a good share of the positions."""
    profile = load_profile(name) if name == "polish-40" else variant_profile(name)
    rng = np.random.default_rng(3300)
    ruled_out = checked = 0
    for _ in range(45):
        table, rack = random_locked_position(profile, rng)
        for objective in ("tiles", "value"):
            gains = tile_gains(profile, objective)
            whole = _whole_rack(rack, profile, objective)
            out = [
                f
                for f in _floors(rack, gains, whole)
                if out_of_reach(rack, table, table_jokers(table, profile), profile, objective, f, whole)
            ]
            if not out:
                continue
            best = solve_milp(rack, table, profile, initial=False, objective=objective, rearrange=True)
            score = sum(gains[t] for t in best.played)
            assert score < min(out), (rack, table, objective)
            ruled_out += len(out)
            checked += 1
    assert checked >= 20 and ruled_out >= 100, (checked, ruled_out)


# ``polish-40`` greedy #94 (``benchmarks/positions``): an opening that may touch the table, whose
# cores (30, each with the rack's joker) leave the 13 that only a joker beside a table tile places
RACK_94 = "K4 K8 K13 R1 R1 R5 R10 R10 O1 O2 O3 O5 O6 O6 O10 B4 B5 B6 B11 J"
TABLE_94 = (
    "K1 O1 B1 | K7 J(K8) K9 K10 | K7 O7 B7 | K12 R12 O12 B12 | R6 R7 R8 | O7 O8 O9 O10"
    " | B8 B9 B10 J(B11) B12 B13 | R11 O11 B11 | K4 R4 O4"
)


def test_an_opening_beside_the_table_rules_out_its_cores_rests_at_once(monkeypatch):
    """The opening is the integer program's (19 tiles), the same play as where every core's rest
    searches its joker choices, in fewer states; the check rules out 20 rests or more."""
    profile = load_profile("polish-40")
    rack, table = parse_tiles(RACK_94, profile), parse_table(TABLE_94, profile)
    calls = {"out": 0}
    real = jokers.out_of_reach

    def counted(*args):
        out = real(*args)
        calls["out"] += out
        return out

    monkeypatch.setattr(jokers, "out_of_reach", counted)
    checked = solve(rack, table, profile, initial=True, budget=None)
    assert calls["out"] >= 20
    monkeypatch.setattr(jokers, "out_of_reach", lambda *args: False)
    searched = solve(rack, table, profile, initial=True, budget=None)
    best = solve_milp(rack, table, profile, initial=True, objective="tiles", rearrange=True)
    assert checked.proven and checked.tiles_placed == len(best.played) == 19
    assert checked.played == searched.played and checked.table == searched.table
    assert checked.nodes * 4 < searched.nodes * 3


def test_a_wild_joker_or_a_host_set_keeps_the_floor_in_reach():
    """A 13 with nothing beside it rules the floor that needs it out; a rack joker (which may stand
    beside it), a tile beside it, or a rack that makes it a host set with a freed joker does not;
    nor does a floor that the rest may reach without the 13."""
    profile = load_profile("polish-40")

    def ruled_out(tiles, table, less=1):
        rack = parse_tiles(tiles, profile)
        whole = _whole_rack(rack, profile, "tiles")
        tbl = parse_table(table, profile)
        return out_of_reach(rack, tbl, table_jokers(tbl, profile), profile, "tiles", whole - less, whole)

    assert ruled_out("K8 K13 R1 R5 R10 O2 O3 O10 B4 B6 B11", TABLE_94)
    assert not ruled_out("K8 K13 R1 R5 R10 O2 O3 O10 B4 B6 B11 J", TABLE_94)  # (J K12 K13)
    assert not ruled_out("K8 K11 K13 R1 R5 R10 O2 O3 O10 B4 B6 B11", TABLE_94)  # (K11 K12 K13)
    assert not ruled_out("K8 K13 R1 R5 R10 O2 O3 O10 B4 B6 B11", TABLE_94, less=1013)  # (the 13 may stay)
    table = "R6 R7 R8 | K7 J(K8) K9 K10"  # (no 13, no K11 or K12)
    assert ruled_out("K8 K13 O2 O3 B5", table)
    assert not ruled_out("K8 K13 R13 O2 O3", table)  # (K13 R13 and the joker K8 frees: a new set)
