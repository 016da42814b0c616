"""What every validated config shares: the strict pydantic base model and the one-line error.

Profiles, experiment files and bot parameters are pydantic models that refuse unknown keys,
are frozen and never coerce types (``StrictModel``). A validation error becomes one line naming
the source, the key and what is allowed (``describe_error``), quoting at most an ``excerpt`` of
the offending input. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict


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
