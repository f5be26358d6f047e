"""Fixtures of the route tests: an app whose live classes run on a settable clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.classes.service import ClassRoom, open_database
from app.config import AppSettings
from app.main import create_app
from tests.app.routes.class_helpers import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app_client(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    settings = AppSettings(data_dir=str(tmp_path))
    app = create_app(settings=settings)
    app.state.classes = ClassRoom(
        lambda: open_database(settings), retention=timedelta(hours=24), clock=clock
    )
    with TestClient(app) as c:
        yield c
