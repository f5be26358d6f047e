"""A class route that hangs (a silent store) holds only the class threads: the station's own
synchronous routes still answer. The teeth: on the default pool, the same hanging class
requests leave the station's route waiting."""

from __future__ import annotations

import asyncio
import threading

import anyio
import httpx2
import pytest
from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute

from app.classes.threads import CLASS_THREADS, on_class_threads
from tests.loops import on_own_thread

DEFAULT_POOL = 8  # the default pool's tokens in this test: fewer than the hanging requests


def _app(route_class: type[APIRoute], release: threading.Event) -> FastAPI:
    app = FastAPI()
    classes = APIRouter(route_class=route_class)

    @classes.get("/class/{n}")
    def stuck(n: int) -> dict[str, int]:
        release.wait(10)  # a store that accepted the connection and says nothing
        return {"n": n}

    @app.get("/station")
    def station() -> dict[str, str]:
        return {"page": "station"}

    app.include_router(classes)
    return app


async def _station_answers_while_classes_hang(route_class: type[APIRoute]) -> bool:
    anyio.to_thread.current_default_thread_limiter().total_tokens = DEFAULT_POOL
    release = threading.Event()
    app = _app(route_class, release)
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://station.test") as client:
        hanging = [asyncio.create_task(client.get(f"/class/{i}")) for i in range(CLASS_THREADS + 4)]
        await asyncio.sleep(0.2)  # every class request is running or waiting
        answered = False
        with anyio.move_on_after(1.0):
            answered = (await client.get("/station")).status_code == 200
        release.set()
        done = await asyncio.gather(*hanging)
    assert all(r.status_code == 200 for r in done)  # the class requests finish once released
    return answered


def test_hanging_class_requests_leave_the_station_its_threads() -> None:
    route = on_class_threads(APIRoute)
    assert on_own_thread(asyncio.run, _station_answers_while_classes_hang(route))


def test_teeth_on_the_default_pool_the_station_waits_behind_them() -> None:
    assert not on_own_thread(asyncio.run, _station_answers_while_classes_hang(APIRoute))


@pytest.mark.parametrize("sync", [True, False])
def test_the_wrapped_endpoint_keeps_its_parameters(sync: bool) -> None:
    app = FastAPI()
    router = APIRouter(route_class=on_class_threads(APIRoute))
    if sync:

        @router.get("/echo/{n}")
        def echo(n: int, word: str = "x") -> dict[str, object]:
            return {"n": n, "word": word, "thread": threading.current_thread().name}
    else:

        @router.get("/echo/{n}")
        async def echo(n: int, word: str = "x") -> dict[str, object]:  # type: ignore[misc]
            return {"n": n, "word": word, "thread": threading.current_thread().name}

    app.include_router(router)

    async def ask() -> tuple[httpx2.Response, str]:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get("/echo/3?word=hi"), threading.current_thread().name

    answer, loop_thread = on_own_thread(asyncio.run, ask())
    assert answer.status_code == 200
    assert answer.json()["n"] == 3 and answer.json()["word"] == "hi"
    # A synchronous endpoint runs off the loop; an async one stays on it.
    assert (answer.json()["thread"] != loop_thread) is sync
    assert app.openapi()["paths"]["/echo/{n}"]["get"]["parameters"][0]["name"] == "n"
