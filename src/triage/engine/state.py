"""The pieces of a game position: patients on the board and each player's holdings (K4, K5).

These are plain mutable records with ``__slots__`` for speed; the :class:`~triage.engine.game.Game`
is the only code that changes them, and only after an action has been fully validated.
"""

from __future__ import annotations

#: Holdings a player can count; none of them may ever go below zero (QoC may: R4).
COUNTERS: tuple[str, ...] = (
    "vp",
    "credits",
    "treated",
    "diagnostics",
    "healing",
    "staff",
    "staff_available",
    "congress",
    "helicopters",
)

#: Every number a player's board shows: QoC first, then the counters above.
PLAYER_NUMBERS: tuple[str, ...] = ("quality", *COUNTERS)

BASE_SPACES = 4


class Patient:
    """A card in play for a player: in a hospital space, or a terminal patient beside it (A3)."""

    __slots__ = ("card", "time", "revealed", "placed", "treated", "ever_treated")

    def __init__(
        self,
        card: str,
        time: int = 0,
        revealed: bool = False,
        placed: int = 0,
        treated: bool = False,
        ever_treated: bool = False,
    ) -> None:
        self.card = card
        self.time = time
        self.revealed = revealed
        self.placed = placed
        #: T5: a terminal patient treated this round.
        self.treated = treated
        #: V3: a terminal patient treated at least once during this stay.
        self.ever_treated = ever_treated or treated

    def copy(self) -> "Patient":
        return Patient(self.card, self.time, self.revealed, self.placed, self.treated, self.ever_treated)


class PlayerState:
    """One player's board, tracks and supply."""

    __slots__ = (
        "quality",
        *COUNTERS,
        "items",
        "hospital",
        "terminals",
        "pending",
        "passed",
    )

    def __init__(self) -> None:
        self.quality = 0
        self.vp = 0
        self.credits = 0
        self.treated = 0
        self.diagnostics = 0
        self.healing = 0
        self.staff = 0
        self.staff_available = 0
        self.congress = 0
        self.helicopters = 0
        #: T8: how many of each market item the player bought, for every item whose limit counts
        #: purchases (``MarketItem.holding`` None: the Clinical Trials and Outpatient Clinics of
        #: K4, a designer's items), none bought included. Never changed in place: a purchase
        #: replaces it, so copies (and views) share it.
        self.items: dict[str, int] = {}
        #: Space ``n`` is ``hospital[n - 1]``; spaces 5 and on come from market items (K4, T8).
        self.hospital: list[Patient | None] = [None] * BASE_SPACES
        self.terminals: list[Patient] = []
        self.pending: list[str] = []
        self.passed = False

    @property
    def spaces(self) -> int:
        return len(self.hospital)

    @property
    def score(self) -> int:
        """R4: VP plus QoC, at every moment."""
        return self.vp + self.quality

    def copy(self) -> "PlayerState":
        other = PlayerState.__new__(PlayerState)
        other.quality = self.quality
        other.vp = self.vp
        other.credits = self.credits
        other.treated = self.treated
        other.diagnostics = self.diagnostics
        other.healing = self.healing
        other.staff = self.staff
        other.staff_available = self.staff_available
        other.congress = self.congress
        other.helicopters = self.helicopters
        other.items = self.items
        other.hospital = [slot.copy() if slot is not None else None for slot in self.hospital]
        other.terminals = [patient.copy() for patient in self.terminals] if self.terminals else []
        other.pending = self.pending.copy()
        other.passed = self.passed
        return other

    def find(self, card: str) -> tuple[int | None, Patient | None]:
        """The space number (None for a terminal patient) and the patient holding ``card``."""
        for index, slot in enumerate(self.hospital):
            if slot is not None and slot.card == card:
                return index + 1, slot
        for patient in self.terminals:
            if patient.card == card:
                return None, patient
        return None, None
