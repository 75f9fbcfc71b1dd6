"""A real ``triage serve`` process on 127.0.0.1 for the tests that need one (browser, restart)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerProcess:
    """``triage serve`` in a child process, storing its tables in a SQLite file."""

    def __init__(self, db_path: Path) -> None:
        self.db_url = f"sqlite:///{db_path}"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        command = [
            sys.executable, "-c", "from triage.cli import main; main()",
            "serve", "--port", str(self.port), "--db", self.db_url, "--log-level", "warning",
        ]
        self.process = subprocess.Popen(command, env=dict(os.environ), stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"triage serve exited with status {self.process.returncode}")
            try:
                if httpx.get(f"{self.url}/api/bots", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("triage serve did not answer within 30 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
