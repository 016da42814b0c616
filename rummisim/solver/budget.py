"""What one search may spend, and why a part of it gives up.

``SearchOptions``: the search's limits, one frozen record passed down explicitly (tests and
benchmarks build their own instead of flipping module globals). ``Meter``: the states a
search may still create under the search budget (``None``: no budget), those it made, the
best legal plays it found on its way, and why a part of it gave up (``GiveUp``). Pure.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rummisim.melds import Meld
from rummisim.solver.common import SearchBudgetSpent

__all__ = ["GiveUp", "Meter", "SearchBudgetSpent", "SearchOptions", "UNLIMITED"]

UNLIMITED = 1 << 62
KEPT_PLAYS = 8  # legal plays a ``Meter`` keeps for a search cut short by its budget


class GiveUp(enum.Enum):
    """Why the exact search could not settle a position (``Meter.why``, ``Solution.give_up``);
    ``solve`` then answers the best legal play a bounded search finds, not proven best."""

    SCOPE = "scope"  # the profile or table is outside what the DP takes (``supported``, ``encodable``)
    OPENING_CORES = "opening cores"  # more opening cores than ``MAX_CORES`` (or their search's steps)
    STRICT_SPLIT = "strict sets: split joker set"  # a strict joker set keeps one joker, frees another
    HOSTS_REUSE_ANY = "hosts: reuse any"  # a better bound frees a joker under ``reuse: any``, refused
    HOSTS_1 = "hosts: 1 freed"  # the host sets of the freed jokers: too many to list (by how many)
    HOSTS_2 = "hosts: 2 freed"
    HOSTS_3 = "hosts: 3+ freed"
    HOSTS_STATES = "hosts: states"  # ... or their DP passes ran past ``max_host_states``
    HOSTS_REFUSED = "hosts: refused"  # a host play ``validate_move`` refuses
    PIN_MAY_HOST = "hosts: pin may host"  # a pinned group, or a pin with 2 freed / a rack joker, may host
    TRACKED_NOT_APPLICABLE = "tracked: not applicable"  # the tracked host pass does not take it
    TRACKED_STATES = "tracked: states"  # ... ran past ``max_tracked_states``
    TRACKED_REFUSED = "tracked: refused"  # ... decoded into a play ``validate_move`` refuses
    # pins the DP does not take (a kept joker outside, the DP's jokers past ``max_per_set``), or its
    # best steps put a pinned set past ``max_per_set``
    PINS = "pins"
    STATES = "states"  # past the DP's bound of states (``MAX_STATES``), or its key bits
    DECODE = "decode"  # the decoding cannot place every joker within ``max_per_set``, or fit the play
    REFUSED = "refused"  # ``validate_move`` refuses the DP's answer (``dispatch.solve``)

    @classmethod
    def hosts(cls, freed: int) -> GiveUp:
        """Host sets too many to list, by the freed jokers left to place."""
        return (cls.HOSTS_1, cls.HOSTS_2, cls.HOSTS_3)[min(freed, 3) - 1]


class TrackedLimitReached(Exception):
    """A tracked host pass ran past its limits under ``SearchOptions.end_at_tracked_limit``: the search
    ends there (``dispatch.solve`` then reads the position from the top down, or searches again with
    the full limits)."""


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """The exact search's limits (the defaults are what play uses).

    ``max_host_solves``, ``max_host_states``: DP runs around sets that may hold freed jokers,
    and their states, past which the host listing gives up (0.3.16: 100 runs, 400 before; past
    100 host sets the tracked pass costs less than the listing on the committed positions: 0.64
    against 1.17 million states on ``classic-wrap`` trickle-jokers; then one search that tracks the host
    sets, ``max_tracked_states`` at most in all, ``max_tracked_call`` in one kernel call: one
    split of a wrap search at one floor, or every floor of a search without wrap; 0.3.4: 2^21
    and 2^20, where 2^20 in all left ``classic-wrap`` positions whose many small passes over the
    wrap splits ran past it, while a single pass past 2^20 is one that runs on for seconds, so
    it gives up there; 0.3.16: 2^19 in one call, the plain pass beside it counted in: with the
    plain pass's bounds (``backward``) a tracked pass makes a third of the states, each costing
    about twice as much, so 2^19 reaches further than 2^20 did and a call that gives up takes
    about as long as one did, 0.15 s); ``new_set_solves``, ``new_set_states``: the same under
    ``jokers.reuse: new_set``, whose host sets are the rack's own sets with the joker (0.3.4: 2^21
    states, where 2^18 gave up in 1.8 of every 1,000 of ``polish-40``'s searches without a budget;
    0.3.6: the tracked search follows the listing there too; 0.3.8: 2^22, which settles the one
    such give-up of 256 greedy games without a budget, in 0.57 s against 0.69 s to give up);
    ``quick_host_solves``, ``quick_host_states``: the same for a quick search (``Meter.quick``).
    ``pair_host_solves``, ``pair_host_states``: the listing's limits for two freed jokers under
    ``reuse: two_rack_tiles``, before their tracked pass (0.3.8: that pass, with two host fields,
    ran past 2^20 states in one call on 3 of ``guide-strict-joker``'s 4 give-ups in 256 greedy
    games without a budget, and on ``standard``'s one; the listing settles 2 of those 3 and
    ``standard``'s, in 0.3-1.3 s and 1.7-8 million states each; 0.3.16: 2,000 solves, 8,000
    before: a listing needs one pass of a few thousand states per host set of the first freed
    joker, so past 2,000 of them it runs past its states instead, as ``guide-strict-joker``
    trickle-jokers #99 and #124 did with 4,441 and 5,223, 0.8 s each); ``pair_listing_first``: up
    to this many host sets of two freed jokers the listing goes first, past it their tracked pass,
    and the listing only where that finds nothing (0.3.17: ``jokers._many_hosts``). ``prune_dead``: the
    passes leave out dead-end states (states that can no longer close their runs, or whose jokers
    cannot cover what their runs and groups lack; beam passes and probes too since 0.3.15).
    ``backward``: an exact tracked host pass goes after the same pass without host fields and
    leaves out the states that cannot reach the floor by what that pass says they can still add
    (``solver.backward``, 0.3.16). ``reuse_refuted``: a pass with a host set placed that a search
    made before and that found nothing at its floor is not run again, its states charged again
    (``Meter.replayed``, 0.3.19; the listings' passes that run in one compiled call do not look,
    ``listing.refuted_rows``, after 0.3.23). ``mirror_refute``: a floor that asks for every rack
    tile is first searched from the top down, in a few states (``passes._run_passes``, 0.3.20).
    ``mirror_give_ups``: where the exact search of a turn gives up without a budget, the position
    read the other way is searched, and its play answers (``dispatch._settled``; 0.3.20: from the top
    down, a play of the whole rack only; 0.3.23: any play, its tiles scored by their values before
    the flip). ``first_tracked_states``, ``first_tracked_call``:
    with ``mirror_give_ups``, the first search of such a turn caps its tracked host passes lower
    (2^17 in all, 2^16 in one kernel call); where they bind and the position read the other way
    (within the same limits) does not settle it, the search runs again with ``max_tracked_states``
    and ``max_tracked_call`` (0.3.21: ``guide-strict-joker`` trickle-jokers #99 gave up after 1.76
    million states, 0.45 s, before the search from the top down settled it).
    ``end_at_tracked_limit``: a tracked host pass past its limits ends the whole search
    (``TrackedLimitReached``) instead of leaving the choice to the host listing or another
    arrangement: the first search sets it, which then costs no more than the states before its limits
    (0.3.21: a `standard` search whose first tracked pass stopped there went on to list host sets,
    1.9 million states where the full search made 341,431). ``rack_first``: a turn-mode search (a
    turn's, or an opening's rest of the rack on the table; not with wrap nor without rearrangement) reads the
    position from the top down where the rack's tiles lie higher than the table's
    (``reading.rack_first``, 0.3.23)."""

    max_host_solves: int = 100
    max_host_states: int = 1 << 18
    pair_host_solves: int = 2000
    pair_listing_first: int = 100
    pair_host_states: int = 1 << 23
    new_set_solves: int = 2000
    new_set_states: int = 1 << 22
    quick_host_solves: int = 24
    quick_host_states: int = 1 << 14
    max_tracked_states: int = 1 << 21
    max_tracked_call: int = 1 << 19
    first_tracked_states: int = 1 << 17
    first_tracked_call: int = 1 << 16
    end_at_tracked_limit: bool = False
    prune_dead: bool = True
    backward: bool = True
    reuse_refuted: bool = True
    mirror_refute: bool = True
    mirror_give_ups: bool = True
    rack_first: bool = True


DEFAULT_OPTIONS = SearchOptions()


class Meter:
    """The DP states a search may still create (``None``: no budget) and those it made.

    ``settle`` (default false): where a locked-joker position runs past the joker-host limits
    (``SearchOptions``), settle for the best legal play found so far instead of giving up
    (``None``), and go on as a quick search; ``cut`` then says that the answer is not proven best
    (and ``why`` why). ``quick`` (default false): the lower joker-host limits, no tracked host pass,
    and settle at the first choice that gives up (``solve(exact=False)``). ``kept``: the best legal
    plays (score, table, played) the search found on its way, kept for when the budget runs out
    before one is proven best (an opening's parts are plays of part of the rack: the caller
    checks them). ``why``: the last reason a part of the search gave up (``fail``).
    ``call_limit``: the states one kernel call may create, within ``left`` (``limit``)."""

    def __init__(
        self,
        left: int | None = None,
        *,
        settle: bool = False,
        quick: bool = False,
        options: SearchOptions = DEFAULT_OPTIONS,
        call_limit: int | None = None,
    ) -> None:
        self.left = left
        self.call_limit = call_limit
        self.spent = 0
        self.settle = settle or quick
        self.quick = quick
        self.options = options
        self.cut = False
        self.kept: list[tuple[int, tuple[Meld, ...], tuple[int, ...]]] = []
        self.why: GiveUp | None = None
        # the host listings' passes that found nothing at their floor (``replayed``): their inputs
        # (``passes._best_or_bound``), the states they made
        self.refuted: dict[tuple, int] = {}
        # ``validate_move``'s verdicts on the joker choices' plays (``choices._legal``): a choice's
        # play is checked where it is found and again where the choices are settled
        self.verdicts: dict[tuple, bool] = {}

    def fail(self, why: GiveUp) -> None:
        """Record why a part of the search gives up (its answer: None)."""
        self.why = why

    def keep(self, found) -> None:
        """Remember a legal play (score, table, played), the ``KEPT_PLAYS`` best."""
        if found[2] and found not in self.kept:
            self.kept.append(found)
            self.kept.sort(key=lambda kept: -kept[0])
            del self.kept[KEPT_PLAYS:]

    def replayed(self, key: tuple) -> bool:
        """Whether this search made the pass ``key`` (what the kernel sees: ``passes._best_or_bound``)
        before and it found nothing at its floors (``refuted``, ``SearchOptions.reuse_refuted``):
        it would find nothing again, so its states are charged again and it is not run. Where they
        pass what the next kernel call may create, False: the pass runs, and runs past it as
        before, so answers, states and a budget's cut are what they would be without this."""
        made = self.refuted.get(key)
        if made is None or made > self.limit():
            return False
        self.spend(made)
        return True

    def limit(self) -> int:
        """The states the next kernel call may create."""
        left = UNLIMITED if self.left is None else self.left
        return left if self.call_limit is None else min(left, self.call_limit)

    def spend(self, states: int) -> None:
        self.spent += states
        if self.left is not None:
            self.left -= states

    def host_caps(self, new_set: bool = False) -> list[int]:
        """[host solves, host states, the same for two freed jokers' listing] left to the joker
        choices' host searches of a position (quick or full; ``new_set``: under ``jokers.reuse:
        new_set``)."""
        o = self.options
        if self.quick:
            return [o.quick_host_solves, o.quick_host_states] * 2
        if new_set:
            return [o.new_set_solves, o.new_set_states] * 2
        return [o.max_host_solves, o.max_host_states, o.pair_host_solves, o.pair_host_states]
