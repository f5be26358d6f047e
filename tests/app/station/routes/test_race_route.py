"""`GET /station/race` and the race on the page: behind the prediction, on demand, inline
with race=1 (no JavaScript needed), and a refused value said in place with a 422."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.app.forms import PREDICTED


def test_the_fragment_races_the_policies_once_a_prediction_is_recorded(client: TestClient) -> None:
    r = client.get(f"/station/race?{PREDICTED}")
    assert r.status_code == 200
    assert r.text.startswith('<div id="race"') or '<div id="race"' in r.text[:400]
    assert '<main id="main"' not in r.text  # the panel alone
    for testid in ("race-table", "chart-race", "race-gates", "race-best"):
        assert f'data-testid="{testid}"' in r.text
    for policy in ("fixed", "heuristic", "confidence", "oracle", "recovery"):
        assert f'data-testid="race-row-{policy}"' in r.text
        assert f'data-testid="race-gate-{policy}"' in r.text
    # Reload, back and a shared link give the whole page with the race drawn inline.
    replace = r.headers["hx-replace-url"]
    assert replace.startswith("/station?") and "race=1" in replace
    page = client.get(replace)
    assert page.status_code == 200
    assert '<main id="main"' in page.text and 'data-testid="chart-race"' in page.text


def test_without_a_prediction_it_is_locked(client: TestClient) -> None:
    r = client.get("/station/race?k=6")
    assert r.status_code == 200
    assert 'data-testid="race-locked"' in r.text
    assert "opens once a prediction is recorded" in r.text
    assert 'data-testid="race-table"' not in r.text


def test_a_bad_value_is_a_422_with_its_message(client: TestClient) -> None:
    r = client.get(f"/station/race?{PREDICTED}&race=yes")
    assert r.status_code == 422
    assert "race must be 0 or 1 (got &#39;yes&#39;)" in r.text
    bad_k = client.get(f"/station/race?{PREDICTED}&k=99")
    assert bad_k.status_code == 422
    assert 'role="alert"' in bad_k.text and "k" in bad_k.text


def test_the_page_offers_the_race_as_a_button_and_draws_it_with_race_1(
    client: TestClient,
) -> None:
    page = client.get(f"/station?{PREDICTED}")
    assert 'data-testid="race-entry"' in page.text
    assert 'hx-get="/station/race?' in page.text
    assert 'data-testid="chart-race"' not in page.text  # never on the slider path
    evidence = client.get(f"/station/evidence?{PREDICTED}&race=1")
    assert 'data-testid="race-entry"' in evidence.text  # a fragment never waits for it
    assert 'hx-trigger="load"' in evidence.text.split('id="race"')[1].split(">")[0]  # it follows
    drawn = client.get(f"/station?{PREDICTED}&race=1")
    assert drawn.status_code == 200
    assert 'data-testid="race-table"' in drawn.text
    locked = client.get("/station?race=1")
    assert 'data-testid="race-table"' not in locked.text
