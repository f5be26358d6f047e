"""Route memory against what a hostile pass found: what the station saves must load
again, import must hold each entry to the reader's rules, no backup may overwrite another, and
blobs written to be hostile to the page (prototype-pollution keys, huge strings, deep nesting)
leave `Object.prototype` alone, the page working and the blob kept aside, never lost. Backups
stay bounded (the newest three of each key, the only good copy never removed), and a write
that does not fit leaves the saved entry and its backups exactly as they were.

Every test runs under the autouse monitor of conftest.py: no console error, no uncaught page
error, no dialog, no request off the origin, no 5xx.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

import jsonschema
import pytest
from playwright.sync_api import Page, expect

from app.contract.route import MEMORY_MAX_BYTES
from tests.browser.helpers import ROOT, seed_storage, storage_of
from tests.longest import longest_query

SCHEMA = json.loads((ROOT / "docs" / "route-memory.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
OURS = "tsl.route.speculative-decoding"
SERVING = "tsl.route.serving"
LONG = "tsl.route.long-context"
STUDY = "tsl.study.speculative-decoding"
SAVED_AT = "2026-11-29T08:00:00.000Z"


def serving_entry(**workload: object) -> dict[str, object]:
    body: dict[str, object] = {"ttftMs": 150, "tpotMs": 42, "tokensToGenerate": 24}
    body.update(workload)
    return {
        "version": 1,
        "station": "serving",
        "savedAt": SAVED_AT,
        "checkpoint": {"object": "route:ai-lab/transformers/serving", "workload": body},
    }


def other_entry(station: str = "long-context", **checkpoint: object) -> dict[str, object]:
    return {"version": 1, "station": station, "savedAt": SAVED_AT, "checkpoint": checkpoint}


def export_of(*entries: object) -> dict[str, object]:
    return {
        "version": 1,
        "kind": "tsl.route-memory.export",
        "exportedAt": SAVED_AT,
        "entries": list(entries),
    }


def backups_of(stored: dict[str, str], key: str) -> dict[str, str]:
    return {k: v for k, v in stored.items() if k.startswith(f"{key}.backup.")}


def expect_loaded_again(page: Page) -> None:
    """Reload the station: this station's entry is read back as it was, nothing moved aside."""
    before = storage_of(page)[OURS]
    page.goto("/station")
    expect(page.get_by_test_id("memory-status")).to_contain_text("Your last checkpoint here")
    expect(page.get_by_test_id("memory-notices")).to_have_text("")
    stored = storage_of(page)
    assert stored[OURS] == before
    assert not backups_of(stored, OURS)


# --------------------------------------------------------------------------- what is saved loads


def test_a_checkpoint_with_an_emoji_prompt_loads_again(page: Page) -> None:
    """101 emoji: 101 characters to the server, 202 UTF-16 units to a careless browser."""
    seed_storage(page, {})
    page.goto(f"/station?prompt={quote('😀' * 101)}")
    page.get_by_test_id("save-checkpoint").click()
    expect(page.get_by_test_id("memory-status")).to_contain_text("Saved Speculative decoding")
    entry = json.loads(storage_of(page)[OURS])
    assert entry["checkpoint"]["settings"]["prompt"] == "😀" * 101
    VALIDATOR.validate(entry)
    expect_loaded_again(page)


@pytest.mark.parametrize("char", ["漢", "😀"], ids=["cjk", "emoji"])
def test_the_longest_checkpoint_the_station_makes_loads_again(page: Page, char: str) -> None:
    """Every option and a 200-character prompt: the reopen link is over 2 000 characters."""
    seed_storage(page, {})
    page.goto("/station")
    query = longest_query(char * 200)
    status = page.evaluate(
        """async (query) => {
          const r = await fetch(`/api/checkpoint?${query}`, {headers: {Accept: "application/json"}});
          if (r.ok) localStorage.setItem("tsl.route.speculative-decoding", JSON.stringify(await r.json()));
          return r.status;
        }""",
        query,
    )
    assert status == 200
    entry = json.loads(storage_of(page)[OURS])
    assert len(entry["checkpoint"]["url"]) > 2000
    VALIDATOR.validate(entry)
    expect_loaded_again(page)
    # And it is offered to reopen, as the exact state it was saved from.
    page.get_by_test_id("open-study").click()
    link = page.get_by_test_id("reopen-checkpoint")
    expect(link).to_have_attribute("href", entry["checkpoint"]["url"])


# --------------------------------------------------------------------------- import


def import_file(page: Page, tmp_path: Path, doc: object, name: str = "memory.json") -> None:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    if not page.get_by_test_id("study-memory").is_visible():
        page.get_by_test_id("open-study").click()
    page.get_by_test_id("import-memory").set_input_files(str(path))


def test_import_refuses_an_entry_the_reader_would_refuse(page: Page, tmp_path: Path) -> None:
    """An entry over the 64 KiB per-entry limit, in a file well under 640 KiB."""
    seed_storage(page, {})
    page.goto("/station")
    big = other_entry(summary="fine", padding="x" * (MEMORY_MAX_BYTES + 10))
    small = serving_entry()
    import_file(page, tmp_path, export_of(small, big))
    status = page.get_by_test_id("study-status")
    expect(status).to_contain_text("Not imported")
    expect(status).to_contain_text(re.compile(r"entry 2 \(Long-context pressure\).*too large"))
    expect(status).to_contain_text("Nothing was changed")
    assert storage_of(page) == {}


def test_import_of_one_oversized_entry_alone_is_refused(page: Page, tmp_path: Path) -> None:
    seed_storage(page, {})
    page.goto("/station")
    import_file(page, tmp_path, other_entry(padding="x" * (MEMORY_MAX_BYTES + 10)))
    expect(page.get_by_test_id("study-status")).to_contain_text("too large")
    assert storage_of(page) == {}


def test_an_import_with_several_entries_for_one_station_keeps_every_one(
    page: Page, tmp_path: Path
) -> None:
    first = serving_entry(tpotMs=11)
    seed_storage(page, {SERVING: json.dumps(first)})
    page.goto("/station")
    expect(page).to_have_url(re.compile(r"memory="))
    entries = [serving_entry(tpotMs=t) for t in (12, 13, 14)]
    import_file(page, tmp_path, export_of(*entries))
    expect(page.get_by_test_id("study-status")).to_contain_text("Imported 3 checkpoints")
    stored = storage_of(page)
    assert json.loads(stored[SERVING]) == entries[-1]
    kept = sorted(
        json.loads(v)["checkpoint"]["workload"]["tpotMs"]
        for v in backups_of(stored, SERVING).values()
    )
    assert kept == [11, 12, 13]  # the one replaced, and each imported one the next replaced


# --------------------------------------------------------------------------- hostile blobs

DEEP = 20_000  # nesting levels: JSON.parse takes them, JSON.stringify overflows the stack
deep_list = "[" * DEEP + "]" * DEEP

HOSTILE = {
    "proto at the top": (
        SERVING,
        '{"__proto__": {"polluted": "top"}, "version": 1, "station": "serving", "savedAt": "'
        + SAVED_AT
        + '", "checkpoint": {"workload": {"ttftMs": 1, "tpotMs": 1, "tokensToGenerate": 1}}}',
    ),
    "proto in the workload": (
        SERVING,
        json.dumps(serving_entry()).replace(
            '"workload": {',
            '"workload": {"__proto__": {"polluted": "workload"}, "constructor": {"prototype": {"polluted": "ctor"}}, ',
        ),
    ),
    "proto in an old version": (
        OURS,
        '{"station": "speculative-decoding", "__proto__": {"polluted": "v0"}, '
        '"settings": "__proto__=1&constructor=2&k=5"}',
    ),
    "huge string": (SERVING, json.dumps(serving_entry(notes="x" * 1_000_000))),
    "deep nesting in the workload": (
        SERVING,
        json.dumps(serving_entry()).replace('"ttftMs": 150', '"ttftMs": ' + deep_list),
    ),
    "deep nesting in the version": (
        OURS,
        '{"version": ' + deep_list + ', "station": "speculative-decoding"}',
    ),
}
PROTO_KEYS = "() => Object.getOwnPropertyNames(Object.prototype).sort()"


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_blob_leaves_the_page_and_object_prototype_alone(page: Page, case: str) -> None:
    key, raw = HOSTILE[case]
    seed_storage(page, {})
    clean = page.evaluate(PROTO_KEYS)
    seed_storage(page, {key: raw, LONG: json.dumps(other_entry(summary="a summary"))})
    page.goto("/station")
    expect(page.get_by_role("heading", level=1)).to_have_text("Station 08 · Speculative decoding")
    expect(page.get_by_test_id("memory-notices")).to_contain_text("kept aside")
    expect(page.get_by_test_id("carry-long-context")).to_contain_text("a summary")
    expect(page.get_by_test_id("save-checkpoint")).to_be_enabled()
    assert page.evaluate("() => ({}).polluted === undefined && [].polluted === undefined")
    assert page.evaluate(PROTO_KEYS) == clean
    stored = storage_of(page)
    assert key not in stored
    assert list(backups_of(stored, key).values()) == [raw]  # kept aside, byte for byte
    # The page still works: the instrument answers and the study memory opens.
    page.get_by_test_id("open-study").click()
    expect(page.get_by_test_id("study-list")).to_contain_text("Long-context pressure")


def test_a_valid_entry_with_prototype_keys_stays_inert(page: Page, tmp_path: Path) -> None:
    """Another station's checkpoint is open: `__proto__` inside it is data, not a prototype."""
    raw = (
        '{"version": 1, "station": "long-context", "savedAt": "' + SAVED_AT + '", '
        '"checkpoint": {"__proto__": {"polluted": "yes", "summary": "inherited"}, '
        '"constructor": {"prototype": {"polluted": "yes"}}, "summary": "own"}}'
    )
    seed_storage(page, {LONG: raw})
    clean = page.evaluate(PROTO_KEYS)
    page.goto("/station")
    expect(page.get_by_test_id("carry-long-context")).to_contain_text("own")
    assert page.evaluate("() => ({}).polluted === undefined")
    assert page.evaluate(PROTO_KEYS) == clean
    with page.expect_download() as download:
        page.get_by_test_id("open-study").click()
        page.get_by_test_id("export-memory").click()
    exported = tmp_path / "out.json"
    download.value.save_as(exported)
    assert json.loads(exported.read_text(encoding="utf-8"))["entries"] == [json.loads(raw)]


def test_a_deeply_nested_entry_is_kept_aside_and_export_still_works(
    page: Page, tmp_path: Path
) -> None:
    """Valid by the schema (another station's checkpoint is open), nested 20 000 deep: it
    parses, but writing it out again (Export) overflowed the stack. It is kept aside."""
    raw = json.dumps(other_entry(summary="deep")).replace(
        '"summary"', '"deep": ' + deep_list + ', "summary"'
    )
    kv = json.dumps(other_entry("kv-memory", summary="kv"))
    seed_storage(page, {LONG: raw, "tsl.route.kv-memory": kv})
    page.goto("/station")
    expect(page.get_by_test_id("carry-long-context")).to_contain_text("nested too deeply")
    expect(page.get_by_test_id("memory-notices")).to_contain_text("kept aside")
    assert list(backups_of(storage_of(page), LONG).values()) == [raw]
    page.get_by_test_id("open-study").click()
    with page.expect_download() as download:
        page.get_by_test_id("export-memory").click()
    expect(page.get_by_test_id("study-status")).to_have_text("Exported 1 checkpoint.")
    exported = tmp_path / "out.json"
    download.value.save_as(exported)
    doc = json.loads(exported.read_text(encoding="utf-8"))
    assert doc["entries"] == [json.loads(kv)]


def test_a_hostile_import_changes_nothing_and_pollutes_nothing(page: Page, tmp_path: Path) -> None:
    seed_storage(page, {})
    clean = page.evaluate(PROTO_KEYS)
    page.goto("/station")
    text = json.dumps(export_of(serving_entry(), other_entry(summary="deep")))
    text = text.replace('"summary": "deep"', '"summary": "deep", "deep": ' + deep_list)
    text = text.replace('"kind"', '"__proto__": {"polluted": "file"}, "kind"')
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    page.get_by_test_id("open-study").click()
    page.get_by_test_id("import-memory").set_input_files(str(path))
    expect(page.get_by_test_id("study-status")).to_contain_text("Not imported")
    assert page.evaluate("() => ({}).polluted === undefined")
    assert page.evaluate(PROTO_KEYS) == clean
    assert storage_of(page) == {}
    # A clean file imports afterwards: the page was not broken by the hostile one.
    import_file(page, tmp_path, export_of(serving_entry()), "clean.json")
    expect(page.get_by_test_id("study-status")).to_contain_text("Imported 1 checkpoint")


@pytest.mark.parametrize(
    "raw",
    [
        '{"__proto__": {"polluted": "study"}, "version": 1}',
        '{"version": ' + deep_list + "}",
        json.dumps({"version": 1, "checked": [], "explanation": "x" * 1_000_000, "review": ""}),
    ],
    ids=["proto", "deep", "huge"],
)
def test_a_hostile_study_blob_is_kept_aside(page: Page, raw: str) -> None:
    seed_storage(page, {STUDY: raw})
    clean = page.evaluate(PROTO_KEYS)
    page.goto("/study")
    expect(page.get_by_test_id("study-notices")).to_contain_text("kept aside")
    assert page.evaluate("() => ({}).polluted === undefined")
    assert page.evaluate(PROTO_KEYS) == clean
    assert list(backups_of(storage_of(page), STUDY).values()) == [raw]


# --------------------------------------------------------------------------- backups kept

BACKUPS_KEPT = 3  # static/js/memory.js
MEMORY_JS = "/static/js/memory.js"


def backup_names(key: str, count: int) -> list[str]:
    """`count` backup names of `key`, oldest first, as older pages wrote them: ten times, and
    past those the same last time with `.2`, `.3`, … (so `.10` and `.11` are the newest)."""
    times = [f"2020-01-01T00:{m:02d}:00.000Z" for m in range(10)]
    names = [f"{key}.backup.{t}" for t in times]
    names += [f"{key}.backup.{times[-1]}.{n}" for n in range(2, count - len(times) + 2)]
    return names[:count]


def numbered(names: list[str], station: str = "long-context") -> dict[str, str]:
    """Each backup a valid entry whose summary says which backup it is."""
    return {n: json.dumps(other_entry(station, summary=f"backup {i}")) for i, n in enumerate(names)}


@pytest.mark.parametrize("path", ["/station", "/route", "/study"])
def test_backups_left_by_an_older_page_are_pruned_to_the_newest(page: Page, path: str) -> None:
    names = backup_names(LONG, 20)
    study_names = [f"{STUDY}.backup.2020-01-01T00:00:0{s}.000Z" for s in range(6)]
    odd = f"{LONG}.backup.not-a-time"  # not a name this station writes: not its to remove
    seeded = {
        LONG: json.dumps(other_entry(summary="current")),
        **numbered(names),
        **{n: "{}" for n in study_names},
        odd: "kept",
    }
    seed_storage(page, seeded)
    assert storage_of(page) == seeded  # teeth: all 27 backups are there before the page loads
    page.goto(path)
    if path == "/station":
        expect(page.get_by_test_id("carry-long-context")).to_contain_text("current")
    elif path == "/route":
        expect(page.get_by_test_id("memory-long-context")).to_contain_text("saved")
    else:
        expect(page.get_by_test_id("study-card")).to_have_attribute("data-ready", "true")
    stored = storage_of(page)
    assert stored[LONG] == seeded[LONG]
    # The newest by time, then by count as a number: `.11`, `.10`, `.9`, not `.9`, `.8`, `.7`.
    assert sorted(backups_of(stored, LONG)) == sorted([*names[-BACKUPS_KEPT:], odd])
    assert all(stored[n] == seeded[n] for n in names[-BACKUPS_KEPT:])
    assert sorted(backups_of(stored, STUDY)) == study_names[-BACKUPS_KEPT:]


def test_pruning_keeps_the_only_good_copy(page: Page) -> None:
    """The key is damaged and so are its newest backups: the one good backup, the oldest, stays."""
    names = backup_names(LONG, 6)
    good = json.dumps(other_entry(summary="the good one"))
    seeded = {LONG: "{not json", names[0]: good, **{n: "{also not json" for n in names[1:]}}
    seed_storage(page, seeded)
    assert len(backups_of(storage_of(page), LONG)) == 6
    page.goto("/station")
    expect(page.get_by_test_id("memory-notices")).to_contain_text("kept aside")
    stored = storage_of(page)
    kept = backups_of(stored, LONG)
    assert LONG not in stored
    assert len(kept) == BACKUPS_KEPT
    assert names[0] in kept and kept[names[0]] == good  # the only good copy
    assert "{not json" in kept.values()  # the blob just moved aside, byte for byte


def test_many_saves_keep_only_the_newest_backups(page: Page) -> None:
    seed_storage(page, {})
    page.goto("/station")
    expect(page.get_by_test_id("save-checkpoint")).to_be_enabled()
    saved: list[str] = []
    for _ in range(6):
        page.get_by_test_id("save-checkpoint").click()
        page.wait_for_function(
            "([key, last]) => { const v = localStorage.getItem(key); return v !== null && v !== last; }",
            arg=[OURS, saved[-1] if saved else None],
        )
        saved.append(storage_of(page)[OURS])
        assert len(backups_of(storage_of(page), OURS)) <= BACKUPS_KEPT
    assert len(set(saved)) == 6  # teeth: each save replaced a different entry
    expect(page.get_by_test_id("memory-status")).to_contain_text("Saved Speculative decoding")
    kept = backups_of(storage_of(page), OURS)
    assert sorted(kept.values()) == sorted(saved[-1 - BACKUPS_KEPT : -1])


def test_writes_in_one_millisecond_keep_the_newest_backups(page: Page) -> None:
    """Twelve writes in a loop share milliseconds: `.10` must count as newer than `.9`."""
    seed_storage(page, {})
    page.goto("/route")
    result = page.evaluate(
        """async ([url, entry]) => {
          const m = await import(url);
          const store = m.storage();
          const oks = [];
          for (let i = 0; i < 12; i += 1) {
            oks.push(m.write(store, {...entry, checkpoint: {summary: `write ${i}`}}).ok);
          }
          return oks;
        }""",
        [MEMORY_JS, other_entry(summary="")],
    )
    assert result == [True] * 12
    stored = storage_of(page)
    assert json.loads(stored[LONG])["checkpoint"]["summary"] == "write 11"
    kept = backups_of(stored, LONG)
    summaries = sorted(json.loads(v)["checkpoint"]["summary"] for v in kept.values())
    assert summaries == ["write 10", "write 8", "write 9"]


# --------------------------------------------------------------------------- writes that do not fit


# A browser whose storage refuses a value of KEY longer than LIMIT characters, as a full one does.
REFUSE_LONGER = """
window.__refused = 0;
const realSet = Storage.prototype.setItem;
Storage.prototype.setItem = function (key, value) {
  if (key === "KEY" && String(value).length > LIMIT) {
    window.__refused += 1;
    throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
  }
  return realSet.call(this, key, value);
};
"""


def test_a_save_that_does_not_fit_leaves_the_last_good_copy_and_its_backups(page: Page) -> None:
    seed_storage(page, {})
    page.goto("/station")
    for _ in range(2):  # two saves: the entry and one backup of the first
        before = storage_of(page).get(OURS)
        page.get_by_test_id("save-checkpoint").click()
        page.wait_for_function(
            "([key, last]) => { const v = localStorage.getItem(key); return v !== null && v !== last; }",
            arg=[OURS, before],
        )
    good = storage_of(page)
    assert OURS in good and len(backups_of(good, OURS)) == 1
    # From here on the browser refuses any value of this key longer than the entry saved:
    # the copy of the old entry fits, the new entry (a 200-character prompt) does not.
    limit = len(good[OURS]) + 100
    page.context.add_init_script(REFUSE_LONGER.replace("KEY", OURS).replace("LIMIT", str(limit)))
    page.goto(f"/station?prompt={quote('x' * 200)}")
    expect(page.get_by_test_id("memory-status")).to_contain_text("Your last checkpoint here")
    page.get_by_test_id("save-checkpoint").click()
    status = page.get_by_test_id("memory-status")
    expect(status).to_contain_text("storage for the station is full")
    expect(status).to_contain_text("Your latest change could not be saved")
    expect(status).to_contain_text("what was saved before is kept as it was")
    assert page.evaluate("() => window.__refused") == 1  # teeth: the write was refused
    assert storage_of(page) == good  # the entry byte for byte, the backups exactly as they were


def test_a_checkpoint_past_the_size_limit_is_not_saved(page: Page) -> None:
    """The reader refuses more than 64 KiB: such an entry never replaces the one saved."""
    seed_storage(page, {})
    page.goto("/station")
    page.get_by_test_id("save-checkpoint").click()
    expect(page.get_by_test_id("memory-status")).to_contain_text("Saved Speculative decoding")
    good = storage_of(page)
    entry = json.loads(good[OURS])
    entry["savedAt"] = "2026-11-29T09:00:00.000Z"
    entry["checkpoint"]["padding"] = "x" * (MEMORY_MAX_BYTES + 10)
    assert len(json.dumps(entry, separators=(",", ":"))) > MEMORY_MAX_BYTES  # teeth
    page.route("**/api/checkpoint*", lambda route: route.fulfill(json=entry))
    page.get_by_test_id("save-checkpoint").click()
    status = page.get_by_test_id("memory-status")
    expect(status).to_contain_text("too large")
    expect(status).to_contain_text("Your latest change could not be saved")
    assert storage_of(page) == good
