"""The application factory: `uvicorn --factory app.main:create_app` serves the station."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from app import api
from app.config import AppSettings, get_settings
from app.security import SecurityHeaders

ROOT = Path(__file__).resolve().parent.parent


def create_app(*, settings: AppSettings | None = None) -> FastAPI:
    """Build a fresh app; nothing runs at import time, so every test gets its own."""
    settings = settings or get_settings()
    app = FastAPI(
        title="Station 08 · Speculative decoding",
        summary="The witness of draft-target verification on one served request.",
        version="0.1.0",
    )
    app.state.settings = settings
    app.include_router(api.router)

    @app.get("/healthz", tags=["ops"], summary="Liveness: the process answers")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    app.add_middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors)
    return app
