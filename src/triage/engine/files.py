"""Reading the project's data files, with errors that name the file and what went wrong."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Callable

from triage.engine.errors import DataError


def _read(
    path: str | Path, what: str, parse: Callable[[str], Any], errors: type[Exception], form: str
) -> Any:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"{path}: cannot read the {what} ({exc.strerror})") from exc
    try:
        return parse(text)
    except errors as exc:
        raise DataError(f"{path}: not valid {form} ({exc})") from exc


def read_toml(path: str | Path, what: str) -> Any:
    """The TOML document at ``path``; ``what`` names it in errors ("deck file", ...)."""
    return _read(path, what, tomllib.loads, tomllib.TOMLDecodeError, "TOML")


def read_json(path: str | Path, what: str) -> Any:
    """The JSON document at ``path``; ``what`` names it in errors ("record", ...)."""
    return _read(path, what, json.loads, json.JSONDecodeError, "JSON")
