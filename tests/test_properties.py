"""Hypothesis properties of whole games and of sets."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rummisim import builtin_profiles, is_valid_meld, is_valid_set, load_profile, play_game, set_catalogue
from rummisim.melds import assign_jokers

PROFILES = sorted(builtin_profiles())


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(PROFILES), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_tiles_are_conserved_and_tables_valid_after_every_turn(name, seed, players):
    profile = load_profile(name)
    full = Counter(profile.tileset.all_tiles())
    turns = []

    def observe(state, seat):
        assert Counter(state.all_tiles()) == full
        assert all(is_valid_meld(m, profile) for m in state.table)
        assert all(len(m) >= 3 for m in state.table)
        turns.append(seat)

    record = play_game(profile, ["baseline"] * players, seed, observer=observe, strict=True)
    assert len(turns) == record.turns
    assert record.faults == ()
    for rnd in record.rounds:
        assert sum(rnd.scores) == 0
        assert rnd.scores[rnd.winner] == max(rnd.scores)


@settings(max_examples=15, deadline=None)
@given(name=st.sampled_from(PROFILES), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_same_seed_same_record(name, seed, players):
    profile = load_profile(name)
    first = play_game(profile, ["baseline"] * players, seed, log=True)
    second = play_game(profile, ["baseline"] * players, seed, log=True)
    assert first == second


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(PROFILES),
    index=st.integers(0, 10_000),
    jokers=st.sets(st.integers(0, 12), max_size=2),
    data=st.randoms(use_true_random=False),
)
def test_catalogue_sets_with_jokers_substituted_stay_valid(name, index, jokers, data):
    profile = load_profile(name)
    cat = set_catalogue(profile)
    faces = list(cat.faces[index % len(cat.faces)])
    positions = [p for p in jokers if p < len(faces)][: profile.tiles.jokers]
    if len(faces) - len(positions) < 2:
        return
    physical = [profile.tileset.joker if i in positions else f for i, f in enumerate(faces)]
    data.shuffle(physical)
    assert is_valid_set(physical, profile)
    meld = assign_jokers(physical, profile)
    assert sorted(meld.tiles) == sorted(physical)
    assert is_valid_meld(meld, profile)
