"""Running an event loop from a test, on a thread of its own.

pytest-playwright's session-wide Playwright keeps an asyncio loop running on the main thread
of any test process that has run a browser test. Under pytest-xdist a worker may run browser
tests and then these, and `asyncio.run` / `anyio.run` refuse to start inside a running loop.
A fresh thread has no loop, so each test's loop starts there, whatever ran before it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def on_own_thread(run: Callable[..., T], *args: Any) -> T:
    """``run(*args)`` (e.g. ``asyncio.run, coroutine``) on a new thread; its result or its
    exception."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run, *args).result()
