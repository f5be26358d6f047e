// Route memory: the browser-local contract of docs/route-memory.md, and nothing else.
//
// Every read is defensive: a blob that cannot be used is never deleted but moved aside to a
// backup key, and the caller gets a sentence for the learner instead of an exception. No
// function here throws; storage that is missing, blocked or full is reported the same way.

export const VERSION = 1;
export const PREFIX = "tsl.route.";
export const MAX_BYTES = 64 * 1024;
export const STATIONS = [
  ["text-to-update", "Text to one update"],
  ["tokens-and-position", "Tokens and position"],
  ["attention-routing", "Attention routing"],
  ["rope-phase", "RoPE phase"],
  ["kv-memory", "KV memory"],
  ["long-context", "Long-context pressure"],
  ["serving", "Serving and decoding"],
  ["speculative-decoding", "Speculative decoding"],
  ["evaluation", "Evaluation and falsification"],
  ["capstone", "Capstone systems claim"],
];
const STATION_IDS = new Set(STATIONS.map(([id]) => id));
export const titleOf = (id) => (STATIONS.find(([s]) => s === id) || [id, id])[1];
export const keyOf = (station) => PREFIX + station;

// ---- storage access that never throws -------------------------------------------------

export function storage() {
  try {
    const s = window.localStorage;
    const probe = `${PREFIX}probe`;
    s.setItem(probe, "1");
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

function stamp() {
  return new Date().toISOString();
}

/** Move a blob aside; returns the backup key, or null if even that was impossible. */
export function backup(store, key, raw) {
  const aside = `${key}.backup.${stamp()}`;
  try {
    store.setItem(aside, raw);
    store.removeItem(key);
    return aside;
  } catch {
    return null; // out of room even for the copy: leave the original where it was
  }
}

export function write(store, entry) {
  if (!store) return { ok: false, message: "Saving is off: this browser's storage is not available here." };
  try {
    const key = keyOf(entry.station);
    const previous = store.getItem(key);
    if (previous !== null && previous !== JSON.stringify(entry)) {
      try {
        store.setItem(`${key}.backup.${stamp()}`, previous);
      } catch {
        /* no room for the copy; the new entry still replaces it only if it fits */
      }
    }
    store.setItem(key, JSON.stringify(entry));
    return { ok: true, message: `Saved ${titleOf(entry.station)} checkpoint at ${new Date(entry.savedAt).toLocaleString()}.` };
  } catch (err) {
    const full = err && (err.name === "QuotaExceededError" || err.code === 22);
    return {
      ok: false,
      message: full
        ? "Saving failed: this browser's storage for the station is full. Export your memory, then clear old entries."
        : "Saving failed: this browser refused to store the checkpoint.",
    };
  }
}

// ---- validation (mirrors docs/route-memory.schema.json; the tests hold the two together) --

const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const isNum = (x) => typeof x === "number" && Number.isFinite(x);
const isInt = (x) => Number.isInteger(x);
const isStr = (x, max = 2000) => typeof x === "string" && x.length <= max;
// RFC 3339 date-time, as the schema's "format": "date-time". Date.parse alone would take
// "2026-11-29", "/station?k=3" and February 30th (it rolls over into March). RFC 3339
// allows a lower-case "t" and "z".
const RFC3339 = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i;
export function isDate(x) {
  const m = isStr(x, 40) ? RFC3339.exec(x) : null;
  if (!m) return false;
  const daysInMonth = new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).getUTCDate();
  return Number(m[3]) <= daysInMonth;
}
const orNull = (test) => (x) => x === null || test(x);
const isBool = (x) => typeof x === "boolean";

function check(problems, ok, what) {
  if (!ok) problems.push(what);
}

function checkKeys(problems, obj, allowed, where) {
  for (const k of Object.keys(obj)) check(problems, allowed.includes(k), `${where} has an unknown field "${k}"`);
}

function servingProblems(c) {
  const p = [];
  if (!isObj(c.workload)) return ["checkpoint.workload is missing"];
  const w = c.workload;
  checkKeys(p, w, ["ttftMs", "tpotMs", "tokensToGenerate", "prompt", "notes"], "workload");
  check(p, isNum(w.ttftMs) && w.ttftMs >= 0 && w.ttftMs <= 600000, "workload.ttftMs must be a number from 0 to 600000");
  check(p, isNum(w.tpotMs) && w.tpotMs > 0 && w.tpotMs <= 10000, "workload.tpotMs must be a number above 0 and at most 10000");
  check(p, isInt(w.tokensToGenerate) && w.tokensToGenerate >= 1 && w.tokensToGenerate <= 256, "workload.tokensToGenerate must be an integer from 1 to 256");
  if ("prompt" in w) check(p, isStr(w.prompt, 200), "workload.prompt must be text of at most 200 characters");
  if ("notes" in w) check(p, isStr(w.notes), "workload.notes must be text");
  for (const k of ["object", "summary"]) if (k in c) check(p, isStr(c[k]), `checkpoint.${k} must be text`);
  return p;
}

const SETTINGS = {
  match: (x) => isNum(x) && x >= 0 && x <= 1,
  k: (x) => isInt(x) && x >= 1 && x <= 16,
  draft_cost: (x) => isNum(x) && x >= 0 && x <= 1,
  verify: isBool,
  repair: isBool,
  greedy: isBool,
  seed: (x) => isInt(x) && x >= 0 && x <= 2147483647,
  tokens: (x) => isInt(x) && x >= 1 && x <= 256,
  prompt: (x) => isStr(x, 200),
  tpot_ms: (x) => isNum(x) && x > 0 && x <= 10000,
  ttft_ms: (x) => isNum(x) && x >= 0 && x <= 600000,
};
const INTERVENTIONS = ["raise_match", "lengthen_k", "cheapen_draft", "skip_verify", "skip_repair", "skip"];

function shaped(p, obj, spec, where) {
  if (!isObj(obj)) return p.push(`${where} is missing`);
  checkKeys(p, obj, Object.keys(spec.fields), where);
  for (const [k, test] of Object.entries(spec.fields)) {
    if (!(k in obj)) {
      if (!(spec.optional || []).includes(k)) p.push(`${where}.${k} is missing`);
    } else check(p, test(obj[k]), `${where}.${k} has the wrong type or range`);
  }
}

function speculativeProblems(c) {
  const p = [];
  checkKeys(p, c, ["object", "prediction", "acceptedPrefix", "invariant", "speedupBoundary", "nextRepair", "settings", "url"], "checkpoint");
  check(p, c.object === "route:ai-lab/transformers/speculative-decoding#speculative-decoding-station", "checkpoint.object is not this station's object");
  if (c.prediction !== null) {
    shaped(p, c.prediction, {
      fields: {
        intervention: (x) => INTERVENTIONS.includes(x),
        expectFaster: orNull(isBool),
        expectKept: orNull(isBool),
        held: (x) => isObj(x) && Object.keys(x).every((k) => k === "speed" || k === "correctness") && orNull(isBool)(x.speed) && orNull(isBool)(x.correctness) && "speed" in x && "correctness" in x,
        sentence: isStr,
      },
    }, "prediction");
  }
  const count = (x) => isInt(x) && x >= 0;
  shaped(p, c.acceptedPrefix, {
    fields: {
      tokens: (x) => isInt(x) && x >= 1, acceptedDrafts: count, rejectedDrafts: count, targetPasses: count,
      draftPasses: count, baselineTargetPasses: (x) => isInt(x) && x >= 1,
      meanAlpha: (x) => isNum(x) && x >= 0 && x <= 1, speedupMeasured: orNull((x) => isNum(x) && x >= 0),
      speedupExpected: orNull((x) => isNum(x) && x >= 0), msSpeculative: (x) => isNum(x) && x >= 0,
      msBaseline: (x) => isNum(x) && x >= 0, firstRejection: isStr,
    },
    optional: ["speedupExpected", "msSpeculative", "msBaseline"],
  }, "acceptedPrefix");
  shaped(p, c.invariant, {
    fields: {
      mode: (x) => ["lossless", "no_repair", "no_verify"].includes(x), greedy: isBool, keepsTarget: isBool,
      tvMax: (x) => isNum(x) && x >= 0 && x <= 1, correctness: isStr, savings: isStr,
    },
    optional: ["greedy"],
  }, "invariant");
  const unit = (x) => isNum(x) && x >= 0 && x <= 1;
  shaped(p, c.speedupBoundary, {
    fields: { draftCost: unit, breakEvenAlpha: unit, meanAlpha: unit, optimalK: SETTINGS.k, pays: isBool, sentence: isStr },
  }, "speedupBoundary");
  check(p, isStr(c.nextRepair), "checkpoint.nextRepair must be text");
  shaped(p, c.settings, { fields: SETTINGS }, "settings");
  check(p, safeStationUrl(c.url) !== null, "checkpoint.url must be a /station link");
  return p;
}

/** Problems with an entry, as sentences; [] means valid version 1. */
export function entryProblems(entry, expectedStation = null) {
  if (!isObj(entry)) return ["it is not a JSON object"];
  const p = [];
  checkKeys(p, entry, ["version", "station", "savedAt", "checkpoint"], "the entry");
  check(p, entry.version === VERSION, `its version is ${JSON.stringify(entry.version)}, not ${VERSION}`);
  check(p, STATION_IDS.has(entry.station), `it names an unknown station ${JSON.stringify(String(entry.station)).slice(0, 60)}`);
  if (expectedStation) check(p, entry.station === expectedStation, `it belongs to another station (${String(entry.station).slice(0, 40)})`);
  check(p, isDate(entry.savedAt), "savedAt is not a date");
  if (!isObj(entry.checkpoint)) p.push("checkpoint is missing");
  else if (entry.station === "serving") p.push(...servingProblems(entry.checkpoint));
  else if (entry.station === "speculative-decoding") p.push(...speculativeProblems(entry.checkpoint));
  return p;
}

export function exportProblems(doc) {
  if (!isObj(doc)) return ["the file is not a JSON object"];
  const p = [];
  checkKeys(p, doc, ["version", "kind", "exportedAt", "entries"], "the file");
  check(p, doc.version === VERSION, `the file's version is ${JSON.stringify(doc.version)}, not ${VERSION}`);
  check(p, doc.kind === "tsl.route-memory.export", "the file is not a route-memory export");
  check(p, isDate(doc.exportedAt), "exportedAt is not a date");
  if (!Array.isArray(doc.entries) || doc.entries.length > STATIONS.length) p.push("entries must be a list of at most ten entries");
  else doc.entries.forEach((e, i) => entryProblems(e).forEach((msg) => p.push(`entry ${i + 1}: ${msg}`)));
  return p;
}

/** Only same-origin station links may be reopened (no javascript:, no other host). */
export function safeStationUrl(url) {
  if (typeof url !== "string" || url.length > 2000 || !/^\/station(\?[^#]*)?$/.test(url)) return null;
  return url;
}

// ---- migration ------------------------------------------------------------------------

/** Version 0, the prototype's flat shape: fields beside station/savedAt, settings as a query. */
function migrateV0(old) {
  if (!isObj(old) || !("station" in old) || ("version" in old && old.version !== 0)) return null;
  const { station, savedAt, version: _v, ...rest } = old;
  const checkpoint = { ...rest };
  if (station === "speculative-decoding" && typeof rest.settings === "string") {
    const params = new URLSearchParams(rest.settings);
    const settings = {};
    for (const [k, test] of Object.entries(SETTINGS)) {
      if (!params.has(k)) continue;
      const raw = params.get(k);
      const value = ["verify", "repair", "greedy"].includes(k) ? ["on", "true", "1"].includes(raw) : k === "prompt" ? raw : Number(raw);
      if (test(value)) settings[k] = value;
    }
    checkpoint.settings = settings;
  }
  return { version: VERSION, station, savedAt: isDate(savedAt) ? savedAt : stamp(), checkpoint };
}

// ---- reading -------------------------------------------------------------------------

/**
 * The steps every stored read shares (station entries here, study notes in study.js):
 * fetch the text, then the size and JSON checks. Never throws. Returns one of
 * {kind: "unavailable", refused} | {kind: "missing"} | {kind: "damaged", raw, why} |
 * {kind: "parsed", raw, parsed}; `why` is worded for "it was ..." ("too large (...)").
 */
export function load(store, key) {
  if (!store) return { kind: "unavailable", refused: false };
  let raw;
  try {
    raw = store.getItem(key);
  } catch {
    return { kind: "unavailable", refused: true };
  }
  if (raw === null) return { kind: "missing" };
  if (raw.length > MAX_BYTES) return { kind: "damaged", raw, why: `too large (${raw.length} characters; the limit is ${MAX_BYTES})` };
  try {
    return { kind: "parsed", raw, parsed: JSON.parse(raw) };
  } catch {
    return { kind: "damaged", raw, why: "not valid JSON" };
  }
}

/**
 * Read one station's entry. Returns {status, entry?, message}:
 * "missing" | "ok" | "migrated" | "newer" | "damaged" | "unavailable".
 */
export function read(store, station) {
  const title = titleOf(station);
  const key = keyOf(station);
  const got = load(store, key);
  if (got.kind === "unavailable") {
    const why = got.refused ? "this browser refused access to its storage" : "this browser's storage is not available here";
    return { status: "unavailable", message: `${title} history can't be read: ${why}.` };
  }
  if (got.kind === "missing") return { status: "missing", message: `No saved ${title} checkpoint.` };
  const raw = got.raw;
  const aside = (why) => {
    const where = backup(store, key, raw);
    const kept = where ? `It was kept aside as "${where}".` : "It could not be copied aside, so it was left in place.";
    return { status: "damaged", message: `The saved ${title} checkpoint could not be used: ${why}. ${kept} Defaults are used instead.` };
  };
  if (got.kind === "damaged") return aside(`it is ${got.why}`);
  const parsed = got.parsed;
  if (isObj(parsed) && isNum(parsed.version) && parsed.version > VERSION) {
    return { status: "newer", message: `The saved ${title} checkpoint is from a newer version (${parsed.version}) of the route; it was left untouched and defaults are used.` };
  }
  if (isObj(parsed) && (!("version" in parsed) || parsed.version === 0)) {
    const migrated = migrateV0(parsed);
    if (migrated && entryProblems(migrated, station).length === 0) {
      const where = backup(store, key, raw);
      try {
        store.setItem(key, JSON.stringify(migrated));
      } catch {
        /* keep using the migrated copy for this visit */
      }
      const kept = where ? ` The original was kept as "${where}".` : "";
      return { status: "migrated", entry: migrated, message: `The saved ${title} checkpoint was from an older version and was migrated to version ${VERSION}.${kept}` };
    }
  }
  const problems = entryProblems(parsed, station);
  if (problems.length) return aside(problems.slice(0, 3).join("; "));
  return { status: "ok", entry: parsed, message: `Found a saved ${title} checkpoint from ${new Date(parsed.savedAt).toLocaleString()}.` };
}

/** Every station's entry, for study memory and the route view. */
export function readAll(store) {
  return STATIONS.map(([id, title]) => ({ id, title, ...read(store, id) }));
}

export function exportAll(store) {
  const entries = readAll(store).filter((r) => r.entry).map((r) => r.entry);
  return { version: VERSION, kind: "tsl.route-memory.export", exportedAt: stamp(), entries };
}
