"""The loop a learner watches stands on one screen, on a laptop, a phone and a projector.

After a recorded prediction, with the match slider in view, the k slider, the readout's
speedup and both gates are in the same viewport and on top (not under a sticky bar); after
a keyboard change of k they still are. On a phone the readout is pinned compact to the
bottom of the screen and the step bar fits the width. The teeth: without the pinning, the
same check finds the gates out of view on the phone.

With every disclosure closed the page keeps to the budgets of tests/browser/screens.py:
the words in view at 1280 px (fewer on the projector), the phone's page height, and nothing
wider than the screen or scrolling sideways. The teeth: with every fold and why open the
laptop's words and the phone's height are over budget, so the disclosures are what keep them.

With every disclosure open, from a 360 px phone to the laptop, nothing scrolls sideways
either: each wide table reads as one card per row where its column is too narrow, every
value after its column's heading. The teeth: without the cards, the phone's race and
methods tables scroll sideways.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import axe, open_fold
from tests.browser.screens import (
    SCREENS,
    WIDE,
    WORDS,
    Screen,
    instrument_in_view,
    measure,
    out_of_view,
)

BY_NAME = {s.name: s for s in SCREENS}


@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
def test_the_sliders_speedup_and_gates_share_one_screen(
    page: Page, base_url: str, screen: Screen
) -> None:
    page.set_viewport_size(screen.viewport)  # type: ignore[arg-type]
    seen = measure(page, base_url, screen)
    assert not seen.apart, f"{screen.name}: out of view beside the sliders: {seen.apart}"
    assert not seen.apart_after_k, f"{screen.name}: after a change of k: {seen.apart_after_k}"
    # The change of k arrived: the slider moved, and the readout shows the new state.
    expect(page.locator("#in-k")).to_have_value("5")
    expect(page).to_have_url(re.compile(r"[?&]k=5(&|$)"))
    # With every disclosure closed, the page keeps to its budgets.
    if screen.words_max is not None:
        assert seen.words <= screen.words_max, f"{screen.name}: {seen.words} words in view"
    if screen.height_max is not None:
        assert seen.height <= screen.height_max, f"{screen.name}: {seen.height} px tall"
    assert not seen.wide, f"{screen.name}: wider than the screen: {seen.wide}"


OPEN_EVERY_DISCLOSURE = (
    "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"
)


@pytest.mark.parametrize("name", ["laptop", "phone"])
def test_teeth_with_every_disclosure_open_the_budgets_fail(page: Page, name: str) -> None:
    screen = BY_NAME[name]
    page.set_viewport_size(screen.viewport)  # type: ignore[arg-type]
    page.goto(screen.query, wait_until="networkidle")
    page.evaluate(OPEN_EVERY_DISCLOSURE)
    page.wait_for_load_state("networkidle")
    if screen.words_max is not None:
        assert int(page.evaluate(WORDS)) > screen.words_max
    if screen.height_max is not None:
        height = int(page.evaluate("() => document.documentElement.scrollHeight"))
        assert height > screen.height_max


def test_teeth_without_the_pinned_readout_the_phone_loses_the_gates(page: Page) -> None:
    phone = BY_NAME["phone"]
    page.set_viewport_size(phone.viewport)  # type: ignore[arg-type]
    page.goto(phone.query)
    expect(page.get_by_test_id("readout-speedup")).to_be_attached()
    instrument_in_view(page)
    assert out_of_view(page) == []
    # (Set through the CSSOM, which the page's CSP allows.)
    page.evaluate("() => { document.getElementById('readout').style.position = 'static'; }")
    instrument_in_view(page)
    assert {"speedup", "correctness gate", "savings gate"} <= set(out_of_view(page))


def test_on_a_phone_the_step_bar_fits_and_keeps_its_names(page: Page) -> None:
    phone = BY_NAME["phone"]
    page.set_viewport_size(phone.viewport)  # type: ignore[arg-type]
    page.goto(phone.query)
    bar = page.locator("nav.steps")
    sideways = bar.evaluate("el => el.scrollWidth > el.clientWidth + 1")
    assert not sideways, "the step bar scrolls sideways on a phone"
    # The numbers show; each link's name is still the step's, for a screen reader.
    link = bar.get_by_role("link", name="04 Manipulation")
    expect(link).to_be_visible()
    box = link.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    link.click()
    expect(page).to_have_url(re.compile(r"#step-04$"))
    axe(page, "the phone with the pinned readout")


def test_a_disclosure_the_reader_opened_stays_open_when_a_slider_redraws_it(page: Page) -> None:
    page.goto(BY_NAME["laptop"].query, wait_until="networkidle")
    open_fold(page, "sweep", "figures", "share")
    k = page.locator("#in-k")
    k.focus()
    with page.expect_response(lambda r: "/station/evidence" in r.url):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#out-k")).to_have_text("5")
    for opened in ("#fold-sweep", "#why-figures", "#fold-share"):
        expect(page.locator(opened)).to_have_js_property("open", True)
    expect(page.get_by_test_id("chart-sweep")).to_be_visible()
    # One the reader never opened comes back closed.
    expect(page.locator("#fold-race")).to_have_js_property("open", False)


# Every wide table the station draws, each in a state that shows it: the race and its gates,
# the methods on the two gates, a chain block's drafts and repair numbers, the step-through's
# table (chain and tree), the tree's walk and its widths, the tree beside the chain, the
# batch axis and the measured pass cost.
EVERY_TABLE = (
    "/station?pred=skip&race=1&slice=1&sub=2",
    "/station?pred=skip&tree_width=2&sub=1",
    "/station?pred=skip&machine=h100&pair=llama-8b-1b&batch=8&sub=3&block=2",
)
WIDTHS = {"small phone": 360, "phone": 390, "projector": 1024, "laptop": 1280}

# For each card table in view: the cells whose data-label is not their column's heading.
MISLABELLED = """() => [...document.querySelectorAll('table.cards')].flatMap(t => {
  const heads = [...t.tHead.rows[0].cells].map(c => c.textContent.trim());
  return [...t.tBodies[0].rows].flatMap(r => [...r.cells].filter(
    (c, i) => c.tagName === 'TD' && c.dataset.label !== heads[i]).map(c => c.textContent));
})"""


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
def test_with_every_disclosure_open_nothing_scrolls_sideways(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    for query in EVERY_TABLE:
        page.goto(query, wait_until="networkidle")
        page.evaluate(OPEN_EVERY_DISCLOSURE)
        page.wait_for_load_state("networkidle")
        assert page.evaluate(WIDE) == [], f"{width} px, {query}"
        assert page.evaluate(MISLABELLED) == [], f"{width} px, {query}"
        if width == WIDTHS["phone"]:
            axe(page, f"the phone's cards, {query}")


def test_teeth_a_phone_without_the_card_tables_scrolls_sideways(page: Page) -> None:
    page.set_viewport_size(BY_NAME["phone"].viewport)  # type: ignore[arg-type]
    page.goto(EVERY_TABLE[0], wait_until="networkidle")
    page.evaluate(OPEN_EVERY_DISCLOSURE)
    page.wait_for_load_state("networkidle")
    race = page.get_by_test_id("race-table")
    # A card reads each value after its column's heading.
    cell = race.locator("td").nth(1)
    assert cell.evaluate("td => getComputedStyle(td, '::before').content") == '"target passes"'
    page.evaluate(
        "() => document.querySelectorAll('table.cards').forEach(t => t.classList.remove('cards'))"
    )
    wide = " ".join(page.evaluate(WIDE))
    assert "race-table-wrap" in wide and "slice-methods" in wide, wide
