"""The real server for the HTTP benchmarks (bench/http.py, bench/classes.py), as `make serve`
runs it: uvicorn with the `app.main:create_app` factory, the station's protocol
(`app.edge.protocol.UVICORN_FLAGS`), no access log, on a free loopback port."""

from __future__ import annotations

import http.client
import socket
import statistics
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import IO

from app.edge.protocol import UVICORN_FLAGS

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"  # loopback only


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start_server(
    port: int, workers: int, *, log: IO[bytes] | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """uvicorn as `make serve` runs it (app/__main__.py), with ``workers`` processes; its
    output goes to ``log`` (nowhere when None), its environment is ``env`` (ours when None)."""
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "app.main:create_app", "--host", HOST]
    cmd += ["--port", str(port), "--log-level", "warning", "--no-access-log"]
    cmd += ["--workers", str(workers), *UVICORN_FLAGS]
    out = subprocess.DEVNULL if log is None else log
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_healthy(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> bool:
    """Whether /healthz answered 200 before ``timeout`` seconds (or the server exited)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with closing(http.client.HTTPConnection(HOST, port, timeout=2)) as conn:
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def stop_server(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Stop the server: SIGTERM (uvicorn's graceful shutdown), then SIGKILL past ``timeout``."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def pct(xs: list[float], q: int) -> float:
    """The q-th percentile (inclusive method)."""
    return statistics.quantiles(xs, n=100, method="inclusive")[q - 1]
