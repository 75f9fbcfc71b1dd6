"""The page's types are the server's: generated from the OpenAPI schema, checked by ``tsc``
(issue 38, point 4)."""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_web_page_forecast import tsc_command

from triage.web.app import create_app
from triage.web.pagetypes import TYPES_FILE, current_types, page_types

JS = TYPES_FILE.parent
TSC_FLAGS = ["--noEmit", "--allowJs", "--checkJs", "--strict", "--target", "es2022", "--module", "es2022"]
TSC_FLAGS += ["--lib", "es2022,dom,dom.iterable"]


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return create_app("sqlite:///:memory:").openapi()


def test_the_page_types_are_the_schemas() -> None:
    assert TYPES_FILE.read_text() == current_types(), "run: python -m triage.web.pagetypes"


def test_the_game_documents_are_in_the_schema(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    for shape in (
        "View",
        "Choice",
        "Event",
        "Forecast",
        "Record",
        "TableMessage",
        "LobbyMessage",
        "LiveMessage",
    ):
        assert components[shape]["type"] == "object", shape
    paths = schema["paths"]
    view = paths["/api/tables/{table_id}/view"]["get"]["responses"]["200"]["content"]["application/json"]
    assert view["schema"] == {"$ref": "#/components/schemas/SeatView"}


def test_the_page_names_no_open_record() -> None:
    for module in sorted(JS.glob("*.js")):
        assert "Record<string, any>" not in module.read_text(), module.name


def test_a_field_the_server_renames_fails_the_page_type_check(schema: dict[str, Any], tmp_path: Path) -> None:
    """The check that makes the types worth having: rename a field of the view the page reads
    (``round``, drawn in the bar) and ``tsc`` refuses the page, naming it."""
    command = tsc_command()
    if command is None:
        pytest.skip("TypeScript's tsc is not installed (set TRIAGE_TSC to its path)")
    renamed = copy.deepcopy(schema)
    view = renamed["components"]["schemas"]["View"]
    view["properties"]["round_number"] = view["properties"].pop("round")
    view["required"] = ["round_number" if name == "round" else name for name in view.get("required", [])]
    for module in JS.glob("*.js"):
        shutil.copy(module, tmp_path / module.name)
    (tmp_path / TYPES_FILE.name).write_text(page_types(renamed))
    modules = sorted(str(path) for path in tmp_path.glob("*.js"))
    done = subprocess.run(
        [*command, *TSC_FLAGS, *modules], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode != 0
    assert re.search(r"Property 'round' does not exist on type", done.stdout), done.stdout
