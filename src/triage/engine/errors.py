"""Typed refusals: every refused action names an error code (scenario-format.md section 4)
and the rule id it breaks, so a player, a test or a bot knows exactly what was wrong."""

from __future__ import annotations

ERROR_CODES: tuple[str, ...] = (
    "game_over",
    "invalid_action",
    "empty_helicopter",
    "not_your_turn",
    "wrong_phase",
    "unknown_patient",
    "no_such_space",
    "space_occupied",
    "space_available",
    "already_revealed",
    "not_revealed",
    "not_terminal",
    "is_terminal",
    "already_treated",
    "too_much_healing",
    "no_helicopter",
    "limit_reached",
    "bad_payment",
    "cannot_afford",
)


class RuleError(Exception):
    """An action the rules refuse. The game it was tried on is left exactly as it was.

    >>> error = RuleError("space_occupied", "space 2 already holds P07", "A4")
    >>> str(error)
    'space_occupied: space 2 already holds P07 (rule A4)'
    """

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        self.code = code
        self.message = message
        self.rule = rule
        suffix = f" (rule {rule})" if rule else ""
        super().__init__(f"{code}: {message}{suffix}")

    def to_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "message": self.message, "rule": self.rule}


class DataError(ValueError):
    """A configuration, deck, record or scenario file that does not hold what it should.

    The message names the file, the entry and the field, so the author can fix it at once.
    """
