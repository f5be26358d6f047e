"""Classroom tools in a real browser: presets, the copied link, projector and embed views,
the sweep, the evaluation slice and chart downloads."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.helpers import PREDICTED_URL, axe, is_evidence, open_fold, screenshot

EVIDENCE_PARTS = ("request-text", "figures", "exact-check", "sampled-check", "verdict-sentence")


def evidence_text(page: Page) -> dict[str, str]:
    return {part: page.get_by_test_id(part).inner_text() for part in EVIDENCE_PARTS}


def test_a_copied_link_reproduces_the_evidence_in_another_context(
    new_context, base_url: str
) -> None:  # type: ignore[no-untyped-def]
    first: BrowserContext = new_context(permissions=["clipboard-read", "clipboard-write"])
    page = first.new_page()
    page.goto(f"{base_url}{PREDICTED_URL}")
    open_fold(page, "presets")
    page.get_by_test_id("preset-mismatched").click()
    expect(page.get_by_test_id("preset-hint")).to_contain_text("Mismatched draft")
    with page.expect_response(is_evidence):
        page.locator("#in-k").press("ArrowRight")
    # A block wraps over lines; click its first token, as a learner would.
    page.get_by_test_id("block-2").locator(".tok").first.click()
    expect(page.get_by_test_id("block-detail")).to_contain_text("Block 2")
    # The full link, with the prediction and its evidence, is the sharer's choice (by default
    # the link opens at the prediction: tests/browser/test_prediction_flow.py).
    open_fold(page, "share")
    page.get_by_test_id("share-include").check()
    page.get_by_test_id("copy-link").click()
    expect(page.locator("#copy-status")).to_have_text(
        "Link copied, with your prediction and its evidence."
    )
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == page.url
    shown = evidence_text(page)

    second: BrowserContext = new_context()
    other = second.new_page()
    other.goto(link)
    assert evidence_text(other) == shown
    expect(other.get_by_test_id("block-detail")).to_contain_text("Block 2")


def test_presets_load_with_one_click_and_match_their_hints(page: Page) -> None:
    page.goto(PREDICTED_URL)
    open_fold(page, "presets")
    page.get_by_test_id("preset-unsafe-shortcut").click()
    expect(page.get_by_test_id("preset-hint")).to_contain_text("What to try")
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("fails")
    page.get_by_test_id("preset-p-equals-q").click()
    expect(page.get_by_test_id("gate-correctness")).to_contain_text("holds")
    expect(page.get_by_test_id("first-rejection")).to_contain_text("None: every drafted token")
    page.get_by_test_id("preset-draft-too-slow").click()
    expect(page.get_by_test_id("gate-savings")).to_contain_text("fails")
    expect(page.get_by_test_id("preset-draft-too-slow")).to_have_attribute("aria-current", "true")


def test_the_sweep_follows_a_slider_and_marks_the_optimum(page: Page) -> None:
    page.goto(PREDICTED_URL)
    open_fold(page, "sweep")  # and it stays open while the slider redraws the evidence
    sweep = page.get_by_test_id("chart-sweep")
    expect(sweep).to_be_visible()
    before = page.locator("#sweep figcaption").inner_text()
    with page.expect_response(lambda r: "/station/sweep" in r.url):
        page.locator("#in-draft_cost").press("ArrowRight")
    expect(page.locator("#sweep figcaption")).not_to_have_text(before)
    expect(page.locator("#sweep figcaption")).to_contain_text("draft cost 0.11")
    expect(page.locator("#sweep figcaption")).to_contain_text(
        re.compile(r"The formula's optimum is k = \d+")
    )


def test_the_evaluation_slice_runs_and_judges_each_mode(page: Page) -> None:
    page.goto(PREDICTED_URL)
    page.get_by_test_id("run-slice").click()
    expect(page.get_by_test_id("slice")).to_be_visible()
    expect(page).to_have_url(re.compile(r"slice=1"))
    expect(page.get_by_test_id("slice-lossless-verdict")).to_have_text("keeps p")
    expect(page.get_by_test_id("slice-no_repair-verdict")).to_have_text("fails p")
    expect(page.get_by_test_id("slice-no_verify-verdict")).to_have_text("fails p")
    expect(page.get_by_test_id("slice-summary")).to_contain_text("does not keep p (exact TV")
    axe(page, "evaluation slice")
    # A slider move refreshes the slice too.
    with page.expect_response(lambda r: "/station/slice" in r.url):
        page.locator("#in-match").press("ArrowLeft")
    expect(page.get_by_test_id("slice-lossless-verdict")).to_have_text("keeps p")


def test_every_chart_downloads_as_svg_and_png(page: Page, tmp_path: Path) -> None:
    page.goto(PREDICTED_URL + "&slice=1")
    open_fold(page, "worked", "sweep")
    figures = page.locator("figure:has([data-download])")
    assert figures.count() >= 7  # repair, gauge, passes, sweep and three histograms
    for i in (0, 3):
        figure = figures.nth(i)
        for kind, magic in (("svg", b"<svg"), ("png", b"\x89PNG")):
            with page.expect_download() as download:
                figure.locator(f"[data-download={kind}]").click()
            path = tmp_path / download.value.suggested_filename
            download.value.save_as(path)
            assert path.read_bytes().startswith(magic), path
            assert path.suffix == f".{kind}"


def test_projector_view_is_legible_at_1024_and_passes_axe(page: Page) -> None:
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(PREDICTED_URL)
    page.get_by_role("link", name="Projector view").click()
    expect(page.locator("body")).to_have_class("view-projector")
    expect(page.locator(".rail")).to_be_hidden()
    size = page.evaluate("() => parseFloat(getComputedStyle(document.body).fontSize)")
    assert size >= 20
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 1024
    axe(page, "projector view")
    page.emulate_media(color_scheme="dark")
    axe(page, "projector view, dark")
    screenshot(page, "projector-1024x768.png")


def test_embed_view_shows_only_the_panels_and_passes_axe(page: Page) -> None:
    page.goto(PREDICTED_URL)
    page.get_by_role("link", name="Embed view").click()
    expect(page.locator("body")).to_have_class("view-embed")
    expect(page.locator(".hero")).to_be_hidden()
    expect(page.get_by_test_id("panel-evidence")).to_be_visible()
    expect(page.get_by_test_id("embed-exit")).to_be_visible()
    axe(page, "embed view")
