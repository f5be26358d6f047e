"""The cost-of-a-pass presets in a real browser: one click each after a prediction, and what the page
then shows matches the hint (the batch that kills the win, long context, the adversary and
its recovery in the policy race); axe finds nothing on any of them.

Every test also passes through the autouse ``monitor`` (conftest.py): no console error, page
error, dialog, request off the origin, or 5xx.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import axe, open_fold

RACING = 30_000  # ms: the race serves five policies on the seeded requests


def _open(page: Page, preset: str) -> None:
    # A skipped prediction reveals the evidence and every held-back preset's chip.
    page.goto("/station?pred=skip")
    open_fold(page, "presets")
    page.get_by_test_id(f"preset-{preset}").click()
    expect(page.get_by_test_id(f"preset-{preset}")).to_have_attribute("aria-current", "true")
    expect(page.get_by_test_id("evidence")).to_be_visible()


def test_the_batch_that_kills_the_win(page: Page) -> None:
    _open(page, "batch-kills-win")
    expect(page.locator("#in-machine-h100")).to_be_checked()
    expect(page.locator("#in-batch")).to_have_value("256")
    expect(page.get_by_test_id("batch-summary")).to_contain_text("stops paying from batch")
    open_fold(page, "sweep")
    expect(page.get_by_test_id("chart-batch")).to_be_visible()
    current = page.get_by_test_id("batch-table").locator("tr[aria-current=true]")
    expect(current).to_contain_text("256 (now)")
    # The savings gate says what the seeded requests say: slower than plain decoding.
    expect(page.get_by_test_id("readout")).to_contain_text("Savings fail")
    expect(page.get_by_test_id("cost-status")).to_contain_text("dearer than one")
    axe(page, "the batch that kills the win")


def test_long_context_helps_speculation(page: Page) -> None:
    _open(page, "long-context")
    expect(page.locator("#in-context")).to_have_value("2048")
    expect(page.get_by_test_id("batch-context")).to_contain_text(
        re.compile(r"the context raises the speedup from [\d.]+× to [\d.]+×")
    )
    expect(page.get_by_test_id("cost-status")).to_contain_text("still memory-bound")
    axe(page, "long context helps speculation")


def test_a_draft_that_never_agrees_and_its_recovery(page: Page) -> None:
    _open(page, "adversary-recovery")
    expect(page.locator("#in-draft_source-adversary")).to_be_checked()
    expect(page.get_by_test_id("readout")).to_contain_text("Savings fail")
    expect(page.get_by_test_id("readout")).to_contain_text("Correctness holds")
    open_fold(page, "race")
    link = page.get_by_role("link", name="Race the policies")
    link.click()
    race = page.get_by_test_id("race")
    expect(race).to_be_visible(timeout=RACING)
    recovery = race.get_by_test_id("race-row-recovery")
    expect(recovery).to_contain_text("0.99×")
    expect(race.get_by_test_id("race-row-fixed")).to_contain_text("0.72×")
    axe(page, "the adversary and its recovery")
