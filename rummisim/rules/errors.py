"""``IllegalMove``: the error every rule check raises, naming the rule it broke."""

from __future__ import annotations


class IllegalMove(ValueError):
    """A move that breaks a rule; ``rule`` is the machine-readable rule name."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
