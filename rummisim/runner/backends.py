"""The backends that play chunks: joblib's loky processes, or a dask.distributed cluster through
joblib's dask backend. Each yields chunk results as they finish; the results do not depend on
which backend played them."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Iterator

from rummisim.experiment import ExperimentError


def check_backend(backend: str, scheduler: str | None) -> None:
    """Refuse an unknown backend, a dask backend without dask.distributed installed, and a
    scheduler without the dask backend, before anything is written."""
    if backend not in ("loky", "dask"):
        raise ExperimentError(f"--backend: expected loky or dask, got {backend!r}")
    if backend == "loky":
        if scheduler:
            raise ExperimentError("--scheduler: only used with --backend dask")
        return
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise ExperimentError("--backend dask needs dask.distributed: pip install 'rummisim[dask]'") from None


@contextlib.contextmanager
def parallel(jobs: int, backend: str, scheduler: str | None) -> Iterator:
    """A joblib ``Parallel`` that yields results as they finish, on the chosen backend."""
    import joblib

    check_backend(backend, scheduler)
    if backend == "loky":
        yield joblib.Parallel(n_jobs=jobs, return_as="generator_unordered", backend="loky")
        return
    from dask.distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler:
            try:
                client = Client(scheduler, timeout="30s")
            except (OSError, TimeoutError, ValueError, TypeError) as exc:
                raise ExperimentError(f"--scheduler: cannot reach {scheduler}: {exc}") from None
        else:
            cluster = stack.enter_context(
                LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
            )
            client = Client(cluster)
        stack.enter_context(client)
        stack.enter_context(joblib.parallel_config(backend="dask"))
        yield joblib.Parallel(n_jobs=-1, return_as="generator_unordered")


def worker_died() -> tuple[type[BaseException], ...]:
    """The exceptions by which joblib reports a worker process that died."""
    try:
        from joblib.externals.loky.process_executor import TerminatedWorkerError
    except ImportError:  # pragma: no cover - joblib without its vendored loky
        return ()
    return (TerminatedWorkerError,)


ORPHAN_POLL_SECONDS = 0.5


@functools.cache
def exit_when_orphaned(parent: int) -> None:
    """In a worker process (once per process): a daemon thread that ends the process as soon as
    ``parent``, the run's main process, is gone (killed with SIGKILL it cannot stop its loky
    workers itself; they are then re-parented, and would play on for nothing)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="rummisim-orphan-watch", daemon=True).start()
