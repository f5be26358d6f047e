"""Offline after the first load: the network is cut once the station has loaded.

What needs no server keeps working (the slider labels, route memory's study memory, export,
chart downloads); what needs the server says so where the learner asked for it, in words, and
nothing is left blank or half-replaced: a slider's evidence is marked out of date, a
step-through step, a policy race or a measurement that could not be fetched says so in its
own panel, and a prediction submitted while the browser knows it is offline is kept on the
page with a message instead of leaving for the browser's error page. When the network is
back, the next answer clears the messages.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import PREDICTED_URL, BrowserMonitor, open_fold, seed_storage

# A request that cannot leave the machine is reported by htmx and by the browser, in the
# console; that is what this module makes happen, nothing else.
OFFLINE_CONSOLE = (
    r"^htmx:(sendError|afterRequest)|Failed to load resource|ERR_INTERNET_DISCONNECTED"
)


def loaded(page: Page, url: str) -> None:
    seed_storage(page, {})
    page.goto(url)
    page.wait_for_load_state("networkidle")  # the sweep placeholder has fetched its chart
    expect(page.locator(".htmx-request")).to_have_count(0)


def test_offline_the_instrument_says_so_and_route_memory_keeps_working(
    page: Page, monitor: BrowserMonitor
) -> None:
    monitor.allow_console_error(OFFLINE_CONSOLE)
    loaded(page, PREDICTED_URL)
    open_fold(page, "sweep")
    expect(page.get_by_test_id("sweep")).to_be_visible()
    page.context.set_offline(True)

    # A slider: its label follows at once; its evidence cannot come, and says so.
    k = page.locator("#in-k")
    k.focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#out-k")).to_have_text("9")
    notice = page.get_by_test_id("connection-notice")
    expect(notice).to_contain_text("could not be reached")
    expect(page.get_by_test_id("evidence-stale")).to_be_visible()
    expect(page.get_by_test_id("evidence")).to_be_visible()  # the last evidence, not a blank

    # Saving a checkpoint needs the server's witness: said in place.
    page.get_by_test_id("save-checkpoint").click()
    expect(page.get_by_test_id("memory-status")).to_contain_text(
        "Not saved: the station did not answer"
    )

    # Study memory and export need nothing from the server.
    page.get_by_test_id("open-study").click()
    expect(page.get_by_test_id("study-list")).to_contain_text("Speculative decoding")
    with page.expect_download():
        page.get_by_test_id("export-memory").click()
    expect(page.get_by_test_id("study-status")).to_contain_text("Exported 0 checkpoints")
    page.get_by_test_id("close-study").click()

    # A chart still downloads: drawn from the page itself.
    with page.expect_download():
        page.locator("button[data-download=svg]:visible").first.click()

    # Back online: the next slider move brings the evidence and clears the messages.
    page.context.set_offline(False)
    k.focus()
    page.keyboard.press("ArrowRight")
    expect(notice).to_be_hidden()
    expect(page.get_by_test_id("evidence-stale")).to_have_count(0)
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("from 4 to 10")


def test_offline_a_panel_fetched_on_demand_says_it_could_not_be_fetched(
    page: Page, monitor: BrowserMonitor
) -> None:
    monitor.allow_console_error(OFFLINE_CONSOLE)
    loaded(page, PREDICTED_URL)
    page.context.set_offline(True)
    open_fold(page, "race", "roofline")
    for testid, panel in (("race-run", "#race"), ("roofline-measure", "#roofline")):
        page.get_by_test_id(testid).click()
        failed = page.locator(f"{panel} [data-testid=request-failed]")
        expect(failed).to_be_visible()
        expect(failed).to_contain_text("could not be reached")
        expect(failed).to_have_attribute("role", "alert")
        expect(page.get_by_test_id(testid)).to_be_visible()  # still there to try again
    # These panels are beside the evidence, not the evidence: it is not out of date.
    expect(page.get_by_test_id("evidence-stale")).to_have_count(0)

    root = page.get_by_test_id("stepthrough")
    open_fold(page, "stepthrough")
    root.get_by_test_id("st-next").click()
    failed = root.get_by_test_id("request-failed")
    expect(failed).to_be_visible()
    expect(failed).to_contain_text("could not be reached")
    expect(root.get_by_test_id("st-next")).to_be_visible()

    page.context.set_offline(False)
    root.get_by_test_id("st-next").click()
    expect(root.get_by_test_id("st-stage")).to_be_visible()
    expect(root.get_by_test_id("request-failed")).to_have_count(0)


def test_offline_a_prediction_is_kept_on_the_page_with_a_message(
    page: Page, monitor: BrowserMonitor
) -> None:
    monitor.allow_console_error(OFFLINE_CONSOLE)
    loaded(page, "/station")
    page.context.set_offline(True)
    page.locator("label[for='pred-lengthen_k']").click()
    page.locator("label[for='ef-yes']").click()
    page.get_by_test_id("record-prediction").click()
    form = page.get_by_test_id("prediction-form")
    expect(form.get_by_test_id("request-failed")).to_contain_text("offline")
    expect(page).to_have_url(re.compile(r"/station$"))
    expect(page.locator("#pred-lengthen_k")).to_be_checked()  # what was chosen is kept
    # The skip is a form of its own: kept on the page too.
    page.get_by_test_id("skip-prediction").click()
    expect(page.locator("form.skip-form [data-testid=request-failed]")).to_contain_text("offline")
    expect(page).to_have_url(re.compile(r"/station$"))

    page.context.set_offline(False)
    page.get_by_test_id("record-prediction").click()
    expect(page).to_have_url(re.compile(r"pred=lengthen_k"))


def test_a_panel_that_loads_after_the_evidence_says_so_when_it_cannot(
    page: Page, monitor: BrowserMonitor
) -> None:
    """The sweep is fetched after each evidence answer; cut off then, it says so, not blank."""
    monitor.allow_console_error(OFFLINE_CONSOLE)
    page.goto(PREDICTED_URL)
    page.route(re.compile(r"/station/sweep\?"), lambda route: route.abort("internetdisconnected"))
    with page.expect_response(lambda r: "/station/evidence" in r.url and r.ok):
        page.locator("#in-k").press("ArrowRight")
    failed = page.locator("#sweep [data-testid=request-failed]")
    expect(failed).to_contain_text("could not be reached")
    expect(page.get_by_test_id("evidence-stale")).to_have_count(0)  # the evidence did come
