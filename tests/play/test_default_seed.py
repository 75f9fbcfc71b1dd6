"""K1: without --seed every terminal game is a fresh secret deal, so no earlier game tells a
player which neutral card id hides which patient."""

from __future__ import annotations

from typer.testing import CliRunner

from triage.cli import app


def test_two_default_games_are_different_deals() -> None:
    runner = CliRunner()
    first = runner.invoke(app, ["play", "--plain"], input="quit\n")
    second = runner.invoke(app, ["play", "--plain"], input="quit\n")
    assert "Stopped before the end" in first.output and "Stopped before the end" in second.output
    assert first.output != second.output


def test_a_chosen_seed_deals_the_same_game_again() -> None:
    runner = CliRunner()
    outputs = [
        runner.invoke(app, ["play", "--plain", "--seed", "9"], input="quit\n").output for _ in range(2)
    ]
    assert outputs[0] == outputs[1]
