"""Named variants for the research interfaces: a built-in configuration and its deck.

``default`` is the full game on the standard deck; ``mini`` (``data/config/mini.toml`` with
``data/decks/mini.toml``) is the small solvable variant: one round, one arrival, two players and
four cards, whose whole tree OpenSpiel's tabular CFR walks (docs/research.md). Every rule holds in
both; only outer-game values ([O]) and starting holdings differ.

For exact solvers the mini deal is a chance node over the deck's orders (:func:`arrangements`,
equally likely, as a fair shuffle makes them), dealt by :func:`deal_arranged`.

>>> mini = load_variant("mini")
>>> mini.config.rounds, len(mini.deck or ())
(1, 4)
>>> len(arrangements(mini.deck or ()))
24
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from pathlib import Path
from typing import Any

from triage.engine import Config, Game
from triage.engine.cards import CardSpec, deck_names, load_named_deck, load_standard_deck
from triage.engine.config import config_names, load_config, load_named_config

#: The seed of every arranged deal: with it fixed, a card's neutral handle (K1) says only its
#: place in the dealt order, which the public draws tell anyway (I1, I3).
ARRANGED_SEED = 0


@dataclass(frozen=True)
class Variant:
    """A built-in configuration by name and the deck that comes with it (None: the standard)."""

    name: str
    config: Config
    deck: tuple[CardSpec, ...] | None

    def cards(self) -> list[CardSpec]:
        """The deck's cards (the standard deck when the variant names none)."""
        return list(self.deck) if self.deck is not None else load_standard_deck()

    def deal(self, players: int, seed: int) -> Game:
        """``Game.new`` on this variant's configuration and deck."""
        return Game.new(players=players, deck=self.deck, seed=seed, config=self.config)


def load_variant(name: str | Path = "default", **overrides: Any) -> Variant:
    """The built-in configuration ``name``, or a configuration file (a designer's, e.g. with a
    market item of its own, T8), with ``overrides`` on top (None values are left out), and the
    built-in deck of the same name if there is one.

    >>> load_variant("mini", rounds=2).config.rounds
    2
    >>> load_variant("huge")
    Traceback (most recent call last):
    ...
    triage.engine.errors.DataError: unknown configuration 'huge' (built-in: default, duel, mini; or a configuration file)
    """
    changes = {key: value for key, value in overrides.items() if value is not None}
    if str(name) not in config_names() and Path(name).is_file():
        return Variant(Path(name).stem, load_config(name, changes or None), None)
    config = load_named_config(str(name), changes or None)
    deck = tuple(load_named_deck(str(name))) if name in deck_names() else None
    return Variant(str(name), config, deck)


def arrangements(deck: tuple[CardSpec, ...] | list[CardSpec]) -> list[tuple[CardSpec, ...]]:
    """Every distinct order of ``deck`` (cards alike in every printed value count once), sorted,
    so that an index names the same order in every process."""
    keyed = sorted(deck, key=lambda card: (_printed(card), card.id))
    orders = {tuple(order) for order in permutations(range(len(keyed)))}
    distinct = {tuple(_printed(keyed[index]) for index in order): order for order in sorted(orders)}
    return [tuple(keyed[index] for index in distinct[key]) for key in sorted(distinct)]


def _printed(card: CardSpec) -> tuple[Any, ...]:
    return (card.kind, card.diagnosis or 0, card.healing or 0, card.credits, card.vp)


def deal_arranged(players: int, config: Config, order: tuple[CardSpec, ...]) -> Game:
    """A game whose deck, before the first draws, is ``order`` (index 0 first drawn), dealt by
    ``Game.new`` with :data:`ARRANGED_SEED` on the deck laid out so that its shuffle gives that
    order."""
    placed: list[CardSpec] = [order[0]] * len(order)
    for place, position in enumerate(_shuffled_positions(len(order))):
        placed[position] = order[place]
    return Game.new(players=players, deck=placed, seed=ARRANGED_SEED, config=config)


@lru_cache(maxsize=8)
def _shuffled_positions(count: int) -> tuple[int, ...]:
    """The deck positions ``Game.new`` puts in each place with :data:`ARRANGED_SEED` (its first
    shuffle, R3); :func:`deal_arranged`'s test holds the two together."""
    positions = list(range(count))
    random.Random(ARRANGED_SEED).shuffle(positions)
    return tuple(positions)
