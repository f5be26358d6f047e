from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app

# A live class (app/classes) keeps its SQLite file under the data directory, and some test
# modules build their app at import: every app made in these tests keeps it in a throwaway
# directory, never in the repo's var/.
if "STATION08_DATA_DIR" not in os.environ:
    _DATA_DIR = tempfile.mkdtemp(prefix="station08-test-data-")
    os.environ["STATION08_DATA_DIR"] = _DATA_DIR
    atexit.register(shutil.rmtree, _DATA_DIR, True)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(settings=AppSettings())) as c:
        yield c
