"""A rest of the rack that no joker choice can play up to its floor under ``jokers.reuse: new_set``
(0.3.24).

Under ``new_set`` a freed table joker goes to a new set of itself and rack tiles alone (a host
set, ``opening.new_set_hosts``). So in any play of a joker choice (``choices._choices``: each
locked table joker kept at a face, or freed by a rack tile of its face) the sets other than the
host sets hold no freed joker: they hold the table's tiles (a kept joker at its face, a freed
joker's place taken by its freeing tile), rack tiles and the rack's jokers. A floor near the whole
rack makes rack tiles *required*: a play that leaves one out scores below the floor. A required
tile that no host set can hold lies in one of those other sets, so some set of the catalogue
(``melds.set_catalogue``) holds it whose other faces the table or the rack holds, but for as many
as jokers may stand in for (the rack's, and the table's that may keep more than one face, a
group's). ``out_of_reach``: where a required tile has no such set, no joker choice reaches the
floor, and none is searched.

``polish-40`` greedy #94, an opening that may touch the table: 27 of its 30 opening cores (each
with the rack's joker) leave a K13 that only a joker beside a table tile could place, while every
joker must stay in a set of rack tiles; each core's rest searched four joker choices and listed
host sets and pairs of them (0.6 ms a core), where this check takes a few microseconds. A pass of
the DP over the table and the required tiles (a stronger check) ruled out more rests, but on the
rests it did not rule out it cost more than it spared: 8% more states over the searches of eight
seeded games of holding bots. Pure; no I/O.
"""

from __future__ import annotations

from functools import lru_cache

from rummisim.melds import Meld, set_catalogue
from rummisim.profile import RuleProfile
from rummisim.solver.common import tile_gains
from rummisim.solver.opening import new_set_hosts
from rummisim.solver.passes import _tile_counts


def out_of_reach(
    rack: tuple[int, ...],
    table: tuple[Meld, ...],
    locked: list[tuple[int, frozenset[int]]],
    profile: RuleProfile,
    objective: str,
    floor: int,
    whole: int,
) -> bool:
    """Whether no play of ``rack`` on ``table`` (its jokers locked: ``locked``, each table joker's
    face and the faces it may keep, as ``jokers._solve_rack`` lists them) reaches ``floor`` under
    any joker choice, by the check of the module docstring (``whole``: the score of the whole rack);
    False where it does not apply (not ``reuse: new_set``, pinned joker sets, wrap) or finds a set
    for every required tile that no host set holds."""
    jokers = profile.jokers
    if jokers.reuse != "new_set" or not jokers.take_from_joker_sets or profile.wrap:
        return False
    slack = whole - floor  # (a play that leaves out a tile worth more falls below the floor)
    if slack < 0:
        return True  # (not even the whole rack reaches it)
    ts = profile.tileset
    joker = ts.joker
    gains = tile_gains(profile, objective)
    required = {t for t in rack if t != joker and gains[t] > slack}
    if not required:
        return False
    table_counts, rack_counts = _tile_counts(rack, table, ts)
    held = table_counts + rack_counts
    wild = int(rack_counts[joker])  # (the jokers that may stand anywhere in those sets)
    for face, faces in locked:
        if len(faces) == 1:
            held[face] += 1  # (kept, or its place taken by a tile of its face)
        else:
            wild += 1
    present = (held[:joker] > 0).tolist()
    cap = min(wild, jokers.max_per_set)
    beside = _smallest_sets(profile)
    homeless = [
        c for c in required if not any(sum(not present[f] for f in others) <= cap for others in beside[c])
    ]  # fmt: skip
    if not homeless:
        return False
    hosted = {t for host in new_set_hosts(rack_counts, profile) for t in host[2]}
    return any(c not in hosted for c in homeless)


@lru_cache(maxsize=64)
def _smallest_sets(profile: RuleProfile) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per numbered code, the other faces of each set of the catalogue of the fewest tiles that holds
    it (runs of ``runs.min_length``, groups of ``groups.min_size``): any set that holds the code
    holds one of them, with no more faces missing."""
    catalogue = set_catalogue(profile)
    least = {"run": profile.runs.min_length, "group": profile.groups.min_size}
    out: list[list[tuple[int, ...]]] = [[] for _ in range(profile.tileset.joker)]
    for faces, kind in zip(catalogue.faces, catalogue.kinds, strict=True):
        if len(faces) == least[kind]:
            for f in faces:
                out[f].append(tuple(x for x in faces if x != f))
    return tuple(tuple(sets) for sets in out)
