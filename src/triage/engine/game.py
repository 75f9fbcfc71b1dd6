"""The rules engine: a game position, its legal actions, and ``apply``.

The engine is pure game logic: no I/O, no clock, no global randomness (D1). A :class:`Game` is
changed only by :meth:`Game.apply`, which validates an action completely before it touches
anything, so a refused action leaves the game exactly as it was. After each action the game runs
on by itself (Cleanup, Income, the next Arrival's draws) until some player must decide.

>>> from triage.engine import Game
>>> game = Game.new(players=2, seed=7)
>>> game.phase, game.round, game.turn
('arrival', 1, 0)
>>> action = game.legal_actions()[0]
>>> action["type"] in ("admit", "reject")
True
>>> events = game.apply(action)
"""

from __future__ import annotations

import itertools
import random
from functools import lru_cache
from typing import Any, Callable, Iterable

from triage.engine import actions as _actions
from triage.engine.cards import STANDARD_DECK_KEY, CardSpec, load_standard_deck
from triage.engine.config import ITEM_HOLDING, MARKET_ITEMS, Config, make_config
from triage.engine.errors import RuleError
from triage.engine.state import Patient, PlayerState

Action = dict[str, Any]
Event = dict[str, Any]

PHASES: tuple[str, ...] = ("arrival", "treatment", "cleanup", "over")
PAY_KEYS: frozenset[str] = frozenset({"tokens", "staff", "congress"})
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "admit": frozenset({"type", "card", "space"}),
    "reject": frozenset({"type", "card"}),
    "diagnose": frozenset({"type", "patient", "pay"}),
    "heal": frozenset({"type", "patient", "amount", "pay"}),
    "treat": frozenset({"type", "patient", "pay"}),
    "helicopter": frozenset({"type", "remove", "draw_all"}),
    "buy": frozenset({"type", "item"}),
    "pass": frozenset({"type"}),
}
ADMISSION_ACTIONS: frozenset[str] = frozenset({"admit", "reject"})
Pay = tuple[int, int, int]


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def card_handles(count: int) -> list[str]:
    """Neutral card ids for a dealt deck (K1): ``P01``, ``P02``, ... in number order."""
    return list(_handles(count))


@lru_cache(maxsize=16)
def _handles(count: int) -> tuple[str, ...]:
    width = max(2, len(str(count)))
    return tuple(f"P{number:0{width}d}" for number in range(1, count + 1))


@lru_cache(maxsize=1)
def _default_config() -> Config:
    """The default configuration, validated once (a Config is immutable)."""
    return make_config()


@lru_cache(maxsize=64)
def _orders(count: int) -> tuple[list[int], ...]:
    """R1: each first player's turn order (shared lists: callers never change them)."""
    return tuple([(first + offset) % count for offset in range(count)] for first in range(count))


@lru_cache(maxsize=1)
def _standard_renamed() -> tuple[dict[str, CardSpec], ...]:
    """Per position of the standard deck, that card under each neutral handle (K1): dealing
    the standard deck looks its cards up instead of hashing each one."""
    deck = load_standard_deck()
    handles = card_handles(len(deck))
    return tuple({handle: card.with_id(handle) for handle in handles} for card in deck)


@lru_cache(maxsize=1)
def _standard_setup_deck() -> tuple[dict[str, Any], ...]:
    """The standard deck as a game's setup records it (D1); each game gets its own copies."""
    return tuple(card.to_dict() for card in load_standard_deck())


#: Where :attr:`Game.stamps` come from: each change of a player takes the next number.
_STAMPS = itertools.count(1)

#: ``_ORDERS[players][first]``: :func:`_orders` without a call, for the hot path (R1).
_ORDERS: tuple[tuple[list[int], ...], ...] = ((), *(_orders(count) for count in range(1, 5)))


class Game:
    """A whole game position, all-seeing. Players see it only through :func:`view`."""

    __slots__ = (
        "config",
        "cards",
        "players",
        "round",
        "phase",
        "first_player",
        "turn",
        "active_pos",
        "extra_turn",
        "reopened",
        "queue",
        "resolving",
        "deck",
        "discard",
        "_rng",
        "_rng_shared",
        "know_full",
        "know_priority",
        "not_severe",
        "seen_fronts",
        "known_positions",
        "winner",
        "setup",
        "history",
        "initial_events",
        "origins",
        "deck_key",
        "stamps",
        "_id_plan",
    )

    # ------------------------------------------------------------------ construction

    def __init__(
        self,
        config: Config,
        cards: dict[str, CardSpec],
        players: int,
        rng: random.Random | int,
        origins: dict[str, str] | None = None,
        boards: list[PlayerState] | None = None,
    ) -> None:
        """``boards``: the players' states when the caller has them already (a drawn world),
        else new empty ones."""
        if not _is_whole(players) or not 1 <= players <= 4:
            raise ValueError(f"a game has 1 to 4 players (R1), got {players!r}")
        if boards is not None and len(boards) != players:
            raise ValueError(f"{len(boards)} boards for {players} players")
        #: The rules and the card table: fixed for the game's life (copies share them, and the
        #: integer plan below is worked out from them once).
        self.config = config
        self.cards = cards
        self.players = boards if boards is not None else [PlayerState() for _ in range(players)]
        self.round = 0
        self.phase = "arrival"
        self.first_player = 0
        self.turn: int | None = None
        #: Position in this round's turn order of the player acting in Treatment.
        self.active_pos = 0
        #: V2 ``reopen``: the player taking an extra Treatment turn, and those waiting for one.
        self.extra_turn: int | None = None
        self.reopened: set[int] = set()
        #: Draws still to make, in order: ``[player, how many]`` (A1 Arrival, T7 Helicopter).
        self.queue: list[list[int]] = []
        #: The player now admitting the patients it drew, if any.
        self.resolving: int | None = None
        self.deck: list[str] = []
        self.discard: list[str] = []
        self._rng: random.Random | int = rng
        self._rng_shared = False
        #: I2: per player, the cards whose treatment side it has seen / whose priority it knows.
        #: Knowledge only grows, so these are frozen and replaced when they grow (``learn_full``,
        #: ``learn_priority``): copies share them, and views key their caches on them.
        self.know_full: list[frozenset[str]] = [frozenset() for _ in range(players)]
        self.know_priority: list[frozenset[str]] = [frozenset() for _ in range(players)]
        #: I4: unrevealed cards that survived a Cleanup with 2+ Time, so are publicly not severe.
        self.not_severe: set[str] = set()
        #: I1: cards whose front has been public at some moment (frozen, as knowledge).
        self.seen_fronts: frozenset[str] = frozenset()
        #: I3: cards in the deck whose position public events have fixed.
        self.known_positions: set[str] = set()
        self.winner: int | None = None
        #: How the game was dealt (for records, D1); None for a game set up by a scenario.
        self.setup: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = []
        self.initial_events: list[Event] = []
        #: Secret: the deck-file id of each card's neutral handle (K1), for designers' statistics.
        self.origins: dict[str, str] = {card: card for card in cards} if origins is None else origins
        #: The name of the deck list this game was dealt from when many deals share it
        #: (:data:`STANDARD_DECK_KEY`), else None. What depends on the deck's contents only (the
        #: integer action plan; a view's card ids, catalogue and configuration) is then worked
        #: out once per deck and configuration, not once per deal.
        self.deck_key: str | None = None
        #: Per player, a stamp taken afresh (from one count for the whole process) whenever
        #: its board, tracks or supply may change: for the actor of every action, a player who
        #: draws, a passed player a Helicopter draw reopens (V2), and every player at Cleanup
        #: (C1-C5, then the next round's Income). A copy keeps the stamps until it changes, so
        #: one stamp is one state of one player in any game of this process (a game unpickled
        #: from another process holds that one's): an observer may keep what it built from a
        #: player on it (``envs`` does). Only this class's methods change a player.
        self.stamps: list[int] = [next(_STAMPS) for _ in range(players)]
        #: The integer action index of these cards and configuration, once asked for.
        self._id_plan: Any = None

    @classmethod
    def new(
        cls,
        players: int = 2,
        deck: Iterable[CardSpec] | None = None,
        seed: int = 0,
        config: Config | None = None,
    ) -> "Game":
        """Deal a new game: shuffle the deck from ``seed`` (R3), give the cards neutral ids
        (K1), and play the first Income and Arrival draws.

        >>> game = Game.new(players=1, seed=3)
        >>> sorted(game.cards)[:2]
        ['P01', 'P02']
        """
        if not _is_whole(seed):
            raise ValueError(f"the seed must be a whole number, got {seed!r}")
        config = config or _default_config()
        deck_cards = list(deck) if deck is not None else load_standard_deck()
        rng = random.Random(seed)
        # Shuffling the positions draws the same permutation as shuffling the cards (it
        # depends on the length only) and lets the standard deck's renamed cards be looked up
        # by position (K1).
        positions = list(range(len(deck_cards)))
        rng.shuffle(positions)
        handles = card_handles(len(positions))
        rng.shuffle(handles)
        if deck is None:
            renamed = _standard_renamed()
            cards = {handle: renamed[position][handle] for handle, position in zip(handles, positions)}
            setup_deck = [dict(card) for card in _standard_setup_deck()]
        else:
            cards = {
                handle: deck_cards[position].with_id(handle) for handle, position in zip(handles, positions)
            }
            setup_deck = [card.to_dict() for card in deck_cards]
        origins = {handle: deck_cards[position].id for handle, position in zip(handles, positions)}
        game = cls(config, cards, players, rng, origins)
        if deck is None:
            game.deck_key = STANDARD_DECK_KEY
        game.deck = list(handles)
        game.setup = {
            "players": players,
            "config": config.to_dict(),
            "deck": setup_deck,
            "seed": seed,
        }
        game.initialise_players()
        game._touch_top()
        events: list[Event] = []
        game._start_round(1, events)
        game._run(events)
        game.initial_events = events
        return game

    def initialise_players(self) -> None:
        """R3: every player's starting holdings, before the first Income."""
        start = self.config.start
        for player in self.players:
            player.quality = start["quality"]
            player.vp = start["vp"]
            player.credits = start["credits"]
            player.diagnostics = start["diagnostics"]
            player.healing = start["healing"]
            player.staff = start["staff"]
            player.staff_available = start["staff"]
            player.congress = start["congress"]
            player.helicopters = start["helicopters"]

    def copy(self) -> "Game":
        """An independent copy (for search and what-if analysis)."""
        other = Game.__new__(Game)
        other.config = self.config
        other.cards = self.cards
        other.players = [player.copy() for player in self.players]
        other.round = self.round
        other.phase = self.phase
        other.first_player = self.first_player
        other.turn = self.turn
        other.active_pos = self.active_pos
        other.extra_turn = self.extra_turn
        other.reopened = set(self.reopened)
        other.queue = [list(entry) for entry in self.queue]
        other.resolving = self.resolving
        other.deck = list(self.deck)
        other.discard = list(self.discard)
        # The generator is shared until one of the two needs it (see :attr:`rng`).
        other._rng = self._rng
        other._rng_shared = self._rng_shared = True
        other.know_full = list(self.know_full)
        other.know_priority = list(self.know_priority)
        other.not_severe = set(self.not_severe)
        other.seen_fronts = self.seen_fronts
        other.known_positions = set(self.known_positions)
        other.winner = self.winner
        other.setup = self.setup
        other.history = list(self.history)
        other.initial_events = self.initial_events
        other.origins = self.origins
        other.deck_key = self.deck_key
        other.stamps = list(self.stamps)
        other._id_plan = self._id_plan
        return other

    def stamp_all(self) -> None:
        """New stamps for every player: its state may have changed (:attr:`stamps`)."""
        self.stamps = [next(_STAMPS) for _ in self.stamps]

    @property
    def rng(self) -> random.Random:
        """The game's own generator (it decides V1 reshuffles). A copy shares it with its
        original until either needs it, and a determinized game holds a seed until then: copies
        stay cheap for search, whose worlds rarely reshuffle."""
        rng = self._rng
        if type(rng) is int:
            rng = self._rng = random.Random(rng)
        elif self._rng_shared:
            clone = random.Random.__new__(random.Random)
            clone.setstate(rng.getstate())
            rng = self._rng = clone
        self._rng_shared = False
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._rng_shared = False

    # ------------------------------------------------------------------ queries

    @property
    def num_players(self) -> int:
        return len(self.players)

    def order(self) -> list[int]:
        """R1: this round's turn order, from the first player."""
        return list(_orders(len(self.players))[self.first_player])

    @property
    def active(self) -> int | None:
        """The player whose Treatment it is (which may differ from :attr:`turn` during
        Helicopter draws, T7); with V2 ``reopen``, a player on its extra turn."""
        if self.phase != "treatment":
            return None
        if self.extra_turn is not None:
            return self.extra_turn
        if self.active_pos >= len(self.players):
            return None
        return _ORDERS[len(self.players)][self.first_player][self.active_pos]

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> list[int]:
        """Each player's score, VP plus QoC (R4: ``PlayerState.score``, summed here without
        the property call: adapters read it after every action)."""
        return [player.vp + player.quality for player in self.players]

    def solo_tier(self) -> str | None:
        """R4 solo: the best score tier of the configuration (``solo.tiers``) that a finished,
        not lost solo game reached; None while it runs, with several players, or on a loss.

        >>> game = Game.new(players=1, seed=0)
        >>> game.solo_tier() is None   # not over yet
        True
        """
        if len(self.players) != 1 or self.phase != "over" or self.winner is None:
            return None
        score = self.players[0].score
        return next((name for name, lowest in self.config.solo_tiers if score >= lowest), None)

    def in_admission(self, player: int) -> bool:
        """Whether ``player`` is now admitting the patients it drew (A4)."""
        return self.resolving == player and bool(self.players[player].pending)

    # ------------------------------------------------------------------ deck

    def _touch_top(self) -> None:
        """I3: the top card of the deck is always seen."""
        if self.deck:
            top = self.deck[0]
            self.known_positions.add(top)
            self.see_front(top)

    def _draw(self, events: list[Event]) -> str | None:
        """Take the top card; an empty deck gives nothing (A1), or, with V1 ``discard``, is
        first rebuilt from the discard pile, shuffled from the game's generator."""
        if not self.deck:
            if not self.discard:
                return None
            self.deck = self.discard
            self.discard = []
            self.rng.shuffle(self.deck)
            self.known_positions.clear()
            self._touch_top()
            events.append({"type": "deck_reshuffled", "cards": len(self.deck)})
        card = self.deck.pop(0)
        self.known_positions.discard(card)
        self._touch_top()
        return card

    def _return_card(self, card: str, case: str) -> str:
        """V1: where a ``cured`` (T4), ``died`` (C4) or ``rejected`` (A5) patient goes."""
        where = self.config.return_place(case)
        if where == "top":
            self.deck.insert(0, card)
            self.known_positions.add(card)
        elif where == "bottom":
            self.deck.append(card)
            self.known_positions.add(card)
        else:
            self.discard.insert(0, card)
        self.see_front(card)
        self._touch_top()
        return where

    def _reveal(self, card: str) -> None:
        """A revealed treatment side is public (I1) and remembered by all (I2)."""
        for seat in range(len(self.players)):
            self.learn_full(seat, card)

    def see_front(self, card: str) -> None:
        """I1: ``card``'s front is public from now on."""
        if card not in self.seen_fronts:
            self.seen_fronts = self.seen_fronts | {card}

    def learn_full(self, seat: int, card: str) -> None:
        """I2: ``seat`` has seen ``card``'s treatment side."""
        known = self.know_full[seat]
        if card not in known:
            self.know_full[seat] = known | {card}

    def restore_memory(
        self,
        known_positions: set[str],
        seen_fronts: frozenset[str],
        not_severe: set[str],
        knowledge: list[tuple[frozenset[str], frozenset[str]]],
    ) -> None:
        """I1-I4 as a view records them, for a game drawn from that view (``determinize``):
        the deck positions fixed, the fronts seen, the cards known not severe, and per seat
        the cards known fully and by priority."""
        self.known_positions = known_positions
        self.seen_fronts = seen_fronts
        self.not_severe = not_severe
        self.know_full = [full for full, _ in knowledge]
        self.know_priority = [priority for _, priority in knowledge]

    def learn_priority(self, seat: int, card: str) -> None:
        """I2: ``seat`` knows ``card``'s priority."""
        known = self.know_priority[seat]
        if card not in known:
            self.know_priority[seat] = known | {card}

    # ------------------------------------------------------------------ flow

    def _start_round(self, number: int, events: list[Event]) -> None:
        """R1, R2: a new round starts with Income, then Arrival."""
        self.round = number
        self.first_player = (number - 1) % len(self.players)
        events.append({"type": "round_started", "round": number, "first_player": self.first_player})
        income_d = self.config.income_diagnostics
        income_h = self.config.income_healing
        order = self.order()
        for seat in order:
            player = self.players[seat]
            player.diagnostics += income_d
            player.healing += income_h
            player.staff_available = player.staff
            player.passed = False
            for patient in player.terminals:
                patient.treated = False
            events.append({"type": "income", "player": seat, "diagnostics": income_d, "healing": income_h})
        self.phase = "arrival"
        self.active_pos = 0
        self.extra_turn = None
        self.reopened.clear()
        self.queue = [[seat, self.config.arrivals] for seat in order]

    def _run(self, events: list[Event]) -> None:
        """Play on by itself until some player must decide, or the game ends."""
        while True:
            if self.phase == "over":
                self.turn = None
                return
            resolving = self.resolving
            if resolving is not None:
                if self.players[resolving].pending:
                    self.turn = resolving
                    return
                self.resolving = None
            if self.queue:
                seat, count = self.queue.pop(0)
                for _ in range(count):
                    self._draw_for(seat, events)
                self.resolving = seat
                continue
            if self.phase == "arrival":
                self.phase = "treatment"
                self.active_pos = 0
            if self.phase == "treatment" and self._next_in_treatment():
                return
            self._cleanup(events)

    def _next_in_treatment(self) -> bool:
        """T9, R1: give the turn to the player who acts next in Treatment; False once all
        have passed. With V2 ``reopen``, players reopened by a Helicopter draw take their
        extra turn, in turn order, as soon as the acting player passes."""
        players = self.players
        if self.extra_turn is not None:
            if not players[self.extra_turn].passed:
                self.turn = self.extra_turn
                return True
            self.extra_turn = None
        order = _ORDERS[len(players)][self.first_player]
        if self.active_pos < len(order) and not players[order[self.active_pos]].passed:
            self.turn = order[self.active_pos]
            return True
        if self.reopened:
            seat = next(seat for seat in order if seat in self.reopened)
            self.reopened.discard(seat)
            players[seat].passed = False
            self.stamps[seat] = next(_STAMPS)
            self.extra_turn = seat
            self.turn = seat
            return True
        while self.active_pos < len(order) and players[order[self.active_pos]].passed:
            self.active_pos += 1
        if self.active_pos < len(order):
            self.turn = order[self.active_pos]
            return True
        return False

    def _draw_for(self, seat: int, events: list[Event]) -> None:
        """A1, A2, A3, A8: draw one patient; a terminal one is admitted beside the board."""
        card = self._draw(events)
        if card is None:
            events.append({"type": "deck_empty", "player": seat})
            return
        player = self.players[seat]
        self.stamps[seat] = next(_STAMPS)
        if self.phase == "treatment" and player.passed and self.config.helicopter_draws == "reopen":
            # V2: a passed player made to draw by a Helicopter gets one more Treatment turn.
            self.reopened.add(seat)
        spec = self.cards[card]
        self.see_front(card)
        events.append(
            {
                "type": "drawn",
                "player": seat,
                "card": card,
                "front": spec.front,
                "diagnosis": spec.diagnosis,
                "round": self.round,
            }
        )
        if spec.kind == "terminal":
            self.players[seat].terminals.append(Patient(card, revealed=True))
            self._reveal(card)
            events.append(
                {
                    "type": "admitted",
                    "player": seat,
                    "card": card,
                    "space": None,
                    "kind": "terminal",
                    "credits": spec.credits,
                    "vp": spec.vp,
                }
            )
        else:
            self.players[seat].pending.append(card)

    def _cleanup(self, events: list[Event]) -> None:
        """C1-C5: Time, checks and deaths, then the end test (R4) or the next round."""
        self.phase = "cleanup"
        self.turn = None
        self.stamp_all()  # C1-C5 and Income touch every board
        order = self.order()
        for seat in order:
            self._add_time(seat, events)
        for seat in order:
            self._deaths(seat, events)
        if self._game_ends():
            self._finish(events)
        else:
            self._start_round(self.round + 1, events)

    def _add_time(self, seat: int, events: list[Event]) -> None:
        """C1: one Time on every patient but revealed non-severe and treated terminal ones."""
        player = self.players[seat]
        for slot in player.hospital:
            if slot is None:
                continue
            if slot.revealed and self.cards[slot.card].kind == "non_severe":
                continue
            slot.time += 1
            events.append({"type": "time_added", "player": seat, "card": slot.card, "time": slot.time})
        keeps = self.config.terminal_upkeep == "reward"
        for patient in player.terminals:
            if patient.treated or (keeps and patient.ever_treated):
                # C1; V3 ``reward``: once treated, no more Time for the rest of this stay.
                continue
            patient.time += 1
            events.append({"type": "time_added", "player": seat, "card": patient.card, "time": patient.time})

    def _deaths(self, seat: int, events: list[Event]) -> None:
        """C2, C3, C4: spaces in number order, then terminal patients in arrival order."""
        player = self.players[seat]
        for index, slot in enumerate(player.hospital):
            if slot is None:
                continue
            spec = self.cards[slot.card]
            checked = False
            if not slot.revealed and spec.front == "standard" and slot.time >= 2:
                self._check(seat, slot.card, events)
                checked = True
            if (spec.kind == "critical" and slot.time >= 1) or (spec.kind == "severe" and slot.time >= 2):
                player.hospital[index] = None
                if not slot.revealed:
                    # I2: a standard patient that dies is known by all to have been severe.
                    for other in range(len(self.players)):
                        self.learn_priority(other, slot.card)
                self._die(seat, slot, 2, events)
            elif checked:
                self.not_severe.add(slot.card)
        for patient in list(player.terminals):
            if patient.time >= 1:
                player.terminals.remove(patient)
                self._die(seat, patient, 1, events)

    def _check(self, seat: int, card: str, events: list[Event]) -> None:
        """C3: the other players see the treatment side; solo, the owner learns the priority."""
        spec = self.cards[card]
        others = [other for other in range(len(self.players)) if other != seat]
        event: Event = {"type": "checked", "player": seat, "card": card, "seen_by": others}
        if others:
            for other in others:
                self.learn_full(other, card)
            # Who sees the secret part is the observer's decision (observer.secret_audience).
            event["secret"] = {
                "kind": spec.kind,
                "priority": spec.priority,
                "healing": spec.healing,
                "credits": spec.credits,
                "vp": spec.vp,
            }
        else:
            self.learn_priority(seat, card)
            event["secret"] = {"kind": spec.kind, "priority": spec.priority}
        events.append(event)

    def _die(self, seat: int, patient: Patient, cost: int, events: list[Event]) -> None:
        """C4: placed healing goes back to the supply, the card per V1, and QoC drops."""
        lost = self._lose_quality(seat, cost)
        where = self._return_card(patient.card, "died")
        events.append(
            {
                "type": "died",
                "player": seat,
                "card": patient.card,
                "quality_lost": lost,
                "to": where,
            }
        )

    def _lose_quality(self, seat: int, amount: int) -> int:
        """A5, C4: QoC drops by ``amount``; with V4 ``quality_floor`` it stops at the floor.
        Returns what was really lost."""
        player = self.players[seat]
        floor = self.config.quality_floor
        after = player.quality - amount
        if floor is not None:
            after = max(after, min(floor, player.quality))
        lost = player.quality - after
        player.quality = after
        return lost

    def _game_ends(self) -> bool:
        """R4: after the last round's Cleanup, or one that leaves a QoC at 0 or below."""
        if self.round >= self.config.rounds:
            return True
        return self.config.end_on_zero_quality and any(p.quality <= 0 for p in self.players)

    def _finish(self, events: list[Event]) -> None:
        self.phase = "over"
        self.turn = None
        self.queue = []
        self.resolving = None
        self.winner = self._winner()
        events.append(
            {
                "type": "game_over",
                "round": self.round,
                "scores": self.scores(),
                "winner": self.winner,
            }
        )

    def _winner(self) -> int | None:
        """R4: best VP + QoC, then treated-patient track, then Credits; a full tie has none.
        Solo: seat 0 unless its QoC ended at 0 or below."""
        if len(self.players) == 1:
            return 0 if self.players[0].quality > 0 else None
        keys = [(p.score, p.treated, p.credits) for p in self.players]
        best = max(keys)
        if keys.count(best) > 1:
            return None
        return keys.index(best)

    def _check_cures(self, seat: int, events: list[Event]) -> None:
        """T4: a revealed patient whose placed healing reaches its difficulty is cured."""
        for index, slot in enumerate(self.players[seat].hospital):
            if slot is not None and slot.revealed:
                self._cure_if_healed(seat, index, events)

    def _cure_if_healed(self, seat: int, index: int, events: list[Event]) -> None:
        """T4 for the revealed patient in space ``index + 1``."""
        player = self.players[seat]
        slot = player.hospital[index]
        if slot is not None:
            spec = self.cards[slot.card]
            difficulty = spec.healing if spec.healing is not None else slot.time
            if slot.placed >= difficulty:
                player.hospital[index] = None
                player.credits += spec.credits
                player.vp += spec.vp
                player.treated += 1
                where = self._return_card(slot.card, "cured")
                events.append(
                    {
                        "type": "cured",
                        "player": seat,
                        "card": slot.card,
                        "credits": spec.credits,
                        "vp": spec.vp,
                        "to": where,
                    }
                )

    # ------------------------------------------------------------------ actions

    def apply(self, action: Action, player: int | None = None) -> list[Event]:
        """Take ``action`` for ``player`` (default: the player whose decision it is).

        Returns the events it caused, including everything the game then did by itself.
        Raises :class:`RuleError` and changes nothing when the rules refuse the action.
        """
        if self.phase == "over":
            raise RuleError("game_over", "the game is over; no more actions are taken", "R4")
        kind = _check_shape(action)
        if player is None:
            actor = self.turn
        elif not _is_whole(player) or not 0 <= player < len(self.players):
            raise RuleError(
                "invalid_action", f"player must be a seat from 0 to {len(self.players) - 1}, got {player!r}"
            )
        else:
            actor = player
        if actor is None or actor != self.turn:
            raise RuleError(
                "not_your_turn", f"it is player {self.turn}'s decision, not player {actor}'s", "R1"
            )
        admitting = self.in_admission(actor)
        if (kind in ADMISSION_ACTIONS) != admitting:
            if admitting:
                raise RuleError(
                    "wrong_phase",
                    f"player {actor} must first admit or reject the patients it drew",
                    "A4",
                )
            raise RuleError(
                "wrong_phase", f"{kind} is not possible now: no patient is waiting for admission", "A4"
            )
        events: list[Event] = []
        normalised = _HANDLERS[kind](self, actor, action, events)
        self.stamps[actor] = next(_STAMPS)
        self.history.append({"by": actor, "do": normalised})
        self._check_cures(actor, events)
        self._run(events)
        return events

    #: The integer ids (:mod:`triage.engine.actions`) of :meth:`legal_actions`, in the same
    #: order: the i-th id stands for the i-th action. The module's function itself, bound as a
    #: method, which saves a call on the hot path of search and learning.
    legal_action_ids = _actions.legal_action_ids

    def apply_id(self, action_id: int) -> list[Event]:
        """Take the action of an id from :meth:`legal_action_ids` for the player to decide:
        the same state, events and history as :meth:`apply` of that action.

        It trusts the id and skips validation (the fast path of search and learning); an id not
        taken from the current listing may leave an inconsistent game. Untrusted input goes
        through ``apply(id_to_action(game, id))``, which refuses what the rules refuse."""
        seat = self.turn
        if seat is None:
            raise RuleError("game_over", "the game is over; no more actions are taken", "R4")
        plan = self._id_plan  # a game's cards and configuration never change
        if plan is None:
            plan = self._id_plan = _actions._plan(self)
        block, f = plan.table[action_id]
        state = self.players[seat]
        events: list[Event] = []
        # Only admitting (A7), diagnosing and healing can make a patient curable (T4): the one
        # patient it acts on, in space ``cure + 1``.
        cure = f[0]
        if block == "admit":
            cure = f[1]
            done = self._admit(seat, state.pending[f[0]], f[1] + 1, events)
        elif block == "reject":
            cure = -1
            done = self._reject(seat, state.pending[f[0]], events)
        elif block == "diagnose":
            patient = state.hospital[f[0]]
            cost = self.cards[patient.card].diagnosis or 0
            done = self._diagnose(seat, f[0] + 1, patient, (cost - f[1] - f[2], f[1], f[2]), events)
        elif block == "heal":
            amount = f[1] + 1
            pay = (amount - f[2] - f[3], f[2], f[3])
            done = self._heal(seat, state.hospital[f[0]], amount, pay, events)
        elif block == "treat":
            cure = -1
            payer = f[1]
            pay = (int(payer == 0), int(payer == 1), int(payer == 2))
            done = self._treat(seat, state.terminals[f[0]], pay, events)
        elif block == "helicopter":
            cure = -1
            target = f[0]
            space: int | None = None
            patient = None
            if target == 0:
                remove = None
            elif target <= plan.space.spaces:
                space = target
                patient = state.hospital[target - 1]
                remove = patient.card
            else:
                patient = state.terminals[target - plan.space.spaces - 1]
                remove = patient.card
            done = self._helicopter(seat, remove, bool(f[1]), space, patient, events)
        elif block == "buy":
            cure = -1
            done = self._buy(seat, MARKET_ITEMS[f[0]], events)
        else:
            cure = -1
            done = self._pass(seat, events)
        self.stamps[seat] = next(_STAMPS)
        self.history.append({"by": seat, "do": done})
        if cure >= 0:
            slot = state.hospital[cure]
            if slot is not None and slot.revealed:
                # T4's test first, inline: most heals leave the patient uncured.
                spec = self.cards[slot.card]
                if slot.placed >= (spec.healing if spec.healing is not None else slot.time):
                    self._cure_if_healed(seat, cure, events)
        self._run(events)
        return events

    def _pending_card(self, seat: int, action: Action) -> str:
        card = action["card"]
        if card not in self.players[seat].pending:
            raise RuleError(
                "unknown_patient", f"{card!r} is not a patient waiting for player {seat}'s admission", "A4"
            )
        return card

    def _do_admit(self, seat: int, action: Action, events: list[Event]) -> Action:
        card = self._pending_card(seat, action)
        player = self.players[seat]
        space = action["space"]
        if not 1 <= space <= len(player.hospital):
            raise RuleError(
                "no_such_space",
                f"space {space} does not exist: player {seat}'s hospital has spaces 1-{len(player.hospital)}",
                "K4",
            )
        if player.hospital[space - 1] is not None:
            raise RuleError(
                "space_occupied",
                f"space {space} already holds {player.hospital[space - 1].card}; patients never move (A6)",  # type: ignore[union-attr]
                "A4",
            )
        return self._admit(seat, card, space, events)

    def _admit(self, seat: int, card: str, space: int, events: list[Event]) -> Action:
        """A4, A7: the effect of a validated admission."""
        player = self.players[seat]
        player.pending.remove(card)
        spec = self.cards[card]
        critical = spec.kind == "critical"
        player.hospital[space - 1] = Patient(card, revealed=critical)
        event: Event = {"type": "admitted", "player": seat, "card": card, "space": space}
        if critical:
            # A7: a critical patient is revealed on admission.
            self._reveal(card)
            event.update(kind="critical", healing=spec.healing, credits=spec.credits, vp=spec.vp)
        events.append(event)
        return {"type": "admit", "card": card, "space": space}

    def _do_reject(self, seat: int, action: Action, events: list[Event]) -> Action:
        card = self._pending_card(seat, action)
        player = self.players[seat]
        free = [index + 1 for index, slot in enumerate(player.hospital) if slot is None]
        if free:
            raise RuleError(
                "space_available",
                f"{card} cannot be rejected while space {free[0]} is free",
                "A4",
            )
        return self._reject(seat, card, events)

    def _reject(self, seat: int, card: str, events: list[Event]) -> Action:
        """A5: the effect of a validated rejection."""
        player = self.players[seat]
        player.pending.remove(card)
        lost = self._lose_quality(seat, 1)
        where = self._return_card(card, "rejected")
        events.append({"type": "rejected", "player": seat, "card": card, "quality_lost": lost, "to": where})
        return {"type": "reject", "card": card}

    def _hospital_patient(self, seat: int, action: Action, verb: str) -> tuple[int, Patient]:
        card = action["patient"]
        space, patient = self.players[seat].find(card)
        if patient is None:
            raise RuleError("unknown_patient", f"{card!r} is not a patient of player {seat}", "T1")
        if space is None:
            raise RuleError(
                "is_terminal", f"{card} is a terminal patient: it is treated (T5), never {verb}", "T5"
            )
        return space, patient

    def _do_diagnose(self, seat: int, action: Action, events: list[Event]) -> Action:
        space, patient = self._hospital_patient(seat, action, "diagnosed")
        if patient.revealed:
            raise RuleError("already_revealed", f"{patient.card} is already revealed", "T1")
        spec = self.cards[patient.card]
        cost = spec.diagnosis or 0
        pay = self._payment(seat, action.get("pay"), cost, "diagnostics", f"diagnosing {patient.card}", "T1")
        return self._diagnose(seat, space, patient, pay, events)

    def _diagnose(self, seat: int, space: int, patient: Patient, pay: Pay, events: list[Event]) -> Action:
        """T1: the effect of a validated diagnosis."""
        spec = self.cards[patient.card]
        self._spend(seat, pay, "diagnostics")
        patient.revealed = True
        self._reveal(patient.card)
        events.append(
            {
                "type": "diagnosed",
                "player": seat,
                "card": patient.card,
                "space": space,
                "kind": spec.kind,
                "priority": spec.priority,
                "healing": spec.healing if spec.healing is not None else patient.time,
                "credits": spec.credits,
                "vp": spec.vp,
                "pay": _pay_dict(pay),
            }
        )
        return {"type": "diagnose", "patient": patient.card, "pay": _pay_dict(pay)}

    def _do_heal(self, seat: int, action: Action, events: list[Event]) -> Action:
        _, patient = self._hospital_patient(seat, action, "healed")
        if not patient.revealed:
            raise RuleError("not_revealed", f"{patient.card} must be diagnosed before it is healed", "T2")
        spec = self.cards[patient.card]
        difficulty = spec.healing if spec.healing is not None else patient.time
        need = difficulty - patient.placed
        amount = action["amount"]
        if amount > need:
            raise RuleError(
                "too_much_healing", f"{patient.card} needs only {need} more healing, not {amount}", "T2"
            )
        pay = self._payment(
            seat, action.get("pay"), amount, "healing", f"healing {patient.card} by {amount}", "T2"
        )
        return self._heal(seat, patient, amount, pay, events)

    def _heal(self, seat: int, patient: Patient, amount: int, pay: Pay, events: list[Event]) -> Action:
        """T2: the effect of a validated healing."""
        self._spend(seat, pay, "healing")
        patient.placed += amount
        events.append(
            {
                "type": "healed",
                "player": seat,
                "card": patient.card,
                "amount": amount,
                "placed": patient.placed,
                "pay": _pay_dict(pay),
            }
        )
        return {"type": "heal", "patient": patient.card, "amount": amount, "pay": _pay_dict(pay)}

    def _do_treat(self, seat: int, action: Action, events: list[Event]) -> Action:
        card = action["patient"]
        space, patient = self.players[seat].find(card)
        if patient is None:
            raise RuleError("unknown_patient", f"{card!r} is not a patient of player {seat}", "T5")
        if space is not None:
            raise RuleError("not_terminal", f"{card} is not a terminal patient: diagnose and heal it", "T5")
        if patient.treated:
            raise RuleError("already_treated", f"{card} was already treated this round", "T5")
        pay = self._payment(seat, action.get("pay"), 1, "healing", f"treating {card}", "T5")
        return self._treat(seat, patient, pay, events)

    def _treat(self, seat: int, patient: Patient, pay: Pay, events: list[Event]) -> Action:
        """T5: the effect of a validated treatment of a terminal patient."""
        card = patient.card
        self._spend(seat, pay, "healing")
        spec = self.cards[card]
        player = self.players[seat]
        patient.treated = True
        patient.ever_treated = True
        player.credits += spec.credits
        player.vp += spec.vp
        events.append(
            {
                "type": "treated",
                "player": seat,
                "card": card,
                "credits": spec.credits,
                "vp": spec.vp,
                "pay": _pay_dict(pay),
            }
        )
        return {"type": "treat", "patient": card, "pay": _pay_dict(pay)}

    def _do_helicopter(self, seat: int, action: Action, events: list[Event]) -> Action:
        player = self.players[seat]
        remove = action["remove"]
        draw_all = action["draw_all"]
        space: int | None = None
        patient: Patient | None = None
        if remove is not None:
            space, patient = player.find(remove)
            if patient is None:
                raise RuleError("unknown_patient", f"{remove!r} is not a patient of player {seat}", "T7")
        if player.helicopters <= 0:
            raise RuleError("no_helicopter", f"player {seat} has no Helicopter left", "T7")
        return self._helicopter(seat, remove, draw_all, space, patient, events)

    def _helicopter(
        self,
        seat: int,
        remove: str | None,
        draw_all: bool,
        space: int | None,
        patient: Patient | None,
        events: list[Event],
    ) -> Action:
        """T7: the effect of a validated Helicopter (``patient`` in ``space``, None for a
        terminal one, is removed)."""
        player = self.players[seat]
        player.helicopters -= 1
        events.append({"type": "helicopter", "player": seat, "remove": remove, "draw_all": draw_all})
        if patient is not None:
            # T7: removal comes first; no QoC lost; the card goes under the deck.
            if space is None:
                player.terminals.remove(patient)
            else:
                player.hospital[space - 1] = None
            self.deck.append(patient.card)
            self.known_positions.add(patient.card)
            self._touch_top()
            events.append({"type": "removed", "player": seat, "card": patient.card, "space": space})
        if draw_all:
            order = self.order()
            start = order.index(seat)
            self.queue = [[other, 1] for other in order[start:] + order[:start]]
        return {"type": "helicopter", "remove": remove, "draw_all": draw_all}

    def _do_buy(self, seat: int, action: Action, events: list[Event]) -> Action:
        item = action["item"]
        market = self.config.market[item]
        player = self.players[seat]
        holding = ITEM_HOLDING[item]
        if market.limit is not None and getattr(player, holding) >= market.limit:
            raise RuleError(
                "limit_reached", f"a player may own at most {market.limit} {item.replace('_', ' ')}", "T8"
            )
        if player.credits < market.price:
            raise RuleError(
                "cannot_afford",
                f"{item.replace('_', ' ')} costs {market.price} Credits; player {seat} has {player.credits}",
                "T8",
            )
        return self._buy(seat, item, events)

    def _buy(self, seat: int, item: str, events: list[Event]) -> Action:
        """T8: the effect of a validated purchase."""
        market = self.config.market[item]
        player = self.players[seat]
        holding = ITEM_HOLDING[item]
        player.credits -= market.price
        setattr(player, holding, getattr(player, holding) + 1)
        if item == "staff":
            player.staff_available += 1
        elif item in ("clinical_trial", "outpatient_clinic"):
            player.hospital.append(None)
        events.append({"type": "bought", "player": seat, "item": item, "price": market.price})
        return {"type": "buy", "item": item}

    def _do_pass(self, seat: int, action: Action, events: list[Event]) -> Action:
        return self._pass(seat, events)

    def _pass(self, seat: int, events: list[Event]) -> Action:
        """T9: the effect of passing."""
        self.players[seat].passed = True
        events.append({"type": "passed", "player": seat})
        return {"type": "pass"}

    def _payment(self, seat: int, pay: Any, cost: int, token: str, what: str, rule: str) -> Pay:
        """T6: the mix of tokens, Staff and Congress Doctors that pays ``cost``."""
        player = self.players[seat]
        tokens = getattr(player, token)
        if pay is None:
            mix = _actions.default_mix(cost, tokens, player.staff_available, player.congress)
            if mix is None:
                raise RuleError("cannot_afford", self._afford_message(seat, cost, token, what), "T6")
            return mix
        mix = (pay.get("tokens", 0), pay.get("staff", 0), pay.get("congress", 0))
        if sum(mix) != cost:
            raise RuleError("bad_payment", f"{what} costs {cost}; the payment adds up to {sum(mix)}", "T6")
        if mix[0] > tokens or mix[1] > player.staff_available or mix[2] > player.congress:
            raise RuleError("cannot_afford", self._afford_message(seat, cost, token, what), "T6")
        return mix

    def _afford_message(self, seat: int, cost: int, token: str, what: str) -> str:
        player = self.players[seat]
        return (
            f"{what} costs {cost}; player {seat} has {getattr(player, token)} {token.capitalize()}, "
            f"{player.staff_available} Staff available and {player.congress} Congress Doctors"
        )

    def _spend(self, seat: int, pay: Pay, token: str) -> None:
        player = self.players[seat]
        setattr(player, token, getattr(player, token) - pay[0])
        player.staff_available -= pay[1]
        player.congress -= pay[2]

    # ------------------------------------------------------------------ legal actions

    #: ``legal_actions(player=None)``: every action the rules allow ``player`` now (default: the
    #: player to decide), with each distinct payment mix listed explicitly; empty when it is not
    #: its decision. The actions of :meth:`legal_action_ids`, the engine's one listing, in the
    #: same order: the module's function bound as a method (one call less on the dict path).
    legal_actions = _actions.legal_actions


def _pay_dict(pay: Pay) -> dict[str, int]:
    return {"tokens": pay[0], "staff": pay[1], "congress": pay[2]}


def _invalid(message: str) -> RuleError:
    return RuleError("invalid_action", message)


def _check_shape(action: Any) -> str:
    """The action's own shape (scenario-format.md section 4), before any game check."""
    if not isinstance(action, dict):
        raise _invalid(f"an action must be an object with a 'type', got {action!r}")
    kind = action.get("type")
    fields = ACTION_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise _invalid(f"unknown action type {kind!r} (known: {', '.join(ACTION_FIELDS)})")
    extra = [key for key in action if key not in fields]
    if extra:
        raise _invalid(f"{kind} has no field {extra[0]!r} (fields: {', '.join(sorted(fields))})")
    for field in ("card", "patient"):
        if field in fields and not isinstance(action.get(field), str):
            raise _invalid(f"{kind} needs '{field}': a card id string, got {action.get(field)!r}")
    if kind == "admit" and not _is_whole(action.get("space")):
        raise _invalid(f"admit needs 'space': a whole number, got {action.get('space')!r}")
    if kind == "heal":
        amount = action.get("amount")
        if not _is_whole(amount) or amount < 1:
            raise _invalid(f"heal needs 'amount': a whole number of at least 1, got {amount!r}")
    if "pay" in fields:
        _check_pay(action.get("pay"))
    if kind == "helicopter":
        missing = [field for field in ("remove", "draw_all") if field not in action]
        if missing:
            raise _invalid(
                f"helicopter needs '{missing[0]}' (remove: a card id or null; draw_all: true or false)"
            )
        remove = action["remove"]
        draw_all = action["draw_all"]
        if remove is not None and not isinstance(remove, str):
            raise _invalid(f"helicopter 'remove' must be a card id or null, got {remove!r}")
        if not isinstance(draw_all, bool):
            raise _invalid(f"helicopter 'draw_all' must be true or false, got {draw_all!r}")
        if remove is None and not draw_all:
            raise RuleError(
                "empty_helicopter", "a Helicopter must remove a patient, make all draw, or both", "T7"
            )
    if kind == "buy" and action.get("item") not in MARKET_ITEMS:
        raise _invalid(f"unknown market item {action.get('item')!r} (items: {', '.join(MARKET_ITEMS)})")
    return kind


def _check_pay(pay: Any) -> None:
    if pay is None:
        return
    if not isinstance(pay, dict):
        raise _invalid(f"'pay' must be an object of tokens, staff and congress, got {pay!r}")
    for key, count in pay.items():
        if key not in PAY_KEYS:
            raise _invalid(f"'pay' has no field {key!r} (fields: congress, staff, tokens)")
        if not _is_whole(count) or count < 0:
            raise _invalid(f"'pay.{key}' must be a whole number >= 0, got {count!r}")


_HANDLERS: dict[str, Callable[[Game, int, Action, list[Event]], Action]] = {
    "admit": Game._do_admit,
    "reject": Game._do_reject,
    "diagnose": Game._do_diagnose,
    "heal": Game._do_heal,
    "treat": Game._do_treat,
    "helicopter": Game._do_helicopter,
    "buy": Game._do_buy,
    "pass": Game._do_pass,
}
