"""The measured roofline in a real browser: from the station's evidence, "Measure on this
server" swaps the panel in place (chart and table), from the mouse and from the keyboard;
axe finds nothing; without JavaScript the same link opens the panel's own page.

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
    # The chart and the table scroll sideways on a phone: each is a tab stop.
    figure = page.locator("#roofline figure.chart")
    figure.focus()
    expect(figure).to_be_focused()
    table = page.get_by_test_id("roofline-table-wrap")
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


def test_at_390px_the_chart_scales_to_the_width(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/roofline")
    _check_panel(page)
    wide = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert wide <= 0, f"the page scrolls sideways by {wide} px"
    fits = page.locator("#roofline figure.chart").evaluate(
        "el => el.querySelector('svg').getBoundingClientRect().right"
        " <= el.getBoundingClientRect().right + 0.5 && el.scrollWidth <= el.clientWidth + 1"
    )
    assert fits, "the chart does not scale to the phone's width"
