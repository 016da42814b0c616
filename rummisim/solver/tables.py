"""The DP's per-profile tables: the state key's layout, the run types and the colour moves.

The run types of the DP (``RunTypes``) are four without a per-run joker count, or more
where ``jokers.max_per_set`` could bind and each run carries the jokers it holds. Each
colour step's action word says how the open runs of that colour were treated (for each
type the runs extended by a tile and by a joker; the runs started; the tiles used and the
tiles set aside for groups: ``STARTS_AT``, ``X_AT``, ``G_AT``); each group step's action
is the number of jokers its groups take.

``_tables`` builds, per profile, copies and jokers in play, the run types, every colour
move and the key's fields (``_Tables``; the kernel's record of them: ``KernelTables``), or
``None`` where the key cannot hold them (more than ``MAX_OPEN_RUNS`` open runs per colour,
past ``MAX_KEY_BITS``). Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import NamedTuple

import numpy as np

from rummisim.profile import RuleProfile

MAX_STATES = 1 << 22  # total states over all steps before the DP gives up (deterministic)


HASH_BITS = 20  # one step holds at most half of 2**HASH_BITS states


MIN_HASH_BITS = 8  # a step's hash table starts at least this big (``_new_step``)


MAX_OPEN_RUNS = 7  # open runs per colour that the action code can describe


MAX_KEY_BITS = 62


OVERFLOW = -2  # the state arrays are full (the search gives up: ``GiveUp.STATES``)


OVER_BUDGET = -3  # the search budget is spent


NO_STATE = -1


class KernelTables(NamedTuple):
    """The kernel's record of a ``_Tables`` (``_Tables.kernel``, built once with it): the moves
    of a colour state, what each colour state still needs, and the state key's layout. A colour
    state is an index into the multisets of open runs by type (``_Tables.dec``)."""

    # (states, copies + 1) the first row of ``moves`` of a colour state whose runs (new runs
    # included) take ``u`` tiles of the face, and one past its last row
    move_start: np.ndarray
    move_end: np.ndarray
    moves: np.ndarray  # rows (new colour state, jokers, action bits), by jokers within a block
    group_jokers: np.ndarray  # (n, m) jokers the groups of a value need; -1 if none can form
    final_jokers: np.ndarray  # (states,) leading jokers that close its runs at the end; -1: none
    debt: np.ndarray  # (states,) items its open runs still need (the beam's ranking)
    needy: np.ndarray  # (states,) its open runs that must take an item (tile or joker) next
    drop: np.ndarray  # (states, types) it less one run of that type (that joins a pin, or becomes
    # the tracked host run: ``host_fields.HostFields.promote``); -1: none
    pin_add: np.ndarray  # (states,) it plus one valid run E (a pinned run ends); -1: too many
    add: np.ndarray  # (states, types) it plus one open run of that type (a tracked host run put
    # back, ``backward.future_ok``); -1: too many
    # the key: per colour its state (colour ``c`` at bit ``c * width``), then the jokers placed
    # so far (3 bits), the tiles of the current value set aside for groups (``n_bits``), the
    # most of one colour among them (``m_bits``), and with wrap per colour the 1s used low
    # (``low_bits`` each); the ``*_at`` fields are their first bits
    width: int
    jokers_at: int
    n_at: int
    m_at: int
    low_at: int
    low_bits: int
    n_bits: int
    m_bits: int


@dataclass(frozen=True)
class _Tables:
    """Encodings of one profile, built once: colour states, their moves, group jokers."""

    types: RunTypes
    max_runs: int
    dec: np.ndarray  # (states, types) open runs by type
    kernel: KernelTables  # the moves, the per-state tables and the key's layout


def _bits(n: int) -> int:
    return max(1, int(n).bit_length())


def _compositions(n_types: int, total: int):
    """Every count vector over ``n_types`` types with sum at most ``total``."""
    if n_types == 0:
        yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(n_types - 1, total - first):
            yield (first, *rest)


def _cap_binds(profile: RuleProfile, n_jokers: int) -> bool:
    """Whether ``jokers.max_per_set`` could bind with ``n_jokers`` jokers in the DP's hands."""
    return n_jokers > profile.jokers.max_per_set


@lru_cache(maxsize=64)
def _tables(profile: RuleProfile, copies: int, n_jokers: int, relax_cap: bool = False) -> _Tables | None:
    """Tables for a profile with up to ``copies`` tiles per face (more than the tile set's
    copies when kept table jokers stand in as tiles at their faces) and ``n_jokers`` jokers
    to place; runs carry their joker count when ``jokers.max_per_set`` could bind, unless
    ``relax_cap`` (a run may then hold more jokers than the cap: a relaxation, whose plays
    the caller must check)."""
    ts = profile.tileset
    cap = profile.jokers.max_per_set
    types = run_types(cap if _cap_binds(profile, n_jokers) and not relax_cap else None)
    max_runs = copies + n_jokers  # each open run holds a tile or a joker at this position
    if max_runs > MAX_OPEN_RUNS or n_jokers > 7:
        return None
    index: dict[tuple[int, ...], int] = {}
    for counts in _compositions(types.n, max_runs):
        if sum(h * c for h, c in zip(types.held, counts, strict=True)) <= n_jokers:
            index[counts] = len(index)
    dec = np.array(list(index), dtype=np.int64)
    move_start = np.zeros((len(index), copies + 1), dtype=np.int64)
    move_end = np.zeros_like(move_start)
    rows: list[tuple[int, int, int]] = []
    for counts, s in index.items():
        treatments = colour_moves(counts, types)
        for u in range(copies + 1):
            move_start[s, u] = len(rows)
            block = []
            for moved, jokers, tiles, bits, merge_closed in treatments:
                starts = u - tiles
                if starts < 0 or jokers > n_jokers or (starts and merge_closed):
                    continue  # extending the closing run is never worse than a new one
                new = list(moved)
                new[TYPE_A] += starts
                s_new = index.get(tuple(new))
                if s_new is not None:
                    block.append((s_new, jokers, bits | (starts << STARTS_AT)))
            rows.extend(sorted(block, key=lambda row: row[1]))
            move_end[s, u] = len(rows)
    moves = np.array(rows, dtype=np.int64).reshape(-1, 3)
    final_jokers = np.array(
        [
            -1 if any(c and types.top_jokers[k] < 0 for k, c in enumerate(counts))
            else sum(c * types.top_jokers[k] for k, c in enumerate(counts))
            for counts in index
        ],
        dtype=np.int64,
    )  # fmt: skip
    debt = np.array(
        [sum(c * types.debt[k] for k, c in enumerate(counts)) for counts in index], dtype=np.int64
    )
    needy = np.array(
        [sum(c for k, c in enumerate(counts) if types.debt[k]) for counts in index], dtype=np.int64
    )
    drop = np.full((len(index), types.n), -1, dtype=np.int64)
    add = np.full((len(index), types.n), -1, dtype=np.int64)
    for counts, s in index.items():
        for kind in range(types.n):
            if counts[kind]:
                less = list(counts)
                less[kind] -= 1
                drop[s, kind] = index[tuple(less)]
                add[drop[s, kind], kind] = s
    # pins (untracked types only: a pinned run needs no per-run joker count there)
    pin_add = np.full(len(index), -1, dtype=np.int64)
    if "C" in types.names:
        kind_e = types.names.index("E")
        for counts, s in index.items():
            more = list(counts)
            more[kind_e] += 1
            pin_add[s] = index.get(tuple(more), -1)
    n_max = ts.colours * copies
    group_jokers = np.array(
        [
            [
                group_jokers_needed(n, m, profile.groups.min_size, profile.groups.max_size, cap)
                for m in range(copies + 1)
            ]
            for n in range(n_max + 1)
        ],
        dtype=np.int64,
    )
    width = _bits(len(index) - 1)
    n_bits, m_bits, low_bits = _bits(n_max), _bits(copies), _bits(copies)
    jokers_at = ts.colours * width
    n_at = jokers_at + 3
    m_at = n_at + n_bits
    low_at = m_at + m_bits
    key_bits = low_at + (ts.colours * low_bits if profile.wrap else 0)
    if key_bits > MAX_KEY_BITS:
        return None
    for arr in (
        dec,
        final_jokers,
        debt,
        needy,
        move_start,
        move_end,
        moves,
        group_jokers,
        drop,
        pin_add,
        add,
    ):
        arr.setflags(write=False)
    kernel = KernelTables(
        move_start, move_end, moves, group_jokers, final_jokers, debt, needy, drop, pin_add, add,
        width, jokers_at, n_at, m_at, low_at, low_bits, n_bits, m_bits,
    )  # fmt: skip
    return _Tables(types, max_runs, dec, kernel)


# The action word of a colour step: for each run type ``k`` the runs extended by a tile (bits
# 3k..3k+2) and by a joker (bits 3(N + k)..), the runs started (STARTS_AT), the tiles used
# (X_AT) and the tiles set aside for groups (G_AT). A group step's action is its jokers.
MAX_TYPES = 16


STARTS_AT = 3 * MAX_TYPES


X_AT = STARTS_AT + 4


G_AT = X_AT + 4


HOST_OP_AT = 40  # a colour step's move of the host set of a freed joker (``dp._host_move``)


HOST_GROUP_AT = 8  # a group step's flag: the freed joker joins the groups of this value


# the same for a second freed joker's host set; the ops (4 bits each) sit in bits the run types
# leave free (a search that tracks host sets has the four untracked run types, bits 0..23)
HOST2_OP_AT = 44


HOST2_GROUP_AT = 9


HOST_SHARE_AT = 39  # set where one rack copy of a face both host runs take counts for the second


HOST_PROMOTE_AT = 36  # a colour step's open run that becomes the host run (its type plus one, 3 bits)


TYPE_A = 0  # a run of one tile; every run starts so


# the DP's groups hold two numbered tiles: a group of one tile and jokers (``R5 J J``) is the
# same set of tiles as a run (``R5 J J``, or ``J J R13`` at the top), which the DP builds
GROUP_NUMBERED = 2


@dataclass(frozen=True)
class RunTypes:
    """The types an open run of the DP is reduced to, and their moves.

    Every run starts with a numbered tile (a leading joker moves to the end, see
    ``dp``), so it always holds the one numbered tile a set needs; what is left to
    know is its length capped at 3 and, where ``jokers.max_per_set`` could bind, the
    jokers it holds. Untracked (``cap`` None): ``A`` one tile; ``C`` two items; ``D`` a
    valid run followed by a joker, waiting for a tile (a trailing joker is a spare, placed
    when decoding); ``E`` valid, may close. Tracked (cap ``M``): ``A``, ``C0``/``C1``,
    ``E0``..``EM`` and ``D1``..``DM``, the digit being the jokers held; a joker past the
    cap is no move."""

    names: tuple[str, ...]
    held: tuple[int, ...]  # jokers a run of this type holds (tracked), else 0
    after_tile: tuple[int, ...]
    after_joker: tuple[int, ...]  # -1: a joker here would pass the cap
    closes: tuple[bool, ...]  # may close (a valid run, no trailing spare joker)
    merges: tuple[bool, ...]  # closing it while a run of its colour starts is never better
    top_jokers: tuple[int, ...]  # leading jokers that close it at the last position; -1: none
    debt: tuple[int, ...]  # items it still needs to be a set (the beam's ranking)

    @property
    def n(self) -> int:
        return len(self.names)


@lru_cache(maxsize=8)
def run_types(cap: int | None) -> RunTypes:
    """The run types with per-run joker counts up to ``cap`` (None: not tracked)."""
    if cap is None:
        # A, C, D, E: A+joker is C ("R3 J" needs one more item, a tile or a joker)
        return RunTypes(
            names=("A", "C", "D", "E"),
            held=(0, 0, 0, 0),
            after_tile=(1, 3, 3, 3),
            after_joker=(1, 3, 2, 2),
            closes=(False, False, False, True),
            merges=(False, False, False, True),
            top_jokers=(2, 1, -1, 0),
            debt=(2, 1, 1, 0),
        )
    names = ["A", "C0", "C1"] + [f"E{j}" for j in range(cap + 1)] + [f"D{j}" for j in range(1, cap + 1)]
    index = {name: i for i, name in enumerate(names)}
    held, after_tile, after_joker, closes, merges, top, debt = [], [], [], [], [], [], []
    for name in names:
        kind, j = name[0], int(name[1:] or 0)
        more = j + 1 <= cap  # may it take one more joker?
        held.append(j)
        closes.append(kind == "E")
        merges.append(kind == "E" and j == 0)
        if kind == "A":
            after_tile.append(index["C0"])
            after_joker.append(index["C1"])
            top.append(2 if cap >= 2 else -1)
            debt.append(2)
        elif kind == "C":
            after_tile.append(index[f"E{j}"])
            after_joker.append(index[f"E{j + 1}"] if more else -1)
            top.append(1 if more else -1)
            debt.append(1)
        else:  # E or D
            after_tile.append(index[f"E{j}"])
            after_joker.append(index[f"D{j + 1}"] if more else -1)
            top.append(0 if kind == "E" else -1)
            debt.append(0 if kind == "E" else 1)
    return RunTypes(
        tuple(names), tuple(held), tuple(after_tile), tuple(after_joker), tuple(closes),
        tuple(merges), tuple(top), tuple(debt),
    )  # fmt: skip


def group_jokers_needed(n: int, m: int, min_size: int, max_size: int, cap: int) -> int:
    """Fewest jokers that let ``n`` tiles of one value (at most ``m`` of a colour) form groups
    of distinct colours, each with ``GROUP_NUMBERED`` numbered tiles and at most ``cap``
    jokers; -1 if no grouping exists. Round robin over ``k`` groups gives balanced sizes,
    which need the fewest jokers, and the fewest in any one group."""
    if n == 0:
        return 0
    best = -1
    for k in range(max(m, 1), n // GROUP_NUMBERED + 1):
        small, extra = divmod(n, k)
        sizes = [small + 1] * extra + [small] * (k - extra)
        if max(sizes) > max_size or min_size - min(sizes) > cap:
            continue
        need = sum(max(0, min_size - s) for s in sizes)
        if best < 0 or need < best:
            best = need
    return best


def colour_moves(
    counts: tuple[int, ...], types: RunTypes
) -> list[tuple[tuple[int, ...], int, int, int, bool]]:
    """Every treatment of one colour's open runs (``counts`` by type): (new counts, jokers
    used, tiles used by the runs, action bits, merge_closed). Each run is extended by a tile or a joker,
    or closed (a type that ``closes``); the tiles left start new runs (added by the caller,
    which knows how many tiles there are). Jokers go only where a set needs them."""
    n_types = types.n
    per_type = []
    for k, n in enumerate(counts):
        options = []  # (by tile, by joker, closed)
        for t in range(n + 1):
            rest = n - t
            if types.closes[k]:
                for b in range(rest + 1):
                    if b and types.after_joker[k] < 0:
                        break
                    options.append((t, b, rest - b))
            elif not rest or types.after_joker[k] >= 0:
                options.append((t, rest, 0))
        per_type.append(options)
    out = []
    for combo in product(*per_type):
        new = [0] * n_types
        jokers = tiles = 0
        bits = 0
        merge_closed = False
        for k, (t, b, closed) in enumerate(combo):
            if t:
                new[types.after_tile[k]] += t
            if b:
                new[types.after_joker[k]] += b
            jokers += b
            tiles += t
            bits |= (t << (3 * k)) | (b << (3 * (n_types + k)))
            merge_closed |= closed > 0 and types.merges[k]
        out.append((tuple(new), jokers, tiles, bits, merge_closed))
    return out


@lru_cache(maxsize=8)
def type_arrays(types: RunTypes) -> tuple[np.ndarray, ...]:
    """``_replay``'s view of the run types: after a tile, after a joker, may close, top jokers."""
    return (
        np.array(types.after_tile, dtype=np.int64),
        np.array(types.after_joker, dtype=np.int64),
        np.array(types.closes, dtype=np.bool_),
        np.array(types.top_jokers, dtype=np.int64),
    )
