"""docs/architecture.md holds against the code: the engine imports no shell and no third-party
package, every rule id of the map's table is carried by the modules it names, and the rooms stay
small (no class over 500 lines, no function over 80)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "triage"
ENGINE = PACKAGE / "engine"
MAP = REPO / "docs" / "architecture.md"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved within the package."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_engine_imports_only_itself_and_the_standard_library() -> None:
    outside = {}
    for path in sorted(ENGINE.glob("*.py")):
        for name in imported(path):
            top = name.split(".")[0]
            if name.startswith("triage.") and not name.startswith("triage.engine"):
                outside[path.name] = name
            elif top != "triage" and top not in sys.stdlib_module_names and top != "__future__":
                outside[path.name] = name
    assert outside == {}


def map_rows() -> list[tuple[list[str], list[str]]]:
    """The rule table of the map: (rule ids, module files) per row."""
    text = MAP.read_text(encoding="utf-8")
    table = text.split("## Where each rule id lives", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        if not line.startswith("| ") or line.startswith("| ids") or line.startswith("| ---"):
            continue
        ids_cell, modules_cell = line.strip("|").split("|", 1)
        ids = []
        for part in ids_cell.split(","):
            part = part.strip()
            span = re.fullmatch(r"([A-Z])(\d+)-[A-Z](\d+)", part)
            if span:
                ids += [f"{span[1]}{number}" for number in range(int(span[2]), int(span[3]) + 1)]
            else:
                ids.append(part)
        modules = re.findall(r"`([a-z_]+\.py)`", modules_cell)
        rows.append((ids, modules))
    return rows


def test_the_map_names_every_rule_id_once() -> None:
    from tests.test_scenarios import RULE_IDS  # the rules.md id list the scenarios cover

    named = [rule for ids, _ in map_rows() for rule in ids]
    assert sorted(named) == sorted(RULE_IDS)


@pytest.mark.parametrize(("ids", "modules"), map_rows())
def test_each_rule_id_is_in_the_modules_the_map_names(ids: list[str], modules: list[str]) -> None:
    assert modules, f"no module named for {ids}"
    for module in modules:
        text = (ENGINE / module).read_text(encoding="utf-8")
        missing = [rule for rule in ids if not re.search(rf"\b{rule}\b", text)]
        assert not missing or len(modules) > 1, f"{module} never mentions {missing}"
    for rule in ids:
        assert any(
            re.search(rf"\b{rule}\b", (ENGINE / module).read_text(encoding="utf-8")) for module in modules
        )


def sizes(path: Path) -> list[tuple[str, int]]:
    """(kind name, lines) of every class and function in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            found.append((f"{kind} {path.relative_to(PACKAGE)}:{node.name}", node.end_lineno - start + 1))  # type: ignore[operator]
    return found


def test_no_class_passes_500_lines_and_no_function_80() -> None:
    too_big = [
        (name, lines)
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in sizes(path)
        if lines > (500 if name.startswith("class") else 80)
    ]
    assert too_big == []
