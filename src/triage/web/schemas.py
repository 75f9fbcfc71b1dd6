"""The API's request and answer bodies (pydantic): the OpenAPI schema clients read.

Requests are strict (an integer is a JSON integer, never "2", 2.0 or true); the game documents
themselves are plain JSON data, sent as they are built (:mod:`triage.web.payloads`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Required, Self, TypedDict, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, model_validator
from pydantic.json_schema import SkipJsonSchema

from triage.engine.config import ITEM_KEYS, MAX_HELP, MAX_LABEL
from triage.engine.shapes import SoloTierShown
from triage.engine.vocabulary import KINDS, SUPPLIES
from triage.web.answers import Pace, SpectatorChat, TableSettings
from triage.web.limits import MAX_DECK_CARDS, MAX_GIFT, MAX_MARKET_ITEMS
from triage.web.names import MAX_NAME
from triage.web.pagetypes import SchemaNode

if TYPE_CHECKING:
    KindName = str
    SupplyName = str
else:  # the vocabulary's names as the schema's enums (triage.engine.vocabulary)
    KindName = Literal[tuple(kind.name for kind in KINDS)]
    SupplyName = Literal[tuple(supply.name for supply in SUPPLIES)]
#: A market item's name: lower-case letters, digits and '_' (T8; the engine checks it too).
ItemName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=MAX_LABEL)]

#: Request parts are strict and closed: an integer is a JSON integer, an unknown key is refused.
STRICT = ConfigDict(extra="forbid", strict=True)


def _no_default(schema: SchemaNode) -> None:
    schema.pop("default", None)


#: A key a request may leave out but not set to null (the schema shows neither null nor a default).
Omitted = SkipJsonSchema[None]
OMITTED: Any = Field(None, json_schema_extra=_no_default)
Place = Literal["top", "bottom", "discard"]


class Closed(BaseModel):
    """A strict, closed part of a request whose optional keys may be left out but are null only
    where null means something (``nullable``)."""

    model_config = STRICT
    nullable: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="after")
    def _no_null(self) -> Self:
        for name in sorted(self.model_fields_set - self.nullable):
            if getattr(self, name) is None:
                raise ValueError(f"'{name}' may be left out but not null")
        return self


class ReturnPlaces(Closed):
    """V1: where each kind of card leaving play goes (a missing case: top)."""

    cured: Place | Omitted = OMITTED
    died: Place | Omitted = OMITTED
    rejected: Place | Omitted = OMITTED


class HoldingsOverride(Closed):
    """Start holdings (a missing key keeps its default)."""

    quality: int | Omitted = OMITTED
    vp: int | Omitted = OMITTED
    credits: int | Omitted = OMITTED
    diagnostics: int | Omitted = OMITTED
    healing: int | Omitted = OMITTED
    staff: int | Omitted = OMITTED
    congress: int | Omitted = OMITTED
    helicopters: int | Omitted = OMITTED


class IncomeOverride(Closed):
    diagnostics: int | Omitted = OMITTED
    healing: int | Omitted = OMITTED


class ByPlayerCount(Closed):
    """A number by player count, R1's rounds or T8's price of an item (a table over one number
    keeps it for the counts not named)."""

    model_config = ConfigDict(populate_by_name=True)
    one: int | Omitted = Field(None, alias="1", json_schema_extra=_no_default)
    two: int | Omitted = Field(None, alias="2", json_schema_extra=_no_default)
    three: int | Omitted = Field(None, alias="3", json_schema_extra=_no_default)
    four: int | Omitted = Field(None, alias="4", json_schema_extra=_no_default)


class MarketItemOverride(Closed):
    """T8: an item's price, how many a player may own (``limit`` null: no limit), what one
    purchase gives, and its words for players. A new item (not among the defaults) names at
    least ``price`` and ``gives``."""

    nullable = frozenset({"limit"})
    price: int | ByPlayerCount | Omitted = OMITTED
    limit: int | None = None
    gives: (
        Annotated[dict[SupplyName, Annotated[int, Field(ge=1, le=MAX_GIFT)]], Field(min_length=1)] | Omitted
    ) = Field(None, json_schema_extra=_no_default, description="What one purchase adds, by supply (T8).")
    label: Annotated[str, Field(min_length=1, max_length=MAX_LABEL)] | Omitted = OMITTED
    help: Annotated[str, Field(min_length=1, max_length=MAX_HELP)] | Omitted = OMITTED


assert tuple(MarketItemOverride.model_fields) == ITEM_KEYS


def _no_null_items(market: dict[str, MarketItemOverride | None]) -> dict[str, MarketItemOverride | None]:
    for name, item in market.items():
        if item is None:
            raise ValueError(f"'{name}' may be left out but not null")
    return market


#: T8: overrides of the market, item by item: the default items' keys, or a designer's item.
MarketOverride = Annotated[
    dict[ItemName, MarketItemOverride | Omitted],
    Field(max_length=MAX_MARKET_ITEMS),
    AfterValidator(_no_null_items),
]


class SoloTier(Closed):
    name: str
    score: int


class SoloOverride(Closed):
    tiers: list[SoloTier] | Omitted = OMITTED


class SeatTableOverride(Closed):
    """R1: Credits (``seat_credits``) or VP (``seat_vp``) each seat starts with on top of
    ``start``, one list per player count."""

    model_config = ConfigDict(populate_by_name=True)
    two: list[int] | Omitted = Field(None, alias="2", json_schema_extra=_no_default)
    three: list[int] | Omitted = Field(None, alias="3", json_schema_extra=_no_default)
    four: list[int] | Omitted = Field(None, alias="4", json_schema_extra=_no_default)


class ConfigOverrides(Closed):
    """Overrides of the game configuration (scenario-format.md section 1), merged key by key into
    the defaults; the engine checks the values (and the server's limits bound them)."""

    nullable = frozenset({"quality_floor"})
    rounds: int | ByPlayerCount | Omitted = OMITTED
    arrivals: int | Omitted = OMITTED
    end_on_zero_quality: bool | Omitted = OMITTED
    return_to: Place | ReturnPlaces | Omitted = OMITTED
    helicopter_draws: Literal["wait", "reopen"] | Omitted = OMITTED
    terminal_upkeep: Literal["death", "reward"] | Omitted = OMITTED
    final_round_order: Literal["rotate", "trailing_last"] | Omitted = OMITTED
    quality_floor: int | None = Field(None, description="V4: the lowest QoC (null: no floor).")
    income: IncomeOverride | Omitted = OMITTED
    start: HoldingsOverride | Omitted = OMITTED
    market: MarketOverride = OMITTED
    solo: SoloOverride | Omitted = OMITTED
    seat_credits: SeatTableOverride | Omitted = OMITTED
    seat_vp: SeatTableOverride | Omitted = OMITTED


class DeckCard(Closed):
    """One card of a deck (the deck-file format; which numbers apply depends on ``kind``, K1)."""

    id: str
    kind: KindName
    diagnosis: int | Omitted = OMITTED
    healing: int | Omitted = OMITTED
    credits: int | Omitted = OMITTED
    vp: int | Omitted = OMITTED
    name: str | Omitted = OMITTED
    note: str | Omitted = OMITTED


# ---------------------------------------------------------------------- as the engine reads them


class ItemFields(TypedDict, total=False):
    """A market item's overrides as a request gives them (T8): :class:`MarketItemOverride`'s keys
    that it set."""

    price: int | dict[str, int]
    limit: int | None
    gives: dict[str, int]
    label: str
    help: str


class SoloFields(TypedDict, total=False):
    tiers: list[SoloTierShown]


class ConfigFields(TypedDict, total=False):
    """Configuration overrides as a request gives them (:meth:`TableRequest.config_overrides`):
    the keys it set, a table by player count keyed by the count, for the engine's
    ``make_config`` to merge into the defaults and check."""

    rounds: int | dict[str, int]
    arrivals: int
    end_on_zero_quality: bool
    return_to: str | dict[str, str]
    helicopter_draws: str
    terminal_upkeep: str
    final_round_order: str
    quality_floor: int | None
    income: dict[str, int]
    start: dict[str, int]
    market: dict[str, ItemFields]
    solo: SoloFields
    seat_credits: dict[str, list[int]]
    seat_vp: dict[str, list[int]]


class CardFields(TypedDict, total=False):
    """A deck card as a request gives it (:class:`DeckCard`'s keys that it set), for the
    engine's ``parse_deck`` to check (K1: a kind's missing number is refused by name)."""

    id: Required[str]
    kind: Required[str]
    diagnosis: int
    healing: int
    credits: int
    vp: int
    name: str
    note: str


# The engine reads what the request models hold: the same keys (a key added to one goes in both).
assert tuple(ItemFields.__annotations__) == ITEM_KEYS, "ItemFields: a market item's keys"
assert set(ConfigFields.__annotations__) == set(ConfigOverrides.model_fields), (
    "ConfigFields: ConfigOverrides' keys"
)
assert set(CardFields.__annotations__) == set(DeckCard.model_fields), "CardFields: DeckCard's keys"


class ClockRequest(Closed):
    """A time bank per seat and the seconds each seat gains when a round starts."""

    bank: int = Field(description="Seconds in each human seat's bank at the start (5 to 86400).")
    increment: int | Omitted = Field(
        None, description="Seconds each bank gains when a round starts (0 to 3600; default 0)."
    )


class ClockSettings(TypedDict, total=False):
    """A table request's clock as :func:`triage.web.clocks.time_rules` reads it: the keys it gave."""

    bank: Required[int]
    increment: int


class TableRequest(BaseModel):
    """A new table: how many seats, which are bots, and optionally the deal. Strict types: an
    integer is a JSON integer (never "2", 2.0 or true)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    players: int = Field(2, ge=1, le=4, description="Number of seats (1-4, R1).")
    bots: list[str | None] | None = Field(
        None,
        max_length=4,
        description="One entry per seat: a bot name (see /api/bots) or null for a human. Default: all human.",
    )
    seed: int | None = Field(
        None,
        ge=0,
        description="Deal seed (D1). Omit it for a secret random deal; whoever chooses it can work out the deal.",
    )
    config: ConfigOverrides | None = Field(
        None, description="Configuration overrides (scenario-format.md section 1)."
    )
    deck: list[DeckCard] | None = Field(
        None,
        max_length=MAX_DECK_CARDS,
        description=f"Deck cards (deck-file format, at most {MAX_DECK_CARDS}); default the standard deck.",
    )
    public: bool = Field(
        False, description="List the table in the lobby, its open seats free for anyone to join."
    )
    creator_seats: list[int] | None = Field(
        None,
        description="The human seats the creator takes at once (default: all); the others get invitations.",
    )
    name: str | None = Field(
        default=None,
        description=f"The creator's public name (1-{MAX_NAME} characters, no control characters); default 'Player N'.",
    )
    clock: ClockRequest | None = Field(
        None,
        description="A clock per human seat (default none): when a seat's bank runs out, a stand-in bot "
        "plays for it until its player comes back (invalid_clock outside the bounds).",
    )
    away_seconds: int | None = Field(
        None,
        description="Seconds a human seat to move may be away (no WebSocket open) before a stand-in bot "
        "plays for it (5 to 86400; default: never).",
    )
    stand_in: str | None = Field(
        None,
        description="The player level (see /api/bots) of the stand-in bot; default a gentle one.",
    )
    pace: Pace = Field(
        "normal",
        description="The pace the page shows others' moves at (instant, quick, normal, slow); each "
        "player's page may choose its own.",
    )
    spectator_chat: SpectatorChat = Field(
        "read", description="Whether spectators read the table's chat ('read') or not ('off')."
    )

    def settings(self) -> TableSettings:
        return {"pace": self.pace, "spectator_chat": self.spectator_chat}

    def clock_settings(self) -> ClockSettings | None:
        if self.clock is None:
            return None
        settings: ClockSettings = {"bank": self.clock.bank}
        if self.clock.increment is not None:  # left out (it may not be null)
            settings["increment"] = self.clock.increment
        return settings

    def config_overrides(self) -> ConfigFields | None:
        """The configuration as the engine reads it: only the keys the request gave."""
        if self.config is None:
            return None
        return cast(ConfigFields, self.config.model_dump(exclude_unset=True, by_alias=True))

    def deck_cards(self) -> list[CardFields] | None:
        """The deck as the engine reads it: each card with the keys the request gave."""
        if self.deck is None:
            return None
        return [cast(CardFields, card.model_dump(exclude_unset=True)) for card in self.deck]


class JoinRequest(BaseModel):
    """An invitation's code, or (a public table only) the open seat wanted (default: the first)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    invite: str | None = None
    seat: int | None = None
    name: str | None = Field(
        default=None,
        description=f"The player's public name (1-{MAX_NAME} characters, no control characters).",
    )


class FillRequest(BaseModel):
    """The bot level (see /api/bots) the host gives every free human seat."""

    model_config = ConfigDict(extra="forbid", strict=True)

    bot: str


class RematchSeat(BaseModel):
    table_id: str = Field(description="The rematch's table.")
    seat: int
    token: str = Field(description="The seat's token at the rematch.")


class ErrorBody(BaseModel):
    code: str
    message: str
    rule: str | None = None


#: What each refusal status means (docs/web.md lists the codes).
ERROR_MEANINGS: dict[int, str] = {
    400: "The body is not bounded JSON (invalid_json) or a header is malformed.",
    401: "No seat token, or not in the form 'Bearer TOKEN' (unauthorized).",
    403: "A token or invitation of no seat at this table (forbidden, bad_invite), not the host (not_host), "
    "or a spectator asking for a chat spectators do not read (chat_hidden).",
    404: "No such table (unknown_table).",
    409: "Not now: another seat's turn, a stale action, a taken seat, a used or expired invitation, a table waiting for its players, a game not over, a full chat (the code says which).",
    413: "The body is larger than the server reads (body_too_large).",
    422: "A request the rules or the server's limits refuse (invalid_request, invalid_name, limit_exceeded, "
    "invalid_clock, unknown_bot, invalid_chat, empty_chat, chat_too_long, unknown_reaction, a rule's code).",
    429: "Too many requests from this client (rate_limited); Retry-After says when to try again.",
    503: "The database failed; nothing changed (storage_error).",
}


# In FastAPI's type for a route's ``responses``: OpenAPI response objects (with FastAPI's own
# ``model`` key), an open document.
def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a route that answers these refusal statuses."""
    return {status: {"model": ErrorBody, "description": ERROR_MEANINGS[status]} for status in statuses}


#: Every refusal status (a route declares those it answers with :func:`errors`).
ERRORS = errors(*ERROR_MEANINGS)
