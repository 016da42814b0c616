"""The greedy bot: the most tiles every turn, with full table rearrangement."""

from __future__ import annotations

from rummisim.bots.search import SearchBot


class GreedyBot(SearchBot):
    """Places as many rack tiles as it can every turn (ties: the most points).

    Each turn it asks the exact solver (``objective="tiles"``) for the play that
    places the most rack tiles, rearranging the whole table as the profile
    allows, and makes it; before its initial meld it makes the opening that
    places the most tiles. With no play it draws. Shared phase, discard-pile and
    budget handling: ``rummisim.bots.search``. Deterministic; it does not use its
    random generator.
    """

    name = "greedy"
    objective = "tiles"
