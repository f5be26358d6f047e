"""The server's own settings, read from STATION08_* environment variables.

Each setting has help text and a default; README.md's settings table is checked against
this model by tests/app/test_config.py, so the two cannot drift apart.
"""

from __future__ import annotations

from functools import cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class AppSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="STATION08_", extra="ignore", frozen=True)

    host: str = Field("127.0.0.1", description="Interface `make serve` binds to.")
    port: int = Field(8008, ge=1, le=65535, description="Port `make serve` listens on.")
    serving_url: str = Field(
        "",
        description="Station 07 (Serving). Empty: 'Back to Serving' opens the built-in stand-in.",
    )
    cockpit_url: str = Field(
        "",
        description="The route cockpit. Empty: 'Open route cockpit' opens the built-in route view.",
    )
    next_station_url: str = Field(
        "",
        description=(
            "Station 09 (Evaluation and falsification). Empty: the link says it is not configured."
        ),
    )
    frame_ancestors: str = Field(
        "'self'",
        description="CSP frame-ancestors: who may embed the station (e.g. the cockpit's origin).",
    )


@cache
def get_settings() -> AppSettings:
    return AppSettings()
