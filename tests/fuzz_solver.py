"""Fuzz ``solve`` against the integer program for as long as you like (not a test: pytest does not
collect it; the agreement tests run a fixed, shrinkable sample of the same kind in CI).

    python tests/fuzz_solver.py [--seconds 600] [--seed 16001]

Each draw picks a variant of ``strategies.VARIANTS`` at random, then a position: half of the time,
under a profile with jokers, ``random_locked_position`` (table jokers that a rack tile may free),
else ``random_position`` with a rack of 5-20 tiles; an opening in 20% of draws, ``rearrange=False``
in 10%, ``objective="value"`` in 30%. Every draw goes through ``test_solver_agreement.check``: the
play must pass ``validate_move``, be proven, and score what the MILP scores. A failure is printed
with its position (``Position.describe``) and the run goes on; so is a crash. The draws depend on ``--seed`` alone;
how many fit in the time does not. Exit status 1 if any draw failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strategies import VARIANTS, Position, random_locked_position, random_position, variant_profile  # noqa: E402
from test_solver_agreement import check  # noqa: E402


def draw(rng: np.random.Generator) -> Position:
    """One random position (see the module docstring)."""
    labels = list(VARIANTS)
    label = labels[int(rng.integers(len(labels)))]
    profile = variant_profile(label)
    if profile.tileset.jokers and rng.random() < 0.5:
        table, rack = random_locked_position(profile, rng)
        generator = "locked"
    else:
        table, rack = random_position(profile, rng, max_rack=int(rng.integers(5, 21)))
        generator = "random"
    initial = bool(rng.random() < 0.2)
    rearrange = bool(rng.random() >= 0.1)
    objective = "tiles" if rng.random() < 0.7 else "value"
    return Position(label, profile, rack, table, initial, objective, rearrange, generator)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="how long to draw positions")
    parser.add_argument("--seed", type=int, default=16001, help="the draws' seed")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    methods: Counter[str] = Counter()
    failed = drawn = 0
    while time.perf_counter() - started < args.seconds:
        pos = draw(rng)
        drawn += 1
        try:
            methods[check(pos, "fuzz")] += 1
        except Exception as failure:  # a disagreement, an illegal play, or a crash: all reported
            failed += 1
            print(f"FAILED ({type(failure).__name__}): {failure}", flush=True)
        if drawn % 1000 == 0:
            print(f"{drawn} positions, {failed} failed, {dict(methods)}", flush=True)
    elapsed = time.perf_counter() - started
    print(f"done: {drawn} positions in {elapsed:.0f} s, {failed} failed; answered by {dict(methods)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
