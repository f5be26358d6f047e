"""The application factory: `uvicorn --factory app.main:create_app` serves the station."""

from __future__ import annotations

import gc
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app.config import AppSettings, get_settings
from app.rendering.collector import CollectBetweenRequests
from app.rendering.compression import Compress
from app.rendering.pipeline import make_renderer
from app.rendering.security import SecurityHeaders
from app.rendering.templating import make_templates
from app.routes import api, pages, route, steps, study
from app.routes.steps import make_step_renderer
from witness.lm import tiny_models

ROOT = Path(__file__).resolve().parent.parent


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start-up: fit the tiny models, then calm the garbage collector.

    The render and witness caches keep tens of thousands of small objects alive, and a full
    collection over them paused slider answers for 80-250 ms. Freezing what start-up made
    keeps it out of every collection. The young and middle generations are collected between
    requests (app/collector.py); these thresholds are the fallback inside one large request
    (a whole page draws the k sweep: sixteen served requests), and make a full collection
    wait for a hundred middle ones.
    """
    tiny_models()
    gc.collect()
    gc.freeze()
    gc.set_threshold(2_000, 10, 100)
    yield


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
    )
    app.state.settings = settings
    app.state.templates = make_templates()
    # Renders of new states queue at one gate, pages and step-through alike (app/memo.py).
    app.state.render_gate = threading.Lock()
    app.state.render = make_renderer(app.state.templates, settings, app.state.render_gate)
    app.state.step_render = make_step_renderer(app.state.templates, app.state.render_gate)
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(route.router)
    app.include_router(steps.router)
    app.include_router(study.router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        # Browsers ask for /favicon.ico on pages without a <link rel=icon> (the JSON ones).
        return FileResponse(ROOT / "static" / "favicon.svg", media_type="image/svg+xml")

    @app.get("/healthz", tags=["ops"], summary="Liveness: the process answers")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    # Learners are often on poor networks: compress pages and fragments (a whole station page
    # is ~10x smaller gzipped); tiny answers such as /healthz are left as they are.
    app.add_middleware(Compress, minimum_size=1024)
    app.add_middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors)
    # Outermost, so it runs once the whole response, compressed and with its headers, is sent.
    app.add_middleware(CollectBetweenRequests)
    return app
