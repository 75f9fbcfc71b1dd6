"""Bounds of every observation value, and the normalised flat observation built on them.

The raw observation (:meth:`triage.envs.encoding.Layout.observe`) holds counters as they are
(credits, tokens, Time, ...) and a block for each of 4 seats. Learning code prefers values near
[0, 1] and no entries that can never move. :class:`ObservationEncoder` gives either:

* the raw vector with a ``Box`` whose ``low``/``high`` are proven bounds of each entry (from
  :mod:`triage.envs.bounds`: wealth, draws and score bounds of the configuration and deck), so
  wrappers that rescale by the space (SuperSuit's ``normalize_obs``) get real ranges; or
* the normalised vector (``normalize=True``): entries that the rules keep constant dropped, each
  other entry divided by a documented scale so that usual values lie in about [0, 1]; its ``Box``
  is the proven bounds divided by the same scales.

Dropped in the normalised encoding (constant by the rules or by the game's setting): the blocks
of seats beyond ``players``; ``rounds`` and ``num_players``; each present seat's ``present`` (1);
``phase=cleanup`` (Cleanup never waits for a decision, C1-C5); ``front=terminal`` and
``kind=terminal`` of space and pending cards (a terminal patient never takes a space nor waits
for admission, A3); ``others_know`` and ``first`` in a solo game; ``discard_count`` and the
discard pile's card count where no case goes to the discard (V1). Scales: the card count's
entries by their largest value (:meth:`~triage.envs.census.Census.highs`), rounds for ``round``
and every Time, the deck size for deck and discard counts, QoC's start (10) for ``quality``, 30 for ``vp``, 40 for ``score``, 10 for Credits,
tokens and the treated track, 3 for Staff, Congress Doctors and Helicopters, the market limit
for the items a board counts (clinics, trials, a designer's items), the most spaces for ``spaces``, the largest cost for costs and placed
healing, and the deck's largest card reward for ``credits`` and ``vp`` of a card. Flags stay 0/1.

>>> from triage.engine import make_config, load_standard_deck, Game, view
>>> from triage.envs.encoding import Layout
>>> layout = Layout.from_view(view(Game.new(players=2, seed=0), 0))
>>> encoder = ObservationEncoder(layout, make_config(), load_standard_deck(), players=2, normalize=True)
>>> encoder.size < layout.observation_size
True
"""

from __future__ import annotations

import re

import numpy as np
from gymnasium import spaces

from triage.engine import CardSpec, Config
from triage.envs.bounds import game_bounds, market_prices
from triage.envs.encoding import Layout

_SEAT = re.compile(r"^p\+(\d+)\.(.*)$")
_CARD_PLACE = re.compile(r"^(deck\[\d+\]|space\d+|pending\d+|terminal\d+)\.(.*)$")


class ObservationEncoder:
    """The flat observation of one configuration, deck and number of players: raw or normalised."""

    def __init__(
        self, layout: Layout, config: Config, deck: list[CardSpec], players: int, normalize: bool = False
    ) -> None:
        self.layout = layout
        self.normalize = normalize
        config = config.for_players(players)  # R1: this count's rounds
        names = layout.feature_names()
        ranges = _field_ranges(layout, config, deck, players)
        census = _census_ranges(layout, config, players)
        low, high, scale, keep = [], [], [], []
        for index, name in enumerate(names):
            lo, hi, sc, drop = census[name] if name in census else _range_of(name, players, ranges)
            drop = drop or (name == "discard_count" and not config.uses_discard)
            # 0 is every entry's filler (a seat beyond ``players``, an empty space): a game whose
            # scores cannot reach 0 (the mini variant's QoC) still encodes it in bounds
            low.append(min(lo, 0))
            high.append(max(hi, 0))
            scale.append(sc)
            if not drop:
                keep.append(index)
        self.names = [names[i] for i in keep] if normalize else names
        self._keep = np.asarray(keep, dtype=np.intp)
        self._inverse = (1.0 / np.asarray(scale, dtype=np.float32))[self._keep]
        raw_low, raw_high = np.asarray(low, np.float32), np.asarray(high, np.float32)
        if normalize:
            self.low, self.high = raw_low[self._keep] * self._inverse, raw_high[self._keep] * self._inverse
        else:
            self.low, self.high = raw_low, raw_high

    @property
    def size(self) -> int:
        return len(self.names)

    def space(self) -> spaces.Box:
        return spaces.Box(low=self.low, high=self.high, dtype=np.float32)

    def encode(self, raw: np.ndarray) -> np.ndarray:
        """The flat observation from the raw vector of :meth:`Layout.observe`, or from a batch of
        them (one per row: the vector environment normalises all its rows at once)."""
        if not self.normalize:
            return raw
        scaled: np.ndarray = raw[..., self._keep] * self._inverse
        return scaled


Range = tuple[int, int, int]


def _census_ranges(layout: Layout, config: Config, players: int) -> dict[str, tuple[int, int, int, bool]]:
    """(lowest, highest, scale, dropped) of the card count's entries (:mod:`triage.envs.census`):
    counts scale by their largest value, ``deck_order`` by the number of classes; the discard's
    counts are dropped where no case goes to the discard pile (V1)."""
    census = layout.census
    ranges = {}
    for name, high in zip(census.feature_names(), census.highs()):
        drop = name.startswith("discard.") and not config.uses_discard
        ranges[name] = (0, high, max(high, 1), drop)
    return ranges


def _field_ranges(
    layout: Layout, config: Config, deck: list[CardSpec], players: int
) -> dict[str, dict[str, Range]]:
    """Each field's (lowest, highest, scale), for the counters, the card fields and the game
    fields, from the configuration, the deck and the proven bounds."""
    bounds = game_bounds(config, deck, players)
    market = market_prices(config)
    value = market.value
    staff = config.start["staff"] + (
        market.staff_limit or 0 if market.staff_price == 0 else bounds.spendable // market.staff_price
    )
    card_credits = max(card.credits for card in deck)
    card_vp = max(card.vp for card in deck)
    start = config.start
    most_spaces = layout.spaces
    counters = {
        "quality": (bounds.min_score - start["vp"], start["quality"], start["quality"]),
        "vp": (start["vp"], bounds.max_score - start["quality"], 30),
        "credits": (0, bounds.spendable, 10),
        "treated": (0, bounds.draws, 10),
        "diagnostics": (0, int(bounds.spendable // value["diagnostics"]), 10),
        "healing": (0, int(bounds.spendable // value["healing"]), 10),
        "staff": (0, staff, 3),
        "staff_available": (0, staff, 3),
        "congress": (0, int(bounds.spendable // value["congress"]), 3),
        "helicopters": (0, int(bounds.spendable // value["helicopters"]), 3),
        # T8: each item whose purchases a board counts, up to its limit (K4's clinics and trials).
        **{
            f"items.{name}": (0, config.market[name].limit or 0, max(config.market[name].limit or 1, 1))
            for name in layout.counted
        },
        "spaces": (0, most_spaces, most_spaces),
        "score": (bounds.min_score, bounds.max_score, 40),
    }
    card_fields = {
        "diagnosis": (0, layout.max_cost, layout.max_cost),
        "healing": (0, layout.max_cost, layout.max_cost),
        "credits": (0, card_credits, max(card_credits, 1)),
        "vp": (0, card_vp, max(card_vp, 1)),
        "time": (0, config.rounds, config.rounds),
        "placed": (0, layout.max_cost, layout.max_cost),
        "others_know": (0, max(players - 1, 1), max(players - 1, 1)),
    }
    deck_size = len(deck)
    game_fields = {
        "round": (0, config.rounds, config.rounds),
        "rounds": (0, config.rounds, config.rounds),
        "num_players": (1, 4, 4),
        "deck_count": (0, deck_size, deck_size),
        "discard_count": (0, deck_size, deck_size),
    }
    return {"counters": counters, "cards": card_fields, "game": game_fields}


def _range_of(name: str, players: int, ranges: dict[str, dict[str, Range]]) -> tuple[int, int, int, bool]:
    """(lowest, highest, scale, dropped by the normalised encoding) of one feature."""
    counters, card_fields, game_fields = ranges["counters"], ranges["cards"], ranges["game"]
    drop = False
    field = name
    seat_match = _SEAT.match(name)
    if seat_match:
        rel, field = int(seat_match.group(1)), seat_match.group(2)
        drop = rel >= players or field == "present"
    place_match = _CARD_PLACE.match(field)
    if place_match:
        place, field = place_match.groups()
        terminal_field = field in ("front=terminal", "kind=terminal")
        drop = drop or (terminal_field and not place.startswith("deck"))
        drop = drop or (field == "others_know" and players == 1)
        lo, hi, sc = card_fields.get(field, (0, 1, 1))
    elif field in counters:
        lo, hi, sc = counters[field]
    elif field in game_fields:
        lo, hi, sc = game_fields[field]
        drop = drop or field in ("rounds", "num_players")
    else:
        lo, hi, sc = 0, 1, 1
        drop = drop or field == "phase=cleanup" or (field == "first" and players == 1)
    return lo, hi, sc, drop
