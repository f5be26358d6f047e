"""The stacked repair picture's geometry (app/station/views/charts.py `repair_chart`) and its partial.

Per token: min(p, q) at the bottom, the rejection's mass on top, p as an outline. With repair
on the two segments fill p's outline bar by bar (to the rounding of the drawn edges); with
repair off the outline shows the gap. The focus token is always visible and labelled.
"""

from __future__ import annotations

import re
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from app.rendering.templating import make_templates
from app.station.views.charts import (
    BASELINE_Y,
    PLOT_HEIGHT,
    BarChart,
    StackBar,
    exact,
    identity_text,
    repair_chart,
)
from witness import Settings, serve_request
from witness.core.trace import BlockTrace
from witness.models.laws import Law
from witness.serve.detail import repair_picture

ROUNDING = 0.011  # edges are drawn to 0.01 px; a difference of two rounded edges
REQUESTS = [
    Settings(),
    Settings(repair=False),
    Settings(k=1, seed=3),
    Settings(k=16, match=0.9, tokens=120),
    Settings(match=0.0, seed=2, prompt=""),
    Settings(match=0.2, seed=7, k=8),
    Settings(verify=False, k=5, tokens=31),
    Settings(greedy=True, match=0.2),
    Settings(greedy=True, match=0.0, repair=False),
    Settings(match=1.0),
    Settings(tokens=1, k=7),
    *(Settings(seed=seed, match=m, k=6) for seed in range(6) for m in (0.1, 0.5, 0.95)),
]
IDS = [repr(s.model_dump(exclude_defaults=True)) for s in REQUESTS]


def _charts(s: Settings) -> list[tuple[BlockTrace, BarChart]]:
    return [(b, repair_chart(b, s.repair)) for b in serve_request(s).blocks if b.focus is not None]


def _stack(b: StackBar) -> float:
    return b.accepted.height + b.rejection.height


@pytest.mark.parametrize("s", REQUESTS, ids=IDS)
def test_segments_stack_on_the_baseline_and_meet(s: Settings) -> None:
    for _, chart in _charts(s):
        for bar in chart.bars:
            a, r = bar.accepted, bar.rejection
            assert a.y + a.height == pytest.approx(BASELINE_Y, abs=ROUNDING)
            assert r.y + r.height == pytest.approx(a.y, abs=ROUNDING)  # no gap, no overlap
            assert bar.outline.y + bar.outline.height == pytest.approx(BASELINE_Y, abs=ROUNDING)
            assert min(a.height, r.height, bar.outline.height) >= 0
            assert (a.x, a.width) == (r.x, r.width) == (bar.outline.x, bar.outline.width)
            assert bar.mark_y == bar.outline.y  # p's mark sits on its outline's top
            assert bar.outline.y >= chart.baseline_y - PLOT_HEIGHT - ROUNDING
            assert r.y >= chart.baseline_y - PLOT_HEIGHT - ROUNDING  # nothing above the plot


@pytest.mark.parametrize(
    "s",
    [s for s in REQUESTS if s.repair],
    ids=[i for s, i in zip(REQUESTS, IDS, strict=True) if s.repair],
)
def test_with_repair_on_the_segments_fill_p_bar_by_bar(s: Settings) -> None:
    for _, chart in _charts(s):
        assert chart.top_series == "repair"
        for bar in chart.bars:
            assert bar.rejection.series == "repair"
            assert _stack(bar) == pytest.approx(bar.outline.height, abs=ROUNDING), bar.word
        assert all(r.relation == "=" for r in chart.rows)


def test_teeth_with_repair_off_the_outline_shows_the_gap() -> None:
    """The same request with repair off: the stack is (1 − α)·p on min(p, q), not p."""
    gaps = []
    for block, chart in _charts(Settings(repair=False)):
        assert chart.top_series == "resample"
        for bar, b in zip(chart.bars, block.bars, strict=True):
            assert bar.rejection.series == "resample"
            scale = bar.outline.height / b.p if b.p else 0.0
            if scale:
                assert _stack(bar) == pytest.approx((b.overlap + b.resample_mass) * scale, abs=0.02)
            gaps.append(abs(_stack(bar) - bar.outline.height))
        assert any(r.relation == "≠" for r in chart.rows)
    assert max(gaps) > 5  # whole pixels, not rounding


@pytest.mark.parametrize("s", REQUESTS, ids=IDS)
def test_the_focus_bar_is_always_visible_and_labelled(s: Settings) -> None:
    for block, chart in _charts(s):
        focus = chart.bars[0]
        assert block.focus is not None
        word = block.drafts[block.focus].word
        assert focus.focus and focus.word == word
        assert [b.focus for b in chart.bars].count(True) == 1
        assert focus.visible_height >= 2
        assert chart.callout is not None
        assert chart.callout.text.startswith(f"'{word}': p {exact(block.bars[0].p)} · q ")
        assert 0 <= chart.callout.x <= chart.width
        assert chart.identity in chart.summary
        if focus.zoom != 1.0:
            assert "too small to draw to scale" in chart.summary
            assert f"drawn ×{focus.zoom:.0f}" in chart.callout.text


def _tiny_focus(repair: bool) -> tuple[BlockTrace, BarChart]:
    """A served block with a rejection, its focus law swapped for one where the drafted
    token has p and q both below 0.001 and two other tokens carry the mass."""
    s = Settings(repair=repair)
    block = next(b for b in serve_request(s).blocks if b.result.first_rejection is not None)
    vocab = [f"w{i}" for i in range(12)]
    p = np.array([0.0002, 0.6, 0.3, *([0.0998 / 9] * 9)])
    q = np.array([0.0007, 0.2, 0.5, *([0.2993 / 9] * 9)])
    law = Law(p, q / q.sum())
    bars, top = repair_picture(vocab, law, 0)
    assert block.focus is not None
    d = replace(
        block.drafts[block.focus], word="w0", p=float(p[0]), q=float(law.q[0]), alpha=law.alpha
    )
    drafts = tuple(d if i == block.focus else x for i, x in enumerate(block.drafts))
    tiny = replace(block, drafts=drafts, bars=bars, residual_top=top, final_word="w1")
    return tiny, repair_chart(tiny, repair)


@pytest.mark.parametrize("repair", [True, False])
def test_a_focus_below_a_thousandth_is_drawn_magnified_with_its_numbers(repair: bool) -> None:
    block, chart = _tiny_focus(repair)
    focus = chart.bars[0]
    assert focus.zoom > 1
    assert focus.visible_height >= 2
    assert chart.callout is not None
    assert "'w0': p 0.0002 · q 0.0007" in chart.callout.text
    assert "drawn ×" in chart.callout.text
    assert "The bar of 'w0' is too small to draw to scale" in chart.summary
    if repair:
        assert _stack(focus) == pytest.approx(focus.outline.height, abs=ROUNDING)
        assert "'w0': min(p, q) 0.0002 + (1 − α) " in chart.summary
        assert "= 0.0002 = p" in chart.summary
    else:
        assert _stack(focus) > focus.outline.height + 1  # even magnified, the gap shows
        assert "≠ p 0.0002" in chart.summary
    # The other tokens are drawn to scale.
    assert all(b.zoom == 1.0 for b in chart.bars[1:])


def test_the_identity_reads_in_numbers() -> None:
    block, chart = _tiny_focus(True)
    assert block.focus is not None
    alpha = block.drafts[block.focus].alpha
    one_minus = exact(1 - alpha)
    w1 = next(b for b in block.bars if b.word == "w1")
    sentence = identity_text(w1, alpha, True)
    # With repair on the stack is min(p, q) + (1 − α)·residual, and it adds up to p itself.
    assert sentence.key == "charts.repair.identity.repair"
    assert sentence.values == {
        "word": "w1",
        "overlap": exact(w1.overlap),
        "one_minus": one_minus,
        "residual": exact(w1.residual),
        "total": exact(w1.p),
    }
    assert sentence.endswith(f"= {exact(w1.p)} = p")
    assert f"Repaired to {sentence}." in chart.summary
    # With repair off the same bar's stack is set against p, and falls short of it or not.
    resampled = identity_text(w1, alpha, False)
    assert resampled.key == "charts.repair.identity.resample"
    stack = w1.overlap + w1.resample_mass
    assert resampled.values["relation"] == ("=" if abs(stack - w1.p) <= 1e-12 else "≠")
    assert float(resampled.values["stack"]) == pytest.approx(stack, rel=0.05)  # type: ignore[arg-type]


def test_a_block_that_drafted_nothing_has_an_empty_picture() -> None:
    block = serve_request(Settings()).blocks[0]
    empty = replace(block, bars=(), residual_top=(), focus=None)
    chart = repair_chart(empty, True)
    assert chart.bars == () and chart.callout is None and chart.identity == ""
    assert "drafted nothing" in chart.summary


# --------------------------------------------------------------------------- the partial


def _render(chart: BarChart) -> str:
    template = make_templates().env.get_template("partials/_chart_repair.html")
    return template.render(d=SimpleNamespace(chart=chart))


def _attr(tag: str, name: str) -> str:
    m = re.search(rf'\b{name}="([^"]*)"', tag)
    assert m is not None, (name, tag)
    return m.group(1)


@pytest.mark.parametrize("repair", [True, False])
def test_the_partial_draws_what_the_view_computed(repair: bool) -> None:
    s = Settings(repair=repair)
    block = next(b for b in serve_request(s).blocks if b.result.first_rejection is not None)
    chart = repair_chart(block, repair)
    html = _render(chart)
    groups = re.findall(r'<g class="stack[^"]*" data-testid="repair-bar".*?</g>', html, re.S)
    assert len(groups) == len(chart.bars)
    for g, bar in zip(groups, chart.bars, strict=True):
        acc = re.search(r'<rect[^>]*data-segment="accepted"[^>]*>', g)
        top = re.search(r'<rect[^>]*data-segment="(repair|resample)"[^>]*>', g)
        outline = re.search(r'<rect[^>]*data-outline="p"[^>]*>', g)
        assert acc and top and outline
        assert float(_attr(acc.group(0), "height")) == bar.accepted.height
        assert float(_attr(top.group(0), "height")) == bar.rejection.height
        assert float(_attr(outline.group(0), "height")) == bar.outline.height
        assert top.group(1) == ("repair" if repair else "resample")
    assert 'data-focus="yes"' in groups[0]
    assert 'data-testid="repair-focus-label"' in html
    assert '<pattern id="hatch"' in html  # the repair segment's fill is defined with it
    assert html.count('data-testid="repair-bar"') == len(chart.bars)
    assert "min(p, q): accepted mass" in html  # the legend names each segment
    assert ("(1 − α)·residual: repair mass" in html) == repair
    assert ("(1 − α)·p: resampled (repair off)" in html) == (not repair)
    assert html.count("<tr") == len(chart.rows) + 1  # the numbers, bar by bar
