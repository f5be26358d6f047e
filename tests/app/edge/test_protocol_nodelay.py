"""Every connection sends its answers at once, also with several workers (encode/uvicorn#3149):
a socket accepted from a listener bound as uvicorn's supervisor binds it has Nagle on."""

from __future__ import annotations

import socket
from typing import Any

from app.edge.protocol import no_delay


class FakeTransport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, name: str) -> Any:
        return self.sock if name == "socket" else None


def _accepted_as_with_workers() -> tuple[socket.socket, socket.socket, socket.socket]:
    # proto 0, as uvicorn's Config.bind_socket() makes the listener for --workers N.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    return listener, client, accepted


def _nodelay(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_a_connection_gets_tcp_nodelay() -> None:
    listener, client, accepted = _accepted_as_with_workers()
    with listener, client, accepted:
        assert _nodelay(accepted) == 0  # the teeth: what asyncio leaves it as (proto 0)
        no_delay(FakeTransport(accepted))  # type: ignore[arg-type]
        assert _nodelay(accepted) != 0


def test_a_transport_without_a_tcp_socket_is_left_alone() -> None:
    a, b = socket.socketpair(socket.AF_UNIX)
    with a, b:
        no_delay(FakeTransport(a))  # type: ignore[arg-type]  # no TCP option to set: no error
    no_delay(FakeTransport(None))  # type: ignore[arg-type]
