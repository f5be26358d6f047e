"""The measured roofline in a real browser: from the station's evidence, "Measure on this
server" swaps the panel in place (chart and table, and the tiny transformers' passes timed
beside the roofline's price), from the mouse and from the keyboard; axe finds nothing;
without JavaScript the same link opens the panel's own page.

The live server measures for real (the 128 MiB matrix, ~2 s, once for the whole session),
so the first wait is generous. Every test also passes through the autouse ``monitor``
(conftest.py): no console error, page error, dialog, request off the origin, or 5xx.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page, Response, expect

from tests.browser.helpers import axe, open_fold

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"  # a recorded skip: the evidence is open
MEASURING = 60_000  # ms: the first request times the real matrix on a shared machine
LABEL = "Measured on this server (not part of the deterministic witness)"
WIDTHS = ["1", "2", "4", "8", "16", "32", "64"]
POSITIONS = [str(s) for s in range(1, 17)]  # the tiny target's pass over s new positions


def is_panel(response: Response) -> bool:
    return "/roofline/panel" in response.url


def _check_panel(page: Page) -> None:
    panel = page.get_by_test_id("roofline")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("roofline-entry")).to_have_count(0)  # swapped, not appended
    expect(panel.get_by_test_id("roofline-label")).to_have_text(LABEL)
    chart = panel.get_by_test_id("chart-roofline")
    expect(chart).to_be_visible()
    expect(chart.locator("circle.m-measured")).to_have_count(len(WIDTHS) + 1)  # + legend
    expect(chart.locator("rect.m-model")).to_have_count(len(WIDTHS) + 1)
    rows = panel.get_by_test_id("roofline-table").locator("tbody tr")
    expect(rows).to_have_count(len(WIDTHS))
    assert rows.locator("th").all_inner_texts() == WIDTHS
    expect(rows.first.locator("td").nth(1)).to_have_text("1.00×")
    expect(panel.get_by_test_id("roofline-sentence")).to_have_text(
        re.compile(r"^64 vectors cost \d+\.\d\d× one vector: ")
    )
    expect(panel.get_by_test_id("roofline-machine")).to_contain_text("numpy")
    _check_passes(page)


def _check_passes(page: Page) -> None:
    """The tiny transformers' passes, timed on this server, beside the roofline's price."""
    passes = page.get_by_test_id("roofline-passes")
    expect(passes).to_be_visible()
    expect(passes.get_by_test_id("roofline-passes-verify")).to_have_text(
        re.compile(
            r"^Verifying 4 drafts is one target pass over 5 positions: here it .*\d\.\d\d steps"
        )
    )
    chart = passes.get_by_test_id("chart-roofline-passes")
    expect(chart).to_be_visible()
    expect(chart.locator("circle.m-measured")).to_have_count(len(POSITIONS))
    expect(chart.locator("rect.m-model")).to_have_count(len(POSITIONS))
    expect(chart.get_by_test_id("roofline-passes-timed-label")).to_have_text("timed here")
    expect(chart.get_by_test_id("roofline-passes-roofline-label")).to_have_text("roofline")
    # The numbers are folded under the chart; a click (or Enter) on the summary opens them.
    numbers = passes.get_by_test_id("roofline-passes-numbers")
    numbers.locator("summary").click()
    expect(numbers).to_have_attribute("open", "")
    rows = passes.get_by_test_id("roofline-passes-table").locator("tbody tr")
    expect(rows.first).to_be_visible()
    expect(rows).to_have_count(len(POSITIONS))
    assert rows.locator("th").all_inner_texts() == POSITIONS
    expect(rows.first.locator("td").nth(1)).to_have_text("1.00")
    expect(passes.get_by_test_id("roofline-passes-machines")).to_contain_text("NVIDIA H200")


def test_measure_on_this_server_swaps_the_panel_in_and_is_axe_clean(page: Page) -> None:
    page.goto(f"/station?{SKIP}")
    open_fold(page, "roofline")
    link = page.get_by_role("link", name="Measure on this server")
    expect(link).to_be_visible()
    with page.expect_response(is_panel, timeout=MEASURING) as answer:
        link.click()
    assert answer.value.status == 200
    expect(page.get_by_test_id("roofline")).to_be_visible(timeout=MEASURING)
    _check_panel(page)
    assert urlsplit(page.url).path == "/station", "the station's URL is kept"
    axe(page, "the measured roofline in the evidence")


def test_the_entry_and_the_panel_work_from_the_keyboard(page: Page) -> None:
    page.goto(f"/station?{SKIP}")
    open_fold(page, "roofline")
    link = page.get_by_test_id("roofline-measure")
    # Reached with Tab from the sweep above it (its figure, downloads, table disclosure).
    page.locator("#sweep figure.chart").focus()
    for _ in range(12):
        page.keyboard.press("Tab")
        if link.evaluate("el => el === document.activeElement"):
            break
    expect(link).to_be_focused()
    with page.expect_response(is_panel, timeout=MEASURING):
        page.keyboard.press("Enter")
    expect(page.get_by_test_id("roofline")).to_be_visible(timeout=MEASURING)
    _check_panel(page)
    # The charts and the tables scroll sideways on a phone: each is a tab stop.
    figures = page.locator("#roofline figure.chart")
    expect(figures).to_have_count(2)  # the roofline, and the tiny transformers' passes
    for figure in figures.all():
        figure.focus()
        expect(figure).to_be_focused()
    for wrap in ("roofline-table-wrap", "roofline-passes-table-wrap"):
        table = page.get_by_test_id(wrap)
        table.focus()
        expect(table).to_be_focused()


def test_without_javascript_the_link_opens_the_page(
    new_context: Callable[..., BrowserContext],
) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"/station?{SKIP}")
    open_fold(page, "roofline")
    page.get_by_role("link", name="Measure on this server").click(timeout=MEASURING)
    page.wait_for_url("**/roofline", timeout=MEASURING)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    _check_panel(page)
    context.close()


def test_at_390px_the_charts_scale_to_the_width(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/roofline")
    _check_panel(page)
    wide = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert wide <= 0, f"the page scrolls sideways by {wide} px"
    for figure in page.locator("#roofline figure.chart").all():
        fits = figure.evaluate(
            "el => el.querySelector('svg').getBoundingClientRect().right"
            " <= el.getBoundingClientRect().right + 0.5 && el.scrollWidth <= el.clientWidth + 1"
        )
        assert fits, "a chart does not scale to the phone's width"
    axe(page, "the measured roofline's own page on a phone")
