"""Exact move search as an integer program over set patterns (``scipy.optimize.milp``).

The model follows den Hertog & Hulshof: choose how many copies of each set
pattern go on the new table so that every table tile is used and as many rack
tiles as possible are placed. On top of that it encodes every rule the engine
checks (``moves.validate_move``):

- locked table jokers either keep their face (``keep``) or are freed by a
  matching rack tile (``free``); with ``reuse: two_rack_tiles`` each set that
  holds a freed joker (a *host*) gets two rack tiles other than the freeing
  ones, allocated by a small transportation block (exact by Hall's theorem);
- with ``take_from_joker_sets: false`` a table set that keeps a joker is
  *frozen*: one superset of it must be on the new table; with no rearrangement
  (``rearrange=False`` or ``turn.rearrange: false``) every table set is frozen;
- the initial meld: rack-only sets worth at least the threshold (one set if the
  profile says so), and when the opening turn may touch the table those sets
  plus a full rearrangement in the same move.

Objective ``tiles``: rack tiles placed, ties broken by value; ``value``: the
reverse. A placed rack joker is worth ``jokers.penalty`` points (what it would
cost on the rack). This module is the reference that the fast solver is tested
against, and it is itself exact.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import product

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from rummisim.melds import MIN_NUMBERED_TILES, Meld, _run_positions, face_kind, set_catalogue
from rummisim.moves import joker_acceptable
from rummisim.patterns import masked_meld, set_patterns
from rummisim.profile import RuleProfile

TILE_WEIGHT = 1000  # objective weight that makes the primary criterion dominate (values < 1000)


@dataclass(frozen=True)
class MilpResult:
    table: tuple[Meld, ...]
    played: tuple[int, ...]
    proven: bool
    nodes: int


class _Model:
    """A tiny builder for ``scipy.optimize.milp`` (maximisation)."""

    def __init__(self) -> None:
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.cost: list[float] = []
        self.rows: list[tuple[dict[int, float], float, float]] = []

    def var(self, lb: float, ub: float, gain: float = 0.0) -> int:
        self.lb.append(lb)
        self.ub.append(ub)
        self.cost.append(-gain)
        return len(self.lb) - 1

    def add(self, coefs: dict[int, float], lo: float, hi: float) -> None:
        coefs = {k: v for k, v in coefs.items() if v}
        if coefs:
            self.rows.append((coefs, lo, hi))
        elif not lo <= 0 <= hi:
            self.rows.append(({0: 0.0}, lo, hi))  # an infeasible empty row stays infeasible

    def solve(self, node_limit: int | None):
        n = len(self.lb)
        data, ri, ci, lo, hi = [], [], [], [], []
        for r, (coefs, low, high) in enumerate(self.rows):
            for k, v in coefs.items():
                ri.append(r)
                ci.append(k)
                data.append(v)
            lo.append(low)
            hi.append(high)
        constraints = []
        if self.rows:
            matrix = coo_array((data, (ri, ci)), shape=(len(self.rows), n)).tocsr()
            constraints.append(LinearConstraint(matrix, lo, hi))
        options = {"presolve": True}
        if node_limit is not None:
            options["node_limit"] = int(node_limit)
        return milp(
            c=np.asarray(self.cost),
            integrality=np.ones(n),
            bounds=Bounds(self.lb, self.ub),
            constraints=constraints,
            options=options,
        )


def _tile_gain(profile: RuleProfile, code: int, objective: str) -> float:
    ts = profile.tileset
    value = profile.jokers.penalty if code == ts.joker else ts.value_of(code)
    return TILE_WEIGHT + value if objective == "tiles" else TILE_WEIGHT * value + 1


def _supersets(meld: Meld, profile: RuleProfile, avail: np.ndarray, rack_jokers: int):
    """Patterns (faces, joker mask) that contain ``meld`` with its jokers at their faces,
    extended by available tiles or up to ``rack_jokers`` jokers."""
    ts = profile.tileset
    mask = tuple(t == ts.joker for t in meld.tiles)
    out = [(meld.faces, mask)]
    kind = face_kind(meld.faces, profile)
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
    positions = _run_positions(meld.faces, ts, profile.wrap)
    colour = ts.colour_of(meld.faces[0])
    top = ts.values + (1 if profile.wrap else 0)

    def face_at(p: int) -> int:
        return ts.code(colour, ((p - 1) % ts.values) + 1)

    lo, hi = positions[0], positions[-1]
    for new_lo in range(lo, 0, -1):
        for new_hi in range(hi, top + 1):
            if (new_lo, new_hi) == (lo, hi):
                continue
            if new_hi - new_lo + 1 > ts.values or (new_lo == 1 and new_hi == ts.values + 1):
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


def solve_milp(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    profile: RuleProfile,
    *,
    initial: bool,
    objective: str,
    rearrange: bool,
    node_limit: int | None = None,
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
    if initial and not profile.initial_meld.may_touch_table:
        return _rack_only(pats, profile, r, r_jokers, table, objective, node_limit)

    table_counts = np.bincount(
        np.asarray([t for m in table for t in m.tiles], dtype=np.int64), minlength=ts.n_codes
    )
    t_num, t_jokers = table_counts[:n_codes], int(table_counts[joker])
    avail = t_num + r
    locked = profile.jokers.table_jokers == "locked"
    rearranging = rearrange and profile.turn.rearrange
    may_free = locked and rearranging and (not initial or profile.jokers.retrieve_before_initial_meld)

    model = _Model()
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
    x_vars: dict[int, int] = {}
    window_cols: list[_Window] = []
    total_jokers = t_jokers + r_jokers
    if formulation == "windows":
        source = r if not rearranging else avail
        joker_cap = r_jokers if not rearranging else total_jokers
        for faces in _windows(profile):
            window = _add_window(model, faces, source, joker_cap, numbered_rows, joker_row, slot_rows)
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
            x_vars[p] = var
            add_column(var, pats.faces[p], pats.jokers[p])

    # -- rack tiles placed (y)
    y_vars = {
        int(c): model.var(0, int(r[c]), _tile_gain(profile, int(c), objective)) for c in np.flatnonzero(r)
    }
    y_joker = model.var(0, r_jokers, _tile_gain(profile, joker, objective)) if r_jokers else None
    rack_use: dict[int, dict[int, float]] = defaultdict(dict)  # rack tiles claimed by o/u/w
    rack_joker_use: dict[int, float] = {}

    # -- table jokers: keep or free
    keep_of: dict[int, list[int]] = defaultdict(list)  # table joker -> keep vars
    keep_face_rows: dict[int, dict[int, float]] = defaultdict(dict)
    free_vars: list[int] = []
    joker_list = []
    if locked:
        for mi, meld in enumerate(table):
            for t, face in zip(meld.tiles, meld.faces, strict=True):
                if t == joker:
                    joker_list.append((mi, face, joker_acceptable(profile, meld, face)))
        for k, (_, _face, ok) in enumerate(joker_list):
            row = {}
            for f in sorted(ok):
                v = model.var(0, 1)
                keep_of[k].append(v)
                keep_face_rows[f][v] = 1
                row[v] = 1
                if may_free and r[f] > 0:
                    u = model.var(0, 1)
                    free_vars.append(u)
                    rack_use[f][u] = 1
                    row[u] = 1
            model.add(row, 1, 1)

    # -- frozen table sets (z): supersets that keep a set together
    frozen = []
    if not rearranging:
        frozen = [(mi, None) for mi in range(len(table))]
    elif not profile.jokers.take_from_joker_sets:
        frozen = [(mi, "joker") for mi, m in enumerate(table) if joker in m.tiles]
    for mi, why in frozen:
        meld = table[mi]
        z_row = {}
        for faces, mask in _supersets(meld, profile, avail, r_jokers):
            v = model.var(0, 1)
            z_row[v] = 1
            add_column(v, faces, mask)
        if why is None or not locked:
            model.add(z_row, 1, 1)
        else:
            keep_meld = model.var(0, 1)
            for k, (owner, _, _) in enumerate(joker_list):
                if owner == mi:
                    model.add({keep_meld: 1, **{v: -1 for v in keep_of[k]}}, 0, np.inf)
            model.add({**z_row, keep_meld: -1}, 0, 0)

    # -- the initial meld in a turn that may also touch the table (o)
    if initial:
        o_row, value_row = {}, {}
        for faces in _windows(profile):
            window = _add_window(model, faces, r, r_jokers, numbered_rows, joker_row, slot_rows)
            if window is None:
                continue
            window = replace(window, is_opening=True)
            window_cols.append(window)
            o_row[window.x] = 1
            for f, jv in zip(faces, window.jokers, strict=True):
                value = ts.value_of(f)
                value_row[window.x] = value_row.get(window.x, 0) + value
                rack_use[f][window.x] = rack_use[f].get(window.x, 0) + 1
                if jv is not None:
                    rack_use[f][jv] = rack_use[f].get(jv, 0) - 1
                    rack_joker_use[jv] = 1
                    extra = profile.joker_opening_value(value) - value
                    if extra:
                        value_row[jv] = extra
        if profile.initial_meld.sets == "single":
            model.add(o_row, 1, 1)
        model.add(value_row, profile.initial_meld.threshold, np.inf)

    # -- hosts for freed jokers (reuse: two_rack_tiles)
    if free_vars and profile.jokers.reuse == "two_rack_tiles":
        e_total = {}
        for p, xv in x_vars.items():
            if not pats.n_jokers[p]:
                continue
            h = model.var(0, 4)
            model.add({h: 1, xv: -1}, -np.inf, 0)
            e_of_host = {}
            for f in np.flatnonzero(pats.joker_faces[p]):
                e = model.var(0, 4)
                e_of_host[e] = 1
                e_total[e] = 1
                model.add({e: 1, h: -float(pats.joker_faces[p][f])}, -np.inf, 0)
                keep_face_rows[int(f)][e] = 1  # kept and freed jokers share the face's slots
            model.add({**e_of_host, h: -1}, 0, np.inf)
            support = {}
            for c in np.flatnonzero(pats.numbered[p]):
                if r[c] > 0:
                    w = model.var(0, 4)
                    model.add({w: 1, h: -float(pats.numbered[p][c])}, -np.inf, 0)
                    support[w] = 1
                    rack_use[int(c)][w] = 1
            if r_jokers:
                w = model.var(0, 4)
                model.add({w: 1, h: -float(pats.n_jokers[p]), **{e: 1 for e in e_of_host}}, -np.inf, 0)
                support[w] = 1
                rack_joker_use[w] = 1
            model.add({**support, h: -2}, 0, np.inf)
        for window in window_cols:
            if window.is_opening or not any(j is not None for j in window.jokers):
                continue
            h = model.var(0, window.bound)
            model.add({h: 1, window.x: -1}, -np.inf, 0)
            e_of_host = {}
            support = {}
            for f, jv in zip(window.faces, window.jokers, strict=True):
                e = None
                if jv is not None:
                    e = model.var(0, window.bound)
                    e_of_host[e] = 1
                    e_total[e] = 1
                    model.add({e: 1, jv: -1}, -np.inf, 0)
                    model.add({e: 1, h: -1}, -np.inf, 0)
                    keep_face_rows[f][e] = 1
                if r[f] > 0:
                    w = model.var(0, window.bound)
                    model.add({w: 1, h: -1, **({e: 1} if e is not None else {})}, -np.inf, 0)
                    support[w] = 1
                    rack_use[f][w] = 1
            if r_jokers:
                w = model.var(0, 4 * window.bound)
                jokers_in = {jv: -1 for jv in window.jokers if jv is not None}
                model.add({w: 1, **jokers_in, **e_of_host}, -np.inf, 0)
                support[w] = 1
                rack_joker_use[w] = 1
            model.add({**e_of_host, h: -1}, 0, np.inf)
            model.add({**support, h: -2}, 0, np.inf)
        model.add({**e_total, **{u: -1 for u in free_vars}}, 0, 0)

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
        model.add({**rack_joker_use, y_joker: -1}, -np.inf, 0)

    res = model.solve(node_limit)
    return _decode(res, columns, window_cols, y_vars, y_joker, joker, table)


def _rack_only(pats, profile, r, r_jokers, table, objective, node_limit) -> MilpResult:
    """The initial meld from rack tiles alone, the table untouched."""
    joker = profile.tileset.joker
    model = _Model()
    columns = []
    rows: dict[int, dict[int, float]] = defaultdict(dict)
    jrow, o_row, value_row = {}, {}, {}
    fits = np.all(pats.numbered <= r, axis=1) & (pats.n_jokers <= r_jokers)
    for p in np.flatnonzero(fits):
        gain = sum(
            _tile_gain(profile, joker if j else f, objective)
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
    for f, row in rows.items():
        model.add(row, 0, float(r[f]))
    model.add(jrow, 0, r_jokers)
    model.add(o_row, 1, 1 if profile.initial_meld.sets == "single" else np.inf)
    model.add(value_row, profile.initial_meld.threshold, np.inf)
    if profile.discard_pile:
        model.add({v: float(len(faces)) for v, faces, _ in columns}, 0, int(r.sum()) + r_jokers - 1)
    res = model.solve(node_limit)
    if res.x is None:
        return MilpResult(tuple(table), (), res.status != 1, _nodes(res))
    new_sets, played = [], []
    for var, faces, mask in columns:
        for _ in range(round(res.x[var])):
            meld = masked_meld(faces, mask, joker)
            new_sets.append(meld)
            played.extend(meld.tiles)
    return MilpResult(tuple(table) + tuple(new_sets), tuple(sorted(played)), res.status == 0, _nodes(res))


def _nodes(res) -> int:
    return int(getattr(res, "mip_node_count", 0) or 0)


def _decode(res, columns, window_cols, y_vars, y_joker, joker, table) -> MilpResult:
    if res.x is None:
        return MilpResult(tuple(table), (), res.status != 1, _nodes(res))
    x = np.round(res.x).astype(np.int64)
    played = []
    for c, v in y_vars.items():
        played.extend([c] * int(x[v]))
    if y_joker is not None:
        played.extend([joker] * int(x[y_joker]))
    if not played:
        return MilpResult(tuple(table), (), res.status == 0, _nodes(res))
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
    return MilpResult(tuple(melds), tuple(sorted(played)), res.status == 0, _nodes(res))


@dataclass(frozen=True)
class _Window:
    faces: tuple[int, ...]
    x: int
    jokers: tuple[int | None, ...]  # joker-count variable per face (None: no jokers there)
    bound: int
    is_opening: bool = False


@lru_cache(maxsize=32)
def _windows(profile: RuleProfile) -> tuple[tuple[int, ...], ...]:
    """Set windows up to the longest non-decomposable pattern."""
    longest = max(len(f) for f in set_patterns(profile).faces)
    return tuple(f for f in set_catalogue(profile).faces if len(f) <= longest)


def _add_window(model, faces, source, joker_cap, numbered_rows, joker_row, slot_rows):
    """Add ``x`` copies of a set window with ``j_f`` of its faces filled by jokers.

    Each copy needs two numbered tiles: (len - 2) x - sum j >= 0; spreading the
    jokers evenly over the copies then gives every copy at most len - 2 of them.
    """
    have = [int(source[f]) for f in faces]
    present = sum(1 for h in have if h > 0)
    if present < MIN_NUMBERED_TILES or len(faces) - present > joker_cap:
        return None
    bound = max(1, min(min(h + joker_cap for h in have), sum(have) // MIN_NUMBERED_TILES))
    x = model.var(0, bound)
    jokers = []
    size_row = {x: float(len(faces) - MIN_NUMBERED_TILES)}
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
