"""The example: 100 random games through each interface end with the engine's scores."""

from __future__ import annotations

import pytest

from triage.envs import random_games


@pytest.mark.parametrize(
    "play",
    [
        lambda: random_games.openspiel_games(games=100, players=2),
        lambda: random_games.pettingzoo_games(games=100, players=3),
        lambda: random_games.gymnasium_games(games=100),
    ],
    ids=["openspiel", "pettingzoo", "gymnasium"],
)
def test_100_random_games_end_with_the_engine_scores(play) -> None:
    outcomes = play()
    assert len(outcomes) == 100
    assert [outcome.seed for outcome in outcomes if not outcome.matches] == []
    assert len({tuple(outcome.engine_scores) for outcome in outcomes}) > 10  # games really differ


def test_the_example_command_reports_success(capsys: pytest.CaptureFixture[str]) -> None:
    assert random_games.main(["--games", "3", "--players", "4"]) == 0
    out = capsys.readouterr().out
    for name in ("openspiel", "pettingzoo", "gymnasium"):
        assert f"{name}: 3 games" in out and "3 final scores equal to the engine's" in out
