// Route memory: the browser-local contract of docs/route-memory.md, and nothing else.
//
// Every read is defensive: a blob that cannot be used is not deleted but moved aside to a
// backup key, and the caller gets a sentence for the learner instead of an exception. No
// function here throws; storage that is missing, blocked or full is reported the same way.
// Each key keeps its newest BACKUPS_KEPT backups (older ones are removed as newer ones are
// written, and when a page opens storage), and a write that does not fit changes nothing.
//
// The ids, keys and bounds come from contract.js and the checks from vendor/route-memory-validator.js,
// both generated from Python (`python -m app.contract.generate`); what is written here is how
// a validator error is said to a learner, and the checks a schema cannot state.

import {
  EXPORT_KIND, KEY_PREFIX, MAX_BYTES, MAX_DEPTH, MEMORY_VERSION, SETTINGS, STATIONS, STATION_ID, STATION_URL_MAX,
  STATION_URL_PATTERN, STUDY_KEY, TIMESTAMP_MAX,
} from "./contract.js";
import { isDateTime, validateEntry, validateExport } from "../vendor/route-memory-validator.js";

export { MAX_BYTES, MAX_DEPTH, STATIONS };
export const VERSION = MEMORY_VERSION;
export const PREFIX = KEY_PREFIX;
export const titleOf = (id) => (STATIONS.find(([s]) => s === id) || [id, id])[1];
export const keyOf = (station) => PREFIX + station;

// ---- storage access that never throws -------------------------------------------------

export function storage() {
  try {
    const s = window.localStorage;
    const probe = `${PREFIX}probe`;
    s.setItem(probe, "1");
    s.removeItem(probe);
    pruneAll(s); // what older versions of the page left, before anything here reads or writes
    return s;
  } catch {
    return null;
  }
}

function stamp() {
  return new Date().toISOString();
}

// Two backups of one key made in the same millisecond (an import with several entries for
// one station) would share `<key>.backup.<ISO time>`; the later gets `.2`, `.3`, … after it.
// The count goes on from the highest one there, not into a gap that pruning left, so the
// backup written last is also the newest by its name.
const SAME_MILLISECOND_MAX = 1000;

/** A backup key for `key` that holds nothing yet (throws if none is free: callers catch). */
function backupKey(store, key) {
  const at = stamp();
  const first = `${key}.backup.${at}`;
  const taken = backupsOf(store, key).filter((b) => b.at === at).reduce((n, b) => Math.max(n, b.n), 0);
  const name = taken === 0 ? first : `${first}.${taken + 1}`;
  if (taken >= SAME_MILLISECOND_MAX || store.getItem(name) !== null) throw new Error(`no free backup key beside ${first}`);
  return name;
}

// ---- backups: the newest few of each key ---------------------------------------------

/** How many backups of one key are kept; each one written removes the oldest past this. */
export const BACKUPS_KEPT = 3;

// `<key>.backup.<ISO time>` or `<key>.backup.<ISO time>.<n>`; the time sorts as text, the
// count as a number (`.10` is newer than `.9`).
const BACKUP_NAME = /^(.+)\.backup\.(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)(?:\.(\d+))?$/;

/** The backups of `key`, newest first. A name of another shape is not ours to remove. */
function backupsOf(store, key) {
  const found = [];
  for (let i = 0; i < store.length; i += 1) {
    const name = store.key(i);
    const m = name === null ? null : BACKUP_NAME.exec(name);
    if (m && m[1] === key) found.push({ name, at: m[2], n: m[3] === undefined ? 1 : Number(m[3]) });
  }
  return found.sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : b.n - a.n));
}

/**
 * Whether stored text is a good copy: one the reader uses rather than moves aside (a valid
 * entry, a version 0 entry it migrates, a newer version it leaves for a newer station). Keys
 * outside the station keys (the study notes) only need to parse; their reader judges the rest.
 */
function usable(key, raw) {
  if (raw === null) return false;
  const got = inspect(raw);
  if (got.kind !== "parsed") return false;
  if (!key.startsWith(PREFIX)) return true;
  const p = got.parsed;
  if (isObj(p) && isNum(p.version) && p.version > VERSION) return true;
  const entry = isObj(p) && (!("version" in p) || p.version === 0) ? migrateV0(p) : p;
  return entryProblems(entry, key.slice(PREFIX.length)).length === 0;
}

/**
 * Remove all but the newest BACKUPS_KEPT backups of `key`. `keep`, a backup just written, is
 * kept whatever its time says. While `key` itself holds no good copy, the newest good backup
 * is kept in place of the oldest one kept, so the only good copy is never the one removed.
 * Never throws: a backup left over is harmless.
 */
export function pruneBackups(store, key, keep = null) {
  try {
    const all = backupsOf(store, key);
    if (all.length <= BACKUPS_KEPT) return;
    const kept = all.filter((b) => b.name === keep);
    for (const b of all) if (kept.length < BACKUPS_KEPT && b.name !== keep) kept.push(b);
    const good = (b) => usable(key, store.getItem(b.name));
    if (!usable(key, store.getItem(key)) && !kept.some(good)) {
      const newestGood = all.find((b) => !kept.includes(b) && good(b));
      const oldest = kept.findLastIndex((b) => b.name !== keep);
      if (newestGood && oldest >= 0) kept[oldest] = newestGood;
    }
    for (const b of all) if (!kept.includes(b)) store.removeItem(b.name);
  } catch {
    /* storage refused a read or a removal: the backups stay as they are */
  }
}

/** Prune the backups of every route-memory key and the study key, whoever wrote them. */
function pruneAll(store) {
  const keys = new Set();
  try {
    for (let i = 0; i < store.length; i += 1) {
      const m = BACKUP_NAME.exec(store.key(i) ?? "");
      if (m && (m[1].startsWith(PREFIX) || m[1] === STUDY_KEY)) keys.add(m[1]);
    }
  } catch {
    return;
  }
  for (const key of keys) pruneBackups(store, key);
}

/** Move a blob aside; returns the backup key, or null if even that was impossible. */
export function backup(store, key, raw) {
  try {
    const aside = backupKey(store, key);
    store.setItem(aside, raw);
    store.removeItem(key);
    pruneBackups(store, key, aside);
    return aside;
  } catch {
    return null; // out of room even for the copy: leave the original where it was
  }
}

// ---- writing --------------------------------------------------------------------------

const UNCHANGED = "Your latest change could not be saved; what was saved before is kept as it was.";

/**
 * Store an entry under its station's key, the entry it replaces kept as a backup. An entry
 * the reader would refuse (too large, too deep, invalid) is not written, and one that does
 * not fit in storage leaves the key and its backups exactly as they were: the copy of the
 * old entry is made first, the key is replaced only by a write that succeeds, and the copy
 * goes again if it does not. Returns {ok, message}; never throws.
 */
export function write(store, entry) {
  if (!store) return { ok: false, message: "Saving is off: this browser's storage is not available here." };
  const title = isObj(entry) && typeof entry.station === "string" ? titleOf(entry.station) : "route memory";
  const problems = storedProblems(entry);
  if (problems.length) {
    return { ok: false, message: `Saving failed: the ${title} checkpoint could not be read back: ${problems.slice(0, 3).join("; ")}. ${UNCHANGED}` };
  }
  const key = keyOf(entry.station);
  const text = JSON.stringify(entry);
  let aside = null;
  try {
    const previous = store.getItem(key);
    if (previous !== null && previous !== text) {
      try {
        aside = backupKey(store, key);
        store.setItem(aside, previous);
      } catch {
        aside = null; // no room for the copy; the new entry still replaces it only if it fits
      }
    }
    store.setItem(key, text);
  } catch (err) {
    try {
      if (aside) store.removeItem(aside); // the copy of what is still in the key
    } catch {
      /* a copy left over is a duplicate, not a loss */
    }
    const full = err && (err.name === "QuotaExceededError" || err.code === 22);
    return {
      ok: false,
      message: full
        ? `Saving failed: this browser's storage for the station is full. ${UNCHANGED} Export your memory, then clear old entries.`
        : `Saving failed: this browser refused to store the checkpoint. ${UNCHANGED}`,
    };
  }
  pruneBackups(store, key, aside);
  return { ok: true, message: `Saved ${title} checkpoint at ${new Date(entry.savedAt).toLocaleString()}.` };
}

// ---- validation: the compiled schema, its errors said in words ----------------------

const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const isNum = (x) => typeof x === "number" && Number.isFinite(x);
const STATION_URL = new RegExp(STATION_URL_PATTERN);

/** An RFC 3339 date-time, the schema's "format": "date-time" (the validator's own check). */
export function isDate(x) {
  return typeof x === "string" && x.length <= TIMESTAMP_MAX && isDateTime(x);
}

const NOUNS = {
  number: "a number", integer: "an integer", string: "text", boolean: "true or false",
  null: "null", object: "an object", array: "a list",
};
const shown = (x) => {
  let text;
  try {
    text = x === undefined ? "nothing" : JSON.stringify(x);
  } catch {
    text = Array.isArray(x) ? "a list" : "an object"; // nested past what this engine writes out
  }
  return text.length <= 40 ? text : `${text.slice(0, 37)}...`;
};

/** A node's numeric range in words, as witness.core.settings.expected_text says it. */
function range(node) {
  const low = "exclusiveMinimum" in node ? ["above", node.exclusiveMinimum] : "minimum" in node ? ["from", node.minimum] : null;
  const high = "exclusiveMaximum" in node ? ["below", node.exclusiveMaximum] : "maximum" in node ? ["to", node.maximum] : null;
  if (low && high) {
    if (low[0] === "from" && high[0] === "to") return ` from ${low[1]} to ${high[1]}`;
    return ` ${low[0]} ${low[1]} and ${high[0] === "to" ? "at most" : "below"} ${high[1]}`;
  }
  if (low) return low[0] === "from" ? ` of at least ${low[1]}` : ` above ${low[1]}`;
  if (high) return high[0] === "to" ? ` of at most ${high[1]}` : ` below ${high[1]}`;
  return "";
}

/** What a schema node asks for, as words: "an integer from 1 to 16". */
function expected(node) {
  if ("const" in node) return shown(node.const);
  if (node.enum) return `one of ${node.enum.map(shown).join(", ")}`;
  if (node.pattern === STATION_URL_PATTERN) return `a /station link of at most ${node.maxLength} characters`;
  let text = [].concat(node.type || []).map((t) => NOUNS[t] || t).join(" or ") + range(node);
  if ("maxLength" in node) text += ` of at most ${node.maxLength} characters`;
  // The prompt's pattern refuses control characters: said as the server says it.
  if (node.pattern === SETTINGS.prompt.pattern) text += " without control characters";
  else if ("pattern" in node) text += ` matching ${node.pattern}`;
  return text;
}

const pathOf = (pointer) => pointer.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");
const at = (path, name) => (path ? `${path}.${name}` : name);

// Envelope fields keep the sentences learners already know ("its version is 2, not 1").
const ENVELOPE = {
  entry: {
    whole: "the entry",
    version: (data) => `its version is ${shown(data)}, not ${VERSION}`,
    station: (data) => `it names an unknown station ${JSON.stringify(String(data)).slice(0, 60)}`,
  },
  file: {
    whole: "the file",
    version: (data) => `the file's version is ${shown(data)}, not ${VERSION}`,
    kind: () => "the file is not a route-memory export",
    entries: () => `entries must be a list of at most ${STATIONS.length} entries`,
  },
};

/** One Ajv error as a sentence, or null for one that only repeats others (if, oneOf). */
function sentence(err, all, words) {
  const path = pathOf(err.instancePath);
  const { keyword, params } = err;
  if (keyword === "if" || keyword === "oneOf") return null;
  // A value that matches another branch of a oneOf (a prediction that is an object) is
  // judged by that branch; only when it matches none is the type the problem.
  if (keyword === "type" && err.schemaPath.includes("/oneOf/")) {
    const same = all.filter((e) => e.instancePath === err.instancePath && e.schemaPath.includes("/oneOf/"));
    if (same.some((e) => e.keyword !== "type") || all.some((e) => e.instancePath.startsWith(`${err.instancePath}/`))) return null;
    if (same[0] !== err) return null;
    const types = same.flatMap((e) => [].concat(e.parentSchema.type));
    return `${path} must be ${types.map((t) => NOUNS[t] || t).join(" or ")} (got ${shown(err.data)})`;
  }
  if (keyword === "required") return `${at(path, params.missingProperty)} is missing`;
  if (keyword === "additionalProperties") {
    return `${path || words.whole} has an unknown field ${JSON.stringify(String(params.additionalProperty).slice(0, 40))}`;
  }
  if (Object.hasOwn(words, path) && typeof words[path] === "function") return words[path](err.data);
  if (keyword === "format" || (err.parentSchema.format && ["type", "maxLength"].includes(keyword))) {
    return `${path} is not a date and time (RFC 3339, such as 2026-11-29T09:00:00Z)`;
  }
  if (keyword === "maxItems") return `${path} must be a list of at most ${params.limit} items`;
  return `${path} must be ${expected(err.parentSchema)} (got ${shown(err.data)})`;
}

// The envelope's problems first, then the checkpoint's, shallowest first (read() shows three).
const depth = (err) => err.instancePath.split("/").length + (err.keyword === "required" ? 1 : 0);

function sentences(errors, words, prefix = "") {
  const out = [];
  const ordered = (errors || []).map((err, i) => [depth(err), i, err]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [, , err] of ordered) {
    const text = sentence(err, errors, words);
    if (text !== null && !out.includes(prefix + text)) out.push(prefix + text);
  }
  return out;
}

/** Problems with an entry, as sentences; [] means valid version 1. */
export function entryProblems(entry, expectedStation = null) {
  if (!isObj(entry)) return ["it is not a JSON object"];
  const p = validateEntry(entry) ? [] : sentences(validateEntry.errors, ENVELOPE.entry);
  // The one rule no schema can hold: the key an entry was read from names its station.
  if (expectedStation && entry.station !== expectedStation) {
    p.push(`it belongs to another station (${String(entry.station).slice(0, 40)})`);
  }
  return p;
}

/**
 * Whether a parsed JSON value nests objects and lists more than `limit` deep. Iterative, so a
 * hostile blob nested a hundred thousand deep costs a loop, not the stack.
 */
export function tooDeep(value, limit = MAX_DEPTH) {
  const stack = [[value, 1]];
  while (stack.length) {
    const [x, depth] = stack.pop();
    if (x === null || typeof x !== "object") continue;
    if (depth > limit) return true;
    for (const v of Object.values(x)) stack.push([v, depth + 1]);
  }
  return false;
}

const DEEP = `nested too deeply (more than ${MAX_DEPTH} levels of objects and lists)`;

/**
 * What the reader would find wrong with an entry once written: its problems, and its size as
 * stored (`write` stores JSON.stringify(entry); `load` refuses more than MAX_BYTES of it).
 */
export function storedProblems(entry) {
  if (tooDeep(entry)) return [`it is ${DEEP}`];
  const p = entryProblems(entry);
  let size;
  try {
    size = JSON.stringify(entry).length;
  } catch {
    return [...p, "it is nested too deeply to be stored"];
  }
  if (size > MAX_BYTES) p.push(`it is too large (${size} characters; the limit is ${MAX_BYTES})`);
  return p;
}

export function exportProblems(doc) {
  if (!isObj(doc)) return ["the file is not a JSON object"];
  if (validateExport(doc)) return [];
  const errors = validateExport.errors;
  const inEntry = (e) => /^\/entries\/\d+(\/|$)/.test(e.instancePath);
  const p = sentences(errors.filter((e) => !inEntry(e)), ENVELOPE.file);
  // Each entry's problems in the entry's own words, numbered from 1 as the learner counts.
  const byEntry = new Map();
  for (const e of errors.filter(inEntry)) {
    const [, n, rest] = /^\/entries\/(\d+)(.*)$/.exec(e.instancePath);
    if (!byEntry.has(n)) byEntry.set(n, []);
    byEntry.get(n).push({ ...e, instancePath: rest });
  }
  for (const [n, list] of byEntry) {
    const item = doc.entries[Number(n)];
    if (!isObj(item)) p.push(`entry ${Number(n) + 1}: it is not a JSON object`);
    else p.push(...sentences(list, ENVELOPE.entry, `entry ${Number(n) + 1}: `));
  }
  return p;
}

/** Only same-origin station links may be reopened (no javascript:, no other host). */
export function safeStationUrl(url) {
  if (typeof url !== "string" || url.length > STATION_URL_MAX || !STATION_URL.test(url)) return null;
  return url;
}

// ---- migration ------------------------------------------------------------------------

/** Version 0, the prototype's flat shape: fields beside station/savedAt, settings as a query. */
function migrateV0(old) {
  if (!isObj(old) || !("station" in old) || ("version" in old && old.version !== 0)) return null;
  const { station, savedAt, version: _v, ...rest } = old;
  const checkpoint = { ...rest };
  if (station === STATION_ID && typeof rest.settings === "string") {
    const params = new URLSearchParams(rest.settings);
    const settings = {};
    for (const [k, { kind }] of Object.entries(SETTINGS)) {
      if (!params.has(k)) continue;
      const raw = params.get(k);
      const value = kind === "bool" ? ["on", "true", "1"].includes(raw) : kind === "str" || kind === "choice" ? raw : Number(raw);
      // What is left out (or out of range) makes the migrated entry fail validation below.
      if (typeof value !== "number" || Number.isFinite(value)) settings[k] = value;
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
  return inspect(raw);
}

/** The size and JSON checks of `load` on text already fetched: "damaged" or "parsed". */
function inspect(raw) {
  if (raw.length > MAX_BYTES) return { kind: "damaged", raw, why: `too large (${raw.length} characters; the limit is ${MAX_BYTES})` };
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { kind: "damaged", raw, why: "not valid JSON" };
  }
  if (tooDeep(parsed)) return { kind: "damaged", raw, why: DEEP };
  return { kind: "parsed", raw, parsed };
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
  return { version: VERSION, kind: EXPORT_KIND, exportedAt: stamp(), entries };
}
