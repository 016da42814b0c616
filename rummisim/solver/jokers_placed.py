"""Where jokers go when the DP's chosen steps are decoded (``decode.build_table``).

Kept table jokers (``restore_jokers``): each is a tile of its face in the DP; one tile of that
face turns back into the joker in a set that then holds a numbered tile and at most
``jokers.max_per_set`` jokers, a long run cut in two where its kept jokers would pass the cap.
Spare jokers (``add_spare_jokers``): jokers no set needed (the rack's, counted as played) go
where a set has room; where none has, a set is cut in two to make room, or a tile a set can
spare makes a new ``X J J``. Pure; no I/O.
"""

from __future__ import annotations

from rummisim.geometry import run_geometry
from rummisim.melds import MIN_NUMBERED_TILES
from rummisim.profile import RuleProfile


def restore_jokers(
    sets, virtual: tuple[int, ...], profile: RuleProfile, avoid=frozenset(), runs=None
) -> bool:
    """Turn one tile of each kept joker's face back into that joker, in a set that then
    still holds a numbered tile and at most ``jokers.max_per_set`` jokers (the one with the
    most numbered tiles, outside the indices in ``avoid`` where one can take it); where no set
    can, a run of ``runs`` holding the face is cut in two valid runs so that the part with the
    face can (``_cut_for_joker``: the DP's long runs hold the faces of several kept jokers).
    Where that greedy pass leaves a joker without a set, the sets are put back and every way of
    homing the jokers is tried (``_home_all``: the first joker's best set may be the only one
    the second could take). False if none can take them. ``sets``: lists (tiles, faces); a
    cut's new run is appended to ``sets`` and to ``runs``."""
    joker = profile.tileset.joker
    cap = profile.jokers.max_per_set
    n_sets, n_runs = len(sets), 0 if runs is None else len(runs)
    # the sets as they were before this pass changed them, saved as it does (copying every set up
    # front was most of a decoding's time in ``polish-40``'s openings, where nothing is put back)
    undo: dict[int, tuple[list, list, list, list]] = {}

    def save(tiles, faces) -> None:
        if id(tiles) not in undo:
            undo[id(tiles)] = (tiles, faces, list(tiles), list(faces))

    for face in virtual:
        best = _joker_home(sets, face, joker, cap, avoid)
        if best is None and runs is not None:
            for run in runs:
                save(*run)
                right = _cut_for_joker(run, face, profile)
                if right is not None:
                    runs.append(right)
                    sets.append(right)
                    best = _joker_home(sets, face, joker, cap, avoid)
                    break
        if best is None:
            for tiles, faces, tiles_0, faces_0 in undo.values():
                tiles[:], faces[:] = tiles_0, faces_0
            del sets[n_sets:]
            if runs is not None:
                del runs[n_runs:]
            return _home_all(sets, list(virtual), joker, cap, avoid)
        tiles, faces = sets[best]
        save(tiles, faces)
        tiles[tiles.index(face)] = joker
    return True


def _home_all(sets, faces: list[int], joker: int, cap: int, avoid) -> bool:
    """Every kept joker of ``faces`` turned back in some set (``_homes``, best first), searched
    depth-first; False (the sets as they were) where no assignment fits them all."""
    if not faces:
        return True
    face = faces[0]
    for i in _homes(sets, face, joker, cap, avoid):
        tiles = sets[i][0]
        at = tiles.index(face)
        tiles[at] = joker
        if _home_all(sets, faces[1:], joker, cap, avoid):
            return True
        tiles[at] = face
    return False


def _joker_home(sets, face: int, joker: int, cap: int, avoid) -> int | None:
    """``restore_jokers``'s set for a kept joker of ``face``, or None."""
    return next(iter(_homes(sets, face, joker, cap, avoid)), None)


def _homes(sets, face: int, joker: int, cap: int, avoid) -> list[int]:
    """The sets that could turn a tile of ``face`` into a kept joker (keeping a numbered tile and
    at most ``cap`` jokers), best first: outside ``avoid``, most numbered tiles, fewest jokers."""
    homes = []
    for i, (tiles, _) in enumerate(sets):
        if face not in tiles:
            continue
        numbered = sum(t != joker for t in tiles)
        jokers = len(tiles) - numbered
        if numbered - 1 >= MIN_NUMBERED_TILES and jokers + 1 <= cap:
            homes.append(((i not in avoid, numbered, -jokers), i))
    return [i for _, i in sorted(homes, key=lambda h: h[0], reverse=True)]


def _cut_for_joker(run, face: int, profile: RuleProfile):
    """Cut ``run`` (tiles, faces lists, changed in place to the left part) in two runs of at least
    ``runs.min_length`` items, each with a numbered tile and at most ``max_per_set`` jokers, one of
    them able to turn its tile of ``face`` into a joker; returns the right part, or None (the run
    unchanged) where no cut does."""
    tiles, faces = run
    joker = profile.tileset.joker
    cap = profile.jokers.max_per_set
    low = profile.runs.min_length
    if face not in tiles:
        return None

    def fits(part, takes: bool) -> bool:
        numbered = sum(t != joker for t in part) - takes
        return numbered >= MIN_NUMBERED_TILES and len(part) - numbered <= cap

    for k in range(low, len(tiles) - low + 1):
        left, right = tiles[:k], tiles[k:]
        for side, other in ((left, right), (right, left)):
            if face in side and fits(side, True) and fits(other, False):
                cut = (tiles[k:], faces[k:])
                del tiles[k:], faces[k:]
                return cut
    return None


def add_spare_jokers(runs, groups, spare: int, profile: RuleProfile) -> bool:
    """Put ``spare`` jokers into sets with room (the end of a run, a missing colour of a
    group), each set keeping at most ``jokers.max_per_set`` jokers; two jokers left with no
    room form a new set with a tile a set can spare (``_spare_set``), and so on."""
    spare = _fill(runs, groups, spare, profile)
    while spare:
        used = _split_for_room(runs, groups, spare, profile)
        if used >= 0:
            spare = _fill(runs, groups, spare - used, profile)
        elif spare >= 2 and _spare_set(runs, groups, profile):
            spare = _fill(runs, groups, spare - 2, profile)
        else:
            break
    return spare == 0


def _split_for_room(runs, groups, spare: int, profile: RuleProfile) -> int:
    """Cut one set in two where that makes room for a spare joker (``jokers.max_per_set`` binds
    per set): a run into two runs, a part one item short taking a spare joker (``R1 R2 R3 J |
    R4 R5 J``), or a group of four into two pairs, each taking a spare joker (``K5 O5 J | R5 B5
    J``). The parts keep a numbered tile and at most the cap of jokers; only a cut that needs no
    more jokers than ``spare`` and leaves room for one more is made. Returns the spare jokers
    the cut placed, -1 where no cut helps."""
    ts = profile.tileset
    joker = ts.joker
    cap = profile.jokers.max_per_set
    low = profile.runs.min_length
    geo = run_geometry(profile)

    def part_ok(tiles, faces, need: int) -> bool:
        numbered = sum(t != joker for t in tiles)
        jokers = len(tiles) - numbered
        if numbered < MIN_NUMBERED_TILES or jokers + need > cap:
            return False
        if need == 0:
            return True
        # a run one item short takes a joker at an open end
        first, last = ts.value_of(faces[0]), ts.value_of(faces[0]) + len(tiles) - 1
        return geo.allowed(first, last + 1) or geo.allowed(first - 1, last)

    for r, (tiles, faces) in enumerate(runs):
        if len(tiles) < 2 * low - 2:
            continue
        room_before = cap - tiles.count(joker)
        for k in range(low - 1, len(tiles) - low + 2):
            left, right = (tiles[:k], faces[:k]), (tiles[k:], faces[k:])
            need_l, need_r = max(0, low - k), max(0, low - (len(tiles) - k))
            need = need_l + need_r
            if need > spare or not (part_ok(*left, need_l) and part_ok(*right, need_r)):
                continue
            room_after = sum(cap - part[0].count(joker) for part in (left, right)) - need
            if room_after <= room_before:
                continue
            runs[r] = (list(left[0]), list(left[1]))
            runs.append((list(right[0]), list(right[1])))
            for part, short in ((runs[r], need_l), (runs[-1], need_r)):
                if short:
                    _fill([part], [], short, profile)
            return need
    if spare < 2 or profile.groups.min_size > 3:
        return -1
    for g, (tiles, faces) in enumerate(groups):
        numbered = [i for i, t in enumerate(tiles) if t != joker]
        if len(tiles) != 4 or len(numbered) < 2 * MIN_NUMBERED_TILES or tiles.count(joker) >= cap:
            continue
        order = numbered + [i for i in range(4) if i not in numbered]
        halves = [order[0::2], order[1::2]]
        parts = [([tiles[i] for i in h], [faces[i] for i in h]) for h in halves]
        if any(part[0].count(joker) + 1 > cap for part in parts):
            continue
        groups[g] = (list(parts[0][0]), list(parts[0][1]))
        groups.append((list(parts[1][0]), list(parts[1][1])))
        if _fill([], [groups[g]], 1, profile) or _fill([], [groups[-1]], 1, profile):
            return -1  # (not reached: each pair lacks two colours and holds no joker past the cap)
        return 2
    return -1


def _fill(runs, groups, spare: int, profile: RuleProfile) -> int:
    """``add_spare_jokers``'s jokers put where sets have room; returns the jokers left."""
    if spare == 0:
        return 0
    ts = profile.tileset
    geo = run_geometry(profile)
    cap = profile.jokers.max_per_set
    for tiles, faces in groups:
        present = {ts.colour_of(f) for f in faces}
        value = ts.value_of(faces[0])
        for c in range(ts.colours):
            if spare == 0:
                return 0
            if c not in present and len(tiles) < profile.groups.max_size and tiles.count(ts.joker) < cap:
                tiles.append(ts.joker)
                faces.append(ts.code(c, value))
                present.add(c)
                spare -= 1
    for tiles, faces in runs:
        colour = ts.colour_of(faces[0])
        # positions of the run in order (a high 1 is V + 1)
        first = ts.value_of(faces[0])
        while spare and tiles.count(ts.joker) < cap:
            last = first + len(tiles) - 1
            if geo.allowed(first, last + 1):
                tiles.append(ts.joker)
                faces.append(geo.code_at(colour, last + 1))
            elif geo.allowed(first - 1, last):
                first -= 1
                tiles.insert(0, ts.joker)
                faces.insert(0, geo.code_at(colour, first))
            else:
                break
            spare -= 1
    return spare


def _spare_set(runs, groups, profile: RuleProfile) -> bool:
    """A new run of a numbered tile and two jokers (``R5 J J``), the tile taken from a set that
    stays valid without it (a group of four, an end of a run of four or more): where two spare
    jokers find no room, the same tiles make a table that holds them. False where no set can
    spare a tile or ``jokers.max_per_set`` is below two."""
    ts = profile.tileset
    joker = ts.joker
    geo = run_geometry(profile)
    if profile.jokers.max_per_set < 2 or profile.runs.min_length > 3:
        return False

    def new_run(face: int) -> bool:
        colour, value = ts.colour_of(face), ts.value_of(face)
        for first in (value, value - 1, value - 2):
            if geo.allowed(first, first + 2):
                run_faces = [geo.code_at(colour, p) for p in range(first, first + 3)]
                runs.append(([face if f == face else joker for f in run_faces], run_faces))
                return True
        return False

    for tiles, faces in groups:
        numbered = [i for i, t in enumerate(tiles) if t != joker]
        if len(tiles) > profile.groups.min_size and len(numbered) > MIN_NUMBERED_TILES:
            i = numbered[-1]
            if new_run(faces[i]):
                del tiles[i], faces[i]
                return True
    for tiles, faces in runs:
        if len(tiles) <= profile.runs.min_length:
            continue
        for i in (len(tiles) - 1, 0):
            numbered_left = sum(t != joker for t in tiles) - 1
            if tiles[i] != joker and numbered_left >= MIN_NUMBERED_TILES and new_run(faces[i]):
                del tiles[i], faces[i]
                return True
    return False
