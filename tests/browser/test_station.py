"""The station in a real browser, with JavaScript (htmx) on: mouse, keyboard, URL, a11y.

Every test also passes through the autouse ``monitor`` (conftest.py): no console error, no
uncaught page error, no dialog, no request off the station's origin, no 5xx.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import (
    NARRATION,
    PREDICTED_URL,
    BrowserMonitor,
    axe,
    is_evidence,
    screenshot,
)

SPEEDUPS = re.compile(r"\d+\.\d\d× → \d+\.\d\d×")


def query(page: Page) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).query))


def has_param(name: str, value: str) -> re.Pattern[str]:
    """A page URL (the full /station page, never the fragment) with name=value in it."""
    return re.compile(rf"/station\?(.*&)?{re.escape(name)}={re.escape(value)}(&|#|$)")


def press(page: Page, target: Locator, key: str, status: int = 200) -> None:
    """Press a key on a control and wait for the evidence fragment it asks for."""
    with page.expect_response(is_evidence) as answer:
        target.press(key)
    assert answer.value.status == status, f"{key} on {target}: {answer.value.status}"


# --------------------------------------------------------------------------- 1. load


def test_the_station_loads_with_the_evidence_locked(page: Page) -> None:
    response = page.goto("/")
    assert response is not None
    assert response.status == 200
    expect(page).to_have_title("Station 08 · Speculative decoding — Transformer Systems Lab")
    expect(page.get_by_role("heading", level=1)).to_have_text("Station 08 · Speculative decoding")
    for n in range(1, 8):
        panel = page.locator(f"section[aria-labelledby='step-0{n}-title']")
        expect(panel).to_be_visible()
        expect(panel.locator(".panel__step")).to_have_text(re.compile(rf"^0{n} · "))
        expect(page.locator(f"#step-0{n}")).to_be_attached()
    expect(page.get_by_test_id("evidence-locked")).to_be_visible()
    expect(page.get_by_test_id("evidence")).to_have_count(0)
    expect(page.get_by_test_id("gate-correctness")).to_have_count(0)
    expect(page.get_by_test_id("prediction-status")).to_have_text("No prediction yet")
    expect(page.get_by_test_id("live")).to_have_attribute("aria-live", "polite")
    expect(page.get_by_test_id("live")).to_have_text("")
    axe(page, "initial")


# --------------------------------------------------------------------------- 2. mouse


def test_recording_a_prediction_with_the_mouse_opens_the_evidence(page: Page) -> None:
    page.goto("/")
    page.get_by_text("Lengthen the draft (k)", exact=True).click()
    page.locator("label[for='ef-yes']").click()
    page.locator("label[for='ek-yes']").click()
    expect(page.get_by_label("Lengthen the draft (k)")).to_be_checked()
    page.get_by_test_id("record-prediction").click()

    expect(page).to_have_url(has_param("pred", "lengthen_k"))
    assert urlsplit(page.url).path == "/station"
    assert urlsplit(page.url).fragment == "prediction-change"  # the line says what was applied
    assert query(page)["k"] == "8"
    assert query(page)["base"] == "0.6,4,0.1,1,1,0"
    expect(page.get_by_test_id("evidence")).to_be_visible()
    expect(page.get_by_test_id("evidence-locked")).to_have_count(0)
    expect(page.get_by_test_id("prediction-status")).to_have_text(
        "Predicted: Lengthen the draft (k)"
    )
    expect(page.get_by_test_id("value-k")).to_have_text("8")
    sentence = page.get_by_test_id("verdict-sentence")
    expect(sentence).to_contain_text("Lengthening k from 4 to 8")
    expect(sentence).to_have_text(SPEEDUPS)
    expect(page.get_by_test_id("verdict-judgement")).to_contain_text("Your prediction")
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("holds")
    expect(page.get_by_test_id("live")).to_have_text(NARRATION)
    axe(page, "after prediction")
    screenshot(page, "station-1280x800.png")


# --------------------------------------------------------------------------- 3. keyboard


def test_the_k_slider_works_from_the_keyboard(page: Page) -> None:
    page.goto(PREDICTED_URL)
    k = page.locator("#in-k")
    page.locator("#in-match").focus()
    page.keyboard.press("Tab")  # the next stop after the match slider is k
    expect(k).to_be_focused()
    sentence = page.get_by_test_id("verdict-sentence")
    expect(sentence).to_contain_text("from 4 to 8")

    press(page, k, "ArrowRight")
    expect(page.get_by_test_id("value-k")).to_have_text("9")
    expect(sentence).to_contain_text("Lengthening k from 4 to 9 at match 0.60")
    expect(sentence).to_have_text(SPEEDUPS)
    expect(page.get_by_test_id("figures")).to_contain_text("k = 9 per block")
    # HX-Replace-Url: the address bar holds the whole page's URL, not the fragment's.
    expect(page).to_have_url(has_param("k", "9"))
    assert query(page)["pred"] == "lengthen_k"

    press(page, k, "ArrowLeft")
    press(page, k, "ArrowLeft")
    expect(page.get_by_test_id("value-k")).to_have_text("7")
    expect(sentence).to_contain_text("Lengthening k from 4 to 7")
    expect(page).to_have_url(has_param("k", "7"))
    expect(k).to_be_focused()  # the swap did not steal the learner's focus


def test_holding_an_arrow_key_on_a_slider_logs_no_error(page: Page) -> None:
    """Three quick presses, as a learner holding ArrowRight sends them: each asks for the
    evidence while the previous answer may still be on its way. The last value must win,
    and (through the monitor) the browser console must stay clean."""
    page.goto("/station?pred=skip&match=0.55")  # settings no other test has asked for
    k = page.locator("#in-k")
    k.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("value-k")).to_have_text("7")
    expect(page).to_have_url(has_param("k", "7"))
    expect(page.get_by_test_id("figures")).to_contain_text("k = 7 per block")
    expect(page.locator(".htmx-request")).to_have_count(0)


def test_every_bound_the_instrument_offers_is_accepted(page: Page) -> None:
    """A slider's Home/End and a number field's own min/max are values the server takes."""
    page.goto(PREDICTED_URL)
    for name in ("match", "k", "draft_cost"):
        slider = page.locator(f"#in-{name}")
        for key, bound in (("End", "max"), ("Home", "min")):
            press(page, slider, key)
            expect(page).to_have_url(has_param(name, slider.get_attribute(bound) or "?"))
        press(page, slider, "End")
    page.locator(".workload-fields summary").click()
    for name in ("seed", "tokens", "ttft_ms", "tpot_ms"):
        field = page.locator(f"#in-{name}")
        for bound in ("min", "max"):
            value = field.get_attribute(bound)
            assert value, f"#in-{name} has no {bound}"
            field.fill(value)
            with page.expect_response(is_evidence) as answer:
                field.press("Tab")
            assert answer.value.status == 200, (
                f"{name}={value} is inside the field's own {bound} but the server refused it"
            )
    expect(page.get_by_test_id("evidence-error")).to_have_count(0)


# --------------------------------------------------------------------------- 4, 5. repair


def test_repair_off_fails_correctness_and_survives_a_reload(page: Page) -> None:
    page.goto(PREDICTED_URL)
    with page.expect_response(is_evidence):
        page.locator("label[for='in-repair-off']").click()
    expect(page.locator("#in-repair-off")).to_be_checked()
    gate = page.get_by_test_id("gate-correctness")
    expect(gate).to_contain_text("fails")
    expect(gate).to_contain_text(re.compile(r"TV 0\.\d{3}"))
    # Correctness first: another distribution's speed earns no savings.
    expect(page.get_by_test_id("gate-savings")).to_contain_text("not earned")
    sentence = page.get_by_test_id("verdict-sentence")
    expect(sentence).to_contain_text(re.compile(r"The distribution was not kept \(TV 0\.\d{3}\)"))
    expect(page).to_have_url(has_param("repair", "off"))
    axe(page, "after repair off")

    # Reload: everything comes back from the URL. The server-rendered attributes are read
    # (not the properties) so that the browser's form restoration cannot mask a lost value.
    texts = ("gate-correctness", "gate-savings", "verdict-sentence", "live", "figures")
    before_url = page.url
    before = {t: page.get_by_test_id(t).text_content() or "" for t in texts}
    names = ("match", "k", "draft_cost")
    values = {n: page.locator(f"#in-{n}").input_value() for n in names}
    shown = {n: page.get_by_test_id(f"value-{n}").text_content() or "" for n in names}
    response = page.reload()
    assert response is not None
    assert response.status == 200
    assert page.url == before_url
    for name, value in values.items():
        expect(page.locator(f"#in-{name}")).to_have_attribute("value", value)
        expect(page.get_by_test_id(f"value-{name}")).to_have_text(shown[name])
    expect(page.locator("#in-repair-off")).to_have_attribute("checked", "")
    expect(page.locator("#in-verify-on")).to_have_attribute("checked", "")
    for testid, text in before.items():
        expect(page.get_by_test_id(testid)).to_have_text(text)


def test_the_repair_switch_works_from_the_keyboard(page: Page) -> None:
    page.goto(PREDICTED_URL)
    page.locator("#in-draft_cost").focus()
    page.keyboard.press("Tab")  # the verify switch
    expect(page.locator("#in-verify-on")).to_be_focused()
    page.keyboard.press("Tab")  # the repair switch
    on, off = page.locator("#in-repair-on"), page.locator("#in-repair-off")
    expect(on).to_be_focused()
    # The radio itself is visually hidden: its label must show where the focus is.
    focus_ring = "el => getComputedStyle(el).outlineStyle"
    assert page.locator("label[for='in-repair-on']").evaluate(focus_ring) != "none"

    press(page, on, "ArrowRight")
    expect(off).to_be_checked()
    expect(off).to_be_focused()
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("fails")
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("TV 0.")
    expect(page).to_have_url(has_param("repair", "off"))

    press(page, off, "ArrowLeft")
    expect(on).to_be_checked()
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("holds")
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("The distribution was kept.")
    expect(page).not_to_have_url(re.compile(r"[?&]repair="))  # the default leaves the address


# --------------------------------------------------------------------------- 7, 8. a11y


def test_on_a_phone_the_station_fits_and_passes_axe(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(PREDICTED_URL)
    expect(page.get_by_test_id("evidence")).to_be_visible()
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px wide"
    axe(page, "390x844")
    screenshot(page, "station-390x844.png")


def test_dark_scheme_and_reduced_motion_are_honoured_and_pass_axe(page: Page) -> None:
    page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    page.goto(PREDICTED_URL + "&repair=off")
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("fails")
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(18, 20, 23)", f"dark scheme not applied: body is {background}"
    motion = page.evaluate(
        """() => [getComputedStyle(document.documentElement).scrollBehavior,
                  getComputedStyle(document.getElementById('panel-evidence')).transitionDuration]"""
    )
    assert motion == ["auto", "0s"], f"reduced motion not honoured: {motion}"
    axe(page, "dark, reduced motion")


# --------------------------------------------------------------------------- 10. live region


def test_the_live_region_narrates_a_slider_move(page: Page) -> None:
    page.goto(PREDICTED_URL)
    live = page.get_by_test_id("live")
    expect(live).to_have_attribute("aria-live", "polite")
    expect(live).to_have_text(NARRATION)
    before = live.inner_text()
    # PageUp moves a range input by a tenth of its range: match 0.60 -> 0.70. (One 0.01 step
    # can leave every ratio the same to two places, and then the narration rightly repeats.)
    press(page, page.locator("#in-match"), "PageUp")
    expect(page.get_by_test_id("value-match")).to_have_text("0.70")
    expect(page).to_have_url(has_param("match", "0.7"))
    expect(live).not_to_have_text(before)
    expect(live).to_have_text(NARRATION)


# --------------------------------------------------------------------------- 11. blocks


def test_clicking_a_block_selects_it(page: Page) -> None:
    page.goto(PREDICTED_URL)
    block = page.get_by_test_id("block-2")
    expect(block).not_to_have_attribute("aria-current", "true")
    with page.expect_response(is_evidence):
        # A block is an inline link that wraps over lines: click its first word, as a
        # learner would (the middle of its bounding box may be outside the link).
        block.locator(".tok").first.click()
    expect(page.get_by_test_id("block-detail").get_by_role("heading")).to_contain_text("Block 2")
    expect(page.get_by_test_id("block-2")).to_have_attribute("aria-current", "true")
    expect(page).to_have_url(has_param("block", "1"))
    expect(page.get_by_test_id("live")).to_have_text(re.compile(r"^Block 2\. Draft 1 "))
    expect(page.get_by_test_id("live")).to_have_text(NARRATION)


# --------------------------------------------------------------------------- 12. next request


def test_next_request_moves_the_seed(page: Page) -> None:
    page.goto(PREDICTED_URL)
    seed = page.locator("#in-seed")
    expect(seed).to_have_value("8")
    first = page.get_by_test_id("first-rejection").inner_text()
    with page.expect_response(is_evidence):
        page.get_by_test_id("next-request").click()
    expect(seed).to_have_value("9")
    expect(page).to_have_url(has_param("seed", "9"))
    expect(page.get_by_test_id("first-rejection")).not_to_have_text(first)
    # The link came back with the seed field, pointing one further on.
    with page.expect_response(is_evidence):
        page.get_by_test_id("next-request").click()
    expect(seed).to_have_value("10")
    expect(page).to_have_url(has_param("seed", "10"))
    assert query(page)["k"] == "8"
    assert query(page)["pred"] == "lengthen_k"


def test_next_request_keeps_the_instrument_as_it_stands(page: Page) -> None:
    """After a slider move, "Next request" changes the seed and nothing else."""
    page.goto(PREDICTED_URL)
    press(page, page.locator("#in-k"), "ArrowRight")
    expect(page).to_have_url(has_param("k", "9"))
    with page.expect_response(is_evidence):
        page.get_by_test_id("next-request").click()
    expect(page.locator("#in-seed")).to_have_value("9")
    expect(page).to_have_url(has_param("seed", "9"))
    # The slider still says 9, so the evidence and the address bar must say 9 too.
    expect(page.locator("#in-k")).to_have_value("9")
    expect(page).to_have_url(has_param("k", "9"))
    expect(page.get_by_test_id("figures")).to_contain_text("k = 9 per block")


# --------------------------------------------------------------------------- state outside


def test_a_prediction_recorded_after_a_slider_move_starts_from_it(page: Page) -> None:
    page.goto("/")
    press(page, page.locator("#in-k"), "ArrowRight")
    expect(page.get_by_test_id("value-k")).to_have_text("5")
    expect(page).to_have_url(has_param("k", "5"))
    page.locator("label[for='pred-lengthen_k']").click()
    page.get_by_test_id("record-prediction").click()
    expect(page).to_have_url(has_param("pred", "lengthen_k"))
    # The instrument stood at k = 5 when the prediction was recorded.
    assert query(page)["base"] == "0.6,5,0.1,1,1,0", query(page)
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("Lengthening k from 5 to 10")
    expect(page.get_by_test_id("value-k")).to_have_text("10")


def test_what_the_page_shows_outside_the_evidence_follows_a_slider_move(page: Page) -> None:
    page.goto(PREDICTED_URL)
    press(page, page.locator("#in-k"), "ArrowRight")
    expect(page).to_have_url(has_param("k", "9"))
    # Every link that carries the state, and the draft lane's k, now say k = 9.
    for testid in ("change-prediction", "next-request", "evaluation-json"):
        expect(page.get_by_test_id(testid)).to_have_attribute("href", re.compile(r"[?&]k=9(&|#|$)"))
    expect(page.locator(".lane--draft")).to_contain_text("proposes k = 9 tokens")


# --------------------------------------------------------------------------- 13. bad input


def test_an_invalid_seed_is_named_in_the_evidence_panel(
    page: Page, monitor: BrowserMonitor
) -> None:
    # Chromium logs every 4xx resource load as a console error; this test sends -5 on
    # purpose and expects a 422 back, so that one message (and only here) is allowed.
    monitor.allow_console_error(
        r"^Failed to load resource: the server responded with a status of 422 "
        r"\(Unprocessable Entity\)$"
    )
    page.goto(PREDICTED_URL)
    seed = page.locator("#in-seed")
    seed.fill("-5")
    with page.expect_response(is_evidence) as answer:
        seed.press("Tab")
    assert answer.value.status == 422
    error = page.get_by_test_id("panel-evidence").get_by_test_id("evidence-error")
    expect(error).to_be_visible()
    expect(error).to_have_attribute("role", "alert")
    expect(error).to_contain_text("seed must be an integer from 0 to 2147483647 (got '-5')")
    # The rest of the panel still works, on the default seed.
    expect(page.get_by_test_id("evidence")).to_be_visible()
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("from 4 to 8")
    axe(page, "invalid seed named in place")


# --------------------------------------------------------------------------- connection


def test_a_lost_server_is_said_in_place_and_the_evidence_marked_out_of_date(
    page: Page, monitor: BrowserMonitor
) -> None:
    # The class Wi-Fi drops: the next slider move cannot reach the server. htmx and the
    # browser report the failed request in the console; that is expected here, nothing else.
    monitor.allow_console_error(r"^htmx:(sendError|afterRequest)|Failed to load resource")
    page.goto(PREDICTED_URL)
    k = page.locator("#in-k")
    notice = page.get_by_test_id("connection-notice")
    expect(notice).to_be_hidden()
    page.route(re.compile(r"/station/evidence\?"), lambda route: route.abort("failed"))
    k.press("ArrowRight")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("could not be reached")
    expect(notice).to_have_attribute("role", "alert")
    stale = page.get_by_test_id("evidence-stale")
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("Out of date")
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("from 4 to 8")  # unchanged
    axe(page, "connection lost")

    page.unroute(re.compile(r"/station/evidence\?"))
    press(page, k, "ArrowRight")  # the server answers again: the notice goes, evidence is current
    expect(notice).to_be_hidden()
    expect(stale).to_have_count(0)
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("from 4 to 10")


def test_a_server_error_is_said_with_its_status(page: Page, monitor: BrowserMonitor) -> None:
    monitor.allow_console_error(r"Response Status Error Code 503|status of 503")
    monitor.allow_server_error(r"^503 .*/station/evidence\?")  # the fake answer routed below
    page.goto(PREDICTED_URL)
    page.route(
        re.compile(r"/station/evidence\?"),
        lambda route: route.fulfill(status=503, body="busy", content_type="text/plain"),
    )
    page.locator("#in-k").press("ArrowRight")
    notice = page.get_by_test_id("connection-notice")
    expect(notice).to_contain_text("answered with an error (HTTP 503)")
    expect(page.get_by_test_id("evidence-stale")).to_be_visible()
    expect(page.get_by_test_id("evidence")).to_be_visible()  # never a blank panel


def test_a_busy_server_says_when_to_try_again(page: Page, monitor: BrowserMonitor) -> None:
    # What the app answers when a lane's queue is full (app/rendering/lanes.py).
    monitor.allow_console_error(r"Response Status Error Code 503|status of 503")
    monitor.allow_server_error(r"^503 .*/station/evidence\?")
    page.goto(PREDICTED_URL)
    page.route(
        re.compile(r"/station/evidence\?"),
        lambda route: route.fulfill(
            status=503, body="busy", content_type="text/html", headers={"Retry-After": "2"}
        ),
    )
    page.locator("#in-k").press("ArrowRight")
    notice = page.get_by_test_id("connection-notice")
    expect(notice).to_contain_text("busy with other learners' requests (HTTP 503)")
    expect(notice).to_contain_text("try again in 2 seconds")
    expect(page.get_by_test_id("evidence")).to_be_visible()
