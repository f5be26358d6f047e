"""The tiny transformers' passes on /roofline: the sentences say the timing's numbers, in the
direction and mode the numbers take, and a broken timing changes what they say.

Timings are machine-dependent, so the view is read on stand-in timings built here (a shape
like this machine's, and broken ones), and the pages on the same stand-ins through the
routes; the real timing's shape is tests/witness/neural/test_timing.py's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app
from app.station.views import fmt
from app.station.views.roofline_passes import H200, LABEL_GAP, PassesView, passes_view
from tests.app.forms import find
from witness.cost import measured
from witness.cost.costing import costing
from witness.cost.measured import MeasuredRoofline
from witness.neural import timing
from witness.neural.timing import NEAR_ONE, K, NeuralPasses, TimedPasses, roofline_passes

STEP = 0.5e-3  # seconds of a stand-in step


def timed(v: Callable[[int], float], c_early: float = 0.31, c_draft: float = 0.37) -> TimedPasses:
    """A stand-in timing whose pass over s positions costs v(s) steps."""
    widths = tuple(range(1, 17))
    return TimedPasses(
        widths=widths,
        seconds=tuple(STEP * v(s) for s in widths),
        early_exit_seconds=STEP * c_early,
        draft_seconds=STEP * c_draft,
        repeats=15,
        prompt=64,
        layers=4,
        exit_layer=1,
    )


def machine(flops: float = 120e9) -> MeasuredRoofline:
    """A stand-in roofline measurement: 10.7 GB/s and ``flops``, like this machine's."""
    points = tuple(
        measured.MeasuredPoint(n, n * 1e-3, float(n), 10.7, 2.0 * n, 1e-3) for n in measured.WIDTHS
    )
    return MeasuredRoofline(8_192, 4_096, 5, "a test CPU", 32 * 2**20, points, 10.7e9, flops, 1.0)


def passes(t: TimedPasses, m: MeasuredRoofline | None = None) -> NeuralPasses:
    return NeuralPasses(t, roofline_passes(m or machine(), widths=t.widths))


RISING = timed(lambda s: 1.0 + 0.25 * (s - 1))  # like this machine: v(5) = 2, v(16) = 4.75
FLAT = timed(lambda s: 1.0)  # broken: every pass costs one step


def number(text: str) -> float:
    return float(text.rstrip("×"))


def test_the_verifying_sentence_says_the_timings_v5_and_that_it_is_not_one() -> None:
    view = passes_view(passes(RISING))
    assert view.verify.key == "roofline.passes.verify.dear"
    values = view.verify.values
    assert (values["k"], values["s"], values["top"]) == (K, K + 1, 16)
    assert number(str(values["v"])) == pytest.approx(RISING.v_at(K + 1), abs=0.005)
    assert number(str(values["v_top"])) == pytest.approx(RISING.v[-1], abs=0.005)
    assert number(str(values["v"])) > NEAR_ONE
    assert "not 1" in view.verify


def test_the_drafts_sentence_says_each_drafts_c() -> None:
    view = passes_view(passes(RISING))
    assert view.drafts.key == "roofline.passes.drafts.cheap"
    assert number(str(view.drafts.values["early"])) == pytest.approx(RISING.c_early_exit, abs=5e-3)
    assert number(str(view.drafts.values["draft"])) == pytest.approx(RISING.c_draft, abs=5e-3)
    assert view.drafts.values["share"] == "0.25"  # one of four layers
    assert (view.drafts.values["exit_layer"], view.drafts.values["layers"]) == (1, 4)


def test_the_roofline_sentence_says_its_flat_price_and_why_they_differ() -> None:
    n = passes(RISING)
    view = passes_view(n)
    assert view.roofline.key == "roofline.passes.roofline.flat"
    assert view.roofline.values["roof_top"] == "1.00"
    assert number(str(view.roofline.values["knee"])) == pytest.approx(
        n.roofline.compute_bound_width, abs=0.5
    )
    assert view.roofline.values["bandwidth"] == "10.7"
    assert view.roofline.values["flops"] == "120.0"
    assert view.why.key == "roofline.passes.why.dear"
    assert view.why.values["step"] == fmt.pass_ms(STEP * 1e3)
    assert view.why.values["roof_step"] == fmt.pass_ms(n.roofline.seconds[0] * 1e3)
    assert view.why.values["cache"].key == "roofline.passes.cache.inside"  # 1.5 MiB in 32 MiB
    assert number(str(view.why.values["per_position"])) == pytest.approx(0.25)  # (4.75 − 1)/15
    assert "not memory-bound" in view.why and "not free" in view.why


def test_the_round_is_priced_by_the_timed_ratios_and_the_committed_tokens() -> None:
    view = passes_view(passes(RISING))
    assert view.round is not None
    tokens = timing.committed_tokens_per_pass()
    assert tokens is not None
    v = RISING.v_at(K + 1)
    for draft, c in (("early", RISING.c_early_exit), ("draft", RISING.c_draft)):
        cost = K * c + v
        assert number(str(view.round.values[f"cost_{draft}"])) == pytest.approx(cost, abs=5e-3)
        per_pass = tokens["early_exit" if draft == "early" else draft]
        assert number(str(view.round.values[f"speed_{draft}"])) == pytest.approx(
            per_pass / cost, abs=5e-3
        )


def test_a_real_servers_price_is_read_from_the_h200s_timed_passes() -> None:
    view = passes_view(passes(RISING))
    said = view.machines.values
    timed_h200 = costing(H200)
    assert timed_h200.provenance(K + 1) == "measured"  # the sentence's "measured" is true
    assert number(str(said["v"])) == pytest.approx(timed_h200.verify(K + 1), abs=5e-3)
    assert number(str(said["c"])) == pytest.approx(timed_h200.c, abs=5e-3)
    assert 1.0 < number(str(said["v"])) < RISING.v_at(K + 1)  # dearer than one, far below here
    assert said["roof"] == "1.00"  # that GPU's roofline: verification rides along free
    assert (said["machine"], said["stack"]) == ("NVIDIA H200", "CUDA graphs")
    assert said["target"] == "Llama 3.1 8B" and said["context"] == 512


def test_teeth_a_flat_timing_is_said_to_be_flat_not_dear() -> None:
    """v forced to 1 everywhere: the page must not keep claiming the pass costs more."""
    view = passes_view(passes(FLAT))
    assert view.verify.key == "roofline.passes.verify.about_one"
    assert view.verify.values["v"] == "1.00" and view.verify.values["v_top"] == "1.00"
    assert "not 1" not in view.verify
    assert view.why.key == "roofline.passes.why.flat"
    assert "not free" not in view.why and "not memory-bound" not in view.why
    # Both lines lie on one another: their end labels part so neither hides the other.
    chart = view.chart
    assert chart.timed_path == chart.roofline_path
    assert abs(chart.timed_label.y - chart.roofline_label.y) >= LABEL_GAP


def test_teeth_a_step_under_one_is_read_as_noise_and_a_dear_draft_is_said() -> None:
    noisy = passes_view(passes(timed(lambda s: 0.8 if s == K + 1 else 1.0 + 0.2 * (s - 1))))
    assert noisy.verify.key == "roofline.passes.verify.cheaper"
    assert noisy.verify.values["v"] == "0.80"
    dear = passes_view(passes(timed(lambda s: float(s), c_early=1.2, c_draft=0.4)))
    assert dear.drafts.key == "roofline.passes.drafts.dear"
    assert dear.drafts.values["early"] == "1.20"
    assert "share" not in dear.drafts.values


def test_teeth_a_machine_short_of_compute_makes_the_roofline_rise() -> None:
    view = passes_view(passes(RISING, machine(flops=5e9)))
    assert view.roofline.key == "roofline.passes.roofline.rising"
    assert number(str(view.roofline.values["roof_top"])) > 1.0


def test_the_chart_draws_both_curves_on_one_scale() -> None:
    n = passes(RISING)
    chart = passes_view(n).chart
    xs = [p.x for p in chart.timed]
    assert xs == [p.x for p in chart.roofline]
    assert xs[0] == chart.left and xs[-1] == chart.right
    assert len({round(b - a, 1) for a, b in zip(xs, xs[1:], strict=False)}) == 1  # linear in s
    assert all(chart.top <= p.y <= chart.bottom for p in chart.timed + chart.roofline)
    # Higher v is higher on the chart; the roofline's flat line is level.
    ys = [p.y for p in chart.timed]
    assert ys == sorted(ys, reverse=True)
    assert len({p.y for p in chart.roofline}) == 1
    assert float(chart.y_ticks[-1].text) >= max(n.timed.v)
    assert chart.timed_label.x > chart.right and chart.roofline_label.x > chart.right
    assert chart.timed_label.text == "timed here" and chart.roofline_label.text == "roofline"
    assert "5" in [t.text for t in chart.x_ticks]  # the k = 4 the sentences name


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[TimedPasses], TestClient]]:
    """A fresh app whose routes see this timing and a stand-in roofline measurement."""
    clients: list[TestClient] = []

    def make(t: TimedPasses) -> TestClient:
        monkeypatch.setattr(timing, "timed_here", lambda: t)
        monkeypatch.setattr(measured, "measured_here", machine)
        client = TestClient(create_app(settings=AppSettings()))
        clients.append(client.__enter__())
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)


def _section(html: str) -> str:
    found = re.search(r'<section class="roofline__passes".*?</section>', html, re.S)
    assert found is not None, "no passes section"
    return found.group(0)


def _rows(html: str) -> list[list[str]]:
    body = re.search(r'data-testid="roofline-passes-table">.*?<tbody>(.*?)</tbody>', html, re.S)
    assert body is not None
    return [
        [unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body.group(1))
    ]


def _said(view: PassesView) -> list[str]:
    out = [view.heading, view.verify, view.drafts, view.roofline, view.why, view.machines]
    return [*out, view.setup, *([view.round] if view.round else [])]


def test_the_page_and_the_fragment_carry_the_section_with_its_chart_and_table(
    on: Callable[[TimedPasses], TestClient],
) -> None:
    client = on(RISING)
    view = passes_view(passes(RISING))
    for path, level in (("/roofline", 3), ("/roofline/panel", 4)):
        html = client.get(path).text
        section = _section(html)
        text = unescape(section)
        assert f'<h{level} id="roofline-passes-title">' in section  # under the panel's heading
        for sentence in _said(view):
            assert sentence in text, sentence
        assert text.count(view.verify) >= 2  # said, and in the chart's title
        [svg] = find(section, data_testid="chart-roofline-passes", role="img")
        assert svg.attrs["aria-labelledby"] == "roofline-passes-chart-title"
        assert section.count('class="m-measured"') == 16
        assert section.count('class="m-model"') == 16
        assert _rows(section) == [
            [r.s, r.timed_ms, r.timed_v, r.roofline_ms, r.roofline_v] for r in view.rows
        ]
        assert [row[0] for row in _rows(section)] == [str(s) for s in range(1, 17)]
        assert _rows(section)[K][2] == view.verify.values["v"]  # the table says what the words say
        assert " style=" not in section and "<script" not in section


def test_teeth_the_page_says_what_a_broken_timing_shows(
    on: Callable[[TimedPasses], TestClient],
) -> None:
    text = unescape(_section(on(FLAT).get("/roofline").text))
    assert passes_view(passes(FLAT)).verify in text
    assert "not 1." not in text and "not free" not in text
    assert {row[2] for row in _rows(text)} == {"1.00"}


def test_the_timing_is_asked_of_the_process_wide_accessor_on_each_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []

    def here() -> TimedPasses:
        asked.append(1)
        return RISING

    monkeypatch.setattr(timing, "timed_here", here)
    monkeypatch.setattr(measured, "measured_here", machine)
    with TestClient(create_app(settings=AppSettings())) as client:
        first = client.get("/roofline/panel").text
        assert client.get("/roofline/panel").text == first
        # The station's slider answers never time anything.
        client.get("/station/evidence?pred=skip&k=6")
    assert asked == [1, 1]


@pytest.fixture(autouse=True)
def _no_real_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail loudly if a test here would time the real pair (the stand-ins are the point)."""

    def refuse(**_: object) -> TimedPasses:
        raise AssertionError("a test of the view timed the real pair")

    monkeypatch.setattr(timing, "measure_passes", refuse)
