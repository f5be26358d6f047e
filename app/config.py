"""The server's own settings, read from STATION08_* environment variables.

Each setting has help text and a default; docs/settings.md is generated from this model
(`python -m app.contract.generate`) and tests/app/test_config.py reads it back.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# The repo's own `var/` (git-ignored): where a live class's SQLite file goes by default.
DATA_DIR = Path(__file__).resolve().parent.parent / "var"


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
    workers: int = Field(
        0,
        ge=0,
        le=64,
        description=(
            "Worker processes `make serve` starts; 0: one per core. Each keeps its own caches;"
            " a live class is kept in its database, which every worker shares."
        ),
    )
    frame_ancestors: str = Field(
        "'self'",
        description="CSP frame-ancestors: who may embed the station (e.g. the cockpit's origin).",
    )
    data_dir: str = Field(
        "",
        description=(
            "Directory of a live class's SQLite file (`classes.sqlite3`, made on first use)."
            " Empty: `var/` in the repo."
        ),
    )
    database_url: str = Field(
        "",
        description=(
            "Empty: live classes in SQLite under the data directory. `postgresql://…`: in"
            " PostgreSQL, shared by every worker and server behind a load balancer."
        ),
    )
    class_retention_hours: int = Field(
        24,
        ge=1,
        le=24 * 30,
        description="Hours a live class and its predictions are kept before they are deleted.",
    )
    instructor_key: str = Field(
        "",
        repr=False,
        description=(
            "Empty: anyone who reaches `/class` may open a live class, up to the opening limit"
            " per client address. Set: opening a class takes this key (a password field on"
            " `/class`; `Authorization: Bearer <key>` on `POST /api/classes`)."
        ),
    )


def worker_count(settings: AppSettings) -> int:
    """The workers to start: as configured, or one per core this process may run on."""
    if settings.workers:
        return settings.workers
    try:
        return max(1, len(os.sched_getaffinity(0)))  # a container's CPU set, not the host's
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def data_dir(settings: AppSettings) -> Path:
    """The data directory: as configured, or the repo's `var/`."""
    return Path(settings.data_dir) if settings.data_dir else DATA_DIR


@cache
def get_settings() -> AppSettings:
    return AppSettings()
