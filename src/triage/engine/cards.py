"""Patient cards (rules K1, K2) and deck files.

A card has a public front (its front kind and, for a standard card, its diagnostic difficulty)
and a hidden back (kind, priority, healing difficulty, reward). Deck files are TOML, validated on
load with messages that name the file, the card and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from triage.engine.errors import DataError
from triage.engine.files import read_toml
from triage.engine.shapes import DeckEntry
from triage.engine.vocabulary import FRONT_OF, KIND, KIND_NAMES, STANDARD_KINDS

#: The card kinds' names (K2), from the vocabulary.
KINDS: tuple[str, ...] = KIND_NAMES
#: Each kind's priority (K1), looked up on the hot paths.
_PRIORITY: dict[str, int | None] = {kind.name: kind.priority for kind in KIND.values()}
CARD_FIELDS: frozenset[str] = frozenset(
    {"id", "kind", "diagnosis", "healing", "credits", "vp", "name", "note"}
)


@dataclass(frozen=True, slots=True)
class CardSpec:
    """One patient card. ``diagnosis`` is None off standard cards, ``healing`` None where the
    card prints none (chronic: its Time is the difficulty, T3; terminal: one unit a round, T5).

    >>> card = CardSpec("S1", "severe", diagnosis=1, healing=2, credits=2, vp=3)
    >>> card.front, card.priority
    ('standard', 2)
    """

    id: str
    kind: str
    diagnosis: int | None = None
    healing: int | None = None
    credits: int = 0
    vp: int = 0

    @property
    def front(self) -> str:
        """The front kind (K2): severe, chronic and non-severe cards share the standard front."""
        return FRONT_OF[self.kind]

    @property
    def priority(self) -> int | None:
        return _PRIORITY[self.kind]

    def difficulty(self, time: int) -> int:
        """The healing a patient of this card needs in all (T2): the printed one, or for a
        chronic patient its Time ``time`` (T3).

        >>> CardSpec("C1", "chronic", diagnosis=2).difficulty(time=4)
        4
        """
        return self.healing if self.healing is not None else time

    def back(self) -> tuple[str, int | None, int | None, int, int]:
        """Everything printed on the card but its id: two cards with equal backs are
        interchangeable for whoever does not know which is which."""
        return (self.kind, self.diagnosis, self.healing, self.credits, self.vp)

    def with_id(self, new_id: str) -> "CardSpec":
        """This card under another id (a dealt card, K1)."""
        return CardSpec(new_id, self.kind, self.diagnosis, self.healing, self.credits, self.vp)

    def to_dict(self) -> DeckEntry:
        data: DeckEntry = {"id": self.id, "kind": self.kind, "credits": self.credits, "vp": self.vp}
        if self.diagnosis is not None:
            data["diagnosis"] = self.diagnosis
        if self.healing is not None:
            data["healing"] = self.healing
        return data


def _whole(value: Any, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise DataError(f"{where}: expected a whole number >= {minimum}, got {value!r}")
    return value


#: What every card's back prints (K1): its reward.
REWARD_FIELDS = ("credits", "vp")


def parse_card(raw: Any, where: str, card_id: str | None = None, defaults: bool = False) -> CardSpec:
    """Validate one card entry. ``where`` names the file and entry for error messages.

    A deck file must give every field its card's kind prints (K1): ``diagnosis`` on a standard
    card, ``healing`` where it is printed, ``credits`` and ``vp`` on every card; a missing one is
    refused by name, never read as 0. ``defaults`` is the scenario format's reading
    (scenario-format.md: ``diagnosis``, ``credits`` and ``vp`` default to 0)."""
    if not isinstance(raw, Mapping):
        raise DataError(f"{where}: a card must be a table of fields, got {raw!r}")
    unknown = sorted(set(raw) - CARD_FIELDS)
    if unknown:
        raise DataError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(CARD_FIELDS))})")
    identifier = card_id if card_id is not None else raw.get("id")
    if not isinstance(identifier, str) or not identifier.strip():
        raise DataError(f"{where}: field 'id' must be a non-empty string, got {identifier!r}")
    where = f"{where} ({identifier})"
    kind = raw.get("kind")
    if kind not in KINDS:
        raise DataError(f"{where}: field 'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    if "diagnosis" in raw and kind not in STANDARD_KINDS:
        raise DataError(f"{where}: field 'diagnosis' does not apply to a {kind} card (K1, A7)")
    if "healing" in raw and not KIND[kind].printed_healing:
        rule = "T3" if kind == "chronic" else "T5"
        raise DataError(f"{where}: field 'healing' does not apply to a {kind} card ({rule})")
    diagnosis = (
        _whole(raw.get("diagnosis", 0), f"{where}: field 'diagnosis'") if kind in STANDARD_KINDS else None
    )
    healing = (
        _whole(raw.get("healing", 0), f"{where}: field 'healing'") if KIND[kind].printed_healing else None
    )
    credits = _whole(raw.get("credits", 0), f"{where}: field 'credits'")
    vp = _whole(raw.get("vp", 0), f"{where}: field 'vp'")
    needed = [
        *(["diagnosis"] if kind in STANDARD_KINDS else []),
        *(["healing"] if KIND[kind].printed_healing else []),
        *REWARD_FIELDS,
    ]
    missing = [name for name in needed if name not in raw and (not defaults or name == "healing")]
    if missing:
        raise DataError(f"{where}: field {missing[0]!r} is required for a {kind} card (K1)")
    return CardSpec(identifier, kind, diagnosis, healing, credits, vp)


def parse_deck(raw: Any, source: str) -> list[CardSpec]:
    """Validate a deck document: ``{"cards": [card, ...]}`` with unique ids."""
    if not isinstance(raw, Mapping) or "cards" not in raw:
        raise DataError(f"{source}: a deck needs a 'cards' list")
    entries = raw["cards"]
    if not isinstance(entries, list) or not entries:
        raise DataError(f"{source}: 'cards' must be a non-empty list")
    cards: list[CardSpec] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries, start=1):
        card = parse_card(entry, f"{source}: card {index}")
        if card.id in seen:
            raise DataError(f"{source}: card {index}: id {card.id!r} is used twice (K3)")
        seen.add(card.id)
        cards.append(card)
    return cards


def load_deck(path: str | Path) -> list[CardSpec]:
    """Read and validate a TOML deck file."""
    return parse_deck(read_toml(path, "deck file"), str(path))


def data_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "data"


def standard_deck_path() -> Path:
    return data_dir() / "decks" / "standard.toml"


def deck_names() -> list[str]:
    """The built-in decks by name (``standard``, ``mini`` ...): the files under ``data/decks``."""
    return sorted(path.stem for path in (data_dir() / "decks").glob("*.toml"))


def named_deck_path(name: str) -> Path:
    """The file of the built-in deck ``name``; a name that is none of them is an error naming
    the known ones."""
    if name not in deck_names():
        raise DataError(f"unknown deck {name!r} (built-in decks: {', '.join(deck_names())}; or a deck file)")
    return data_dir() / "decks" / f"{name}.toml"


def load_named_deck(name: str) -> list[CardSpec]:
    """A built-in deck by name, validated like any deck file."""
    return load_deck(named_deck_path(name))


_STANDARD_DECK: tuple[CardSpec, ...] | None = None

#: ``Game.deck_key`` of a game dealt from the standard deck (read once per process, so every
#: such deal holds the same cards under other handles).
STANDARD_DECK_KEY = "standard"


def load_standard_deck() -> list[CardSpec]:
    """The default deck ``decks/standard.toml`` (read once per process)."""
    global _STANDARD_DECK
    if _STANDARD_DECK is None:
        _STANDARD_DECK = tuple(load_deck(standard_deck_path()))
    return list(_STANDARD_DECK)
