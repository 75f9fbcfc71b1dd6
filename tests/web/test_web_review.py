"""The game-over summary and the replay of a finished table (triage.web.review)."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient
from web_helpers import auth, create, tokens_of

from triage.engine.records import replay_steps
from triage.engine.summary import DECIDED_BY, decided_by
from triage.engine.vocabulary import KIND
from triage.web.review import tie_break


def critical_deck(count: int = 12) -> list[dict[str, Any]]:
    return [
        {"id": f"X{n}", "kind": "critical", "healing": 4, "credits": 2, "vp": 3} for n in range(1, count + 1)
    ]


def play_solo_to_the_end_by_passing(client: TestClient, table_id: str, token: str) -> None:
    for _ in range(100):
        view = client.get(f"/api/tables/{table_id}/view", headers=auth(token)).json()
        if view["phase"] == "over":
            return
        me = view["players"][0]
        if me["pending"]:
            free = [int(space) for space, slot in me["hospital"].items() if slot is None]
            action = (
                {"type": "admit", "card": me["pending"][0], "space": free[0]}
                if free
                else {"type": "reject", "card": me["pending"][0]}
            )
        else:
            action = {"type": "pass"}
        assert (
            client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action).status_code
            == 200
        )
    raise AssertionError("the game did not end")


def test_final_summary_counts_the_dead_by_kind_and_the_replay_steps_through_the_record(
    client: TestClient,
) -> None:
    created = create(client, players=1, seed=8, deck=critical_deck())
    table_id, token = created["table_id"], tokens_of(created)[0]
    assert client.get(f"/api/tables/{table_id}/final").json()["code"] == "not_over"  # 409 while it runs
    assert client.get(f"/api/tables/{table_id}/replay?step=0").status_code == 409
    play_solo_to_the_end_by_passing(client, table_id, token)

    final = client.get(f"/api/tables/{table_id}/final").json()
    (row,) = final["players"]
    # Two critical patients die each round (C2) until QoC is 0 or below (R4): 3 rounds.
    assert final["rounds"] == 3 and row["dead"] == {"critical": 6} and row["cured"] == {}
    assert row["quality"] == 10 - 6 * 2 and row["score"] == row["vp"] + row["quality"]
    assert final["tie_break"] is None and final["solo_tier"] is None  # a loss earns no tier

    record = client.get(f"/api/tables/{table_id}/record").json()
    steps = len(record["actions"])
    first = client.get(f"/api/tables/{table_id}/replay?step=0").json()
    assert first["steps"] == steps and first["action"] is None and first["state"]["round"] == 1
    one = client.get(f"/api/tables/{table_id}/replay?step=1").json()
    assert one["action"] == record["actions"][0]
    assert [e["type"] for e in one["events"]] == ["admitted"]
    # Each event with its words and phase heading: players by name, "You" for the seat asking.
    card, space = record["actions"][0]["do"]["card"], record["actions"][0]["do"]["space"]
    assert one["events"][0]["text"] == f"Player 1 admits {card} to space {space}"
    assert one["events"][0]["phase"] == "Income and arrival"
    mine = client.get(f"/api/tables/{table_id}/replay?step=1&seat=0").json()
    assert mine["events"][0]["text"] == f"You admit {card} to space {space}"
    assert client.get(f"/api/tables/{table_id}/replay?step=1&seat=1").json()["code"] == "invalid_request"
    last = client.get(f"/api/tables/{table_id}/replay?step={steps}").json()
    assert last["state"]["phase"] == "over"
    assert client.get(f"/api/tables/{table_id}/replay?step={steps + 1}").status_code == 422


def test_final_summary_of_a_bot_table_matches_the_players_tracks(client: TestClient) -> None:
    created = create(client, players=2, bots=["greedy", "random"], seed=3)
    for _ in range(400):  # bots play on the server between requests
        if client.get(f"/api/tables/{created['table_id']}").json()["over"]:
            break
        time.sleep(0.05)
    final = client.get(f"/api/tables/{created['table_id']}/final").json()
    for row in final["players"]:
        assert sum(row["cured"].values()) == row["treated"]  # T4: one step of the track per cure
        assert row["bot"] in ("greedy", "random")
    assert final["tie_break"] in (None, "treated", "credits", "tie")
    assert final["decided_by"] == DECIDED_BY[final["tie_break"]]  # the page shows the server's words (R4)


def test_tie_break_names_what_decided() -> None:
    from triage.engine import Game

    game = Game.new(players=2, seed=1)
    first, second = game.players
    first.vp, second.vp = 5, 3
    assert tie_break(game) is None
    second.vp = 5
    first.treated, second.treated = 2, 1
    assert tie_break(game) == "treated"
    second.treated = 2
    second.credits = first.credits + 1
    assert tie_break(game) == "credits"
    second.credits = first.credits
    assert tie_break(game) == "tie"
    assert decided_by(game) == "A full tie: same score, treated track and Credits."


def test_a_finished_games_replay_words_each_check_whole(client: TestClient) -> None:
    """Once the game is over everything is public: a replay step words a check (C3) with the
    kind it showed, for every reader, and sends no secret part."""
    created = create(
        client, players=2, bots=["greedy", "greedy"], seed=3
    )  # no random bot: the same game whatever the table id
    table_id = created["table_id"]
    # The bots play in the service's threads: wait for the game's end itself (a loaded machine
    # once took longer than a fixed 20 s), with a bound only against a game that never ends.
    for _ in range(12_000):
        if client.get(f"/api/tables/{table_id}").json()["over"]:
            break
        time.sleep(0.05)
    record = client.get(f"/api/tables/{table_id}/record").json()
    assert client.get(f"/api/tables/{table_id}").json()["over"], "the bots' game did not end"
    step, check = next(
        (number, event)
        for number, (_, events, _) in enumerate(replay_steps(record))
        for event in events
        if event["type"] == "checked"
    )
    answer = client.get(f"/api/tables/{table_id}/replay?step={step}").json()
    (worded,) = [
        event for event in answer["events"] if event["type"] == "checked" and event["card"] == check["card"]
    ]
    assert "secret" not in worded and worded["phase"] == "Cleanup"
    assert worded["text"].endswith(f"({KIND[check['secret']['kind']].label})"), worded["text"]
    assert worded["text"].startswith(("Quick bot 1's", "Quick bot 2's"))  # players by name
