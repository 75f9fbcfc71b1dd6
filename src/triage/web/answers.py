"""The shapes of the web service's answers and WebSocket messages, typed.

Built on the engine's shapes (:mod:`triage.engine.shapes`), they are what the routes declare as
their answers, so the OpenAPI schema describes every game document the page reads; the page's
JSDoc types are generated from that schema (:mod:`triage.web.pagetypes`), and ``tsc`` checks the
page against what the server sends. Socket messages have no route: :data:`MESSAGES` adds them to
the schema's components.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from typing_extensions import NotRequired, Required, TypedDict

from triage.engine.shapes import (
    Action,
    ChatLine,
    Choice,
    Event,
    Forecast,
    PlayerRow,
    State,
    View,
)


class WordedEvent(Event, total=False):
    """One event as the viewer may see it, with its words for that viewer (players by name,
    "You" for the viewer; :func:`triage.engine.text.event_words`) and the heading of the phase
    it belongs to (:func:`~triage.engine.text.event_phases`): the page shows both as they are."""

    text: Required[str]
    phase: Required[str]


class UndoInfo(TypedDict):
    """For the seat that may undo: how many actions it may take back, and when none, why (in
    its player's words) and the rule behind it."""

    steps: int
    reason: str | None
    rule: str | None


class SeatView(View):
    """``GET .../view``: the seat's view at the table's action number (``actions``)."""

    actions: int
    undo: UndoInfo | None


class PublicView(View):
    """``GET .../public``: the spectators' view at the table's action number."""

    actions: int


class LegalAnswer(TypedDict):
    """``GET .../legal``: the seat's choices and what each does (the engine's forecast)."""

    actions: int
    choices: list[Choice]
    forecast: Forecast


class HintAnswer(TypedDict):
    """``POST .../hint``: the expert's suggested move for the seat at action ``at``, and why."""

    seat: int
    at: int
    action: Action
    reason: str
    bot: str


class UndoAnswer(TypedDict):
    """``POST .../undo``: the table's action count once the seat's actions were taken back."""

    actions: int
    undone: int
    turn: int | None
    phase: str
    undo: UndoInfo | None


# ``POST .../actions``: the action's number, the table's count after it and the bot moves that
# followed, the seat's events of them and whose turn it is now; stored with the action, so that a
# repeat of the request gets it again. (No docstring: the schema's component is as it was.)
class ActionResult(TypedDict):
    number: Annotated[
        int, Field(description="The number of the accepted action in the table's record (from 0).")
    ]
    actions: Annotated[
        int,
        Field(
            description="The table's action count once this action and the bot moves after it were stored."
        ),
    ]
    events: Annotated[
        list[Event],
        Field(description="This seat's events of the action and of the bot moves that followed it."),
    ]
    turn: int | None
    phase: str


class FilledSeats(TypedDict):
    """``POST .../fill``: the seats the host gave to the bot level ``bot``."""

    seats: list[int]
    bot: str


# A seat taken: its number and its token (a secret: the seat's holder alone gets it).
# ``POST .../join`` answers it. (No docstring: the schema's component is as it was.)
class SeatToken(TypedDict):
    seat: int
    token: str


class RematchPlace(SeatToken):
    """``POST .../rematch``: the seat's place at the rematch table."""

    table_id: str


# An invitation to a human seat of a new table.
class Invite(TypedDict):
    seat: int
    url: Annotated[
        str, Field(description="The invitation link (relative to the server root) to send to a friend.")
    ]
    code: Annotated[
        str, Field(description='The invitation code: POST /api/tables/{id}/join with {"invite": code}.')
    ]


# ``POST /api/tables``: the new table, its creator's seats and the invitations to the others.
class CreatedTable(TypedDict):
    table_id: str
    seats: Annotated[
        list[SeatToken], Field(description="The token of each of the creator's seats; bots need none.")
    ]
    invites: Annotated[list[Invite], Field(description="An invitation for each other human seat.")]


class SeatFacts(TypedDict):
    """What everyone may know of a seat: a bot's level, or a human seat taken and its name."""

    seat: int
    bot: str | None
    human: bool
    taken: bool
    name: str | None


class PositionFacts(TypedDict):
    """The public facts of a position, stored with each commit for the lobby."""

    players: int
    round: int
    phase: str
    turn: int | None
    over: bool
    winner: int | None
    scores: list[int] | None
    actions: int


class ListedTable(PositionFacts):
    """``GET /api/tables``: a public table in the lobby, its public facts as last stored."""

    table_id: str
    seats: list[SeatFacts]
    public: bool
    seed_chosen: bool
    settings: TableSettings


class LobbyFacts(TypedDict):
    """The table's life around the game: whether it waits for players, whose seat hosts it, and
    the rematch offered at its end."""

    waiting: bool
    host: int | None
    rematch: str | None


#: The bots' pace a table shows others' moves at (the page's choice overrides it).
Pace = Literal["instant", "quick", "normal", "slow"]
#: What spectators get of a table's chat: they read it, or it is not shown to them.
SpectatorChat = Literal["read", "off"]


class TableSettings(TypedDict):
    """A table's settings, chosen at its creation: the pace others' moves are shown at, and
    whether spectators read the chat."""

    pace: Pace
    spectator_chat: SpectatorChat


class TableFacts(PositionFacts, LobbyFacts):
    """``GET /api/tables/{id}``: a table's public facts, its settings and its waiting room."""

    table_id: str
    seats: list[SeatFacts]
    public: bool
    seed_chosen: bool
    settings: TableSettings


class FinalRow(PlayerRow):
    """A finished game's line for one seat, with who played it."""

    bot: str | None
    name: str | None


class FinalSummary(TypedDict):
    """``GET .../final``: per player the score and its parts; the winner, the tie-break used
    (R4) and, solo, the score tier reached."""

    players: list[FinalRow]
    winner: int | None
    tie_break: str | None
    #: What decided the game, in words (R4); null solo.
    decided_by: str | None
    solo_tier: str | None
    rounds: int


class RoundStart(TypedDict):
    round: int
    step: int


class ReplayStep(TypedDict):
    """``GET .../replay?step=N``: the all-seeing position after N actions of a finished game,
    that action and its events, the chat said at that position (to the asker who may read it)
    and the step each round starts at."""

    step: int
    steps: int
    action: Any
    events: list[WordedEvent]
    state: State
    rounds: list[RoundStart]
    chat: list[ChatLine]


class Reaction(TypedDict):
    """A quick reaction: its name (what a client posts) and its words (what the table reads)."""

    name: str
    words: str


class ChatFeed(TypedDict):
    """A table's chat as one client may read it: the lines so far (none for a spectator of a
    table whose spectators do not read it), the quick reactions, and whether it may post."""

    lines: list[ChatLine]
    reactions: list[Reaction]
    post: bool
    readable: bool


class ChatMessage(TypedDict):
    """A WebSocket ``chat`` message: a line said at the table (to the seats, and to spectators
    when they read the chat)."""

    type: Literal["chat"]
    table_id: str
    line: ChatLine


class MessageExtras(TypedDict, total=False):
    """What a ``hello`` adds (the waiting room, the log and the chat so far) and what an ``update`` adds
    (the action's number, who took it, what it was and the seat's events of it)."""

    number: int
    by: int
    action: Action
    events: list[WordedEvent]
    log: list[WordedEvent]
    seats: list[SeatFacts]
    waiting: bool
    host: int | None
    rematch: str | None
    chat: ChatFeed


class TableMessage(MessageExtras):
    """A WebSocket ``hello`` (on connecting) or ``update`` (after each action): the seat's view
    and choices, and for a seat its forecast and how far it may undo."""

    type: Literal["hello", "update"]
    table_id: str
    seat: int | None
    view: View
    actions: int
    choices: list[Choice]
    forecast: NotRequired[Forecast]
    undo: NotRequired[UndoInfo | None]


class LobbyMessage(TypedDict):
    """A WebSocket ``lobby`` message: who sits where now, the same for every client."""

    type: Literal["lobby"]
    table_id: str
    seats: list[SeatFacts]
    waiting: bool
    host: int | None
    rematch: str | None


class Presence(TypedDict):
    seat: int
    status: str
    stand_in: str | None
    stand_in_reason: str | None


class Clock(TypedDict):
    bank: float
    increment: float
    remaining: list[float]
    running: int | None


class LiveFacts(TypedDict):
    """``GET .../live``: a table's presence and clocks, public, the same for everyone."""

    presence: list[Presence]
    clock: Clock | None
    away_seconds: int | None
    stand_in: str | None


class LiveMessage(TypedDict):
    """A WebSocket ``live`` message: presence and clocks changed."""

    type: Literal["live"]
    table_id: str
    live: LiveFacts


class SocketError(TypedDict):
    """A WebSocket refusal, sent before the socket closes (docs/web.md lists the codes)."""

    type: Literal["error"]
    code: str
    message: str


#: The socket's messages, which no route answers with: added to the schema's components.
MESSAGES: tuple[Any, ...] = (TableMessage, LobbyMessage, LiveMessage, ChatMessage, SocketError)
