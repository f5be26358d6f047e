"""The station page and its fragments, at the client level: responses, and the view models
the routes render for them (tests/app/view_models.py)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.station.views.station import LiveView
from tests.app.forms import PREDICTED, find, form_query, out_of_band, parse
from tests.app.view_models import view_of
from witness import Settings
from witness.core.settings import field_bounds


def test_the_station_has_every_part_of_the_spec(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert '<main id="main" class="station">' in r.text  # the whole page
    html = r.text
    for step in range(1, 8):
        assert f'id="step-0{step}"' in html
    for words in (
        "Station 08 · Speculative decoding",
        "local LabCase v1",
        "Start speculation",
        "Back to Serving",
        "Open route cockpit",
        "Draft lane",
        "Target verifier",
        "Repair lane",
        "Carry-in contract",
        "Route memory",
        "Save checkpoint",
        "Open study memory",
    ):
        assert words in html, words
    route = re.search(r'data-testid="route-list">(.*?)</ol>', html, re.S)
    assert route is not None
    assert route.group(1).count("<li") == 10
    assert re.search(
        r'aria-current="step"><span class="route__n">08</span> Speculative decoding', html
    )
    assert html.count('class="pill') == 3
    assert "active</em>" in html
    assert find(html, id="live", **{"aria-live": "polite"})


def test_evidence_stays_behind_the_prediction(client: TestClient) -> None:
    r = client.get("/station?k=6")
    view: LiveView = view_of(r)
    assert view.evidence is None
    assert view.invariant is None
    assert view.verdict is None
    assert 'data-testid="evidence-locked"' in r.text
    assert 'data-testid="evidence"' not in r.text
    assert view.narration == ""
    frag = client.get("/station/evidence?k=6")
    assert 'data-testid="evidence-locked"' in frag.text
    assert "chart-repair" not in frag.text


def test_recording_a_prediction_applies_it_and_opens_the_evidence(client: TestClient) -> None:
    r = client.get(
        "/station/predict?pred=lengthen_k&expect_faster=yes&expect_kept=yes", follow_redirects=False
    )
    assert r.status_code == 303
    url = urlsplit(r.headers["location"])
    query = dict(parse_qsl(url.query))
    assert url.path == "/station"
    assert url.fragment == "prediction-change"  # where the page says what was applied
    assert query["k"] == "8"
    assert query["pred"] == "lengthen_k"
    assert query["base"].startswith("0.6,4,")
    page = client.get(r.headers["location"])
    view: LiveView = view_of(page)
    assert view.evidence is not None
    assert view.verdict is not None
    # The speed verdict compares the two settings over the same seeded requests.
    assert view.verdict.sentence.startswith("Lengthening k from 4 to 8 at match 0.60 ")
    # The lossless chain on both sides: judged exactly over the same 32 target texts.
    assert re.search(r"mean \d\.\d\d× → \d\.\d\d× over 32 target texts", view.verdict.sentence)
    assert "Your prediction" in view.verdict.judgement


def test_a_skip_is_recorded_and_opens_the_evidence(client: TestClient) -> None:
    r = client.get("/station/predict?pred=skip")
    view: LiveView = view_of(r)
    assert view.state.prediction is not None
    assert view.evidence is not None
    assert view.prediction.summary == "Prediction skipped (recorded)"
    assert view.verdict is not None
    assert "skipped" in view.verdict.recorded


def test_repair_off_fails_the_correctness_gate_with_its_distance(client: TestClient) -> None:
    on = view_of(client.get("/station?pred=skip"))
    off = view_of(client.get("/station?pred=skip&repair=off"))
    assert on.invariant.correctness.holds
    assert (
        on.invariant.correctness.sentence == "Correctness holds: residual repair keeps p exactly."
    )
    assert not off.invariant.correctness.holds
    tv = off.trace.check.tv_max
    assert tv > 0.01
    assert off.invariant.correctness.sentence == (
        "Correctness fails: without repair the output over-weights what the draft likes, "
        f"TV {tv:.3f}."
    )


def test_fragments_carry_the_full_page_url_and_it_renders_a_page(client: TestClient) -> None:
    r = client.get(f"/station/evidence?{PREDICTED}&match=0.75")
    assert r.status_code == 200
    assert r.text.startswith('<section class="panel panel--evidence" id="panel-evidence"')
    page_url = r.headers["HX-Replace-Url"]
    assert page_url.startswith("/station?")
    assert "match=0.75" in page_url
    assert "<html" not in r.text
    assert 'id="panel-evidence"' in r.text
    oob = out_of_band(r.text)
    # Everything else on the page that shows the state comes along, out of band: each part
    # the page marks (app/rendering/parts.py), and the controls' status lines.
    page_parts = {
        e.attrs["id"] for e in parse(client.get(page_url).text).elements if "data-part" in e.attrs
    }
    assert {"step-06", "readout", "share", "presets", "next-request", "slice"} <= page_parts
    assert oob - page_parts == {"drafting-status", "cost-status"}
    # The drafting and cost controls' error slots are parts the fragment refreshes; the
    # sliders' slots are parts too, refreshed with the page their form submits to.
    assert {i for i in oob if i.startswith("errslot-")} >= {"errslot-machine", "errslot-stack"}
    assert all(i.startswith("errslot-") for i in page_parts - oob)
    page = client.get(page_url)
    assert page.status_code == 200
    assert "<html" in page.text
    assert view_of(page).settings == view_of(r).settings


def test_every_block_link_gives_a_page_and_a_fragment(client: TestClient) -> None:
    html = client.get(f"/station?{PREDICTED}").text
    # The script asks the lane's fragment route with the link's query (static/js/station.js).
    lane = find(html, data_testid="request-text")[0].attrs
    assert lane["data-fragment-target"] == "#panel-evidence"
    links = [e for e in parse(html).elements if e.tag == "a"]
    blocks = [a for a in links if a.attrs.get("data-testid", "").startswith("block-")]
    assert len(blocks) >= 2
    for a in blocks[:4]:
        page = client.get(a.attrs["href"])
        assert page.status_code == 200
        assert "<html" in page.text
        query = urlsplit(a.attrs["href"]).query
        frag = client.get(f"{lane['data-fragment']}?{query}")
        assert frag.status_code == 200
        assert frag.headers["HX-Replace-Url"] == a.attrs["href"].split("#")[0]
        chosen = int(a.attrs["data-testid"].split("-")[1])
        assert view_of(frag).evidence.detail.number == chosen


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("k=0", "k", "k must be an integer from 1 to 16 (got '0')"),
        ("match=1.5", "match", "match must be a number from 0 to 1 (got '1.5')"),
        ("match=nan", "match", "match must be a number from 0 to 1 (got 'nan')"),
        ("draft_cost=cheap", "draft_cost", "draft_cost must be a number from 0 to 1"),
        ("verify=maybe", "verify", "verify must be true or false"),
        ("seed=-3", "seed", "seed must be an integer from 0 to 2147483647"),
        ("pred=faster", "pred", "pred must be one of raise_match"),
        ("block=999", "block", "block must be an integer from 0 to 255"),
        ("pred=skip&base=nonsense", "base", "base must list match, k, draft cost"),
    ],
)
def test_bad_values_are_a_422_that_names_the_field_in_place(
    client: TestClient, query: str, field: str, words: str
) -> None:
    page = client.get(f"/station?{query}")
    assert page.status_code == 422
    assert words in unescape(page.text)
    problems = view_of(page).problems
    assert [p.field for p in problems] == [field]
    frag = client.get(f"/station/evidence?pred=skip&{query}")
    assert frag.status_code == 422
    panel = unescape(frag.text.split('id="panel-evidence"', 1)[1].split("</section>", 1)[0])
    assert words in panel
    assert 'data-testid="evidence-error"' in panel
    # The rest of the panel still works on the defaults: evidence, or the prediction gate
    # when the prediction itself was the bad value.
    assert ('data-testid="evidence"' in panel) != (field == "pred")


def test_unknown_parameters_are_named_and_ignored(client: TestClient) -> None:
    r = client.get("/station?colour=red")
    assert r.status_code == 422
    assert "colour is not a setting of this station" in r.text


def test_sliders_take_their_bounds_from_the_settings_model(client: TestClient) -> None:
    html = client.get("/station?match=0.8&k=6").text
    for name in ("match", "k", "draft_cost"):
        (el,) = find(html, type="range", name=name)
        b = field_bounds(name)
        assert float(el.attrs["min"]) == b["min"]
        assert float(el.attrs["max"]) == b["max"]
        assert float(el.attrs["step"]) == b["step"]
        assert el.attrs["hx-get"] == "/station/evidence"
        assert "delay:" in el.attrs["hx-trigger"]
        assert el.attrs["hx-sync"] == "closest form:queue last"
    assert find(html, type="range", name="match")[0].attrs["value"] == "0.8"
    assert find(html, type="range", name="k")[0].attrs["value"] == "6"


def test_without_javascript_the_instrument_form_renders_the_updated_page(
    client: TestClient,
) -> None:
    html = client.get(f"/station?{PREDICTED}").text
    action, query = form_query(html, "instrument", {"k": "3", "repair": "off"})
    assert action == "/station"
    r = client.get(f"{action}?{query}")
    assert r.status_code == 200
    view: LiveView = view_of(r)
    assert view.settings.k == 3
    assert view.settings.repair is False
    assert view.state.prediction is not None  # the hidden fields kept the prediction
    assert not view.invariant.correctness.holds  # type: ignore[union-attr]


def test_without_javascript_the_prediction_form_records_the_prediction(client: TestClient) -> None:
    html = client.get("/station?match=0.4").text
    action, query = form_query(
        html, "prediction-form", {"pred": "raise_match", "expect_kept": "yes"}
    )
    r = client.get(f"{action}?{query}")
    view: LiveView = view_of(r)
    assert view.settings.match == pytest.approx(0.7)
    assert view.state.prediction is not None
    assert view.state.prediction.base.match == 0.4


def test_the_live_region_narrates_the_selected_block(client: TestClient) -> None:
    view: LiveView = view_of(client.get(f"/station?{PREDICTED}"))
    detail = view.evidence.detail  # type: ignore[union-attr]
    assert view.narration.startswith(f"Block {detail.number}.")
    assert re.search(
        r"Draft \d '.+' (accepted|rejected): u = \d\.\d\d [<≥] p/q = \d\.\d\d", view.narration
    )


def test_next_request_moves_the_seed_and_keeps_the_rest(client: TestClient) -> None:
    html = client.get(f"/station?{PREDICTED}&seed=41").text
    (link,) = find(html, data_testid="next-request")
    query = dict(parse_qsl(urlsplit(link.attrs["href"]).query))
    assert query["seed"] == "42"
    assert query["pred"] == "lengthen_k"
    assert query["k"] == "8"
    frag = client.get(link.attrs["hx-get"], headers={"HX-Trigger": "next-request"})
    assert "seed-field" in out_of_band(frag.text)
    typing = client.get(link.attrs["hx-get"], headers={"HX-Trigger": "in-seed"})
    assert 'id="seed-field"' not in typing.text  # never replace the field being typed in
    assert view_of(frag).settings.seed == 42


def test_carried_in_text_is_rendered_inert(client: TestClient) -> None:
    payload = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    r = client.get("/station", params={"prompt": payload, "pred": "skip"})
    assert "<script>alert(1)" not in r.text
    assert "<img src=x" not in r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text


def test_state_round_trips_through_the_url(client: TestClient) -> None:
    settings = Settings(match=0.35, k=7, draft_cost=0.25, repair=False, seed=99, tokens=30)
    query = "match=0.35&k=7&draft_cost=0.25&repair=off&seed=99&tokens=30&pred=skip&block=2"
    view: LiveView = view_of(client.get(f"/station?{query}"))
    assert view.settings == settings
    again: LiveView = view_of(client.get(view.links.page))
    assert again.settings == settings
    assert again.state == view.state


def test_every_text_and_number_input_states_its_bound(client: TestClient) -> None:
    """The prompt rendered maxlength="" once: its bound is the model's max_length."""
    from witness.core.settings import field_bounds

    html = client.get("/station").text
    (prompt,) = find(html, id="in-prompt")
    assert prompt.attrs["maxlength"] == str(field_bounds("prompt")["max_length"]) == "200"
    assert 'maxlength=""' not in html and 'max=""' not in html
