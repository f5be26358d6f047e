"""The cost of a pass in a real browser: a machine chosen in the control re-prices the page
live, the batch that kills the win draws its chart and table, axe finds nothing, and the
plain form does the same with JavaScript off."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import BrowserContext, Page, expect

from app.station.state.presets import BY_ID
from tests.browser.helpers import PREDICTED_URL, axe, is_evidence, open_fold
from witness import Settings
from witness.cost.batching import stops_paying
from witness.cost.costing import costing
from witness.judge.expected import ensemble_of

SKIPPED = "/station?pred=skip"
# Llama 3.2 1B over Llama 3.1 8B on an H100 at batch 1: both passes read their weights.
H100_C = f"c = T_draft / T_target = {costing(Settings(machine='h100')).c:.3f}"


def query(page: Page) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).query))


def test_choosing_a_machine_prices_the_pass_live(page: Page) -> None:
    assert H100_C.endswith("0.154")  # 1.24 B / 8.03 B parameters
    page.goto(SKIPPED)
    status = page.get_by_test_id("cost-status")
    expect(status).to_contain_text("Custom: a draft pass costs the slider's c = 0.10")
    page.get_by_test_id("cost-toggle").click()
    expect(page.get_by_test_id("cost")).to_have_attribute("open", "")
    with page.expect_response(is_evidence) as answer:
        page.locator("label[for='in-machine-h100']").click()
    assert answer.value.status == 200
    expect(page).to_have_url(re.compile(r"[?&]machine=h100(&|$)"))
    assert query(page)["pred"] == "skip"
    expect(status).to_contain_text(H100_C)
    expect(status).to_contain_text("no dearer than one: it is still memory-bound")
    expect(page.get_by_test_id("cost-source")).to_contain_text("NVIDIA H100 datasheet")
    expect(page.locator("#in-machine-h100")).to_be_checked()
    axe(page, "cost control open, machine h100")


def test_the_batch_that_kills_the_win_draws_where_speculation_stops_paying(
    page: Page,
) -> None:
    page.goto(PREDICTED_URL)
    open_fold(page, "presets")
    page.get_by_test_id("preset-batch-kills-win").click()
    expect(page.get_by_test_id("preset-hint")).to_contain_text("The batch that kills the win")
    expect(page).to_have_url(re.compile(r"[?&]batch=256(&|$)"))
    assert query(page)["machine"] == "h100" and query(page)["pred"] == "lengthen_k"
    preset = BY_ID["batch-kills-win"].settings
    here, _ = stops_paying(preset, ensemble_of(preset).alpha)  # at the station's α
    open_fold(page, "sweep")
    expect(page.get_by_test_id("chart-batch")).to_be_visible()
    summary = page.get_by_test_id("batch-summary")
    expect(summary).to_contain_text("k = 4 stops paying from batch")
    expect(summary).to_contain_text("no k pays")
    assert here is not None and f"from batch {here} " in summary.inner_text()
    table = page.get_by_test_id("batch-table")
    expect(table).to_be_visible()
    current = table.locator("tr.row--current")
    expect(current).to_have_count(1)
    expect(current.locator("th")).to_have_text("256 (now)")
    expect(current).to_have_attribute("aria-current", "true")
    # The cost control is open on a preset that moved it, and names the dear verifying pass.
    expect(page.get_by_test_id("cost")).to_have_attribute("open", "")
    expect(page.get_by_test_id("cost-status")).to_contain_text("dearer than one")
    axe(page, "the batch that kills the win, with its batch chart")


def test_without_javascript_the_form_submits_the_machine(
    new_context: Callable[..., BrowserContext],
) -> None:
    page = new_context(java_script_enabled=False).new_page()
    page.goto("/station")
    page.get_by_test_id("cost-toggle").click()
    page.locator("label[for='in-machine-h100']").click()
    page.get_by_test_id("run-witness").click()
    expect(page).to_have_url(re.compile(r"/station\?.*machine=h100"))
    expect(page.get_by_test_id("cost")).to_have_attribute("open", "")
    expect(page.get_by_test_id("cost-status")).to_contain_text(H100_C)
    expect(page.locator("#in-machine-h100")).to_be_checked()


def test_the_h200_is_priced_by_its_timed_passes_and_the_stack_is_a_setting(page: Page) -> None:
    """The H200 with CUDA graphs (the default stack) prices c from its timed passes; picking
    eager re-prices the page live; the batch view draws the timed pass beside the roofline's."""
    timed = costing(Settings(machine="h200", context=512))
    eager = costing(Settings(machine="h200", context=512, stack="eager"))
    page.goto(f"{PREDICTED_URL}&machine=h200&context=512")
    status = page.get_by_test_id("cost-status")
    expect(status).to_contain_text("Priced from passes timed on an NVIDIA H200 (CUDA graphs)")
    expect(status).to_contain_text(f"c = T_draft / T_target = {timed.c:.3f} (roofline 0.155)")
    expect(status).to_contain_text("Every pass priced here was timed.")
    expect(page.locator("#in-stack-graphs")).to_be_checked()
    open_fold(page, "sweep")
    expect(page.get_by_test_id("chart-batch-passes")).to_be_visible()
    passes = page.get_by_test_id("batch-passes")
    expect(passes).to_contain_text("as its passes were measured (CUDA graphs, solid)")
    scored = int(query(page)["k"]) + 1
    expect(passes).to_contain_text(f"verifying {scored} tokens of each sequence")
    expect(passes).to_contain_text(f"At batch 1 the measured pass costs {timed.verify(scored):.2f}")
    with page.expect_response(is_evidence) as answer:
        page.locator("label[for='in-stack-eager']").click()
    assert answer.value.status == 200
    expect(page).to_have_url(re.compile(r"[?&]stack=eager(&|$)"))
    expect(status).to_contain_text(f"c = T_draft / T_target = {eager.c:.3f}")
    expect(status).to_contain_text("(eager PyTorch)")
    axe(page, "the H200 with eager passes, batch view open")
