"""The suite's Hypothesis set-up (``conftest._no_local_constants``): a derandomized test draws the
same examples whatever modules were loaded before it."""

from __future__ import annotations

import importlib

from hypothesis import given, settings
from hypothesis import strategies as st


def _draws() -> list[int]:
    seen: list[int] = []

    @settings(derandomize=True, database=None, max_examples=200)
    @given(st.integers())
    def record(x):
        seen.append(x)

    record()
    return seen


def test_derandomized_draws_do_not_depend_on_the_modules_loaded(tmp_path, monkeypatch):
    """A local module with new constants, loaded between two runs of one derandomized test: the
    same draws (Hypothesis drew those constants too, in some runs and not others)."""
    before = _draws()
    (tmp_path / "fresh_constants.py").write_text("FIRST = 987654321\nSECOND = -123456789\nTHIRD = 31337\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("fresh_constants")
    after = _draws()
    assert after == before
    assert {987654321, -123456789, 31337}.isdisjoint(after)
