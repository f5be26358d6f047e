"""The protocol's deadline for a whole request, its connection cap, and its one line for a
client gone mid-request, over real sockets against real uvicorn servers
(app/edge/protocol.py).

Three servers of the station run side by side, each in its own process with its log in a
file: one with the request's deadline shortened to `DEADLINE`, one with the cap lowered to
`CAP`, and uvicorn's own h11 protocol, the twin each limit is measured against.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 1.5  # the short server's request deadline, seconds
CAP = 4  # the capped server's connections
SLACK = 1.5  # seconds an answer may come after its deadline on a busy machine

SERVE = f"""
import socket, sys, uvicorn
from app.edge import protocol
kind, sock = sys.argv[1], socket.socket(fileno=int(sys.argv[2]))
http = protocol.StationProtocol
if kind == "short":
    protocol.StationProtocol.request_timeout = {DEADLINE}
elif kind == "capped":
    protocol.StationProtocol.max_connections = {CAP}
else:
    http = "h11"  # uvicorn's own protocol
config = uvicorn.Config("app.main:create_app", factory=True, http=http, log_level="info",
                        access_log=False, h11_max_incomplete_event_size=protocol.MAX_HEAD)
uvicorn.Server(config).run(sockets=[sock])
"""


@dataclass
class Server:
    port: int
    log: Path

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()

    def connect(self, timeout: float = 10) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)

    def post_head(self, length: int, close: bool = False) -> bytes:
        """The head of a same-origin form post the app reads the body of before answering;
        ``close`` asks the server to close the connection once it has answered."""
        origin = f"http://127.0.0.1:{self.port}"
        closing = "Connection: close\r\n" if close else ""
        return (
            f"POST /class/ABCDEF/host HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Origin: {origin}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {length}\r\n{closing}\r\n"
        ).encode()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    """The three servers, started at once; each is listening before its process starts, so
    a request waits in the kernel's queue until uvicorn has started."""
    root = tmp_path_factory.mktemp("servers")
    env = {**os.environ, "STATION08_DATA_DIR": str(root)}
    procs, found = [], {}
    for kind in ("short", "capped", "bare"):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        log = root / f"{kind}.log"
        with log.open("wb") as out:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", SERVE, kind, str(sock.fileno())],
                    cwd=ROOT,
                    env=env,
                    pass_fds=[sock.fileno()],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
        found[kind] = Server(sock.getsockname()[1], log)
        sock.close()
    try:
        for server in found.values():
            url = f"http://127.0.0.1:{server.port}/healthz"
            with urllib.request.urlopen(url, timeout=60) as r:
                assert r.status == 200, server.log.read_text()
        time.sleep(0.3)  # the probes' connections are released
        yield found
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=10)


def answer_within(s: socket.socket, seconds: float) -> bytes | None:
    """Everything the server sends until it closes, if it starts within ``seconds``; None
    when it sends nothing and keeps the connection open that long."""
    ready, _, _ = select.select([s], [], [], seconds)
    if not ready:
        return None
    s.settimeout(10)
    chunks = []
    while chunk := s.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def headers(answer: bytes) -> dict[bytes, bytes]:
    head = answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]
    return dict((k.lower(), v) for k, _, v in (line.partition(b": ") for line in head))


def new_lines(server: Server, before: int, settle: float = 0.5) -> list[str]:
    """The lines the server logs after the first ``before``, once none has come for
    ``settle`` seconds (at most 5 s)."""
    end, lines = time.monotonic() + 5, server.lines()
    while time.monotonic() < end:
        time.sleep(settle)
        now = server.lines()
        if len(now) == len(lines) and len(now) > before:
            break
        lines = now
    return server.lines()[before:]


def trickle(s: socket.socket, seconds: float) -> tuple[bytes, bool, int]:
    """Send one byte of body every 0.3 s for up to ``seconds``, reading meanwhile: what the
    server sent, whether it closed the connection, and how many bytes went before."""
    end, sent, got = time.monotonic() + seconds, 0, b""
    while time.monotonic() < end:
        ready, _, _ = select.select([s], [], [], 0.3)
        if ready:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return got, True, sent
            if not chunk:
                return got, True, sent
            got += chunk
            continue
        try:
            s.sendall(b"k")
        except OSError:  # closed while sending: read what it said
            return got + (answer_within(s, 1) or b""), True, sent
        sent += 1
    return got, False, sent


# --- the whole request's deadline ------------------------------------------------------------


def test_a_stalled_body_is_answered_408_by_the_deadline(servers: dict[str, Server]) -> None:
    short = servers["short"]
    before = len(short.lines())
    with short.connect() as s:
        start = time.monotonic()
        s.sendall(short.post_head(100) + b"key=ab")  # then nothing
        answer = answer_within(s, DEADLINE + SLACK)
        took = time.monotonic() - start
    assert answer is not None and answer.startswith(b"HTTP/1.1 408 "), answer
    assert DEADLINE - 0.1 < took < DEADLINE + SLACK
    assert headers(answer)[b"connection"] == b"close"
    assert headers(answer)[b"x-content-type-options"] == b"nosniff"
    assert b"content-security-policy" in headers(answer)
    logged = new_lines(short, before)
    assert len(logged) == 1 and "408" in logged[0], logged  # the app's end logs nothing


def test_uvicorn_alone_holds_a_stalled_body(servers: dict[str, Server]) -> None:
    """The twin: without the protocol, the same request is held past the deadline."""
    bare = servers["bare"]
    with bare.connect() as s:
        s.sendall(bare.post_head(100) + b"key=ab")
        assert answer_within(s, DEADLINE + SLACK) is None


def test_a_trickled_body_is_answered_408_although_bytes_keep_coming(
    servers: dict[str, Server],
) -> None:
    short = servers["short"]
    with short.connect() as s:
        start = time.monotonic()
        s.sendall(short.post_head(1000) + b"key=")
        answer, closed, sent = trickle(s, DEADLINE + SLACK)
        took = time.monotonic() - start
    assert closed and answer.startswith(b"HTTP/1.1 408 "), answer
    assert took < DEADLINE + SLACK
    assert sent >= 3  # a byte every 0.3 s until the end: none of them moved the deadline


def test_uvicorn_alone_takes_a_trickled_body_for_ever(servers: dict[str, Server]) -> None:
    bare = servers["bare"]
    with bare.connect() as s:
        s.sendall(bare.post_head(1000) + b"key=")
        answer, closed, sent = trickle(s, DEADLINE + SLACK)
    assert not closed and not answer and sent >= 8


def _answered_early(server: Server) -> tuple[bytes, bool, int]:
    """A post the app answers (405) without reading its body, whose body then trickles."""
    head = b"POST /station HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
    with server.connect() as s:
        s.sendall(head + b"k")
        return trickle(s, DEADLINE + SLACK)


def test_a_body_trickling_after_the_answer_is_cut_at_the_deadline(
    servers: dict[str, Server],
) -> None:
    """The app has answered: the deadline closes the connection without a 408 after it."""
    answer, closed, sent = _answered_early(servers["short"])
    assert closed and answer.startswith(b"HTTP/1.1 405 "), answer
    assert b"408" not in answer and sent >= 3


def test_uvicorn_alone_reads_a_trickle_after_the_answer_for_ever(
    servers: dict[str, Server],
) -> None:
    answer, closed, sent = _answered_early(servers["bare"])
    assert answer.startswith(b"HTTP/1.1 405 ") and not closed and sent >= 6


def test_a_whole_post_is_answered_by_the_app(servers: dict[str, Server]) -> None:
    """A post whose parts come apart, but whole within the deadline, is the app's to answer:
    a class that does not exist."""
    short = servers["short"]
    body = b"key=abc"
    with short.connect() as s:
        s.sendall(short.post_head(len(body), close=True))
        time.sleep(DEADLINE / 3)
        s.sendall(body[:3])
        time.sleep(DEADLINE / 3)
        s.sendall(body[3:])
        answer = answer_within(s, 10)
    assert answer is not None and answer.startswith(b"HTTP/1.1 404 "), answer


def _healthz(s: socket.socket) -> None:
    """Ask for /healthz and read its whole answer (by its length), leaving the connection open."""
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < int(
        headers(answer)[b"content-length"]
    ):
        chunk = s.recv(65536)
        assert chunk, answer  # not closed
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 "), answer


def test_a_kept_alive_request_gets_its_own_deadline(servers: dict[str, Server]) -> None:
    """The second request's deadline runs from the first answer, not from the connection."""
    short = servers["short"]
    with short.connect() as s:
        time.sleep(DEADLINE * 2 / 3)
        _healthz(s)
        answered = time.monotonic()
        s.sendall(short.post_head(100) + b"key=ab")  # then nothing
        answer = answer_within(s, DEADLINE + SLACK)
        took = time.monotonic() - answered
    assert answer is not None and answer.startswith(b"HTTP/1.1 408 "), answer
    assert DEADLINE - 0.1 < took < DEADLINE + SLACK  # not at the connection's first deadline


def test_a_kept_alive_request_after_the_first_deadline_is_served(
    servers: dict[str, Server],
) -> None:
    short = servers["short"]
    body = b"key=abc"
    with short.connect() as s:
        time.sleep(DEADLINE * 2 / 3)
        _healthz(s)
        time.sleep(DEADLINE * 2 / 3)  # past the connection's first deadline
        s.sendall(short.post_head(len(body), close=True) + body)
        answer = answer_within(s, 10)
    assert answer is not None and answer.startswith(b"HTTP/1.1 404 "), answer


# --- the connection cap ------------------------------------------------------------------------


def _idle_connections(server: Server, n: int) -> tuple[list[socket.socket], list[bytes]]:
    """Open ``n`` connections that send nothing: those held, and what the others were told."""
    opened = [server.connect() for _ in range(n)]
    held, told = [], []
    for s in opened:
        answer = answer_within(s, 0.5)
        if answer is None:
            held.append(s)
        else:
            told.append(answer)
            s.close()
    return held, told


def test_connections_past_the_cap_get_503_at_once(servers: dict[str, Server]) -> None:
    capped = servers["capped"]
    held, told = _idle_connections(capped, CAP + 3)
    try:
        assert len(held) == CAP and len(told) == 3
        for answer in told:
            assert answer.startswith(b"HTTP/1.1 503 "), answer
            assert headers(answer)[b"retry-after"] == b"5"
            assert headers(answer)[b"x-content-type-options"] == b"nosniff"
        for s in held[:2]:
            s.close()
        time.sleep(0.3)  # the server sees them go
        with capped.connect() as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            health = answer_within(s, 10)
        assert health is not None and health.startswith(b"HTTP/1.1 200 "), health
    finally:
        for s in held:
            s.close()


def test_uvicorn_alone_holds_every_idle_connection(servers: dict[str, Server]) -> None:
    held, told = _idle_connections(servers["bare"], CAP + 3)
    for s in held:
        s.close()
    assert len(held) == CAP + 3 and not told


# --- a client gone mid-request -------------------------------------------------------------


def _drop_mid_body(server: Server) -> list[str]:
    """Send a form post's head and part of its body, then close: the lines it logged."""
    before = len(server.lines())
    with server.connect() as s:
        s.sendall(server.post_head(100) + b"key=ab")
        time.sleep(0.3)  # the app is reading the body
    return new_lines(server, before)


def test_a_client_gone_mid_body_is_one_log_line(servers: dict[str, Server]) -> None:
    logged = _drop_mid_body(servers["short"])
    assert len(logged) == 1 and "went away" in logged[0], logged


def test_uvicorn_alone_logs_a_traceback_for_it(servers: dict[str, Server]) -> None:
    """The twin: the same drop, the log as uvicorn writes it (the log file is read for real)."""
    logged = _drop_mid_body(servers["bare"])
    assert len(logged) > 20 and any("Traceback" in line for line in logged), logged
