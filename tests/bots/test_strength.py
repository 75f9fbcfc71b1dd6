"""``python -m triage.bots.strength``: duplicated deals, intervals by deal, CPU per decision."""

import json

import pytest

from triage.bots.strength import main, measure


def test_each_deal_is_played_from_both_seats_and_timed_per_bot():
    tally = measure(("greedy", "random"), deals=3, seed=40)
    summary = tally.summary()
    assert summary["deals"] == 3 and summary["games"] == 6
    assert summary["win_rate"] >= 0.5  # greedy beats random in 97% of games
    assert 0 <= summary["win_rate_95"] < 1
    assert set(summary["cpu_seconds_per_decision"]) == {"greedy", "random"}
    for timing in summary["cpu_seconds_per_decision"].values():
        assert timing["decisions"] > 50 and 0 <= timing["mean_s"] <= timing["max_s"]


def test_the_same_seed_gives_the_same_results():
    # expert-12: the novice's playouts with no CPU-time cap, so a busy machine cannot cut a search
    first = measure(("expert-12", "greedy"), deals=1, seed=7)
    again = measure(("expert-12", "greedy"), deals=1, seed=7)
    assert (first.deal_wins, first.deal_margins) == (again.deal_wins, again.deal_margins)


def test_a_run_takes_a_configuration_and_a_deck(capsys, tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text(
        "cards = [\n"
        + "".join(
            f'  {{ id = "N{n}", kind = "non_severe", diagnosis = 1, healing = 2, credits = 1, vp = 1 }},\n'
            for n in range(12)
        )
        + "]\n"
    )
    assert main(["--bots", "greedy,random", "--deals", "1", "--set", "rounds=2", "--deck", str(deck)]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2


def test_the_command_prints_a_json_summary(capsys):
    assert main(["--bots", "greedy,random", "--deals", "1", "--seed", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--bots", "greedy"], "--bots needs two names"),
        (["--deals", "0"], "--deals must be at least 1"),
        (["--players", "5"], "--players must be 2 to 4"),
        (["--bots", "greedy,nobody"], "unknown bot 'nobody'"),
        (["--set", "return_to=sideways"], "return_to"),
        (["--deck", "no/such/deck.toml"], "no/such/deck.toml"),
    ],
)
def test_bad_options_are_refused_clearly(args, says, capsys):
    with pytest.raises(SystemExit):
        main(args)
    assert says in capsys.readouterr().err


def test_workers_play_the_same_deals():
    alone = measure(("greedy", "random"), deals=6, seed=11)
    shared = measure(("greedy", "random"), deals=6, seed=11, workers=2)
    assert (alone.deal_wins, alone.deal_margins) == (shared.deal_wins, shared.deal_margins)


def test_the_setting_reaches_the_games():
    from triage.bots.strength import Setting
    from triage.engine import make_config

    full = measure(("greedy", "random"), deals=2, seed=5).summary()
    short = measure(
        ("greedy", "random"), deals=2, seed=5, setting=Setting(config=make_config({"rounds": 1}))
    ).summary()
    decisions = lambda summary: summary["cpu_seconds_per_decision"]["greedy"]["decisions"]  # noqa: E731
    assert decisions(short) * 3 < decisions(full)
