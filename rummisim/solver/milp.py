"""Exact move search as an integer program over set patterns (``scipy.optimize.milp``).

The model follows den Hertog & Hulshof: choose how many copies of each set
pattern go on the new table so that every table tile is used and as many rack
tiles as possible are placed. On top of that it encodes every rule the engine
checks (``moves.validate_move``):

- every set holds a numbered tile and at most ``jokers.max_per_set`` jokers
  (``R7 J J`` is a set, RULES.md "open questions"): per window copy, per
  pattern, per host copy and per superset of a frozen set;

- locked table jokers either keep their face (``keep``) or are freed by a
  matching rack tile (``free``); with ``reuse: two_rack_tiles`` each set that
  holds a freed joker (a *host*) gets two rack tiles other than the freeing
  ones (rack tiles are claimed per code, which is exact by Hall's theorem).
  Hosts are explicit sets of any length with a 0/1 variable per joker place
  (``_add_hosts``): a long run cannot be cut into windows or patterns when the
  freed joker and its two rack tiles sit far apart;
- with ``take_from_joker_sets: false`` a table set that keeps a joker is
  *frozen*: one superset of it must be on the new table; with no rearrangement
  (``rearrange=False`` or ``turn.rearrange: false``) every table set is frozen;
- the initial meld: rack-only sets worth at least the threshold (one set if the
  profile says so; ``one_qualifying``: one of them worth it alone), and when the
  opening turn may touch the table those sets plus a full rearrangement in the
  same move, which may also free locked table jokers (as ``validate_move`` allows
  then: 004, 002).

Objective ``tiles``: rack tiles placed, ties broken by value; ``value``: the
reverse. A placed rack joker is worth ``jokers.penalty`` points (what it would
cost on the rack). This module is the reference that the fast solver is tested
against, and it is itself exact.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from rummisim.geometry import run_geometry
from rummisim.melds import (
    MIN_NUMBERED_TILES,
    Meld,
    face_kind,
    max_jokers_in_set,
    set_catalogue,
)
from rummisim.moves import joker_acceptable
from rummisim.profile import RuleProfile
from rummisim.solver.common import HOST_RACK_ITEMS, SearchBudgetSpent, SearchResult, tile_gain
from rummisim.solver.patterns import masked_meld, set_patterns

MilpResult = SearchResult  # the name the integer program's callers know

# What a search budget charges the integer program (``dispatch``): per branch-and-bound node, this
# many units per nonzero of its constraint matrix. Measured on game positions of every profile
# (December 2026): one node of a model with 2,000-40,000 nonzeros takes HiGHS a median 5-13 us
# per nonzero, about 7 overall, and the DP 0.4-1 us per state (its unit, searches included), so a
# unit buys about the same time in both searches. Deterministic: the model is a function of the
# position.
MILP_UNITS_PER_NONZERO = 16


class _Model:
    """A tiny builder for ``scipy.optimize.milp`` (maximisation), within ``units`` search units
    (``None``: no limit): each branch-and-bound node costs ``MILP_UNITS_PER_NONZERO`` per nonzero
    of the constraint matrix, and a model whose first node would cost more raises
    ``SearchBudgetSpent`` as soon as its rows pass that (before it is built in full)."""

    def __init__(self, units: int | None = None) -> None:
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.cost: list[float] = []
        self.rows: list[tuple[dict[int, float], float, float]] = []
        self.units = units
        self.nonzeros = 0

    def var(self, lb: float, ub: float, gain: float = 0.0) -> int:
        self.lb.append(lb)
        self.ub.append(ub)
        self.cost.append(-gain)
        return len(self.lb) - 1

    def add(self, coefs: Mapping[int, float], lo: float, hi: float) -> None:
        coefs = {k: v for k, v in coefs.items() if v}
        if not coefs:
            if lo <= 0 <= hi:
                return
            coefs = {0: 0.0}  # an infeasible empty row stays infeasible
        self.rows.append((coefs, lo, hi))
        self.nonzeros += len(coefs)
        self._check()

    def _per_node(self) -> int:
        return MILP_UNITS_PER_NONZERO * max(self.nonzeros, 1)

    def _check(self) -> None:
        if self.units is not None and self._per_node() > self.units:
            raise SearchBudgetSpent  # the budget left does not cover one node

    def solve(self, *, presolve: bool = True):
        """``scipy.optimize.milp`` on the model, within its units; the result's ``units`` says
        what the solve cost."""
        self._check()
        n = len(self.lb)
        data, ri, ci, lo, hi = [], [], [], [], []
        for r, (coefs, low, high) in enumerate(self.rows):
            for k, v in coefs.items():
                ri.append(r)
                ci.append(k)
                data.append(v)
            lo.append(low)
            hi.append(high)
        per_node = self._per_node()
        # the objective is an integer near 1e3-1e5 whose last units are the tie-break (value
        # or tiles): HiGHS's default relative gap (1e-4) could stop short of it
        options = {"presolve": presolve, "mip_rel_gap": 0.0}
        if self.units is not None:
            options["node_limit"] = self.units // per_node
        constraints = []
        if self.rows:
            matrix = coo_array((data, (ri, ci)), shape=(len(self.rows), n)).tocsr()
            constraints.append(LinearConstraint(matrix, lo, hi))
        res = milp(
            c=np.asarray(self.cost),
            integrality=np.ones(n),
            bounds=Bounds(self.lb, self.ub),
            constraints=constraints,
            options=options,
        )
        res.units = per_node * max(int(getattr(res, "mip_node_count", 0) or 0), 1)
        return res


def _supersets(meld: Meld, profile: RuleProfile, avail: np.ndarray, rack_jokers: int, recolour: bool = False):
    """Patterns (faces, joker mask) that contain ``meld`` with its jokers at their faces,
    extended by available tiles or up to ``rack_jokers`` jokers. With ``recolour`` (a set kept
    together because it holds a locked joker, under ``group_any_missing_colour``) a group's
    jokers may also stand for any other colour it lacks: ``K11 J(O11) B11`` plus ``O11`` is
    ``K11 J(R11) O11 B11``."""
    ts = profile.tileset
    mask = tuple(t == ts.joker for t in meld.tiles)
    out = [(meld.faces, mask)]
    kind = face_kind(meld.faces, profile)
    # a superset holds at most ``jokers.max_per_set`` jokers
    rack_jokers = min(rack_jokers, max(0, profile.jokers.max_per_set - sum(mask)))
    if kind == "group" and recolour and profile.jokers.group_any_missing_colour and any(mask):
        return _recoloured_groups(meld, mask, profile, avail, rack_jokers)
    if kind == "group":
        if len(meld.faces) < profile.groups.max_size:
            value = ts.value_of(meld.faces[0])
            present = {ts.colour_of(f) for f in meld.faces}
            for c in range(ts.colours):
                if c in present:
                    continue
                face = ts.code(c, value)
                for as_joker in (False, True):
                    if (as_joker and rack_jokers) or (not as_joker and avail[face] > 0):
                        faces = tuple(sorted((*meld.faces, face), key=ts.colour_of))
                        jm = tuple(
                            (f == face and as_joker) or (f != face and mask[meld.faces.index(f)])
                            for f in faces
                        )
                        out.append((faces, jm))
        return out
    geo = run_geometry(profile)
    positions = geo.positions(meld.faces)
    assert positions is not None  # a table meld that is not a group is a valid run
    colour = ts.colour_of(meld.faces[0])

    def face_at(p: int) -> int:
        return geo.code_at(colour, p)

    lo, hi = positions[0], positions[-1]
    for new_lo in range(lo, 0, -1):
        for new_hi in range(hi, geo.top + 1):
            if (new_lo, new_hi) == (lo, hi) or not geo.allowed(new_lo, new_hi):
                continue
            extra = [p for p in range(new_lo, new_hi + 1) if p < lo or p > hi]
            options = []
            for p in extra:
                choice = []
                if avail[face_at(p)] > 0:
                    choice.append(False)
                if rack_jokers:
                    choice.append(True)
                options.append(choice)
            if any(not c for c in options):
                continue
            for combo in product(*options):
                if sum(combo) > rack_jokers:
                    continue
                ext = dict(zip(extra, combo, strict=True))
                faces = tuple(face_at(p) for p in range(new_lo, new_hi + 1))
                jm = tuple(
                    ext[p] if p in ext else mask[positions.index(p)] for p in range(new_lo, new_hi + 1)
                )
                out.append((faces, jm))
    return out


def _recoloured_groups(meld: Meld, mask, profile: RuleProfile, avail: np.ndarray, rack_jokers: int):
    """Every group holding ``meld``'s numbered tiles and its jokers, each joker at any colour no
    numbered tile has, plus at most one available tile of another colour or one rack joker."""
    ts = profile.tileset
    value = ts.value_of(meld.faces[0])
    numbered = {ts.colour_of(f) for f, j in zip(meld.faces, mask, strict=True) if not j}
    n_jokers = sum(mask)
    adds: list[tuple[int | None, int]] = [(None, 0)]  # (added tile's colour, added jokers)
    adds += [(c, 0) for c in range(ts.colours) if c not in numbered and avail[ts.code(c, value)] > 0]
    if rack_jokers:
        adds.append((None, 1))
    out = []
    for colour, extra in adds:
        tiles = numbered | ({colour} if colour is not None else set())
        jokers = n_jokers + extra
        if len(tiles) + jokers > profile.groups.max_size:
            continue
        for joker_colours in combinations(sorted(set(range(ts.colours)) - tiles), jokers):
            colours = sorted(tiles | set(joker_colours))
            out.append(
                (tuple(ts.code(c, value) for c in colours), tuple(c in joker_colours for c in colours))
            )
    return out


def solve_milp(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    *,
    initial: bool,
    objective: str,
    rearrange: bool,
    units: int | None = None,
    formulation: str = "windows",
) -> MilpResult:
    """Best move (see module docstring); ``played == ()`` means no legal play exists.

    ``formulation="windows"`` (fast) has one integer per set window plus joker counts
    per face; ``"patterns"`` has one integer per set pattern with fixed joker places
    (more symmetric, slower, kept as a cross-check)."""
    ts = profile.tileset
    n_codes = ts.joker
    joker = ts.joker
    pats = set_patterns(profile)
    rack_counts = np.bincount(np.asarray(rack, dtype=np.int64), minlength=ts.n_codes)
    r, r_jokers = rack_counts[:n_codes], int(rack_counts[joker])
    qualifying = profile.initial_meld.sets == "one_qualifying"
    single = profile.initial_meld.sets == "single"
    if initial and not profile.initial_meld.may_touch_table:
        # one set (or one worth the threshold): a long run counts as one, so every run pattern
        opening_pats = set_patterns(profile, whole_runs=True) if single or qualifying else pats
        return _rack_only(opening_pats, profile, r, r_jokers, table, objective, units)

    table_counts = np.bincount(
        np.asarray([t for m in table for t in m.tiles], dtype=np.int64), minlength=ts.n_codes
    )
    t_num, t_jokers = table_counts[:n_codes], int(table_counts[joker])
    avail = t_num + r
    locked = profile.jokers.table_jokers == "locked"
    rearranging = rearrange and profile.turn.rearrange
    # as ``moves.validate_move``: after the opening, or in the opening turn where it may touch
    # the table (``initial`` reaches here only then) or ``retrieve_before_initial_meld``
    may_free = locked and rearranging

    model = _Model(units)
    columns: list[tuple[int, tuple, tuple]] = []  # (var, faces, mask) of every set column
    numbered_rows: dict[int, dict[int, float]] = defaultdict(dict)
    joker_row: dict[int, float] = {}
    slot_rows: dict[int, dict[int, float]] = defaultdict(dict)  # joker slots by face

    def add_column(var: int, faces, mask) -> None:
        columns.append((var, faces, mask))
        for f, is_joker in zip(faces, mask, strict=True):
            if is_joker:
                joker_row[var] = joker_row.get(var, 0) + 1
                slot_rows[f][var] = slot_rows[f].get(var, 0) + 1
            else:
                numbered_rows[f][var] = numbered_rows[f].get(var, 0) + 1

    # -- free sets (x), filtered by availability
    window_cols: list[_Window] = []
    total_jokers = t_jokers + r_jokers
    if formulation == "windows":
        source = r if not rearranging else avail
        joker_cap = r_jokers if not rearranging else total_jokers
        for faces in _windows(profile):
            window = _add_window(
                model, profile, faces, source, joker_cap, numbered_rows, joker_row, slot_rows
            )
            if window is not None:
                window_cols.append(window)
    else:
        fits = np.all(pats.numbered <= avail, axis=1) & (pats.n_jokers <= total_jokers)
        if not rearranging:
            fits &= np.all(pats.numbered <= r, axis=1) & (pats.n_jokers <= r_jokers)
        for p in np.flatnonzero(fits):
            need = pats.numbered[p]
            codes = np.flatnonzero(need)
            bound = int(np.min(avail[codes] // need[codes])) if codes.size else 4
            var = model.var(0, bound)
            add_column(var, pats.faces[p], pats.jokers[p])

    # -- rack tiles placed (y)
    y_vars = {
        int(c): model.var(0, int(r[c]), tile_gain(profile, int(c), objective)) for c in np.flatnonzero(r)
    }
    y_joker = model.var(0, r_jokers, tile_gain(profile, joker, objective)) if r_jokers else None
    rack_use: dict[int, dict[int, float]] = defaultdict(dict)  # rack tiles claimed by o/u/w
    rack_joker_use: dict[int, float] = {}

    # -- table jokers: keep or free
    keep_of: dict[int, list[int]] = defaultdict(list)  # table joker -> keep vars
    freed_of: dict[int, list[int]] = defaultdict(list)  # table joker -> free vars
    keep_face_rows: dict[int, dict[int, float]] = defaultdict(dict)
    free_vars: list[int] = []
    freeable = 0  # table jokers some rack tile may free
    joker_list = []
    if locked:
        for mi, meld in enumerate(table):
            for t, face in zip(meld.tiles, meld.faces, strict=True):
                if t == joker:
                    joker_list.append((mi, face, joker_acceptable(profile, meld, face)))
        for k, (_, _face, ok) in enumerate(joker_list):
            row: dict[int, float] = {}
            for f in sorted(ok):
                v = model.var(0, 1)
                keep_of[k].append(v)
                keep_face_rows[f][v] = 1
                row[v] = 1
                if may_free and r[f] > 0:
                    u = model.var(0, 1)
                    free_vars.append(u)
                    freed_of[k].append(u)
                    rack_use[f][u] = 1
                    row[u] = 1
            freeable += len(row) > len(keep_of[k])
            model.add(row, 1, 1)

    # -- frozen table sets (z): supersets that keep a set together
    frozen: list[tuple[int, str | None]] = []
    if not rearranging:
        frozen = [(mi, None) for mi in range(len(table))]
    elif not profile.jokers.take_from_joker_sets:
        frozen = [(mi, "joker") for mi, m in enumerate(table) if joker in m.tiles]
    # (meld index, its superset columns, keep_meld var or None), added after the hosts
    superset_rows: list[tuple[int, dict[int, float], int | None]] = []
    for mi, why in frozen:
        meld = table[mi]
        z_row: dict[int, float] = {}
        for faces, mask in _supersets(meld, profile, avail, r_jokers, recolour=why == "joker"):
            v = model.var(0, 1)
            z_row[v] = 1
            add_column(v, faces, mask)
        if why is None or not locked:
            superset_rows.append((mi, z_row, None))
        else:
            keep_meld = model.var(0, 1)
            for k, (owner, _, _) in enumerate(joker_list):
                if owner == mi:
                    model.add({keep_meld: 1, **{v: -1 for v in keep_of[k]}}, 0, np.inf)
            superset_rows.append((mi, z_row, keep_meld))

    # -- the initial meld in a turn that may also touch the table (o)
    if initial:
        o_row: dict[int, float] = {}
        value_row: dict[int, float] = {}
        # the opening sets' joker slots hold rack jokers (``rack_joker_use``), never a table
        # joker: they are not slots a kept table joker may take (their own rows, unused)
        rack_only_slots: dict[int, dict[int, float]] = defaultdict(dict)
        threshold = profile.initial_meld.threshold
        # one opening set: every window (a long run is one set); several: the short ones suffice.
        # one_qualifying: every window as the qualifying set, each copy worth the threshold (the
        # copies' values differ by one joker's at most, so their mean is what one copy reaches),
        # beside the short windows as the other opening sets, whose value does not count
        kinds = [(faces, single or qualifying) for faces in set_catalogue(profile).faces]
        if not single:
            kinds = [k for k in kinds if qualifying] + [(faces, False) for faces in _windows(profile)]
        qualified: dict[int, float] = {}
        for faces, counted in kinds:
            window = _add_window(
                model, profile, faces, r, r_jokers, numbered_rows, joker_row, rack_only_slots
            )
            if window is None:
                continue
            window_cols.append(window)
            o_row[window.x] = 1
            worth: dict[int, float] = {}
            for f, jv in zip(faces, window.jokers, strict=True):
                value = ts.value_of(f)
                worth[window.x] = worth.get(window.x, 0) + value
                rack_use[f][window.x] = rack_use[f].get(window.x, 0) + 1
                if jv is not None:
                    rack_use[f][jv] = rack_use[f].get(jv, 0) - 1
                    rack_joker_use[jv] = 1
                    extra = profile.joker_opening_value(value) - value
                    if extra:
                        worth[jv] = extra
            if qualifying and counted:
                qualified[window.x] = 1
                model.add({**worth, window.x: worth[window.x] - threshold}, 0, np.inf)
            elif counted or not qualifying:
                for v, c in worth.items():
                    value_row[v] = value_row.get(v, 0) + c
        if single:
            model.add(o_row, 1, 1)
        if qualifying:
            model.add(qualified, 1, np.inf)
        else:
            model.add(value_row, threshold, np.inf)

    # -- hosts for freed jokers (reuse: two_rack_tiles, new_set): explicit sets of any length
    host_cols: list[_Host] = []
    if free_vars and profile.jokers.reuse == "new_set":
        host_cols = _add_new_sets(
            model, profile, r, r_jokers, freeable, numbered_rows, joker_row, rack_use, rack_joker_use
        )
        model.add({**{h.freed: 1 for h in host_cols}, **{u: -1 for u in free_vars}}, 0, 0)
    elif free_vars and profile.jokers.reuse == "two_rack_tiles":
        host_cols = _add_hosts(
            model, profile, avail, r, r_jokers, total_jokers, freeable, set(keep_face_rows),
            [
                (table[mi], z_row, [freed_of[k] for k, (owner, _, _) in enumerate(joker_list) if owner == mi])
                for mi, z_row, keep_meld in superset_rows
                if keep_meld is not None
            ],
            numbered_rows, joker_row, slot_rows, rack_use, rack_joker_use,
        )  # fmt: skip
        model.add({**{h.freed: 1 for h in host_cols}, **{u: -1 for u in free_vars}}, 0, 0)
    for _, z_row, keep in superset_rows:
        if keep is None:
            model.add(z_row, 1, 1)
        else:
            model.add({**z_row, keep: -1}, 0, 0)

    # -- with a discard pile a play must leave a tile to discard
    if profile.discard_pile:
        placed = {v: 1 for v in y_vars.values()}
        if y_joker is not None:
            placed[y_joker] = 1
        model.add(placed, 0, len(rack) - 1)

    # -- balances
    for c in range(n_codes):
        row = dict(numbered_rows.get(c, {}))
        if c in y_vars:
            row[y_vars[c]] = -1
        if row or t_num[c]:
            model.add(row, float(t_num[c]), float(t_num[c]))
    jrow = dict(joker_row)
    if y_joker is not None:
        jrow[y_joker] = -1
    model.add(jrow, t_jokers, t_jokers)
    for f, keeps in keep_face_rows.items():
        model.add({**keeps, **{v: -c for v, c in slot_rows.get(f, {}).items()}}, -np.inf, 0)
    for c, uses in rack_use.items():
        model.add({**uses, **({y_vars[c]: -1} if c in y_vars else {})}, -np.inf, 0)
    if rack_joker_use:
        assert y_joker is not None  # rack jokers are placed only when the rack holds some
        model.add({**rack_joker_use, y_joker: -1}, -np.inf, 0)

    # HiGHS's presolve spends most of the time on models with host blocks (hundreds of
    # 0/1 joker places); without it they solve several times faster, at the root mostly
    res = model.solve(presolve=not host_cols)
    return _decode(res, columns, window_cols, host_cols, y_vars, y_joker, joker, table)


def _rack_only(pats, profile, r, r_jokers, table, objective, units) -> MilpResult:
    """The initial meld from rack tiles alone, the table untouched."""
    joker = profile.tileset.joker
    model = _Model(units)
    columns = []
    rows: dict[int, dict[int, float]] = defaultdict(dict)
    jrow, o_row, value_row = {}, {}, {}
    fits = np.all(pats.numbered <= r, axis=1) & (pats.n_jokers <= r_jokers)
    for p in np.flatnonzero(fits):
        gain = sum(
            tile_gain(profile, joker if j else f, objective)
            for f, j in zip(pats.faces[p], pats.jokers[p], strict=True)
        )
        v = model.var(0, 4, gain)
        columns.append((v, pats.faces[p], pats.jokers[p]))
        for f in np.flatnonzero(pats.numbered[p]):
            rows[int(f)][v] = float(pats.numbered[p][f])
        if pats.n_jokers[p]:
            jrow[v] = float(pats.n_jokers[p])
        o_row[v] = 1
        value_row[v] = float(pats.opening_value[p])
    if not columns:
        return MilpResult(tuple(table), (), True, 0)
    for face, row in rows.items():
        model.add(row, 0, float(r[face]))
    model.add(jrow, 0, r_jokers)
    model.add(o_row, 1, 1 if profile.initial_meld.sets == "single" else np.inf)
    if profile.initial_meld.sets == "one_qualifying":  # one set worth the threshold by itself
        threshold = profile.initial_meld.threshold
        model.add({v: 1 for v, value in value_row.items() if value >= threshold}, 1, np.inf)
    else:
        model.add(value_row, profile.initial_meld.threshold, np.inf)
    if profile.discard_pile:
        model.add({v: float(len(faces)) for v, faces, _ in columns}, 0, int(r.sum()) + r_jokers - 1)
    res = model.solve()
    if res.x is None:
        return MilpResult(tuple(table), (), res.status != 1, _units(res))
    new_sets: list[Meld] = []
    played: list[int] = []
    for var, faces, mask in columns:
        for _ in range(round(res.x[var])):
            meld = masked_meld(faces, mask, joker)
            new_sets.append(meld)
            played.extend(meld.tiles)
    return MilpResult(tuple(table) + tuple(new_sets), tuple(sorted(played)), res.status == 0, _units(res))


def _units(res) -> int:
    """The search units a solve cost (``_Model.solve``)."""
    return int(res.units)


def _decode(res, columns, window_cols, host_cols, y_vars, y_joker, joker, table) -> MilpResult:
    if res.x is None:
        return MilpResult(tuple(table), (), res.status != 1, _units(res))
    x = np.round(res.x).astype(np.int64)
    played = []
    for c, v in y_vars.items():
        played.extend([c] * int(x[v]))
    if y_joker is not None:
        played.extend([joker] * int(x[y_joker]))
    if not played:
        return MilpResult(tuple(table), (), res.status == 0, _units(res))
    melds = []
    for var, faces, mask in columns:
        for _ in range(int(x[var])):
            melds.append(masked_meld(faces, mask, joker))
    for window in window_cols:
        copies = int(x[window.x])
        if not copies:
            continue
        counts = [0 if jv is None else int(x[jv]) for jv in window.jokers]
        masks = [[False] * len(window.faces) for _ in range(copies)]
        load = [0] * copies
        # spread each face's jokers over the copies holding the fewest so far
        for i in sorted(range(len(counts)), key=lambda i: -counts[i]):
            for copy in sorted(range(copies), key=lambda k: (load[k], k))[: counts[i]]:
                masks[copy][i] = True
                load[copy] += 1
        melds.extend(masked_meld(window.faces, mask, joker) for mask in masks)
    for host in host_cols:
        if x[host.x]:
            melds.append(masked_meld(host.faces, [bool(x[j]) for j in host.jokers], joker))
    return MilpResult(tuple(melds), tuple(sorted(played)), res.status == 0, _units(res))


@dataclass(frozen=True)
class _Window:
    faces: tuple[int, ...]
    x: int
    jokers: tuple[int | None, ...]  # joker-count variable per face (None: no jokers there)
    bound: int


@lru_cache(maxsize=32)
def _windows(profile: RuleProfile) -> tuple[tuple[int, ...], ...]:
    """Set windows up to the longest non-decomposable pattern."""
    longest = max(len(f) for f in set_patterns(profile).faces)
    return tuple(f for f in set_catalogue(profile).faces if len(f) <= longest)


def _add_window(model, profile, faces, source, joker_cap, numbered_rows, joker_row, slot_rows):
    """Add ``x`` copies of a set window with ``j_f`` of its faces filled by jokers.

    Each copy holds a numbered tile and at most ``jokers.max_per_set`` jokers: with
    ``K = min(len - 1, max_per_set)``, K x - sum j >= 0 and j_f <= x; spreading each face's
    jokers over the copies that hold the fewest so far (``_decode``) keeps the copies'
    joker counts within one of each other, so every copy holds at most K of them.
    """
    have = [int(source[f]) for f in faces]
    present = sum(1 for h in have if h > 0)
    per_copy = min(max_jokers_in_set(profile, len(faces)), joker_cap)
    if present < MIN_NUMBERED_TILES or len(faces) - present > per_copy:
        return None
    bound = max(1, min(min(h + joker_cap for h in have), sum(have) // MIN_NUMBERED_TILES))
    x = model.var(0, bound)
    jokers = []
    size_row = {x: float(per_copy)}
    for f, h in zip(faces, have, strict=True):
        numbered_rows[f][x] = numbered_rows[f].get(x, 0) + 1
        if joker_cap:
            j = model.var(0, bound)
            model.add({j: 1, x: -1}, -np.inf, 0)
            if h == 0:  # no tile to place here: every copy uses a joker
                model.add({j: 1, x: -1}, 0, 0)
            numbered_rows[f][j] = numbered_rows[f].get(j, 0) - 1
            joker_row[j] = 1
            slot_rows[f][j] = 1
            size_row[j] = -1.0
            jokers.append(j)
        else:
            jokers.append(None)
    if joker_cap:
        model.add(size_row, 0, np.inf)
    return _Window(tuple(faces), x, tuple(jokers), bound)


@dataclass(frozen=True)
class _Host:
    """One copy of a set that holds freed jokers: ``x`` (0/1) and a 0/1 joker per face."""

    faces: tuple[int, ...]
    x: int
    jokers: tuple[int, ...]
    freed: int  # freed table jokers in this copy


def _ordered_copies(model, copies: int):
    """0/1 variables for ``copies`` copies of one host set, ordered (``x1 <= x0``: no symmetric
    solutions), yielded as they are made."""
    previous = None
    for _ in range(copies):
        x = model.var(0, 1)
        if previous is not None:
            model.add({x: 1, previous: -1}, -np.inf, 0)
        previous = x
        yield x


def _add_new_sets(
    model, profile, r, r_jokers, freeable, numbered_rows, joker_row, rack_use, rack_joker_use
) -> list[_Host]:
    """Sets that hold freed table jokers under ``reuse: new_set`` (004: the freed joker makes
    "nowy zestaw", a new set), one 0/1 copy each: exactly one freed table joker (``free = x``)
    and rack tiles only, the numbered ones claimed from the rack per code (``x - j`` at each
    face) and the other jokers from the rack (``sum j - x``). No kept table joker sits there,
    so these are no slots of ``slot_rows``. Copies of one set are ordered (``x1 <= x0``), no
    more of them than table jokers to free (each copy's own freed joker may stand at the same
    face as the others': ``R11 J(R12) R13`` twice from one R12-less rack)."""
    hosts: list[_Host] = []
    catalogue = set_catalogue(profile)
    for faces in catalogue.faces:
        per_copy = max_jokers_in_set(profile, len(faces))  # the freed joker and rack jokers
        missing = sum(1 for f in faces if r[f] == 0)
        if max(missing, 1) > min(per_copy, 1 + r_jokers):
            continue
        copies = freeable
        for x in _ordered_copies(model, copies):
            jokers = []
            size_row = {x: float(per_copy)}
            rack_jokers = {x: -1.0}  # the jokers less the freed one
            for f in faces:
                if r[f] == 0:
                    j = x
                else:
                    j = model.var(0, 1)
                    model.add({j: 1, x: -1}, -np.inf, 0)
                    for rows in (numbered_rows, rack_use):
                        rows[f][x] = rows[f].get(x, 0) + 1
                        rows[f][j] = rows[f].get(j, 0) - 1
                joker_row[j] = joker_row.get(j, 0) + 1
                size_row[j] = size_row.get(j, 0) - 1.0
                rack_jokers[j] = rack_jokers.get(j, 0) + 1.0
                jokers.append(j)
            model.add(size_row, 0, np.inf)
            model.add(rack_jokers, 0, np.inf)  # the copy holds its freed joker
            if r_jokers:
                wj = model.var(0, max(0, per_copy - 1))
                model.add({**rack_jokers, wj: -1.0}, 0, 0)
                rack_joker_use[wj] = 1
            else:
                model.add(rack_jokers, 0, 0)
            hosts.append(_Host(tuple(faces), x, tuple(jokers), x))
    return hosts


def _add_hosts(
    model, profile, avail, r, r_jokers, total_jokers, freeable, keep_faces, frozen,
    numbered_rows, joker_row, slot_rows, rack_use, rack_joker_use,
) -> list[_Host]:  # fmt: skip
    """Sets that hold freed table jokers under ``reuse: two_rack_tiles``, one 0/1 copy each.

    A host may be any run or group: a run longer than the windows (or a decomposable
    pattern) cannot be cut into pieces when the freed joker and its two rack tiles sit
    apart (``K4 K5 .. K10 J(K11) K12`` with K4 K5 K12 from the rack). Every joker place is
    its own 0/1 variable ``j``, so each copy is checked on its own, exactly: at least one
    freed table joker (``free``); a kept table joker may sit at a face it may keep (``k``,
    one of that face's slots; ``free + sum k <= sum j``); the other jokers come from the
    rack; and two rack items besides the freeing tiles: numbered tiles at faces without a
    joker (``w <= x - j``, claimed from the rack per code) or rack jokers
    (``wj <= sum j - free - sum k``). Copies of one set are ordered (``x1 <= x0``) and
    there are no more of them than table jokers to free. A plain window never holds a
    freed joker.

    ``frozen`` lists the table sets that must stay together (``take_from_joker_sets:
    false``) with their superset columns: a host copy that holds such a set counts as that
    superset (``R2 R3 R4 R5 J(R6) R7 J(R8)``, J(R8) freed, R2 and R7 from the rack), each of
    the set's joker faces holding a kept joker or, where that joker was freed, a tile or nothing
    (0.3.12: ``J(R9) R10 J(R11)`` to ``R7 J(R8) J(R9) R10``, R11 played elsewhere), and
    the copy holding as many table jokers, kept or freed, as the set had (``validate_move``:
    every joker of a set that keeps one, the freed ones too, stays beside its numbered tiles;
    ``R3 J(R4) J(R5) R6`` with R4 R7 R8 from the rack: ``R3 R4 J(R5) R6 R7 R8 J(R9)``; 0.3.7)."""
    joker = profile.tileset.joker
    hosts: list[_Host] = []
    catalogue = set_catalogue(profile)
    m = profile.runs.min_length
    numbered = [
        {f for t, f in zip(meld.tiles, meld.faces, strict=True) if t != joker} for meld, _, _ in frozen
    ]
    for faces, kind in zip(catalogue.faces, catalogue.kinds, strict=True):
        n = len(faces)
        per_copy = min(total_jokers, max_jokers_in_set(profile, n))  # jokers one copy may hold
        have = [int(avail[f]) for f in faces]
        missing = sum(1 for h in have if h == 0)
        if max(missing, 1) > per_copy:
            continue
        rack_items = sum(1 for f in faces if r[f] > 0)
        if rack_items + min(r_jokers, per_copy - 1) < HOST_RACK_ITEMS:
            continue
        ends: tuple[range, ...] = ()
        if kind == "run" and not frozen and n >= max(2 * m, per_copy + m + MIN_NUMBERED_TILES):
            # a long host whose first (last) m tiles hold no joker and no rack tile it counts
            # splits into a plain run and a shorter host (the rest keeps a numbered tile, as
            # the copy holds at most ``per_copy`` jokers): each end needs one of them
            ends = (range(m), range(n - m, n))
            bare = sum(1 for end in ends if all(r[faces[i]] == 0 and have[i] > 0 for i in end))
            if missing + bare > per_copy:
                continue
        copies = min(freeable, min(h + total_jokers for h in have), sum(have) // MIN_NUMBERED_TILES)
        for x in _ordered_copies(model, copies):
            jokers, support, counted = [], {}, []
            joker_at, kept_at = {}, {}
            free = model.var(0, per_copy)  # freed table jokers in this copy
            model.add({free: 1, x: -1}, 0, np.inf)
            size_row = {x: float(per_copy)}
            busy = {free: 1}  # freed + kept <= jokers
            for f, h in zip(faces, have, strict=True):
                if h == 0:  # no tile to place here: a joker whenever the copy is used
                    j = x
                else:
                    j = model.var(0, 1)
                    model.add({j: 1, x: -1}, -np.inf, 0)
                    numbered_rows[f][x] = numbered_rows[f].get(x, 0) + 1
                    numbered_rows[f][j] = numbered_rows[f].get(j, 0) - 1
                joker_row[j] = joker_row.get(j, 0) + 1
                size_row[j] = size_row.get(j, 0) - 1.0
                busy[j] = busy.get(j, 0) - 1
                if f in keep_faces:
                    k = model.var(0, 1)
                    model.add({k: 1, j: -1}, -np.inf, 0)
                    slot_rows[f][k] = 1
                    kept_at[f] = k
                    busy[k] = 1
                counted.append({j: 1})
                if r[f] > 0:
                    w = model.var(0, 1)
                    model.add({w: 1, x: -1, j: 1}, -np.inf, 0)
                    rack_use[f][w] = 1
                    support[w] = 1
                    counted[-1][w] = 1
                jokers.append(j)
                joker_at[f] = j
            model.add(size_row, 0, np.inf)
            model.add(busy, -np.inf, 0)
            if r_jokers and per_copy - 1 > 0:
                wj = model.var(0, per_copy - 1)
                model.add({**busy, wj: 1}, -np.inf, 0)
                rack_joker_use[wj] = 1
                support[wj] = 1
            model.add({**support, x: -float(HOST_RACK_ITEMS)}, 0, np.inf)
            for end in ends:
                row = {x: -1.0}
                for i in end:
                    for v, c in counted[i].items():
                        row[v] = row.get(v, 0) + c
                model.add(row, 0, np.inf)
            for (meld, z_row, frees), spans in zip(frozen, numbered, strict=True):  # its numbered faces
                if not spans <= joker_at.keys():
                    continue
                s = model.var(0, 1)  # this copy is the superset that keeps ``meld`` together
                model.add({s: 1, x: -1}, -np.inf, 0)
                held = {s: -float(meld.joker_count(joker)), free: 1}  # its jokers, kept or freed here
                owned = iter(frees)
                for t, f in zip(meld.tiles, meld.faces, strict=True):
                    if t == joker and f not in joker_at:  # a face the copy leaves out: its joker freed
                        model.add({s: 1, **{u: -1 for u in next(owned)}}, -np.inf, 0)
                    elif t == joker:  # its kept joker at its face, or a tile where that joker was freed
                        model.add({s: 1, kept_at[f]: -1, joker_at[f]: 1}, -np.inf, 1)
                        model.add({s: 1, joker_at[f]: -1, **{u: -1 for u in next(owned)}}, -np.inf, 0)
                        held[kept_at[f]] = 1
                    else:
                        model.add({s: 1, joker_at[f]: 1}, -np.inf, 1)
                model.add(held, 0, np.inf)
                z_row[s] = 1
            hosts.append(_Host(tuple(faces), x, tuple(jokers), free))
    return hosts
