"""Fuzzing the entry points with seeded, bounded Hypothesis inputs: every bad input ends in exit 2
and one short line on stderr, never a traceback; every good one is accepted."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummisim import ExperimentError, ProfileError, experiment_from_dict, load_profile
from rummisim.cli import main

FUZZ = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)

# words that real files use, so that generated structures reach deep into validation
KEYS = [
    "name", "extends", "tiles", "colors", "values", "copies", "jokers", "rack_size", "players", "min", "max",
    "runs", "wrap", "groups", "min_size", "max_size", "initial_meld", "threshold", "sets", "turn",
    "must_play_if_able", "discard", "max_per_set", "match", "end", "rounds", "target_points",
    "target_counts", "when_pool_empty", "time_limit", "search_budget", "seed", "games", "profiles",
    "lineups", "sweep", "compare", "base", "overrides", "params", "bogus",
]  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False),
    st.sampled_from(["standard", "polish-40", "greedy", "none", "high_low", "any", "every_turn", "J", ""]),
    st.text(max_size=20),
)
STRUCTURES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
    ),
    max_leaves=25,
)


def run_cli(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse
            code = exc.code
    return int(code or 0), err.getvalue()


def assert_clean(code: int, err: str) -> None:
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and len(lines[0]) < 400, err


@FUZZ
@given(data=STRUCTURES)
def test_profiles_validate_on_generated_structures(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.yaml"
        path.write_text(yaml.safe_dump(data))
        assert_clean(*run_cli(["profiles", "validate", str(path)]))


@FUZZ
@given(data=st.dictionaries(st.sampled_from(KEYS), STRUCTURES, max_size=6))
def test_profile_overrides_of_standard(data):
    """Generated overrides on top of a real profile go deeper than structures alone."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.yaml"
        path.write_text(yaml.safe_dump({"extends": "standard", **data}))
        try:
            load_profile(path)
        except ProfileError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 400


@FUZZ
@given(raw=st.binary(max_size=300))
def test_random_bytes_as_a_profile(raw):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bytes.yaml"
        path.write_bytes(raw)
        assert_clean(*run_cli(["profiles", "validate", str(path)]))


TOKENS = [f"{c}{v}" for c in "KROB" for v in range(1, 14)] + [
    "J",
    "J(R5)",
    "J(K13)",
    "X4",
    "R14",
    "R0",
    "(",
    "J(J)",
]
TILE_TEXT = st.one_of(
    st.text(alphabet="KROBJGX0123456789() |", max_size=40),
    st.lists(st.sampled_from(TOKENS), max_size=14).map(" ".join),
    st.lists(
        st.lists(st.sampled_from(TOKENS[:52] + ["J"]), min_size=1, max_size=5).map(" ".join), max_size=4
    ).map(" | ".join),
)


@FUZZ
@given(rack=TILE_TEXT, table=TILE_TEXT, initial=st.booleans())
def test_solve_on_generated_racks_and_tables(rack, table, initial):
    args = ["solve", "--rack", rack, "--table", table, *(["--initial"] if initial else [])]
    assert_clean(*run_cli(args))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    bots=st.text(alphabet="greedybasln(),=_123 ", max_size=30),
    seed=st.text(alphabet="-0123456789x", max_size=8),
)
def test_play_on_generated_bots_and_seeds(bots, seed):
    assert_clean(*run_cli(["play", "--bots", bots, "--seed", seed or "0", "--quiet"]))


@FUZZ
@given(data=st.dictionaries(st.sampled_from(KEYS), STRUCTURES, max_size=8))
def test_experiment_loader_on_generated_structures(data):
    try:
        experiment_from_dict(data, "fuzz.yaml")
    except ExperimentError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.dictionaries(st.sampled_from(KEYS), STRUCTURES, max_size=8))
def test_run_on_generated_experiment_files(data):
    """``rummisim run`` on a generated experiment file: exit 2 with one line and nothing written,
    or (when it happens to be valid) a tiny run that completes."""
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "exp.yaml", Path(tmp) / "out"
        path.write_text(yaml.safe_dump(data))
        code, err = run_cli(
            ["run", str(path), "--games", "2", "--jobs", "1", "--out", str(out), "--no-report"]
        )
        assert_clean(code, err)
        if code == 2:
            assert not out.exists() or not any(out.iterdir())
