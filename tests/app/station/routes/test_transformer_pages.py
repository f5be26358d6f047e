"""The station with the tiny transformers (`models` early-exit / small-draft): every part the
page draws after a prediction answers, and speaks of the models it was served with."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from tests.app.forms import PREDICTED

# The station's views, with the settings that open their parts: a tree with typical
# acceptance, prompt lookup greedy, the switches, a priced machine, the ends of match, k and
# the length (the witness's tests serve every method with the transformers).
STATES = (
    "",
    "&match=0&k=16",
    "&tree_width=2&k=3&acceptance=typical",
    "&draft_source=lookup&greedy=true",
    "&repair=false",
    "&verify=false&tokens=1",
    "&machine=h200&batch=32&context=512",
)


def _text(html: str) -> str:
    html = re.sub(r"<script.*?</script>|<style.*?</style>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


@pytest.mark.parametrize("models", ["early-exit", "small-draft"])
@pytest.mark.parametrize("state", STATES)
def test_every_view_answers_with_the_transformers(
    client: TestClient, models: str, state: str
) -> None:
    r = client.get(f"/station?models={models}&{PREDICTED}{state}")
    assert r.status_code == 200, r.text[:400]
    note = re.search(r'data-testid="object-models-note">(.*?)</p>', r.text, flags=re.S)
    assert note is not None
    said = _text(note.group(1))
    assert "transformer" in said and "31 characters" in said and "trigram" not in said
    drafts = "exit head" if models == "early-exit" else "separate 1-layer"
    assert drafts in said
    # The models' own menu entry is the one chosen.
    assert re.search(rf'value="{models}"[^>]*checked', r.text)


def test_the_ngrams_page_still_names_its_trigram(client: TestClient) -> None:
    r = client.get(f"/station?{PREDICTED}")
    note = re.search(r'data-testid="object-models-note">(.*?)</p>', r.text, flags=re.S)
    assert note is not None and "trigram" in _text(note.group(1))


@pytest.mark.parametrize(
    "path",
    [
        "/api/trace?models=early-exit",
        "/api/distributions?models=small-draft",
        "/station/race?models=early-exit",
        "/station/evidence?models=small-draft&match=0.2",
    ],
)
def test_the_apis_and_fragments_answer_with_the_transformers(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 200


def test_a_request_past_the_trained_positions_is_refused_by_name(client: TestClient) -> None:
    r = client.get("/api/trace?models=early-exit&tokens=256&k=16&prompt=" + "a" * 100)
    assert r.status_code == 422
    assert "320 positions" in r.text and "models" in r.text


@pytest.mark.parametrize(
    ("state", "says", "never"),
    [
        ({"match": 0.0}, "the layer-1 exit alone", "blended"),
        ({"match": 0.35}, "At match 0.35 the layer-1 exit is blended", "target itself"),
        ({"match": 1.0}, "the target itself (q = p)", "blended"),
        ({"match": 0.0, "draft_source": "adversary"}, "adversarial draft replaces", "alone"),
        ({"draft_source": "lookup"}, "no draft model runs", "layer-1 exit"),
        ({"match": 0.0, "greedy": True, "verify": False}, "the layer-1 exit alone", "blended"),
    ],
)
def test_the_transformers_note_says_what_drafts_in_each_mode(
    state: dict[str, object], says: str, never: str
) -> None:
    from app.station.views.controls import transformers_note
    from witness import Settings

    note = str(transformers_note(Settings(models="early-exit", **state)))  # type: ignore[arg-type]
    assert says in note and never not in note
    other = str(transformers_note(Settings(models="small-draft", **state)))  # type: ignore[arg-type]
    assert "layer-1 exit" not in other
