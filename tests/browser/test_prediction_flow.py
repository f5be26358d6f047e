"""Prediction first in a real browser: the intervention is applied visibly and can
be undone, with htmx and without JavaScript; presets that name the outcome wait for the
prediction; a copied or shared link opens at the prediction unless the sharer includes it."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.helpers import PREDICTED_URL, BrowserMonitor, axe, is_evidence, open_fold

PREDICTION_PARAMS = {"pred", "expect_faster", "expect_kept", "base"}


def query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


@pytest.fixture
def page_without_js(new_context: Callable[..., BrowserContext]) -> Page:
    return new_context(java_script_enabled=False).new_page()


def record_lengthen_k(page: Page) -> None:
    page.locator("label[for='pred-lengthen_k']").click()
    page.locator("label[for='ef-yes']").click()
    page.locator("label[for='ek-yes']").click()
    page.get_by_test_id("record-prediction").click()
    expect(page).to_have_url(re.compile(r"pred=lengthen_k.*#prediction-change$"))


# --------------------------------------------------------------------------- applied, visibly


def test_recording_says_what_was_applied_and_undo_goes_back(page: Page) -> None:
    page.goto("/")
    expect(page.get_by_test_id("prediction-terms")).to_be_visible()
    expect(page.get_by_test_id("prediction-terms")).to_contain_text("Draft lane")
    record_lengthen_k(page)
    sentence = page.get_by_test_id("change-sentence")
    expect(sentence).to_have_text("Your intervention was applied: k 4 → 8.")
    expect(sentence).to_be_in_viewport()  # the page opens at it
    expect(page.get_by_test_id("value-k")).to_have_text("8")
    axe(page, "intervention applied")

    page.get_by_test_id("undo-intervention").click()
    expect(page.get_by_test_id("value-k")).to_have_text("4")
    expect(sentence).to_have_text(
        "Your intervention is undone: the instrument is back at the prediction's settings (k 4)."
    )
    # The prediction stays recorded, and the evidence open, at its own settings.
    expect(page.get_by_test_id("prediction-status")).to_have_text(
        "Predicted: Lengthen the draft (k)"
    )
    assert query(page.url)["base"] == "0.6,4,0.1,1,1,0"
    assert "k" not in query(page.url)
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text(
        "Nothing has changed since the prediction"
    )
    page.get_by_test_id("redo-intervention").click()
    expect(page.get_by_test_id("value-k")).to_have_text("8")
    expect(sentence).to_have_text("Your intervention was applied: k 4 → 8.")


def test_the_change_line_follows_a_slider_and_its_undo_still_goes_back(page: Page) -> None:
    page.goto(PREDICTED_URL)
    with page.expect_response(is_evidence):
        page.locator("#in-k").press("ArrowRight")
    expect(page.get_by_test_id("change-sentence")).to_have_text(
        "The instrument has moved since your prediction: k 4 → 9."
    )
    undo = page.get_by_test_id("undo-intervention")
    expect(undo).to_have_text("Back to the prediction's settings (k 4)")
    undo.click()
    expect(page.get_by_test_id("value-k")).to_have_text("4")
    expect(page.locator("#in-k")).to_have_value("4")
    assert query(page.url)["pred"] == "lengthen_k"
    axe(page, "intervention undone")


def test_a_skip_changes_nothing(page: Page) -> None:
    page.goto("/station?k=6")
    page.get_by_test_id("skip-prediction").click()
    expect(page).to_have_url(re.compile(r"pred=skip"))
    expect(page.get_by_test_id("change-sentence")).to_have_text(
        "You skipped: nothing on the instrument was changed."
    )
    expect(page.get_by_test_id("value-k")).to_have_text("6")
    expect(page.get_by_test_id("undo-intervention")).to_have_count(0)


def test_without_javascript_the_intervention_is_shown_and_undone(
    page_without_js: Page, monitor: BrowserMonitor
) -> None:
    page = page_without_js
    page.goto("/station?match=0.4")
    page.locator("label[for='pred-raise_match']").click()
    page.get_by_test_id("record-prediction").click()
    expect(page.get_by_test_id("change-sentence")).to_have_text(
        "Your intervention was applied: match 0.40 → 0.70."
    )
    expect(page.get_by_test_id("value-match")).to_have_text("0.70")
    page.get_by_test_id("undo-intervention").click()
    expect(page.get_by_test_id("value-match")).to_have_text("0.40")
    expect(page.get_by_test_id("prediction-status")).to_have_text(
        "Predicted: Raise draft-target match"
    )
    assert not [u for u in monitor.requests if "/station/evidence" in u or u.endswith(".js")]


# --------------------------------------------------------------------------- presets


def test_presets_that_name_the_outcome_appear_after_the_prediction(page: Page) -> None:
    page.goto("/")
    open_fold(page, "presets")
    expect(page.get_by_test_id("preset-well-matched")).to_be_visible()
    for held in ("unsafe-shortcut", "draft-too-slow", "verify-off", "k-past-optimum", "p-equals-q"):
        expect(page.get_by_test_id(f"preset-{held}")).to_have_count(0)
    expect(page.get_by_test_id("presets-later")).to_contain_text("appear after you predict")
    expect(page.get_by_test_id("classroom")).not_to_contain_text("unsafe shortcut")
    axe(page, "presets before the prediction")
    page.get_by_test_id("skip-prediction").click()
    expect(page.get_by_test_id("preset-unsafe-shortcut")).to_have_text(
        "The unsafe shortcut (repair off)"
    )
    expect(page.get_by_test_id("presets-later")).to_have_count(0)


# --------------------------------------------------------------------------- share


def test_the_copied_link_opens_at_the_prediction_unless_the_sharer_includes_it(
    new_context: Callable[..., BrowserContext], base_url: str
) -> None:
    first = new_context(permissions=["clipboard-read", "clipboard-write"])
    page = first.new_page()
    page.goto(f"{base_url}{PREDICTED_URL}")
    open_fold(page, "share")  # and it stays open while a slider redraws it
    expect(page.get_by_test_id("share-url")).to_be_visible()
    expect(page.get_by_test_id("share-url-full")).to_be_hidden()
    expect(page.get_by_test_id("share-include")).not_to_be_checked()

    page.get_by_test_id("copy-link").click()
    expect(page.locator("#copy-status")).to_have_text("Link copied: it opens at the prediction.")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert not set(query(link)) & PREDICTION_PARAMS, link
    assert query(link)["k"] == "8"
    assert urlsplit(link).fragment == "step-03"

    other = new_context().new_page()
    other.goto(link)
    expect(other.get_by_test_id("prediction-status")).to_have_text("No prediction yet")
    expect(other.get_by_test_id("evidence-locked")).to_be_visible()
    expect(other.get_by_test_id("value-k")).to_have_text("8")
    expect(other.get_by_test_id("prediction-form")).to_be_in_viewport()

    # Ticked, the field and Copy link give the full URL; the choice survives a slider move.
    page.get_by_test_id("share-include").check()
    expect(page.get_by_test_id("share-url-full")).to_be_visible()
    expect(page.get_by_test_id("share-url")).to_be_hidden()
    with page.expect_response(is_evidence):
        page.locator("#in-k").press("ArrowRight")
    expect(page.get_by_test_id("value-k")).to_have_text("9")
    expect(page.get_by_test_id("share-include")).to_be_checked()
    expect(page.get_by_test_id("share-url-full")).to_have_value(re.compile(r"k=9.*pred=lengthen_k"))
    page.get_by_test_id("copy-link").click()
    expect(page.locator("#copy-status")).to_have_text(
        "Link copied, with your prediction and its evidence."
    )
    full = page.evaluate("() => navigator.clipboard.readText()")
    assert full == page.url
    assert query(full)["pred"] == "lengthen_k"
    axe(page, "share with the prediction")


def test_without_javascript_the_box_switches_the_shown_link(page_without_js: Page) -> None:
    page = page_without_js
    page.goto(PREDICTED_URL)
    open_fold(page, "share")
    expect(page.get_by_test_id("copy-link")).to_be_hidden()  # needs a script
    field, full = page.get_by_test_id("share-url"), page.get_by_test_id("share-url-full")
    expect(field).to_be_visible()
    expect(full).to_be_hidden()
    assert "pred=" not in (field.input_value())
    page.get_by_label("include my prediction and its evidence").check()
    expect(full).to_be_visible()
    expect(field).to_be_hidden()
    assert "pred=lengthen_k" in full.input_value()
