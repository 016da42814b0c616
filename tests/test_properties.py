"""Hypothesis properties of whole games and of sets."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import Position, no_rearrange, positions, profiles, variant_profile

from rummisim import is_valid_meld, is_valid_set, play_game, set_catalogue
from rummisim.melds import assign_jokers, max_jokers_in_set
from rummisim.moves import validate_move
from rummisim.solver import solve
from rummisim.transcript import Transcript

BUILTIN = profiles("builtin")  # the built-in profiles (tests/strategies.py)


@settings(max_examples=25, deadline=None)
@given(name=BUILTIN, seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_tiles_are_conserved_and_tables_valid_after_every_turn(name, seed, players):
    profile = variant_profile(name)
    full = Counter(profile.tileset.all_tiles())
    turns = []

    def observe(state, seat):
        assert Counter(state.all_tiles()) == full
        assert all(is_valid_meld(m, profile) for m in state.table)
        assert all(len(m) >= 3 for m in state.table)
        turns.append(seat)

    record = play_game(
        profile, ["baseline"] * players, seed, strict=True, events=Transcript(profile, on_position=observe)
    )
    assert len(turns) == record.turns
    assert record.faults == ()
    for rnd in record.rounds:
        assert sum(rnd.scores) == 0
        assert rnd.scores[rnd.winner] == max(rnd.scores)


@settings(max_examples=15, deadline=None)
@given(name=BUILTIN, seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_same_seed_same_record(name, seed, players):
    profile = variant_profile(name)
    streams: list[list] = [[], []]
    first = play_game(profile, ["baseline"] * players, seed, events=streams[0].append)
    second = play_game(profile, ["baseline"] * players, seed, events=streams[1].append)
    assert first == second and streams[0] == streams[1]


@settings(max_examples=200, deadline=None)
@given(
    name=profiles(),
    index=st.integers(0, 10_000),
    jokers=st.sets(st.integers(0, 12), max_size=2),
    data=st.randoms(use_true_random=False),
)
def test_catalogue_sets_with_jokers_substituted_stay_valid(name, index, jokers, data):
    profile = variant_profile(name)
    cat = set_catalogue(profile)
    faces = list(cat.faces[index % len(cat.faces)])
    # at most the tile set's jokers and ``jokers.max_per_set`` (one numbered tile stays)
    positions = [p for p in jokers if p < len(faces)][
        : min(profile.tiles.jokers, max_jokers_in_set(profile, len(faces)))
    ]
    if len(faces) - len(positions) < 2:
        return
    physical = [profile.tileset.joker if i in positions else f for i, f in enumerate(faces)]
    data.shuffle(physical)
    assert is_valid_set(physical, profile)
    meld = assign_jokers(physical, profile)
    assert sorted(meld.tiles) == sorted(physical)
    assert is_valid_meld(meld, profile)


@settings(max_examples=60, deadline=None)
@given(pos=positions(max_rack=16))
def test_drawn_positions_are_legal_and_every_solution_is_a_legal_move(pos: Position):
    """Over every rule variant of the shared strategies: the drawn table is legal and within
    the tile set, and the solver's answer is a move ``validate_move`` takes (under
    ``turn.rearrange: false`` too when it may not rearrange)."""
    profile = pos.profile
    ts = profile.tileset
    assert all(is_valid_meld(m, profile) for m in pos.table)
    held = Counter(t for m in pos.table for t in m.tiles) + Counter(pos.rack)
    assert all(n <= ts.full_counts()[code] for code, n in held.items())
    got = solve(pos.rack, pos.table, profile, initial=pos.initial, objective=pos.objective,
                rearrange=pos.rearrange, budget=None)  # fmt: skip
    if got.played:
        rules = profile if pos.rearrange else no_rearrange(profile)
        validate_move(rules, pos.table, pos.rack, got.table, got.played, opened=not pos.initial)
    else:
        assert Counter(got.table) == Counter(pos.table)
