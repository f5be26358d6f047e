"""The lanes over HTTP: a slow new state waits in its lane without holding up anything else;
a full lane answers 503 at once, with Retry-After and a message, never a hang (a whole page
that asks again by itself, a fragment one line); and a classroom page is rendered while the
heavy lane is full."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx2
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response

from app.config import AppSettings
from app.main import create_app
from app.rendering.pipeline import Context, Env, Page, Pipeline
from app.station.routes.route import ROUTE
from tests.loops import on_own_thread

SLOW = 0.3  # seconds of (sleeping) work per slow render: long enough to overlap everything


def _slow_page(heavy: bool) -> Page:
    def build(env: Env, key: object, variant: object) -> Context:
        time.sleep(SLOW)  # stands in for seconds of numpy work, off the event loop
        return Context({"fields": [], "defaults": None})

    return Page("serving.html", build, heavy=heavy)


def _app(on_loop: bool = False, heavy_lane: bool = True) -> FastAPI:
    app = create_app(settings=AppSettings())
    heavy = _slow_page(heavy_lane)

    @app.get("/test/slow/{n}")
    def slow(request: Request, n: int) -> Response:
        pipeline: Pipeline = request.app.state.pipeline
        return pipeline.respond(heavy, n)

    if on_loop:  # the teeth: the same work done on the event loop, as a careless route would

        @app.get("/test/slow-on-loop/{n}")
        async def slow_on_loop(n: int) -> Response:
            time.sleep(SLOW)
            return PlainTextResponse("done")

    return app


async def _finish_order(app: FastAPI, paths: list[str], late: str) -> list[str]:
    """Start every path at once, then ``late`` a moment after; the order they finished in."""
    order: list[str] = []
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://station.test") as client:

        async def get(path: str, wait: float = 0.0) -> None:
            await asyncio.sleep(wait)
            response = await client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            order.append(path)

        await asyncio.gather(*(get(p) for p in paths), get(late, SLOW / 3))
    return order


@pytest.mark.parametrize("late", ["/healthz", "/static/favicon.svg", "/route"])
def test_slow_new_states_never_hold_up_the_rest(late: str) -> None:
    # A page rendered before is answered from the cache, on the loop, even while its own
    # (interactive) lane is busy with the slow renders.
    app = _app(heavy_lane=late != "/route")
    if late == "/route":
        app.state.pipeline.render(ROUTE)
    order = on_own_thread(
        asyncio.run, _finish_order(app, [f"/test/slow/{i}" for i in range(3)], late)
    )
    assert order[0] == late, order  # answered while three slow renders were still queued


def test_teeth_work_on_the_event_loop_holds_everything_up() -> None:
    app = _app(on_loop=True)
    order = on_own_thread(asyncio.run, _finish_order(app, ["/test/slow-on-loop/1"], "/healthz"))
    assert order == ["/test/slow-on-loop/1", "/healthz"]


async def _statuses(app: FastAPI, paths: list[str]) -> list[httpx2.Response]:
    """Send ``paths`` in order, each once the one before is running or waiting in the heavy
    lane (no sleeps to tune: the lane's own counts say when)."""
    lane = app.state.lanes.heavy
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://station.test") as client:
        tasks: list[asyncio.Task[httpx2.Response]] = []
        for i, path in enumerate(paths):
            tasks.append(asyncio.create_task(client.get(path)))
            if i < 2:  # the first runs, the second waits; the rest find the lane full
                while lane.busy + lane.waiting < i + 1:
                    await asyncio.sleep(0.005)
        return list(await asyncio.gather(*tasks))


def _full_heavy_lane(app: FastAPI) -> None:
    app.state.lanes.heavy.queue = 1  # one running, one waiting: the third is refused


def test_a_full_heavy_lane_answers_503_with_a_message() -> None:
    app = _app()
    _full_heavy_lane(app)
    answers = on_own_thread(asyncio.run, _statuses(app, [f"/test/slow/{i}" for i in range(4)]))
    assert [r.status_code for r in answers] == [200, 200, 503, 503]
    busy = answers[2]
    assert busy.headers["retry-after"].isdigit()
    assert "busy" in busy.text and 'role="alert"' in busy.text
    assert "content-security-policy" in busy.headers  # headers on every answer, errors too


def test_a_full_heavy_lane_refuses_the_json_api_the_same_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.station.services import Witness

    real: Callable[..., object] = Witness.sweep

    def slow_sweep(self: Witness, settings: object) -> object:
        time.sleep(SLOW)
        return real(self, settings)

    monkeypatch.setattr(Witness, "sweep", slow_sweep)
    app = _app()
    _full_heavy_lane(app)
    answers = on_own_thread(
        asyncio.run, _statuses(app, [f"/api/sweep?seed={i}&tokens=4" for i in range(4)])
    )
    assert [r.status_code for r in answers] == [200, 200, 503, 503]
    assert "busy" in answers[3].json()["detail"]
    assert answers[3].headers["retry-after"].isdigit()


def test_a_full_heavy_lane_leaves_a_classroom_page_alone() -> None:
    # The projector's page renders in the classroom lane while anonymous heavy work has
    # filled the heavy lane and refuses everything else that is heavy.
    app = _app()
    _full_heavy_lane(app)
    projector = Page("serving.html", _slow_page(True).build, heavy=True, classroom=True)

    @app.get("/test/projector/{n}")
    def page(request: Request, n: int) -> Response:
        return request.app.state.pipeline.respond(projector, n)

    paths = [f"/test/slow/{i}" for i in range(3)] + ["/test/projector/1", "/test/slow/9"]
    answers = on_own_thread(asyncio.run, _statuses(app, paths))
    assert [r.status_code for r in answers] == [200, 200, 503, 200, 503]


def test_teeth_without_its_lane_the_classroom_page_is_refused() -> None:
    app = _app()
    _full_heavy_lane(app)
    paths = [f"/test/slow/{i}" for i in range(3)] + ["/test/slow/100"]
    answers = on_own_thread(asyncio.run, _statuses(app, paths))
    assert answers[3].status_code == 503


def test_a_refused_whole_page_asks_again_by_itself_and_a_fragment_gets_one_line() -> None:
    app = _app()
    _full_heavy_lane(app)

    async def run() -> tuple[httpx2.Response, httpx2.Response]:
        lane = app.state.lanes.heavy
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://station.test") as c:
            first = [asyncio.create_task(c.get(f"/test/slow/{i}")) for i in range(2)]
            while lane.busy + lane.waiting < 2:
                await asyncio.sleep(0.005)
            page = await c.get("/test/slow/7?x=1")
            fragment = await c.get("/test/slow/8", headers={"HX-Request": "true"})
            await asyncio.gather(*first)
            return page, fragment

    page, fragment = on_own_thread(asyncio.run, run())
    assert page.status_code == fragment.status_code == 503
    seconds = page.headers["retry-after"]
    assert f'<meta http-equiv="refresh" content="{seconds}">' in page.text
    assert 'role="alert"' in page.text and "<html" in page.text
    assert 'href="/test/slow/7?x=1"' in page.text  # "Try now": the same address
    assert "<html" not in fragment.text and 'role="alert"' in fragment.text


def test_try_now_stays_on_this_origin_whatever_path_the_request_carried() -> None:
    from app.rendering.lanes import Busy

    pipeline: Pipeline = create_app(settings=AppSettings()).state.pipeline
    scope = {"type": "http", "path": "//elsewhere.test/x", "query_string": b"a=1"}
    page = pipeline.busy_page(Busy("classroom", 3), scope)
    assert 'href="/elsewhere.test/x?a=1"' in page
