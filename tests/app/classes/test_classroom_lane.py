"""The projector is never refused for the station's heavy work: a revealed class's page
(heavy to draw the first time: it serves the preset's seeded requests) and its live part
render in the classroom lane. With the heavy lane full, the station's own heavy fragment is
refused 503 while the projector's pages answer 200; the teeth: the same class pages drawn as
heavy station pages (in the heavy lane) are refused with it."""

from __future__ import annotations

import dataclasses

import pytest
from fastapi.testclient import TestClient

from app.classes import pages
from app.classes.contract import CLASS_PRESETS
from tests.app.classes.helpers import LEARNERS, SAME, classes, open_class


def _revealed(client: TestClient) -> str:
    code = open_class(client)
    room = classes(client)
    room.submit(code, LEARNERS[0], CLASS_PRESETS[0].id, "lengthen_k", True, True)
    room.submit(code, LEARNERS[1], CLASS_PRESETS[0].id, "skip_repair", False, None)
    r = client.post(f"/class/{code}/reveal", headers=SAME, follow_redirects=False)
    assert r.status_code == 303
    client.app.state.lanes.heavy.queue = 0  # type: ignore[attr-defined]  # full: refuses all
    return code


def test_a_full_heavy_lane_leaves_the_projector_its_pages(app_client: TestClient) -> None:
    code = _revealed(app_client)
    assert app_client.get("/station/sweep?pred=skip&seed=77").status_code == 503
    page = app_client.get(f"/class/{code}")
    assert page.status_code == 200 and 'data-testid="class-reveal"' in page.text
    live = app_client.get(f"/class/{code}/live", headers={"HX-Request": "true"})
    assert live.status_code == 200 and 'data-testid="class-reveal"' in live.text


def test_teeth_drawn_in_the_heavy_lane_the_projector_is_refused(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DASHBOARD", "LIVE"):
        monkeypatch.setattr(pages, name, dataclasses.replace(getattr(pages, name), classroom=False))
    code = _revealed(app_client)
    page = app_client.get(f"/class/{code}")
    assert page.status_code == 503
    # A whole page that says so and asks again by itself, not a bare 503.
    assert '<meta http-equiv="refresh"' in page.text and 'role="alert"' in page.text
