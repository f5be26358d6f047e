"""uvicorn's h11 protocol with the limits a server bound for a classroom needs.

uvicorn (h11) answers a request head past h11's buffer (16 KiB) with a 400 and closes
at once, with the rest of the request unread, so the kernel resets the connection and the
client sees no answer at all (a 1 MB query: "connection reset"). It has no timeout for a
request head or body: a connection that never finishes its headers, or its body, is held for
ever. And it takes every connection offered. This protocol,
`--http app.edge.protocol:StationProtocol`:

- answers a request line past the limit with 414 URI Too Long and headers past it with 431
  Request Header Fields Too Large (h11's own hint), with the security headers, then stops
  sending and reads what is still coming for a moment before closing (a lingering close), so
  the client reads the answer instead of a reset;
- closes a connection whose request head is not complete `HEAD_TIMEOUT` seconds after it
  opened (or after its previous answer): 408 Request Timeout when part of a head came, a
  plain close when nothing did;
- closes a connection whose whole request, head and body, is not complete `REQUEST_TIMEOUT`
  seconds after the same moment, however steadily its bytes trickle in: 408 while the app
  has not begun its answer (its `receive()` gets `http.disconnect`), a plain close after;
- holds at most `MAX_CONNECTIONS` connections per worker process: one past the cap gets a
  503 with `Retry-After` and is closed at once;
- logs a client that goes away in the middle of its request as one line, not a traceback;
- turns Nagle's algorithm off on every connection. With `--workers N` uvicorn binds the
  listening socket itself with ``proto`` 0, and asyncio sets TCP_NODELAY only on sockets
  that report IPPROTO_TCP (encode/uvicorn#3149): each keep-alive answer then waited on the
  client's delayed ACK, ~44 ms for a /healthz that takes 1 ms (bench/http.py, 2 workers).

The protocol subclasses uvicorn's `H11Protocol` and reaches into it (its h11 connection, its
request cycle, its error answer, its keep-alive timer), which uvicorn does not promise to keep
between minor versions: pyproject.toml pins uvicorn to `UVICORN_TESTED`, and
tests/app/edge/test_protocol_pin.py fails on any other version, so an upgrade is a deliberate
change with this file read again.

The station's longest address is ~3 KB (app/contract/bounds.py); `MAX_HEAD` (uvicorn's
`h11_max_incomplete_event_size`, set by `python -m app`) leaves room for any browser's
headers beside it. Its largest body is a form of a few hundred bytes, so `REQUEST_TIMEOUT`
is generous for any learner's Wi-Fi.
"""

from __future__ import annotations

import asyncio
import math
import socket
import time
from typing import Any, ClassVar

import h11
from starlette.requests import ClientDisconnect
from uvicorn._types import ASGIReceiveCallable, ASGISendCallable, Scope
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from app.edge.security import security_headers

UVICORN_TESTED = "0.55"  # the uvicorn minor version this subclass is written against
MAX_HEAD = 16 * 1024  # bytes of request line and headers (h11's default, stated)
MAX_TARGET = 8 * 1024  # bytes of the address (path and query) in the request line
HEAD_TIMEOUT = 10.0  # seconds a request head may take to arrive
REQUEST_TIMEOUT = 15.0  # seconds a whole request, head and body, may take to arrive
LINGER = 2.0  # seconds a refused request may go on sending before the connection closes
MAX_CONNECTIONS = 512  # open connections one worker process holds (at most half its fds)
RETRY_AFTER = 5  # seconds a connection refused at the cap is asked to wait
CAP_LOG_EVERY = 10.0  # seconds between two log lines about connections refused at the cap

# How every server of the station runs it (`python -m app`, the browser tests, bench/http.py):
# uvicorn's keyword arguments, and the same as command-line flags.
PROTOCOL = "app.edge.protocol:StationProtocol"
UVICORN = {"http": PROTOCOL, "h11_max_incomplete_event_size": MAX_HEAD}
UVICORN_FLAGS = [f"--{k.replace('_', '-')}={v}" for k, v in UVICORN.items()]

_REASONS = {
    408: "Request Timeout",
    414: "URI Too Long",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}
_SAYS = {
    408: "The request did not arrive in time.",
    414: "The address is too long: no address of the station is longer than a few kilobytes.",
    431: "The request's headers are too large.",
    503: "The station has too many open connections: try again in a few seconds.",
}


def error_answer(status: int, extra: list[tuple[bytes, bytes]] | None = None) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, with the security headers."""
    body = (_SAYS.get(status, "Invalid HTTP request.") + "\n").encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *(extra or []),
        *security_headers("'none'"),
    ]
    reason = _REASONS.get(status, "Bad Request").encode()
    head = b"HTTP/1.1 %d %s\r\n" % (status, reason)
    return head + b"".join(k + b": " + v + b"\r\n" for k, v in headers) + b"\r\n" + body


BUSY_ANSWER = error_answer(503, [(b"retry-after", str(RETRY_AFTER).encode())])


def connection_cap() -> int:
    """`MAX_CONNECTIONS`, or half of the process's descriptor limit where that is lower (a
    Mac's default is 256): the other half is left for files, databases and the listener."""
    try:
        import resource
    except ImportError:  # no such limit to read (Windows)
        return MAX_CONNECTIONS
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft // 2))


class _Connection(h11.Connection):
    """h11's connection, remembering the status its last protocol error suggested.

    h11 holds its limit only against a head still incomplete: a head that arrives whole in
    one read is parsed whatever its size. So the parsed head is measured here too.
    """

    error_status = 400

    def __init__(self, max_head: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head)
        self.max_head = max_head

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            self.error_status = exc.error_status_hint
            raise
        if isinstance(event, h11.Request):
            size = len(event.target) + sum(len(k) + len(v) + 4 for k, v in event.headers)
            if len(event.target) > MAX_TARGET:
                self.error_status = 414
            elif size > self.max_head:
                self.error_status = 431
            else:
                return event
            raise h11.RemoteProtocolError("request head too long", self.error_status)
        return event


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Send each answer at once (see above); a Unix socket has no Nagle to turn off."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class StationProtocol(H11Protocol):
    """One connection. The counters are the process's: every connection of a worker shares
    them, so the cap holds per worker.

    uvicorn's own `--limit-concurrency` is not this cap: it counts requests in progress and
    answers 503 only once a request's head has arrived. A connection that sends nothing, or
    half a head, is no request, yet it holds a file descriptor; enough of them and `accept()`
    fails for every learner (EMFILE). The cap counts connections, idle ones included.
    """

    head_timeout = HEAD_TIMEOUT
    request_timeout = REQUEST_TIMEOUT
    linger = LINGER
    max_connections = connection_cap()
    open_connections: ClassVar[int] = 0  # this process's connections within the cap
    _cap_refused: ClassVar[int] = 0  # connections refused at the cap since the last log line
    _cap_logged: ClassVar[float] = -math.inf  # when that line was written (monotonic)

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        size = config.h11_max_incomplete_event_size or MAX_HEAD
        self.conn: _Connection = _Connection(size)
        self._app = self.app
        self.app = self._run_app
        self._head_timer: asyncio.TimerHandle | None = None
        self._request_timer: asyncio.TimerHandle | None = None
        self._head_started = False  # a byte of the coming request head has arrived
        self._line_ended = False  # its request line is complete
        self._refused = False  # answered with an error: what still comes is read and dropped
        self._expired = False  # closed at a deadline: the app's disconnect is expected
        self._counted = False  # held within the cap (released when the connection is lost)

    # --- the cap ----------------------------------------------------------------------------

    def _over_cap(self) -> bool:
        if StationProtocol.open_connections < self.max_connections:
            StationProtocol.open_connections += 1
            self._counted = True
            return False
        StationProtocol._cap_refused += 1
        now = time.monotonic()
        if now - StationProtocol._cap_logged >= CAP_LOG_EVERY:
            self.logger.warning(
                "Refused %d connection(s): %d are open, the cap",
                StationProtocol._cap_refused,
                StationProtocol.open_connections,
            )
            StationProtocol._cap_refused, StationProtocol._cap_logged = 0, now
        return True

    def _release(self) -> None:
        if self._counted:
            self._counted = False
            StationProtocol.open_connections -= 1

    # --- the deadlines ----------------------------------------------------------------------

    def _arm_timers(self) -> None:
        self._cancel_timers()
        self._head_started = self._line_ended = False
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)
        self._request_timer = self.loop.call_later(self.request_timeout, self._request_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _cancel_timers(self) -> None:
        self._cancel_head_timer()
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._head_expired()

    def _head_expired(self) -> None:
        if self._head_started:
            self._refuse(408)
        else:
            self.transport.close()

    def _request_timed_out(self) -> None:
        """The request's time is up: a head not yet complete is treated as at the head's
        deadline; a body still coming ends the request. A trickle of bytes never moves it."""
        self._request_timer = None
        if self.transport.is_closing() or self._refused:
            return
        if self.conn.their_state is h11.IDLE:
            self._head_expired()
        elif self.conn.their_state is h11.SEND_BODY:
            self._body_expired()

    def _body_expired(self) -> None:
        """The app's pending `receive()` gets `http.disconnect` and its `send()` does nothing
        from here on (uvicorn's cycle, marked disconnected, as when the client goes away), so
        no answer of the app's is mixed into the 408 and nothing is logged when it ends."""
        self._expired = True
        cycle = self.cycle
        answering = cycle is not None and cycle.response_started
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        if answering:
            self.logger.warning("Closed a connection: its request's body did not arrive in time")
            self.transport.close()
        else:
            self._refuse(408)

    # --- the connection ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if self._over_cap():
            self.transport = transport
            transport.write(BUSY_ANSWER)
            transport.close()  # nothing is read and nothing held: the descriptor goes now
            return
        no_delay(transport)
        super().connection_made(transport)
        self._arm_timers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        if not self._counted:
            return  # refused at the cap: uvicorn never saw it
        self._release()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._cancel_timers()
        self._release()  # the websocket protocol takes the transport, and its end
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        # The next request's deadlines run from here (before uvicorn reads a pipelined one);
        # a body of this request still coming counts against them.
        if not self.transport.is_closing() and not self._refused:
            self._arm_timers()
        super().on_response_complete()

    async def _run_app(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        """The app, with a client that went away mid-request (Starlette's `ClientDisconnect`
        while it reads the body) logged as one line instead of uvicorn's traceback."""
        try:
            await self._app(scope, receive, send)
        except ClientDisconnect:
            if not self._expired:  # a deadline has logged its own line
                method, path = scope.get("method", ""), str(scope.get("path", ""))[:200]
                self.logger.info("A client went away mid-request: %s %r", method, path)

    # --- reading ----------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # a lingering close: read and drop
        if self.conn.their_state is h11.IDLE and data:
            self._head_started = True
            self._line_ended = self._line_ended or b"\n" in data
        super().data_received(data)
        state = self.conn.their_state
        if state is not h11.IDLE:
            self._cancel_head_timer()  # the head is complete (or refused)
            if state is not h11.SEND_BODY:
                self._cancel_timers()  # the whole request is here: the app's turn

    def send_400_response(self, msg: str) -> None:
        status = self.conn.error_status
        if status == 431 and not self._line_ended and self.conn.their_state is h11.ERROR:
            status = 414  # the request line alone is past the limit: the address
        self._refuse(status)

    def _refuse(self, status: int) -> None:
        """Answer, stop sending, and close once the client stops (or after `linger`)."""
        self._cancel_timers()
        self._refused = True
        self.logger.warning("Refused a request: %d %s", status, _REASONS.get(status, ""))
        self.transport.write(error_answer(status))
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(self.linger, self.transport.close)
        else:
            self.transport.close()

    def eof_received(self) -> None:
        if self._refused:
            self.transport.close()  # the client has sent everything and read the answer
