"""Words a newcomer meets are defined where they first meet them, and numbers that measure
different things say so.

The readout's tokens per pass stands beside the formula's, with why they differ; the exact
check's TV (one request, every drafted position) and the slice's (the first position alone)
each say which they are; u, the residual and the bonus token are defined before the request
uses them; every step has its own number; the first screen's terms are explained.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app
from app.words import Sentence
from tests.app.view_models import WITNESS, page_view, station_of
from witness.core.theory import expected_tokens_per_pass


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(settings=AppSettings())) as c:
        yield c


def _tokens_note(url: str) -> Sentence:
    v = page_view(url)
    assert v.readout is not None
    [reading] = [r for r in v.readout.readings if r.testid == "readout-tokens"]
    note = reading.note
    assert isinstance(note, Sentence)
    return note


@pytest.mark.parametrize(
    ("query", "mode"),
    [("", "under"), ("match=1&k=8&draft_cost=0.05", "cut"), ("draft_source=lookup", "lookup")],
)
def test_the_tokens_per_pass_stand_beside_the_formulas(query: str, mode: str) -> None:
    url = f"/station?pred=skip&{query}"
    note = _tokens_note(url)
    s = page_view(url).settings
    alpha = WITNESS.ensemble(s).alpha
    assert note.key == f"readout.tokens.{mode}"
    assert note.values["formula"] == f"{float(expected_tokens_per_pass(alpha, s.k)):.2f}"
    if mode in ("under", "cut"):
        assert note.values["tokens"] == s.tokens  # the request's cut last block


def test_verify_off_has_no_formula_for_tokens_per_pass() -> None:
    assert _tokens_note("/station?pred=skip&verify=off").key == "readout.tokens.note"


def test_the_two_tvs_say_what_each_measures() -> None:
    v = page_view("/station?pred=skip&slice=1&verify=off")
    assert v.evidence is not None and v.slice is not None
    exact = v.evidence.exact_check
    assert isinstance(exact, Sentence) and exact.key == "evidence.exact.lost"
    assert "drafted positions of this request" in exact
    assert "the evaluation slice measures the first position alone" in exact
    assert "each row's TV" in v.slice.alpha_note
    assert "the largest exact TV over every drafted position" in v.slice.alpha_note


def test_u_the_residual_and_the_bonus_are_defined_before_the_request_uses_them(
    client: TestClient,
) -> None:
    v = page_view("/station?pred=skip")
    assert v.evidence is not None
    assert [(name, words.key) for name, words in v.evidence.terms] == [
        ("u", "evidence.terms.u"),
        ("residual", "evidence.terms.residual"),
        ("bonus token", "evidence.terms.bonus"),
    ]
    page = client.get("/station?pred=skip").text
    assert page.index('data-testid="evidence-terms"') < page.index('data-testid="first-rejection"')
    intro = station_of("/station?pred=skip").stepthrough.intro
    assert "u, a uniform random number between 0 and 1" in intro
    assert "residual, max(0, p − q) normalised" in intro and "bonus token is drawn from p" in intro


def test_every_step_has_its_own_number(client: TestClient) -> None:
    page = client.get("/station?pred=skip").text
    steps = re.findall(r'class="panel__step">(\w+) · ', page)
    assert len(steps) == len(set(steps)), steps
    assert {"05", "05b"} <= set(steps)
    nav = page.split('aria-label="Station steps"', 1)[1].split("</nav>", 1)[0]
    numbers = re.findall(r'<span class="steps__n">(\w+)</span>', nav)
    assert len(numbers) == len(set(numbers))
    assert 'href="#step-05"' in nav  # the evidence keeps its anchor


def test_the_first_screen_explains_its_terms(client: TestClient) -> None:
    page = client.get("/station").text
    hero = page.split('<header class="hero">', 1)[1].split("</header>", 1)[0]
    terms = re.findall(r"<dt>(.*?)</dt>", hero.split('data-testid="hero-terms"', 1)[1])
    assert terms == ["Serving checkpoint", "witness", "route cockpit"]
    assert html.unescape(hero).count("<dd>") == 3
