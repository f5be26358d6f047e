"""The measured roofline at the client level: the page, the fragment, the station's entry.

The measurement is replaced by a small one made once for this module (the real one times a
128 MiB matrix); the view model is read by calling the view function on it, as the route
does, and the HTTP layer through the responses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app
from app.station.views.roofline import LABEL, roofline_view
from tests.app.forms import find
from witness.cost import measured
from witness.cost.measured import MeasuredRoofline, measure_roofline


@pytest.fixture(scope="module")
def small() -> MeasuredRoofline:
    return measure_roofline(rows=256, cols=128, repeats=2)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, small: MeasuredRoofline) -> list[int]:
    """Each call the routes make to the process-wide accessor (replaced by the small run)."""
    made: list[int] = []

    def here() -> MeasuredRoofline:
        made.append(1)
        return small

    monkeypatch.setattr(measured, "measured_here", here)
    return made


@pytest.fixture
def client(calls: list[int]) -> Iterator[TestClient]:
    with TestClient(create_app(settings=AppSettings())) as c:
        yield c


def _svg(html: str, testid: str) -> str:
    found = re.search(rf'<svg[^>]*data-testid="{testid}".*?</svg>', html, re.S)
    assert found is not None, f"no {testid}"
    return found.group(0)


def _rows(html: str, testid: str = "roofline-table") -> list[list[str]]:
    body = re.search(rf'data-testid="{testid}">.*?<tbody>(.*?)</tbody>', html, re.S)
    assert body is not None, f"no {testid}"
    return [
        [unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body.group(1))
    ]


def test_the_page_stands_alone_with_the_label_chart_and_table(
    client: TestClient, small: MeasuredRoofline
) -> None:
    r = client.get("/roofline")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    html = r.text
    assert html.startswith("<!doctype html>")
    assert '<main id="main"' in html
    assert LABEL in html
    assert "<script" not in html.split("</head>")[1]  # nothing on the page needs a script
    view = roofline_view(small)
    assert unescape(html).count(view.sentence) >= 2  # said in words, and in the chart's title
    assert find(html, data_testid="chart-roofline", role="img")
    chart = _svg(html, "chart-roofline")
    assert chart.count('class="m-measured"') == len(small.points) + 1  # + the legend's
    assert chart.count('class="m-model"') == len(small.points) + 1
    assert _rows(html) == [
        [row.width, row.ms, row.ratio, row.gb_per_s, row.gflop_per_s, row.model_ms]
        for row in view.rows
    ]
    assert [row[0] for row in _rows(html)] == ["1", "2", "4", "8", "16", "32", "64"]
    assert _rows(html)[0][2] == "1.00×"
    assert small.machine in unescape(html)
    # Why a step at two vectors is said only when the numbers show one.
    if small.points[1].ratio > 1.5:
        assert view.routine_note and view.routine_note in unescape(html)
    else:
        assert view.routine_note == "" and 'data-testid="roofline-routine"' not in html
    assert '<h2 id="roofline-title"' in html  # under the page's h1
    assert 'href="/station"' in html


def test_the_fragment_is_the_same_partial_without_the_page(
    client: TestClient, small: MeasuredRoofline
) -> None:
    page = client.get("/roofline").text
    r = client.get("/roofline/panel", headers={"HX-Request": "true"})
    assert r.status_code == 200
    html = r.text
    assert html.lstrip().startswith('<div id="roofline"')
    assert "<html" not in html and "<main" not in html
    assert LABEL in html
    assert '<h3 id="roofline-title"' in html  # inside the evidence panel's h2
    assert _rows(html) == _rows(page)
    assert "hx-replace-url" not in {k.lower() for k in r.headers}  # the station's URL stays


def test_every_answer_comes_from_the_one_process_wide_measurement(
    client: TestClient, calls: list[int]
) -> None:
    first = client.get("/roofline/panel").text
    assert client.get("/roofline/panel").text == first
    # The routes ask the accessor (which measures once per process, tests/witness/
    # test_measured.py) on every request, and never measure themselves.
    assert len(calls) == 2


def test_the_answers_carry_the_security_headers_and_no_inline_style(client: TestClient) -> None:
    for path in ("/roofline", "/roofline/panel"):
        r = client.get(path)
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
        assert " style=" not in r.text and "<style" not in r.text
        for url in re.findall(r'(?:src|href|action)="([^"]+)"', r.text):
            assert url.startswith(("/", "#")), url


def test_the_station_offers_the_measurement_on_demand_and_never_makes_it(
    client: TestClient, calls: list[int]
) -> None:
    html = client.get("/station?pred=skip").text
    assert find(html, id="roofline", data_testid="roofline-entry")
    [link] = find(html, data_testid="roofline-measure")
    assert link.attrs["href"] == "/roofline"
    assert link.attrs["hx-get"] == "/roofline/panel"
    assert link.attrs["hx-target"] == "#roofline"
    assert link.attrs["hx-swap"] == "outerHTML"
    assert "Measure on this server" in html
    assert "/static/css/roofline.css" in html
    # A slider's answer leaves it where it is (a measurement stays on screen), and measures nothing.
    evidence = client.get("/station/evidence?pred=skip&k=6").text
    assert 'id="roofline"' not in evidence
    assert calls == []


def test_html_routes_stay_out_of_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not any(p.startswith("/roofline") for p in paths)


def test_the_chart_marks_where_the_model_turns_compute_bound(small: MeasuredRoofline) -> None:
    chart = roofline_view(small).chart
    xs = [p.x for p in chart.measured]
    assert xs == sorted(xs) and xs[0] == chart.left and xs[-1] == chart.right  # log-2 axis
    # Equal steps: each doubling of the vectors is the same distance along the axis.
    gaps = {round(b - a, 1) for a, b in zip(xs, xs[1:], strict=False)}
    assert len(gaps) == 1
    assert all(chart.top <= p.y <= chart.bottom for p in chart.measured + chart.model)
    knee = small.compute_bound_width
    if 1 < knee < 64:
        assert chart.knee_x is not None and xs[0] < chart.knee_x < xs[-1]
    else:
        assert chart.knee_x is None
    assert [t.text for t in chart.x_ticks] == ["1", "2", "4", "8", "16", "32", "64"]
    assert float(chart.y_ticks[-1].text) * 1e-3 >= max(
        max(p.seconds, p.model_seconds) for p in small.points
    )


def _run(ratios: list[float]) -> MeasuredRoofline:
    """A measurement with these ratios to one vector (the rest of its numbers plausible)."""
    widths = [1, 2, 4, 8, 16, 32, 64][: len(ratios)]
    pts = tuple(
        measured.MeasuredPoint(n, r * 1e-3, r, 20.0 / r, 2.0 * n / r, 1e-3)
        for n, r in zip(widths, ratios, strict=True)
    )
    return MeasuredRoofline(
        rows=8_192,
        cols=4_096,
        repeats=5,
        machine="a test CPU",
        cache_bytes=None,
        points=pts,
        bandwidth=20e9,
        flops=60e9,
        compute_bound_width=6.0,
    )


def test_the_heading_names_the_roofline_claim_and_this_servers_measurement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The heading never sets the GPU's "≈ one pass" above a CPU's rising curve as if the
    measurement bore it out: it names the claim and the measurement, each as what it is, and
    the reason beside it says why a numpy pass here and a GPU decode pass differ."""
    rising = roofline_view(_run([1.0, 3.07, 3.2, 3.5, 4.0, 5.0, 6.81]))
    assert rising.heading.key == "roofline.heading.rising"
    assert rising.heading.values == {"widest": 64, "ratio": "6.81×"}
    assert (
        "The roofline's claim" in rising.heading and "This server's measurement" in rising.heading
    )
    assert rising.why.key == "roofline.why.rising"
    assert rising.why.values["knee"] == "6.0" and rising.why.values["gpu_knee"] == "295"
    assert rising.why.values["flops"] == "60.0" and rising.why.values["bandwidth"] == "20.0"
    flat = roofline_view(_run([1.0, 1.05, 1.1, 1.1, 1.2, 1.3, 1.4]))
    assert flat.heading.key == "roofline.heading.flat"
    assert flat.heading.values == {"widest": 64, "ratio": "1.40×"}
    assert flat.why.key == "roofline.why.flat"
    # Drawn as the panel's heading, with the reason under it.
    monkeypatch.setattr(measured, "measured_here", lambda: _run([1.0, 3.07, 3.2, 3.5, 4, 5, 6.81]))
    with TestClient(create_app(settings=AppSettings())) as c:
        html = c.get("/roofline").text
    heading = re.search(r'<h2 id="roofline-title"[^>]*>(.*?)</h2>', html, re.S)
    assert heading is not None and unescape(heading.group(1)) == rising.heading
    assert "≈ one pass, measured here" not in unescape(html)
    assert rising.why in unescape(html)


def test_the_stations_entry_names_the_claim_as_the_gpus(client: TestClient) -> None:
    html = unescape(client.get("/station?pred=skip").text)
    heading = re.search(r'data-testid="roofline-entry-heading">(.*?)</h3>', html)
    assert heading is not None
    assert heading.group(1).startswith("The roofline's claim: one GPU decode pass")
