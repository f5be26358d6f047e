"""The drafting control in a real browser: reached and opened by keyboard, followed live by
the server's sentence and the evidence, its presets, the plain form with JavaScript off, and
axe on a tree state."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from app.station.state.presets import BY_ID
from tests.browser.helpers import BrowserMonitor, axe, is_evidence, open_fold

SKIPPED = "/station?pred=skip"


def query(page: Page) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).query))


def expect_422(monitor: BrowserMonitor) -> None:
    """A refused value answers 422 on purpose; chromium logs that page load as an error."""
    monitor.allow_console_error(
        r"^Failed to load resource: the server responded with a status of 422"
    )


def test_the_control_opens_by_keyboard_and_follows_the_width_live(
    page: Page, monitor: BrowserMonitor
) -> None:
    expect_422(monitor)  # one refused width, on purpose
    page.goto(SKIPPED)
    details = page.get_by_test_id("drafting")
    expect(details).not_to_have_attribute("open", "")
    # Reached with Tab from the control before it, opened with Enter.
    page.locator("#next-request").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("drafting-toggle")).to_be_focused()
    page.keyboard.press("Enter")
    expect(details).to_have_attribute("open", "")
    expect(page.get_by_test_id("drafting-summary")).to_have_text(
        "A chain of 4 drafts per full block, all scored in one target pass."
    )
    before = page.get_by_test_id("figures").inner_text()
    width = page.locator("#in-tree_width")
    width.focus()
    with page.expect_response(is_evidence) as answer:
        page.keyboard.press("ArrowRight")
    assert answer.value.status == 200
    expect(page).to_have_url(re.compile(r"[?&]tree_width=2(&|$)"))
    assert query(page)["pred"] == "skip"
    expect(page.get_by_test_id("value-tree_width")).to_have_text("2")
    expect(page.get_by_test_id("drafting-summary")).to_contain_text(
        "A tree 2 wide and 4 deep: 2 + 4 + 8 + 16 = 30 drafted nodes"
    )
    expect(page.get_by_test_id("drafting-depth")).to_contain_text("At width 2, k is at most 5")
    expect(page.get_by_test_id("figures")).not_to_have_text(before)
    expect(width).to_be_focused()  # the input was not replaced under the learner's hands
    # A refused width: the message appears beside the control, and the page keeps working.
    with page.expect_response(is_evidence) as answer:
        page.keyboard.press("End")
    assert answer.value.status == 422
    expect(page.get_by_test_id("error-tree_width")).to_contain_text("at width 4, k is at most 2")
    with page.expect_response(is_evidence):
        page.keyboard.press("Home")
    expect(page.get_by_test_id("error-tree_width")).to_have_text("")
    expect(page.get_by_test_id("drafting-summary")).to_contain_text("A chain of 4 drafts")


@pytest.mark.parametrize(
    ("preset", "url"),
    [
        ("tree-of-two", "/station"),
        ("eagle-top-k", "/station"),
        ("medusa-typical", SKIPPED),  # its hint names the outcome: offered after a prediction
        ("prompt-lookup", "/station"),
    ],
)
def test_each_drafting_preset_loads_with_its_hint(page: Page, preset: str, url: str) -> None:
    page.goto(url)
    open_fold(page, "presets")
    page.get_by_test_id(f"preset-{preset}").click()
    p = BY_ID[preset]
    hint = page.get_by_test_id("preset-hint")
    expect(hint).to_contain_text(p.title)
    expect(hint).to_contain_text(p.hint)
    expect(page.get_by_test_id("drafting")).to_have_attribute("open", "")
    q = query(page)
    for name in ("tree_width", "drafting", "acceptance", "draft_source"):
        if name in p.values:
            assert q[name] == str(p.values[name]), name
    if preset == "prompt-lookup":
        expect(page.get_by_test_id("drafting-summary")).to_contain_text("No draft model")
        expect(page.locator("#in-prompt")).to_have_value(p.values["prompt"])
    else:
        expect(page.get_by_test_id("drafting-summary")).to_contain_text("30 drafted nodes")


def test_without_javascript_the_form_submits_the_drafting_settings(
    new_context: Callable[..., BrowserContext], monitor: BrowserMonitor
) -> None:
    page = new_context(java_script_enabled=False).new_page()
    page.goto("/station")
    page.get_by_test_id("drafting-toggle").click()
    page.locator("#in-tree_width").focus()
    page.keyboard.press("ArrowRight")  # a range input moves without any script
    page.locator("label[for='in-drafting-top']").click()
    page.get_by_test_id("run-witness").click()
    expect(page).to_have_url(re.compile(r"/station\?.*tree_width=2"))
    assert query(page)["drafting"] == "top"
    expect(page.get_by_test_id("drafting")).to_have_attribute("open", "")
    expect(page.get_by_test_id("drafting-summary")).to_contain_text("A tree 2 wide and 4 deep")
    expect(page.locator("#in-drafting-top")).to_be_checked()
    # A refused combination, sent by the plain form: shown in place on the 422 page.
    expect_422(monitor)
    page.locator("label[for='in-draft_source-lookup']").click()
    page.get_by_test_id("run-witness").click()
    expect(page.get_by_test_id("error-draft_source")).to_contain_text("prompt lookup drafts one")
    assert not [u for u in monitor.requests if "/station/evidence" in u]


def test_a_tree_state_is_axe_clean(page: Page) -> None:
    page.goto(f"{SKIPPED}&tree_width=2&drafting=top&acceptance=typical")
    expect(page.get_by_test_id("drafting")).to_have_attribute("open", "")
    axe(page, "tree, top drafting, typical acceptance")
    expect_state = page.get_by_test_id("drafting-note").first
    expect(expect_state).to_contain_text("not lossless")


def test_the_models_switch_live_by_keyboard_and_the_transformer_state_is_axe_clean(
    page: Page,
) -> None:
    page.goto(SKIPPED)
    page.get_by_test_id("drafting-toggle").click()
    with page.expect_response(is_evidence) as answer:
        page.locator("#in-models-early-exit").check()  # a radio: Space or a click checks it
    assert answer.value.status == 200
    expect(page).to_have_url(re.compile(r"[?&]models=early-exit(&|$)"))
    note = page.get_by_test_id("drafting-note").first
    expect(note).to_contain_text("At match 0.60 the layer-1 exit is blended toward the target")
    # The served request is the transformers': characters, shown as tokens.
    page.goto(f"{SKIPPED}&models=small-draft")
    expect(page.get_by_test_id("drafting")).to_have_attribute("open", "")
    expect(page.locator("#in-models-small-draft")).to_be_checked()
    axe(page, "the tiny transformers, the 1-layer draft")
