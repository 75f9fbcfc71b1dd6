"""A game being played at one table: seats (humans or bots), the save file, the seat logs.

Both the Textual app and ``triage play --plain`` drive a :class:`Session`; neither touches the
engine's all-seeing objects for anything a player sees. What a seat is shown comes only from
:func:`triage.engine.view` and :func:`triage.engine.events_for`.

The save file is the engine's game record (:mod:`triage.engine.records`) plus the seat list, and
is written after every action, so a game can be resumed from it. Bots draw their randomness from
a generator seeded by the game seed and the number of actions taken so far: a resumed game goes
on exactly as the uninterrupted one would have.

>>> session = Session.new(players=2, seats=["random", "greedy"], seed=3)
>>> session.run_bots()
>>> session.game.is_over()
True
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from triage.bots import PLAYER_LEVELS, Bot, make_bot, seat_names
from triage.bots.hints import hint_reason, suggest_move
from triage.engine import Config, DataError, Game, RuleError, events_for, view
from triage.engine.cards import CardSpec
from triage.engine.choices import action_choices
from triage.engine.forecast import forecast
from triage.engine.records import load_record, make_record, replay_steps
from triage.engine.shapes import Action, Event, Hint, PlayerRow, Record, View
from triage.engine.summary import player_rows
from triage.engine.text import describe_action, event_words
from triage.engine.undo import UndoError, UndoReach, undo, undo_reach, undo_refusal
from triage.engine.vocabulary import KIND

HUMAN = "human"
LEVEL_LABELS = {level.name: level.label for level in PLAYER_LEVELS}


def seat_kinds() -> list[str]:
    """What a player is offered for a seat: a human or one of the levels
    (:data:`triage.bots.PLAYER_LEVELS`, strongest first). Any other bot name (the balance-testing
    bots) and a designer's ``module:Class`` are still accepted, only not offered."""
    return [HUMAN, *(level.name for level in PLAYER_LEVELS)]


def parse_seats(text: str | list[str] | None, players: int) -> list[str]:
    """The ``--bots`` option: one name per seat, comma-separated; one name fills every seat;
    none means a human at seat 0 and greedy bots elsewhere. A seat is ``human`` or any name
    :func:`triage.bots.make_bot` accepts (built-in names in any case; ``module:Class`` as spelt).

    >>> parse_seats("human,Expert-Club", 2)
    ['human', 'expert-club']
    >>> parse_seats("random", 3)
    ['random', 'random', 'random']
    """
    if text is None or text == "" or text == []:
        return [HUMAN] + ["greedy"] * (players - 1)
    names = seat_names(text if isinstance(text, str) else ",".join(text), players)
    names = [name if ":" in name else name.lower() for name in names]
    for name in names:
        if name == HUMAN:
            continue
        try:
            make_bot(name)
        except ValueError as error:
            if ":" in name:
                raise ValueError(f"seat {names.index(name)}: {error}") from None
            raise ValueError(
                f"unknown seat {name!r} (choose from: {', '.join(seat_kinds())}; or module:Class for your own bot)"
            ) from None
    return names


def bot_rng(seed: int, actions_taken: int) -> random.Random:
    """The generator a bot uses for one decision: fixed by the game, so resuming changes nothing."""
    return random.Random(f"triage-bot:{seed}:{actions_taken}")


class NamedRow(PlayerRow):
    """A finished game's line for one player (:func:`~triage.engine.summary.player_rows`) with
    the name the terminal game shows for its seat."""

    name: str


@dataclass
class Session:
    """One game and who sits where. ``events`` is the all-seeing event stream: never show it
    unfiltered; use :meth:`log_for`."""

    game: Game
    seats: list[str]
    save_path: Path | None = None
    events: list[Event] = field(default_factory=list)
    bots: dict[int, Bot] = field(default_factory=dict)
    #: The hints asked so far (``{"by", "at", "do"}``): saved in the record, never moves.
    hints: list[Hint] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.seats) != self.game.num_players:
            raise ValueError(f"{len(self.seats)} seats for a {self.game.num_players}-player game")
        self.bots = {seat: make_bot(name) for seat, name in enumerate(self.seats) if name != HUMAN}

    # ------------------------------------------------------------------ starting

    @classmethod
    def new(
        cls,
        players: int = 2,
        seats: list[str] | None = None,
        seed: int = 0,
        config: Config | None = None,
        deck: list[CardSpec] | None = None,
        save_path: Path | str | None = None,
    ) -> Session:
        """Deal a new game and save it at once (when a save file is named)."""
        game = Game.new(players=players, deck=deck, seed=seed, config=config)
        session = cls(
            game,
            seats or parse_seats(None, players),
            Path(save_path) if save_path else None,
            list(game.initial_events),
        )
        session.save()
        return session

    @classmethod
    def resume(
        cls, path: Path | str, seats: list[str] | None = None, save_path: Path | str | None = None
    ) -> Session:
        """Continue the game a save file holds (the seats it names, unless ``seats`` is given);
        it goes on being saved to the same file unless ``save_path`` names another."""
        record = load_record(path)
        events: list[Event] = []
        game: Game | None = None
        for game, step_events, _ in replay_steps(record, str(path)):
            events.extend(step_events)
        assert game is not None
        if seats is None:
            saved = record.get("seats")
            if saved is None:
                saved = [HUMAN] * game.num_players
            try:
                seats = parse_seats(list(saved), game.num_players)
            except ValueError as error:
                raise DataError(f"{path}: 'seats': {error}") from None
        hints = [entry.copy() for entry in record.get("hints", [])]
        return cls(game, seats, Path(save_path or path), events, hints=hints)

    # ------------------------------------------------------------------ asking

    @property
    def turn(self) -> int | None:
        return self.game.turn

    def is_human(self, seat: int) -> bool:
        return self.seats[seat] == HUMAN

    def human_seats(self) -> list[int]:
        return [seat for seat, name in enumerate(self.seats) if name == HUMAN]

    def human_to_move(self) -> bool:
        return self.turn is not None and self.is_human(self.turn)

    def seat_name(self, seat: int) -> str:
        """``Player 1 (expert-club, Club)``: a level's label beside its name, so players feel it."""
        name = self.seats[seat]
        label = LEVEL_LABELS.get(name)
        return f"Player {seat} ({name}, {label})" if label else f"Player {seat} ({name})"

    def names(self) -> list[str]:
        return [self.seat_name(seat) for seat in range(self.game.num_players)]

    def view_for(self, seat: int) -> View:
        return view(self.game, seat)

    def legal(self) -> list[Action]:
        """The legal actions of the seat to move (empty when the game is over)."""
        return self.game.legal_actions()

    def pass_warning(self) -> list[str]:
        """What passing now would let die at tonight's Cleanup, with what could still save each
        patient (the engine's forecast, from the seat's view alone); empty when nothing would."""
        seat = self.turn
        if seat is None:
            return []
        found = forecast(view(self.game, seat), action_choices(self.game, seat))
        lines = []
        titled = [
            ("dies tonight", found["pass"]["dies"]),
            ("checked tonight, dies if severe", found["pass"]["may_die"]),
        ]
        for title, patients in titled:
            for patient in patients:
                lines.append(f"{title}: {patient['text']}")
                lines += [f"    - {way}" for way in found["rescue"].get(patient["card"], [])]
        return lines

    def log_for(self, seat: int | None, start: int = 0, end: int | None = None) -> list[str]:
        """Seat ``seat``'s log lines for the events from index ``start`` to ``end`` (filtered, I4;
        None: what every player knows, for watching bots play)."""
        return self.words(self.events[start:end], seat)

    def words(self, events: list[Event], seat: int | None) -> list[str]:
        """``events`` (all-seeing) in words as ``seat`` may see them: worded after the engine's
        filter, so a line never tells what the seat cannot know (I4)."""
        names, market = self.names(), self.game.config.market
        return [event_words(event, seat, names, market) for event in events_for(events, seat)]

    # ------------------------------------------------------------------ acting

    def act(self, action: Action) -> list[Event]:
        """The seat to move takes ``action``; raises :class:`RuleError` and changes nothing if
        the rules refuse it. The game is saved after every action."""
        if self.turn is None:
            raise RuleError("game_over", "the game is over; no more actions are taken", "R4")
        events = self.game.apply(action, self.turn)
        self.events.extend(events)
        self.save()
        return events

    def undo_reach(self) -> UndoReach | None:
        """How far back the human seat to move may undo (None: no human decides now)."""
        seat = self.turn
        if seat is None or not self.is_human(seat):
            return None
        return undo_reach(self.game, seat)

    def undo(self) -> str:
        """Take back the last action of the human seat to move, within its turn and never past
        a reveal (:mod:`triage.engine.undo`); its events leave the log and the save file.
        Returns the undone action in words; raises :class:`UndoError` and changes nothing when
        it may not."""
        seat = self.turn
        if seat is None:
            raise UndoError("game_over", "the game is over; nothing is taken back", "R4")
        if not self.is_human(seat):
            raise UndoError("not_your_turn", f"it is {self.seat_name(seat)}'s decision, a bot's", "R1")
        reach = undo_reach(self.game, seat)
        if reach.steps == 0:
            raise undo_refusal(self.game, seat, reach)
        undone = self.game.history[-1]["do"]
        dropped = reach.events(1)
        self.game = undo(self.game, seat)
        del self.events[len(self.events) - dropped :]
        # A hint asked in a position that held the undone action would tell of it: it goes too.
        self.hints = [hint for hint in self.hints if hint["at"] <= len(self.game.history)]
        self.save()
        return describe_action(undone)

    def undo_line(self) -> str:
        """What the seat to move may undo now, in a few words (empty when no human decides)."""
        reach = self.undo_reach()
        if reach is None:
            return ""
        if reach.steps:
            return f"undo: {reach.steps} action(s) can be taken back (type undo or u)"
        if reach.reveal is not None and reach.reveal.number == len(self.game.history) - 1:
            return f"undo: not past {reach.reveal.describe()} (rule {reach.reveal.rule})"
        return ""

    def bot_request(self) -> tuple[Bot, View, list[Action], random.Random]:
        """Everything the bot at the seat to move decides from: the bot, that seat's view only,
        the legal actions and the bot's generator. Built from the game here, so the choice itself
        (``bot.choose(view, legal, rng)``) may run elsewhere, e.g. in a thread, without the game."""
        seat = self.turn
        if seat is None or seat not in self.bots:
            raise ValueError("it is not a bot's decision")
        rng = bot_rng(self.seed, len(self.game.history))
        return self.bots[seat], view(self.game, seat), self.game.legal_actions(), rng

    def bot_action(self) -> Action:
        """What the bot at the seat to move chooses, from that seat's view only."""
        bot, seen, legal, rng = self.bot_request()
        return bot.choose(seen, legal, rng)

    def bot_steps(self) -> Iterator[tuple[int, Action, list[Event]]]:
        """Let bots move until a human must decide or the game ends: (seat, action, events)."""
        while self.turn is not None and not self.is_human(self.turn):
            seat = self.turn
            action = self.bot_action()
            yield seat, action, self.act(action)

    def hint_request(self) -> tuple[int, int, View, list[Action]]:
        """What a hint for the human seat to move is asked from: the seat, the action number,
        that seat's view only and its legal actions (so :func:`suggest_move` may run in a
        thread, without the game)."""
        seat = self.turn
        if seat is None or not self.is_human(seat):
            raise ValueError("a hint is for a human seat's decision")
        return seat, len(self.game.history), view(self.game, seat), self.game.legal_actions()

    def keep_hint(self, seat: int, at: int, seen: View, action: Action) -> str:
        """Record the hint (saved with the game) and say why, from the seat's forecast."""
        self.hints.append({"by": seat, "at": at, "do": action})
        self.save()
        return hint_reason(seen, action_choices(self.game, seat), action)

    def hint(self) -> tuple[Action, str]:
        """The expert's move for the human seat to move and one line why (kept as a hint)."""
        seat, at, seen, legal = self.hint_request()
        action = suggest_move(seen, legal, f"{self.seed}:{at}")
        return action, self.keep_hint(seat, at, seen, action)

    def run_bots(self) -> None:
        for _ in self.bot_steps():
            pass

    @property
    def seed(self) -> int:
        return int(self.game.setup["seed"]) if self.game.setup else 0

    # ------------------------------------------------------------------ saving

    def record(self) -> Record:
        record = make_record(self.game, self.hints)
        record["seats"] = list(self.seats)
        return record

    def save_words(self) -> str:
        """Whether the game is kept, in words: the save file and the command that resumes it,
        or that nothing is saved (the game is saved only where ``--save`` named a file)."""
        if self.save_path is None:
            return "This game is not saved: it ends here (start a game with --save FILE to keep it)."
        return f"The game is saved in {self.save_path}: triage play --resume {self.save_path}"

    def save(self) -> None:
        """Write the save file (atomically: a crash never leaves half a record)."""
        if self.save_path is None:
            return
        temporary = self.save_path.with_name(self.save_path.name + ".tmp")
        temporary.write_text(json.dumps(self.record(), indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, self.save_path)

    # ------------------------------------------------------------------ the end

    def summary(self) -> list[NamedRow]:
        """Per player at the end: score, VP, QoC, and patients cured, dead and rejected by kind.

        Only once the game is over, when every card is public (records.record_for)."""
        if not self.game.is_over():
            raise ValueError("the summary exists only once the game is over")
        return [{**row, "name": self.seat_name(row["seat"])} for row in player_rows(self.game, self.events)]

    def solo_tier_line(self) -> str:
        """R4 solo: the tier the score earned (``[solo] tiers``, :meth:`Game.solo_tier`) and the
        score the next tier needs, so a player sees how far the next one was."""
        tiers = self.game.config.solo_tiers
        score = self.game.players[0].score
        tier = self.game.solo_tier()
        if self.game.winner is None:
            return f"Solo tier: none (the game is lost; {tiers[-1][0]} needs {tiers[-1][1]} without a loss)"
        if tier is None:
            return f"Solo tier: none (score {score}; {tiers[-1][0]} needs {tiers[-1][1]})"
        better = [(name, lowest) for name, lowest in tiers if lowest > score]
        following = f"; {better[-1][0]} needs {better[-1][1]}" if better else ", the best tier"
        return f"Solo tier: {tier} (score {score}{following})"

    def final_lines(self) -> list[str]:
        """The end of the game as text: scores, the winner, and each player's summary."""
        winner = self.game.winner
        if self.game.num_players == 1:
            verdict = "the hospital held (win)" if winner == 0 else "Quality of Care fell to 0 (loss)"
        else:
            verdict = f"winner: {self.seat_name(winner)}" if winner is not None else "no winner (a full tie)"
        lines = [f"Game over after round {self.game.round}: {verdict}"]
        if self.game.num_players == 1 and self.game.config.solo_tiers:
            lines.append(self.solo_tier_line())
        for row in self.summary():
            lines.append(
                f"{row['name']}: score {row['score']} (VP {row['vp']} + QoC {row['quality']}), "
                f"treated {row['treated']}, credits {row['credits']}"
            )
            for what in ("cured", "dead", "rejected"):
                counts = row[what]
                detail = ", ".join(f"{count} {KIND[kind].label}" for kind, count in counts.items())
                lines.append(f"    {what}: {sum(counts.values())}{' (' + detail + ')' if detail else ''}")
        return lines
