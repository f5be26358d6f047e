"""A class is one click from the station: its classroom box links to where a live class is
opened, and that link answers."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def test_the_station_links_to_opening_a_live_class_and_the_link_answers(
    app_client: TestClient,
) -> None:
    page = app_client.get("/station")
    assert page.status_code == 200
    found = re.search(
        r'<section class="classroom".*?<a [^>]*href="([^"]+)"[^>]*'
        r'data-testid="classroom-live-class"[^>]*>([^<]+)</a>',
        page.text,
        re.S,
    )
    assert found, "the classroom box has no link to a live class"
    href, label = found.groups()
    assert "class" in label.lower()
    opened = app_client.get(href)
    assert opened.status_code == 200
    assert 'data-testid="open-class"' in opened.text  # the page that opens a class
