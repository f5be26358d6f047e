"""One α on the page: the station's.

The station's acceptance rate (the mean over its ensemble's positions) is the only number the
page writes as a bare "α = …" or "α …". A request's own rate, the acceptance probability at one
position (the repair picture's Σ min(p, q)) and the evaluation slice's first-position value are
each named for what they are, so a learner never meets three different numbers all called α.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app
from tests.app.view_models import WITNESS, state_of

# A bare α with a number: "α = 0.764", "α 0.752", "(α = 0.752)"; not "(1 − α) 0.248".
BARE_ALPHA = re.compile(r"(?<![\w])α(?: =)? (\d+(?:\.\d+)?)(?![\d.])")

PAGES = {
    "lengthen k, recorded": "/station?k=8&pred=lengthen_k&slice=1",
    "defaults": "/station?pred=skip&slice=1",
    "repair off": "/station?pred=skip&slice=1&repair=off",
    "tree of two": "/station?pred=skip&slice=1&tree_width=2",
    "verify off": "/station?pred=skip&slice=1&verify=off",
    "lookup": "/station?pred=skip&slice=1&draft_source=lookup",
    "l4, 70b with 8b": "/station?pred=skip&slice=1&machine=l4&pair=llama-70b-8b&batch=64",
}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(settings=AppSettings())) as c:
        yield c


def text_of(page: str) -> str:
    """The page's words as a reader (or a screen reader, for an SVG title) meets them."""
    page = re.sub(r"(?s)<(script|style)\b[^>]*>.*?</\1>", " ", page)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


@pytest.mark.parametrize("url", list(PAGES.values()), ids=list(PAGES))
def test_every_bare_alpha_on_the_page_is_the_stations(client: TestClient, url: str) -> None:
    text = text_of(client.get(url).text)
    alpha = WITNESS.ensemble(state_of(url).settings).alpha
    found = BARE_ALPHA.findall(text)
    assert found, "the page names the station's α somewhere"
    for number in found:
        places = len(number.partition(".")[2])
        assert float(number) == pytest.approx(round(alpha, places)), (number, alpha)


def test_the_other_rates_are_named_for_what_they_are(client: TestClient) -> None:
    url = PAGES["lengthen k, recorded"]
    text = text_of(client.get(url).text)
    s = state_of(url).settings
    alpha, own = WITNESS.ensemble(s).alpha, WITNESS.trace(s).totals.mean_alpha
    assert f"this request's acceptance rate {own:.3f}" in text
    assert "the acceptance probability at this one position, Σ min(p, q) =" in text
    assert "acceptance probability at this position" in text
    assert "where the acceptance rate is" in text  # the slice's first-position value
    # The match is introduced as the blend it is, with the α it gives beside it.
    assert f"Match {s.match:.2f} gives α = {alpha:.3f} here" in text
