"""Statistics over the runner's tidy tables: win rates, seat effects, distributions, paired comparisons.

``estimators`` holds the generic estimators (proportions with Wilson intervals, bootstrap intervals,
quantiles, paired differences, Holm); ``summaries`` the domain summaries built on them (win rates by
bot and seat, the first-seat edge, ``summarize`` and ``summary_bots``); ``ratings`` the bots'
Plackett-Luce ratings and their Bradley-Terry cross-check (``ratings.csv``). Everything public is
re-exported here: ``from rummisim import stats; stats.summarize(...)``.
"""

from rummisim.stats.estimators import (
    PAIR_KEYS,
    SeedLike,
    bootstrap_ci,
    compare_cells,
    describe,
    holm_adjust,
    paired_difference,
    quantile_column,
    rate,
    sign_flip_test,
    wilson_interval,
)
from rummisim.stats.ratings import (
    ORDERS,
    bradley_terry,
    finish_ranks,
    inversion_causes,
    pairwise_results,
    plackett_luce,
    plackett_luce_batch,
    rating_agreement,
    ratings,
)
from rummisim.stats.summaries import (
    CELL_COLUMNS,
    ROUND_KEYS,
    compare_pairs,
    completed,
    first_seat_advantage,
    seat_win_rates,
    summarize,
    summary_bots,
    summary_bots_columns,
    summary_columns,
    win_rates,
)

__all__ = [
    "CELL_COLUMNS",
    "ORDERS",
    "PAIR_KEYS",
    "ROUND_KEYS",
    "SeedLike",
    "bootstrap_ci",
    "bradley_terry",
    "compare_cells",
    "compare_pairs",
    "completed",
    "describe",
    "finish_ranks",
    "first_seat_advantage",
    "holm_adjust",
    "inversion_causes",
    "paired_difference",
    "pairwise_results",
    "plackett_luce",
    "plackett_luce_batch",
    "quantile_column",
    "rate",
    "rating_agreement",
    "ratings",
    "seat_win_rates",
    "sign_flip_test",
    "summarize",
    "summary_bots",
    "summary_bots_columns",
    "summary_columns",
    "wilson_interval",
    "win_rates",
]
