"""The HTTP server under the app: uvicorn, with read deadlines for slow clients.

uvicorn closes an idle keep-alive connection, but it waits without end for a request's headers
and body: a client that trickles one byte now and then holds a connection (a file descriptor)
for ever, and some thousands of them exhaust the process's file limit. :class:`GuardedHttpTools`
is uvicorn's httptools protocol with two deadlines (docs/web.md, "Slow clients"):

- the **header deadline** runs from the connection's opening (or, on a kept-alive connection,
  from the next request's first byte) until the request's headers are complete;
- the **body deadline** runs from there until the whole body is received.

A request that misses one is answered 408 (when no answer has started) and its connection
closed. A WebSocket's upgrade ends the header deadline; its first-message window
(:mod:`triage.web.live`) takes over.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.supervisors import Multiprocess

from triage.web import DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT

TIMEOUT_ANSWER = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: %d\r\n\r\n%s"
)
TIMEOUT_BODY = b'{"code": "request_timeout", "message": "the request was not received in time"}'


#: CPython collects its youngest objects after 700 new ones, a few times per request here, and
#: with 500 tables in memory a full collection stops the event loop for 100-300 ms several times
#: a minute (docs/web.md, "CPU per action, second round"). Serving, a young collection waits
#: for 20,000.
YOUNG_COLLECTION_AFTER = 20_000


def settle_garbage_collector() -> None:
    """Set the serving process's collector: the objects of the loaded app (modules, routes,
    decks) are frozen out of every later collection, and young collections made rarer."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_AFTER, middle, old)


class ServerConfig(uvicorn.Config):
    """uvicorn's configuration plus the read deadlines (picklable: each worker process of
    ``--workers N`` receives it)."""

    def __init__(
        self,
        app: Any,
        *,
        header_timeout: float = DEFAULT_HEADER_TIMEOUT,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        **options: Any,
    ) -> None:
        super().__init__(app, http=GuardedHttpTools, **options)
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout

    def load(self) -> None:
        """Load the app (in each worker process), then settle the collector for serving."""
        super().load()
        settle_garbage_collector()


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol that closes a connection whose request is not received in
    time (the header deadline, then the body deadline)."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.header_timeout = float(getattr(config, "header_timeout", DEFAULT_HEADER_TIMEOUT))
        self.body_timeout = float(getattr(config, "body_timeout", DEFAULT_BODY_TIMEOUT))
        self.read_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self.read_deadline is None:
            self._arm(self.header_timeout)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):
            self._arm(self.body_timeout)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self.read_deadline = self.loop.call_later(seconds, self._read_timed_out)

    def _disarm(self) -> None:
        if self.read_deadline is not None:
            self.read_deadline.cancel()
            self.read_deadline = None

    def _read_timed_out(self) -> None:
        """The client was too slow: 408 if nothing was answered yet, then close."""
        self.read_deadline = None
        if self.transport.is_closing():
            return
        awaiting_headers = self.cycle is None or self.cycle.response_complete
        if awaiting_headers or not self.cycle.response_started:
            self.transport.write(TIMEOUT_ANSWER % (len(TIMEOUT_BODY), TIMEOUT_BODY))
        self.transport.close()


def run(config: ServerConfig) -> None:
    """Serve until stopped: one process, or ``config.workers`` processes on one socket (as
    ``uvicorn.run`` does, with the guarded protocol in each)."""
    server = uvicorn.Server(config)
    if config.workers > 1:
        Multiprocess(config, sockets=[config.bind_socket()]).run()
        return
    server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)
