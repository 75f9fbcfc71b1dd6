"""The HTTP API: tables, seats and tokens, actions and their error codes, records, bots."""

from __future__ import annotations

from fastapi.testclient import TestClient
from web_helpers import auth, create, legal_actions, play_random, service_of, summary_when_over, tokens_of

from triage.engine import Game, view
from triage.engine.choices import action_choices
from triage.engine.forecast import forecast
from triage.engine.records import replay


def test_create_returns_a_token_for_each_human_seat_only(client: TestClient) -> None:
    created = create(client, players=3, bots=[None, "random", None], seed=4)
    assert [entry["seat"] for entry in created["seats"]] == [0, 2]
    assert len({entry["token"] for entry in created["seats"]}) == 2
    summary = client.get(f"/api/tables/{created['table_id']}").json()
    assert [seat["bot"] for seat in summary["seats"]] == [None, "random", None]


def test_bad_table_requests_name_what_is_wrong(client: TestClient) -> None:
    cases = [
        ({"players": 5}, "players"),
        ({"players": 2, "bots": [None]}, "one entry per seat"),
        ({"players": 2, "bots": [None, "nobody"]}, "unknown bot 'nobody'"),
        ({"players": 2, "config": {"rounds": 0}}, "rounds"),
        ({"players": 2, "config": {"rounds": {"5": 3}}}, "rounds"),
        ({"players": 2, "seed": -1}, "seed"),
        ({"players": 2, "colour": "red"}, "colour"),
    ]
    for body, fragment in cases:
        response = client.post("/api/tables", json=body)
        assert response.status_code == 422, body
        error = response.json()
        assert set(error) >= {"code", "message"}, error
        assert fragment in error["message"], (body, error)


def test_the_view_and_legal_actions_are_the_seats_own(client: TestClient) -> None:
    created = create(client, players=2, seed=11)
    table_id, tokens = created["table_id"], tokens_of(created)
    game = Game.new(players=2, seed=11)
    for seat in (0, 1):
        got = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[seat])).json()
        assert got.pop("actions") == 0  # the action number, for idempotent actions
        # The seat to decide is told how far it may undo (issue 20); the other seat is told nothing.
        expected_undo = {"steps": 0, "reason": "nothing of yours to take back this turn", "rule": None}
        assert got.pop("undo") == (expected_undo if seat == game.turn else None)
        assert got == view(game, seat)
        legal = client.get(f"/api/tables/{table_id}/legal", headers=auth(tokens[seat])).json()
        choices = action_choices(game, seat)
        # The engine's forecast of each choice comes from the seat's view alone.
        assert legal == {"actions": 0, "choices": choices, "forecast": forecast(view(game, seat), choices)}
        assert legal_actions(client, table_id, tokens[seat]) == game.legal_actions(seat)
    # R1: it is seat 0's decision first, so seat 1 has no legal action.
    assert client.get(f"/api/tables/{table_id}/legal", headers=auth(tokens[1])).json()["choices"] == []


def test_the_spectators_view_carries_the_action_number_of_every_other_channel(client: TestClient) -> None:
    """``GET /public`` answers the spectators' view with ``actions``, the same number as the
    table's facts and the spectators' WebSocket messages carry, so that a client can line the
    channels up (issue 40, point 5). Like them it stops at the sealed point: a seat's actions it
    may still undo are not in it."""
    from triage.engine import spectator_view
    from triage.web.sealing import visible_game

    created = create(client, players=2, bots=[None, "greedy"], seed=5)
    table_id, token = created["table_id"], tokens_of(created)[0]
    live = service_of(client).get(table_id)
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as spectator:
        spectator.send_json({"spectate": True})
        public = client.get(f"/api/tables/{table_id}/public").json()
        assert public.pop("actions") == spectator.receive_json()["actions"] == 0
        for _ in range(8):
            public = client.get(f"/api/tables/{table_id}/public").json()
            shown = visible_game(live, None)
            assert (
                public.pop("actions")
                == len(shown.history)
                == client.get(f"/api/tables/{table_id}").json()["actions"]
            )
            assert public == spectator_view(shown)
            action = legal_actions(client, table_id, token)[0]
            client.post(
                f"/api/tables/{table_id}/actions", headers=auth(token), json=action
            ).raise_for_status()
        assert len(visible_game(live, None).history) > 0  # the table moved on: the numbers grew


def test_a_table_plays_its_own_player_counts_rounds(client: TestClient) -> None:
    """R1: rounds by player count; the seat's view shows the table's own count's."""
    created = create(client, players=2, seed=3, config={"rounds": {"2": 3, "4": 9}})
    seen = client.get(f"/api/tables/{created['table_id']}/view", headers=auth(tokens_of(created)[0])).json()
    assert seen["config"]["rounds"] == 3


def test_a_table_sells_at_its_own_player_counts_prices(client: TestClient) -> None:
    """T8: an item's price by player count; the seat's view shows the table's own count's."""
    for players, price in ((2, 6), (4, 4)):
        created = create(client, players=players, seed=3, config={"market": {"staff": {"price": {"4": 4}}}})
        seen = client.get(
            f"/api/tables/{created['table_id']}/view", headers=auth(tokens_of(created)[0])
        ).json()
        assert seen["config"]["market"]["staff"]["price"] == price


def test_missing_or_wrong_tokens_are_refused_on_every_seat_request(client: TestClient) -> None:
    created = create(client, players=2, seed=1)
    table_id = created["table_id"]
    other = create(client, players=2, seed=1)
    foreign = tokens_of(other)[0]
    requests = [
        ("GET", f"/api/tables/{table_id}/view", None),
        ("GET", f"/api/tables/{table_id}/legal", None),
        ("POST", f"/api/tables/{table_id}/actions", {"type": "pass"}),
    ]
    for method, path, body in requests:
        missing = client.request(method, path, json=body)
        assert missing.status_code == 401 and missing.json()["code"] == "unauthorized"
        malformed = client.request(method, path, json=body, headers={"Authorization": "Token abc"})
        assert malformed.status_code == 401
        for token in ("not-a-token", foreign):
            wrong = client.request(method, path, json=body, headers=auth(token))
            assert wrong.status_code == 403 and wrong.json()["code"] == "forbidden", (path, token)
    wrong_record = client.get(f"/api/tables/{table_id}/record", headers=auth(foreign))
    assert wrong_record.status_code == 403


def test_nobody_can_act_for_another_seat(client: TestClient) -> None:
    created = create(client, players=2, seed=3)
    table_id, tokens = created["table_id"], tokens_of(created)
    seat0_action = legal_actions(client, table_id, tokens[0])[0]
    # Seat 1's token sends seat 0's legal action: it acts as seat 1, whose decision it is not (R1).
    refused = client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[1]), json=seat0_action)
    assert refused.status_code == 409
    assert refused.json()["code"] == "not_your_turn"
    # The body cannot name another seat either: 'player' is no field of an action.
    spoofed = client.post(
        f"/api/tables/{table_id}/actions", headers=auth(tokens[1]), json={**seat0_action, "player": 0}
    )
    assert spoofed.status_code == 422 and spoofed.json()["code"] == "invalid_action"
    assert service_of(client).get(table_id).game.history == []


def test_refused_actions_use_the_error_codes_and_change_nothing(client: TestClient) -> None:
    created = create(client, players=2, seed=5)
    table_id, tokens = created["table_id"], tokens_of(created)
    before = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json()
    cases = [
        ({"type": "fly"}, 422, "invalid_action"),
        ([1, 2], 422, "invalid_action"),
        ({"type": "heal", "patient": "P01", "amount": 1}, 409, "wrong_phase"),
        ({"type": "admit", "card": "P99", "space": 1}, 422, "unknown_patient"),
        ({"type": "helicopter", "remove": None, "draw_all": False}, 422, "empty_helicopter"),
    ]
    for action, status, code in cases:
        response = client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=action)
        assert (response.status_code, response.json()["code"]) == (status, code), (action, response.json())
        assert response.json()["message"]
    after = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json()
    assert after == before


def test_an_accepted_action_returns_the_seats_events(client: TestClient) -> None:
    created = create(client, players=2, seed=9)
    table_id, tokens = created["table_id"], tokens_of(created)
    action = legal_actions(client, table_id, tokens[0])[0]
    response = client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=action)
    assert response.status_code == 200
    body = response.json()
    assert body["number"] == 0
    assert body["events"][0] == {
        "type": "admitted",
        "player": 0,
        "card": action["card"],
        "space": action["space"],
    }


def test_bots_move_on_the_server_until_a_human_must_decide(client: TestClient) -> None:
    created = create(client, players=2, bots=["random", None], seed=2)
    table_id, tokens = created["table_id"], tokens_of(created)
    game = service_of(client).get(table_id).game
    assert game.turn == 1 and game.history and all(entry["by"] == 0 for entry in game.history)
    assert legal_actions(client, table_id, tokens[1])


def test_a_table_of_bots_plays_to_the_end(client: TestClient) -> None:
    created = create(client, players=3, bots=["random"] * 3, seed=6)
    assert created["seats"] == []
    summary = summary_when_over(client.get, f"/api/tables/{created['table_id']}")
    assert summary["over"] and summary["phase"] == "over"


def test_the_record_is_filtered_until_the_game_is_over(client: TestClient) -> None:
    created = create(client, players=2, seed=8)
    table_id, tokens = created["table_id"], tokens_of(created)
    play_random(client, table_id, tokens, steps=10)
    running = client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[0])).json()
    assert "seed" not in running and "deck" not in running
    assert running["viewer"] == 0 and len(running["actions"]) == 10
    spectator = client.get(f"/api/tables/{table_id}/record").json()
    assert "seed" not in spectator and "deck" not in spectator and spectator["viewer"] is None
    play_random(client, table_id, tokens, steps=10_000)
    final = client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[0])).json()
    assert final["seed"] == 8
    assert replay(final).scores() == client.get(f"/api/tables/{table_id}").json()["scores"]


def test_unknown_tables_are_404_with_a_code(client: TestClient) -> None:
    response = client.get("/api/tables/nope/view", headers=auth("x"))
    assert response.status_code == 404 and response.json()["code"] == "unknown_table"


def test_the_openapi_document_describes_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/tables",
        "/api/tables/{table_id}/view",
        "/api/tables/{table_id}/legal",
        "/api/tables/{table_id}/actions",
        "/api/tables/{table_id}/record",
        "/api/tables/{table_id}/join",
    ):
        assert path in paths
    assert "post" in paths["/api/tables"] and "post" in paths["/api/tables/{table_id}/actions"]


def test_the_page_is_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "Play solo against a bot" in page.text
    assert client.get("/static/js/main.js").status_code == 200


def test_tables_let_go_of_from_memory_are_replayed_when_asked_for(client: TestClient) -> None:
    service = service_of(client)
    service.max_live = 2
    first = create(client, players=2, bots=[None, "random"], seed=17)
    table_id, tokens = first["table_id"], tokens_of(first)
    play_random(client, table_id, tokens, steps=8)
    expected = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json()
    create(client, players=1, seed=1)
    create(client, players=1, seed=2)
    assert table_id not in service.live
    assert client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json() == expected


def test_serve_refuses_a_bad_database_url_clearly() -> None:
    from typer.testing import CliRunner

    from triage.cli import app

    result = CliRunner().invoke(app, ["serve", "--db", "not a url"])
    assert result.exit_code == 2
    assert "--db 'not a url' is not a database URL" in result.output


def test_the_levels_are_offered_gentlest_first_with_the_terminal_games_names(client: TestClient) -> None:
    """One list of levels (triage.bots.PLAYER_LEVELS) for the web form and ``triage play``:
    gentlest first, each with its friendly label and how it plays; no balance-testing bot."""
    from triage.bots import player_levels

    levels = client.get("/api/levels").json()
    assert levels == player_levels()
    assert [level["name"] for level in levels][:3] == ["expert-novice", "expert-club", "expert"]
    assert sorted(level["name"] for level in levels) == client.get("/api/bots").json()
    assert all(level["label"] and level["description"] for level in levels)
