"""``rummisim tune``: search a bot's parameters or a profile's rule keys with Optuna.

Data flow: a tune file (``spec``: validated like an experiment) -> an Optuna study in RDB storage
(``study``: SQLite in ``OUT/study.db`` by default, seeded sampler, pruner) -> each trial is one
experiment cell played in batches of whole deals on the batch runner's chunks and backends
(``evaluate``: the same deals in every trial, the objective reported after every batch so the
pruner can stop a trial early) -> ``trials.parquet``, ``best.yaml``, a validation run of the best
against the default on fresh deals, and ``report.md`` with charts (``outputs``, ``report``).
"""

from rummisim.tune.spec import Dimension, Objective, Tune, TuneError, builtin_tunes, load_tune, tune_from_dict

__all__ = [
    "Dimension",
    "Objective",
    "Tune",
    "TuneError",
    "builtin_tunes",
    "load_tune",
    "tune_from_dict",
]
