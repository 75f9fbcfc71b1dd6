"""Bounds of every observation value, and the encodings a learner gets (scaled, normalised, raw).

The raw observation (:meth:`triage.envs.encoding.Layout.observe`) holds counters as they are
(credits, tokens, Time, ...) and a block for each of 4 seats. Networks want every input in
[-1, 1] and no entries that can never move. :class:`ObservationEncoder` gives one of
:data:`ENCODINGS`:

* ``scaled`` (the default of every adapter): every entry, each divided by its **proven bound**
  (the largest absolute value it can take, from :mod:`triage.envs.bounds`: wealth, draws and
  score bounds of the configuration and deck), so that every value lies in [-1, 1] (in [0, 1]
  for the entries that cannot go below 0) in every game, not only in usual ones;
* ``normalized`` (``normalize=True``): the scaled vector without the entries that the rules keep
  constant (below);
* ``raw``: the counts as they are, with a ``Box`` whose ``low``/``high`` are the proven bounds,
  for analysis and for wrappers that rescale by the space (SuperSuit's ``normalize_obs``).

Dropped in the normalised encoding (constant by the rules or by the game's setting): the blocks
of seats beyond ``players``; ``rounds`` and ``num_players``; each present seat's ``present`` (1);
``phase=cleanup`` (Cleanup never waits for a decision, C1-C5); ``front=terminal`` and
``kind=terminal`` of space and pending cards (a terminal patient never takes a space nor waits
for admission, A3); ``others_know`` and ``first`` in a solo game; ``discard_count`` and the
discard pile's card count where no case goes to the discard (V1).

Each entry's bound (:attr:`ObservationEncoder.scale`, by name in :meth:`ObservationEncoder.scales`):
the card count's entries their largest value (:meth:`~triage.envs.census.Census.highs`),
``deck_order`` the number of classes, ``rounds`` for ``round`` and every Time, the deck size
for deck and discard counts, the proven score bounds for ``quality``, ``vp`` and ``score``, the
most Credits a player can hold for ``credits``, the tokens those Credits buy for tokens, the
draws bound for the treated track, the market limit for the items a board counts (clinics,
trials, a designer's items), the most spaces for ``spaces``, the largest cost for costs and
placed healing, the deck's largest card reward for ``credits`` and ``vp`` of a card, 4 for
``num_players``, ``players`` - 1 for ``others_know``. Flags stay 0/1.

>>> from triage.engine import make_config, load_standard_deck, Game, view
>>> from triage.envs.encoding import Layout
>>> layout = Layout.from_view(view(Game.new(players=2, seed=0), 0))
>>> encoder = ObservationEncoder(layout, make_config(), load_standard_deck(), players=2, encoding="normalized")
>>> encoder.size < layout.observation_size, float(encoder.low.min()) >= -1, float(encoder.high.max()) <= 1
(True, True, True)
"""

from __future__ import annotations

import re

import numpy as np
from gymnasium import spaces

from triage.engine import CardSpec, Config
from triage.envs.bounds import game_bounds, market_prices
from triage.envs.encoding import Layout

#: The observation encodings (:class:`ObservationEncoder`); ``scaled`` is every adapter's default.
ENCODINGS: tuple[str, ...] = ("scaled", "normalized", "raw")

_SEAT = re.compile(r"^p\+(\d+)\.(.*)$")
_CARD_PLACE = re.compile(r"^(deck\[\d+\]|space\d+|pending\d+|terminal\d+)\.(.*)$")


def encoding_option(encoding: str | None, normalize: bool = False) -> str:
    """The encoding an adapter's options name: ``encoding`` (one of :data:`ENCODINGS`), or
    ``normalize=True`` (the earlier spelling of ``encoding="normalized"``), else ``scaled``."""
    if encoding is None:
        return "normalized" if normalize else "scaled"
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
    if normalize and encoding != "normalized":
        raise ValueError(f"normalize=True asks for the normalized encoding, but encoding={encoding!r}")
    return encoding


class ObservationEncoder:
    """The flat observation of one configuration, deck and number of players, in one of
    :data:`ENCODINGS` (``normalize=True`` is ``encoding="normalized"``)."""

    def __init__(
        self,
        layout: Layout,
        config: Config,
        deck: list[CardSpec],
        players: int,
        normalize: bool = False,
        encoding: str | None = None,
    ) -> None:
        self.layout = layout
        self.encoding = encoding_option(encoding, normalize)
        self.normalize = self.encoding == "normalized"
        config = config.for_players(players)  # R1: this count's rounds
        names = layout.feature_names()
        ranges = _field_ranges(layout, config, deck, players)
        census = _census_ranges(layout, config, players)
        low, high, keep = [], [], []
        for index, name in enumerate(names):
            lo, hi, drop = census[name] if name in census else _range_of(name, players, ranges)
            drop = drop or (name == "discard_count" and not config.uses_discard)
            # 0 is every entry's filler (a seat beyond ``players``, an empty space): a game whose
            # scores cannot reach 0 (the mini variant's QoC) still encodes it in bounds
            low.append(min(lo, 0))
            high.append(max(hi, 0))
            if not drop:
                keep.append(index)
        raw_low, raw_high = np.asarray(low, np.float32), np.asarray(high, np.float32)
        #: Each entry's proven bound: the largest absolute value it can take (1 for a constant 0).
        self.scale = np.maximum(np.maximum(-raw_low, raw_high), 1.0).astype(np.float32)
        self._keep = np.asarray(keep, dtype=np.intp)
        inverse = (1.0 / self.scale).astype(np.float32)
        if self.encoding == "raw":
            self.names, self.low, self.high = names, raw_low, raw_high
        elif self.encoding == "scaled":
            self.names, self.low, self.high = names, raw_low * inverse, raw_high * inverse
            self._inverse = inverse
        else:
            self.names = [names[i] for i in keep]
            self._inverse = inverse[self._keep]
            self.low, self.high = (raw_low * inverse)[self._keep], (raw_high * inverse)[self._keep]

    @property
    def size(self) -> int:
        return len(self.names)

    def scales(self) -> dict[str, float]:
        """Each raw entry's name and the bound the scaled encodings divide it by (the docs'
        slot-by-slot table)."""
        return dict(zip(self.layout.feature_names(), self.scale.tolist()))

    def space(self) -> spaces.Box:
        return spaces.Box(low=self.low, high=self.high, dtype=np.float32)

    def encode(self, raw: np.ndarray) -> np.ndarray:
        """The observation from the raw vector of :meth:`Layout.observe`, or from a batch of
        them (one per row: the vector environment encodes all its rows at once)."""
        if self.encoding == "raw":
            return raw
        if self.encoding == "scaled":
            scaled: np.ndarray = raw * self._inverse
            return scaled
        kept: np.ndarray = raw[..., self._keep] * self._inverse
        return kept

    def encode_owned(self, raw: np.ndarray) -> np.ndarray:
        """:meth:`encode` of a raw vector or batch that nobody else holds (a new observation):
        the scaled encoding multiplies it in place, the same float32 products without a new
        array (one allocation less at every step of every adapter)."""
        if self.encoding == "scaled":
            raw *= self._inverse  # in place: cheaper than np.multiply(..., out=raw) by a third
            return raw
        return self.encode(raw)


Range = tuple[int, int]


def _census_ranges(layout: Layout, config: Config, players: int) -> dict[str, tuple[int, int, bool]]:
    """(lowest, highest, dropped) of the card count's entries (:mod:`triage.envs.census`):
    counts up to their largest value, ``deck_order`` up to the number of classes; the discard's
    counts are dropped where no case goes to the discard pile (V1)."""
    census = layout.census
    ranges = {}
    for name, high in zip(census.feature_names(), census.highs()):
        drop = name.startswith("discard.") and not config.uses_discard
        ranges[name] = (0, high, drop)
    return ranges


def _field_ranges(
    layout: Layout, config: Config, deck: list[CardSpec], players: int
) -> dict[str, dict[str, Range]]:
    """Each field's (lowest, highest), for the counters, the card fields and the game
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
        "quality": (bounds.min_score - start["vp"], start["quality"]),
        "vp": (start["vp"], bounds.max_score - start["quality"]),
        "credits": (0, bounds.spendable),
        "treated": (0, bounds.draws),
        "diagnostics": (0, int(bounds.spendable // value["diagnostics"])),
        "healing": (0, int(bounds.spendable // value["healing"])),
        "staff": (0, staff),
        "staff_available": (0, staff),
        "congress": (0, int(bounds.spendable // value["congress"])),
        "helicopters": (0, int(bounds.spendable // value["helicopters"])),
        # T8: each item whose purchases a board counts, up to its limit (K4's clinics and trials).
        **{f"items.{name}": (0, config.market[name].limit or 0) for name in layout.counted},
        "spaces": (0, most_spaces),
        "score": (bounds.min_score, bounds.max_score),
    }
    card_fields = {
        "diagnosis": (0, layout.max_cost),
        "healing": (0, layout.max_cost),
        "credits": (0, card_credits),
        "vp": (0, card_vp),
        "time": (0, config.rounds),
        "placed": (0, layout.max_cost),
        "others_know": (0, max(players - 1, 1)),
    }
    deck_size = len(deck)
    game_fields = {
        "round": (0, config.rounds),
        "rounds": (0, config.rounds),
        "num_players": (1, 4),
        "deck_count": (0, deck_size),
        "discard_count": (0, deck_size),
    }
    return {"counters": counters, "cards": card_fields, "game": game_fields}


def _range_of(name: str, players: int, ranges: dict[str, dict[str, Range]]) -> tuple[int, int, bool]:
    """(lowest, highest, dropped by the normalised encoding) of one feature."""
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
        lo, hi = card_fields.get(field, (0, 1))
    elif field in counters:
        lo, hi = counters[field]
    elif field in game_fields:
        lo, hi = game_fields[field]
        drop = drop or field in ("rounds", "num_players")
    else:
        lo, hi = 0, 1
        drop = drop or field == "phase=cleanup" or (field == "first" and players == 1)
    return lo, hi, drop


def scale_table(players: int = 2) -> str:
    """The bound every raw entry is divided by in the scaled encodings, field by field (entries
    of one field share it: every seat's ``credits``, every space's ``time``...), for the default
    configuration and deck with ``players`` seats, as a Markdown table (docs/research.md)."""
    from triage.engine import Game, load_standard_deck, make_config, view  # the default game

    layout = Layout.from_view(view(Game.new(players=players, seed=0), 0))
    encoder = ObservationEncoder(layout, make_config(), load_standard_deck(), players)
    fields: dict[str, float] = {}
    counts = set(layout.census.feature_names()) - {"deck.known_positions", "deck.unseen"}
    for name, scale in encoder.scales().items():
        if name in counts and not name.startswith("deck_order"):
            continue  # the card count's class counts: each by its own largest value
        field = re.sub(r"^p\+\d+\.", "", name)
        field = re.sub(r"^(deck|space|pending|terminal)\[?\d+\]?\.", r"\1.", field)
        field = re.sub(r"^deck_order\[\d+\]$", "deck_order", field)
        fields.setdefault(field, scale)
    rows = [f"| `{field}` | {scale:g} |" for field, scale in fields.items() if scale != 1.0]
    return "\n".join(["| entry | divided by |", "| --- | --- |", *rows])


if __name__ == "__main__":
    print(scale_table())
