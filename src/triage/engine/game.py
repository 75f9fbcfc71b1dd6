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

import random
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from triage.engine import actions as _actions
from triage.engine.arrival import admit, do_admit, do_reject, reject
from triage.engine.cards import STANDARD_DECK_KEY, CardSpec, load_standard_deck
from triage.engine.config import Config, check_bounded_rounds, make_config
from triage.engine.errors import RuleError
from triage.engine.flow import run, start_round
from triage.engine.memory import touch_top
from triage.engine.position import PHASES, Action, Event, Pay, Position, check_players, is_whole
from triage.engine.shapes import DeckEntry
from triage.engine.treatment import (
    buy,
    check_cures,
    cure_if_healed,
    diagnose,
    do_buy,
    do_diagnose,
    do_heal,
    do_helicopter,
    do_pass,
    do_treat,
    heal,
    helicopter,
    pass_turn,
    treat,
)
from triage.engine.validation import ACTION_FIELDS, ADMISSION_ACTIONS, PAY_KEYS, check_shape

__all__ = [
    "ACTION_FIELDS",
    "ADMISSION_ACTIONS",
    "PAY_KEYS",
    "PHASES",
    "Action",
    "Event",
    "Game",
    "Pay",
    "card_handles",
]


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


@lru_cache(maxsize=1)
def _standard_renamed() -> tuple[dict[str, CardSpec], ...]:
    """Per position of the standard deck, that card under each neutral handle (K1): dealing
    the standard deck looks its cards up instead of hashing each one."""
    deck = load_standard_deck()
    handles = card_handles(len(deck))
    return tuple({handle: card.with_id(handle) for handle in handles} for card in deck)


@lru_cache(maxsize=1)
def _standard_setup_deck() -> tuple[DeckEntry, ...]:
    """The standard deck as a game's setup records it (D1); each game gets its own copies."""
    return tuple(card.to_dict() for card in load_standard_deck())


def _check_bounded(config: Config, deck: list[CardSpec] | None, players: int) -> None:
    """T7, T8: refuse a deal whose rounds could go on forever; the standard deck's answer is
    kept on the configuration, so dealing it again costs a lookup."""
    if deck is not None:
        check_bounded_rounds(config, deck, players, "game")
        return
    key = ("bounded_rounds", STANDARD_DECK_KEY, players)
    if key not in config.derived:
        check_bounded_rounds(config, load_standard_deck(), players, "game")
        config.derived[key] = True


class Game(Position):
    """A whole game position, all-seeing. Players see it only through the observer
    (:class:`~triage.engine.observer.Seat`, :func:`~triage.engine.views.view`).

    Its fields are :class:`~triage.engine.position.Position`'s; the rules are the functions of
    the rule sections (:mod:`~triage.engine.arrival`, :mod:`~triage.engine.treatment`,
    :mod:`~triage.engine.cleanup`, :mod:`~triage.engine.flow`), which this class deals and
    dispatches actions to."""

    __slots__ = ()

    @classmethod
    def new(
        cls,
        players: int = 2,
        deck: Iterable[CardSpec] | None = None,
        seed: int = 0,
        config: Config | None = None,
    ) -> Game:
        """Deal a new game: shuffle the deck from ``seed`` (R3), give the cards neutral ids
        (K1), and play the first Income and Arrival draws.

        >>> game = Game.new(players=1, seed=3)
        >>> sorted(game.cards)[:2]
        ['P01', 'P02']
        """
        if not is_whole(seed):
            raise ValueError(f"the seed must be a whole number, got {seed!r}")
        check_players(players)
        config = config or _default_config()
        deck_cards = list(deck) if deck is not None else load_standard_deck()
        _check_bounded(config, deck_cards if deck is not None else None, players)
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
            setup_deck: list[DeckEntry] = [card.copy() for card in _standard_setup_deck()]
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
            "config": game.config.to_dict(),
            "deck": setup_deck,
            "seed": seed,
        }
        game.initialise_players()
        touch_top(game)
        events: list[Event] = []
        start_round(game, 1, events)
        run(game, events)
        game.initial_events = events
        return game

    def initialise_players(self) -> None:
        """R3: every player's starting holdings, before the first Income."""
        start = self.config.start
        count = len(self.players)
        for seat, player in enumerate(self.players):
            player.quality = start["quality"]
            player.vp = self.config.start_vp(count, seat)
            player.credits = self.config.start_credits(count, seat)
            player.diagnostics = start["diagnostics"]
            player.healing = start["healing"]
            player.staff = start["staff"]
            player.staff_available = start["staff"]
            player.congress = start["congress"]
            player.helicopters = start["helicopters"]

    # ------------------------------------------------------------------ queries

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

    # ------------------------------------------------------------------ deck

    # ------------------------------------------------------------------ flow

    # ------------------------------------------------------------------ actions

    def apply(self, action: Action | Mapping[str, Any], player: int | None = None) -> list[Event]:
        """Take ``action`` for ``player`` (default: the player whose decision it is): any
        object, checked against scenario-format.md section 4 before any rule.

        Returns the events it caused, including everything the game then did by itself.
        Raises :class:`RuleError` and changes nothing when the rules refuse the action.
        """
        if self.phase == "over":
            raise RuleError("game_over", "the game is over; no more actions are taken", "R4")
        checked = check_shape(action, self.config.market)
        kind = checked["type"]
        if player is None:
            actor = self.turn
        elif not is_whole(player) or not 0 <= player < len(self.players):
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
        normalised = _HANDLERS[kind](self, actor, checked, events)
        machinery = self.machinery  # Machinery.stamp written out: every action stamps its actor
        machinery.stamps[actor] = next(machinery.count)
        self.history.append({"by": actor, "do": normalised})
        check_cures(self, actor, events)
        run(self, events)
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
        plan = self.machinery.plan  # a game's cards and configuration never change
        if plan is None:
            plan = _actions.plan_of(self)
        block, f = plan.table[action_id]
        state = self.players[seat]
        events: list[Event] = []
        # Only admitting (A7), diagnosing and healing can make a patient curable (T4): the one
        # patient it acts on, in space ``cure + 1``.
        cure = f[0]
        if block == "admit":
            cure = f[1]
            done = admit(self, seat, state.pending[f[0]], f[1] + 1, events)
        elif block == "reject":
            cure = -1
            done = reject(self, seat, state.pending[f[0]], events)
        elif block == "diagnose":
            patient = state.hospital[f[0]]
            cost = self.cards[patient.card].diagnosis or 0
            done = diagnose(self, seat, f[0] + 1, patient, (cost - f[1] - f[2], f[1], f[2]), events)
        elif block == "heal":
            amount = f[1] + 1
            pay = (amount - f[2] - f[3], f[2], f[3])
            done = heal(self, seat, state.hospital[f[0]], amount, pay, events)
        elif block == "treat":
            cure = -1
            payer = f[1]
            pay = (int(payer == 0), int(payer == 1), int(payer == 2))
            done = treat(self, seat, state.terminals[f[0]], pay, events)
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
            done = helicopter(self, seat, remove, bool(f[1]), space, patient, events)
        elif block == "buy":
            cure = -1
            done = buy(self, seat, plan.space.items[f[0]], events)
        else:
            cure = -1
            done = pass_turn(self, seat, events)
        machinery = self.machinery  # Machinery.stamp written out: every action stamps its actor
        machinery.stamps[seat] = next(machinery.count)
        self.history.append({"by": seat, "do": done})
        if cure >= 0:
            slot = state.hospital[cure]
            if slot is not None and slot.revealed:
                # T4's test first: most heals leave the patient uncured.
                if slot.placed >= self.cards[slot.card].difficulty(slot.time):
                    cure_if_healed(self, seat, cure, events)
        run(self, events)
        return events

    # ------------------------------------------------------------------ legal actions

    #: ``legal_actions(player=None)``: every action the rules allow ``player`` now (default: the
    #: player to decide), with each distinct payment mix listed explicitly; empty when it is not
    #: its decision. The actions of :meth:`legal_action_ids`, the engine's one listing, in the
    #: same order: the module's function bound as a method (one call less on the dict path).
    legal_actions = _actions.legal_actions


_HANDLERS: dict[str, Callable[[Position, int, Action, list[Event]], Action]] = {
    "admit": do_admit,
    "reject": do_reject,
    "diagnose": do_diagnose,
    "heal": do_heal,
    "treat": do_treat,
    "helicopter": do_helicopter,
    "buy": do_buy,
    "pass": do_pass,
}
