"""The step-through of one verification step in a real browser: keyboard alone, Play/Pause,
the live region, axe, reduced motion, no JavaScript, and a slider move while it is open.

Every test also passes through the autouse ``monitor`` (conftest.py): no console error, no
uncaught page error, no dialog, no request off the station's origin, no 5xx.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Response, expect

from tests.app.view_models import step_of
from tests.browser.helpers import NARRATION, PREDICTED, axe, is_evidence, open_fold

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"  # a recorded skip at the defaults
SKIP_URL = f"/station?{SKIP}"


def narrations(query: str) -> list[str]:
    """What the server will say at each sub-step of the state's selected block."""
    return [s.narration for s in step_of(query).stepthrough.steps]


def is_step(response: Response) -> bool:
    return "/station/step" in response.url


def sub_of(page: Page) -> str | None:
    return dict(parse_qsl(urlsplit(page.url).query)).get("sub")


def focus_inside(page: Page) -> bool:
    return bool(
        page.evaluate(
            "() => !!document.activeElement && !!document.activeElement.closest('#stepthrough')"
        )
    )


def key(page: Page, name: str) -> None:
    """Press a key and wait for the step-through fragment it asks for."""
    with page.expect_response(is_step) as answer:
        page.keyboard.press(name)
    assert answer.value.status == 200, f"{name}: {answer.value.status}"


def expect_at(page: Page, root: Locator, n: int, total: int, sentence: str) -> None:
    expect(root.get_by_test_id("st-progress")).to_have_text(
        re.compile(rf"^Step {n + 1} of {total}: ")
    )
    expect(root.get_by_test_id("st-narration")).to_have_text(sentence)
    expect(page.get_by_test_id("live")).to_have_text(sentence)
    # HX-Replace-Url: the address bar holds the page at this sub-step, not the fragment.
    expect(page).to_have_url(re.compile(rf"/station\?(.*&)?sub={n}(&|#|$)"))
    assert focus_inside(page), "focus left the step-through"


# --------------------------------------------------------------------------- keyboard


def test_every_sub_step_by_keyboard_alone(page: Page) -> None:
    said = narrations(SKIP)
    total = len(said)
    page.goto(SKIP_URL)
    root = page.get_by_test_id("stepthrough")
    expect(root).to_be_visible()
    expect(root.get_by_test_id("st-stage")).to_have_count(0)  # closed until started
    root.focus()
    key(page, "ArrowRight")  # → opens the first sub-step
    expect_at(page, root, 0, total, said[0])
    for n in range(1, total):
        key(page, "ArrowRight")
        expect_at(page, root, n, total, said[n])
    # At the end → asks for nothing more, and nothing changes.
    page.keyboard.press("ArrowRight")
    expect_at(page, root, total - 1, total, said[-1])
    expect(root.get_by_test_id("st-ending")).to_be_visible()
    for n in range(total - 2, -1, -1):
        key(page, "ArrowLeft")
        expect_at(page, root, n, total, said[n])
    assert sub_of(page) == "0"


def test_tab_reaches_the_controls_and_enter_follows_them(page: Page) -> None:
    page.goto(f"{SKIP_URL}&sub=1")
    root = page.get_by_test_id("stepthrough")
    root.focus()
    page.keyboard.press("Tab")  # the heading, which folds the panel
    expect(root.locator("#fold-stepthrough > summary")).to_be_focused()
    page.keyboard.press("Tab")  # how the step-through works
    expect(root.locator("#why-stepthrough-how > summary")).to_be_focused()
    page.keyboard.press("Tab")
    expect(root.get_by_test_id("st-back")).to_be_focused()
    page.keyboard.press("Tab")
    expect(root.get_by_test_id("st-play")).to_be_focused()
    page.keyboard.press("Tab")
    expect(root.get_by_test_id("st-next")).to_be_focused()
    key(page, "Enter")
    expect(root.get_by_test_id("st-progress")).to_have_text(re.compile(r"^Step 3 of 5"))
    expect(root.get_by_test_id("st-next")).to_be_focused()  # the swap kept the learner's place


def test_space_plays_to_the_end_and_pauses(page: Page) -> None:
    said = narrations(SKIP)
    total = len(said)
    page.goto(f"{SKIP_URL}&sub=0")
    root = page.get_by_test_id("stepthrough")
    play = root.get_by_test_id("st-play")
    progress = root.get_by_test_id("st-progress")
    expect(play).to_have_text("Play")
    root.focus()
    page.keyboard.press(" ")
    expect(play).to_have_text("Pause")
    # It advances on its own, every ~1.2 s, and stops at the end.
    expect(progress).to_have_text(re.compile(r"^Step 2 of "), timeout=5000)
    expect(progress).to_have_text(re.compile(rf"^Step {total} of {total}"), timeout=15000)
    expect(page.get_by_test_id("live")).to_have_text(said[-1])
    expect(play).to_have_text("Play")
    assert focus_inside(page)
    # Space at the end plays again from the top; Space again pauses, and it stays put.
    page.keyboard.press(" ")
    expect(progress).to_have_text(re.compile(r"^Step 1 of "), timeout=5000)
    expect(play).to_have_text("Pause")
    page.keyboard.press(" ")
    expect(play).to_have_text("Play")
    page.wait_for_load_state("networkidle")
    paused = progress.inner_text()
    page.wait_for_timeout(2000)
    expect(progress).to_have_text(paused)


def test_the_play_button_works_with_the_mouse(page: Page) -> None:
    page.goto(f"{SKIP_URL}&sub=2")
    root = page.get_by_test_id("stepthrough")
    play = root.get_by_test_id("st-play")
    play.click()
    expect(play).to_have_text("Pause")
    expect(root.get_by_test_id("st-progress")).to_have_text(re.compile(r"^Step 4 of 5"))
    play.click()
    expect(play).to_have_text("Play")


def test_keys_outside_the_step_through_are_left_alone(page: Page) -> None:
    page.goto(f"/station?{PREDICTED}&sub=1")
    root = page.get_by_test_id("stepthrough")
    expect(root.get_by_test_id("st-progress")).to_have_text(re.compile(r"^Step 2 of "))
    k = page.locator("#in-k")
    k.focus()
    with page.expect_response(is_evidence):
        page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("value-k")).to_have_text("9")
    expect(k).to_be_focused()
    # The slider moved the request; the step-through follows it (still at sub-step 2)
    # while the live region keeps the evidence's own narration.
    expect(root).to_have_attribute("data-page", re.compile(r"[?&]k=9(&|$)"))
    expect(root.get_by_test_id("st-progress")).to_have_text(re.compile(r"^Step 2 of "))
    expect(page.get_by_test_id("live")).to_have_text(NARRATION)
    assert sub_of(page) == "1"


def test_a_step_then_a_slider_keeps_the_sub_step(page: Page) -> None:
    page.goto(f"/station?{PREDICTED}&sub=0")
    root = page.get_by_test_id("stepthrough")
    root.focus()
    key(page, "ArrowRight")
    key(page, "ArrowRight")  # pressed at once: the step-through takes it when the first lands
    expect(page).to_have_url(re.compile(r"[?&]sub=2(&|#|$)"))
    with page.expect_response(is_evidence):
        page.locator("#in-k").press("ArrowLeft")
    expect(page.get_by_test_id("value-k")).to_have_text("7")
    expect(page).to_have_url(re.compile(r"[?&]k=7(&|$)"))
    assert sub_of(page) == "2"  # the form drawn at sub=0 did not drag it back
    expect(root).to_have_attribute("data-page", re.compile(r"[?&]k=7&.*sub=2"))


# --------------------------------------------------------------------------- accessibility


def test_axe_passes_with_the_step_through_open(page: Page) -> None:
    page.goto(f"{SKIP_URL}&sub=3")
    root = page.get_by_test_id("stepthrough")
    expect(root.get_by_test_id("st-gauge")).to_be_visible()
    axe(page, "step-through open at a check")
    root.focus()
    key(page, "ArrowRight")
    expect(root.get_by_test_id("st-ending")).to_be_visible()
    axe(page, "step-through at the ending")


def test_reduced_motion_turns_the_transitions_off_and_passes_axe(page: Page) -> None:
    page.goto(f"{SKIP_URL}&sub=1")
    stage = page.get_by_test_id("st-stage")
    expect(stage).to_be_visible()
    duration = page.evaluate(
        "() => getComputedStyle(document.querySelector('.st-stage')).animationDuration"
    )
    assert duration == "0.12s", duration  # snappy: at most 150 ms
    page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    motion = page.evaluate(
        """() => [getComputedStyle(document.querySelector('.st-stage')).animationName,
                  getComputedStyle(document.querySelector('.st-step')).transitionDuration]"""
    )
    assert motion == ["none", "0s"], f"reduced motion not honoured: {motion}"
    axe(page, "step-through, dark, reduced motion")


def test_on_a_phone_the_step_through_fits(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/station?{PREDICTED}&sub=2")
    expect(page.get_by_test_id("st-stage")).to_be_visible()
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px wide"
    axe(page, "step-through at 390x844")


@pytest.mark.parametrize("models", ["early-exit", "small-draft"])
def test_the_transformers_pass_and_caches_fit_a_phone_and_pass_axe(page: Page, models: str) -> None:
    """The verifying pass at the target's sub-step and the KV rows at the ending, for a
    request the tiny transformers served: readable at 390 px, light and dark."""
    query = f"{SKIP}&models={models}"
    last = len(step_of(query).stepthrough.steps) - 1
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/station?{query}&sub=1")
    expect(page.get_by_test_id("st-pass")).to_be_visible()
    axe(page, f"{models}: the verifying pass at 390x844")
    page.goto(f"/station?{query}&sub={last}")
    kv = page.get_by_test_id("st-kv")
    expect(kv).to_be_visible()
    expect(kv.get_by_test_id("st-kv-summary")).to_contain_text("the target")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px wide"
    axe(page, f"{models}: the KV caches at 390x844")
    # Reduced motion: the current step's highlight fades in, and axe mid-fade reads a colour
    # between the two schemes' (as the other dark-mode checks here do).
    page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    axe(page, f"{models}: the KV caches, dark")


def test_the_step_through_stays_hidden_until_a_prediction(page: Page) -> None:
    page.goto("/station?sub=2")
    expect(page.locator("#stepthrough")).to_be_hidden()
    expect(page.get_by_test_id("st-stage")).to_have_count(0)


# --------------------------------------------------------------------------- no JavaScript


@pytest.fixture
def page_without_js(new_context: Callable[..., BrowserContext]) -> Page:
    return new_context(java_script_enabled=False).new_page()


def test_without_javascript_the_links_walk_the_sub_steps(page_without_js: Page) -> None:
    page = page_without_js
    said = narrations(SKIP)
    page.goto(SKIP_URL)
    open_fold(page, "stepthrough")
    root = page.get_by_test_id("stepthrough")
    expect(root.get_by_test_id("st-play")).to_be_hidden()  # Play needs JavaScript
    root.get_by_test_id("st-next").click()  # "Start"
    for n in range(len(said)):
        expect(page).to_have_url(re.compile(rf"/station\?.*sub={n}#stepthrough$"))
        expect(root.get_by_test_id("st-narration")).to_have_text(said[n])
        if n < len(said) - 1:
            root.get_by_test_id("st-next").click()
    root.get_by_test_id("st-reset").click()
    expect(page).to_have_url(re.compile(r"sub=0#stepthrough$"))
    root.get_by_test_id("st-close").click()
    expect(root.get_by_test_id("st-stage")).to_have_count(0)
    assert sub_of(page) is None
