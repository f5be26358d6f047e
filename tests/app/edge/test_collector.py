"""The collection schedule: what a request leaves alive is collected once it has answered.

Automatic collection is switched off inside each test, so what moves between generations
is the middleware's doing alone.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.edge.collector import MIDDLE_EVERY, CollectBetweenRequests
from app.main import create_app

KEPT: list[list[int]] = []  # what a "request" leaves alive, as a cache would


async def _app(scope: Scope, receive: Receive, send: Send) -> None:
    KEPT.append([len(KEPT)])  # one new container object that survives the request


async def _receive() -> Message:
    return {"type": "http.request"}


async def _send(message: Message) -> None:
    return None


def _call(app: ASGIApp, kind: str = "http") -> None:
    # In a thread of its own: Playwright's sync API may hold an event loop in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, app({"type": kind}, _receive, _send)).result()


def _generation_of(obj: object) -> int | None:
    for gen in range(3):
        if any(o is obj for o in gc.get_objects(generation=gen)):
            return gen
    return None


@pytest.fixture(autouse=True)
def manual_gc() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    gc.collect()
    KEPT.clear()
    try:
        yield
    finally:
        KEPT.clear()
        if was:
            gc.enable()


def test_what_a_request_kept_leaves_the_young_generation() -> None:
    _call(CollectBetweenRequests(_app))
    assert _generation_of(KEPT[-1]) == 1


def test_teeth_without_the_middleware_it_stays_young() -> None:
    _call(_app)
    assert _generation_of(KEPT[-1]) == 0


def test_after_ten_young_collections_the_middle_one_is_collected() -> None:
    app = CollectBetweenRequests(_app)
    for _ in range(MIDDLE_EVERY):
        _call(app)
    assert {_generation_of(kept) for kept in KEPT} == {1}
    _call(app)  # the next one collects the middle generation: everything kept is old now
    assert {_generation_of(kept) for kept in KEPT} == {2}


def test_lifespan_and_websocket_scopes_are_left_alone() -> None:
    _call(CollectBetweenRequests(_app), kind="lifespan")
    assert _generation_of(KEPT[-1]) == 0


def test_it_wraps_the_whole_app() -> None:
    # Outermost: it runs after compression and the security headers have done their part.
    assert create_app().user_middleware[0].cls is CollectBetweenRequests
