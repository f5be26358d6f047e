"""The loop a learner watches stands on one screen, on a laptop, a phone and a projector.

After a recorded prediction, with the match slider in view, the k slider, the readout's
speedup and both gates are in the same viewport and on top (not under a sticky bar); after
a keyboard change of k they still are. On a phone the readout is pinned compact to the
bottom of the screen and the step bar fits the width. The teeth: without the pinning, the
same check finds the gates out of view on the phone.

The budgets of tests/browser/screens.py that the page does not meet yet (visible words,
the phone's page height, charts and tables that scroll sideways on a phone) are printed by
scripts/screens.py and tracked in docs/QUALITY.md.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import axe
from tests.browser.screens import SCREENS, Screen, instrument_in_view, measure, out_of_view

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
