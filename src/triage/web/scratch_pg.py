"""A throwaway PostgreSQL cluster (initdb into a temporary folder, 127.0.0.1, a free port) that the
caller may stop and start again (SIGSTOP, SIGCONT), touching no other server: what the
stopped-database test and ``python -m triage.web.stress_loop frozen`` run against.

As root the cluster runs as the ``postgres`` user (PostgreSQL refuses root), through ``runuser``.
:func:`missing` says why a cluster cannot be made here (None when it can).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

from triage.web.loadtest import free_port


def server_programs() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: Debian's newest, else the one on the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(Path(path).parent.name))
    if found:
        return Path(found[-1])
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _owner() -> str | None:
    """The user the cluster runs as: ``postgres`` for root, else the caller (None)."""
    return "postgres" if os.geteuid() == 0 else None


def missing() -> str | None:
    """Why no throwaway cluster can be made here, or None."""
    if server_programs() is None:
        return "PostgreSQL's server programs (initdb, pg_ctl) are missing: scripts/test installs them as root"
    if _owner() is not None:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a 'postgres' user to run a PostgreSQL cluster"
        if shutil.which("runuser") is None:
            return "running as root without runuser to start PostgreSQL as 'postgres'"
    return None


@dataclass
class Cluster:
    """A running throwaway cluster: its SQLAlchemy URL and its folder."""

    url: str
    folder: Path

    def processes(self) -> list[psutil.Process]:
        """The postmaster and every process it started (the cluster)."""
        pid = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        postmaster = psutil.Process(pid)
        return [postmaster, *postmaster.children(recursive=True)]

    def stop_answering(self) -> None:
        """SIGSTOP the whole cluster: connections stay open, nothing answers (a frozen host)."""
        for process in self.processes():
            process.send_signal(signal.SIGSTOP)

    def answer_again(self) -> None:
        for process in self.processes():
            process.send_signal(signal.SIGCONT)


def _run(*command: str) -> None:
    owner = _owner()
    prefix = ["runuser", "-u", owner, "--"] if owner else []
    subprocess.run([*prefix, *command], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A new cluster for the block, stopped and removed after it (``RuntimeError`` saying why
    when none can be made: :func:`missing`)."""
    reason = missing()
    programs = server_programs()
    if reason is not None or programs is None:
        raise RuntimeError(reason)
    folder = Path(tempfile.mkdtemp(prefix="triage-scratch-pg-"))
    owner = _owner()
    if owner:
        shutil.chown(folder, owner)
    data, port = folder / "data", free_port()
    try:
        _run(str(programs / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
        options = f"-k {folder} -c listen_addresses=127.0.0.1 -p {port}"
        _run(
            str(programs / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w", "-o", options, "start"
        )
        cluster = Cluster(f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", folder)
        try:
            yield cluster
        finally:
            try:
                cluster.answer_again()
            except (OSError, psutil.Error, ValueError):
                pass
            _run(str(programs / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
