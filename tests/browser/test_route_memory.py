"""Route memory in a real browser: save, reopen, export and import, carry-in, and damage.

Every test runs under the autouse monitor of conftest.py: no console error, no uncaught
page error, no dialog (an XSS payload that ran would open one), no request off the origin.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.helpers import PREDICTED_URL, ROOT, axe, seed_storage, storage_of

SCHEMA = json.loads((ROOT / "docs" / "route-memory.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
OURS = "tsl.route.speculative-decoding"
SERVING = "tsl.route.serving"


def serving_entry(**workload: object) -> dict[str, object]:
    body = {"ttftMs": 150, "tpotMs": 42, "tokensToGenerate": 24, "prompt": "the target model"}
    body.update(workload)
    return {
        "version": 1,
        "station": "serving",
        "savedAt": "2026-11-29T08:00:00.000Z",
        "checkpoint": {"object": "route:ai-lab/transformers/serving", "workload": body},
    }


def save(page: Page) -> dict[str, object]:
    page.get_by_test_id("save-checkpoint").click()
    expect(page.get_by_test_id("memory-status")).to_have_text(
        re.compile(r"^Saved Speculative decoding checkpoint")
    )
    entry = json.loads(storage_of(page)[OURS])
    VALIDATOR.validate(entry)
    return entry


# --------------------------------------------------------------------------- save and reopen


def test_save_reload_reopen_and_the_saved_checkpoint_validates(page: Page) -> None:
    seed_storage(page, {})
    page.goto(PREDICTED_URL)
    entry = save(page)
    checkpoint = entry["checkpoint"]
    assert isinstance(checkpoint, dict)
    assert checkpoint["prediction"]["intervention"] == "lengthen_k"
    assert checkpoint["settings"]["k"] == 8
    page.reload()
    expect(page.get_by_test_id("open-study")).to_be_enabled()
    page.goto("/station")  # somewhere else entirely
    page.get_by_test_id("open-study").click()
    study = page.get_by_test_id("study-memory")
    expect(study).to_be_visible()
    expect(study.locator("li[data-station='speculative-decoding']")).to_contain_text("saved")
    axe(page, "study memory open")
    study.get_by_test_id("reopen-checkpoint").click()
    expect(page).to_have_url(re.compile(r"k=8"))
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("Lengthening k from 4 to 8")


def test_export_then_import_round_trips_equal(page: Page, tmp_path: Path) -> None:
    seed_storage(page, {SERVING: json.dumps(serving_entry())})
    page.goto(PREDICTED_URL)
    save(page)
    before = {k: v for k, v in storage_of(page).items() if ".backup." not in k}
    page.get_by_test_id("open-study").click()
    with page.expect_download() as download:
        page.get_by_test_id("export-memory").click()
    exported = tmp_path / "memory.json"
    download.value.save_as(exported)
    doc = json.loads(exported.read_text(encoding="utf-8"))
    VALIDATOR.validate(doc)
    assert {e["station"] for e in doc["entries"]} == {"serving", "speculative-decoding"}
    # Clear this station's entry (after the in-page confirmation), then import the file.
    page.get_by_test_id("clear-memory").click()
    page.get_by_test_id("clear-yes").click()
    expect(page.get_by_test_id("study-status")).to_contain_text("Cleared")
    assert OURS not in storage_of(page)
    page.get_by_test_id("import-memory").set_input_files(str(exported))
    expect(page.get_by_test_id("study-status")).to_contain_text("Imported 2 checkpoints")
    after = {k: v for k, v in storage_of(page).items() if ".backup." not in k}
    assert {k: json.loads(v) for k, v in after.items()} == {
        k: json.loads(v) for k, v in before.items()
    }


def test_an_invalid_import_changes_nothing_and_says_why(page: Page, tmp_path: Path) -> None:
    seed_storage(page, {})
    page.goto("/station")
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "version": 1,
                "kind": "tsl.route-memory.export",
                "exportedAt": "2026-11-29T00:00:00Z",
                "entries": [
                    {
                        "version": 1,
                        "station": "serving",
                        "savedAt": "2026-11-29T00:00:00Z",
                        "checkpoint": {"workload": {"ttftMs": "fast"}},
                    }
                ],
            }
        )
    )
    page.get_by_test_id("open-study").click()
    page.get_by_test_id("import-memory").set_input_files(str(bad))
    expect(page.get_by_test_id("study-status")).to_contain_text("Not imported")
    expect(page.get_by_test_id("study-status")).to_contain_text("ttftMs")
    assert storage_of(page) == {}


# --------------------------------------------------------------------------- carry-in


def test_a_saved_serving_checkpoint_is_carried_in_with_its_values(page: Page) -> None:
    seed_storage(page, {SERVING: json.dumps(serving_entry())})
    page.goto("/station")
    expect(page).to_have_url(re.compile(r"memory="))
    expect(page.get_by_test_id("carry-serving")).to_contain_text("TPOT 42 ms")
    expect(page.get_by_test_id("carry-serving")).to_contain_text("24 tokens")
    expect(page.get_by_test_id("source-tpot_ms")).to_have_text("saved Serving checkpoint")
    expect(page.get_by_test_id("carry-long-context")).to_have_text(
        "No saved Long-context pressure checkpoint."
    )
    # The workload's TPOT turns target passes into milliseconds.
    page.goto(page.url + "&pred=skip")
    expect(page.get_by_test_id("figures")).to_contain_text("TPOT 42 ms")


def test_a_serving_checkpoint_carries_its_batch_and_context(page: Page) -> None:
    """batchSize and contextTokens (optional in older checkpoints) reach the cost of a pass."""
    seed_storage(page, {SERVING: json.dumps(serving_entry(batchSize=64, contextTokens=2048))})
    page.goto("/station")
    expect(page).to_have_url(re.compile(r"memory=.*batch"))
    expect(page).to_have_url(re.compile(r"[?&]batch=64(&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]context=2048(&|$)"))
    expect(page.get_by_test_id("carry-serving")).to_contain_text("batch 64")
    expect(page.get_by_test_id("source-batch")).to_have_text("saved Serving checkpoint")
    expect(page.locator("#in-batch")).to_have_value("64")


def test_an_old_serving_checkpoint_without_batch_still_loads(page: Page) -> None:
    seed_storage(page, {SERVING: json.dumps(serving_entry())})
    page.goto("/station")
    expect(page.get_by_test_id("source-tpot_ms")).to_have_text("saved Serving checkpoint")
    expect(page.get_by_test_id("source-batch")).to_have_text("default")
    assert "batch=" not in page.url


def test_a_link_with_a_workload_wins_over_the_saved_checkpoint(page: Page) -> None:
    seed_storage(page, {SERVING: json.dumps(serving_entry())})
    page.goto("/station?from=serving&tpot_ms=12&tokens=40")
    expect(page).to_have_url(
        re.compile(r"memory=prompt%2Cttft_ms|memory=ttft_ms%2Cprompt|memory=prompt,ttft_ms")
    )
    expect(page.get_by_test_id("source-tpot_ms")).to_have_text("link from Serving")
    expect(page.get_by_test_id("source-tokens")).to_have_text("link from Serving")
    expect(page.get_by_test_id("source-ttft_ms")).to_have_text("saved Serving checkpoint")
    expect(page.locator("#carry-workload tr[data-field='tpot_ms'] td").first).to_have_text("12 ms")


def test_the_serving_stand_in_saves_the_checkpoint_and_returns(page: Page) -> None:
    seed_storage(page, {})
    page.goto("/station")
    page.get_by_test_id("back-to-serving").click()
    expect(page).to_have_url(re.compile(r"/serving$"))
    axe(page, "serving stand-in")
    page.fill("#sv-tpot_ms", "55")
    page.fill("#sv-tokens", "30")
    page.fill("#sv-batch", "32")
    page.fill("#sv-notes", "batch of 4")
    page.get_by_test_id("save-serving").click()
    expect(page).to_have_url(re.compile(r"/station\?from=serving"))
    saved = json.loads(storage_of(page)[SERVING])
    VALIDATOR.validate(saved)
    assert saved["checkpoint"]["workload"]["tpotMs"] == 55
    assert saved["checkpoint"]["workload"]["notes"] == "batch of 4"
    assert saved["checkpoint"]["workload"]["batchSize"] == 32
    expect(page.get_by_test_id("carry-serving")).to_contain_text("TPOT 55 ms")


def test_the_route_view_shows_what_memory_holds(page: Page) -> None:
    seed_storage(page, {SERVING: json.dumps(serving_entry())})
    page.goto("/station")
    page.get_by_test_id("open-cockpit").click()
    expect(page).to_have_url(re.compile(r"/route$"))
    expect(page.get_by_test_id("route-status")).to_have_text(
        "1 of 10 stations have a checkpoint saved in this browser."
    )
    expect(page.get_by_test_id("memory-serving")).to_contain_text("saved")
    expect(page.get_by_test_id("memory-capstone")).to_have_text("nothing saved")
    axe(page, "route view")


# --------------------------------------------------------------------------- damage

TOO_BIG = json.dumps(serving_entry(notes="x" * 1900)) + " " * (70 * 1024)
DAMAGE = {
    "invalid JSON": ("{not json", "not valid JSON"),
    "wrong types": (json.dumps(serving_entry(tpotMs="fast")), "workload.tpotMs"),
    "missing field": (
        json.dumps({k: v for k, v in serving_entry().items() if k != "savedAt"}),
        "savedAt",
    ),
    "unknown station": (
        json.dumps({**serving_entry(), "station": "warp-drive"}),
        "unknown station",
    ),
    "oversized": (TOO_BIG, "too large"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_serving_blob_is_kept_aside_and_explained(page: Page, case: str) -> None:
    raw, words = DAMAGE[case]
    seed_storage(page, {SERVING: raw})
    page.goto("/station")
    expect(page.get_by_test_id("carry-serving")).to_contain_text("could not be used")
    expect(page.get_by_test_id("carry-serving")).to_contain_text(words)
    expect(page.get_by_test_id("memory-notices")).to_contain_text("kept aside")
    stored = storage_of(page)
    assert SERVING not in stored
    backups = [k for k in stored if k.startswith(f"{SERVING}.backup.")]
    assert len(backups) == 1
    assert stored[backups[0]] == raw  # the blob itself, untouched
    # The page still works: defaults carried in, the instrument answers.
    expect(page.get_by_test_id("source-tpot_ms")).to_have_text("default")
    expect(page.get_by_test_id("save-checkpoint")).to_be_enabled()


def test_a_future_version_is_left_untouched(page: Page) -> None:
    raw = json.dumps({**serving_entry(), "version": 7})
    seed_storage(page, {SERVING: raw})
    page.goto("/station")
    expect(page.get_by_test_id("carry-serving")).to_contain_text("newer version (7)")
    assert storage_of(page)[SERVING] == raw
    expect(page.get_by_test_id("source-tpot_ms")).to_have_text("default")


def test_an_older_version_is_migrated_not_discarded(page: Page) -> None:
    old = {
        "station": "speculative-decoding",
        "savedAt": "2026-10-01T10:00:00.000Z",
        "object": "route:ai-lab/transformers/speculative-decoding#speculative-decoding-station",
        "prediction": None,
        "acceptedPrefix": {
            "tokens": 48,
            "acceptedDrafts": 30,
            "rejectedDrafts": 10,
            "targetPasses": 15,
            "draftPasses": 60,
            "baselineTargetPasses": 48,
            "meanAlpha": 0.8,
            "speedupMeasured": 2.3,
            "firstRejection": "Block 1, draft 2.",
        },
        "invariant": {
            "mode": "lossless",
            "keepsTarget": True,
            "tvMax": 0,
            "correctness": "holds",
            "savings": "holds",
        },
        "speedupBoundary": {
            "draftCost": 0.1,
            "breakEvenAlpha": 0.1,
            "meanAlpha": 0.8,
            "optimalK": 5,
            "pays": True,
            "sentence": "pays",
        },
        "nextRepair": "Keep these settings.",
        "settings": "match=0.7&k=5&draft_cost=0.1&verify=on&repair=on&greedy=off&seed=3&tokens=48&prompt=the+draft+model&tpot_ms=30&ttft_ms=200",
        "url": "/station?match=0.7&k=5&seed=3",
    }
    seed_storage(page, {OURS: json.dumps(old)})
    page.goto("/station")
    expect(page.get_by_test_id("memory-notices")).to_contain_text("migrated to version 1")
    stored = storage_of(page)
    migrated = json.loads(stored[OURS])
    VALIDATOR.validate(migrated)
    assert migrated["checkpoint"]["settings"]["k"] == 5
    assert any(k.startswith(f"{OURS}.backup.") and json.loads(v) == old for k, v in stored.items())


def test_storage_that_is_unavailable_leaves_the_page_working(new_context, base_url: str) -> None:  # type: ignore[no-untyped-def]
    context: BrowserContext = new_context()
    context.add_init_script(
        "Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('blocked', 'SecurityError'); } });"
    )
    page = context.new_page()
    page.goto(f"{base_url}{PREDICTED_URL}")
    expect(page.get_by_test_id("memory-notices")).to_contain_text(
        "Route memory is off for this visit"
    )
    expect(page.get_by_test_id("carry-serving")).to_contain_text("storage is not available")
    expect(page.get_by_test_id("save-checkpoint")).to_be_disabled()
    expect(page.get_by_test_id("verdict-sentence")).to_contain_text("Lengthening k")


def test_storage_that_is_full_says_so_when_saving(new_context, base_url: str) -> None:  # type: ignore[no-untyped-def]
    context: BrowserContext = new_context()
    context.add_init_script(
        """
        const realSet = Storage.prototype.setItem;
        Storage.prototype.setItem = function (key, value) {
          if (key === 'tsl.route.speculative-decoding') throw new DOMException('full', 'QuotaExceededError');
          return realSet.call(this, key, value);
        };
        """
    )
    page = context.new_page()
    page.goto(f"{base_url}{PREDICTED_URL}")
    page.get_by_test_id("save-checkpoint").click()
    status = page.get_by_test_id("memory-status")
    expect(status).to_contain_text("storage for the station is full")
    expect(status).to_contain_text("Your latest change could not be saved")
    expect(page.get_by_test_id("verdict-sentence")).to_be_visible()
    assert storage_of(page) == {}  # nothing half-written: no entry, no backup


# --------------------------------------------------------------------------- XSS

PAYLOADS = [
    "<script>alert('s')</script>",
    "<img src=x onerror=alert('i')>",
    "javascript:alert('j')",
    "\"><svg onload=alert('a')>",
    "'><b onmouseover=alert(1)>x</b>",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_carried_in_payloads_stay_inert(page: Page, payload: str, tmp_path: Path) -> None:
    evil_serving = serving_entry(prompt=payload[:200], notes=payload)
    evil_serving["checkpoint"]["summary"] = payload  # type: ignore[index]
    evil_ours = {
        "version": 1,
        "station": "long-context",
        "savedAt": "2026-11-29T08:00:00.000Z",
        "checkpoint": {"summary": payload},
    }
    seed_storage(
        page, {SERVING: json.dumps(evil_serving), "tsl.route.long-context": json.dumps(evil_ours)}
    )
    page.goto(
        "/station?"
        + "&".join(f"{k}={v}" for k, v in {"prompt": payload, "pred": "skip"}.items()).replace(
            "#", "%23"
        )
    )
    expect(page.get_by_test_id("carry-long-context")).to_contain_text(payload)  # shown, as text
    page.get_by_test_id("open-study").click()
    # An imported checkpoint whose reopen link is a javascript: URL is refused by the schema.
    entry = json.loads(json.dumps(evil_serving))
    doc = {
        "version": 1,
        "kind": "tsl.route-memory.export",
        "exportedAt": "2026-11-29T08:00:00.000Z",
        "entries": [entry],
    }
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    page.get_by_test_id("import-memory").set_input_files(str(path))
    expect(page.get_by_test_id("study-status")).to_contain_text("Imported 1 checkpoint")
    page.goto("/route")
    expect(page.get_by_test_id("route-status")).to_contain_text("stations have a checkpoint")
    for target in ("/station?pred=skip", "/route"):
        page.goto(target)
        assert (
            page.evaluate(
                "() => document.querySelectorAll('[onerror],[onload],[onmouseover],script:not([src])').length"
            )
            == 0
        )
        assert (
            page.evaluate(
                "() => [...document.querySelectorAll('a[href]')].filter(a => a.href.startsWith('javascript:')).length"
            )
            == 0
        )


def test_a_javascript_url_in_a_checkpoint_is_never_offered_to_reopen(page: Page) -> None:
    entry = {
        "version": 1,
        "station": "speculative-decoding",
        "savedAt": "2026-11-29T08:00:00.000Z",
        "checkpoint": {"url": "javascript:alert(1)"},
    }
    seed_storage(page, {OURS: json.dumps(entry)})
    page.goto("/station")
    expect(page.get_by_test_id("memory-notices")).to_contain_text("could not be used")
    page.get_by_test_id("open-study").click()
    expect(page.get_by_test_id("reopen-checkpoint")).to_have_count(0)
