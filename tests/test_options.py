"""The options every game-starting command shares (``--config``, ``--deck``, ``--set``), read in
one module below the commands."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import typer

import triage
from triage.engine import DataError
from triage.options import game_settings, load_settings

PACKAGE = Path(triage.__file__).parent


def test_later_settings_add_to_earlier_ones_in_the_same_table() -> None:
    config, deck = load_settings(None, None, ["market.staff.price=5", "market.staff.limit=2", "rounds=3"])
    assert config.market["staff"].price == 5 and config.market["staff"].limit == 2
    assert config.rounds == 3 and deck is None
    assert config.market["healing"] == load_settings(None, None, [])[0].market["healing"]


def test_bad_settings_name_what_was_wrong(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(DataError, match="--set 'rounds': expected key=value"):
        load_settings(None, None, ["rounds"])
    with pytest.raises(typer.Exit) as stopped:
        game_settings(None, None, ["rounds=0"])
    assert stopped.value.exit_code == 2
    assert "triage: config: rounds must be a whole number" in capsys.readouterr().err
    with pytest.raises(DataError, match="missing.toml"):
        load_settings(None, tmp_path / "missing.toml", [])


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_module_imports_the_command_line_it_is_registered_on() -> None:
    """``triage.cli`` sits on top: the shells' commands register on it and must not import it
    back (the cycle there was through the shared option parsing)."""
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.name not in ("cli.py", "__main__.py") and "triage.cli" in _imported_modules(path)
    ]
    assert offenders == []
    shells = ("triage.cli", "triage.play", "triage.sim", "triage.web")
    assert not [name for name in _imported_modules(PACKAGE / "options.py") if name.startswith(shells)]
