// The study card's memory (/study) and the worksheet's print button (/station/worksheet).
//
// Study memory is one localStorage entry, documented in docs/route-memory.md ("The study
// key"):
//   STUDY_KEY (contract.js, from app/contract/route.py) =
//     {"version": 1, "checked": [0, 2], "explanation": "…", "review": "…", "savedAt": "ISO"}
// As in memory.js nothing here throws: a blob that cannot be used is moved aside to
// `<key>.backup.<ISO time>` (the newest three are kept) and the learner is told in words;
// storage that is missing, blocked or full is reported the same way, and the page keeps
// working. Everything is written with textContent or .value, never as HTML.

import { STUDY_KEY } from "./contract.js";
import { backup, isDate, load, storage } from "./memory.js";

export { STUDY_KEY };
export const STUDY_VERSION = 1;
export const MAX_TEXT = 4000; // the textareas' maxlength
const SAVE_DELAY_MS = 400;
const FIELDS = ["version", "checked", "explanation", "review", "savedAt"];

const $ = (id) => document.getElementById(id);
const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

function say(text) {
  const el = $("study-status");
  if (el) el.textContent = text;
}

function notice(text) {
  const list = $("study-notices");
  if (!list) return;
  const item = document.createElement("li");
  item.textContent = text;
  list.append(item);
}

/** Problems with a study entry, as sentences; [] means a valid version 1 entry. */
export function studyProblems(entry, items) {
  if (!isObj(entry)) return ["it is not a JSON object"];
  const p = [];
  for (const k of Object.keys(entry)) if (!FIELDS.includes(k)) p.push(`it has an unknown field "${String(k).slice(0, 40)}"`);
  if (entry.version !== STUDY_VERSION) p.push(`its version is ${JSON.stringify(entry.version)}, not ${STUDY_VERSION}`);
  const c = entry.checked;
  if (!Array.isArray(c) || c.length > items || !c.every((i) => Number.isInteger(i) && i >= 0 && i < items) || new Set(c).size !== c.length) {
    p.push(`checked must list distinct item numbers from 0 to ${items - 1}`);
  }
  for (const k of ["explanation", "review"]) {
    if (typeof entry[k] !== "string" || entry[k].length > MAX_TEXT) p.push(`${k} must be text of at most ${MAX_TEXT} characters`);
  }
  if (!isDate(entry.savedAt)) p.push("savedAt is not a date");
  return p;
}

/** Read the study entry: {status, entry?, raw?, message}; never throws. */
export function readStudy(store, items) {
  const got = load(store, STUDY_KEY);
  if (got.kind === "unavailable") {
    const message = got.refused
      ? "Study memory is off for this visit: this browser refused access to its storage."
      : "Study memory is off for this visit: this browser's storage is not available here. Your ticks and writing will not be kept.";
    return { status: "unavailable", message };
  }
  if (got.kind === "missing") return { status: "missing", message: "" };
  const raw = got.raw;
  const aside = (why) => {
    const where = backup(store, STUDY_KEY, raw);
    const kept = where ? `They were kept aside as "${where}".` : "They could not be copied aside, so they were left in place.";
    return { status: "damaged", message: `Your saved study notes could not be used: ${why}. ${kept} The card starts empty.` };
  };
  if (got.kind === "damaged") return aside(`they are ${got.why}`);
  const parsed = got.parsed;
  if (isObj(parsed) && typeof parsed.version === "number" && parsed.version > STUDY_VERSION) {
    return { status: "newer", raw, message: `Your saved study notes are from a newer version (${parsed.version}) of the route; they were left untouched, and are kept as a backup if you save here.` };
  }
  const problems = studyProblems(parsed, items);
  if (problems.length) return aside(problems.slice(0, 3).join("; "));
  return { status: "ok", entry: parsed, raw, message: `Restored your study notes saved ${new Date(parsed.savedAt).toLocaleString()}.` };
}

function startStudyCard(card) {
  const boxes = Array.from(card.querySelectorAll("input[type=checkbox][name=proof]"));
  const explanation = $("explanation");
  const review = $("review-answer");
  const store = storage();
  const result = readStudy(store, boxes.length);
  // What this page last read as valid or wrote; anything else found there at save time is
  // someone else's (a newer version, another tab) and is kept as a backup first.
  let mine = result.status === "ok" ? result.raw : null;

  if (result.status === "ok") {
    const checked = new Set(result.entry.checked);
    boxes.forEach((box, i) => { box.checked = checked.has(i); });
    if (explanation) explanation.value = result.entry.explanation;
    if (review) review.value = result.entry.review;
    say(result.message);
  } else if (result.status === "unavailable") {
    say(result.message);
  } else if (result.message) {
    notice(result.message);
  }

  function save() {
    if (!store) {
      say("Not saved: this browser's storage is not available here.");
      return;
    }
    const entry = {
      version: STUDY_VERSION,
      checked: boxes.map((box, i) => (box.checked ? i : -1)).filter((i) => i >= 0),
      explanation: explanation ? explanation.value.slice(0, MAX_TEXT) : "",
      review: review ? review.value.slice(0, MAX_TEXT) : "",
      savedAt: new Date().toISOString(),
    };
    const text = JSON.stringify(entry);
    try {
      const current = store.getItem(STUDY_KEY);
      if (current !== null && current !== mine) {
        const where = backup(store, STUDY_KEY, current);
        if (where) notice(`Study notes saved elsewhere were kept aside as "${where}" before saving yours.`);
      }
      store.setItem(STUDY_KEY, text);
      mine = text;
      say(`Saved in this browser at ${new Date(entry.savedAt).toLocaleTimeString()}.`);
    } catch (err) {
      const full = err && (err.name === "QuotaExceededError" || err.code === 22);
      say(full ? "Not saved: this browser's storage is full." : "Not saved: this browser refused to store your notes.");
    }
  }

  let timer = null;
  const later = () => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => { timer = null; save(); }, SAVE_DELAY_MS);
  };
  const now = () => {
    if (timer !== null) { clearTimeout(timer); timer = null; save(); }
  };
  for (const box of boxes) box.addEventListener("change", save);
  for (const area of [explanation, review]) {
    if (!area) continue;
    area.addEventListener("input", later);
    area.addEventListener("change", now);
  }
  window.addEventListener("pagehide", now);
  card.dataset.ready = "true";
}

function startPrintButton(button) {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
}

document.documentElement.classList.add("js");
const card = document.querySelector("[data-testid=study-card]");
if (card) startStudyCard(card);
const printButton = $("print-worksheet");
if (printButton) startPrintButton(printButton);
