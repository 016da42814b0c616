"""The tracked host run promoted out of the open runs (``host_fields.promoted_run``, 0.3.13).

An exact tracked pass of one freed joker leaves a run of table tiles among the open runs until
its first rack item or the freed joker, and promotes it into the host field there; the decoders
(``decode._replay`` without pins, ``_decode_pinned`` with them) hand that run's tiles to the host
run (``decode._host_runs``). These tests pin the claim: the same optimum as a pass that starts the
host run at its first tile, in fewer states, and legal plays from both decoders."""

from __future__ import annotations

import pytest
from helpers import BOTTOM_UP
from strategies import variant_profile

import rummisim.solver.decode as decode
import rummisim.solver.passes as passes
from rummisim import load_profile, parse_table, parse_tiles
from rummisim.geometry import run_geometry
from rummisim.moves import validate_move
from rummisim.solver import SearchOptions, placed_value, solve
from rummisim.solver.milp import solve_milp

# (profile, table, rack): game positions (benchmarks/positions: guide-strict-joker greedy #206,
# classic-wrap trickle-jokers #212) whose best play holds a promoted host run; the first decodes
# one without pins and one with them (the kept joker's strict set), the second under wrap
PROMOTED = [
    (
        "guide-strict-joker",
        "K1 J(K2) K3 K4 | K5 R5 B5 | K7 R7 B7 | K10 R10 O10 | K11 R11 B11 | R4 O4 B4"
        " | O1 O2 J(O3) O4 O5 O6 O7 O8 O9 | O11 O12 O13 | B8 B9 B10",
        "K1 K2 K10 K11 K13 R3 R4 R6 R6 R9 R11 R13 O1 O9 B2 B12",
    ),
    (
        "classic-wrap",
        "K1 R1 O1 | K2 K3 K4 K5 | K2 K3 K4 K5 | K7 R7 O7 | K7 R7 B7 | K8 K9 K10 | K8 K9 K10"
        " | K11 R11 B11 | K12 K13 K1 | K13 R13 B13 | R1 R2 R3 R4 R5 | R3 O3 B3 | R6 O6 B6"
        " | R10 R11 J(R12) R13 | R10 O10 B10 | O1 O2 O3 | O2 J(O3) O4 O5 | O9 O10 O11 | B2 B3 B4",
        "K6 K6 K11 R5 R8 R9 R12 O6 O12 O12 B4 B8 B11",
    ),
]


def _spy_promoted(monkeypatch) -> list[tuple[bool, object]]:
    """Record (pins or not, the decoded sets) of every decoding of a promoted host run."""
    seen: list[tuple[bool, object]] = []
    original = decode.decode

    def spy(chain, profile, types, n_pos, pins=(), host=None):
        out = original(chain, profile, types, n_pos, pins, host)
        if host is not None and host.promoted is not None:
            seen.append((bool(pins), out))
        return out

    monkeypatch.setattr(decode, "decode", spy)
    return seen


def _without_promotion(monkeypatch) -> None:
    """Tracked passes that start the host run at its first tile (the search before 0.3.13)."""
    original = passes.host_record
    monkeypatch.setattr(passes, "host_record", lambda *a: original(*a)._replace(promote=False))


@pytest.mark.parametrize(("name", "table", "rack"), PROMOTED)
def test_a_promoted_host_run_decodes_into_the_optimum(monkeypatch, name, table, rack):
    profile = load_profile(name)
    table, rack = parse_table(table, profile), parse_tiles(rack, profile)
    seen = _spy_promoted(monkeypatch)
    found = solve(rack, table, profile, budget=None, options=BOTTOM_UP)
    assert found.method == "dp" and found.proven
    validate_move(profile, table, rack, found.table, found.played, opened=True)
    ref = solve_milp(rack, table, profile, initial=False, objective="tiles", rearrange=True)
    assert (found.tiles_placed, found.value_placed) == (len(ref.played), placed_value(ref.played, profile))
    assert seen and all(out is not None for _, out in seen)
    if name == "guide-strict-joker":
        assert {pinned for pinned, _ in seen} == {False, True}  # both decoders


@pytest.mark.parametrize(("name", "table", "rack"), PROMOTED)
def test_promotion_keeps_the_answer_in_fewer_states(monkeypatch, name, table, rack):
    profile = load_profile(name)
    table, rack = parse_table(table, profile), parse_tiles(rack, profile)
    promoted = solve(rack, table, profile, budget=None, options=BOTTOM_UP)
    _without_promotion(monkeypatch)
    started = solve(rack, table, profile, budget=None, options=BOTTOM_UP)
    assert (promoted.tiles_placed, promoted.value_placed) == (started.tiles_placed, started.value_placed)
    assert promoted.nodes < started.nodes


def test_the_promoted_run_leads_the_host_run():
    profile = load_profile("standard")
    ts = profile.tileset
    codes = run_geometry(profile).codes(0)  # the first colour's codes by position (1-based)
    r = [codes[v] for v in range(14)]
    joker = ts.joker
    host = ([r[13]], [r[13]])  # the host run's own tiles from R13 on

    def promoted(tiles, faces, first, host_run, lead):
        """``decode._host_runs``'s first run: the open run (``tiles``, ``faces`` from ``first``)
        in front of ``host_run``, closed with ``lead`` leading jokers; None where they do not meet."""
        moves = decode.HostMoves((host_run,), (), 0, (0, 0, lead))
        runs = decode._host_runs(moves, (tiles, faces, first), profile)
        return None if runs is None else runs[0]

    # the open run R11 R12 (first position 11) promoted at 13: R11 R12 R13
    tiles, faces = promoted([r[11], r[12]], [r[11], r[12]], 11, host, 0)
    assert (tiles, faces) == ([r[11], r[12], r[13]], [r[11], r[12], r[13]])
    # closed at the top with a leading joker before the open run's first tile: J R12 R13
    tiles, faces = promoted([r[12]], [r[12]], 12, host, 1)
    assert (tiles, faces) == ([joker, r[12], r[13]], [r[11], r[12], r[13]])
    # the open run must end right before the host run's first tile, and room for leading jokers
    assert promoted([r[10]], [r[10]], 10, host, 0) is None
    assert promoted([r[1]], [r[1]], 1, ([r[2]], [r[2]]), 1) is None


def test_a_promoted_run_of_two_items_takes_the_freed_joker(monkeypatch):
    # fuzz seed 43301 (``--tracked-only``), draw 444: the host run is the open run K6 K7 (type C)
    # promoted at 8 by the freed joker. The action word stored the kernel's loop index (7) as the
    # host move, which ``split_host`` read as a close: the decoding failed (``GiveUp.DECODE``, 4
    # tiles where 5 fit) until the action stored the host move itself (4, the freed joker).
    profile = variant_profile("standard+open30-any-jrep-touch")
    table = parse_table("K4 K5 K6 K7 J(K8) J(K9) | R3 R4 R5 R6 R7 R8", profile)
    rack = parse_tiles("K5 K7 K8 K9 R9 O6", profile)
    seen = _spy_promoted(monkeypatch)
    listed_none = SearchOptions(max_host_solves=0, new_set_solves=0, pair_host_solves=0, rack_first=False)
    found = solve(rack, table, profile, budget=None, options=listed_none)
    assert found.method == "dp" and found.proven
    assert (found.tiles_placed, found.value_placed) == (5, 39)
    validate_move(profile, table, rack, found.table, found.played, opened=True)
    ref = solve_milp(rack, table, profile, initial=False, objective="tiles", rearrange=True)
    assert len(ref.played) == 5
    assert seen and all(out is not None for _, out in seen)
