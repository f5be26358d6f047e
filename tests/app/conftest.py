from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app

# A live class (app/classes) keeps its SQLite file under the data directory, and some test
# modules build their app at import: every app made in these tests keeps it in a throwaway
# directory, never in the repo's var/ (nor in one the shell's environment names).
_DATA_DIR = tempfile.mkdtemp(prefix="station08-test-data-")
os.environ["STATION08_DATA_DIR"] = _DATA_DIR
os.environ.pop("STATION08_DATABASE_URL", None)
atexit.register(shutil.rmtree, _DATA_DIR, True)


@pytest.fixture(autouse=True)
def own_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """An app made inside a test keeps its classes apart from every other test's (the server
    limits how many classes are opened per ten minutes, counted in its database). Only a
    path: the directory is made if the app ever opens a class."""
    monkeypatch.setenv("STATION08_DATA_DIR", os.path.join(_DATA_DIR, uuid.uuid4().hex))


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(settings=AppSettings())) as c:
        yield c
