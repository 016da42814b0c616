"""Bring your own bot: ``package.module:ClassName`` and ``rummisim.bots`` entry-point bots in
``play_game``, ``rummisim play`` and experiments (also in worker processes), their parameters
checked like the built-in bots', bad specs as one line and exit 2, and a custom bot that raises
or cheats recorded as a fault.

The entry points come from a distribution made by hand: a folder with ``fixturebots-0.1.dist-info``
(``METADATA`` and ``entry_points.txt``) and the module, put on ``sys.path`` (``PYTHONPATH`` for
subprocesses), which ``importlib.metadata`` reads as if it were pip-installed. The example
package ``examples/my_bot`` is importable here through pytest's ``pythonpath``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from rummisim import experiment_from_dict, load_results, play_game
from rummisim.bots import BotError, loading, resolve_bot, validate_spec
from rummisim.cli import main
from rummisim.contract import Play
from rummisim.experiment import ExperimentError
from rummisim.melds import Meld
from rummisim.rules import IllegalMove
from rummisim.store import custom_bots
from rummisim.transcript import Transcript

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "my_bot"
MODULE = "rs_fixture_bots"  # a name no other test module uses (sys.modules is per process)
MY_BOT = "my_bot.bot:MinTilesBot"

BOTS_MODULE = '''
"""Custom bots for tests/test_custom_bots.py."""
from pydantic import Field

from rummisim.bots import Bot, BotParams
from rummisim.contract import Discard, Draw, Pass, Phase, Play
from rummisim.melds import Meld


class DrawerParams(BotParams):
    keep: int = Field(default=0, ge=0)


class Drawer(Bot):
    """Never plays unless the rules force it; discards its highest tile."""

    name = "drawer"
    Params = DrawerParams

    def act(self, view):
        if view.phase == Phase.DISCARD:
            return Discard(view.rack[-1])
        return Pass() if view.phase == Phase.AFTER_DRAW else self.draw_unless_forced(view)


class Raiser(Drawer):
    def act(self, view):
        raise RuntimeError("boom from a custom bot")


class Cheater(Drawer):
    """Plays its first rack tile onto the table as a set of one (illegal)."""

    def act(self, view):
        if view.phase == Phase.START:
            return Play(view.table, (view.rack[0],))  # the tile "played" is on no set
        return super().act(view)


class BadCode(Drawer):
    """Plays a tile code outside the tile set (a bot that computes its codes wrong)."""

    def act(self, view):
        if view.phase == Phase.START:
            return Play(view.table, (999,))
        return super().act(view)


class BadSet(Drawer):
    """Adds its first rack tile to a set of codes outside the tile set."""

    def act(self, view):
        if view.phase == Phase.START:
            tile = view.rack[0]
            return Play(view.table + (Meld((tile, 998, 999), (tile, 998, 999)),), (tile,))
        return super().act(view)


class WrongAction(Drawer):
    def act(self, view):
        return "draw" if view.phase == Phase.START else super().act(view)


class NoAct(Bot):
    pass


class PlainPlayer:
    def act(self, view):
        return Draw()


def helper():
    return None
'''

ENTRY_POINTS = f"""
[rummisim.bots]
fixture_drawer = {MODULE}:Drawer
fixture_missing = {MODULE}:NoSuchClass
fixture_plain = {MODULE}:PlainPlayer
"""


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory) -> Path:
    """A folder that ``importlib.metadata`` reads as an installed distribution with entry points."""
    root = tmp_path_factory.mktemp("plugins")
    (root / f"{MODULE}.py").write_text(BOTS_MODULE)
    info = root / "fixturebots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fixturebots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (info / "top_level.txt").write_text(f"{MODULE}\n")
    return root


@pytest.fixture
def plugins(plugin_dir, monkeypatch):
    """The fixture distribution on ``sys.path``, with the entry-point cache cleared around the test."""
    monkeypatch.syspath_prepend(str(plugin_dir))
    loading.clear_cache()
    yield plugin_dir
    loading.clear_cache()


def one_line_error(capsys, args) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("rummisim: error: ")
    return err


# ----- module:Class -------------------------------------------------------------------------


def test_a_class_path_bot_plays_in_play_game_in_every_spec_form(standard):
    text = play_game(standard, [f"{MY_BOT}(min_tiles=2)", "greedy", "greedy"], 3)
    mapping = play_game(standard, [{"name": MY_BOT, "params": {"min_tiles": 2}}, "greedy", "greedy"], 3)
    assert text == mapping
    assert text.bots == (f"{MY_BOT}(min_tiles=2)", "greedy", "greedy") and text.faults == ()
    # the default min_tiles (3) plays a different game on the same deal
    assert play_game(standard, [MY_BOT, "greedy", "greedy"], 3).bots[0] == MY_BOT
    # a spec is plain data: what a worker process receives is the name and the parameters
    spec = validate_spec(f"{MY_BOT}(min_tiles=2)")
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert spec.as_data() == {"name": MY_BOT, "params": {"min_tiles": 2}}


def test_a_class_path_bot_in_rummisim_play(capsys):
    assert main(["play", "--bots", f"{MY_BOT}(min_tiles=2),greedy", "--seed", "4", "--quiet"]) == 0
    assert "Winner: seat" in capsys.readouterr().out


def test_experiment_lineups_take_class_paths_and_keep_the_spec_as_given():
    spec = {
        "name": "custom",
        "seed": 1,
        "games": 3,
        "profiles": ["standard"],
        "lineups": [[f"{MY_BOT}(min_tiles=2)", "greedy"], [{"name": MY_BOT}, "greedy"]],
    }
    exp = experiment_from_dict(spec, "e.yaml")
    assert [cell.lineup[0] for cell in exp.cells] == [{"name": MY_BOT, "params": {"min_tiles": 2}}, MY_BOT]
    # the manifest's provenance: the class-path bot (once, whatever its parameters), not greedy
    assert list(custom_bots(exp)) == [MY_BOT]
    built_in = experiment_from_dict({**spec, "lineups": [["greedy", "conservative"]]}, "e.yaml")
    assert custom_bots(built_in) == {}  # rummisim's own bots: the package version and commit say


def test_a_sweep_key_names_a_class_path_bot_and_is_checked():
    spec = {
        "name": "custom-sweep",
        "seed": 1,
        "games": 2,
        "profiles": ["standard"],
        "lineups": [[MY_BOT, "greedy"]],
        "sweep": {f"{MY_BOT}.min_tiles": [1, 4]},
    }
    exp = experiment_from_dict(spec, "e.yaml")
    assert [cell.lineup[0] for cell in exp.cells] == [
        {"name": MY_BOT, "params": {"min_tiles": 1}},
        {"name": MY_BOT, "params": {"min_tiles": 4}},
    ]
    spec["sweep"] = {f"{MY_BOT}.min_tile": [1]}
    with pytest.raises(ExperimentError, match="has no parameter 'min_tile'"):
        experiment_from_dict(spec, "e.yaml")


# ----- entry points ----------------------------------------------------------------------------


def test_an_entry_point_bot_is_found_by_its_name(plugins, standard):
    drawer = resolve_bot("fixture_drawer")
    assert drawer.__module__ == MODULE and drawer.__name__ == "Drawer"
    assert resolve_bot(f"{MODULE}:Drawer") is drawer  # the same class by its path
    record = play_game(standard, ["fixture_drawer(keep=1)", "greedy"], 5)
    assert record.bots == ("fixture_drawer(keep=1)", "greedy") and record.winner == 1
    with pytest.raises(
        BotError, match=r"available: .*fixture_drawer \(entry point\).*package\.module:ClassName"
    ):
        resolve_bot("wizard")


def test_an_entry_point_found_after_the_first_lookup(plugin_dir, monkeypatch):
    loading.clear_cache()
    assert "fixture_drawer" not in loading.entry_point_names()  # read, and cached, without it
    monkeypatch.syspath_prepend(str(plugin_dir))
    try:
        assert resolve_bot("fixture_drawer").__name__ == "Drawer"  # a miss reads them again
    finally:
        loading.clear_cache()


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        (
            "fixture_missing",
            f"bot 'fixture_missing': its entry point '{MODULE}:NoSuchClass' cannot be loaded",
        ),
        ("fixture_plain", "class PlainPlayer has act(view) but does not subclass rummisim.bots.Bot"),
    ],
)
def test_a_broken_entry_point_is_one_clear_error(plugins, name, fragment):
    with pytest.raises(BotError) as info:
        validate_spec(name)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_two_distributions_declaring_one_name_are_refused(plugins, tmp_path, monkeypatch):
    other = tmp_path / "otherbots-0.1.dist-info"
    other.mkdir()
    (other / "METADATA").write_text("Metadata-Version: 2.1\nName: otherbots\nVersion: 0.1\n")
    (other / "entry_points.txt").write_text(f"[rummisim.bots]\nfixture_drawer = {MODULE}:Raiser\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    loading.clear_cache()
    with pytest.raises(BotError, match="entry points in group 'rummisim.bots' disagree"):
        resolve_bot("fixture_drawer")


# ----- parameters --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (
            f"{MY_BOT}(min_tile=2)",
            f"bot '{MY_BOT}': unknown parameter 'min_tile'; valid parameters: min_tiles",
        ),
        (f"{MY_BOT}(min_tiles=0)", f"bot '{MY_BOT}': parameter 'min_tiles': got 0;"),
        (
            {"name": MY_BOT, "params": {"min_tiles": "2"}},
            "parameter 'min_tiles': got '2'; Input should be a valid integer",
        ),
        ("fixture_drawer(keep=-1)", "bot 'fixture_drawer': parameter 'keep': got -1;"),
        (
            "fixture_drawer(speed=2)",
            "bot 'fixture_drawer': unknown parameter 'speed'; valid parameters: keep",
        ),
    ],
)
def test_custom_bot_parameters_are_checked_like_the_built_in_ones(plugins, spec, fragment):
    with pytest.raises(BotError) as info:
        validate_spec(spec)
    assert fragment in str(info.value)
    with pytest.raises(ExperimentError, match=r"e\.yaml: key 'lineups\[0\]\[0\]': bot "):
        experiment_from_dict(
            {"name": "x", "seed": 1, "games": 1, "profiles": ["standard"], "lineups": [[spec, "greedy"]]},
            "e.yaml",
        )


# ----- bad specs at the command line ------------------------------------------------------------


@pytest.mark.parametrize(
    ("bots", "fragment"),
    [
        (
            "no_such_pkg.bots:MyBot,greedy",
            "--bots: bot 'no_such_pkg.bots:MyBot': cannot import module 'no_such_pkg.bots' (ModuleNotFoundError",
        ),
        (
            f"{MODULE}:Nope,greedy",
            f"--bots: bot '{MODULE}:Nope': module '{MODULE}' has no attribute 'Nope'; bot classes there: BadCode, BadSet, Cheater, Drawer, Raiser, WrongAction",
        ),
        (
            f"{MODULE}:PlainPlayer,greedy",
            "class PlainPlayer has act(view) but does not subclass rummisim.bots.Bot; a custom bot is",
        ),
        (f"{MODULE}:NoAct,greedy", "class NoAct does not implement act(view)"),
        (f"{MODULE}:helper,greedy", f"bot '{MODULE}:helper' is a function, not a class"),
        ("my_bot.bot:,greedy", "bad bot spec 'my_bot.bot:': expected a bot name or package.module:ClassName"),
        ("no_such_bot,greedy", "unknown bot 'no_such_bot'; available: baseline, "),
    ],
)
def test_a_bad_custom_bot_spec_is_one_line_and_exit_2(plugins, capsys, bots, fragment):
    assert fragment in one_line_error(capsys, ["play", "--bots", bots, "--seed", "1"])


def test_a_bad_custom_bot_in_an_experiment_is_one_line_and_exit_2(plugins, capsys, tmp_path):
    exp = tmp_path / "exp.yaml"
    exp.write_text(
        "name: x\nseed: 1\ngames: 2\nprofiles: [standard]\nlineups:\n  - [no_such_pkg.bots:MyBot, greedy]\n"
    )
    err = one_line_error(capsys, ["run", str(exp), "--out", str(tmp_path / "out"), "--quiet"])
    assert "key 'lineups[0][0]': bot 'no_such_pkg.bots:MyBot': cannot import module" in err
    assert not (tmp_path / "out").exists()


def test_a_module_that_fails_to_import_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "rs_fixture_broken_bots.py").write_text("import no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    err = one_line_error(capsys, ["play", "--bots", "rs_fixture_broken_bots:Bot,greedy"])
    assert (
        "cannot import module 'rs_fixture_broken_bots' (ModuleNotFoundError: No module named 'no_such_dependency')"
        in err
    )


def test_a_module_that_exits_at_import_is_one_line_not_a_silent_exit(tmp_path, monkeypatch, capsys):
    (tmp_path / "rs_fixture_exit_bots.py").write_text("import sys\nsys.exit(0)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    err = one_line_error(capsys, ["play", "--bots", "rs_fixture_exit_bots:Bot,greedy"])
    assert "module 'rs_fixture_exit_bots' called sys.exit(0) while it was imported" in err


def test_a_bot_constructor_that_raises_is_one_line_in_play(tmp_path, monkeypatch, capsys):
    (tmp_path / "rs_fixture_ctor_bots.py").write_text(
        "from rummisim.bots import Bot\n\n\nclass Fussy(Bot):\n"
        "    def __init__(self, profile, rng, params):\n        raise ValueError('no table for me')\n\n"
        "    def act(self, view):\n        raise AssertionError\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    err = one_line_error(capsys, ["play", "--bots", "rs_fixture_ctor_bots:Fussy,greedy"])
    assert "its constructor raised ValueError: no table for me" in err


# ----- faults ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "rule", "message"),
    [
        ("Raiser", "bot_error", "RuntimeError: boom from a custom bot"),
        ("Cheater", None, ""),
        ("WrongAction", "wrong_action", "expected Play/Draw/Pass/OutOfBudget, got 'draw'"),
        ("BadCode", "wrong_action", "a play of tile codes outside the tile set (0..52): Play("),
        ("BadSet", "wrong_action", "a play of tile codes outside the tile set (0..52): Play("),
    ],
)
def test_a_custom_bot_that_raises_or_cheats_is_recorded_as_a_fault(plugins, standard, cls, rule, message):
    record = play_game(standard, [f"{MODULE}:{cls}", "greedy", "greedy"], 2)
    faults = [f for f in record.faults if f.seat == 0]
    assert faults and not [f for f in record.faults if f.seat != 0]
    assert record.winner != 0  # it drew instead every time
    assert all(f.rule == (rule or faults[0].rule) and message in f.message for f in faults)
    if rule is None:  # an illegal move names the rule it broke
        assert faults[0].rule not in ("bot_error", "wrong_action")
    with pytest.raises((IllegalMove, RuntimeError)):
        play_game(standard, [f"{MODULE}:{cls}", "greedy", "greedy"], 2, strict=True)


@pytest.mark.parametrize("cls", ["BadCode", "BadSet"])
def test_a_play_of_codes_outside_the_tile_set_is_logged_and_replayed(plugins, standard, cls, tmp_path):
    """The fault records no move (the log writes tiles in notation, which such codes have
    none of); the log replays."""
    log = tmp_path / "game.jsonl"
    assert main(["play", "--bots", f"{MODULE}:{cls},greedy", "--seed", "2", "--log", str(log)]) == 0
    assert '"rule":"wrong_action"' in log.read_text()
    assert main(["replay", str(log)]) == 0


# ----- worker processes --------------------------------------------------------------------------


def test_custom_bots_play_in_worker_processes(plugin_dir, tmp_path):
    # a subprocess, so that the loky workers start fresh and find the bots on PYTHONPATH only
    exp = tmp_path / "exp.yaml"
    exp.write_text(
        textwrap.dedent(
            f"""\
            name: custom-bots
            seed: 5
            games: 4
            profiles: [standard]
            lineups:
              - ["{MY_BOT}(min_tiles=2)", greedy]
              - [fixture_drawer, {{name: "{MY_BOT}", params: {{min_tiles: 4}}}}]
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(EXAMPLE)])}
    out = tmp_path / "out"
    args = ["run", str(exp), "--jobs", "2", "--chunk-size", "1", "--out", str(out), "--quiet", "--no-report"]
    result = subprocess.run(
        [sys.executable, "-m", "rummisim", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = load_results(out)
    games = data["games"]
    assert len(games) == 8 and games["end_reason"].ne("fault").all(), games["fault"].dropna().tolist()
    assert (games["faults"] == 0).all()
    labels = {f"{MY_BOT}(min_tiles=2)", "greedy", "fixture_drawer", f"{MY_BOT}(min_tiles=4)"}
    assert set(data["seats"]["bot_label"]) == labels
    manifest = json.loads((out / "manifest.json").read_text())
    lineups = [cell["lineup"] for cell in manifest["experiment"]["cells"]]
    assert lineups == [[f"{MY_BOT}(min_tiles=2)", "greedy"], ["fixture_drawer", f"{MY_BOT}(min_tiles=4)"]]
    assert manifest["spec"]["lineups"][0] == [f"{MY_BOT}(min_tiles=2)", "greedy"]  # as given
    # provenance of the bots that are not rummisim's own: class, source file and hash, distribution
    source = EXAMPLE / "my_bot" / "bot.py"
    assert manifest["custom_bots"] == {
        MY_BOT: {
            "class": "my_bot.bot.MinTilesBot",
            "file": str(source),
            "sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
            "distribution": None,  # found on PYTHONPATH, not installed
        },
        "fixture_drawer": {
            "class": f"{MODULE}.Drawer",
            "file": str(plugin_dir / f"{MODULE}.py"),
            "sha256": hashlib.sha256((plugin_dir / f"{MODULE}.py").read_bytes()).hexdigest(),
            "distribution": "fixturebots==0.1",
        },
    }


SESSION_SCRIPT = '''
"""A bot class defined in a script (``__main__``) and registered there, run with two jobs."""
import sys

from rummisim import experiment_from_dict, run_experiment
from rummisim.bots import Bot, register
from rummisim.contract import Discard, Pass, Phase


class SessionDrawer(Bot):
    """Never plays unless the rules force it."""

    name = "session_drawer"

    def act(self, view):
        if view.phase == Phase.DISCARD:
            return Discard(view.rack[-1])
        return Pass() if view.phase == Phase.AFTER_DRAW else self.draw_unless_forced(view)


register(SessionDrawer)

if __name__ == "__main__":
    exp = experiment_from_dict(
        {"name": "session", "seed": 3, "games": 4, "profiles": ["standard"],
         "lineups": [["session_drawer", "greedy"], ["greedy", "session_drawer", "baseline"]]}
    )
    result = run_experiment(exp, sys.argv[1], jobs=2, chunk_size=1, progress=False, summarize=False)
    print(result.faults)
'''


def test_a_bot_registered_in_the_session_plays_in_worker_processes(tmp_path):
    # a script in a subprocess, so the loky workers start fresh: they know the bot only from
    # the chunks, which carry the parent's registration (the class pickled by value: __main__)
    script = tmp_path / "session.py"
    script.write_text(SESSION_SCRIPT)
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0"]  # no game with a fault
    data = load_results(out)
    assert json.loads((out / "manifest.json").read_text())["workers"] == 2
    games, seats = data["games"], data["seats"]
    assert set(games["cell"]) == {0, 1} and games["end_reason"].ne("fault").all()
    drawer = seats[seats["bot"] == "session_drawer"]
    assert len(drawer) == len(games)  # one seat a game
    assert drawer["won"].sum() == 0 and (drawer["tiles_left"] >= 14).all()  # it never plays


# ----- what a bot returns or touches cannot change the game behind the engine's back -------------


class _ShiftyPlay(Play):
    """A play whose ``played`` changes after its first read: first a legal play, then every tile
    of the rack (a bot hoping the engine checks one move and applies another)."""

    def __init__(self, honest: Play, rack: tuple[int, ...]):
        object.__setattr__(self, "reads", 0)
        object.__setattr__(self, "_honest", honest)
        object.__setattr__(self, "_rack", rack)

    def __getattribute__(self, name):
        if name == "played":
            reads = object.__getattribute__(self, "reads")
            object.__setattr__(self, "reads", reads + 1)
            honest = object.__getattribute__(self, "_honest")
            return honest.played if reads == 0 else object.__getattribute__(self, "_rack")
        if name == "table":
            return object.__getattribute__(self, "_honest").table
        return object.__getattribute__(self, name)


class _Tamperer:
    """Plays honestly (greedy), then tries to change what it was shown (the table's sets, its
    profile's joker penalty and threshold) and returns a play whose ``played`` shifts between
    reads."""

    name = "tamperer"

    def __init__(self, profile, rng):
        from rummisim.bots import make_bot

        self.inner = make_bot("greedy", profile, rng)
        self.profile = profile

    def act(self, view):
        action = self.inner.act(view)
        if isinstance(action, Play):  # (its own answer kept apart from what it then empties)
            action = Play(tuple(Meld(m.tiles, m.faces) for m in action.table), action.played)
        for meld in view.table:  # (after its search: what it was shown, emptied)
            object.__setattr__(meld, "tiles", ())
            object.__setattr__(meld, "faces", ())
        object.__setattr__(view.profile.jokers, "penalty", 0)
        object.__setattr__(view.profile.initial_meld, "threshold", 0)
        if isinstance(action, Play):
            return _ShiftyPlay(action, tuple(view.rack))
        return action


def _tamperer_factory():
    def build(profile, rng):
        return _Tamperer(profile, rng)

    build.label = "tamperer"  # type: ignore[attr-defined]
    return build


def test_what_a_bot_touches_or_returns_cannot_change_the_game(standard):
    """The engine reads a play once into its own types (the shifting ``played`` cannot dump the
    rack), shows each bot a copy of the table (``object.__setattr__`` on a shown set changes
    nothing on the engine's table) and its own copy of the rules (a bot that zeroes the joker
    penalty or the threshold in its copy changes neither the scoring nor another seat's rules)."""
    full = Counter(standard.tileset.all_tiles())
    seen_profiles = []

    def observe(state, seat):
        assert Counter(state.all_tiles()) == full
        assert all(len(m.tiles) >= 3 for m in state.table)

    class Watcher:
        name = "watcher"

        def __init__(self, inner):
            self.inner = inner

        def act(self, view):
            seen_profiles.append((view.profile.jokers.penalty, view.profile.initial_meld.threshold))
            return self.inner.act(view)

    from rummisim.bots import make_bot

    for seed in range(3):
        watcher = Watcher(make_bot("greedy", standard, np.random.default_rng(seed)))
        seats = [_tamperer_factory(), watcher, "greedy"]
        record = play_game(standard, seats, seed, events=Transcript(standard, on_position=observe))
        # its plays were applied as read once; the only faults are its own openings below 30,
        # searched under the threshold it zeroed in its own copy: the engine's rules held
        assert {(f.seat, f.rule) for f in record.faults} <= {(0, "opening_below_threshold")}
    assert seen_profiles and set(seen_profiles) == {(30, 30)}
    assert standard.jokers.penalty == 30 and standard.initial_meld.threshold == 30


def test_a_bots_generator_tells_nothing_about_the_deal(standard):
    """A bot once re-dealt the whole game from ``self.rng.bit_generator.seed_seq`` (the game's
    entropy and its spawn key). Its stream is now derived one way: no spawn key, no entropy of
    the game's, and the streams rebuilt from what it holds deal other racks."""
    from rummisim.engine import game_streams, round_deals

    seen = []

    class Spy:
        name = "spy"

        def __init__(self, profile, rng):
            seen.append(rng.bit_generator.seed_seq)
            self.inner = validate_spec("greedy")(profile, rng)

        def act(self, view):
            return self.inner.act(view)

    def spy(profile, rng):
        return Spy(profile, rng)

    spy.label = "spy"  # type: ignore[attr-defined]
    seed = 12345
    record = play_game(standard, [spy, "greedy"], seed, events=[].append)
    assert record.rounds
    deal_seed, seat_seed, _ = game_streams(seed, 2)
    real = next(round_deals(standard, 2, deal_seed, seat_seed))[1].racks
    (seq,) = seen
    assert seq.spawn_key == () and seed not in np.atleast_1d(seq.entropy).tolist()
    for guess in (np.random.SeedSequence(seq.entropy), seq):
        d, s, _ = game_streams(guess, 2)
        assert next(round_deals(standard, 2, d, s))[1].racks != real
