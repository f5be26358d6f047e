"""With JavaScript off the station still works: plain forms and links, whole pages."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.helpers import PREDICTED_URL, BrowserMonitor


@pytest.fixture
def page_without_js(new_context: Callable[..., BrowserContext]) -> Page:
    # new_context is the monitored factory from conftest.py: the same checks apply.
    return new_context(java_script_enabled=False).new_page()


def query(page: Page) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).query))


def assert_no_htmx(monitor: BrowserMonitor) -> None:
    """No script ran: every request was for a whole page or a static file."""
    fragments = [u for u in monitor.requests if "/station/evidence" in u]
    assert not fragments, f"a fragment was requested with JavaScript off: {fragments}"
    scripts = [u for u in monitor.requests if u.endswith(".js")]
    assert not scripts, f"scripts were fetched with JavaScript off: {scripts}"


def test_the_instrument_form_renders_the_updated_page(
    page_without_js: Page, monitor: BrowserMonitor
) -> None:
    page = page_without_js
    page.goto(PREDICTED_URL)
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("holds")
    k = page.locator("#in-k")
    k.focus()
    page.keyboard.press("ArrowRight")  # a range input moves without any script
    expect(k).to_have_value("9")
    page.locator("label[for='in-repair-off']").click()
    expect(page.locator("#in-repair-off")).to_be_checked()

    page.get_by_test_id("run-witness").click()
    expect(page).to_have_url(re.compile(r"/station\?.*[?&]?k=9(&|$)"))
    assert query(page)["repair"] == "off"
    assert query(page)["pred"] == "lengthen_k"  # the hidden fields kept the prediction
    expect(page.locator("#in-k")).to_have_attribute("value", "9")
    expect(page.get_by_test_id("value-k")).to_have_text("9")
    expect(page.locator("#in-repair-off")).to_have_attribute("checked", "")
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("fails")
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text(
        "Changing k 4 → 9, repair on → off "
    )
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("TV 0.")
    assert_no_htmx(monitor)


def test_the_prediction_form_records_a_prediction(
    page_without_js: Page, monitor: BrowserMonitor
) -> None:
    page = page_without_js
    page.goto("/station?match=0.4")
    expect(page.get_by_test_id("evidence-locked")).to_be_visible()
    page.locator("label[for='pred-raise_match']").click()
    page.locator("label[for='ef-yes']").click()
    page.locator("label[for='ek-yes']").click()
    page.get_by_test_id("record-prediction").click()

    expect(page).to_have_url(re.compile(r"/station\?.*pred=raise_match"))
    assert query(page)["match"] == "0.7"
    assert query(page)["base"] == "0.4,4,0.1,1,1,0"
    expect(page.get_by_test_id("evidence")).to_be_visible()
    expect(page.get_by_test_id("prediction-status")).to_have_text(
        "Predicted: Raise draft-target match"
    )
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text(
        "Raising match from 0.40 to 0.70 at k = 4 made it"
    )
    expect(page.get_by_test_id("verdict-judgement")).to_contain_text("Your prediction")
    assert_no_htmx(monitor)
