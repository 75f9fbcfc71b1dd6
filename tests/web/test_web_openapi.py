"""The API answers as its OpenAPI schema says (issue 22, point 7).

- schemathesis generates a bounded number of requests per operation against the app, on a
  running table, a finished one and unknown ones, with the server-error, status-code and
  response-schema checks: every status answered is declared, every body matches its schema;
- the declarations the issue named: ``/final`` and ``/replay`` declare their refusals, and a
  table request's ``config`` and ``deck`` are typed objects, not free-form ones;
- a 405 answer names in ``Allow`` every method of its path.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from web_helpers import auth, create, summary_when_over, tokens_of

from triage.web.app import create_app
from triage.web.limits import RateLimits

schemathesis = pytest.importorskip("schemathesis", reason="the test extra installs schemathesis")
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    response_schema_conformance,
    status_code_conformance,
)

UNLIMITED = "100000/second"
#: Generated requests per operation (12 operations: about 20 s in all on the development machine).
MAX_EXAMPLES = int(os.environ.get("TRIAGE_SCHEMATHESIS_EXAMPLES", "25"))
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]


class Tables:
    """The tables the generated requests are pointed at, in turn, with a seat's token or not."""

    def __init__(self, running: str, token: str, finished: str) -> None:
        self.choices = itertools.cycle(
            [(running, token), (finished, None), (running, None), ("no-such-table", None)]
        )

    def aim(self, case: Any) -> None:
        table, token = next(self.choices)
        case.path_parameters["table_id"] = table
        if token is not None and case.headers is not None and "authorization" in case.headers:
            case.headers["authorization"] = f"Bearer {token}"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    db = tmp_path_factory.mktemp("openapi") / "tables.db"
    return create_app(f"sqlite:///{db}", RateLimits(create=UNLIMITED, act=UNLIMITED))


@pytest.fixture(scope="module")
def tables(app: FastAPI) -> Tables:
    """A running two-seat table (with a seat's token) and a finished one-round bot game, made
    before the generated requests (the store keeps them for the schema's own client)."""
    with TestClient(app) as client:
        running = create(client, players=2, seed=3)
        finished = create(client, players=1, bots=["random"], seed=4, config={"rounds": 1})
        summary = summary_when_over(client.get, f"/api/tables/{finished['table_id']}")
        assert summary["over"], summary
    return Tables(running["table_id"], tokens_of(running)[0], finished["table_id"])


@pytest.fixture(scope="module")
def api_schema(app: FastAPI, tables: Tables) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_is_declared_and_matches_its_schema(case: Any, tables: Tables) -> None:
    if "table_id" in (case.path_parameters or {}):
        tables.aim(case)
    case.call_and_validate(checks=CHECKS)


# ---------------------------------------------------------------------- the declarations


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 't.db'}", RateLimits(create=UNLIMITED, act=UNLIMITED))
    with TestClient(app) as test_client:
        yield test_client


def declared(client: TestClient, path: str, method: str = "get") -> set[str]:
    return set(client.get("/openapi.json").json()["paths"][path][method]["responses"])


def test_review_routes_declare_their_refusals(client: TestClient) -> None:
    """Every 422 is the server's {code, message} body (a path it cannot read, a bad step)."""
    assert declared(client, "/api/tables/{table_id}/final") == {"200", "404", "409", "422", "503"}
    # A replay step's chat is read with a seat's token, or as a spectator (triage.web.chat).
    assert declared(client, "/api/tables/{table_id}/replay") == {
        "200",
        "401",
        "403",
        "404",
        "409",
        "422",
        "503",
    }
    running = create(client, players=1, seed=1)["table_id"]
    assert client.get(f"/api/tables/{running}/final").status_code == 409
    assert client.get("/api/tables/nothing/replay").status_code == 404
    assert client.get(f"/api/tables/{running}/replay", params={"step": "x"}).status_code == 422
    document = client.get("/openapi.json").json()
    for path in document["paths"].values():
        for operation in path.values():
            refused = operation["responses"].get("422")
            assert refused is None or refused["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorBody"
            }


def test_config_and_deck_are_typed_in_the_schema(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    models = document["components"]["schemas"]
    request = models["TableRequest"]["properties"]
    config_ref = next(part["$ref"] for part in request["config"]["anyOf"] if "$ref" in part)
    card_ref = next(part["items"]["$ref"] for part in request["deck"]["anyOf"] if "items" in part)
    config, card = models[config_ref.rsplit("/", 1)[1]], models[card_ref.rsplit("/", 1)[1]]
    assert config["additionalProperties"] is False and card["additionalProperties"] is False
    assert {"rounds", "arrivals", "market", "start", "income", "return_to"} <= set(config["properties"])
    rounds = config["properties"]["rounds"]["anyOf"]  # R1: one number, or a table by player count
    assert rounds[0] == {"type": "integer"}
    by_players = models[rounds[1]["$ref"].rsplit("/", 1)[1]]
    assert (
        set(by_players["properties"]) == {"1", "2", "3", "4"} and by_players["additionalProperties"] is False
    )
    assert card["required"] == ["id", "kind"]
    assert set(card["properties"]["kind"]["enum"]) == {
        "critical",
        "severe",
        "chronic",
        "non_severe",
        "terminal",
    }


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"config": {"rounds": None}}, "'rounds' may be left out but not null"),
        ({"config": {"market": {"helicopter": None}}}, "'helicopter' may be left out but not null"),
        ({"config": {"colour": "red"}}, "config.colour"),
        ({"deck": [{"id": "X", "kind": "alien"}]}, "deck.0.kind"),
    ],
)
def test_a_table_request_outside_the_schema_is_refused(
    client: TestClient, body: dict[str, Any], fragment: str
) -> None:
    response = client.post("/api/tables", json={"players": 1, **body})
    assert response.status_code == 422 and response.json()["code"] == "invalid_request", response.text
    assert fragment in response.json()["message"], response.text


def test_nullable_keys_and_typed_overrides_reach_the_engine(client: TestClient) -> None:
    config = {"quality_floor": None, "market": {"congress": {"limit": None}}, "return_to": {"died": "bottom"}}
    created = client.post("/api/tables", json={"players": 1, "seed": 2, "config": config})
    assert created.status_code == 201, created.text
    table = created.json()
    view = client.get(f"/api/tables/{table['table_id']}/view", headers=auth(tokens_of(table)[0]))
    assert view.status_code == 200


@pytest.mark.parametrize(
    "method, path, allow",
    [
        ("PUT", "/api/tables", "GET, POST"),
        ("DELETE", "/api/tables/abc/final", "GET"),
        ("GET", "/api/tables/abc/actions", "POST"),
    ],
)
def test_a_405_names_every_allowed_method(client: TestClient, method: str, path: str, allow: str) -> None:
    response = client.request(method, path)
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"
    assert response.headers["allow"] == allow


def test_the_config_schema_names_every_configuration_key() -> None:
    """A key the engine's configuration gains must be one the API can set (its schema is closed)."""
    from triage.engine.config import default_values
    from triage.web.schemas import ConfigOverrides

    assert set(ConfigOverrides.model_fields) == set(default_values())


def test_the_config_schema_s_tables_name_every_holding_item_and_income() -> None:
    """The start holdings (R3), market items (T8) and income (R2) of the closed schema follow the
    engine's lists, so none can be refused by the API while the engine accepts it."""
    from triage.engine.config import ITEM_KEYS, START_FIELDS, default_values
    from triage.web.schemas import HoldingsOverride, IncomeOverride, MarketItemOverride, TableRequest

    assert list(HoldingsOverride.model_fields) == list(START_FIELDS)
    assert tuple(MarketItemOverride.model_fields) == ITEM_KEYS
    assert set(IncomeOverride.model_fields) == set(default_values()["income"])
    # T8: the market is a table of items, the defaults' or a designer's, not one field per item.
    market = {name: {"price": 3} for name in default_values()["market"]}
    market["night_shift"] = {"price": 1, "limit": 2, "gives": {"healing": 2}}
    request = TableRequest.model_validate({"config": {"market": market}})
    assert request.config_overrides() == {"market": market}


def test_the_config_schema_takes_seat_credits_by_player_count() -> None:
    """R1: the API's seat_credits keys are the engine's player counts, as the engine reads them."""
    from triage.engine.config import SEAT_TABLE_COUNTS, default_values, make_config
    from triage.web.schemas import SeatTableOverride, TableRequest

    aliases = {field.alias for field in SeatTableOverride.model_fields.values()}
    assert aliases == {str(count) for count in SEAT_TABLE_COUNTS} == set(default_values()["seat_credits"])
    request = TableRequest.model_validate({"players": 3, "config": {"seat_credits": {"3": [0, 2, 0]}}})
    overrides = request.config_overrides()
    assert overrides == {"seat_credits": {"3": [0, 2, 0]}}
    assert make_config(overrides).start_credits(3, 1) == 2
