"""When the garbage collector runs: between requests, over what the last request made.

CPython starts a young collection when *allocations minus deallocations* pass a threshold.
A server whose LRU caches are full breaks that rule: every new state allocates a trace and
a rendered page, and evicting the oldest state frees about as many, so the count stays low
while the young list behind it grows. In a 3 000-request slider run (bench/http.py's pattern)
the young and middle generations reached 100 000 objects and one collection over them
paused an answer for 40-70 ms; with a larger young threshold it was 7-11 ms every few dozen
answers instead.

So this middleware collects on the request's behalf once its response has been sent: the
young generation (what this request made that is still alive, about 1 000 objects after a
new slider position, ~0.3 ms) after every request, and after ten of those the middle one
(~1-2 ms). The learner has their answer already; only a request arriving in that window
waits. Full collections stay with CPython's own rule (rare: it waits for the long-lived
objects to grow by a quarter), and start-up's objects are frozen out of them (app/main.py).
"""

from __future__ import annotations

import gc

from starlette.types import ASGIApp, Receive, Scope, Send

MIDDLE_EVERY = 10  # young collections per middle-generation collection (CPython's default)


class CollectBetweenRequests:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            if scope["type"] == "http":
                collect_young()


def collect_young() -> None:
    """Collect the young generation, or the middle one once ten young ones have run since."""
    gc.collect(1 if gc.get_count()[1] >= MIDDLE_EVERY else 0)
