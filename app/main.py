"""The application factory: `uvicorn --factory app.main:create_app` serves the station."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp

from app.classes import api as class_api
from app.classes import learner as class_learner
from app.classes import pages as class_pages
from app.classes.database import health
from app.classes.service import SQLITE_FILE, ClassRoom
from app.config import AppSettings, data_dir, get_settings
from app.edge.allocator import limit_arenas
from app.edge.collector import CollectBetweenRequests
from app.edge.security import SecurityHeaders
from app.rendering.lanes import Lanes
from app.rendering.pipeline import GZIP_LEVEL, Env, Pipeline
from app.rendering.refusals import validation_refused
from app.rendering.requests import RequestShape
from app.rendering.templating import make_templates
from app.station.routes import api, pages, roofline, route, steps
from app.station.routes import race as race_routes
from app.station.routes.api_models import Health
from app.station.services import Witness
from app.study import routes as study
from witness.models.lm import tiny_models

ROOT = Path(__file__).resolve().parent.parent


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start-up: cap the malloc arenas (app/edge/allocator.py), fit the tiny models,
    then calm the garbage collector.

    The render and witness caches keep tens of thousands of small objects alive, and a full
    collection over them paused slider answers for 80-250 ms. Freezing what start-up made
    keeps it out of every collection. The young and middle generations are collected between
    requests (app/edge/collector.py); these thresholds are the fallback inside one large
    request (a whole page draws the k sweep: sixteen served requests), and make a full
    collection wait for a hundred middle ones.
    """
    limit_arenas()
    tiny_models()
    gc.collect()
    gc.freeze()
    gc.set_threshold(2_000, 10, 100)
    yield
    app.state.classes.close()  # the live class's database connections, if it opened any


def create_app(*, settings: AppSettings | None = None) -> FastAPI:
    """Build a fresh app; nothing runs at import time, so every test gets its own."""
    settings = settings or get_settings()
    app = FastAPI(
        title="Station 08 · Speculative decoding",
        summary="The witness of draft-target verification on one served request.",
        version="0.1.0",
        # The interactive docs pages load their scripts from a CDN; the station makes no
        # request off its own origin, so only the OpenAPI document itself is served.
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        # Its redirect trusts the Host header: app/rendering/requests.py redirects instead.
        redirect_slashes=False,
    )
    # Everything the app keeps lives here, made fresh for each app: its settings, its witness
    # results (app/station/services.py), its renders, and the lanes new work waits in
    # (app/rendering/lanes.py).
    app.state.settings = settings
    app.state.witness = Witness()
    app.state.lanes = Lanes()
    app.state.pipeline = Pipeline(
        make_templates(), Env(settings, app.state.witness), app.state.lanes
    )
    # A live class (app/classes): its state is in the database, opened on first use.
    app.state.classes = ClassRoom.from_settings(settings)
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(route.router)
    app.include_router(steps.router)
    app.include_router(study.router)
    app.include_router(roofline.router)
    app.include_router(race_routes.router)
    app.include_router(class_api.router)
    app.include_router(class_pages.router)
    app.include_router(class_learner.router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        # Browsers ask for /favicon.ico on pages without a <link rel=icon> (the JSON ones).
        return FileResponse(ROOT / "static" / "favicon.svg", media_type="image/svg+xml")

    # The class store's address, as app/classes/service.py opens it: its breaker's key.
    class_store = settings.database_url or str(data_dir(settings) / SQLITE_FILE)

    @app.get("/healthz", tags=["ops"], summary="Liveness: the process answers")
    async def healthz() -> Health:
        """Liveness, not readiness: `status` is ok whenever the process answers, so a
        supervisor never restarts a healthy station because its class database is down (the
        station's own pages do not use it). `classes` says whether the class store was
        reachable when this process last tried it, read from its breaker
        (app/classes/database.py): never a connect, so the answer stays instant."""
        # async: answered on the event loop, never queued behind renders in the thread pool.
        return Health(status="ok", classes=health(class_store))

    # A 422 names each refused field without echoing what was sent (app/rendering/refusals.py).
    app.add_exception_handler(RequestValidationError, validation_refused)

    # Learners are often on poor networks: compress pages and fragments (a whole station page
    # is ~10x smaller gzipped); tiny answers such as /healthz are left as they are.
    # Rendered pages arrive gzipped already (app/rendering/pipeline.py) and pass through.
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=GZIP_LEVEL)
    # Inside the security headers, so a redirect and a HEAD answer carry them too.
    app.add_middleware(RequestShape)
    # Outermost of the app's own layers, so it runs once the whole response is sent.
    app.add_middleware(CollectBetweenRequests)
    # The security headers wrap the whole stack, Starlette's ServerErrorMiddleware included
    # (it is always the outermost layer Starlette builds), so a 500 carries them too.
    build = app.build_middleware_stack

    def build_with_headers() -> ASGIApp:
        return SecurityHeaders(build(), frame_ancestors=settings.frame_ancestors)

    app.build_middleware_stack = build_with_headers  # type: ignore[method-assign]
    return app
