"""How this project runs Debian's chromium and a live station, shared by the browser tests
(tests/browser/conftest.py, test_frames.py) and the README's screenshot
(scripts/screenshot.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = "/usr/bin/chromium"
# Headless, sandbox-less (root in CI), and nothing that would reach off this machine.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# The server is handed a socket that is already listening, so a request made before uvicorn
# has started simply waits in the kernel's accept queue: no polling, no sleeps.
SERVE = """
import socket, sys, uvicorn
from app.edge.protocol import UVICORN
sock = socket.socket(fileno=int(sys.argv[1]))
config = uvicorn.Config("app.main:create_app", factory=True, log_level="warning", **UVICORN)
uvicorn.Server(config).run(sockets=[sock])
"""


@contextmanager
def live_station(env: dict[str, str], log: Path | None = None) -> Iterator[str]:
    """The station in its own process with this environment, on a free loopback port: its
    URL, once /healthz has answered; the process is stopped when the block ends. Its output
    goes to ``log`` (else nowhere), which a failed start quotes."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    host, port = sock.getsockname()
    url = f"http://{host}:{port}"
    with open(log or os.devnull, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(sock.fileno())],
            cwd=ROOT,
            env=env,
            pass_fds=[sock.fileno()],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    sock.close()  # the child holds its own copy
    try:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=60) as r:
                assert r.status == 200, f"/healthz answered {r.status}"
        except OSError as exc:
            said = log.read_text() if log else "(no log kept)"
            raise RuntimeError(f"the live station did not start:\n{said}") from exc
        yield url
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
