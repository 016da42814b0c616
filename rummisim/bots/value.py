"""The value bot: sheds the most points every turn."""

from __future__ import annotations

from rummisim.bots.search import SearchBot


class ValueBot(SearchBot):
    """Places the rack tiles worth the most points every turn (ties: the most tiles).

    Like ``greedy`` but with ``objective="value"``: it asks the exact solver for
    the play that sheds the highest face value (a rack joker counts its rack
    penalty), with full table rearrangement, so that a round lost costs as
    little as possible. Before its initial meld it makes the opening that sheds
    the most points. With no play it draws. Shared phase, discard-pile and
    budget handling: ``rummisim.bots.search``. Deterministic; it does not use its
    random generator.
    """

    name = "value"
    objective = "value"
