"""The wheel works on its own: built from this tree, installed in a fresh virtualenv outside the
repository, it lists the built-in profiles, plays a ``polish-40`` game and runs the built-in
``quickstart`` experiment by name, all from a folder outside the repository.

The virtualenv installs only the wheel; its dependencies come from this environment's
site-packages through a ``.pth`` file, placed after the venv's own site-packages (so nothing
is downloaded, and the installed ``rummisim`` is the one imported, not this checkout: asserted).
Building the wheel needs the build backend (setuptools) from the package index, as ``pip
install`` does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
PROFILES = {"standard", "classic-wrap", "ramino-discard", "guide-strict-joker", "polish-40"}


def _run(args, cwd: Path, env: dict[str, str], timeout: int = 300) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A virtualenv outside the repository with the wheel installed; (bin folder, venv, env)."""
    root = tmp_path_factory.mktemp("wheel")
    # Build from a copy of the package sources, so that no build/ or egg-info folder (nor a stale
    # module left in one) in the checkout can reach the wheel.
    source = root / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "rummisim", source / "rummisim", ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    wheels = root / "wheels"
    _run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--quiet", "-w", str(wheels)],
        cwd=root,
        env=os.environ.copy(),
    )
    (wheel,) = wheels.glob("rummisim-*.whl")

    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    # this environment's pip installs into the new venv; no index: the wheel alone, no dependency
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        cwd=root,
        env=env,
    )
    # then the dependencies: this environment's site-packages, after the venv's own (written after
    # the install, so that pip did not see this environment's rummisim as already installed)
    purelib = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root, env
        ).strip()
    )
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "_deps_from_test_env.pth").write_text("\n".join(sorted(ours)) + "\n")
    work = root / "elsewhere"
    work.mkdir()
    return bin_dir, env_dir, env, work


def test_the_installed_package_is_imported_not_the_checkout(installed):
    bin_dir, env_dir, env, work = installed
    out = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "import json, rummisim, rummisim.experiment as e, rummisim.profile as p; "
            "print(json.dumps([rummisim.__file__, str(p.BUILTIN_PROFILE_DIR), str(e.EXPERIMENT_DIR)]))",
        ],
        work,
        env,
    )
    paths = [Path(p).resolve() for p in json.loads(out.strip().splitlines()[-1])]
    for path in paths:
        assert env_dir.resolve() in path.parents, path
        assert REPO not in path.parents, path
    assert _run([str(bin_dir / "rummisim"), "--version"], work, env).startswith("rummisim ")


def test_the_wheel_lists_the_built_in_profiles(installed):
    bin_dir, _, env, work = installed
    out = _run([str(bin_dir / "rummisim"), "profiles", "list"], work, env)
    names = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert names >= PROFILES


def test_the_wheel_plays_a_polish_40_game(installed):
    bin_dir, _, env, work = installed
    out = _run(
        [str(bin_dir / "rummisim"), "play", "--profile", "polish-40", "--seed", "1", "--quiet"], work, env
    )
    assert "Final scores after" in out and "Winner: seat" in out


def test_the_wheel_runs_the_quickstart_by_name(installed):
    bin_dir, env_dir, env, work = installed
    out_dir = work / "qs"
    args = [str(bin_dir / "rummisim"), "run", "quickstart", "--games", "8", "--jobs", "1", "--quiet"]
    _run([*args, "--out", str(out_dir)], work, env, timeout=600)
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    source = Path(manifest["experiment"]["source"]).resolve()
    assert source.name == "quickstart.yaml" and env_dir.resolve() in source.parents
    games = pq.read_table(out_dir / "games.parquet")
    assert games.num_rows >= 2 * 8  # two cells of 8 games
    for name in ("summary.csv", "report.md"):
        assert (out_dir / name).stat().st_size > 0, name
