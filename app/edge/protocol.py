"""uvicorn's h11 protocol with the two limits a server bound for a classroom needs.

uvicorn (h11) answers a request head past h11's buffer (16 KiB) with a 400 and closes
at once, with the rest of the request unread, so the kernel resets the connection and the
client sees no answer at all (a 1 MB query: "connection reset"). And it has no timeout for a
request head: a connection that never finishes its headers is held for ever (150 of them
were never closed). This protocol, `--http app.edge.protocol:StationProtocol`:

- answers a request line past the limit with 414 URI Too Long and headers past it with 431
  Request Header Fields Too Large (h11's own hint), with the security headers, then stops
  sending and reads what is still coming for a moment before closing (a lingering close), so
  the client reads the answer instead of a reset;
- closes a connection whose request head is not complete `HEAD_TIMEOUT` seconds after it
  opened (or after its previous answer): 408 Request Timeout when part of a head came, a
  plain close when nothing did;
- turns Nagle's algorithm off on every connection. With `--workers N` uvicorn binds the
  listening socket itself with ``proto`` 0, and asyncio sets TCP_NODELAY only on sockets
  that report IPPROTO_TCP (encode/uvicorn#3149): each keep-alive answer then waited on the
  client's delayed ACK, ~44 ms for a /healthz that takes 1 ms (bench/http.py, 2 workers).

The protocol subclasses uvicorn's `H11Protocol` and reaches into it (its h11 connection, its
error answer, its keep-alive timer), which uvicorn does not promise to keep between minor
versions: pyproject.toml pins uvicorn to `UVICORN_TESTED`, and tests/app/edge/test_protocol_pin.py
fails on any other version, so an upgrade is a deliberate change with this file read again.

The station's longest address is ~3 KB (app/contract/bounds.py); `MAX_HEAD` (uvicorn's
`h11_max_incomplete_event_size`, set by `python -m app`) leaves room for any browser's
headers beside it.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from app.edge.security import security_headers

UVICORN_TESTED = "0.55"  # the uvicorn minor version this subclass is written against
MAX_HEAD = 16 * 1024  # bytes of request line and headers (h11's default, stated)
MAX_TARGET = 8 * 1024  # bytes of the address (path and query) in the request line
HEAD_TIMEOUT = 10.0  # seconds a request head may take to arrive
LINGER = 2.0  # seconds a refused request may go on sending before the connection closes

# How every server of the station runs it (`python -m app`, the browser tests, bench/http.py):
# uvicorn's keyword arguments, and the same as command-line flags.
PROTOCOL = "app.edge.protocol:StationProtocol"
UVICORN = {"http": PROTOCOL, "h11_max_incomplete_event_size": MAX_HEAD}
UVICORN_FLAGS = [f"--{k.replace('_', '-')}={v}" for k, v in UVICORN.items()]

_REASONS = {408: "Request Timeout", 414: "URI Too Long", 431: "Request Header Fields Too Large"}
_SAYS = {
    408: "The request's headers did not arrive in time.",
    414: "The address is too long: no address of the station is longer than a few kilobytes.",
    431: "The request's headers are too large.",
}


def error_answer(status: int) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, with the security headers."""
    body = (_SAYS.get(status, "Invalid HTTP request.") + "\n").encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *security_headers("'none'"),
    ]
    reason = _REASONS.get(status, "Bad Request").encode()
    head = b"HTTP/1.1 %d %s\r\n" % (status, reason)
    return head + b"".join(k + b": " + v + b"\r\n" for k, v in headers) + b"\r\n" + body


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
    head_timeout = HEAD_TIMEOUT
    linger = LINGER

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
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_started = False  # a byte of the coming request head has arrived
        self._line_ended = False  # its request line is complete
        self._refused = False  # answered with an error: what still comes is read and dropped

    # --- the head's deadline -----------------------------------------------------------------

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_started = self._line_ended = False
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self._head_started:
            self._refuse(408)
        else:
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        no_delay(transport)
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self._refused:
            self._arm_head_timer()  # the next request's head, on a kept-alive connection

    # --- reading ----------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # a lingering close: read and drop
        if self.conn.their_state is h11.IDLE and data:
            self._head_started = True
            self._line_ended = self._line_ended or b"\n" in data
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._cancel_head_timer()  # the head is complete (or refused)

    def send_400_response(self, msg: str) -> None:
        status = self.conn.error_status
        if status == 431 and not self._line_ended and self.conn.their_state is h11.ERROR:
            status = 414  # the request line alone is past the limit: the address
        self._refuse(status)

    def _refuse(self, status: int) -> None:
        """Answer, stop sending, and close once the client stops (or after `linger`)."""
        self._cancel_head_timer()
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
