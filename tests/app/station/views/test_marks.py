"""A served token's marks (app/station/views/marks.py): one shape and one label per outcome, drawn
by the generated stylesheet with the label as the alternative text."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.station.views.evidence import KINDS, LEGEND
from app.station.views.marks import MARKS, marks_css
from tests.app.forms import PREDICTED


def test_every_outcome_has_its_own_shape_and_words() -> None:
    assert set(KINDS) < set(MARKS)
    assert len({m.glyph for m in MARKS.values()}) == len(MARKS)
    assert len({m.label for m in MARKS.values()}) == len(MARKS)
    assert [t.kind for t in LEGEND] == list(KINDS)


def test_the_stylesheet_says_each_label_and_keeps_the_legend_silent() -> None:
    css = marks_css()
    for m in MARKS.values():
        assert (
            f'.tok--{m.style}::after {{ content: "{m.glyph}"; content: "{m.glyph}" / "{m.label}"; }}'
            in css
        )
        assert (
            f'.legend .tok--{m.style}::after {{ content: "{m.glyph}"; content: "{m.glyph}" / ""; }}'
            in css
        )
    # The argmax comes after the repair it overrides (same specificity: the later rule wins).
    assert css.index(".tok--argmax::after") > css.index(".tok--repaired::after")


def test_every_token_on_the_page_has_a_marked_class(client: TestClient) -> None:
    html = client.get(f"/station?{PREDICTED}").text
    lane = re.search(r'<p class="request-text".*?</p>', html, re.S)
    assert lane is not None
    classes = re.findall(r'<span class="tok tok--([a-z]+)[^"]*">', lane.group(0))
    assert len(classes) >= 10
    assert set(classes) <= set(KINDS)
    assert "tok__mark" not in html  # the mark is drawn by marks.css, not sent
