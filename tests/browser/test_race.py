"""The policy race in a real browser: from the evidence of a recorded prediction, "Race the
policies" swaps the panel in place (table, chart, gates) from the mouse and from the
keyboard; axe finds nothing; without JavaScript the same link opens the page with the race
drawn inline (race=1).

Every test also passes through the autouse ``monitor`` (conftest.py): no console error, page
error, dialog, request off the origin, or 5xx.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import BrowserContext, Page, Response, expect

from tests.browser.helpers import PREDICTED_URL, axe, open_fold

POLICIES = ("fixed", "heuristic", "confidence", "oracle", "recovery")
RACING = 30_000  # ms: the race serves five policies on 32 seeded requests (under 1 s alone)


def is_race(response: Response) -> bool:
    return "/station/race" in response.url


def _check_panel(page: Page) -> None:
    panel = page.get_by_test_id("race")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("race-entry")).to_have_count(0)  # swapped, not appended
    table = panel.get_by_test_id("race-table")
    expect(table.locator("tbody tr")).to_have_count(len(POLICIES))
    for policy in POLICIES:
        expect(table.get_by_test_id(f"race-row-{policy}")).to_be_visible()
        expect(panel.get_by_test_id(f"race-gate-{policy}")).to_contain_text("keeps p")
    chart = panel.get_by_test_id("chart-race")
    expect(chart).to_be_visible()
    expect(chart.locator("g.race-row")).to_have_count(len(POLICIES))
    expect(chart.locator("title").first).to_contain_text("Tokens drafted per block")
    expect(panel.get_by_test_id("race-best")).to_contain_text("seeded requests")


def test_race_the_policies_swaps_the_panel_in_and_is_axe_clean(page: Page) -> None:
    page.goto(PREDICTED_URL)
    open_fold(page, "race")
    link = page.get_by_role("link", name="Race the policies")
    expect(link).to_be_visible()
    with page.expect_response(is_race, timeout=RACING) as answer:
        link.click()
    assert answer.value.status == 200
    expect(page.get_by_test_id("race")).to_be_visible(timeout=RACING)
    _check_panel(page)
    # The address bar now opens the same panel on a whole page.
    assert urlsplit(page.url).path == "/station"
    assert parse_qs(urlsplit(page.url).query).get("race") == ["1"]
    axe(page, "the policy race in the evidence")


def test_the_entry_and_the_panel_work_from_the_keyboard_on_a_phone(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(PREDICTED_URL)
    open_fold(page, "race")
    link = page.get_by_test_id("race-run")
    link.focus()
    expect(link).to_be_focused()
    with page.expect_response(is_race, timeout=RACING):
        page.keyboard.press("Enter")
    expect(page.get_by_test_id("race")).to_be_visible(timeout=RACING)
    _check_panel(page)
    # The chart and both tables scroll sideways on a phone: each is a tab stop.
    for target in (
        page.locator("#race figure.chart"),
        page.get_by_test_id("race-table-wrap"),
        page.get_by_test_id("race-gates-wrap"),
    ):
        target.focus()
        expect(target).to_be_focused()
    page.keyboard.press("Shift+Tab")  # and Tab moves on from them, nothing traps focus
    expect(page.get_by_test_id("race-gates-wrap")).not_to_be_focused()
    wide = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert wide <= 0, f"the page scrolls sideways by {wide} px"


def test_without_javascript_the_link_opens_the_page_with_the_race(
    new_context: Callable[..., BrowserContext],
) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(PREDICTED_URL)
    open_fold(page, "race")
    page.get_by_role("link", name="Race the policies").click()
    page.wait_for_url("**race=1**")
    _check_panel(page)
    tables = page.evaluate("() => document.querySelectorAll('#race table').length")
    assert tables == 2
