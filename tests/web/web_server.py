"""A real ``triage serve`` process on 127.0.0.1 for the tests that need one (browser, restart)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from triage.web.loadtest import free_port, start_server


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
        self.process = start_server(self.db_url, self.port)
        return self

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


def serve(db_path: Path, *options: str) -> tuple[subprocess.Popen[bytes], str]:
    """``triage serve`` with ``options`` on a free port of 127.0.0.1, once it answers: the process
    and its URL (the caller stops it)."""
    port = free_port()
    command = [sys.executable, "-c", "from triage.cli import main; main()", "serve", "--port", str(port)]
    command += ["--db", f"sqlite:///{db_path}", "--log-level", "warning", *options]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"triage serve exited with status {process.returncode}")
        try:
            if httpx.get(f"{url}/api/bots", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("triage serve did not answer within 30 s")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
