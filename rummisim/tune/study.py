"""The study driver: Optuna RDB storage, a seeded sampler, a pruner, and the loop that runs trials
until the study holds the target number of finished trials.

- **Storage.** SQLite in ``OUT/study.db`` unless ``storage`` names a database URL
  (``postgresql://user@host/db``), which lets several machines work on one study: each runs the
  same command with ``--resume`` and takes the next trial from the shared study. A remote study
  keeps a heartbeat, so the trial of a machine that died is failed and retried by another.
- **Resume.** ``resume=True`` continues a study (it must hold the same tune file, trials aside):
  trials a killed run left running are failed, and every failed trial is retried once with its
  parameters (enqueued), so a resumed study plays the trials an uninterrupted one would.
- **Seeds.** The sampler is built afresh before every trial, seeded from the tune file's seed and
  the number of trials already finished or running. A resumed study therefore draws what the
  uninterrupted one drew, for every sampler whose state lives in the storage (TPE, random,
  CMA-ES, grid).
- **Trials** finish COMPLETE or PRUNED; ``trials`` counts those (a failed trial is retried).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import shutil
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rummisim.runner import backends
from rummisim.runner.backends import check_backend
from rummisim.store import check_out, make_out
from rummisim.tune.evaluate import Tally, play_trial
from rummisim.tune.spec import MAX_TRIALS, Tune, TuneError, label_params

STUDY_DB = "study.db"
SAMPLER_STREAM = 0x5A4D  # spawn key of the samplers' seeds (the deals use one-element spawn keys)
IDENTITY_ATTR = "rummisim_tune"
RETRY_ATTR = "retry_of"
HEARTBEAT_S = 30  # a remote study's heartbeat; a trial silent for GRACE_S is failed and retried
GRACE_S = 120


@dataclass
class StudyResult:
    out: Path
    study_name: str
    storage: str  # the URL, password hidden
    target: int  # finished trials the study was run to
    finished: int  # COMPLETE + PRUNED trials in the study at the end
    ran: int  # trials this call ran (retries included)
    seconds: float
    interrupted: bool = False
    removed: bool = False  # interrupted before any trial finished: the new folder was removed
    grid_exhausted: bool = False


# ----- storage, sampler, pruner -----------------------------------------------------------------


def storage_url(out: Path, storage: str | None) -> str:
    return storage if storage else f"sqlite:///{(out / STUDY_DB).resolve()}"


def shown_url(url: str) -> str:
    """The URL without its password, for messages and reports."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL is shown as the check reports it
        return url.split("@")[-1]


def check_storage(storage: str | None) -> None:
    """Refuse a ``--storage`` that is not a database URL before anything is written."""
    if storage is None:
        return
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        url = make_url(storage)
    except (ArgumentError, ValueError):
        raise TuneError(
            f"--storage: expected a database URL such as postgresql+psycopg://user@host/db or "
            f"sqlite:///path/study.db, got {storage.split('@')[-1][:60]!r}"
        ) from None
    try:
        url.get_dialect()  # the dialect and driver names (the driver itself loads when opened)
    except NoSuchModuleError:
        raise TuneError(
            f"--storage: unknown database or driver {url.drivername!r}; SQLAlchemy names them "
            "e.g. postgresql+psycopg (psycopg 3), postgresql+psycopg2, sqlite"
        ) from None


DRIVER_PACKAGES = {"psycopg": '"psycopg[binary]"', "psycopg2": "psycopg2-binary"}  # driver -> pip name


def driver_hint(url: str) -> str:
    """What to install for the database driver a URL names (SQLAlchemy 2 reads a plain
    ``postgresql://`` as ``postgresql+psycopg``, psycopg 3)."""
    from sqlalchemy.engine import make_url

    try:
        driver = make_url(url).get_dialect().driver
    except Exception:  # noqa: BLE001 - (check_storage refused a bad URL before)
        return ""
    package = DRIVER_PACKAGES.get(driver)
    return f" (pip install {package})" if package else ""


def open_storage(url: str, remote: bool) -> Any:
    """An Optuna ``RDBStorage`` (with a heartbeat and retries of dead machines' trials if remote)."""
    import optuna

    try:
        with _quiet_optuna():
            kwargs: dict[str, Any] = {}
            if remote:
                retry = optuna.storages.RetryHeartbeatStaleTrialCallback(max_retry=2)
                kwargs = {"heartbeat_interval": HEARTBEAT_S, "grace_period": GRACE_S,
                          "heartbeat_stale_trial_callback": retry}  # fmt: skip
            return optuna.storages.RDBStorage(url, **kwargs)
    except ImportError as exc:
        raise TuneError(
            f"--storage: {shown_url(url)} needs a database driver: {exc}{driver_hint(url)}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - sqlalchemy's errors for a database it cannot reach
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise TuneError(f"--storage: cannot open {shown_url(url)}: {first}") from None


def sampler_seed(seed: int, k: int) -> int:
    """The sampler's seed before the trial that follows ``k`` finished or running ones."""
    state = np.random.SeedSequence(seed, spawn_key=(SAMPLER_STREAM, k)).generate_state(1, np.uint32)
    return int(state[0])


def make_sampler(tune: Tune, k: int) -> Any:
    """A fresh sampler for the next trial (its state is the study's history plus this seed)."""
    import optuna

    seed = sampler_seed(tune.seed, k)
    startup = tune.sampler.startup_trials
    name = tune.sampler.name
    if name == "tpe":
        return optuna.samplers.TPESampler(
            seed=seed, multivariate=True, n_startup_trials=10 if startup is None else startup
        )
    if name == "cmaes":
        if importlib.util.find_spec("cmaes") is None:
            raise TuneError(f"{tune.source}: key 'sampler': cmaes needs the cmaes package: pip install cmaes")
        return optuna.samplers.CmaEsSampler(
            seed=seed, n_startup_trials=1 if startup is None else startup, warn_independent_sampling=False
        )
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    grid = {d.key: d.grid() or [] for d in tune.space}  # spec checked every key has a grid
    return optuna.samplers.GridSampler(grid, seed=tune.seed % 2**32)  # the grid's order: one seed


def grid_size(tune: Tune) -> int | None:
    if tune.sampler.name != "grid":
        return None
    return int(np.prod([len(d.grid() or ()) for d in tune.space]))


def make_pruner(tune: Tune) -> Any:
    import optuna

    p = tune.pruner
    if p.name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=p.startup_trials, n_warmup_steps=p.warmup_batches)
    if p.name == "percentile":
        return optuna.pruners.PercentilePruner(
            p.percentile, n_startup_trials=p.startup_trials, n_warmup_steps=p.warmup_batches
        )
    return optuna.pruners.NopPruner()


class _NoFailedTrialLines(logging.Filter):
    """Drops optuna's two "Trial N failed ..." warnings: a trial fails here only by raising, and
    the driver reports that error itself (a ``TuneError`` as its one line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (message.startswith("Trial ") and " failed with " in message)


@contextmanager
def _quiet_optuna() -> Iterator[None]:
    """Optuna's own log lines and experimental warnings off (the driver reports trials itself)."""
    import optuna

    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    trials_logger = logging.getLogger("optuna.study._optimize")
    dropped = _NoFailedTrialLines()
    trials_logger.addFilter(dropped)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            yield
    finally:
        trials_logger.removeFilter(dropped)
        optuna.logging.set_verbosity(level)


# ----- the study's trials -----------------------------------------------------------------------


def _states(study: Any) -> dict[str, list]:
    from optuna.trial import TrialState

    trials = study.get_trials(deepcopy=False)
    return {
        "done": [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)],
        "running": [t for t in trials if t.state == TrialState.RUNNING],
        "failed": [t for t in trials if t.state == TrialState.FAIL],
    }


def _retry_failed(study: Any, tune: Tune, numbers: set[int] | None = None) -> int:
    """Enqueue each failed trial (of ``numbers``, or all) that has no retry yet, with its parameters."""
    trials = study.get_trials(deepcopy=False)
    retried = {t.user_attrs.get(RETRY_ATTR) for t in trials}
    retried |= {t.system_attrs.get("failed_trial") for t in trials}
    count = 0
    for t in _states(study)["failed"]:
        if (numbers is not None and t.number not in numbers) or t.number in retried:
            continue
        if set(t.params) != set(tune.keys):
            continue  # stopped before its parameters were drawn: the seeded sampler draws them again
        study.enqueue_trial(dict(t.params), user_attrs={RETRY_ATTR: t.number})
        count += 1
    return count


def _identity(tune: Tune) -> dict[str, Any]:
    return json.loads(json.dumps(tune.identity(), sort_keys=True))


def _prepare(out: Path, tune: Tune, storage: str | None, resume: bool) -> tuple[str, bool]:
    """Check ``out`` and the storage for a fresh study or a resume; return the storage URL and
    whether the study exists already."""
    import optuna

    check_out(out)
    check_storage(storage)
    url = storage_url(out, storage)
    local = storage is None
    has_db = (out / STUDY_DB).exists()
    nonempty = out.is_dir() and any(out.iterdir())
    if not resume and nonempty:
        raise TuneError(
            f"{out} is not empty; pass --resume to continue the study there, or --out to write elsewhere"
        )
    if resume and local and not has_db and nonempty:
        raise TuneError(f"--resume: {out} has no {STUDY_DB}; it is not a rummisim tune folder")
    exists = False
    if has_db or not local:
        names = optuna.study.get_all_study_names(open_storage(url, not local))
        exists = tune.name in names
        if local and has_db and not exists:
            raise TuneError(
                f"--resume: {out / STUDY_DB} holds no study named {tune.name!r} (it holds "
                f"{', '.join(names) or 'none'}); use another --out"
            )
    if exists and not resume:
        raise TuneError(
            f"--storage: {shown_url(url)} already holds a study named {tune.name!r}; pass --resume to "
            "continue it (or to join it from another machine)"
        )
    return url, exists


def run_study(
    tune: Tune,
    out: str | Path,
    *,
    trials: int | None = None,
    jobs: int = 1,
    resume: bool = False,
    storage: str | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    say: Callable[[str], None] | None = None,
) -> StudyResult:
    """Run trials of ``tune`` until its study holds ``trials`` (default: the file's) finished ones.

    Everything is checked before anything is written. ``say`` gets one line per trial. A
    ``KeyboardInterrupt`` fails the running trial, enqueues its retry and returns
    ``interrupted=True`` (a fresh study stopped before its first trial leaves nothing behind).
    """
    import optuna

    started = time.monotonic()
    out = Path(out)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise TuneError(f"--jobs: expected a whole number of workers >= 1, got {jobs!r}")
    target = tune.trials if trials is None else trials
    if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= MAX_TRIALS:
        raise TuneError(f"--trials: expected a whole number 1..{MAX_TRIALS}, got {target!r}")
    grid = grid_size(tune)
    if grid is not None:
        target = min(target, grid)
    check_backend(backend, scheduler)
    url, exists = _prepare(out, tune, storage, resume)
    local = storage is None
    shown = f"sqlite:///{out / STUDY_DB}" if local else shown_url(url)
    created = make_out(out)
    ran = 0
    mine: list[int] = []
    study = None
    with _quiet_optuna():
        try:
            study = optuna.create_study(
                storage=open_storage(url, not local),
                study_name=tune.name,
                direction=tune.objective.direction,
                pruner=make_pruner(tune),
                load_if_exists=exists,
            )
            if exists:
                saved = study.user_attrs.get(IDENTITY_ATTR)
                if saved != _identity(tune):
                    raise TuneError(
                        f"--resume: the study {tune.name!r} in {shown} was started from a different tune "
                        "file (its space, seed, games, objective, sampler or pruner changed); use another "
                        "--out or --storage, or resume with the original file"
                    )
                if local:  # nobody else runs a local study: what is still running was killed
                    from optuna.trial import TrialState

                    for t in _states(study)["running"]:
                        study.tell(t.number, state=TrialState.FAIL, skip_if_finished=True)
                    _retry_failed(study, tune)
            else:
                study.set_user_attr(IDENTITY_ATTR, _identity(tune))

            def objective(trial: optuna.Trial) -> float:
                mine.append(trial.number)
                params = {d.key: d.suggest(trial) for d in tune.space}
                last = tune.batches - 1

                def on_batch(batch: int, value: float, tally: Tally) -> None:
                    trial.report(value, batch)
                    if batch < last and trial.should_prune():
                        raise optuna.TrialPruned(f"after batch {batch + 1} of {tune.batches}")

                return play_trial(tune, params, parallel, workers, on_batch)

            workers = jobs
            with backends.parallel(workers, backend, scheduler) as parallel:
                while True:
                    states = _states(study)
                    k = len(states["done"]) + len(states["running"])
                    if k >= target:
                        break
                    study.sampler = make_sampler(tune, k)
                    study.optimize(objective, n_trials=1)
                    ran += 1
                    if say is not None:
                        say(_trial_line(study, mine[-1], target, tune))
        except KeyboardInterrupt:
            finished = len(_states(study)["done"]) if study is not None else 0
            removed = False
            if study is not None and mine:
                _retry_failed(study, tune, {mine[-1]})
            if not exists and finished == 0:
                if study is not None:
                    optuna.delete_study(study_name=tune.name, storage=url)
                if local:
                    _discard(out, created)
                    removed = True
            return StudyResult(
                out, tune.name, shown, target, finished, ran, time.monotonic() - started,
                interrupted=True, removed=removed,
            )  # fmt: skip
        except BaseException:
            if not exists and study is not None and not _states(study)["done"] and local:
                _discard(out, created)
            raise
    finished = len(_states(study)["done"])
    return StudyResult(
        out, tune.name, shown, target, finished, ran, time.monotonic() - started,
        grid_exhausted=grid is not None and finished >= grid,
    )  # fmt: skip


def _discard(out: Path, created: Path | None) -> None:
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)
    else:
        (out / STUDY_DB).unlink(missing_ok=True)


def _trial_line(study: Any, number: int, target: int, tune: Tune) -> str:
    from optuna.trial import TrialState

    t = study.get_trials(deepcopy=False)[number]
    done = len(_states(study)["done"])
    name = tune.objective.name
    params = label_params(t.params)
    seconds = (t.datetime_complete - t.datetime_start).total_seconds() if t.datetime_complete else 0.0
    if t.state == TrialState.COMPLETE:
        what = f"{name} {t.value:.4f}"
    elif t.state == TrialState.PRUNED:
        step = max(t.intermediate_values) if t.intermediate_values else -1
        value = t.intermediate_values.get(step, float("nan"))
        what = f"pruned after batch {step + 1}/{tune.batches} ({name} {value:.4f})"
    else:
        what = t.state.name.lower()
    best = ""
    with suppress(ValueError):  # no complete trial yet
        best = f"; best {study.best_value:.4f} (trial {study.best_trial.number})"
    return f"trial {number} [{done}/{target}]: {what} in {seconds:.1f} s  {params}{best}"


def write_outputs(
    tune: Tune,
    result: StudyResult,
    *,
    storage: str | None = None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    validate: bool = True,
) -> dict[str, Path | None]:
    """After ``run_study``: ``trials.parquet``, ``best.yaml``, the validation run (unless
    ``validate=False``, e.g. on the worker machines of a shared study) and ``report.md``."""
    import optuna

    from rummisim.tune import outputs, report

    out = result.out
    with _quiet_optuna():
        study = optuna.load_study(
            study_name=tune.name, storage=open_storage(storage_url(out, storage), False)
        )
        frame = outputs.trials_frame(study, tune)
        written: dict[str, Path | None] = {"trials": outputs.write_trials(frame, out)}
        written["best"] = outputs.write_best(tune, study, out)
        validation = None
        if validate:
            validation = outputs.validate(tune, study, out, jobs=jobs, backend=backend, scheduler=scheduler)
            written["validation"] = out / "validation.csv" if validation is not None else None
        written["report"] = report.write_report(
            tune, study, frame, out, validation=validation, storage=result.storage
        )
    return written
