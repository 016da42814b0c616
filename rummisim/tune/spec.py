"""Tune files: what a study searches, validated as strictly as experiments, resolved into a ``Tune``.

A tune file names a search space over one bot's parameters (a *bot study*) or over profile keys
(a *rule study*), the games every trial plays, the objective, and Optuna's sampler and pruner::

    name: conservative
    seed: 2027
    profile: standard            # as in an experiment: a name, a path, or {base, name, overrides}
    bot: conservative            # bot study: the tuned bot (a spec; its params stay fixed unless tuned)
    opponents: [conservative, conservative, conservative]
    space:                       # BOT.PARAM for a bot study, a profile key path for a rule study
      conservative.min_play: {int: [1, 5]}
      conservative.open_margin: {int: [0, 30], step: 5}
      conservative.keep_jokers: {choices: [true, false]}
      # also {float: [0.1, 10], log: true}
    objective: win_rate          # bot study: win_rate or mean_score of the tuned seat (maximised)
    games: 240                   # per trial (rounded up to whole seat rotations)
    batches: 4                   # the objective is reported after each batch; the pruner reads it
    trials: 30                   # finished trials the study runs to (--trials overrides)
    sampler: tpe                 # tpe | cmaes | random | grid, or {name: tpe, startup_trials: 8}
    pruner: median               # median | percentile | none, or {name: percentile, percentile: 25,
                                 #   startup_trials: 5, warmup_batches: 1}
    validation_games: 960        # the best against the default on fresh deals (default 4 x games)

A rule study names ``lineup:`` (a bot spec per seat) instead of ``bot:`` and ``opponents:``, profile
key paths in ``space:`` (``initial_meld.threshold: {int: [20, 50], step: 5}``), and the objective
``{name: fair_first_seat, target_turns: 30, weight: 1.0}`` (minimised; see ``evaluate``).

Every problem is one ``TuneError`` line naming the file, the key and what is allowed: an unknown
key, a range that is not ``[low, high]``, a bot parameter the bot does not have or a value it
refuses (checked at both ends of a range and at every choice, through the bot registry), a key
path the profile model does not have or a value it refuses, an objective of the other kind of
study. The only I/O is reading the tune file and the profiles it names.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import Field, ValidationError

from rummisim.bots import BotError, bot_label, parse_spec, resolve_bot, validate_spec
from rummisim.experiment import (
    BotEntry,
    Experiment,
    ExperimentError,
    ProfileEntry,
    _profile_data,
    experiment_from_dict,
    read_config,
)
from rummisim.profile import (
    ProfileError,
    RuleProfile,
    _merge,
    package_configs,
    profile_from_dict,
)
from rummisim.validation import StrictModel, error_line, excerpt

if TYPE_CHECKING:
    import optuna

TUNE_DIR = package_configs("tune")

MAX_TRIAL_GAMES = 1_000_000
MAX_TRIALS = 100_000
MAX_GRID = 100_000  # points of a grid sampler's grid
MAX_CORNERS = 256  # combinations of range ends checked together in a rule study
OBJECTIVES = {"bot": ("win_rate", "mean_score"), "rules": ("fair_first_seat",)}
SAMPLERS = ("tpe", "cmaes", "random", "grid")
PRUNERS = ("median", "percentile", "none")
RANGE_KEYS = ("int", "float", "choices", "log", "step")
VALIDATION_STREAM = 0x7A11D  # spawn key of the validation run's root seed: deals never tuned on


class TuneError(ExperimentError):
    """A bad tune file or option, reported as one line (the CLI exits 2)."""


class _Strict(StrictModel):
    """A tune file's model (strict: see ``rummisim.validation``)."""


class ObjectiveEntry(_Strict):
    name: str
    target_turns: float | None = Field(default=None, gt=0)
    weight: float = Field(default=1.0, ge=0)


class SamplerEntry(_Strict):
    name: str
    startup_trials: int | None = Field(default=None, ge=0, le=MAX_TRIALS)


class PrunerEntry(_Strict):
    name: str
    startup_trials: int = Field(default=5, ge=0, le=MAX_TRIALS)
    warmup_batches: int = Field(default=0, ge=0)
    percentile: float = Field(default=25.0, gt=0, lt=100)


class TuneSpec(_Strict):
    """The tune file's schema (see the module docstring)."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    description: str = ""
    seed: int = Field(ge=0, lt=2**63)
    profile: str | ProfileEntry = "standard"
    bot: str | BotEntry | None = None
    opponents: list[str | BotEntry] | None = None
    lineup: list[str | BotEntry] | None = None
    space: dict[str, Any] = Field(min_length=1)
    objective: str | ObjectiveEntry
    games: int = Field(ge=1, le=MAX_TRIAL_GAMES)
    batches: int = Field(default=4, ge=1, le=1000)
    trials: int = Field(default=20, ge=1, le=MAX_TRIALS)
    sampler: str | SamplerEntry = "tpe"
    pruner: str | PrunerEntry = "median"
    validation_games: int | None = Field(default=None, ge=1, le=MAX_TRIAL_GAMES)


# ----- one dimension of the space -------------------------------------------------------------------


@dataclass(frozen=True)
class Dimension:
    """One searched key: an int or float range (``step``, ``log``) or a list of choices."""

    key: str
    kind: str  # "int", "float" or "choices"
    low: Any = None
    high: Any = None
    step: Any = None
    log: bool = False
    choices: tuple[Any, ...] = ()

    def suggest(self, trial: optuna.Trial) -> Any:
        """The trial's value of this key, from Optuna's sampler."""
        if self.kind == "int":
            return trial.suggest_int(self.key, self.low, self.high, step=self.step or 1, log=self.log)
        if self.kind == "float":
            return trial.suggest_float(self.key, self.low, self.high, step=self.step, log=self.log)
        return trial.suggest_categorical(self.key, list(self.choices))

    def ends(self) -> list[Any]:
        """The values checked against the bot or profile model: both ends, or every choice."""
        return [self.low, self.high] if self.kind != "choices" else list(self.choices)

    def grid(self) -> list[Any] | None:
        """Every value, for the grid sampler (None for a continuous float range)."""
        if self.kind == "choices":
            return list(self.choices)
        if self.kind == "int":
            return list(range(self.low, self.high + 1, self.step or 1))
        if self.step is None:
            return None
        n = round((self.high - self.low) / self.step)
        return [float(self.low + i * self.step) for i in range(n + 1)]

    def describe(self) -> str:
        if self.kind == "choices":
            return "one of " + ", ".join(map(_yaml_scalar, self.choices))
        text = f"{self.kind} {self.low}..{self.high}"
        if self.step is not None:
            text += f" step {self.step}"
        return text + (" (log)" if self.log else "")


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def parse_dimension(key: str, raw: Any, source: str) -> Dimension:
    """Read one ``space:`` entry; errors name ``FILE: key 'space.KEY[.SUBKEY]'``."""

    def where(sub: str = "") -> str:
        return f"{source}: key 'space.{key}{sub}'"

    if not isinstance(raw, Mapping):
        raise TuneError(
            f"{where()}: expected a range {{int: [low, high]}}, {{float: [low, high]}} or "
            f"{{choices: [...]}}, got {excerpt(raw)}"
        )
    unknown = [k for k in raw if k not in RANGE_KEYS]
    if unknown:
        raise TuneError(f"{where()}: unknown key '{unknown[0]}'; valid keys: {', '.join(RANGE_KEYS)}")
    kinds = [k for k in ("int", "float", "choices") if k in raw]
    if len(kinds) != 1:
        raise TuneError(f"{where()}: give exactly one of int, float or choices, got {kinds or 'none'}")
    kind = kinds[0]
    log = raw.get("log", False)
    step = raw.get("step")
    if not isinstance(log, bool):
        raise TuneError(f"{where('.log')}: expected true or false, got {excerpt(log)}")
    if kind == "choices":
        return _choices(key, raw["choices"], log, step, where)
    bounds = raw[kind]
    if not isinstance(bounds, list) or len(bounds) != 2:
        raise TuneError(f"{where(f'.{kind}')}: expected [low, high], got {excerpt(bounds)}")
    number = (int,) if kind == "int" else (int, float)
    if any(isinstance(b, bool) or not isinstance(b, number) for b in (*bounds, *([step] if step else []))):
        what = "whole numbers" if kind == "int" else "numbers"
        raise TuneError(f"{where(f'.{kind}')}: expected {what} for low, high and step, got {excerpt(bounds)}")
    low, high = bounds
    if kind == "float":
        low, high = float(low), float(high)
        step = None if step is None else float(step)
        if not all(math.isfinite(v) for v in (low, high, *([step] if step else []))):
            raise TuneError(f"{where('.float')}: expected finite numbers, got {excerpt(bounds)}")
    if low > high:
        raise TuneError(f"{where(f'.{kind}')}: low {low} is above high {high}")
    if step is not None:
        if step <= 0:
            raise TuneError(f"{where('.step')}: expected a positive step, got {step}")
        if log:
            raise TuneError(
                f"{where()}: log and step cannot be combined (Optuna samples log ranges continuously)"
            )
        spans = (high - low) / step
        if abs(spans - round(spans)) > 1e-9:
            raise TuneError(f"{where('.step')}: high - low ({high - low}) is not a multiple of step {step}")
    if log and low <= 0:
        raise TuneError(f"{where()}: a log range needs low > 0, got {low}")
    return Dimension(key, kind, low, high, step, log)


def _choices(key: str, choices: Any, log: bool, step: Any, where: Callable[..., str]) -> Dimension:
    if log or step is not None:
        raise TuneError(f"{where()}: log and step apply to int and float ranges, not to choices")
    if not isinstance(choices, list) or not choices:
        raise TuneError(f"{where('.choices')}: expected a non-empty list, got {excerpt(choices)}")
    for value in choices:
        if value is not None and not isinstance(value, bool | int | float | str):
            raise TuneError(
                f"{where('.choices')}: each choice is a number, string, true/false or null, "
                f"got {excerpt(value)}"
            )
    if len({repr(v) for v in choices}) != len(choices):
        raise TuneError(f"{where('.choices')}: choices repeat: {excerpt(choices)}")
    return Dimension(key, "choices", choices=tuple(choices))


# ----- the resolved study -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Objective:
    """What a trial's games are scored by. ``win_rate`` and ``mean_score`` (bot studies, maximised):
    the tuned seat's share of rounds won and its mean round score. ``fair_first_seat`` (rule studies,
    minimised): ``|first player's win rate - 1/n| + weight * |mean turns per round - target| / target``."""

    name: str
    target_turns: float | None = None
    weight: float = 1.0

    @property
    def direction(self) -> Literal["minimize", "maximize"]:
        return "minimize" if self.name == "fair_first_seat" else "maximize"

    def describe(self) -> str:
        if self.name == "win_rate":
            return "the tuned seat's win rate (share of rounds won), maximised"
        if self.name == "mean_score":
            return "the tuned seat's mean round score, maximised"
        return (
            f"|first player's win rate - 1/n| + {self.weight:g} x |mean turns per round - "
            f"{self.target_turns:g}| / {self.target_turns:g}, minimised"
        )


@dataclass(frozen=True)
class Tune:
    """A validated tune file: the space, the fixed parts of every trial, and how to score it."""

    name: str
    description: str
    seed: int
    kind: str  # "bot" or "rules"
    profile: Any  # an experiment profiles entry: a name or path, or {base, name, overrides}
    lineup: tuple[Any, ...]  # bot study: the opponents (the tuned bot sits in slot 0); rules: every seat
    bot: Any  # bot study: the tuned bot's spec as given (its fixed parameters); None for rules
    space: tuple[Dimension, ...]
    objective: Objective
    deals: int  # deals per trial: every trial plays the same ones, in every seat rotation
    rotations: int
    batches: int
    trials: int
    sampler: SamplerEntry
    pruner: PrunerEntry
    validation_games: int
    source: str = "<tune>"
    base_dir: Path | None = None
    base_profile: RuleProfile | None = field(default=None, repr=False)
    spec: dict = field(default_factory=dict, repr=False)

    @property
    def keys(self) -> list[str]:
        return [d.key for d in self.space]

    @property
    def games(self) -> int:
        """Games per trial: every deal in every seat rotation."""
        return self.deals * self.rotations

    def batch_deals(self) -> list[tuple[int, int]]:
        """Each batch's deals ``[start, stop)``: whole deals, as even as they divide."""
        edges = [self.deals * b // self.batches for b in range(self.batches + 1)]
        return list(itertools.pairwise(edges))

    def identity(self) -> dict[str, Any]:
        """What a resumed study must match: the spec without ``trials`` (a study may be extended)."""
        return {k: v for k, v in self.spec.items() if k != "trials"}

    # -- the bot study's specs

    def tuned_spec(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The tuned bot with a trial's parameters (``{name, params}``; every tuned key explicit)."""
        base = parse_spec(self.bot)
        values = {**base.params, **{key.partition(".")[2]: v for key, v in params.items()}}
        return {"name": base.name, "params": dict(sorted(values.items()))}

    def default_params(self) -> dict[str, Any]:
        """The tuned keys at their defaults: the ``bot:`` spec's value, else the bot's own default
        (bot study); the base profile's value (rule study)."""
        if self.kind == "rules":
            assert self.base_profile is not None
            data = self.base_profile.to_dict()
            return {key: _get_path(data, key) for key in self.keys}
        base = parse_spec(self.bot)
        fields = resolve_bot(base.name).Params.model_fields
        out = {}
        for key in self.keys:
            param = key.partition(".")[2]
            out[key] = base.params[param] if param in base.params else fields[param].get_default()
        return out

    # -- the profiles of a rule study

    def profile_entry(self, params: Mapping[str, Any], name: str) -> dict[str, Any]:
        """An experiment profiles entry: the base profile with the trial's keys set."""
        entry = self.profile if isinstance(self.profile, Mapping) else {"base": self.profile}
        overrides = dict(entry.get("overrides") or {})
        for key, value in params.items():
            overrides = _merge(overrides, _nest(key, value))
        return {"base": entry["base"], "name": name, "overrides": overrides}

    # -- experiments: a trial, the validation run

    def trial_experiment(self, params: Mapping[str, Any]) -> Experiment:
        """One cell playing this trial's games: the same deals (seed, deal indices) in every trial."""
        if self.kind == "bot":
            profiles = [self.profile]
            lineups = [[self.tuned_spec(params), *self.lineup]]
        else:
            profiles = [self.profile_entry(params, f"{self.name}-trial")]
            lineups = [list(self.lineup)]
        data = {"name": f"tune-{self.name}", "seed": self.seed, "games": self.games,
                "profiles": profiles, "lineups": lineups}  # fmt: skip
        experiment = self._experiment(data)
        games = self.deals * experiment.rotations(experiment.cells[0])
        return experiment if games == experiment.games else dataclasses.replace(experiment, games=games)

    def validation_seed(self) -> int:
        """The validation run's root seed: a stream of its own, so its deals were never tuned on."""
        state = np.random.SeedSequence(self.seed, spawn_key=(VALIDATION_STREAM,)).generate_state(1, np.uint64)
        return int(state[0] >> np.uint64(1))

    def validation_experiment(self, best: Mapping[str, Any]) -> Experiment:
        """Two cells on fresh deals: cell 0 the default, cell 1 the best trial's parameters."""
        if self.kind == "bot":
            default, tuned = self.tuned_spec(self.default_params()), self.tuned_spec(best)
            profiles: list[Any] = [self.profile]
            lineups = [[default, *self.lineup], [tuned, *self.lineup]]
        else:
            base = self.profile if isinstance(self.profile, Mapping) else {"base": self.profile}
            profiles = [
                {**base, "name": f"{self.name}-default"},
                self.profile_entry(best, f"{self.name}-best"),
            ]
            lineups = [list(self.lineup)]
        data = {"name": f"tune-{self.name}-validation", "seed": self.validation_seed(),
                "games": self.validation_games, "profiles": profiles, "lineups": lineups}  # fmt: skip
        return self._experiment(data)

    def _experiment(self, data: dict[str, Any]) -> Experiment:
        try:
            return experiment_from_dict(data, self.source, base_dir=self.base_dir)
        except ExperimentError as exc:
            raise TuneError(str(exc)) from None


def _nest(key: str, value: Any) -> dict[str, Any]:
    head, _, rest = key.partition(".")
    return {head: _nest(rest, value) if rest else value}


def _get_path(data: Mapping[str, Any], key: str) -> Any:
    node: Any = data
    for part in key.split("."):
        node = node[part]
    return node


def _has_path(data: Mapping[str, Any], key: str) -> bool:
    node: Any = data
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return not isinstance(node, Mapping)


# ----- loading -------------------------------------------------------------------------------------


def builtin_tunes() -> dict[str, Path]:
    """Names of the built-in tune files (``rummisim/configs/tune``) mapped to their files."""
    return {p.stem: p for p in sorted(TUNE_DIR.glob("*.yaml"))}


def load_tune(path: str | Path, *, trials: int | None = None) -> Tune:
    """Read, validate and resolve a tune file: a path, or a built-in tune file's name
    (``conservative``); a file of that name in the working directory comes first."""
    path, data = read_config(path, builtin_tunes(), "tune file", TuneError)
    return tune_from_dict(data, str(path), base_dir=path.parent, trials=trials)


# The union members pydantic names in an error's location (not keys).
_BRANCHES = ("str", "ProfileEntry", "BotEntry", "ObjectiveEntry", "SamplerEntry", "PrunerEntry")
_MODELS: dict[str, type[StrictModel]] = {
    "profile": ProfileEntry, "bot": BotEntry, "opponents": BotEntry, "lineup": BotEntry,
    "objective": ObjectiveEntry, "sampler": SamplerEntry, "pruner": PrunerEntry,
}  # fmt: skip


def _valid_keys(key: str) -> str:
    head = key.split(".")[0].split("[")[0]
    nested = "." in key or "[" in key
    model: type[StrictModel] = (_MODELS.get(head) if nested else None) or TuneSpec
    return ", ".join(model.model_fields)


def _one_error(exc: ValidationError, source: str) -> str:
    prefer = {"missing": 1, "extra_forbidden": 1}  # either before any other error, then the deepest
    return error_line(exc, source, lambda _, key: _valid_keys(key), branches=_BRANCHES, prefer=prefer)


def tune_from_dict(
    data: Mapping[str, Any],
    source: str = "<tune>",
    *,
    base_dir: Path | None = None,
    trials: int | None = None,
) -> Tune:
    """Validate tune-file data into a ``Tune``; ``trials`` overrides the file's (``--trials``)."""
    try:
        spec = TuneSpec.model_validate(dict(data))
    except ValidationError as exc:
        raise TuneError(_one_error(exc, source)) from None
    if trials is not None:
        if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
            raise TuneError(f"--trials: expected a whole number 1..{MAX_TRIALS}, got {trials!r}")
        spec = spec.model_copy(update={"trials": trials})
    kind = _kind(spec, source)
    objective = _objective(spec, kind, source)
    sampler = _named(spec.sampler, SamplerEntry, SAMPLERS, "sampler", source)
    pruner = _named(spec.pruner, PrunerEntry, PRUNERS, "pruner", source)
    if pruner.warmup_batches >= spec.batches and pruner.name != "none":
        raise TuneError(
            f"{source}: key 'pruner.warmup_batches': {pruner.warmup_batches} leaves no batch to prune "
            f"after ({spec.batches} batches); use 0..{spec.batches - 1}"
        )
    profile_data = (
        spec.profile if isinstance(spec.profile, str) else spec.profile.model_dump(exclude_none=True)
    )
    base = _base_profile(spec.profile, source, base_dir)
    if kind == "bot":
        assert spec.bot is not None and spec.opponents is not None
        bot = _bot(spec.bot, "bot", source)
        lineup = tuple(_bot(b, f"opponents[{i}]", source) for i, b in enumerate(spec.opponents))
        seats = 1 + len(lineup)
        space = tuple(_bot_dimension(key, raw, bot, source) for key, raw in spec.space.items())
    else:
        assert spec.lineup is not None
        bot = None
        lineup = tuple(_bot(b, f"lineup[{i}]", source) for i, b in enumerate(spec.lineup))
        seats = len(lineup)
        space = tuple(_profile_dimension(key, raw, base, source) for key, raw in spec.space.items())
        _check_corners(space, base, source)
    seat_key = "opponents" if kind == "bot" else "lineup"
    if seats < 2:
        raise TuneError(f"{source}: key '{seat_key}': a table needs 2 or more seats")
    problem = base.seat_count_problem(seats)
    if problem:
        raise TuneError(f"{source}: key '{seat_key}': {seats} seats, but {problem}")
    if sampler.name == "grid":
        _check_grid(space, source)
    tune = Tune(
        name=spec.name,
        description=spec.description,
        seed=spec.seed,
        kind=kind,
        profile=profile_data,
        lineup=lineup,
        bot=bot,
        space=space,
        objective=objective,
        deals=1,
        rotations=1,
        batches=spec.batches,
        trials=spec.trials,
        sampler=sampler,
        pruner=pruner,
        validation_games=spec.validation_games or 4 * spec.games,
        source=source,
        base_dir=base_dir,
        base_profile=base,
        spec=spec.model_dump(mode="json"),
    )
    # Seat rotations of a trial's lineup (the tuned bot is in every seat once per deal); the
    # default parameters stand for every trial.
    probe = tune.trial_experiment(tune.default_params())
    rotations = probe.rotations(probe.cells[0])
    deals = -(-spec.games // rotations)
    if deals < spec.batches:
        raise TuneError(
            f"{source}: key 'batches': {spec.batches} batches need at least {spec.batches} deals, but "
            f"games: {spec.games} is {deals} deal(s) of {rotations} seat rotation(s); raise games or "
            "lower batches"
        )
    return dataclasses.replace(tune, deals=deals, rotations=rotations)


def _kind(spec: TuneSpec, source: str) -> str:
    if spec.lineup is not None:
        if spec.bot is not None or spec.opponents is not None:
            raise TuneError(
                f"{source}: key 'lineup': a rule study names lineup:, a bot study bot: and opponents:; "
                "not both"
            )
        return "rules"
    if spec.bot is None or spec.opponents is None:
        missing = "bot" if spec.bot is None else "opponents"
        raise TuneError(
            f"{source}: missing required key '{missing}': a bot study names bot: and opponents:, "
            "a rule study lineup:"
        )
    return "bot"


def _objective(spec: TuneSpec, kind: str, source: str) -> Objective:
    entry = ObjectiveEntry(name=spec.objective) if isinstance(spec.objective, str) else spec.objective
    allowed = OBJECTIVES[kind]
    if entry.name not in allowed:
        other = next(k for k in OBJECTIVES if k != kind)
        study = "a bot study (bot:)" if kind == "bot" else "a rule study (lineup:)"
        hint = ""
        if entry.name in OBJECTIVES[other]:
            hint = f" ({entry.name} is for {'rule' if other == 'rules' else 'bot'} studies)"
        raise TuneError(
            f"{source}: key 'objective': unknown objective {entry.name!r} for {study}{hint}; "
            f"choose {' or '.join(allowed)}"
        )
    if kind == "rules" and entry.target_turns is None:
        raise TuneError(
            f"{source}: key 'objective.target_turns': fair_first_seat needs the mean round length to aim at, "
            "e.g. {name: fair_first_seat, target_turns: 30, weight: 1.0}"
        )
    if kind == "bot" and not isinstance(spec.objective, str) and spec.objective.model_fields_set - {"name"}:
        raise TuneError(
            f"{source}: key 'objective': {entry.name} takes no options (target_turns and weight are for "
            "fair_first_seat)"
        )
    return Objective(entry.name, entry.target_turns, entry.weight)


def _named(value: Any, model: type, allowed: Sequence[str], key: str, source: str) -> Any:
    entry = model(name=value) if isinstance(value, str) else value
    if entry.name not in allowed:
        raise TuneError(
            f"{source}: key '{key}': unknown {key} {entry.name!r}; choose one of {', '.join(allowed)}"
        )
    return entry


def _base_profile(entry: str | ProfileEntry, source: str, base_dir: Path | None) -> RuleProfile:
    """The profile a study starts from, read as an experiment reads a profiles entry."""
    try:
        _, data = _profile_data(entry, 0, source, base_dir)
        return profile_from_dict(data, f"{source}: key 'profile'")
    except (ExperimentError, ProfileError) as exc:
        raise TuneError(str(exc).replace("key 'profiles[0]'", "key 'profile'")) from None


def _bot(entry: str | BotEntry, key: str, source: str) -> str | dict[str, Any]:
    try:
        spec = parse_spec(entry if isinstance(entry, str) else {"name": entry.name, "params": entry.params})
        validate_spec(spec)
    except BotError as exc:
        raise TuneError(f"{source}: key '{key}': {exc}") from None
    return spec.as_data()


def _bot_dimension(key: str, raw: Any, bot: Any, source: str) -> Dimension:
    where = f"{source}: key 'space.{key}'"
    name = parse_spec(bot).name
    head, _, param = key.partition(".")
    if head != name or not param:
        raise TuneError(
            f"{where}: a bot study tunes the parameters of its bot: keys are {name}.PARAM "
            f"(profile keys are tuned by a rule study, which names lineup: instead of bot:)"
        )
    fields = resolve_bot(name).Params.model_fields
    if param not in fields:
        raise TuneError(
            f"{where}: bot {name!r} has no parameter {param!r}; "
            f"valid parameters: {', '.join(fields) or '(none)'}"
        )
    dimension = parse_dimension(key, raw, source)
    fixed = dict(parse_spec(bot).params)
    for value in dimension.ends():
        try:
            validate_spec({"name": name, "params": {**fixed, param: value}})
        except BotError as exc:
            raise TuneError(f"{where}: value {excerpt(value)} is refused: {exc}") from None
    return dimension


_NOT_TUNABLE = ("name", "description", "extends")


def _profile_dimension(key: str, raw: Any, base: RuleProfile, source: str) -> Dimension:
    where = f"{source}: key 'space.{key}'"
    data = base.to_dict()
    if key.split(".")[0] in _NOT_TUNABLE or not _has_path(data, key):
        tops = ", ".join(k for k in RuleProfile.model_fields if k not in _NOT_TUNABLE)
        raise TuneError(
            f"{where}: not a profile key path (e.g. initial_meld.threshold; top-level keys: {tops}); "
            "bot parameters are tuned by a bot study, which names bot: and opponents:"
        )
    dimension = parse_dimension(key, raw, source)
    for value in dimension.ends():
        _profile_with(data, {key: value}, f"{where}: value {excerpt(value)}")
    return dimension


def _profile_with(data: dict[str, Any], values: Mapping[str, Any], source: str) -> RuleProfile:
    changed = data
    for key, value in values.items():
        changed = _merge(changed, _nest(key, value))
    try:
        return profile_from_dict(changed, source)
    except ProfileError as exc:
        raise TuneError(str(exc)) from None


def _check_corners(space: Sequence[Dimension], base: RuleProfile, source: str) -> None:
    """Every combination of range ends (while there are at most ``MAX_CORNERS``) is a valid profile:
    a combination can break a rule no single key does (a rack too large for the tiles)."""
    ends = [d.ends() for d in space]
    if len(space) < 2 or math.prod(len(e) for e in ends) > MAX_CORNERS:
        return
    data = base.to_dict()
    for values in itertools.product(*ends):
        combo = dict(zip((d.key for d in space), values, strict=True))
        text = ", ".join(f"{k}={_yaml_scalar(v)}" for k, v in combo.items())
        _profile_with(data, combo, f"{source}: key 'space': the combination {text}")


def _check_grid(space: Sequence[Dimension], source: str) -> None:
    size = 1
    for d in space:
        grid = d.grid()
        if grid is None:
            raise TuneError(
                f"{source}: key 'space.{d.key}': the grid sampler needs a finite grid; give the float "
                "range a step, or use choices"
            )
        size *= len(grid)
    if size > MAX_GRID:
        raise TuneError(f"{source}: key 'sampler': the grid has {size} points, over the limit of {MAX_GRID}")


def label_params(params: Mapping[str, Any]) -> str:
    """``key=value, ...`` for logs and tables."""
    return ", ".join(f"{k}={format_value(v)}" for k, v in params.items())


def format_value(value: Any) -> str:
    """A parameter value as YAML writes it (floats to 4 significant digits)."""
    if isinstance(value, np.generic):  # a value read back from a table
        value = value.item()
    if isinstance(value, float):
        return f"{value:.4g}"
    return _yaml_scalar(value)


def lineup_label(tune: Tune, params: Mapping[str, Any]) -> str:
    """The tuned bot's label with these parameters (bot studies): ``conservative(min_play=2,...)``."""
    return bot_label(tune.tuned_spec(params))
