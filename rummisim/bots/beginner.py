"""The beginner bot: the most tiles without ever breaking a table set."""

from __future__ import annotations

from rummisim.bots.search import SearchBot


class BeginnerBot(SearchBot):
    """Plays like a beginner who never rearranges the table.

    Each turn it asks the solver with ``rearrange=False`` for the play that
    places the most rack tiles using only new sets built from the rack and
    tiles added to table sets without breaking them (ties: the most points).
    So it never splits a run, shifts tiles between sets or frees a table joker.
    Before its initial meld it makes the opening that places the most tiles.
    With no play it draws. Shared phase, discard-pile and budget handling:
    ``rummisim.bots.search``. Deterministic; it does not use its random
    generator.
    """

    name = "beginner"
    objective = "tiles"
    rearrange = False
