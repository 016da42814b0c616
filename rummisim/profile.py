"""Rule profiles: one frozen, validated, hashable ``RuleProfile`` per rule set.

Profiles are YAML files using exactly the schema keys of ``RULES.md``. A profile
may ``extends:`` a built-in profile (by name) or another file (by path, relative
to the extending file) and override any keys. Validation is strict: unknown
keys, wrong types, out-of-range values, impossible combinations, duplicate keys
and broken YAML are each reported as a one-line ``ProfileError`` naming the
file, the key path and what is allowed. Nothing falls back silently to a
default, except the few keys rummisim adds to the schema (documented below),
so that profiles written against the plain schema keep working.

Keys added to the RULES.md schema (all optional):

- ``jokers.group_any_missing_colour`` (default true): in a group that is not
  full, a table joker counts as "this value in any missing colour", so either
  missing colour frees it (seed 004). With false only the declared tile does.
- ``time_limit.on_timeout`` (default ``penalty``): when a bot's search runs out
  of ``search_budget``, ``penalty`` makes it draw ``timeout_draw`` tiles
  (seed 003); ``best_found`` lets it play the best move found so far.
- ``match.max_rounds`` (default 100): safety cap on rounds in a points match.

The keys of the rules-fidelity audit (``turn.must_play_if_able``, ``turn.discard``,
``jokers.max_per_set``, ``end.when_pool_empty``, ``match.target_counts``) are part
of the RULES.md schema and required like the others (``standard`` sets them, so a
profile that ``extends:`` it inherits them). ``jokers.max_per_set`` is 1..4; above
``tiles.jokers`` it simply never binds (a profile with ``jokers: 1`` that extends
``standard`` need not touch it).

This module only parses text it is given plus the files it is pointed at; the
I/O is limited to reading profile files.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import operator
import stat
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, Field, ValidationError

from rummisim.tiles import TileSet
from rummisim.validation import StrictModel, error_line, excerpt


class ProfileError(ValueError):
    """A rule profile that cannot be loaded: the message names file, key and what is allowed."""


def package_configs(kind: str) -> Path:
    """The folder of built-in YAML files of one ``kind`` (``profiles``, ``experiments``): package
    data in ``rummisim/configs``, found with ``importlib.resources``, so a wheel has them too."""
    folder = resources.files("rummisim") / "configs" / kind
    if not isinstance(folder, Path):  # e.g. imported from a zip archive: not supported
        raise ProfileError(f"the built-in {kind} are not files on disk ({folder}); install rummisim unzipped")
    return folder


BUILTIN_PROFILE_DIR = package_configs("profiles")


# ----- schema -----------------------------------------------------------------------


class _Section(StrictModel):
    """A section of a profile (strict: see ``rummisim.validation``)."""


def _joker_value(value: Any) -> Any:
    if value == "represented" or (type(value) is int and 1 <= value <= 100):
        return value
    raise ValueError("expected 'represented' or an integer 1..100")


class TilesSpec(_Section):
    colors: int = Field(ge=2, le=8)
    values: int = Field(ge=3, le=30)
    copies: int = Field(ge=1, le=4)
    jokers: int = Field(ge=0, le=4)


class PlayersSpec(_Section):
    min: int = Field(ge=2, le=8)
    max: int = Field(ge=2, le=8)


class RunsSpec(_Section):
    min_length: int = Field(ge=3, le=13)
    wrap: Literal["none", "high_low"]


class GroupsSpec(_Section):
    min_size: int = Field(ge=3, le=8)
    max_size: int = Field(ge=3, le=8)


class InitialMeldSpec(_Section):
    threshold: int = Field(ge=0, le=500)
    sets: Literal["any", "single", "one_qualifying"]
    joker_value: Annotated[Literal["represented"] | int, BeforeValidator(_joker_value)]
    may_touch_table: bool


class TurnSpec(_Section):
    draw_count: int = Field(ge=1, le=10)
    play_after_draw: bool
    must_play_if_able: bool
    discard: Literal["after_play", "every_turn"]
    rearrange: bool


class JokersSpec(_Section):
    table_jokers: Literal["locked", "free"]
    reuse: Literal["two_rack_tiles", "new_set", "any"]
    retrieve_before_initial_meld: bool
    max_per_set: int = Field(ge=1, le=4)
    take_from_joker_sets: bool
    penalty: int = Field(ge=0, le=100)
    group_any_missing_colour: bool = True


MAX_SEARCH_BUDGET = 10**9  # search units per turn; far past what any search here spends


class TimeLimitSpec(_Section):
    search_budget: int | None = Field(ge=1, le=MAX_SEARCH_BUDGET)
    timeout_draw: int = Field(ge=0, le=10)
    on_timeout: Literal["penalty", "best_found"] = "penalty"


class EndSpec(_Section):
    pool_empty_winner: Literal["fewest_tiles", "lowest_total"]
    pool_empty_scoring: Literal["standard", "subtract_winner"]
    when_pool_empty: Literal["play_on", "until_no_play", "end_round"]
    max_turns: int = Field(ge=1, le=100_000)


class MatchSpec(_Section):
    end: Literal["single_round", "rounds", "points"]
    rounds: int | None = Field(ge=1, le=1000)
    target_points: int | None = Field(ge=1, le=100_000)
    target_counts: Literal["positive", "net"]
    max_rounds: int = Field(default=100, ge=1, le=10_000)


class RuleProfile(_Section):
    """One complete rule set. Frozen and hashable; pass it explicitly everywhere."""

    name: str = Field(min_length=1)
    description: str = ""
    extends: str | None = None
    tiles: TilesSpec
    rack_size: int = Field(ge=1, le=50)
    players: PlayersSpec
    runs: RunsSpec
    groups: GroupsSpec
    initial_meld: InitialMeldSpec
    turn: TurnSpec
    discard_pile: bool
    jokers: JokersSpec
    time_limit: TimeLimitSpec
    end: EndSpec
    match: MatchSpec
    first_player: Literal["draw_highest", "rotate"]

    @cached_property
    def hash_key(self) -> int:
        """Hash of the fields, computed once: profiles key many caches on hot paths."""
        return hash(tuple(getattr(self, name) for name in type(self).model_fields))

    def __hash__(self) -> int:
        return self.hash_key

    def __eq__(self, other: object) -> bool:
        """Field by field, as the fields read now: the sections' values compared as plain dicts.
        Profiles key many caches on hot paths, and each seat's bot holds its own copy of the rules
        (``engine.seat_bots``), so equal profiles that are different objects meet on every cache
        hit; pydantic's own comparison made that a third of a game's time. Reading the values
        afresh keeps a copy a bot changed (``object.__setattr__``) unequal to the rules it was
        copied from, so it never shares their cache entries."""
        if self is other:
            return True
        if not isinstance(other, RuleProfile):
            return NotImplemented
        return bool(_content(self) == _content(other))

    @cached_property
    def digest(self) -> str:
        """A stable 12-hex-digit fingerprint of the rules (``hash_key`` varies by process)."""
        canonical = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @cached_property
    def tileset(self) -> TileSet:
        return TileSet(self.tiles.colors, self.tiles.values, self.tiles.copies, self.tiles.jokers)

    @property
    def wrap(self) -> bool:
        return self.runs.wrap == "high_low"

    def seat_count_problem(self, seats: int) -> str | None:
        """Why ``seats`` players cannot play under this profile (None when they can)."""
        if self.players.min <= seats <= self.players.max:
            return None
        return f"profile {self.name!r} allows {self.players.min}..{self.players.max} players"

    def joker_opening_value(self, stands_for_value: int) -> int:
        """What a joker standing for a tile of ``stands_for_value`` adds to an opening."""
        jv = self.initial_meld.joker_value
        return stands_for_value if jv == "represented" else int(jv)

    def to_dict(self) -> dict[str, Any]:
        """The resolved profile as plain data in schema order (``extends`` dropped)."""
        data = self.model_dump(mode="python")
        data.pop("extends", None)
        return data

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=False)


# ``RuleProfile.__eq__``'s two kinds of field: the sections (models of scalars) and the scalars
_SECTION_FIELDS = tuple(
    name
    for name, field in RuleProfile.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
)
_SCALAR_FIELDS = tuple(name for name in RuleProfile.model_fields if name not in _SECTION_FIELDS)
# a profile's fields as they read now, sections as their dicts of scalars, gathered in C
_content = operator.attrgetter(*(f"{name}.__dict__" for name in _SECTION_FIELDS), *_SCALAR_FIELDS)


@lru_cache(maxsize=64)
def shared(profile: RuleProfile) -> RuleProfile:
    """The first profile equal to ``profile`` that this process asked about (after 0.3.23). A search
    keys its caches on the profile thousands of times, and two equal profiles that are different
    objects compare field by field on each hit (``__eq__``): a profile loaded again, or a seat's
    copy (``engine.seat_bots``), made ``polish-40`` greedy #94's search 21% slower (2,144
    comparisons). The solver searches under the shared object instead: one comparison a search.
    The comparison reads the fields afresh, so a copy changed since it was shared is another
    profile here too."""
    return profile


# ----- loading ----------------------------------------------------------------------


MAX_YAML_BYTES = 1 << 20  # a profile or experiment file is a few hundred bytes
MAX_YAML_DEPTH = 64  # nested collections
MAX_YAML_NODES = 100_000  # nodes after aliases are expanded (an alias bomb is refused)
MAX_INT_DIGITS = 30  # far past every integer key's own bound (those name the key); longer are refused


class _YamlLimit(Exception):
    """A bound of ``read_yaml`` was passed (a short message, no echo of the input)."""


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys instead of keeping the last one, and
    bounds nesting depth, alias expansion and integer length."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict[int, int] = {}  # id(node) -> nodes it expands to
        self._expanded = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            node = super().compose_node(parent, index)
            self._count(self._sizes.get(id(node), 1))
            return node
        self._depth += 1
        if self._depth > MAX_YAML_DEPTH:
            raise _YamlLimit(f"nested deeper than {MAX_YAML_DEPTH} levels")
        node = super().compose_node(parent, index)
        assert node is not None  # called at a node event, never at the end of the stream
        self._depth -= 1
        children = node.value if isinstance(node.value, list) else []
        size = 1
        for child in children:
            for part in child if isinstance(child, tuple) else (child,):
                size += self._sizes.get(id(part), 1)
        self._sizes[id(node)] = size
        if not children:
            self._count(1)
        return node

    def construct_document(self, node):
        _check_int_lengths(node, ())  # before any value is built: names the key of a huge one
        return super().construct_document(node)

    def _count(self, n: int) -> None:
        self._expanded += n
        if self._expanded > MAX_YAML_NODES:
            raise _YamlLimit(f"expands to more than {MAX_YAML_NODES} values (aliases repeating each other?)")


_INT_TAG = "tag:yaml.org,2002:int"


def _check_int_lengths(node: yaml.Node, path: tuple[str, ...]) -> None:
    """Refuse an integer of more than ``MAX_INT_DIGITS`` digits, naming its key path and line
    (``rack_size``, ``sweep.rack_size[2]``). Aliases repeat nodes already checked."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, tuple[str, ...]]] = [(node, path)]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
                stack.append((value, (*path, name)))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                stack.append((item, (*path[:-1], f"{path[-1] if path else ''}[{i}]")))
        elif node.tag == _INT_TAG:
            digits = sum(ch.isdigit() for ch in str(node.value))
            if digits > MAX_INT_DIGITS:
                where = f"key '{'.'.join(path)}': " if path else ""
                line = node.start_mark.line + 1
                raise _YamlLimit(
                    f"{where}an integer of {digits} digits at line {line} (at most {MAX_INT_DIGITS})"
                )


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    digits = sum(ch.isdigit() for ch in str(node.value))
    if digits > MAX_INT_DIGITS:
        line = node.start_mark.line + 1
        raise _YamlLimit(f"an integer of {digits} digits at line {line} (at most {MAX_INT_DIGITS})")
    return yaml.SafeLoader.construct_yaml_int(loader, node)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.add_constructor(_INT_TAG, _construct_int)


def _decode(raw: bytes, path: Path, error: type[ValueError]) -> str:
    """Text of a YAML file: UTF-8 (a byte-order mark is allowed), or UTF-16/32 with a BOM."""
    boms = (
        (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
    )  # fmt: skip
    codec = next((name for bom, name in boms if raw.startswith(bom)), "utf-8")
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        raise error(
            f"{path}: not a text file in UTF-8 (or UTF-16/32 with a byte-order mark): "
            f"byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        ) from None
    if "\x00" in text:
        raise error(f"{path}: not a text file (it holds NUL bytes)")
    return text


def read_yaml(path: Path, error: type[ValueError] = ValueError) -> Any:
    """Read a YAML file strictly; broken YAML, duplicate keys, a file over ``MAX_YAML_BYTES``,
    nesting, alias expansion or integers past their bounds, and undecodable bytes raise ``error``
    with one short line naming the file (and the line, where there is one)."""
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):  # a FIFO or a device would block or never end
            kind = (
                "a folder"
                if stat.S_ISDIR(mode)
                else "a FIFO"
                if stat.S_ISFIFO(mode)
                else "not a regular file"
            )
            raise error(f"{path}: cannot read file ({kind}; expected a YAML file)")
        with path.open("rb") as handle:
            raw = handle.read(MAX_YAML_BYTES + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read file ({exc.strerror})") from None
    if len(raw) > MAX_YAML_BYTES:
        raise error(f"{path}: file too large (more than {MAX_YAML_BYTES} bytes; a profile is a few hundred)")
    text = _decode(raw, path, error)
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except _YamlLimit as exc:
        raise error(f"{path}: refused: {exc}") from None
    except RecursionError:
        raise error(f"{path}: refused: nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"{path}: broken YAML{where}: {excerpt(problem, quote=False)}") from None


def builtin_profiles() -> dict[str, Path]:
    """Names of the built-in profiles (``rummisim/configs/profiles``) mapped to their files."""
    return {p.stem: p for p in sorted(BUILTIN_PROFILE_DIR.glob("*.yaml"))}


def _resolve_reference(ref: str, relative_to: Path | None) -> Path:
    candidate = Path(ref)
    if relative_to is not None and not candidate.is_absolute():
        local = relative_to.parent / candidate
        if local.suffix in (".yaml", ".yml") or local.exists():
            candidate = local
    if candidate.suffix in (".yaml", ".yml") or candidate.exists():
        if not candidate.exists():
            raise ProfileError(f"profile file {candidate} does not exist")
        return candidate
    builtins = builtin_profiles()
    if ref in builtins:
        return builtins[ref]
    raise ProfileError(
        f"unknown profile {ref!r}: expected a path to a .yaml file or one of "
        f"{', '.join(builtins) or '(no built-in profiles found)'}"
    )


def _merge(base: dict, override: dict) -> dict:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _load_raw(path: Path, chain: tuple[Path, ...]) -> dict:
    resolved = path.resolve()
    if resolved in chain:
        cycle = " -> ".join(str(p) for p in (*chain, resolved))
        raise ProfileError(f"{path}: key 'extends': cycle of profiles: {cycle}")
    data = read_yaml(path, ProfileError)
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: a profile must be a YAML mapping of keys, got {type(data).__name__}")
    if "name" not in data:
        data = {"name": path.stem, **data}  # a file without a name is named after itself
    base_ref = data.get("extends")
    if base_ref is None:
        return data
    if not isinstance(base_ref, str):
        raise ProfileError(f"{path}: key 'extends': expected a profile name or path, got {excerpt(base_ref)}")
    try:
        base_path = _resolve_reference(base_ref, path)
    except ProfileError as exc:
        raise ProfileError(f"{path}: key 'extends': {exc}") from None
    base = _load_raw(base_path, (*chain, resolved))
    base.pop("description", None)  # a description describes one file, never inherited
    return _merge(base, data)


def _valid_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    for part in loc:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            break
        model = annotation
    return list(model.model_fields)


def _where(loc: tuple) -> str:
    """Where an unknown key was found: `` in 'jokers'`` (nothing at the top level)."""
    return f" in '{'.'.join(map(str, loc[:-1]))}'" if len(loc) > 1 else ""


def profile_from_dict(data: dict, source: str = "<profile>") -> RuleProfile:
    """Validate resolved profile data (no ``extends`` left) into a ``RuleProfile``."""
    data = dict(data)
    data["extends"] = None
    try:
        profile = RuleProfile.model_validate(data)
    except ValidationError as exc:
        line = error_line(
            exc,
            source,
            lambda loc, _: ", ".join(_valid_keys(RuleProfile, tuple(map(str, loc[:-1])))),
            where=_where,
            missing_hint=" (set it, or 'extends:' a profile that does)",
            tally=True,
        )
        raise ProfileError(line) from None
    check_combinations(profile, source)
    return profile


def load_profile(name_or_path: str | Path) -> RuleProfile:
    """Load a built-in profile by name, or a profile file by path, resolving ``extends:``."""
    path = _resolve_reference(str(name_or_path), None)
    return profile_from_dict(_load_raw(path, ()), str(path))


# ----- combinations the schema alone cannot rule out -------------------------------


def _best_single_set_value(profile: RuleProfile) -> int:
    """Upper bound on one set's opening value (jokers valued as the profile says)."""
    values, colours = profile.tiles.values, profile.tiles.colors
    joker = profile.initial_meld.joker_value
    longest = min(values, profile.rack_size)
    top = values + (1 if profile.wrap else 0)  # with wrap the 1 may sit above 13 (worth 1)
    run = sorted([v if v <= values else 1 for v in range(top - longest + 1, top + 1)], reverse=True)
    group = [values] * min(profile.groups.max_size, colours, profile.rack_size)
    best = 0
    for faces in (run, group):
        faces = sorted(faces)
        n_jokers = min(profile.tiles.jokers, profile.jokers.max_per_set, max(0, len(faces) - 1))
        if joker != "represented":
            for i in range(n_jokers):
                faces[i] = max(faces[i], int(joker))
        best = max(best, sum(faces))
    return best


def _best_rack_value(profile: RuleProfile) -> int:
    """Upper bound on an opening from a whole rack: its best tiles all in sets."""
    ts = profile.tileset
    joker = profile.initial_meld.joker_value
    joker_worth = ts.values if joker == "represented" else int(joker)
    worths = sorted(
        [v for v in range(1, ts.values + 1) for _ in range(ts.colours * ts.copies)]
        + [joker_worth] * ts.jokers,
        reverse=True,
    )
    return sum(worths[: profile.rack_size])


def check_combinations(profile: RuleProfile, source: str = "<profile>") -> None:
    """Reject combinations of keys that cannot be played; raise ``ProfileError``."""

    def fail(key: str, message: str) -> None:
        raise ProfileError(f"{source}: key '{key}': {message}")

    ts = profile.tileset
    if profile.players.min > profile.players.max:
        fail("players", f"min {profile.players.min} is greater than max {profile.players.max}")
    if profile.groups.min_size > profile.groups.max_size:
        fail("groups", f"min_size {profile.groups.min_size} > max_size {profile.groups.max_size}")
    if profile.groups.max_size > profile.tiles.colors:
        fail(
            "groups.max_size",
            f"got {profile.groups.max_size}; a group has distinct colours, so at most "
            f"tiles.colors = {profile.tiles.colors}",
        )
    if profile.runs.min_length > profile.tiles.values:
        fail("runs.min_length", f"got {profile.runs.min_length}; at most tiles.values = {ts.values}")
    needed = profile.players.max * profile.rack_size + (1 if profile.discard_pile else 0)
    if needed > ts.size:
        fail(
            "rack_size",
            f"players.max x rack_size = {profile.players.max} x {profile.rack_size} = "
            f"{profile.players.max * profile.rack_size}"
            f"{' plus 1 face-up discard' if profile.discard_pile else ''} exceeds the "
            f"{ts.size} tiles of the tile set",
        )
    reachable = (
        _best_single_set_value(profile)
        if profile.initial_meld.sets in ("single", "one_qualifying")
        else _best_rack_value(profile)
    )
    if profile.initial_meld.threshold > reachable:
        fail(
            "initial_meld.threshold",
            f"got {profile.initial_meld.threshold}; no rack of {profile.rack_size} tiles can "
            f"reach it (at most {reachable} with sets: {profile.initial_meld.sets})",
        )
    match = profile.match
    if match.end == "rounds" and (match.rounds is None or match.target_points is not None):
        fail("match", "with end: rounds set rounds to a number >= 1 and target_points to null")
    if match.end == "points" and (match.target_points is None or match.rounds is not None):
        fail("match", "with end: points set target_points to a number >= 1 and rounds to null")
    if match.end == "single_round" and (match.rounds is not None or match.target_points is not None):
        fail("match", "with end: single_round set rounds and target_points to null")
