"""Bad input to the runner, the results folder and the report: one line on stderr naming the
flag or file and what is allowed, exit 2, no traceback, nothing left behind; a damaged folder is
detected, and a resume that replays what was damaged equals an uninterrupted run."""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path

import pytest
import yaml

import rummisim.runner as runner
import rummisim.runner.run as runner_run
import rummisim.store as store
from rummisim import plots
from rummisim.cli import main
from rummisim.experiment import ExperimentError, experiment_from_dict
from rummisim.report import _pp, _table
from rummisim.runner import CHUNK_RECORD, TABLES, run_experiment

SPEC = {
    "name": "robust",
    "seed": 5,
    "games": 6,
    "profiles": [
        "standard",
        {"base": "standard", "name": "standard-40", "overrides": {"initial_meld": {"threshold": 40}}},
    ],
    "lineups": [["baseline", "random", "baseline"]],
}
CHUNK = 2  # 2 cells x 6 games in chunks of 2: 6 chunks


def experiment(**changes):
    return experiment_from_dict({**SPEC, **changes}, "robust.yaml")


def run(out, **kwargs):
    kwargs.setdefault("summarize", False)
    kwargs.setdefault("chunk_size", CHUNK)
    return run_experiment(experiment(), out, jobs=1, progress=False, **kwargs)


def tables(out: Path) -> dict[str, bytes]:
    return {name: (out / f"{name}.parquet").read_bytes() for name in TABLES}


def leftovers(out: Path) -> list[str]:
    """Temp files and folders anywhere in a results folder."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if ".tmp" in p.name)


def one_line(capsys, args, code=2) -> str:
    capsys.readouterr()
    assert main(args) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """A finished run (no report), never modified: copy it before damaging it."""
    out = tmp_path_factory.mktemp("reference") / "run"
    run(out)
    return out


@pytest.fixture
def finished(reference, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    return out


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "robust.yaml"
    path.write_text(yaml.safe_dump(SPEC))
    return path


def cli(spec_path, out, *extra) -> list[str]:
    return ["run", str(spec_path), "--out", str(out), "--jobs", "1", "--quiet", "--no-report", *extra]


# ----- --out ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["file", "device", "under a file", "dangling link"])
def test_an_out_that_cannot_be_a_folder_is_one_line(tmp_path, spec_path, capsys, kind):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    out = {
        "file": afile,
        "device": Path(os.devnull),
        "under a file": afile / "sub",
        "dangling link": tmp_path / "link",
    }[kind]
    if kind == "dangling link":
        out.symlink_to(tmp_path / "nowhere")
    err = one_line(capsys, cli(spec_path, out))
    assert "--out: " in err and "not a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["afile", *(["link"] if kind == "dangling link" else [])]
    )
    assert afile.read_text() == "mine"


def test_an_out_in_a_read_only_folder_is_one_line(tmp_path, spec_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user (root) may write in a read-only folder")
        err = one_line(capsys, cli(spec_path, locked / "out"))
        assert "--out: cannot write in" in err and str(locked) in err
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


def test_a_folder_that_cannot_be_created_is_one_line(tmp_path, spec_path, capsys, monkeypatch):
    # root may write anywhere, so the system's refusal (a read-only mount, say) is stood in for
    real_mkdir = Path.mkdir

    def refuse(self, *args, **kwargs):
        if self.name == "out":
            raise PermissionError(13, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refuse)
    err = one_line(capsys, cli(spec_path, tmp_path / "out"))
    assert "--out: cannot create" in err and "Permission denied" in err
    assert not (tmp_path / "out").exists()


# ----- --jobs, --chunk-size, --backend, --games --------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (["--chunk-size", "0"], "--chunk-size: expected a whole number of games 1..10000, got 0"),
        (["--chunk-size", "-3"], "--chunk-size: expected a whole number of games 1..10000"),
        (["--chunk-size", "10001"], "--chunk-size: expected a whole number of games 1..10000, got 10001"),
        (["--jobs", "0"], "--jobs: expected a whole number of workers >= 1, got 0"),
        (["--jobs", "-2"], "--jobs: expected a whole number of workers >= 1, got -2"),
        (["--scheduler", "tcp://localhost:8786"], "--scheduler: only used with --backend dask"),
        (["--games", "2000000", "--chunk-size", "1"], "over the limit of 1000000"),
        (["--games", "100000000000"], "--games: expected 1..10000000 games per cell"),
    ],
)
def test_bad_run_flags_are_one_line_and_write_nothing(tmp_path, spec_path, capsys, flags, fragment):
    args = ["run", str(spec_path), "--out", str(tmp_path / "out"), "--quiet", "--no-report"]
    if "--jobs" not in flags:
        args += ["--jobs", "1"]
    err = one_line(capsys, [*args, *flags])
    assert fragment in err
    assert not (tmp_path / "out").exists()


def test_chunk_size_is_checked_by_the_api_too(tmp_path):
    for bad in (0, -1, 10_001, 2.5, True):
        with pytest.raises(ExperimentError, match="--chunk-size"):
            run(tmp_path / "x", chunk_size=bad)
    with pytest.raises(ExperimentError, match="--jobs"):
        run_experiment(experiment(), tmp_path / "x", jobs=0, progress=False)
    assert not (tmp_path / "x").exists()


def test_workers_are_capped_at_the_chunks_to_play_with_a_warning(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    spec = tmp_path / "one.yaml"
    spec.write_text(yaml.safe_dump({**SPEC, "profiles": ["standard"], "games": 3}))
    out = tmp_path / "out"
    assert main(["run", str(spec), "--out", str(out), "--jobs", "1000", "--quiet", "--no-report"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("rummisim: warning: --jobs 1000 is more than the 1 CPU core(s)")
    assert "1 chunk(s) to play on 1 worker(s)" in err[1]
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["jobs"], manifest["workers"]) == (1000, 1)
    # the API caps the same way: at most one worker per chunk to play
    result = run_experiment(experiment(), tmp_path / "api", jobs=1000, chunk_size=6, progress=False)
    assert result.workers == 2


def test_dask_backend_without_dask_leaves_nothing_and_the_retry_runs(
    tmp_path, spec_path, capsys, monkeypatch
):
    out = tmp_path / "out"
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "dask", None)
        m.setitem(sys.modules, "dask.distributed", None)
        err = one_line(capsys, cli(spec_path, out, "--backend", "dask"))
    assert "--backend dask needs dask.distributed: pip install 'rummisim[dask]'" in err
    assert not out.exists()
    assert main(cli(spec_path, out)) == 0


def test_a_failure_before_the_first_chunk_leaves_nothing(tmp_path, monkeypatch):
    def broken(chunk, schema, registered):
        raise RuntimeError("no games today")

    monkeypatch.setattr(runner_run, "play_registered", broken)
    with pytest.raises(RuntimeError):
        run(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(RuntimeError):
        run(tmp_path / "empty")
    assert list((tmp_path / "empty").iterdir()) == []

    def interrupt(chunk, schema, registered):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner_run, "play_registered", interrupt)
    result = run(tmp_path / "c")
    assert result.interrupted and result.removed and not (tmp_path / "c").exists()


# ----- damaged chunks and --resume ------------------------------------------------------------------


def chunk_dirs(out: Path) -> list[Path]:
    return sorted((out / "chunks").iterdir())


def test_each_chunk_records_its_rows_and_checksums(reference):
    for folder in chunk_dirs(reference):
        record = json.loads((folder / CHUNK_RECORD).read_text())
        assert record["games"] == CHUNK
        assert record["files"]["matches.parquet"]["rows"] == CHUNK
        assert set(record["files"]) == {f"{n}.parquet" for n in TABLES}
        assert runner.chunk_problem(folder, CHUNK) is None


@pytest.mark.parametrize(
    "damage",
    [
        "truncate",
        "delete a table",
        "flip a byte",
        "delete the record",
        "garble the record",
        "delete the chunk",
        "empty the chunk",
    ],
)
def test_resume_replays_a_damaged_chunk_and_equals_an_uninterrupted_run(reference, finished, damage):
    folder = chunk_dirs(finished)[3]
    seats = folder / "seats.parquet"
    if damage == "truncate":
        seats.write_bytes(seats.read_bytes()[:100])
    elif damage == "delete a table":
        seats.unlink()
    elif damage == "flip a byte":
        data = bytearray(seats.read_bytes())
        data[len(data) // 2] ^= 0xFF
        seats.write_bytes(bytes(data))
    elif damage == "delete the record":  # a chunk from before the records: checked by footers and rows
        (folder / CHUNK_RECORD).unlink()
        seats.write_bytes(seats.read_bytes()[:-20])
    elif damage == "garble the record":
        (folder / CHUNK_RECORD).write_text("{not json")
    elif damage == "delete the chunk":
        shutil.rmtree(folder)
    else:
        for f in folder.iterdir():
            f.unlink()
    for name in TABLES:
        (finished / f"{name}.parquet").unlink()
    result = run(finished, resume=True)
    assert result.games_played == CHUNK
    assert len(result.replayed) == (0 if damage == "delete the chunk" else 1)
    assert tables(finished) == tables(reference)
    assert json.loads((finished / "manifest.json").read_text())["status"] == "complete"
    assert leftovers(finished) == []


def test_an_intact_chunk_from_before_the_records_is_kept(finished):
    for folder in chunk_dirs(finished):
        (folder / CHUNK_RECORD).unlink()
    result = run(finished, resume=True)
    assert result.games_played == 0 and result.replayed == ()


def test_resume_says_which_chunk_it_replayed(finished, spec_path, capsys):
    # the CLI run needs the spec at the path the reference was planned with
    out = finished.parent / "cli"
    assert main(cli(spec_path, out, "--chunk-size", str(CHUNK))) == 0
    seats = chunk_dirs(out)[0] / "seats.parquet"
    seats.write_bytes(seats.read_bytes()[:50])
    capsys.readouterr()
    assert main(cli(spec_path, out, "--resume")) == 0
    err = capsys.readouterr().err
    assert (
        "resume: 1 damaged chunk(s) played again (first: c0000-g00000000-00000002: seats.parquet has 50 bytes"
        in err
    )
    assert tables(out) == tables(finished)


def test_a_failed_resume_of_a_complete_run_keeps_it_complete(finished, monkeypatch):
    before = (finished / "manifest.json").read_text()
    seats = chunk_dirs(finished)[0] / "seats.parquet"
    seats.write_bytes(b"")

    def broken(chunk, schema, registered):
        raise RuntimeError("worker trouble")

    monkeypatch.setattr(runner_run, "play_registered", broken)
    with pytest.raises(RuntimeError):
        run(finished, resume=True)
    assert json.loads((finished / "manifest.json").read_text())["status"] == "complete"
    assert json.loads(before)["status"] == "complete"
    assert leftovers(finished) == []


def test_ctrl_c_while_merging_leaves_no_temp_file_and_resumes(reference, finished, monkeypatch):
    for name in TABLES:
        (finished / f"{name}.parquet").unlink()
    real = store._merge_table
    calls = []

    def interrupt_second(out, name, *args):
        calls.append(name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(out, name, *args)

    monkeypatch.setattr(store, "_merge_table", interrupt_second)
    result = run(finished, resume=True)
    assert result.interrupted and not result.removed
    assert json.loads((finished / "manifest.json").read_text())["status"] == "interrupted"
    assert leftovers(finished) == []
    monkeypatch.setattr(store, "_merge_table", real)
    run(finished, resume=True)
    assert tables(finished) == tables(reference)


# ----- the manifest ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"status": "comp', "not valid JSON"),
        ("", "not valid JSON"),
        ("[1, 2]", "expected a JSON object, got a list"),
        ("{}", "status is missing"),
        ('{"status": "complete"}', "missing or mistyped: experiment, plan"),
        ('{"status": "done"}', "status is 'done'"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_a_damaged_manifest_is_one_line_for_report_and_resume(finished, spec_path, capsys, text, fragment):
    path = finished / "manifest.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    before = path.read_bytes()
    for args in (["report", str(finished)], cli(spec_path, finished, "--resume")):
        err = one_line(capsys, args)
        assert f"{path}: damaged manifest (" in err and fragment in err
    assert path.read_bytes() == before
    assert not (finished / "report.md").exists()
    assert leftovers(finished) == []


def test_a_missing_manifest_is_reported_from_the_tables(finished, capsys):
    (finished / "manifest.json").unlink()
    assert main(["report", str(finished)]) == 0
    text = (finished / "report.md").read_text()
    assert "manifest.json was missing" in text and "Reproduce" not in text
    assert "| 1 | standard-40 |" in text
    assert (finished / "summary.csv").exists()
    (finished / "games.parquet").unlink()
    err = one_line(capsys, ["report", str(finished)])
    assert "no manifest.json and no games.parquet" in err


def test_a_damaged_table_is_one_line_and_resume_rebuilds_it(reference, finished, spec_path, capsys):
    games = finished / "games.parquet"
    games.write_bytes(games.read_bytes()[: len(games.read_bytes()) // 2])
    err = one_line(capsys, ["report", str(finished)])
    assert f"{games}: damaged (" in err and "--resume" in err
    run(finished, resume=True)
    assert tables(finished) == tables(reference)


def test_report_on_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert "not a folder" in one_line(capsys, ["report", str(tmp_path / "afile")])


# ----- the report -----------------------------------------------------------------------------------


def test_ctrl_c_while_reporting_is_one_line_and_keeps_the_old_report(finished, capsys, monkeypatch):
    assert main(["report", str(finished)]) == 0
    before = (finished / "report.md").read_bytes()
    charts = {p.name: p.read_bytes() for p in (finished / "charts").iterdir()}
    real = plots.save
    calls = []

    def interrupt_second(fig, path, **kwargs):
        calls.append(path)
        if len(calls) == 2:
            Path(path).write_bytes(b"half a png")
            raise KeyboardInterrupt
        return real(fig, path, **kwargs)

    monkeypatch.setattr(plots, "save", interrupt_second)
    err = one_line(capsys, ["report", str(finished)], code=130)
    assert "interrupted" in err and f"rummisim report {finished}" in err
    assert (finished / "report.md").read_bytes() == before
    assert {p.name: p.read_bytes() for p in (finished / "charts").iterdir()} == charts
    assert leftovers(finished) == []


def test_ctrl_c_in_the_report_phase_of_a_run(tmp_path, spec_path, capsys, monkeypatch):
    def interrupt(out):
        raise KeyboardInterrupt

    monkeypatch.setattr("rummisim.report.write_report", interrupt)
    args = [a for a in cli(spec_path, tmp_path / "out") if a != "--no-report"]
    assert main(args) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err)
    assert err[-1].startswith("rummisim: interrupted: the results in ") and "rummisim report" in err[-1]


def test_percentage_points_are_signed_numbers_clipped_to_100():
    assert _pp(0.029, 0.016, 0.043) == "+2.9 [1.6, 4.3]"
    assert _pp(-0.5, -6.8, 5.9) == "-50.0 [-100.0, 100.0]"
    assert _pp(float("nan"), 0, 0) == "–"


def test_table_cells_cannot_break_the_markdown_table():
    text = _table([{"a|b": "x|y\nz", "c": "back\\", "d": "line\r\nbreak\u2028here"}])
    head, rule, row = text.strip().split("\n")
    assert head == "| a\\|b | c | d |"
    assert row == "| x\\|y z | back\\\\ | line break here |"


def test_report_pp_columns_names_and_reproduce_line(tmp_path, spec_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    odd = {**SPEC, "games": 3, "profiles": ["standard", {**SPEC["profiles"][1], "name": "pipe|and\nnewline"}]}
    odd_spec = tmp_path / "odd.yaml"
    odd_spec.write_text(yaml.safe_dump(odd))
    assert main(["run", str(odd_spec), "--out", "elsewhere", "--jobs", "1", "--quiet"]) == 0
    text = (tmp_path / "elsewhere" / "report.md").read_text()
    assert f"- Reproduce: `rummisim run {odd_spec} --seed 5 --games 3 --out elsewhere`" in text
    assert "| 1 | pipe\\|and newline |" in text
    for table in text.split("\n\n"):
        lines = [line for line in table.splitlines() if line.startswith("| ")]
        if len(lines) < 3:
            continue
        head = [h.strip() for h in lines[0].strip("|").split(" | ")]
        for line in lines[2:]:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            assert len(cells) == len(head), line  # no cell broke the table
            for h, cell in zip(head, cells, strict=True):
                if "(pp)" in h and cell != "–":
                    assert "%" not in cell and cell[0] in "+-", (h, cell)
                    low, high = (float(x) for x in cell.split("[")[1].rstrip("]").split(", "))
                    assert -100 <= low <= high <= 100
    # the default folder is left out of the command
    assert main(["run", str(odd_spec), "--jobs", "1", "--quiet"]) == 0
    text = (tmp_path / "results" / "robust" / "report.md").read_text()
    assert f"- Reproduce: `rummisim run {odd_spec} --seed 5 --games 3`" in text


# ----- fuzz: a finished folder damaged in seeded ways ----------------------------------------------------


def damage(out: Path, rng: random.Random) -> str:
    kinds = {
        "chunk": [p for p in (out / "chunks").rglob("*") if p.is_file()],
        "table": [out / f"{name}.parquet" for name in TABLES],
        "manifest": [out / "manifest.json"],
        "profile": list((out / "profiles").iterdir()),
    }
    targets = [p for p in rng.choice(list(kinds.values())) if p.exists()] or [out / "manifest.json"]
    target = rng.choice(targets)
    how = rng.choice(["truncate", "delete", "garble", "empty"])
    data = target.read_bytes()
    if how == "truncate":
        target.write_bytes(data[: rng.randrange(max(1, len(data)))])
    elif how == "delete":
        target.unlink()
    elif how == "garble":
        pos = rng.randrange(max(1, len(data)))
        target.write_bytes(data[:pos] + bytes(rng.randrange(256) for _ in range(8)) + data[pos + 8 :])
    else:
        target.write_bytes(b"")
    return f"{how} {target.relative_to(out)}"


@pytest.mark.parametrize("seed", range(12))
def test_a_damaged_results_folder_is_one_line_or_resumes_to_the_same_tables(
    reference, finished, capsys, monkeypatch, seed
):
    monkeypatch.setattr("rummisim.report.charts", lambda *args: [])  # the charts are tested elsewhere
    rng = random.Random(seed)
    what = [damage(finished, rng) for _ in range(rng.choice([1, 2]))]
    code = main(["report", str(finished)])
    err = capsys.readouterr().err
    assert code in (0, 2) and "Traceback" not in err, what
    if code == 2:
        assert len(err.strip().splitlines()) == 1, (what, err)
    try:
        result = run(finished, resume=True)
    except ExperimentError as exc:  # a damaged manifest: one line, and the folder is left as it was
        assert "manifest" in str(exc) and "\n" not in str(exc), (what, exc)
        return
    assert not result.interrupted
    assert tables(finished) == tables(reference), what
    assert leftovers(finished) == [], what
    for profile in (reference / "profiles").iterdir():  # a damaged replay profile is rewritten
        assert (finished / "profiles" / profile.name).read_bytes() == profile.read_bytes(), what


def _children(pid: int) -> list[int]:
    """The live (not zombie) child processes of ``pid``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if fields.get("PPid", "").strip() == str(pid) and not fields.get("State", "").startswith("Z"):
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return not (Path("/proc") / str(pid) / "status").read_text().split("State:\t", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the process table in /proc")
def test_killing_the_run_leaves_no_worker_alive(tmp_path):
    """SIGKILL on the main ``rummisim run`` (which cannot stop its loky workers then): each worker
    sees it is orphaned and exits within a second or two instead of playing on."""
    import signal
    import subprocess
    import time

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "rummisim", "run", "variants", "--jobs", "2", "--out", str(out), "--quiet"]
    main_process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (out / "chunks").exists():
            time.sleep(0.2)
        while time.monotonic() < deadline and len(workers) < 2:
            workers = _children(main_process.pid)
            time.sleep(0.2)
        assert workers, "the run started no worker"
        main_process.send_signal(signal.SIGKILL)
        main_process.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not [w for w in workers if _alive(w)]
    finally:
        if main_process.poll() is None:
            main_process.kill()


def test_a_folder_being_written_is_locked(tmp_path, spec_path, capsys):
    """While a run holds the folder's lock, a second ``--resume`` (or ``run``) into it is refused
    in one line and touches nothing; the lock goes with the process that held it."""
    from rummisim.store import LOCK_FILE, hold_lock

    finished = tmp_path / "run"
    assert main(cli(spec_path, finished)) == 0
    before = {p.name: p.stat().st_mtime_ns for p in finished.iterdir()}
    with hold_lock(finished):
        err = one_line(capsys, cli(spec_path, finished, "--resume"))
        assert f"{finished} is being written by another run (pid {os.getpid()}" in err
        assert {p.name: p.stat().st_mtime_ns for p in finished.iterdir()} == before | {
            LOCK_FILE: (finished / LOCK_FILE).stat().st_mtime_ns
        }
    assert main(cli(spec_path, finished, "--resume")) == 0  # released: the resume runs
    assert (finished / LOCK_FILE).exists()  # (the file stays; only a held lock refuses)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / LOCK_FILE).write_text("pid 1\n")  # a stale lock file left by a killed run
    assert main(cli(spec_path, fresh)) == 0  # neither "not empty" nor locked


# ----- results cannot be mixed --------------------------------------------------------------------


def test_every_chunk_and_table_records_its_run(finished):
    import pyarrow.parquet as pq

    from rummisim.store import RUN_METADATA

    manifest = json.loads((finished / "manifest.json").read_text())
    run_id = manifest["run"]
    assert set(run_id) == {"experiment", "seed"} and run_id["seed"] == SPEC["seed"]
    records = [json.loads(p.read_text()) for p in sorted((finished / "chunks").glob(f"*/{CHUNK_RECORD}"))]
    assert len(records) == 6
    assert {(r["run"]["cell"], tuple(r["run"]["games"])) for r in records} == {
        (cell, (start, start + CHUNK)) for cell in (0, 1) for start in range(0, 6, CHUNK)
    }
    assert all(r["run"]["experiment"] == run_id["experiment"] for r in records)
    for name in TABLES:
        assert json.loads(pq.read_schema(finished / f"{name}.parquet").metadata[RUN_METADATA]) == run_id


def test_resume_refuses_a_chunk_of_another_run(finished, tmp_path, capsys):
    """A chunk copied in from a run with another seed (same chunk name) is refused, naming its
    chunk.json, not merged nor silently played over."""
    other = tmp_path / "other"
    run_experiment(experiment(seed=6), other, jobs=1, progress=False, chunk_size=CHUNK, summarize=False)
    name = sorted(p.name for p in (finished / "chunks").iterdir())[2]
    shutil.rmtree(finished / "chunks" / name)
    shutil.copytree(other / "chunks" / name, finished / "chunks" / name)
    with pytest.raises(ExperimentError) as info:
        run(finished, resume=True)
    message = str(info.value)
    assert f"{finished / 'chunks' / name / CHUNK_RECORD}: this chunk belongs to another run" in message
    assert "seed 6" in message and "seed 5" in message and "\n" not in message


def test_report_refuses_a_table_of_another_run(finished, tmp_path, capsys):
    other = tmp_path / "other"
    run_experiment(experiment(seed=6), other, jobs=1, progress=False, chunk_size=CHUNK, summarize=False)
    shutil.copy(other / "seats.parquet", finished / "seats.parquet")
    err = one_line(capsys, ["report", str(finished)])
    assert f"{finished / 'seats.parquet'}: this table belongs to another run" in err


@pytest.mark.parametrize(
    ("change", "fragment"),
    [("drop", "column 'score' is missing"), ("retype", "column 'score' is string, declared int32")],
)
def test_report_names_a_dropped_or_retyped_column(finished, capsys, change, fragment):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = finished / "seats.parquet"
    table = pq.read_table(path)
    if change == "drop":
        table = table.drop_columns(["score"])
    else:
        at = table.schema.get_field_index("score")
        table = table.set_column(at, "score", pa.array([str(v) for v in table.column("score").to_pylist()]))
    pq.write_table(table, path)
    err = one_line(capsys, ["report", str(finished)])
    assert f"{path}: {fragment}" in err
