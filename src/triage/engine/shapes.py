"""The shapes of the engine's plain data, typed: actions, events, views, states and records
(scenario-format.md sections 3-6), the choices and forecasts the page asks for.

They stay plain JSON data (dicts and lists) so that every shell can send, store and compare them
as they are; these TypedDicts let mypy check every layer that reads them, and let the web
service publish them in its OpenAPI schema (the page's types are generated from it). A card
field a viewer cannot know is absent, never null (I1-I4), so the card shapes are ``total=False``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NotRequired, Required

if TYPE_CHECKING:
    from typing import TypedDict
else:  # pydantic reads these shapes for the web API's schema, and wants typing_extensions' own on 3.11
    try:
        from typing_extensions import TypedDict
    except ImportError:  # the engine needs no third-party package: plain typing's serves it
        from typing import TypedDict

# ---------------------------------------------------------------------- actions (section 4)


class DeckEntry(TypedDict, total=False):
    """A card as a deck file writes it (K1): its back, with the fields its kind prints."""

    id: Required[str]
    kind: Required[str]
    diagnosis: int
    healing: int
    credits: Required[int]
    vp: Required[int]


class Payment(TypedDict, total=False):
    """T6: the units of a cost paid with tokens, available Staff and Congress Doctors (a
    missing key counts 0)."""

    tokens: int
    staff: int
    congress: int


class Action(TypedDict, total=False):
    """One action (scenario-format.md section 4): ``type`` and the fields of that type."""

    type: Required[str]
    card: str
    space: int
    patient: str
    amount: int
    #: None, or left out: the default payment (T6).
    pay: Payment | None
    remove: str | None
    draw_all: bool
    item: str


class Budget(TypedDict):
    """T6: what a seat can pay a cost with now: the matching tokens, available Staff, Congress."""

    tokens: int
    staff: int
    congress: int


class AmountRange(TypedDict):
    """T2: the heal amounts on offer."""

    min: int
    max: int


class Choice(TypedDict, total=False):
    """One bounded choice (:mod:`triage.engine.choices`): an action and target with its payment
    left open; ``type`` and the fields of that type."""

    type: Required[str]
    card: str
    spaces: list[int]
    patient: str
    cost: int
    token: str
    budget: Budget
    default_pay: Payment | None
    amount: AmountRange
    remove: list[str]
    draw_all: bool
    item: str
    price: int


# ---------------------------------------------------------------------- events (section 6)


class Secret(TypedDict, total=False):
    """C3: what a check shows (the whole back to the other players; solo, the priority)."""

    kind: str
    priority: int | None
    healing: int | None
    credits: int
    vp: int


class Event(TypedDict, total=False):
    """One event (scenario-format.md section 6): ``type`` and the fields of that type; what a
    seat may not see is left out of its copy (:func:`~triage.engine.observer.event_for`)."""

    type: Required[str]
    player: int
    card: str
    round: int
    first_player: int
    diagnostics: int
    healing: int | None
    front: str
    diagnosis: int | None
    space: int | None
    kind: str
    priority: int | None
    credits: int
    vp: int
    pay: Payment
    amount: int
    placed: int
    to: str
    quality_lost: int
    time: int
    seen_by: list[int]
    secret: Secret
    remove: str | None
    draw_all: bool
    item: str
    price: int
    cards: int
    scores: list[int]
    winner: int | None


# ---------------------------------------------------------------------- cards, boards, views


class CardShown(TypedDict, total=False):
    """A card as a viewer may know it (section 5): its front always, the rest where known."""

    card: str
    front: str
    diagnosis: int | None
    kind: str
    priority: int | None
    healing: int | None
    credits: int
    vp: int
    time: int
    revealed: bool
    placed: int


class PatientShown(CardShown, total=False):
    """One of the seat's patients as its view tells it, wherever it is (a space, beside the
    board, or just drawn): the card, and a terminal patient's treatments (T5, V3)."""

    treated: bool
    ever_treated: bool


class TerminalShown(TypedDict):
    """A terminal patient beside a board (A3): always revealed."""

    card: str
    time: int
    treated: bool
    ever_treated: bool
    front: str
    credits: int
    vp: int


class MarketItemShown(TypedDict):
    """A market item as one game sells it (T8): a view's, its price for the game's player count."""

    price: int
    limit: int | None
    gives: dict[str, int]
    label: str
    help: str


class MarketItemFile(TypedDict):
    """A market item as a configuration file declares it (T8; config.md): its price one number,
    or one per player count."""

    price: int | dict[str, int]
    limit: int | None
    gives: dict[str, int]
    label: str
    help: str


class SoloTierShown(TypedDict):
    name: str
    score: int


class SoloShown(TypedDict):
    """R4 solo: the score tiers, best first."""

    tiers: list[SoloTierShown]


class _ConfigValues(TypedDict):
    """The configuration's values but ``rounds`` ([O] values, V1-V4, T8), as its file holds them."""

    arrivals: int
    end_on_zero_quality: bool
    #: V1: one place for every case, or a place by case (a missing case: ``top``).
    return_to: str | dict[str, str]
    helicopter_draws: str
    terminal_upkeep: str
    quality_floor: int | None
    final_round_order: str
    income: dict[str, int]
    start: dict[str, int]
    solo: SoloShown
    seat_credits: dict[str, list[int]]
    seat_vp: dict[str, list[int]]


class ConfigShown(_ConfigValues):
    """The configuration of one game as views carry it (:meth:`~triage.engine.config.Config.to_dict`
    of the configuration for the game's player count): its rounds and prices one number."""

    rounds: int
    market: dict[str, MarketItemShown]


class ConfigFile(_ConfigValues):
    """The configuration as its file holds it and records carry it
    (:meth:`triage.engine.config.Config.to_dict`): rounds and each item's price one number, or
    one per player count."""

    rounds: int | dict[str, int]
    market: dict[str, MarketItemFile]


class Board(TypedDict):
    """One player's board, tracks and supply (section 3; a view's shows the patients as the
    viewer may know them)."""

    quality: int
    vp: int
    credits: int
    treated: int
    diagnostics: int
    healing: int
    staff: int
    staff_available: int
    congress: int
    helicopters: int
    outpatient_clinics: int
    clinical_trials: int
    items: dict[str, int]
    spaces: int
    hospital: dict[str, CardShown | None]
    terminals: list[TerminalShown]
    pending: list[str]
    passed: bool
    score: int


class Knowledge(TypedDict):
    """What one seat knows of the cards' backs: fully, or by priority only (I2)."""

    full: list[str]
    priority: list[str]


class KindWords(TypedDict):
    """A card kind in a player's words (:mod:`triage.engine.vocabulary`), with what the page
    draws differently: whether its healing need is printed (T3) and whether it waits beside the
    board (A3, T5)."""

    label: str
    short: str
    help: str
    front: str
    priority: int | None
    printed_healing: bool
    beside: bool


class Flow(TypedDict):
    """Whose decision it is and what the game still has to do: public in every view."""

    round: int
    phase: str
    first_player: int
    turn: int | None
    active: int | None
    treatment_position: int
    extra_turn: int | None
    reopened: list[int]
    queue: list[list[int]]
    resolving: int | None
    winner: int | None


class View(Flow):
    """One seat's view, or a spectator's (scenario-format.md section 5)."""

    format: str
    viewer: int | None
    deck_count: int
    deck_top: CardShown | None
    deck_known: list[str | None]
    discard: list[str]
    players: list[Board]
    cards: dict[str, CardShown]
    knowledge: list[Knowledge]
    not_severe: list[str]
    card_ids: list[str]
    catalogue: list[list[Any]]
    config: ConfigShown
    kinds: dict[str, KindWords]


class State(Flow):
    """The full, all-seeing state (scenario-format.md section 3)."""

    deck: list[str]
    discard: list[str]
    players: list[Board]


# ---------------------------------------------------------------------- records (D1)


class Offer(TypedDict):
    """An action on offer as a player reads it: what it does (``do``, with its default payment)
    and its words (``text``)."""

    do: Action
    text: str


class Step(TypedDict):
    """One action of a record: who took it and what it was (D1)."""

    by: int
    do: Action


class Setup(TypedDict):
    """How a game was dealt (D1): what its record begins with."""

    players: int
    #: The configuration as its file holds it; the deck in the deck file's form (K1).
    config: ConfigFile
    deck: list[DeckEntry]
    seed: int


class Hint(TypedDict):
    """A move a seat was suggested: never a move of the game (``at``: the actions taken then)."""

    by: int
    at: int
    do: Action


class ChatLine(TypedDict):
    """A line of a table's chat (the web's, :mod:`triage.web.chat`): never a move of the game.
    ``by`` the seat that said it, ``at`` the actions every player could see then, ``kind``
    ``"say"`` (plain text) or ``"react"`` (one of the quick reactions, in words)."""

    by: int
    at: int
    kind: str
    text: str


class Result(TypedDict):
    """How a finished game ended (R4)."""

    scores: list[int]
    winner: int | None


class Record(Setup):
    """A game's record (:mod:`triage.engine.records`): its deal and actions replay it exactly
    (D1); the hints asked, and the result once it is over."""

    format: str
    actions: list[Step]
    hints: NotRequired[list[Hint]]
    chat: NotRequired[list[ChatLine]]
    result: NotRequired[Result]
    #: The terminal game's saved seats (human or a bot name), to resume with.
    seats: NotRequired[list[str]]


class SeatRecord(TypedDict):
    """A running game's record as one seat may see it (:func:`~triage.engine.records.record_for`):
    no seed or deck, each event as the seat saw it, its own hints."""

    format: str
    players: int
    config: ConfigFile
    viewer: int | None
    actions: list[Step]
    events: list[Event]
    hints: NotRequired[list[Hint]]
    chat: NotRequired[list[ChatLine]]


# ---------------------------------------------------------------------- forecasts (the page's words)


class Deadline(TypedDict, total=False):
    """When a visible patient dies (C1-C4) as its viewer can tell: ``level`` danger (dies unless
    saved), maybe (dies if severe) or safe; ``rounds`` the Cleanups after tonight's before it
    dies (0: tonight; None: never); ``quality_lost`` what its death costs (C4)."""

    owner: int
    level: Required[str]
    rounds: Required[int | None]
    text: Required[str]
    rule: Required[str]
    quality_lost: Required[int]


class Pays(TypedDict):
    """A cost's payment mixes on offer (T6), the engine's default first, and the ``warnings``
    ([index in ``pays``, words]) of those that take what another patient needs tonight."""

    default_pay: Payment | None
    pays: list[Payment]
    warnings: list[tuple[int, str]]


class HealAmount(TypedDict):
    """One heal amount on offer (T2, T4): what it does, its ``outcome`` (cures, short or
    dies_tonight) and its payment mixes (T6) with their ``warnings`` ([index in pays, words])."""

    amount: int
    effect: str
    outcome: str
    rule: str
    default_pay: Payment | None
    pays: list[Payment]
    warnings: list[tuple[int, str]]


class ChoiceEffect(TypedDict, total=False):
    """What one choice does, in the order of the choices: its target, ``effect`` and ``rule``;
    a diagnosis or treatment its payments, a heal its ``amounts``, a flight (T7) what each
    removal spares (``remove``) and the draw for all (``draw_all``)."""

    type: Required[str]
    card: str
    patient: str
    item: str
    effect: str
    rule: str
    default_pay: Payment | None
    pays: list[Payment]
    warnings: list[tuple[int, str]]
    amounts: list[HealAmount]
    remove: dict[str, str]
    draw_all: str | None


class AtRisk(TypedDict, total=False):
    """A patient of the seat that dies (or may die) at tonight's Cleanup, in words."""

    card: Required[str]
    text: Required[str]
    quality_lost: int


class AtRiskTonight(TypedDict):
    """What passing leaves to tonight's Cleanup (T9, C2-C4)."""

    dies: list[AtRisk]
    may_die: list[AtRisk]


class MarketOffer(TypedDict):
    """A market item's price for the seat and, when it cannot buy it now, why (T8)."""

    price: int
    why: str | None


#: The seat's forecast (:func:`triage.engine.forecast.forecast`): ``pass`` is a Python keyword,
#: hence the functional form.
Forecast = TypedDict(
    "Forecast",
    {
        "patients": dict[str, Deadline],
        "choices": list[ChoiceEffect],
        "pass": AtRiskTonight,
        "rescue": dict[str, list[str]],
        "market": dict[str, MarketOffer],
        "actions": list[Offer],
        "quick": dict[str, Offer],
    },
)


class PlayerRow(TypedDict):
    """One player's line of a finished game's summary (:func:`triage.engine.summary.player_rows`):
    the score (R4) and its parts, and the patients cured, dead and rejected by kind."""

    seat: int
    score: int
    vp: int
    quality: int
    treated: int
    credits: int
    cured: dict[str, int]
    dead: dict[str, int]
    rejected: dict[str, int]
