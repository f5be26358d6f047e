"""docs/settings.md's server table is the documentation of AppSettings: they must agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.config import AppSettings

SETTINGS_MD = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
ROW = re.compile(r"^\| `STATION08_(\w+)` \| (.*?) \| (.*?) \|$")


def _table() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in SETTINGS_MD.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1).lower()] = (m.group(2), m.group(3))
    return rows


def test_every_setting_is_documented_with_its_default_and_help() -> None:
    table = _table()
    assert set(table) == set(AppSettings.model_fields), "docs/settings.md and AppSettings differ"
    for name, info in AppSettings.model_fields.items():
        default, meaning = table[name]
        shown = "(empty)" if info.default == "" else f"`{info.default}`"
        assert default == shown, f"{name}: docs/settings.md says {default}, model says {shown}"
        assert meaning == info.description, f"{name}: help text differs from the model"


def test_settings_come_from_the_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("STATION08_PORT", "9100")
    monkeypatch.setenv("STATION08_FRAME_ANCESTORS", "'self' http://cockpit.test")
    s = AppSettings()
    assert s.port == 9100
    assert s.frame_ancestors == "'self' http://cockpit.test"


def test_serve_prints_addresses_a_learner_can_open() -> None:
    from app.__main__ import addresses

    assert addresses("127.0.0.1", 8008) == ["http://127.0.0.1:8008/"]
    every = addresses("0.0.0.0", 8008)
    assert every[0] == "http://127.0.0.1:8008/"
    assert all("0.0.0.0" not in url for url in every)  # not an address anyone can open


def test_workers_default_to_one_per_core_and_can_be_set(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import os

    from app.config import worker_count

    assert worker_count(AppSettings()) == len(os.sched_getaffinity(0))
    monkeypatch.setenv("STATION08_WORKERS", "3")
    assert worker_count(AppSettings()) == 3
    monkeypatch.setenv("STATION08_WORKERS", "-1")
    with pytest.raises(ValueError, match="workers"):
        AppSettings()
