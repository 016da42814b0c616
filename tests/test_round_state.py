"""The round's state machine (``rummisim.round_state``) and the game followed from its event
stream (``rummisim.transcript``): one turn flow, one history."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import Troublemaker, tiles, with_overrides

from rummisim import load_profile, play_game
from rummisim.contract import Discard, Draw, Pass, Phase
from rummisim.engine import deal
from rummisim.round_state import RoundState
from rummisim.schema import EndReason
from rummisim.transcript import Transcript, fan_out

GAMES = [
    ("standard", ["greedy", "conservative", "baseline"], 3),
    ("ramino-discard", ["greedy", "baseline", "beginner"], 1),
    ("classic-wrap", ["random", "greedy"], 4),
    ("polish-40", ["value", "greedy", "baseline"], 7),
    ("ramino-discard", ["troublemaker", "greedy"], 5),
    ("standard", ["troublemaker", "baseline"], 2),
]


@pytest.mark.parametrize(("name", "seats", "seed"), GAMES)
def test_the_event_stream_holds_the_whole_game(name, seats, seed):
    # one history: the rounds' records follow from the events alone, and the position after
    # every turn is the engine's (every tile where the engine had it)
    profile = load_profile(name)
    full = Counter(profile.tileset.all_tiles())
    positions = []

    def look(state, seat):
        assert Counter(state.all_tiles()) == full
        positions.append(seat)

    def lineup():
        return [Troublemaker() if seat == "troublemaker" else seat for seat in seats]

    transcript = Transcript(profile, on_position=look)
    events: list = []
    record = play_game(profile, lineup(), seed, events=fan_out(transcript, events.append))
    assert transcript.rounds == list(record.rounds)
    assert len(positions) == len(transcript.turns) == record.turns
    if "troublemaker" in seats:
        assert record.faults and any(r.timeouts for r in record.rounds)
    again: list = []
    assert play_game(profile, lineup(), seed) == record  # the stream costs nothing and changes nothing
    play_game(profile, lineup(), seed, events=again.append)
    assert again == events


def test_a_copy_is_independent():
    profile = load_profile("ramino-discard")
    state = deal(profile, 3, np.random.default_rng(5), first=1)
    twin = state.copy()
    seat = twin.start_turn()
    assert (seat, twin.turn, state.turn) == (1, 1, 0)
    twin.apply(Draw())
    assert len(twin.racks[1]) == len(state.racks[1]) + 1 and len(twin.pool) == len(state.pool) - 1
    assert twin.phase == Phase.AFTER_DRAW  # play_after_draw
    twin.apply(Pass())
    assert twin.phase is None  # a draw alone ends the turn (turn.discard: after_play)
    assert twin.end_turn() is None and state.phase is None


def test_the_discard_rule_is_the_state_machines():
    profile = with_overrides("ramino-discard", turn={"discard": "every_turn", "must_play_if_able": False})
    racks = [sorted(tiles("R1 R5 B9 O2", profile)), sorted(tiles("K3 K7 O11 B4", profile))]
    state = RoundState(profile, list(tiles("O7 O8", profile)), racks, discard=tiles("B13", profile))
    state.start_turn()
    state.apply(Draw())
    state.apply(Pass())
    assert state.phase == Phase.DISCARD and state.discard_due()
    state.apply(Discard(tiles("R5", profile)[0]))
    assert state.phase is None and state.discard[-1] == tiles("R5", profile)[0]
    assert state.end_turn() is None


def test_the_turn_cap_ends_the_round_once_for_everyone():
    profile = with_overrides("standard", end={"max_turns": 2})
    racks = [sorted(tiles("R1 R5 B9", profile)), sorted(tiles("K3 K7 O11", profile))]
    state = RoundState(profile, list(tiles("O7 O8 O9 O10", profile)), racks)
    for _ in range(2):
        state.start_turn()
        state.apply(Draw())
        ended = state.end_turn()
    assert ended == EndReason.TURN_CAP and state.record().end_reason == EndReason.TURN_CAP
