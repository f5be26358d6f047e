"""How this project runs Debian's chromium and a live station, shared by the browser tests
(tests/browser/conftest.py) and the README's screenshot (scripts/screenshot.py)."""

from __future__ import annotations

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
