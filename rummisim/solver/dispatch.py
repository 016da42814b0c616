"""The move solver: the best play for a rack against a table under a profile.

``solve(rack, table, profile, initial=..., objective=..., rearrange=...)`` returns a
``Solution``: the rack tiles to play, the full new table (each joker with its
face), the number and value of the tiles placed, and whether the result is a
proven optimum. Every solution passes ``moves.validate_move``.

Modes: turn mode rearranges the whole table; ``initial=True`` makes the initial
meld (rack tiles only, at least the threshold; with ``may_touch_table`` the same
move may also rearrange the table and free locked table jokers); ``rearrange=False``
only builds new sets from the rack and adds tiles to table sets without breaking them.
Sets follow ``melds``: a numbered tile and at most ``jokers.max_per_set`` jokers
each (``R7 J J`` is a set under ``standard``).

Every search goes to the dynamic program over tile values (``dp``, exact, compiled with
numba): turn mode (``solve_dp``; without rearrangement and under strict joker sets it pins the
table sets that must stay together, and its answer is checked under ``turn.rearrange: false``)
and the initial meld (``solve_dp_opening``: a value bound proves "no opening"; a single-set
opening is the best set the rack forms; else the best "opening core", rack-only sets worth the
threshold, beside the best play of the other tiles, also where the opening may touch the table
and free jokers). Where the exact search gives up (``GiveUp``: the corners listed in
docs/solver.md, each measured per 1,000 searches in play) the answer is the best legal play of
a bounded search, ``method="cut"``, ``proven=False``: the plays it settled, or one beam pass of
at most ``GIVE_UP_STATES`` states. The integer program (``milp``) answers only the profiles the
DP does not encode (``encodable``: a minimum run length other than 3, a tile set past its
state key) and ``reference_solve``, the
independent reference the tests and the agreement and fuzz scripts compare against (formulation
``windows``, then ``patterns`` if that answer fails ``validate_move``; should both fail,
``SolverError``, which a game records as the bot's fault).

The search budget. ``budget`` (default: the profile's ``time_limit.search_budget``;
``None``: unlimited) bounds one call in deterministic search units, never wall time,
so results stay reproducible: each state the DP creates is one unit, each
branch-and-bound node of the integer program ``milp.MILP_UNITS_PER_NONZERO`` units per
nonzero of its model (about the time the DP takes for as many states), and
``Solution.nodes`` says how many were spent (at most ``budget``). The exact DP may spend
all but a quarter (``BEAM_SHARE``); when it runs out, the rest goes to one beam pass of the
same DP (each step keeps only its best states, ranked by score less the tiles their
open runs still need), and its play, checked by ``validate_move``, is returned with
``proven=False`` (no play if it finds none). Past its joker-host limits, the DP under a
budget, as without one, settles for the best legal play of the joker choices it did settle
(``Meter.settle``; ``method="cut"``, ``proven=False``). The integer program, where it answers,
gets the budget as its node limit and, cut short, returns its best play found with
``proven=False``.
Bots share one budget over the searches of a turn (``rummisim.bots.search``), and the
engine applies the profile's ``time_limit.on_timeout`` rule.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from rummisim.melds import Meld, format_table, parse_table, rack_penalty
from rummisim.profile import RuleProfile, shared
from rummisim.solver.budget import (
    DEFAULT_OPTIONS,
    GiveUp,
    Meter,
    SearchBudgetSpent,
    SearchOptions,
    TrackedLimitReached,
)
from rummisim.solver.common import OBJECTIVES, SearchResult, is_legal, tile_gain
from rummisim.solver.dp import encodable, solve_dp, solve_dp_beam, solve_dp_opening, without_rearrange
from rummisim.solver.milp import solve_milp
from rummisim.solver.reading import rack_first
from rummisim.tiles import format_tiles, parse_tiles


@dataclass(frozen=True, slots=True)
class Solution:
    """A play: ``played`` rack tiles and the whole ``table`` after it.

    ``played == ()`` means there is no legal play (e.g. the opening threshold
    cannot be met); ``table`` is then the unchanged table.
    """

    played: tuple[int, ...]
    table: tuple[Meld, ...]
    tiles_placed: int
    value_placed: int
    proven: bool
    nodes: int = 0
    method: str = "dp"  # what answered: one of METHODS
    give_up: GiveUp | None = None  # why the exact search gave up (``method == "cut"``), if it did

    @property
    def is_play(self) -> bool:
        return bool(self.played)


def placed_value(played, profile: RuleProfile) -> int:
    """Points a play sheds from the rack (a joker counts its rack penalty): what the played
    tiles would have cost at the end of the round, ``melds.rack_penalty``."""
    return rack_penalty(played, profile)


METHODS = (
    "dp",  # the exact dynamic program (``dp``)
    "beam",  # its beam pass, once the search budget ran out (not proven)
    "cut",  # the exact search gave up (``Solution.give_up``): the best legal play it settled, or
    # of one bounded beam pass (``GIVE_UP_STATES``); not proven
    "none",  # nothing to search (an empty rack) or the budget spent before any search
    "milp",  # the integer program: ``reference_solve``, and profiles the DP does not encode
)


class SolverError(RuntimeError):
    """Every formulation produced a move the engine refuses (a solver bug, never expected):
    the game records it as the bot's fault instead of playing an illegal move."""


def _is_legal(profile, table, rack, result: SearchResult, *, opened: bool) -> bool:
    return is_legal(profile, table, rack, result.table, result.played, opened=opened)


BEAM_SHARE = 4  # with a budget, the exact search may spend all but 1/BEAM_SHARE of it
GIVE_UP_STATES = 1 << 17  # the bounded beam pass where the exact search gives up


def solve(
    rack,
    table,
    profile: RuleProfile,
    *,
    initial: bool = False,
    objective: str = "tiles",
    rearrange: bool = True,
    budget: int | None | Literal["profile"] = "profile",
    exact: bool = True,
    options: SearchOptions = DEFAULT_OPTIONS,
) -> Solution:
    """The best play (see the module docstring). ``rack`` and ``table`` may be codes and
    melds or text (``"R4 J B9"``, ``"R1 R2 R3 | K5 O5 B5"``). ``budget`` (default: the
    profile's ``time_limit.search_budget``; ``None``: no budget) bounds the search units spent.
    ``exact=False``: lower joker-host limits, and where the exact search gives up, its best legal
    play found (or none) without the bounded pass (a fast policy's search, e.g. in rollouts).
    ``options``: the exact search's limits (``SearchOptions``)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    profile = shared(profile)  # (one object for equal profiles: the caches' hits compare by identity)
    rack, table = _position(rack, table, profile)
    if budget == "profile":
        budget = profile.time_limit.search_budget
    if not rack:
        return Solution((), table, 0, 0, True, method="none")
    if not encodable(profile):  # the one profile-level exception (``supported``)
        try:
            return reference_solve(rack, table, profile, initial=initial, objective=objective,
                                   rearrange=rearrange, units=budget)  # fmt: skip
        except SearchBudgetSpent:
            return _solution(SearchResult(table, (), False, 0), profile, proven=False, nodes=0, method="none")
    # under a budget the exact search may spend all but a share of it; the beam pass gets the rest
    exact_share = None if budget is None else budget - budget // BEAM_SHARE
    # without rearrangement the DP pins every table set (``dp``), and its answers are checked
    # under ``turn.rearrange: false``
    rules = profile if rearrange else without_rearrange(profile)
    search = _Search(rack, table, profile, rules, initial, objective)
    # a turn read from the top down where the rack lies higher than the table (``reading``); without
    # a budget, where the exact search gives up, the position read the other way
    down = not initial and rack_first(rack, table, rules, options)
    retry = budget is None and exact and not initial and options.mirror_give_ups and not profile.wrap
    first = _first_limits(options) if retry else options
    meter = Meter(exact_share, settle=True, quick=not exact, options=first)
    ended = False  # the first search ended at its lower tracked limits (``_first_limits``)
    try:
        result = search.checked(meter, down)
    except TrackedLimitReached:
        result, ended = None, True
    except SearchBudgetSpent:
        assert budget is not None  # the meter runs out only under a budget
        cut = search.beam(budget - meter.spent, meter.spent, meter.kept, "beam")
        return cut or search.best(search.nothing, meter.kept, meter.spent, "none")
    if retry and ended:
        # read the other way within the same limits and at most as many states, then the search
        # again with the full limits
        settled = _settled(search, not down, first, meter, share=True)
        if settled is not None:
            return settled
        spent, meter = meter.spent, Meter(None, settle=True, options=options)
        meter.spend(spent)
        result = search.checked(meter, down)
    if retry and (result is None or meter.cut):
        # a search that gave up with the full search's passes: read the other way with the full limits
        settled = _settled(search, not down, options, meter)
        if settled is not None:
            return settled
    if result is not None and not meter.cut:
        return _solution(result, profile, proven=True, nodes=meter.spent, method="dp")
    if result is not None or not exact:
        # past the joker-host limits: the best legal play of the joker choices it did settle
        return search.best(result or search.nothing, meter.kept, meter.spent, "cut", meter.why)
    # the exact search gave up (``meter.why``): the best play of one bounded beam pass
    why = meter.why
    left = GIVE_UP_STATES if budget is None else min(GIVE_UP_STATES, budget - meter.spent)
    cut = search.beam(left, meter.spent, meter.kept, "cut", why) if left > 0 else None
    cut = cut or search.best(search.nothing, meter.kept, meter.spent, "cut", why)
    joker = profile.tileset.joker
    if why is GiveUp.DECODE and joker in rack:
        # the decoding could not place every joker the DP counted as played: the best play that
        # keeps a rack joker back (the DP's exact search of the rack less one joker)
        less = list(rack)
        less.remove(joker)
        rest = None if budget is None else budget - cut.nodes
        if rest is None or rest > 0:
            kept = solve(
                tuple(less), table, profile, initial=initial, objective=objective, rearrange=rearrange,
                budget=rest, exact=exact, options=options,
            )  # fmt: skip
            if search.gain(kept.played) > search.gain(cut.played):
                return replace(kept, proven=False, nodes=cut.nodes + kept.nodes, method="cut", give_up=why)
    return cut


def _settled(
    search: _Search, down: bool, options: SearchOptions, meter: Meter, share: bool = False
) -> Solution | None:
    """Where a turn's exact search without a budget gave up (or ended at its first limits): the same
    search of the position read the other way (``down``: from the top down), whose passes carry
    other states and often settle where these did not (``guide-strict-joker`` trickle-jokers #99:
    36,312 states from the top down, where the search from the bottom up gave up after 1,760,020).
    Its play, read back, as proven; else None (it gave up too). Its states are charged to ``meter``
    (the search's so far), and with ``share`` it may make at most as many as ``meter`` holds; where
    it gives up it gets no bounded search."""
    own = Meter(meter.spent if share else None, settle=True, options=options)
    try:
        found = search.checked(own, down)
    except (TrackedLimitReached, SearchBudgetSpent):
        found = None
    meter.spend(own.spent)
    if found is None or own.cut:
        return None
    return _solution(found, search.profile, proven=True, nodes=meter.spent, method="dp")


def _first_limits(options: SearchOptions) -> SearchOptions:
    """``options`` with the tracked host passes' lower limits of a first search
    (``SearchOptions.first_tracked_states``, ``first_tracked_call``)."""
    return replace(
        options,
        max_tracked_states=min(options.first_tracked_states, options.max_tracked_states),
        max_tracked_call=min(options.first_tracked_call, options.max_tracked_call),
        end_at_tracked_limit=True,
    )


def _position(rack, table, profile: RuleProfile) -> tuple[tuple[int, ...], tuple[Meld, ...]]:
    """The rack as codes and the table as melds, from codes and melds or text."""
    if isinstance(rack, str):
        rack = parse_tiles(rack, profile.tileset)
    if isinstance(table, str):
        table = parse_table(table, profile)
    return tuple(int(t) for t in rack), tuple(table)


def reference_solve(
    rack,
    table,
    profile: RuleProfile,
    *,
    initial: bool = False,
    objective: str = "tiles",
    rearrange: bool = True,
    units: int | None = None,
) -> Solution:
    """The integer program's best play (``milp``): the independent reference that the tests and
    the agreement and fuzz scripts compare ``solve`` with, ``rummisim solve --method milp``, and
    the search of the profiles the dynamic program does not encode. Formulation ``windows``, then
    ``patterns`` where that play fails ``validate_move``; ``SolverError`` should both fail.
    ``units``: a node limit in search units (cut short: its best play found, not proven; past it
    before one node, ``SearchBudgetSpent``)."""
    rack, table = _position(rack, table, profile)
    for formulation in ("windows", "patterns"):
        result = solve_milp(
            rack, table, profile, initial=initial, objective=objective, rearrange=rearrange,
            units=units, formulation=formulation,
        )  # fmt: skip
        if not result.played or _is_legal(profile, table, rack, result, opened=not initial):
            return _solution(result, profile, proven=result.proven, nodes=result.nodes, method="milp")
        # the windows model aggregates jokers and can, rarely, decode into sets the engine
        # refuses; the pattern formulation places every joker explicitly
    ts = profile.tileset
    raise SolverError(
        f"no formulation found a legal move for rack {format_tiles(rack, ts)!r} "
        f"and table {format_table(table, ts)!r} under profile {profile.name!r}"
    )


@dataclass(frozen=True)
class _Search:
    """One ``solve`` call's position, and the searches it may run within a budget."""

    rack: tuple[int, ...]
    table: tuple[Meld, ...]
    profile: RuleProfile
    rules: RuleProfile  # the profile the DP searches under (``rearrange=False``: every set pinned)
    initial: bool
    objective: str

    def checked(self, meter: Meter, down: bool = False) -> SearchResult | None:
        """The exact DP (``solve_dp_opening`` or ``solve_dp``, with ``down`` a turn's position read
        from the top down, its play read back) charged to ``meter``; None where its play fails
        ``validate_move`` (``GiveUp.REFUSED``)."""
        if self.initial:
            result = solve_dp_opening(
                self.rack, self.table, self.rules, objective=self.objective, meter=meter
            )
        else:
            result = solve_dp(
                self.rack, self.table, self.rules, objective=self.objective, meter=meter, down=down
            )
        if result is not None and result.played and not self.legal(result):
            meter.fail(GiveUp.REFUSED)
            return None
        return result

    @property
    def nothing(self) -> SearchResult:
        """No play: the table as it is."""
        return SearchResult(self.table, (), False, 0)

    def legal(self, result: SearchResult) -> bool:
        return _is_legal(self.rules, self.table, self.rack, result, opened=not self.initial)

    def gain(self, played) -> int:
        return sum(tile_gain(self.profile, t, self.objective) for t in played)

    def best(self, result: SearchResult, kept, nodes: int, method: str, why: GiveUp | None = None):
        """``result`` (not proven best), or the best legal play in ``kept`` (a ``Meter``'s, best
        first) where that places more."""
        gain = self.gain(result.played)
        for _, kept_table, played in kept:
            if self.gain(played) <= gain:
                break
            candidate = SearchResult(kept_table, played, False, nodes)
            if self.legal(candidate):
                result = candidate
                break
        return _solution(result, self.profile, proven=False, nodes=nodes, method=method, why=why)

    def beam(self, states: int, spent: int, kept, method: str, why: GiveUp | None = None) -> Solution | None:
        """One beam pass of at most ``states`` states (the rest of the budget, or the bounded pass
        after the exact search gave up, ``why``): a good play, not proven best, or the best legal
        play ``kept`` where that is better; None outside the beam's scope.
        An opening searches the rack alone; where it may touch the table, a second pass then
        plays the rest of the rack on the table as a turn, beside the opening's sets (what is
        left of the states). A search that pins table sets keeps its pins: the joker sets under
        strict sets, every set without rearrangement."""
        rack_only = self.initial and not self.profile.initial_meld.may_touch_table  # (nothing to pin)
        beam_rules = self.profile if rack_only else self.rules
        beam = solve_dp_beam(
            self.rack, self.table, beam_rules, initial=self.initial, objective=self.objective, states=states
        )
        if beam is None:
            return None
        nodes = spent + beam.nodes
        if beam.played and not self.legal(beam):
            beam = self.nothing
        if beam.played and self.initial and not rack_only:
            rest = list(self.rack)
            for t in beam.played:
                rest.remove(t)
            more = solve_dp_beam(
                tuple(rest), self.table, self.rules, initial=False, objective=self.objective,
                states=states - beam.nodes,
            )  # fmt: skip
            if more is not None:
                nodes += more.nodes
                if more.played:
                    opening_sets = beam.table[len(self.table) :]
                    played = tuple(sorted(beam.played + more.played))
                    both = SearchResult(more.table + opening_sets, played, False, nodes)
                    if self.legal(both):
                        beam = both
        return self.best(beam, kept, nodes, method, why)


def _solution(
    result: SearchResult,
    profile: RuleProfile,
    *,
    proven: bool,
    nodes: int,
    method: str,
    why: GiveUp | None = None,
) -> Solution:
    return Solution(
        played=result.played,
        table=result.table,
        tiles_placed=len(result.played),
        value_placed=placed_value(result.played, profile),
        proven=proven,
        nodes=nodes,
        method=method,
        give_up=why,
    )
