"""The token tree in a real browser: the walk drawn in the evidence with its table, the
step-through walked sibling by sibling from the keyboard alone, axe, and the projector and
phone widths without a horizontal scroll.

Every test also passes through the autouse ``monitor`` (conftest.py): no console error, no
uncaught page error, no dialog, no request off the station's origin, no 5xx.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Response, expect

from tests.app.view_models import step_of
from tests.browser.helpers import axe, open_fold

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"  # a recorded skip: the evidence is open
TREE = f"{SKIP}&tree_width=2"
TYPICAL = f"{SKIP}&tree_width=2&acceptance=typical"


def is_step(response: Response) -> bool:
    return "/station/step" in response.url


def no_horizontal_scroll(page: Page) -> None:
    wide = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert wide <= 0, f"the page scrolls sideways by {wide} px"


def test_the_walk_is_drawn_with_its_table_and_is_axe_clean(page: Page) -> None:
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"/station?{TREE}")
    open_fold(page, "worked")
    figure = page.get_by_test_id("tree-figure")
    expect(figure).to_be_visible()
    nodes = figure.get_by_test_id("tree-node")
    expect(nodes.first).to_be_visible()
    assert nodes.count() >= 2
    outcomes = set(
        figure.locator("[data-outcome]").evaluate_all("els => els.map(e => e.dataset.outcome)")
    )
    assert outcomes & {"accepted", "rejected"}
    expect(figure.get_by_test_id("tree-ending")).to_have_count(1)
    expect(figure.get_by_test_id("tree-summary")).to_contain_text("One target pass scored")
    # The table says the same, behind its disclosure, from the keyboard.
    summary = figure.locator("details.tree-numbers > summary")
    summary.focus()
    page.keyboard.press("Enter")
    table = figure.get_by_test_id("tree-table")
    expect(table).to_be_visible()
    assert table.locator("tbody tr").count() == nodes.count()
    no_horizontal_scroll(page)
    axe(page, "tree evidence, 1024x768")


@pytest.mark.parametrize("width", [1024, 390])
def test_tree_pages_fit_without_a_sideways_scroll(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 768 if width > 500 else 844})
    queries = [TREE, f"{SKIP}&tree_width=4&k=2&base=0.6,2,0.1,1,1,0", TYPICAL]
    if width > 500:  # the projector view is for the projector
        queries.append(f"{TREE}&view=projector")
    for query in queries:
        page.goto(f"/station?{query}&sub=3")
        open_fold(page, "worked")
        expect(page.get_by_test_id("tree-figure")).to_be_visible()
        expect(page.get_by_test_id("st-stage")).to_be_visible()
        no_horizontal_scroll(page)


def test_the_step_through_walks_sibling_by_sibling_from_the_keyboard(page: Page) -> None:
    said = [s.narration for s in step_of(TREE).stepthrough.steps]
    kinds = [s.kind for s in step_of(TREE).stepthrough.steps]
    assert kinds.count("check") >= 2, "the default block tests more than one sibling"
    total = len(said)
    page.goto(f"/station?{TREE}")
    open_fold(page, "worked")
    root = page.get_by_test_id("stepthrough")
    expect(root).to_be_visible()
    root.focus()
    for n in range(total):
        with page.expect_response(is_step) as answer:
            page.keyboard.press("ArrowRight")
        assert answer.value.status == 200
        expect(root.get_by_test_id("st-progress")).to_have_text(
            re.compile(rf"^Step {n + 1} of {total}: ")
        )
        expect(root.get_by_test_id("st-narration")).to_have_text(said[n])
        expect(page.get_by_test_id("live")).to_have_text(said[n])
        if kinds[n] == "check":
            expect(root.locator("tr.row--current")).to_have_count(1)
    ending = root.get_by_test_id("st-ending")
    expect(ending).to_be_visible()
    axe(page, "tree step-through at its ending")


def test_typical_ends_with_the_argmax_said_so(page: Page) -> None:
    steps = step_of(TYPICAL).stepthrough.steps
    last = len(steps) - 1
    page.goto(f"/station?{TYPICAL}&sub={last}")
    open_fold(page, "worked")
    root = page.get_by_test_id("stepthrough")
    if steps[-1].kind == "argmax":
        expect(root.get_by_test_id("st-ending")).to_contain_text("not a draw from p")
    expect(root.get_by_test_id("st-ending")).to_be_visible()
    expect(page.get_by_test_id("tree-ending")).to_be_visible()
