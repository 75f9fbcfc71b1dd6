"""What each player may see (rules.md section 6) and the all-seeing state, as plain data.

``state_dict`` is the full state of scenario-format.md section 3. ``view`` is one player's view
(section 5): the same shape, with every card field the player cannot know left out, the deck
replaced by what is public of it, and the public memory of the game (fronts seen, who knows
which treatment side, cards publicly known not to be severe) that a player could have noted
down. What the viewer knows comes from :class:`~triage.engine.observer.Seat` alone, the one
module that reads the players' knowledge.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypedDict

from triage.engine.cards import CardSpec
from triage.engine.config import Config
from triage.engine.game import Game
from triage.engine.observer import FRONT, FULL, PRIORITY, Seat, card_at_level
from triage.engine.shapes import Board, CardShown, ConfigFile, Flow, Knowledge, State, TerminalShown, View
from triage.engine.state import PLAYER_NUMBERS, Patient, PlayerState
from triage.engine.vocabulary import KIND, KIND_WORDS, counted_items

if TYPE_CHECKING:
    from triage.engine.determinize import Pool

VIEW_FORMAT = "triage.view/1"


def _slot_state(spec: CardSpec, slot: Patient) -> CardShown:
    return {
        "card": slot.card,
        "front": spec.front,
        "kind": spec.kind,
        "priority": spec.priority,
        "diagnosis": spec.diagnosis,
        "healing": spec.difficulty(slot.time),
        "credits": spec.credits,
        "vp": spec.vp,
        "time": slot.time,
        "revealed": slot.revealed,
        "placed": slot.placed,
    }


def _terminal_state(spec: CardSpec, patient: Patient) -> TerminalShown:
    return {
        "card": patient.card,
        "time": patient.time,
        "treated": patient.treated,
        "ever_treated": patient.ever_treated,
        "front": spec.front,
        "credits": spec.credits,
        "vp": spec.vp,
    }


_NUMBERS = attrgetter(*PLAYER_NUMBERS)


def _flow(game: Game) -> Flow:
    """Whose decision it is and what the game still has to do: public in every view."""
    return {
        "round": game.round,
        "phase": game.phase,
        "first_player": game.first_player,
        "turn": game.turn,
        "active": game.active,
        "treatment_position": game.active_pos,
        "extra_turn": game.extra_turn,
        "reopened": sorted(game.reopened) if game.reopened else [],
        "queue": list(map(list, game.queue)),
        "resolving": game.resolving,
        "winner": game.winner,
    }


def state_dict(game: Game) -> State:
    """The full, all-seeing state (scenario-format.md section 3)."""
    cards = game.cards
    counted = counted_items(game.config.market)
    players: list[Board] = []
    for player in game.players:
        hospital: dict[str, CardShown | None] = {
            str(index + 1): (_slot_state(cards[slot.card], slot) if slot is not None else None)
            for index, slot in enumerate(player.hospital)
        }
        items = player.items
        board: Board = {
            "quality": player.quality,
            "vp": player.vp,
            "credits": player.credits,
            "treated": player.treated,
            "diagnostics": player.diagnostics,
            "healing": player.healing,
            "staff": player.staff,
            "staff_available": player.staff_available,
            "congress": player.congress,
            "helicopters": player.helicopters,
            # scenario-format.md section 3's names (ITEM_COUNT_FIELDS), then every counted item.
            "outpatient_clinics": items["outpatient_clinic"],
            "clinical_trials": items["clinical_trial"],
            "items": {name: items[name] for name in counted},
            "spaces": len(player.hospital),
            "hospital": hospital,
            "terminals": [_terminal_state(cards[p.card], p) for p in player.terminals],
            "pending": list(player.pending),
            "passed": player.passed,
            "score": player.score,
        }
        players.append(board)
    return {**_flow(game), "deck": list(game.deck), "discard": list(game.discard), "players": players}


# ---------------------------------------------------------------------- one player's view


def _slot_view(game: Game, static: _Static, level: int, slot: Patient) -> CardShown:
    """A hospital patient as seen with knowledge ``level`` (0 front, 1 priority, 2 full):
    :meth:`Seat.card` of the card with its Time, then its Time, revealed and placed. Built from
    the card's memory entry (made once per card and level and shared across deals): only a
    chronic patient's healing, its Time (T3), differs from it, and only where its kind is known."""
    card = slot.card
    time = slot.time
    data: CardShown = {"card": card, **static.memory_entries(game)[level][card]}
    if level:
        spec = game.cards[card]
        if level == 2 and spec.healing is None or level == 1 and not KIND[spec.kind].printed_healing:
            data["healing"] = time
    data["time"] = time
    data["revealed"] = slot.revealed
    data["placed"] = slot.placed
    return data


def _memory(game: Game, knower: Seat, static: _Static) -> dict[str, CardShown]:
    """Every card whose front has been public, as remembered with this knowledge (I2).

    An entry depends only on the card and on what the viewer knows of it, so entries are made
    once per card table and level of knowledge and shared by the views that show them."""
    full = knower.full
    priority = knower.priority
    front, known, whole = static.memory_entries(game)
    seen = knower.fronts_seen()
    # The same fronts seen and knowledge give the same memory: kept per card table, by content
    # (the game's knowledge is frozen, so the key costs nothing to build and is mostly found by
    # identity).
    key = (seen, full, priority)
    memory = static.memories.get(key)
    if memory is None:
        if len(static.memories) > 4096:
            static.memories.clear()
        # In card id order: the sorted ids of the table, filtered, are cheaper than a sort.
        memory = static.memories[key] = {
            card: whole[card] if card in full else known[card] if card in priority else front[card]
            for card in static.card_ids
            if card in seen
        }
    return memory


def _knowledge(full: frozenset[str], priority: frozenset[str]) -> Knowledge:
    """One seat's entry of a view's ``knowledge`` (I2), kept by content: it holds card ids
    only, so deals that use the same ids share it."""
    key = (full, priority)
    entry = _KNOWLEDGE.get(key)
    if entry is None:
        if len(_KNOWLEDGE) > 16384:
            _KNOWLEDGE.clear()
        entry = _KNOWLEDGE[key] = {"full": sorted(full), "priority": sorted(priority - full)}
    return entry


_KNOWLEDGE: dict[tuple[frozenset[str], frozenset[str]], Knowledge] = {}


class _Static:
    """The parts of a view that never change for one card table and configuration: public
    and shared by every view of the games that share them (copies, one game's whole life)."""

    __slots__ = (
        "card_ids",
        "cards",
        "catalogue",
        "config",
        "config_dict",
        "entries",
        "memories",
        "slots",
        "terminals",
        "tops",
    )

    def __init__(self, game: Game) -> None:
        self.cards = game.cards
        self.config = game.config
        self.card_ids, self.catalogue, self.config_dict = _deck_parts(game)
        #: Memory entries of every card by level of knowledge (front only, priority, full).
        self.entries: tuple[dict[str, CardShown], ...] | None = None
        #: The deck's top card as shown (its entry with its id), by level of knowledge.
        self.tops: tuple[dict[str, CardShown], ...] = ({}, {}, {})
        #: A hospital patient as shown, by (card, level of knowledge, Time, revealed, placed),
        #: and a terminal patient by (card, Time, treated, ever treated): nothing else decides them.
        self.slots: dict[tuple[Any, ...], CardShown] = {}
        self.terminals: dict[tuple[Any, ...], TerminalShown] = {}
        #: A view's ``cards`` by (fronts seen, cards known fully, by priority): the game's
        #: frozen sets.
        self.memories: dict[tuple[frozenset[str], ...], dict[str, CardShown]] = {}

    def memory_entries(self, game: Game) -> tuple[dict[str, CardShown], ...]:
        if self.entries is None:
            self.entries = (_Entries(game, FRONT), _Entries(game, PRIORITY), _Entries(game, FULL))
        return self.entries


def _deck_parts(game: Game) -> tuple[list[str], list[list[Any]], ViewConfig]:
    """The card ids, the catalogue and the configuration of a view: the same for every deal of
    a shared deck (``Game.deck_key``: the same cards under the same handles, K1) and
    configuration, so made once for them and kept on the configuration."""
    deck = game.deck_key
    config = game.config
    if deck is not None:
        cached: tuple[list[str], list[list[Any]], ViewConfig] | None = config.derived.get(("view", deck))
        if cached is not None:
            return cached
    # By diagnosis, healing (none first), credits, VP, then kind.
    backs = sorted(
        (spec.back() for spec in game.cards.values()),
        key=lambda back: (
            -1 if back[1] is None else back[1],
            -1 if back[2] is None else back[2],
            back[3],
            back[4],
            back[0],
        ),
    )
    parts = (sorted(game.cards), [list(back) for back in backs], ViewConfig(config, config.to_dict()))
    if deck is not None:
        config.derived["view", deck] = parts
        parts[2].derived["deck_key"] = deck
    return parts


class Worked(TypedDict, total=False):
    """What is worked out once from a view's unchanging parts (:class:`ViewConfig`): the
    validated configuration, what determinize keeps (its pool of card backs, the cards'
    origins), and the deck list the views' game was dealt from when many deals share it
    (``Game.deck_key``): a world drawn from such a view holds that deck's cards too, so it
    shares what is worked out per deck (the integer action plan, its views' fixed parts)."""

    config: Config
    deck_key: str
    pool: Pool
    origins: dict[str, str]


class ViewConfig(dict):  # type: ignore[type-arg]
    """A view's ``config``: the configuration as plain data (scenario-format.md section 1), which
    also carries what is worked out from the view's unchanging parts (its card ids, catalogue
    and configuration, made together and shared by the views of one game, or of one deck's
    deals): the validated :class:`Config` and what :func:`~triage.engine.determinize.determinize`
    keeps. A copy, a pickle or a JSON round trip of a view holds a plain dict instead, and what
    it needs is worked out again."""

    __slots__ = ("derived",)

    def __init__(self, config: Config, data: ConfigFile) -> None:
        super().__init__(data)
        self.derived: Worked = {"config": config}

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (dict(self),)


class _Entries(dict):  # type: ignore[type-arg]
    """Memory entries of one level of knowledge, made the first time a card is looked up."""

    def __init__(self, game: Game, level: int) -> None:
        super().__init__()
        self.game = game
        self.level = level

    def __missing__(self, card: str) -> CardShown:
        # An entry depends on the card alone (its spec, dealt cards being shared between the
        # games of a deck, CardSpec.with_id), so the entries of a configuration's deck are kept
        # on the configuration and most entries of a new deal were made for an earlier one.
        spec = self.game.cards[card]
        shared: dict[tuple[CardSpec, int], CardShown] = self.game.config.derived.setdefault("entries", {})
        entry = shared.get((spec, self.level))
        if entry is None:
            if len(shared) > 65536:
                shared.clear()
            entry = card_at_level(self.game, card, self.level)
            del entry["card"]
            shared[spec, self.level] = entry
        self[card] = entry
        return entry


def _deck_top(game: Game, knower: Seat, static: _Static) -> CardShown | None:
    """The top card as this viewer sees it: its memory entry with its id (I3)."""
    card = knower.deck_top()
    if card is None:
        return None
    level = 2 if card in knower.full else 1 if card in knower.priority else 0
    top = static.tops[level].get(card)
    if top is None:
        top = static.tops[level][card] = {"card": card, **static.memory_entries(game)[level][card]}
    return top


def _space_names(count: int) -> tuple[str, ...]:
    return tuple(str(number) for number in range(1, count + 1))


_SPACE_NAMES = _space_names(64)


def _static(game: Game) -> _Static:
    """The game's fixed view parts, kept on the game (and shared by its copies)."""
    derived = game.machinery.derived  # read at every view: no property in between
    static: _Static | None = derived.get("view")
    if static is None or static.cards is not game.cards or static.config is not game.config:
        static = derived["view"] = _Static(game)
    return static


def catalogue(game: Game) -> list[list[Any]]:
    """The deck's contents without ids or order: public, like the deck list of a box."""
    return [list(back) for back in _static(game).catalogue]


def view(game: Game, viewer: int) -> View:
    """Player ``viewer``'s view (scenario-format.md section 5, rules I1-I4).

    >>> from triage.engine import Game
    >>> game = Game.new(players=2, seed=1)
    >>> v = view(game, 0)
    >>> v["deck_count"] == len(game.deck) and "deck" not in v
    True
    """
    if isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < len(game.players):
        raise ValueError(f"no player {viewer!r} in a {len(game.players)}-player game")
    return _view(game, viewer, Seat(game, viewer))


def seat_of(seen: View) -> int:
    """The seat whose view ``seen`` is (a spectator's view has none: ValueError)."""
    viewer = seen["viewer"]
    if viewer is None:
        raise ValueError("a spectator's view belongs to no seat")
    return viewer


def spectator_view(game: Game) -> View:
    """What someone without a seat sees: the public position, a card's back shown only where
    every player knows it (so watching a table never helps one of its players). ``viewer`` is
    None."""
    return _view(game, None, Seat(game, None))


def _player_view(game: Game, static: _Static, knower: Seat, player: PlayerState) -> Board:
    """One player's board, tracks and supply as ``knower`` sees them (its patients as shown are
    kept per card, level of knowledge and state: nothing else decides them)."""
    full = knower.full
    priority = knower.priority
    slots = static.slots
    terminals = static.terminals
    spaces = player.hospital
    names = _SPACE_NAMES if len(spaces) <= len(_SPACE_NAMES) else _space_names(len(spaces))
    hospital: dict[str, CardShown | None] = {}
    for index, slot in enumerate(spaces):
        if slot is None:
            hospital[names[index]] = None
            continue
        card = slot.card
        level = 2 if card in full else 1 if card in priority else 0
        key = (card, level, slot.time, slot.revealed, slot.placed)
        shown = slots.get(key)
        if shown is None:
            shown = slots[key] = _slot_view(game, static, level, slot)
        hospital[names[index]] = shown
    shown_terminals: list[TerminalShown] = []
    for patient in player.terminals:
        held = (patient.card, patient.time, patient.treated, patient.ever_treated)
        terminal = terminals.get(held)
        if terminal is None:
            terminal = terminals[held] = _terminal_state(game.cards[patient.card], patient)
        shown_terminals.append(terminal)
    # The keys of _counters, then the board: one dict display is the cheapest to build.
    (
        quality,
        vp,
        credits,
        treated,
        diagnostics,
        healing,
        staff,
        staff_available,
        congress,
        helicopters,
    ) = _NUMBERS(player)
    items = player.items
    return {
        "quality": quality,
        "vp": vp,
        "credits": credits,
        "treated": treated,
        "diagnostics": diagnostics,
        "healing": healing,
        "staff": staff,
        "staff_available": staff_available,
        "congress": congress,
        "helicopters": helicopters,
        # scenario-format.md section 3's names (ITEM_COUNT_FIELDS), then every counted item.
        "outpatient_clinics": items["outpatient_clinic"],
        "clinical_trials": items["clinical_trial"],
        "items": items,  # shared, never changed in place (PlayerState.items)
        "spaces": len(spaces),
        "hospital": hospital,
        "terminals": shown_terminals,
        "pending": list(player.pending),
        "passed": player.passed,
        "score": vp + quality,  # R4, as PlayerState.score
    }


def _view(game: Game, viewer: int | None, knower: Seat) -> View:
    """Views share their unchanging parts (``card_ids``, ``catalogue``, ``config``, the entries
    of ``cards``, patients as shown) with other views of the same game: treat a view as
    read-only, and copy it (``copy.deepcopy``) before changing it."""
    static = _static(game)
    players = [_player_view(game, static, knower, player) for player in game.players]
    deck_known = knower.deck_known()
    return {
        "format": VIEW_FORMAT,
        "viewer": viewer,
        **_flow(game),
        "deck_count": len(deck_known),
        "deck_top": _deck_top(game, knower, static),
        "deck_known": deck_known,
        "discard": list(game.discard),
        "players": players,
        "cards": _memory(game, knower, static),
        "knowledge": [
            _knowledge(seat_full, seat_priority) for seat_full, seat_priority in knower.knowledge()
        ],
        "not_severe": sorted(knower.cleared()),
        "card_ids": static.card_ids,
        "catalogue": static.catalogue,
        "config": static.config_dict,  # type: ignore[typeddict-item]  # a ConfigShown: see ViewConfig
        "kinds": KIND_WORDS,
    }
