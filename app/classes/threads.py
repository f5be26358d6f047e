"""The class routes' own threads, so a stuck class store cannot take the station down with it.

FastAPI runs a synchronous endpoint on anyio's default thread pool (40 threads), which the
station's own synchronous routes and its static files share. A class store that accepts a
connection and then says nothing would hold one of those threads per waiting class request:
a room's worth of polling projectors and learners could take all forty, and the station's
pages and stylesheets would wait behind them. So every synchronous class endpoint runs on a
limiter of its own (`CLASS_THREADS` per worker process): when those are all held, further
class requests wait for them, and nothing else does. The store fails fast besides
(app/classes/database.py), so the wait is seconds, not minutes.

`on_class_threads(Route)` is the route class for a class router: it leaves an async endpoint
as it is and wraps a synchronous one; an async endpoint hands its blocking part to `run`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from anyio import CapacityLimiter, to_thread
from fastapi.routing import APIRoute

CLASS_THREADS = 16  # per worker: twice the PostgreSQL pool's writers and readers together

# One limiter per event loop: a worker runs one loop; tests run many, one after another.
_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)

R = TypeVar("R", bound=type[APIRoute])
T = TypeVar("T")


def limiter() -> CapacityLimiter:
    """The running loop's class limiter, made on first use."""
    loop = asyncio.get_running_loop()
    found = _limiters.get(loop)
    if found is None:
        found = _limiters[loop] = CapacityLimiter(CLASS_THREADS)
    return found


async def run(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` on the class threads: what an async class route hands off (a form's
    answer, once the form is read on the loop)."""
    return await to_thread.run_sync(functools.partial(work, *args), limiter=limiter())


def on_own_threads(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` as an async function that runs it on the class limiter's threads, with
    the same signature (FastAPI reads its parameters through ``__wrapped__``)."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint

    @functools.wraps(endpoint)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return await to_thread.run_sync(
            functools.partial(endpoint, *args, **kwargs), limiter=limiter()
        )

    return run


def on_class_threads(route: R) -> R:
    """A subclass of ``route`` whose synchronous endpoints run on the class threads."""

    class OnClassThreads(route):  # type: ignore[valid-type,misc]
        def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
            super().__init__(path, on_own_threads(endpoint), **kwargs)

    OnClassThreads.__name__ = OnClassThreads.__qualname__ = f"{route.__name__}OnClassThreads"
    return OnClassThreads  # type: ignore[return-value]
