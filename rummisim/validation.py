"""What every validated config shares: the strict pydantic base model and the one-line error.

Profiles, experiment files, tune files and bot parameters are pydantic models that refuse unknown
keys, are frozen and never coerce types (``StrictModel``). A ``ValidationError`` becomes one line
(``error_line``: which of its errors to tell, and where) naming the source, the key and what is
allowed (``describe_error``), quoting at most an ``excerpt`` of the offending input. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError


class StrictModel(BaseModel):
    """A config model: unknown keys are errors, instances are frozen, types are not coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def excerpt(value: Any, limit: int = 60, *, quote: bool = True) -> str:
    """``repr`` of a value (or the text itself, ``quote=False``) cut to ``limit`` characters:
    error lines never echo a whole input."""
    text = repr(value) if quote else str(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_error(
    error: Mapping[str, Any],
    prefix: str,
    key: str,
    valid: str,
    *,
    noun: str = "key",
    where: str = "",
    missing_hint: str = "",
) -> str:
    """One line for one pydantic error (an item of ``ValidationError.errors()``).

    An unknown key names the valid ones (``valid``; ``where`` may say where the key was
    found), a missing key says so (``missing_hint`` may add how to fix it), and any other error
    quotes an excerpt of the input with pydantic's message. ``prefix`` names the source
    (a file, a bot); ``noun`` is what the keys are (``key``, ``parameter``).
    """
    kind = error["type"]
    if kind == "extra_forbidden":
        return f"{prefix}: unknown {noun} '{key}'{where}; valid {noun}s: {valid}"
    if kind == "missing":
        return f"{prefix}: missing required {noun} '{key}'{missing_hint}"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{prefix}: {noun} '{key}': got {excerpt(error.get('input'))}; {message}"


def key_path(loc: Sequence[Any], branches: Collection[str] = ()) -> str:
    """A pydantic error location as the key path a config file writes (``lineups[0].params``).

    ``branches`` are the union members pydantic names in a location (``str``, a model's class
    name); they, and ``list[...]`` members, are not keys and are left out. The model itself is
    ``(top level)``.
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in branches or (isinstance(part, str) and part.startswith("list[")):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def error_line(
    exc: ValidationError,
    prefix: str,
    valid: Callable[[tuple[Any, ...], str], str],
    *,
    noun: str = "key",
    branches: Collection[str] = (),
    key: Callable[[tuple[Any, ...]], str] | None = None,
    prefer: Mapping[str, int] | None = None,
    where: Callable[[tuple[Any, ...]], str] | None = None,
    missing_hint: str = "",
    tally: bool = False,
) -> str:
    """The one line a config's ``ValidationError`` is reported as (``describe_error``'s words).

    One error is told: the first, or with ``prefer`` (error type -> rank, others 0) the highest
    ranked, then the deepest location, then the first (a union reports one error per member, and
    the model's member says more). Its location names the key: ``key_path`` with ``branches``, or
    ``key(loc)``; ``valid(loc, key)`` lists the keys allowed there and ``where(loc)`` may say where
    an unknown key was found. ``tally`` adds how many other problems there are.
    """
    errors = exc.errors()
    if prefer is None:
        error = errors[0]
    else:
        error = max(errors, key=lambda e: (prefer.get(e["type"], 0), len(e["loc"])))
    loc = tuple(error["loc"])
    name = key(loc) if key else key_path(loc, branches)
    line = describe_error(
        error,
        prefix,
        name,
        valid(loc, name),
        noun=noun,
        where=where(loc) if where else "",
        missing_hint=missing_hint,
    )
    if tally and len(errors) > 1:
        line += f" (and {len(errors) - 1} more problem(s))"
    return line
