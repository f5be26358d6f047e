"""`python -m app` (what `make serve` runs): serve the station on the configured address."""

from __future__ import annotations

import socket

import uvicorn

from app.config import get_settings, worker_count
from app.edge.protocol import MAX_HEAD, PROTOCOL

EVERY_INTERFACE = ("0.0.0.0", "::")


def addresses(host: str, port: int) -> list[str]:
    """The URLs to open: with every interface bound, this machine's own and its LAN one."""
    if host not in EVERY_INTERFACE:
        return [f"http://{host}:{port}/"]
    urls = [f"http://127.0.0.1:{port}/"]
    try:
        # Connecting a UDP socket sends nothing; it only asks the kernel which local
        # address would route outward, i.e. the one the class can reach.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            lan = s.getsockname()[0]
        if lan and not lan.startswith("127."):
            urls.append(f"http://{lan}:{port}/")
    except OSError:
        pass  # no network at all: the local address is all there is
    return urls


def main() -> None:
    settings = get_settings()
    urls = " or ".join(addresses(settings.host, settings.port))
    workers = worker_count(settings)
    print(f"Station 08 · Speculative decoding: {urls} ({workers} workers)", flush=True)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        log_level="info",
        # A request head past 16 KiB is answered 414/431 rather than reset; a head not
        # complete in 10 s, or a whole request in 15 s, is closed; each worker holds at most
        # 512 connections (app/edge/protocol.py).
        http=PROTOCOL,
        h11_max_incomplete_event_size=MAX_HEAD,
        # One process per core: a render holds the GIL, so threads cannot share the work.
        # Every worker builds its own caches from the same pure functions.
        workers=workers,
    )


if __name__ == "__main__":
    main()
