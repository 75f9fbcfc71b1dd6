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
    """Every module ``path`` imports, relative imports resolved within the package; an optional
    import (in a ``try`` whose ``except ImportError`` imports the same names from elsewhere)
    counts as its fallback only, since the module runs without it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    optional = {id(node) for node in _optional_imports(tree)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _optional_imports(tree: ast.AST) -> list[ast.stmt]:
    """The imports of ``try`` blocks that fall back, on ImportError, to importing the same names."""
    found: list[ast.stmt] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        for handler in node.handlers:
            caught = handler.type
            if not (isinstance(caught, ast.Name) and caught.id in ("ImportError", "ModuleNotFoundError")):
                continue
            fallback = {
                alias.asname or alias.name
                for stmt in handler.body
                if isinstance(stmt, ast.ImportFrom)
                for alias in stmt.names
            }
            tried = [stmt for stmt in node.body if isinstance(stmt, ast.ImportFrom)]
            if tried and all(
                {alias.asname or alias.name for alias in stmt.names} <= fallback for stmt in tried
            ):
                found.extend(tried)
    return found


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


def test_an_optional_import_counts_as_its_fallback_alone() -> None:
    source = (
        "try:\n    from typing_extensions import TypedDict\n"
        "except ImportError:\n    from typing import TypedDict\n"
    )
    assert [stmt.module for stmt in _optional_imports(ast.parse(source))] == ["typing_extensions"]
    without = "try:\n    from typing_extensions import TypedDict\nexcept ImportError:\n    pass\n"
    assert _optional_imports(ast.parse(without)) == []


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


def project_classes() -> dict[tuple[str, str], tuple[int, list[tuple[str, str]]]]:
    """Every class of the package by (module, name): its lines and its bases that are classes
    of the package, resolved through the module's own definitions and ``from`` imports."""
    found: dict[tuple[str, str], tuple[int, list[str]]] = {}
    imports: dict[str, dict[str, str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = imports.setdefault(module, {})
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("triage"):
                names.update({alias.asname or alias.name: node.module for alias in node.names})
            elif isinstance(node, ast.ClassDef):
                bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
                found[module, node.name] = (node.end_lineno - node.lineno + 1, bases)  # type: ignore[operator]
    resolved = {}
    for (module, name), (lines, bases) in found.items():
        chain = []
        for base in bases:
            home = module if (module, base) in found else imports[module].get(base)
            if home is not None and (home, base) in found:
                chain.append((home, base))
        resolved[module, name] = (lines, chain)
    return resolved


def with_bases(
    key: tuple[str, str], classes: dict[tuple[str, str], tuple[int, list[tuple[str, str]]]]
) -> int:
    """A class's lines and those of every project class it inherits from, each counted once."""
    seen, todo = set(), [key]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(classes[current][1])
    return sum(classes[current][0] for current in seen)


def test_no_object_passes_500_lines_with_its_bases_and_no_function_80() -> None:
    """Issue 38: an object is its class and the project's classes it inherits from; none passes
    500 lines, and no function passes 80."""
    classes = project_classes()
    too_big = [(f"class {module}:{name}", with_bases((module, name), classes)) for module, name in classes]
    too_big = [(name, lines) for name, lines in too_big if lines > 500]
    too_big += [
        (name, lines)
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in sizes(path)
        if name.startswith("function") and lines > 80
    ]
    assert too_big == []


def test_the_game_is_a_position_record_and_its_rules_are_functions() -> None:
    """Issue 38: the rule sections are functions over the position, not a chain of mixins."""
    classes = project_classes()
    assert classes["triage.engine.game", "Game"][1] == [("triage.engine.position", "Position")]
    assert classes["triage.engine.position", "Position"][1] == []
    for section in ("memory", "arrival", "treatment", "cleanup", "flow"):
        assert not [name for module, name in classes if module == f"triage.engine.{section}"], section
