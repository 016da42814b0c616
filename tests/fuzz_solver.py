"""Fuzz ``solve`` against the integer program for as long as you like (not a test: pytest does not
collect it; the agreement tests run a fixed, shrinkable sample of the same kind in CI).

    python tests/fuzz_solver.py [--seconds 600] [--seed 16001] [--axis AXIS ...] [--locked 0.5]
        [--initial 0.2] [--max-rack 20] [--budget N] [--tracked-only]

Each draw picks a variant of ``strategies.VARIANTS`` at random (of the ``--axis`` groups given,
``strategies.AXES``; default all), then a position: with probability ``--locked`` (0.5), under a
profile with jokers, ``random_locked_position`` (table jokers that a rack tile may free),
else ``random_position`` with a rack of 5 to ``--max-rack`` tiles; an opening with probability ``--initial``
(0.2), ``rearrange=False`` in 10%, ``objective="value"`` in 30%. Every draw goes through
``test_solver_agreement.check``: the play must pass ``validate_move``, and score what the MILP
scores where it is proven (no more where the exact search gave up and says why). A failure is printed with its position (``Position.describe``) and the run goes
on; so is a crash. With ``--budget N`` each search gets a budget of N units instead: its play
must be legal, and score what the MILP scores where it is proven, no more where the budget cut it
short. ``--tracked-only``: no host set listed (``SearchOptions(max_host_solves=0,
new_set_solves=0, pair_host_solves=0)``), so every freed joker goes to the tracked pass. The draws depend on the
arguments alone; how many fit in the time does not. Exit status 1 if any draw failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strategies import (  # noqa: E402
    AXES,
    Position,
    labels,
    random_locked_position,
    random_position,
    variant_profile,
)
from test_solver_agreement import check  # noqa: E402

from rummisim.solver import SearchOptions  # noqa: E402


def draw(
    rng: np.random.Generator, variants: list[str], locked: float, initial_share: float, max_rack: int
) -> Position:
    """One random position (see the module docstring)."""
    label = variants[int(rng.integers(len(variants)))]
    profile = variant_profile(label)
    if profile.tileset.jokers and rng.random() < locked:
        table, rack = random_locked_position(profile, rng)
        generator = "locked"
    else:
        table, rack = random_position(profile, rng, max_rack=int(rng.integers(5, max_rack + 1)))
        generator = "random"
    initial = bool(rng.random() < initial_share)
    rearrange = bool(rng.random() >= 0.1)
    objective = "tiles" if rng.random() < 0.7 else "value"
    return Position(label, profile, rack, table, initial, objective, rearrange, generator)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="how long to draw positions")
    parser.add_argument("--seed", type=int, default=16001, help="the draws' seed")
    parser.add_argument("--axis", action="append", choices=AXES, help="draw only these axis groups' variants")
    parser.add_argument(
        "--locked", type=float, default=0.5, help="share of positions with table jokers to free"
    )
    parser.add_argument("--initial", type=float, default=0.2, help="share of openings")
    parser.add_argument(
        "--budget",
        type=int,
        default=None,
        help="search with this budget (units): legal, never above the MILP",
    )
    parser.add_argument("--max-rack", type=int, default=20, help="the largest rack of random positions")
    parser.add_argument(
        "--tracked-only",
        action="store_true",
        help="no host set listed (SearchOptions(max_host_solves=0, new_set_solves=0, pair_host_solves=0))",
    )
    args = parser.parse_args()
    listed_none = SearchOptions(max_host_solves=0, new_set_solves=0, pair_host_solves=0)
    options = listed_none if args.tracked_only else SearchOptions()
    variants = [label for axis in args.axis for label in labels(axis)] if args.axis else labels()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    methods: Counter[str] = Counter()
    failed = drawn = 0
    while time.perf_counter() - started < args.seconds:
        pos = draw(rng, variants, args.locked, args.initial, args.max_rack)
        drawn += 1
        try:
            methods[check(pos, "fuzz", args.budget, options)] += 1
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
