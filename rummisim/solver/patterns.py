"""Set patterns for move search: every valid set shape with its joker positions.

A pattern is a run window or a group (faces in normal order) plus a mask of the
positions a joker fills: at most ``jokers.max_per_set`` jokers (and the tile set's),
at least one numbered tile (RULES.md "open questions": ``R7 J J`` is a set). Only
*non-decomposable* patterns are kept: a run that can be cut into two valid runs
(each with enough tiles and a numbered tile; neither holds more jokers than the
whole) is redundant, because any table using it can use the two pieces instead.
Without jokers that leaves runs shorter than twice the minimum length and every
group; jokers add longer runs only where a cut would leave a side of jokers alone
(``J J J R4 R5 R6`` with three jokers allowed in a set).

Built once per profile and cached. Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from rummisim.melds import MIN_NUMBERED_TILES, Meld, max_jokers_in_set, set_catalogue
from rummisim.profile import RuleProfile


@dataclass(frozen=True)
class Patterns:
    """Arrays over patterns ``p``; codes ``c`` are the numbered tile codes."""

    faces: tuple[tuple[int, ...], ...]
    jokers: tuple[tuple[bool, ...], ...]
    numbered: np.ndarray  # (P, C) numbered tiles the pattern needs
    joker_faces: np.ndarray  # (P, C) joker slots by the face they stand for
    n_jokers: np.ndarray  # (P,)
    opening_value: np.ndarray  # (P,) worth toward the initial meld
    is_run: np.ndarray  # (P,) bool


def masked_meld(faces: tuple[int, ...], mask, joker: int) -> Meld:
    """The meld of ``faces`` with a joker at every position ``mask`` marks."""
    return Meld(tuple(joker if j else f for f, j in zip(faces, mask, strict=True)), faces)


def _decomposable(mask: tuple[bool, ...], min_length: int) -> bool:
    """Can a run with this joker mask be cut into two runs that are each valid?"""
    n = len(mask)
    for cut in range(min_length, n - min_length + 1):
        left = cut - sum(mask[:cut])
        right = (n - cut) - sum(mask[cut:])
        if left >= MIN_NUMBERED_TILES and right >= MIN_NUMBERED_TILES:
            return True
    return False


@lru_cache(maxsize=32)
def set_patterns(profile: RuleProfile, whole_runs: bool = False) -> Patterns:
    """All non-decomposable set patterns of a profile (cached); with ``whole_runs`` every run
    pattern, the long ones too (a single-set initial meld may not lay a long run as two)."""
    ts = profile.tileset
    cat = set_catalogue(profile)
    faces_out: list[tuple[int, ...]] = []
    masks_out: list[tuple[bool, ...]] = []
    runs_out: list[bool] = []
    for faces, kind in zip(cat.faces, cat.kinds, strict=True):
        n = len(faces)
        for j in range(0, min(ts.jokers, max_jokers_in_set(profile, n)) + 1):
            for positions in combinations(range(n), j):
                mask = tuple(i in positions for i in range(n))
                if kind == "run" and not whole_runs and _decomposable(mask, profile.runs.min_length):
                    continue
                faces_out.append(faces)
                masks_out.append(mask)
                runs_out.append(kind == "run")
    n_patterns = len(faces_out)
    numbered = np.zeros((n_patterns, ts.joker), dtype=np.int64)
    joker_faces = np.zeros((n_patterns, ts.joker), dtype=np.int64)
    opening = np.zeros(n_patterns, dtype=np.int64)
    for p, (faces, mask) in enumerate(zip(faces_out, masks_out, strict=True)):
        for f, is_joker in zip(faces, mask, strict=True):
            if is_joker:
                joker_faces[p, f] += 1
                opening[p] += profile.joker_opening_value(ts.value_of(f))
            else:
                numbered[p, f] += 1
                opening[p] += ts.value_of(f)
    for arr in (numbered, joker_faces, opening):
        arr.setflags(write=False)
    return Patterns(
        faces=tuple(faces_out),
        jokers=tuple(masks_out),
        numbered=numbered,
        joker_faces=joker_faces,
        n_jokers=joker_faces.sum(axis=1),
        opening_value=opening,
        is_run=np.array(runs_out),
    )
