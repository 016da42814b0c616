"""Every profile in configs/profiles plays 200 seeded games to the end without error."""

from __future__ import annotations

import pytest

from rummisim import builtin_profiles, load_profile, play_game

GAMES = 200


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(builtin_profiles()))
def test_200_seeded_games_run_to_the_end(name):
    profile = load_profile(name)
    ends = set()
    for seed in range(GAMES):
        players = 2 + seed % 3
        record = play_game(profile, ["baseline"] * players, seed, strict=True)
        assert record.n_rounds >= 1
        assert record.faults == ()
        assert len(record.scores) == players
        ends.update(r.end_reason for r in record.rounds)
    assert "out" in ends  # somebody does go out under every profile
