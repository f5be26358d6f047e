"""The arena cap holds: threads that allocate share two glibc arenas instead of one each.

Each case runs in a fresh interpreter (a process's arenas cannot be undone), where sixteen
threads each allocate numpy rows (glibc's malloc, not Python's small-object allocator) and
wait for each other; glibc's own `malloc_info` then lists the arenas ("heaps") it made.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app.main as main
from app.edge import allocator

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """
import ctypes, ctypes.util, re, sys, tempfile, threading
import numpy as np
from app.edge.allocator import limit_arenas
if sys.argv[1] == "cap":
    assert limit_arenas()
barrier = threading.Barrier(16)
held = []
def work():
    rows = [np.ones(4096) for _ in range(64)]  # 32 kB each: malloc, under the mmap threshold
    barrier.wait()
    held.append(rows)
threads = [threading.Thread(target=work) for _ in range(16)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
with tempfile.NamedTemporaryFile(suffix=".xml") as f:
    fp = libc.fopen(f.name.encode(), b"w")
    libc.malloc_info(0, fp)
    libc.fclose(fp)
    print(len(re.findall(r'<heap nr="\\d+"', open(f.name).read())))
"""


def _arenas(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(done.stdout.strip())


needs_glibc = pytest.mark.skipif(
    allocator.glibc() is None, reason="not glibc: no arena cap to test"
)


@needs_glibc
def test_with_the_cap_sixteen_threads_share_two_arenas() -> None:
    assert _arenas("cap") <= 2


@needs_glibc
def test_teeth_without_the_cap_the_threads_make_arenas_of_their_own() -> None:
    assert _arenas("default") > 2


def test_the_station_caps_the_arenas_at_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(main, "limit_arenas", lambda arenas=allocator.ARENAS: calls.append(arenas))
    with TestClient(main.create_app()):
        assert calls == [allocator.ARENAS]  # at start-up, before any request
