"""The test's own throwaway PostgreSQL cluster (:mod:`triage.web.scratch_pg`), skipped with the
reason where none can be made (``scripts/test`` installs PostgreSQL as root)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from triage.web.scratch_pg import Cluster, missing
from triage.web.scratch_pg import throwaway_cluster as _cluster

__all__ = ["Cluster", "throwaway_cluster"]


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with _cluster() as cluster:
        yield cluster
