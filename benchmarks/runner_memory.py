"""Peak memory of ``rummisim run`` as the number of games grows (results stream per chunk).

    python benchmarks/runner_memory.py --games 1000 20000 --jobs 2

Runs each phase in a subprocess on 4 baseline bots (fast games, so many of them)
and samples the resident memory of the main process and of its whole process
tree (workers included) every 50 ms with psutil: ``play`` (the games, the chunk
files and the streamed merge into Parquet), ``summary`` (summary.csv, which reads
the tables whole) and ``report`` (report.md and the charts). If the runner
streams, the ``play`` peak for 20,000 games is close to the one for 1,000.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import yaml

PLAY = (
    "import sys; from rummisim import load_experiment, run_experiment; "
    "run_experiment(load_experiment(sys.argv[1]), sys.argv[2], jobs=int(sys.argv[3]), "
    "progress=False, summarize=False)"
)
SUMMARY = (
    "import sys; from pathlib import Path; from rummisim.runner import write_summary; "
    "write_summary(Path(sys.argv[1]))"
)


def peak(cmd: list[str]) -> tuple[float, float, float]:
    """Peak RSS (MiB) of the process and of its process tree, and the wall time."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    main = psutil.Process(proc.pid)
    peak_main = peak_tree = 0
    while proc.poll() is None:
        try:
            rss_main = main.memory_info().rss
            rss_tree = rss_main + sum(c.memory_info().rss for c in main.children(recursive=True))
        except psutil.Error:
            continue
        peak_main, peak_tree = max(peak_main, rss_main), max(peak_tree, rss_tree)
        time.sleep(0.05)
    if proc.returncode:
        raise SystemExit(f"{cmd[:3]} failed with exit code {proc.returncode}")
    return peak_main / 2**20, peak_tree / 2**20, time.perf_counter() - start


def measure(games: int, jobs: int, bot: str, tmp: Path) -> dict[str, tuple[float, float, float]]:
    spec = {"name": "memory", "seed": 5, "games": games, "profiles": ["standard"], "lineups": [[bot] * 4]}
    path = tmp / f"memory-{games}.yaml"
    path.write_text(yaml.safe_dump(spec))
    out = tmp / f"out-{games}"
    return {
        "play": peak([sys.executable, "-c", PLAY, str(path), str(out), str(jobs)]),
        "summary": peak([sys.executable, "-c", SUMMARY, str(out)]),
        "report": peak([sys.executable, "-m", "rummisim", "report", str(out)]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--bot", default="baseline")
    args = parser.parse_args()
    print(f"{'games':>7} {'phase':>8} {'main peak MiB':>14} {'tree peak MiB':>14} {'seconds':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for games in args.games:
            phases = measure(games, args.jobs, args.bot, Path(tmp))
            for phase, (main_mib, tree_mib, seconds) in phases.items():
                print(f"{games:>7} {phase:>8} {main_mib:>14.0f} {tree_mib:>14.0f} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
