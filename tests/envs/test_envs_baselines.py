"""Issue 42 point 2: the published baselines stay true. The greedy references printed in
docs/research.md are re-measured on the same deals (a few seconds), and the one command that
re-measures everything rewrites the page's tables."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def _baselines() -> ModuleType:
    sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location("examples_baselines", EXAMPLES / "baselines.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_greedy_references_in_the_docs_are_greedys_current_scores() -> None:
    """Fails when the rules, the configuration or the greedy bot moved the line the baselines are
    measured against: re-run examples/baselines.py."""
    baselines = _baselines()
    table = re.search(
        r"<!-- references -->\n(.*?)<!-- /references -->", DOCS.read_text(encoding="utf-8"), re.S
    )
    assert table is not None
    rows = baselines.measure_references(quick=False)
    assert table.group(1) == "\n".join([baselines.REFERENCES_HEAD, *rows]) + "\n"


def test_the_command_rewrites_both_tables(tmp_path: Path) -> None:
    docs = tmp_path / "research.md"
    shutil.copy(DOCS, docs)
    result = _baselines().main(["--quick", "--only", "cfr_duel", "--out", str(tmp_path), "--docs", str(docs)])
    text = docs.read_text(encoding="utf-8")
    assert result["rows"][0].startswith("| CFR on duel | 2 iterations") and result["rows"][0] in text
    assert all(row in text for row in result["references"]) and "(10000-10002)" in text
