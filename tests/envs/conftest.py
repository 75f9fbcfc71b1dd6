"""What every research-adapter test shares."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _sb3_logs_in_the_test_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Stable-Baselines3 makes a log folder in the system's temporary directory at every
    ``learn()`` unless ``SB3_LOGDIR`` names one: keep it in the test's own directory, which pytest
    cleans up, instead of leaving a folder per test run in /tmp."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))
