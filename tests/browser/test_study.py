"""The study card and the worksheet in a real browser: study memory, damage, axe, print.

Every test runs under the autouse monitor of conftest.py: no console error, no uncaught page
error, no dialog, no request off the station's origin (the arXiv link is never followed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.helpers import PREDICTED, BrowserMonitor, axe, seed_storage, storage_of

KEY = "tsl.study.speculative-decoding"
BACKUP = re.compile(rf"^{re.escape(KEY)}\.backup\.\d{{4}}-\d\d-\d\dT")
WORKSHEET = f"/station/worksheet?{PREDICTED}"
BAD_WORKSHEET = f"/station/worksheet?{PREDICTED}&seed=-5&colour=blue"


def expect_422(monitor: BrowserMonitor) -> None:
    """Chromium logs every 4xx page load as a console error; a bad link answers 422 on
    purpose, so that one message (and only in the tests that send one) is allowed."""
    monitor.allow_console_error(
        r"^Failed to load resource: the server responded with a status of 422 "
        r"\(Unprocessable Entity\)$"
    )


def open_study(page: Page, url: str = "/study") -> None:
    page.goto(url)
    expect(page.get_by_test_id("study-card")).to_have_attribute("data-ready", "true")


def assert_study_shape(entry: object) -> dict[str, object]:
    """The shape documented in docs/route-memory.md, "The study key"."""
    assert isinstance(entry, dict)
    assert list(entry) == ["version", "checked", "explanation", "review", "savedAt"]
    assert entry["version"] == 1
    checked = entry["checked"]
    assert isinstance(checked, list)
    assert all(isinstance(i, int) and 0 <= i < 4 for i in checked)
    assert len(set(checked)) == len(checked)
    assert isinstance(entry["explanation"], str) and len(entry["explanation"]) <= 4000
    assert isinstance(entry["review"], str) and len(entry["review"]) <= 4000
    assert isinstance(entry["savedAt"], str)
    datetime.fromisoformat(entry["savedAt"].replace("Z", "+00:00"))
    return entry


# --------------------------------------------------------------------------- study memory


def test_ticks_and_writing_survive_a_reload(page: Page) -> None:
    seed_storage(page, {})
    open_study(page)
    page.get_by_test_id("proof-1").check()
    page.get_by_test_id("proof-3").check()
    explanation = "A quick helper guesses a few words; the big model checks all of them at once."
    page.get_by_test_id("explanation").fill(explanation)
    page.get_by_test_id("review").fill("Faster: one big pass settles several words.")
    expect(page.get_by_test_id("study-status")).to_contain_text("Saved in this browser at")
    page.wait_for_function(
        "([key, text]) => (localStorage.getItem(key) || '').includes(text)",
        arg=[KEY, "settles several words"],
    )
    entry = assert_study_shape(json.loads(storage_of(page)[KEY]))
    assert entry["checked"] == [1, 3]
    assert entry["explanation"] == explanation
    assert entry["review"] == "Faster: one big pass settles several words."

    page.reload()
    expect(page.get_by_test_id("study-card")).to_have_attribute("data-ready", "true")
    expect(page.get_by_test_id("study-status")).to_contain_text("Restored your study notes")
    # A fresh page (no form-state restoration by the browser): the values come from storage.
    fresh = page.context.new_page()
    open_study(fresh)
    for p in (page, fresh):
        for i, ticked in enumerate((False, True, False, True)):
            box = p.get_by_test_id(f"proof-{i}")
            (expect(box).to_be_checked if ticked else expect(box).not_to_be_checked)()
        expect(p.get_by_test_id("explanation")).to_have_value(explanation)
        expect(p.get_by_test_id("review")).to_have_value(
            "Faster: one big pass settles several words."
        )

    fresh.get_by_test_id("proof-1").uncheck()
    fresh.wait_for_function(
        "key => JSON.parse(localStorage.getItem(key)).checked.length === 1", arg=KEY
    )
    assert assert_study_shape(json.loads(storage_of(fresh)[KEY]))["checked"] == [3]
    assert not any(BACKUP.match(k) for k in storage_of(fresh))  # its own saves need no backup


DAMAGED = {
    "not-json": ("{not json", "they are not valid JSON"),
    "oversized": (
        '{"version": 1, "review": "' + "x" * (64 * 1024) + '"}',
        "they are too large (65564 characters; the limit is 65536)",
    ),
    "wrong-type": (
        json.dumps(
            {
                "version": 1,
                "checked": "0,1",
                "explanation": "",
                "review": "",
                "savedAt": "2026-11-29T09:30:00.000Z",
            }
        ),
        "checked must list distinct item numbers from 0 to 3",
    ),
    "out-of-range": (
        json.dumps(
            {
                "version": 1,
                "checked": [0, 9],
                "explanation": "",
                "review": "",
                "savedAt": "2026-11-29T09:30:00.000Z",
            }
        ),
        "checked must list distinct item numbers from 0 to 3",
    ),
    "unknown-field": (
        json.dumps(
            {
                "version": 1,
                "checked": [],
                "explanation": "",
                "review": "",
                "savedAt": "2026-11-29T09:30:00.000Z",
                "html": "<b>x</b>",
            }
        ),
        'it has an unknown field "html"',
    ),
    "array": ("[1, 2, 3]", "it is not a JSON object"),
}


@pytest.mark.parametrize("case", list(DAMAGED))
def test_a_corrupt_study_blob_is_kept_aside_with_a_notice(page: Page, case: str) -> None:
    raw, why = DAMAGED[case]
    seed_storage(page, {KEY: raw})
    open_study(page)
    notices = page.get_by_test_id("study-notices")
    expect(notices).to_contain_text(f"Your saved study notes could not be used: {why}.")
    expect(notices).to_contain_text(f'They were kept aside as "{KEY}.backup.')
    expect(notices).to_contain_text("The card starts empty.")
    stored = storage_of(page)
    assert KEY not in stored
    backups = {k: v for k, v in stored.items() if BACKUP.match(k)}
    assert list(backups.values()) == [raw]  # kept byte for byte, never deleted
    for i in range(4):
        expect(page.get_by_test_id(f"proof-{i}")).not_to_be_checked()
    expect(page.get_by_test_id("explanation")).to_have_value("")
    # The card still works: a tick is saved as a fresh, valid entry beside the backup.
    page.get_by_test_id("proof-0").check()
    page.wait_for_function("key => localStorage.getItem(key) !== null", arg=KEY)
    assert assert_study_shape(json.loads(storage_of(page)[KEY]))["checked"] == [0]
    assert {k: v for k, v in storage_of(page).items() if BACKUP.match(k)} == backups


def test_a_newer_study_entry_is_left_alone_until_the_learner_saves(page: Page) -> None:
    newer = json.dumps({"version": 2, "ticks": {"a": True}})
    seed_storage(page, {KEY: newer})
    open_study(page)
    expect(page.get_by_test_id("study-notices")).to_contain_text("from a newer version (2)")
    assert storage_of(page)[KEY] == newer  # untouched by reading
    page.get_by_test_id("proof-2").check()
    page.wait_for_function("key => localStorage.getItem(key).includes('\"version\":1')", arg=KEY)
    stored = storage_of(page)
    assert assert_study_shape(json.loads(stored[KEY]))["checked"] == [2]
    assert [v for k, v in stored.items() if BACKUP.match(k)] == [newer]


def test_storage_that_is_unavailable_leaves_the_card_working(
    new_context: Callable[..., BrowserContext], base_url: str
) -> None:
    context = new_context()
    context.add_init_script(
        "Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('blocked', 'SecurityError'); } });"
    )
    page = context.new_page()
    open_study(page, f"{base_url}/study")
    expect(page.get_by_test_id("study-status")).to_contain_text(
        "Study memory is off for this visit"
    )
    page.get_by_test_id("proof-0").check()
    expect(page.get_by_test_id("study-status")).to_contain_text("Not saved")
    expect(page.get_by_test_id("proof-0")).to_be_checked()


# --------------------------------------------------------------------------- design form


def test_the_design_form_shows_feedback_in_place_without_javascript(
    new_context: Callable[..., BrowserContext], base_url: str
) -> None:
    page = new_context(java_script_enabled=False).new_page()
    page.goto(f"{base_url}/study")
    page.get_by_label("draftStrategy · Draft strategy").fill("prompt lookup from the context")
    page.get_by_label("acceptanceRate · Acceptance rate").fill("high")
    page.get_by_test_id("check-outline").click()
    page.wait_for_url(re.compile(r"/study\?draft_strategy=prompt\+lookup.*#design$"))
    expect(page.get_by_test_id("feedback-draft_strategy")).to_contain_text(
        "✓ Named: draftStrategy names a concrete mechanism: an n-gram / prompt-lookup draft."
    )
    expect(page.get_by_test_id("feedback-verification")).to_contain_text("verification is empty")
    expect(page.get_by_test_id("feedback-acceptance_rate")).to_contain_text(
        "“high” says what you want, not how"
    )
    expect(page.get_by_label("draftStrategy · Draft strategy")).to_have_value(
        "prompt lookup from the context"
    )
    expect(page.get_by_label("acceptanceRate · Acceptance rate")).to_have_accessible_description(
        re.compile(r"For example: .*✗ Missing: acceptanceRate is too short")
    )


def test_the_worksheet_works_without_javascript(
    new_context: Callable[..., BrowserContext], base_url: str
) -> None:
    page = new_context(java_script_enabled=False).new_page()
    page.goto(f"{base_url}{WORKSHEET}")
    expect(page.get_by_test_id("ws-figure-1")).to_have_text("14 plain decoding needs 48")
    expect(page.get_by_test_id("back-to-station")).to_be_visible()
    expect(page.get_by_test_id("print-worksheet")).to_be_hidden()  # it needs JavaScript


# --------------------------------------------------------------------------- accessibility


@pytest.mark.parametrize(
    "url",
    [
        "/study",
        "/study?draft_strategy=a+small+draft+model&verification=&acceptance_rate=high&failure_mode=memory",
        WORKSHEET,
        "/station/worksheet",
        BAD_WORKSHEET,
    ],
    ids=[
        "study-empty",
        "study-feedback",
        "worksheet-predicted",
        "worksheet-unpredicted",
        "worksheet-422",
    ],
)
def test_axe_passes(page: Page, monitor: BrowserMonitor, url: str) -> None:
    if url == BAD_WORKSHEET:
        expect_422(monitor)
    response = page.goto(url)
    assert response is not None
    assert response.status == (422 if url == BAD_WORKSHEET else 200)
    expect(page.locator("h1")).to_be_visible()
    if url.startswith("/study"):
        expect(page.get_by_test_id("study-card")).to_have_attribute("data-ready", "true")
    axe(page, url)


@pytest.mark.parametrize("url", ["/study?draft_strategy=x&verification=y", WORKSHEET])
def test_it_fits_a_360_px_phone(page: Page, url: str) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(url)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360, f"{url} scrolls sideways at 360 px ({width} px wide)"


def test_focus_is_visible_on_the_study_controls(page: Page) -> None:
    open_study(page)
    page.get_by_test_id("explanation").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # keyboard focus, so :focus-visible applies
    outline = page.get_by_test_id("explanation").evaluate(
        "el => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth"
    )
    assert outline.startswith("solid") and not outline.endswith(" 0px"), outline


# --------------------------------------------------------------------------- print


def test_printing_the_worksheet_hides_navigation(page: Page) -> None:
    page.goto(WORKSHEET)
    nav = page.get_by_test_id("worksheet-nav")
    expect(nav).to_be_visible()
    expect(page.get_by_test_id("print-worksheet")).to_be_visible()  # shown by study.js
    page.emulate_media(media="print")
    expect(nav).to_be_hidden()
    expect(page.get_by_test_id("back-to-station")).to_be_hidden()
    expect(page.get_by_test_id("print-worksheet")).to_be_hidden()
    expect(page.locator(".skip-link")).to_be_hidden()
    expect(page.get_by_test_id("ws-figure-1")).to_be_visible()
    expect(page.get_by_test_id("ws-questions")).to_be_visible()
    page.emulate_media(media="screen")
    expect(nav).to_be_visible()


@pytest.mark.parametrize("paper", ["A4", "Letter"])
@pytest.mark.parametrize("url", [WORKSHEET, "/station/worksheet", BAD_WORKSHEET])
def test_the_worksheet_prints_on_one_page(
    page: Page, monitor: BrowserMonitor, paper: str, url: str
) -> None:
    if url == BAD_WORKSHEET:
        expect_422(monitor)
    page.goto(url)
    pdf = page.pdf(format=paper)
    pages = len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))
    assert pages == 1, f"{url} prints on {pages} {paper} pages"
