"""Benchmark: how long a table takes to show in the browser (the page's first render).

Run it by hand (it is not a test)::

    PYTHONPATH=src python3 tests/web/bench_first_render.py --tables 20

It starts ``triage serve`` on a free port of 127.0.0.1, creates tables against a bot (some
played a few rounds in, so the log and the board are full), and opens each in a fresh tab of
Debian's Chromium at phone width. "First render" is the time from the start of navigation to
the page's ``triage-first-render`` mark: the HTML, script and style loaded, the WebSocket
opened, the seat's position received and the whole table drawn. The reference, measured in the
same run and the same way, is the load of the static rules page (no script, no data): the
ratio says what the table costs beyond fetching a page.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_helpers import CHROMIUM, CHROMIUM_ARGS, PHONE, create, pass_round
from playwright.sync_api import sync_playwright
from web_server import ServerProcess


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20, help="tables to open (default 20)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds played before opening a table (default 3)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="triage-bench-"))
    server = ServerProcess(folder / "tables.db").start()
    try:
        tables = []
        for index in range(args.tables):
            table_id, tokens = create(server, players=2, bots=[None, "greedy"])
            for _ in range(args.rounds if index % 2 else 0):
                pass_round(server, table_id, tokens)
            tables.append((table_id, tokens[0]))
        renders: list[float] = []
        references: list[float] = []
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(folder / "profile"),
                executable_path=str(CHROMIUM),
                args=CHROMIUM_ARGS,
                headless=True,
                viewport=PHONE,
            )
            setup = context.new_page()
            setup.goto(server.url + "/static/rules.html")
            for table_id, token in tables:
                setup.evaluate(
                    "([key, value]) => localStorage.setItem(key, value)",
                    [f"triage.seat.{table_id}", json.dumps({"seat": 0, "token": token})],
                )
            for table_id, _ in tables:
                reference = context.new_page()
                reference.goto(server.url + "/static/rules.html", wait_until="load")
                references.append(
                    reference.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
                )
                reference.close()
                tab = context.new_page()
                tab.goto(f"{server.url}/#/t/{table_id}")
                tab.wait_for_function("performance.getEntriesByName('triage-first-render').length > 0")
                renders.append(
                    tab.evaluate("performance.getEntriesByName('triage-first-render')[0].startTime")
                )
                tab.close()
            context.close()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    result = {
        "tables": len(renders),
        "first_render_ms": {
            "median": statistics.median(renders),
            "p90": percentile(renders, 0.9),
            "max": max(renders),
        },
        "reference_static_page_ms": {"median": statistics.median(references)},
        "ratio_median": statistics.median(renders) / statistics.median(references),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"tables opened: {result['tables']}")
    fr = result["first_render_ms"]
    print(
        f"first render of a table: median {fr['median']:.0f} ms, p90 {fr['p90']:.0f} ms, max {fr['max']:.0f} ms"
    )
    print(f"reference (static rules page load): median {result['reference_static_page_ms']['median']:.0f} ms")
    print(f"ratio table / reference: {result['ratio_median']:.2f}")


if __name__ == "__main__":
    main()
