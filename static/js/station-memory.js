// The station's side of route memory: carry-in, "Save checkpoint", and study memory.
// Everything carried in is written with textContent (never as HTML), and only same-origin
// /station links are ever reopened, so a hostile blob or file stays inert.

import {
  entryProblems, exportAll, exportProblems, keyOf, read, readAll, safeStationUrl,
  storage, storedProblems, titleOf, tooDeep, write,
} from "./memory.js";
import { saveBlob } from "./download.js";
import { MAX_BYTES, MAX_DEPTH, STATIONS, STATION_ID, WORKLOAD } from "./contract.js";

const $ = (id) => document.getElementById(id);

function notice(text) {
  const list = $("memory-notices");
  if (!list) return;
  const item = document.createElement("li");
  item.textContent = text;
  list.append(item);
}

function say(id, text) {
  const el = $(id);
  if (el) el.textContent = text;
}

// ---- carry-in ---------------------------------------------------------------------

function describeServing(result) {
  if (result.status !== "ok" && result.status !== "migrated") return result.message;
  const w = result.entry.checkpoint.workload;
  const parts = [`TTFT ${w.ttftMs} ms`, `TPOT ${w.tpotMs} ms`, `${w.tokensToGenerate} tokens`];
  if (w.batchSize !== undefined) parts.push(`batch ${w.batchSize}`);
  if (w.contextTokens !== undefined) parts.push(`${w.contextTokens} tokens of context`);
  if (w.prompt) parts.push(`prompt “${w.prompt}”`);
  return `Found: saved Serving checkpoint (${new Date(result.entry.savedAt).toLocaleString()}): ${parts.join(", ")}.`;
}

function describeOther(result) {
  if (result.status !== "ok" && result.status !== "migrated") return result.message;
  const summary = typeof result.entry.checkpoint.summary === "string" ? ` ${result.entry.checkpoint.summary}` : "";
  return `Found (saved ${new Date(result.entry.savedAt).toLocaleString()}).${summary}`;
}

/** Link beats saved checkpoint beats defaults, field by field (docs/route-memory.md). */
function carryInWorkload(serving) {
  const url = new URL(window.location.href);
  if (url.searchParams.has("memory")) return false; // already resolved once
  if (serving.status !== "ok" && serving.status !== "migrated") return false;
  const w = serving.entry.checkpoint.workload;
  const filled = [];
  for (const [param, field] of WORKLOAD) {
    if (url.searchParams.has(param) || w[field] === undefined) continue;
    url.searchParams.set(param, String(w[field]));
    filled.push(param);
  }
  if (!filled.length) return false;
  url.searchParams.set("memory", filled.join(","));
  window.location.replace(url.pathname + url.search + url.hash);
  return true;
}

function carryIn(store) {
  const results = {};
  for (const el of document.querySelectorAll(".memory-check")) {
    const station = el.dataset.station;
    el.textContent = `Checking saved ${titleOf(station)} history…`;
    const result = read(store, station);
    results[station] = result;
    el.textContent = station === "serving" ? describeServing(result) : describeOther(result);
    if (["damaged", "newer", "migrated", "unavailable"].includes(result.status)) notice(result.message);
  }
  return results;
}

// ---- save -------------------------------------------------------------------------

async function saveCheckpoint(store) {
  say("memory-status", "Saving…");
  try {
    const response = await fetch(`/api/checkpoint${window.location.search}`, { headers: { Accept: "application/json" } });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      const why = Array.isArray(body.detail) ? body.detail.map((d) => d.msg).join("; ") : `status ${response.status}`;
      say("memory-status", `Not saved: the station could not compute a checkpoint (${why}).`);
      return;
    }
    const entry = await response.json();
    say("memory-status", write(store, entry).message);
  } catch {
    say("memory-status", "Not saved: the station did not answer. Is it still running?");
  }
}

// ---- study memory -------------------------------------------------------------------

function studyItem(row) {
  const item = document.createElement("li");
  item.dataset.station = row.id;
  const title = document.createElement("strong");
  title.textContent = row.title;
  item.append(title, " ");
  const detail = document.createElement("span");
  if (row.entry) {
    detail.textContent = `saved ${new Date(row.entry.savedAt).toLocaleString()}`;
    item.append(detail);
    const url = row.id === STATION_ID ? safeStationUrl(row.entry.checkpoint.url) : null;
    if (url) {
      const link = document.createElement("a");
      link.href = url;
      link.className = "button";
      link.dataset.testid = "reopen-checkpoint";
      link.textContent = "Reopen this state";
      item.append(" ", link);
      const repair = document.createElement("p");
      repair.textContent = `Next repair: ${row.entry.checkpoint.nextRepair}`;
      item.append(repair);
    }
  } else {
    detail.textContent = row.status === "missing" ? "nothing saved" : row.message;
    item.append(detail);
  }
  return item;
}

function renderStudy(store) {
  const list = $("study-list");
  list.replaceChildren(...readAll(store).map(studyItem));
}

async function importFile(store, file) {
  if (file.size > STATIONS.length * MAX_BYTES) return `Not imported: the file is too large (${file.size} bytes).`;
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch {
    return "Not imported: the file is not valid JSON. Nothing was changed.";
  }
  // An export holds entries two levels down: deeper than that is no file this route writes.
  if (tooDeep(doc, MAX_DEPTH + 2)) return "Not imported: the file is nested too deeply to be route memory. Nothing was changed.";
  const single = doc && typeof doc === "object" && "checkpoint" in doc;
  const problems = single ? entryProblems(doc) : exportProblems(doc);
  if (problems.length) return `Not imported: ${problems.slice(0, 4).join("; ")}. Nothing was changed.`;
  const entries = single ? [doc] : doc.entries;
  // Each entry is held to the reader's own rules, its size as stored included, so nothing is
  // imported that the next load would move aside.
  const refused = entries.flatMap((entry, i) => {
    const found = storedProblems(entry);
    const which = `${single ? "the entry" : `entry ${i + 1}`} (${titleOf(entry.station)})`;
    return found.length ? [`${which}: ${found.slice(0, 3).join("; ")}`] : [];
  });
  if (refused.length) return `Not imported: ${refused.slice(0, 4).join("; ")}. Nothing was changed.`;
  const failed = entries.map((e) => write(store, e)).filter((r) => !r.ok);
  if (failed.length) return `Imported with problems: ${failed.map((r) => r.message).join(" ")}`;
  return `Imported ${entries.length} checkpoint${entries.length === 1 ? "" : "s"}: ${entries.map((e) => titleOf(e.station)).join(", ")}.`;
}

function wireStudy(store) {
  const dialog = $("study-memory");
  const open = $("open-study");
  open.addEventListener("click", () => {
    renderStudy(store);
    say("study-status", "");
    $("clear-confirm").hidden = true;
    dialog.showModal();
  });
  $("export-memory").addEventListener("click", () => {
    const doc = exportAll(store);
    saveBlob(new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" }), `route-memory-${doc.exportedAt.slice(0, 10)}.json`);
    say("study-status", `Exported ${doc.entries.length} checkpoint${doc.entries.length === 1 ? "" : "s"}.`);
  });
  $("import-memory").addEventListener("change", async (event) => {
    const file = event.target.files && event.target.files[0];
    if (!file) return;
    say("study-status", await importFile(store, file));
    event.target.value = "";
    renderStudy(store);
  });
  $("clear-memory").addEventListener("click", () => {
    $("clear-confirm").hidden = false;
    $("clear-yes").focus();
  });
  $("clear-no").addEventListener("click", () => {
    $("clear-confirm").hidden = true;
    $("clear-memory").focus();
  });
  $("clear-yes").addEventListener("click", () => {
    try {
      store.removeItem(keyOf(STATION_ID));
      say("study-status", "Cleared this station's checkpoint. Other stations' entries are untouched.");
    } catch {
      say("study-status", "Could not clear: this browser refused access to its storage.");
    }
    $("clear-confirm").hidden = true;
    renderStudy(store);
    $("clear-memory").focus();
  });
}

// ---- start ------------------------------------------------------------------------

export function startStationMemory() {
  const save = $("save-checkpoint");
  if (!save) return;
  const store = storage();
  const results = carryIn(store);
  if (!store) {
    notice("Route memory is off for this visit: this browser's storage is not available. The page works from its address alone.");
    return;
  }
  if (carryInWorkload(results.serving)) return;
  // This station's own entry is checked on arrival too, so damage is reported (and the blob
  // kept aside) before the learner saves over it.
  const own = read(store, STATION_ID);
  if (["damaged", "newer", "migrated"].includes(own.status)) notice(own.message);
  else if (own.status === "ok") say("memory-status", `Your last checkpoint here was saved ${new Date(own.entry.savedAt).toLocaleString()}.`);
  save.disabled = false;
  $("open-study").disabled = false;
  save.addEventListener("click", () => saveCheckpoint(store));
  wireStudy(store);
}


