"""Peak memory of ``rummisim run`` as the number of games grows (results stream per chunk).

    python benchmarks/runner_memory.py --games 1000 20000 --jobs 2

Runs the CLI in a subprocess on 4 baseline bots (fast games, so many of them)
and samples the resident memory of the main process and of its whole process
tree (workers included) every 50 ms with psutil. If memory is flat, the peak for
20,000 games is close to the peak for 1,000.
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


def measure(games: int, jobs: int, bot: str, tmp: Path) -> tuple[float, float, float]:
    spec = {"name": "memory", "seed": 5, "games": games, "profiles": ["standard"], "lineups": [[bot] * 4]}
    path = tmp / f"memory-{games}.yaml"
    path.write_text(yaml.safe_dump(spec))
    cmd = [sys.executable, "-m", "rummisim", "run", str(path), "--out", str(tmp / f"out-{games}"),
           "--jobs", str(jobs), "--no-report", "--quiet"]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
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
        raise SystemExit(f"run failed with exit code {proc.returncode}")
    return peak_main / 2**20, peak_tree / 2**20, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--bot", default="baseline")
    args = parser.parse_args()
    print(f"{'games':>7} {'main peak MiB':>14} {'tree peak MiB':>14} {'seconds':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for games in args.games:
            main_mib, tree_mib, seconds = measure(games, args.jobs, args.bot, Path(tmp))
            print(f"{games:>7} {main_mib:>14.0f} {tree_mib:>14.0f} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
