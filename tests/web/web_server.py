"""A real ``triage serve`` process on 127.0.0.1 for the tests that need one (browser, restart)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

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
