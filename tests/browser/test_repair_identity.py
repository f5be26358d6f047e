"""The repair identity drawn, in a real browser: min(p, q) + (1 − α)·residual = p, bar by bar.

A recorded skip at the default settings opens the evidence at the first rejection. There the
repair chart stacks two segments per token whose drawn heights, in screen pixels, add up to
p's outline; with repair off they do not. The focus token's bar and label are on screen
whatever its size, and axe finds nothing to fix.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.app.view_models import page_view
from tests.browser.helpers import axe, open_fold

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"  # a recorded skip at the defaults: evidence open
SKIP_URL = f"/station?{SKIP}"
PIXEL = 0.5  # the chart is scaled to the page; its edges are rounded to 0.01 user units

# Per bar: the drawn height of each segment, of p's outline, and whether it is the focus.
MEASURE = """svg => [...svg.querySelectorAll('[data-testid="repair-bar"]')].map(g => {
  const h = sel => { const el = g.querySelector(sel); return el ? el.getBoundingClientRect().height : null; };
  return {
    word: g.dataset.word,
    focus: g.dataset.focus === 'yes',
    accepted: h('[data-segment="accepted"]'),
    top: h('[data-segment="repair"], [data-segment="resample"]'),
    series: g.querySelector('[data-segment="repair"]') ? 'repair' : 'resample',
    outline: h('[data-outline="p"]'),
    stub: h('[data-segment="stub"]'),
  };
})"""


def _bars(page: Page) -> list[dict[str, Any]]:
    chart = page.get_by_test_id("chart-repair")
    expect(chart).to_be_visible()
    chart.scroll_into_view_if_needed()
    bars: list[dict[str, Any]] = chart.evaluate(MEASURE)
    return bars


def test_the_stacked_segments_fill_p_bar_by_bar(page: Page) -> None:
    page.goto(SKIP_URL)
    open_fold(page, "worked")
    bars = _bars(page)
    chart = page_view(SKIP_URL).evidence.detail.chart  # type: ignore[union-attr]
    assert [b["word"] for b in bars] == [b.word for b in chart.bars]
    assert len(bars) >= 2
    for b in bars:
        assert b["series"] == "repair"
        assert b["accepted"] is not None and b["top"] is not None and b["outline"] is not None
        assert abs(b["accepted"] + b["top"] - b["outline"]) <= PIXEL, b
    # The focus token: its bar has a visible height and its label is on screen.
    (focus,) = [b for b in bars if b["focus"]]
    assert focus["word"] == bars[0]["word"]
    assert max(focus["accepted"] + focus["top"], focus["outline"], focus["stub"] or 0) >= 2
    label = page.get_by_test_id("repair-focus-label")
    expect(label).to_be_visible()
    expect(label).to_contain_text(f"'{focus['word']}': p ")
    expect(page.get_by_test_id("repair-focus-marker")).to_be_visible()
    # The text alternative states the identity with the focus token's numbers.
    figure = page.get_by_test_id("repair-figure")
    expect(figure.locator("figcaption")).to_contain_text(chart.identity)
    expect(figure.locator("figcaption")).to_contain_text("= p")
    axe(page, "the repair identity, repair on")


def test_with_repair_off_the_outline_shows_the_gap(page: Page) -> None:
    page.goto(f"{SKIP_URL}&repair=off")
    open_fold(page, "worked")
    bars = _bars(page)
    assert all(b["series"] == "resample" for b in bars)
    gaps = [abs(b["accepted"] + b["top"] - b["outline"]) for b in bars]
    assert max(gaps) > 2, gaps  # whole pixels: the stack is not p
    expect(page.get_by_test_id("repair-figure").locator("figcaption")).to_contain_text("≠ p")
    expect(page.get_by_test_id("repair-focus-label")).to_be_visible()
    axe(page, "the repair identity, repair off")


def test_the_numbers_bar_by_bar_open_from_the_keyboard(page: Page) -> None:
    page.goto(SKIP_URL)
    open_fold(page, "worked")
    figure = page.get_by_test_id("repair-figure")
    summary = figure.locator("details.repair-numbers > summary")
    summary.focus()
    page.keyboard.press("Enter")
    table = page.get_by_test_id("repair-table")
    expect(table).to_be_visible()
    expect(table.locator("tbody tr")).to_have_count(len(_bars(page)))
    expect(table.locator("tbody tr").first).to_contain_text("= p")
    axe(page, "the repair numbers open")
