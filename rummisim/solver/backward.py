"""What a state of a tracked host pass can still add, read off the same pass without host fields
(0.3.16). Compiled with numba; pure; no I/O.

A pass that tracks a freed joker's host set (``host_fields``) carries, beside each key of the
plain pass, the host set's progress: about seven times the plain pass's states, most of them
states that cannot reach the floor. The plain pass on the same position and floor is a
relaxation of it (its freed jokers may go anywhere): every way on from a tracked state is a way
on from the plain state it projects to, the host run put back among its colour's open runs, with
as many tiles placed. So where the plain pass says the most that state can still add (``future``),
a tracked state whose score plus that stays below the floor is left out where it is made.

- ``_record``: the plain pass notes each edge it makes (parent, child, gain; ``Edges``), the
  states of each step and which final states close.
- ``build_future``: the most each plain state can still add, backwards over the edges (a state
  none of whose ways on reaches a final state that closes: ``DEAD``), kept per step as the
  sorted keys less their jokers placed, with the most by jokers placed (a state with fewer
  jokers placed can do what one with more can; ``Future``).
- ``future_ok``: whether a tracked state may still reach the floor. A projection the plain pass
  never made (a tracked pass places some jokers the plain one leaves for the decoding, e.g. a
  freed joker at a face whose tile stays on the rack) says nothing: the state stays.

The projection is a bound only where every tracked state's way on is one of the plain pass's.
Under ``jokers.reuse: new_set`` it is not: the plain pass never closes a valid run where a run of
its colour starts (``tables.RunTypes.merges``; extending it places the same tiles), while a host
run of rack tiles alone must close before a table tile; the plain state it projects to is then made
only by a worse path, whose ways on the plain pass's floor cut. So a ``new_set`` tracked pass runs
without these bounds (``jokers._tracked_host``; fuzz seed 42201). Under ``two_rack_tiles`` a host
run may hold table tiles, so the tracked pass extends it there, as the plain pass does.

On ``guide-strict-joker`` trickle-jokers' slowest tracked passes the states fall about threefold
(#195: 326,828 -> 94,626 beside the plain pass's 57,354), every answer the same.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numba
import numpy as np

from rummisim.solver.budget import SearchOptions
from rummisim.solver.host_fields import HOST_ACTIVE, HOST_MASK, HOST_PER_COLOUR, host_run
from rummisim.solver.tables import MAX_STATES

ABSENT = -(1 << 62)  # no plain state of this key (less its jokers) with as few jokers placed
DEAD = -(1 << 61)  # a plain state none of whose ways on reaches a final state that closes
JOKERS_MASK = 7  # the key's jokers-placed field (``tables.KernelTables.jokers_at``)
MAX_STEPS = 256  # steps of a pass: positions (at most 14) times colours plus one


class Edges(NamedTuple):
    """A plain pass's record (``_record``): every edge it made and where each step's states lie."""

    parent: np.ndarray  # (MAX_STATES,) int32, the state the edge leaves
    child: np.ndarray  # (MAX_STATES,) int32, the state it makes or reaches again
    gain: np.ndarray  # (MAX_STATES,) int32, the score it adds
    made: np.ndarray  # (1,) edges made; past the arrays: no future from this pass
    step_lo: np.ndarray  # (MAX_STEPS,) each step's first state
    step_hi: np.ndarray  # (MAX_STEPS,) ... and the state after its last
    final_ok: np.ndarray  # (MAX_STATES,) bool, per state of the last step: it closes


class Future(NamedTuple):
    """The most a plain state can still add (``build_future``), for the tracked pass's ``future_ok``."""

    ptr: np.ndarray  # (steps + 1,) each step's rows
    base: np.ndarray  # (rows,) the plain keys less their jokers placed, sorted within a step
    most: np.ndarray  # (rows, 8) the most it can add with at most that many jokers placed (or ABSENT)
    add: np.ndarray  # (states, types) a colour state plus one open run of a type (``KernelTables.add``)


@cache
def edges() -> Edges:
    """The edge arrays, made on first use and shared by every search of the process (their pages
    are only touched as a pass fills them)."""
    states = np.empty(MAX_STATES, dtype=np.int32), np.empty(MAX_STATES, dtype=np.int32)
    gains, made = np.empty(MAX_STATES, dtype=np.int32), np.zeros(1, dtype=np.int64)
    steps = np.zeros(MAX_STEPS, dtype=np.int64), np.zeros(MAX_STEPS, dtype=np.int64)
    return Edges(*states, gains, made, *steps, np.zeros(MAX_STATES, dtype=np.bool_))


def pass_edges(tracked: bool, options: SearchOptions) -> tuple | None:
    """The edge arrays (as a tuple, for the compiled passes) that a tracked pass's plain pass notes
    its edges in, or None: no tracked pass, or ``SearchOptions.backward`` off."""
    return tuple(edges()) if tracked and options.backward else None


@numba.njit(cache=True, nogil=True, inline="always")
def _record(edges, parent, child, gain):
    """Note one edge of the plain pass; past the arrays the count runs on (no future then)."""
    e = edges.made[0]
    if e < edges.parent.shape[0]:
        edges.parent[e] = parent
        edges.child[e] = child
        edges.gain[e] = gain
    edges.made[0] = e + 1


@numba.njit(cache=True, nogil=True)
def no_future(add):
    """A ``Future`` that leaves out no state (a tracked pass takes one always; ``add``: the tables')."""
    rows = np.empty((0, JOKERS_MASK + 1), dtype=np.int64)
    return Future(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), rows, add)


@numba.njit(cache=True, nogil=True)
def build_future(keys, edges, n_steps, jokers_at, add):
    """The ``Future`` of the plain pass just run (its states in ``keys``, its record in
    ``edges``, within the arrays: the caller checks ``edges.made``)."""
    n_edges = edges.made[0]
    last_lo, n_states = edges.step_lo[n_steps - 1], edges.step_hi[n_steps - 1]
    most = np.full(n_states, DEAD, dtype=np.int64)
    for i in range(last_lo, n_states):
        if edges.final_ok[i - last_lo]:
            most[i] = 0
    # the edges of a step come after those of the step before: backwards, a child is settled first
    for e in range(n_edges - 1, -1, -1):
        child = edges.child[e]
        if most[child] > DEAD:
            parent = edges.parent[e]
            most[parent] = max(most[parent], most[child] + edges.gain[e])
    jmask = np.int64(JOKERS_MASK) << jokers_at
    # each step's states sorted by their keys less the jokers placed; a row per distinct key
    ptr = np.zeros(n_steps + 1, dtype=np.int64)
    sorted_rest = np.empty(n_states, dtype=np.int64)
    sorted_state = np.empty(n_states, dtype=np.int64)
    rows = 0
    for t in range(n_steps):
        lo, hi = edges.step_lo[t], edges.step_hi[t]
        rest = keys[lo:hi] & ~jmask
        order = np.argsort(rest)
        for j in range(hi - lo):
            sorted_rest[lo + j] = rest[order[j]]
            sorted_state[lo + j] = lo + order[j]
            if j == 0 or sorted_rest[lo + j] != sorted_rest[lo + j - 1]:
                rows += 1
        ptr[t + 1] = rows
    base = np.empty(rows, dtype=np.int64)
    table = np.full((rows, JOKERS_MASK + 1), ABSENT, dtype=np.int64)
    row = -1
    for t in range(n_steps):
        lo, hi = edges.step_lo[t], edges.step_hi[t]
        for j in range(lo, hi):
            if j == lo or sorted_rest[j] != sorted_rest[j - 1]:
                row += 1
                base[row] = sorted_rest[j]
            i = sorted_state[j]
            used = (keys[i] >> jokers_at) & JOKERS_MASK
            table[row, used] = max(table[row, used], most[i])
    for r in range(rows):  # the most with at most that many jokers placed
        best = ABSENT
        for used in range(JOKERS_MASK + 1):
            if table[r, used] != ABSENT:
                best = max(best, table[r, used])
            table[r, used] = best
    return Future(ptr, base, table, add)


@numba.njit(cache=True, nogil=True, inline="always")
def future_ok(key, score, t, bound, future, host, width, jokers_at):
    """Whether a tracked state (``key``, ``score``) made at step ``t`` may still reach the floor
    ``bound``: its projection (the host fields dropped, each host run back among its colour's
    open runs) is a plain state that can add enough, or one the plain pass never made."""
    rest = key & ((np.int64(1) << host.at) - 1)
    wmask = np.int64((1 << width) - 1)
    for at in (host.at, host.second_at):
        if at < 0:
            continue
        h = (key >> at) & HOST_MASK
        if h >= HOST_ACTIVE:
            first, kind, _, _ = host_run(h)
            c = (first - HOST_ACTIVE) // HOST_PER_COLOUR
            s = future.add[(rest >> (c * width)) & wmask, kind]
            if s < 0:
                return True
            rest = (rest & ~(wmask << (c * width))) | (s << (c * width))
    used = (rest >> jokers_at) & JOKERS_MASK
    rest = rest & ~(np.int64(JOKERS_MASK) << jokers_at)
    lo, hi = future.ptr[t], future.ptr[t + 1]
    row = lo + np.searchsorted(future.base[lo:hi], rest)
    if row == hi or future.base[row] != rest:
        return True
    most = future.most[row, used]
    return most == ABSENT or score + most >= bound
