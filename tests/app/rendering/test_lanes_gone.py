"""A request whose client left while it waited in a lane is dropped, not rendered.

Over a real uvicorn server (a disconnect is the server's to notice, so no in-process client
can stand in): one slow render holds the interactive lane, two more clients ask and hang up
while it runs, a fourth asks and waits. Only the first and the fourth are rendered. Then the
check itself (`disconnected`), against ASGI receives that would otherwise wait forever.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

import anyio
import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response

from app.config import AppSettings
from app.edge.protocol import UVICORN
from app.main import create_app
from app.rendering import pipeline as pipeline_module
from app.rendering.pipeline import Context, Env, Page, Pipeline, disconnected
from tests.loops import on_own_thread

# Seconds each render sleeps: the hang-ups must reach the server while the first one runs.
SLOW = 1.2


@dataclass
class Served:
    port: int
    built: list[int] = field(default_factory=list)


def _app(built: list[int]) -> FastAPI:
    app = create_app(settings=AppSettings())

    def build(env: Env, key: object, variant: object) -> Context:
        assert isinstance(key, int)
        built.append(key)
        time.sleep(SLOW)  # stands in for a never-seen state's numpy work
        return Context({"fields": [], "defaults": None})

    slow = Page("serving.html", build)  # the interactive lane, as a slider's answer

    @app.get("/test/slow/{n}")
    def answer(request: Request, n: int) -> Response:
        pipeline: Pipeline = request.app.state.pipeline
        return pipeline.respond(slow, n)

    return app


@pytest.fixture
def served() -> Iterator[Served]:
    built: list[int] = []
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    config = uvicorn.Config(_app(built), log_level="error", **UVICORN)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started, "the server did not start"
    yield Served(sock.getsockname()[1], built)
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


def _ask(port: int, n: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(f"GET /test/slow/{n} HTTP/1.1\r\nHost: station.test\r\n\r\n".encode())
    return s


def _status(s: socket.socket) -> bytes:
    with s:
        return s.recv(64).split(b"\r\n", 1)[0]


def _hang_ups_while_the_lane_is_busy(port: int) -> list[bytes]:
    first = _ask(port, 0)
    time.sleep(0.1)  # the first render is running
    for n in (1, 2):
        _ask(port, n).close()  # asks, then leaves before its turn
    time.sleep(0.1)
    last = _ask(port, 3)
    return [_status(last), _status(first)]


def test_a_request_whose_client_left_is_never_rendered(served: Served) -> None:
    statuses = _hang_ups_while_the_lane_is_busy(served.port)
    assert statuses == [b"HTTP/1.1 200 OK"] * 2
    assert served.built == [0, 3]


def test_teeth_without_the_check_the_lane_renders_for_nobody(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def never_gone(receive: object) -> bool:
        return False

    monkeypatch.setattr(pipeline_module, "disconnected", never_gone)
    statuses = _hang_ups_while_the_lane_is_busy(served.port)
    assert statuses == [b"HTTP/1.1 200 OK"] * 2
    # The two who left may reach the lane in any order, even after the fourth (a closed
    # connection can be accepted late on a loaded machine): wait for them, then check that
    # both were rendered for nobody.
    deadline = time.monotonic() + 4 * SLOW + 5
    while len(served.built) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert served.built[0] == 0 and sorted(served.built) == [0, 1, 2, 3]


# --- `disconnected` alone: it reads what is there and never waits ---------------------------


def _receive(*messages: dict[str, object]) -> Callable[[], Awaitable[dict[str, object]]]:
    """An ASGI receive that hands out ``messages`` and then waits forever, as a connection
    with nothing more to say does."""
    queue = list(messages)

    async def receive() -> dict[str, object]:
        if queue:
            return queue.pop(0)
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    return receive


BODY = {"type": "http.request", "body": b"", "more_body": False}
GONE = {"type": "http.disconnect"}


@pytest.mark.parametrize(
    ("messages", "gone"),
    [
        ((BODY,), False),  # a GET, its client still there: the next read would wait
        ((), False),  # the body already read (a form post): the first read would wait
        ((GONE,), True),  # the client left before its body was read
        ((BODY, GONE), True),  # the client left after
        (({**BODY, "more_body": True}, BODY, GONE), True),  # a body in parts, then gone
    ],
)
def test_disconnected_reads_only_what_the_connection_already_has(
    messages: tuple[dict[str, object], ...], gone: bool
) -> None:
    async def ask() -> bool:
        with anyio.fail_after(1):  # it must never wait: a wait is a failure here, not a hang
            return await disconnected(_receive(*messages))  # type: ignore[arg-type]

    assert on_own_thread(anyio.run, ask) is gone


def test_starlettes_own_check_misses_a_client_that_left_after_its_body() -> None:
    # Why the pipeline keeps its own `disconnected`: Starlette's `Request.is_disconnected`
    # reads one message, so a GET whose client left after its (empty) body is still there
    # to it, and the lane would render for nobody. Should Starlette read on, this fails and
    # the pipeline can ask it instead.
    from starlette.requests import Request

    async def ask() -> tuple[bool, bool]:
        with anyio.fail_after(1):
            request = Request({"type": "http", "method": "GET"}, _receive(BODY, GONE))  # type: ignore[arg-type]
            return await request.is_disconnected(), await disconnected(_receive(BODY, GONE))  # type: ignore[arg-type]

    assert on_own_thread(anyio.run, ask) == (False, True)
