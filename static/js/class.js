// A learner's live class, in this browser only: joining (/join/<code>), and on the
// station the class banner, which sends the learner's recorded prediction to the class and
// follows the instructor to the next question.
//
// The membership is one localStorage entry under CLASS_KEY: {v, code, learner, follow,
// question, sent}. `learner` is 128 random bits (crypto.getRandomValues), the only id the
// class ever sees; `sent` is the last prediction the class accepted, so a reload sends
// nothing twice. A damaged or foreign entry is removed, and the station goes on alone.
// Everything shown is written with textContent; the server's own messages are text too.
// A class the instructor has locked refuses a learner new to it (423): the banner says so
// and sends nothing more until the class's poll shows it unlocked.

import {
  CLASS_CODE_PATTERN, CLASS_INTERVENTIONS, CLASS_KEY, CLASS_POLL_MS, CLASS_PRESETS,
  CLASS_VERSION, LEARNER_ID_PATTERN,
} from "./contract.js";

const CODE = new RegExp(CLASS_CODE_PATTERN);
const LEARNER = new RegExp(LEARNER_ID_PATTERN);
const FIELDS = ["v", "code", "learner", "follow", "question", "sent"];
const MAX_CHARS = 1024; // a membership is ~150 characters; anything longer is not ours
const SENT = /^[a-z0-9_-]{0,64}(\|[a-z_]{0,16}\|(yes|no|)\|(yes|no|))?$/;

// ---- the membership -------------------------------------------------------------------

function store() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage blocked: the station works alone
  }
}

function valid(m) {
  if (!m || typeof m !== "object" || Array.isArray(m)) return false;
  const keys = Object.keys(m);
  if (keys.length !== FIELDS.length || !keys.every((k) => FIELDS.includes(k))) return false;
  return m.v === CLASS_VERSION
    && typeof m.code === "string" && CODE.test(m.code)
    && typeof m.learner === "string" && LEARNER.test(m.learner)
    && typeof m.follow === "boolean"
    && typeof m.question === "string" && (m.question === "" || Object.hasOwn(CLASS_PRESETS, m.question))
    && typeof m.sent === "string" && SENT.test(m.sent);
}

/** The membership, or null; {damaged: true} when a bad one was found (and removed). */
export function readMembership(s = store()) {
  if (!s) return { membership: null, damaged: false };
  let raw;
  try {
    raw = s.getItem(CLASS_KEY);
  } catch {
    return { membership: null, damaged: false };
  }
  if (raw === null) return { membership: null, damaged: false };
  let parsed = null;
  if (raw.length <= MAX_CHARS) {
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = null;
    }
  }
  if (valid(parsed)) return { membership: parsed, damaged: false };
  forget(s);
  return { membership: null, damaged: true };
}

function save(m, s = store()) {
  if (!s) return false;
  try {
    s.setItem(CLASS_KEY, JSON.stringify(m));
    return true;
  } catch {
    return false; // full or blocked: this page still follows; a reload forgets the class
  }
}

function forget(s = store()) {
  try {
    if (s) s.removeItem(CLASS_KEY);
  } catch {
    // nothing more to do: the entry stays unreadable to us, and is ignored
  }
}

function newLearnerId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function shownTitle(question, revealed) {
  const p = CLASS_PRESETS[question];
  if (!p) return "";
  return revealed ? p.title : p.shown;
}

function promptOf(question) {
  const p = CLASS_PRESETS[question];
  return p ? p.prompt : "";
}

// ---- joining (/join/<code>) -------------------------------------------------------------

function join(root) {
  const code = root.dataset.code || "";
  const question = root.dataset.question || "";
  const status = root.querySelector("[data-testid=joining-status]");
  const preset = CLASS_PRESETS[question];
  if (!CODE.test(code) || !preset) return;
  const { membership } = readMembership();
  // Joining the class again (a second scan) keeps the learner's id: counted once.
  const learner = membership && membership.code === code ? membership.learner : newLearnerId();
  const follow = membership && membership.code === code ? membership.follow : true;
  const saved = save({ v: CLASS_VERSION, code, learner, follow, question, sent: "" });
  if (!saved) {
    if (status) status.textContent = "This browser would not keep the class membership (storage is blocked or full), so your prediction cannot be sent. You can still open the question and predict on your own.";
    return;
  }
  // Locked: stay on this page, which says why a new learner's prediction will be refused;
  // one already in the class opens the question from its link.
  if (root.dataset.locked === "true") {
    if (status) status.textContent = `Class ${code} is kept in this browser. If you have already sent it a prediction, open the question to change it.`;
    return;
  }
  if (status) status.textContent = `Joined class ${code}. Opening the question…`;
  window.location.replace(preset.url);
}

// ---- the banner on the station -----------------------------------------------------------

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

class Banner {
  constructor(slot, membership) {
    this.slot = slot;
    this.m = membership;
    this.page = {
      preset: slot.dataset.preset || "",
      pred: slot.dataset.pred || "",
      faster: slot.dataset.faster || "",
      kept: slot.dataset.kept || "",
    };
    this.timer = null;
    this.stopped = false;
    this.revealed = false;
    this.closed = ""; // the class's refusal while it is locked to this (new) learner
    this.build();
  }

  build() {
    const { slot, m } = this;
    const head = el("p", { class: "class-banner__head" });
    head.append(el("strong", { "data-testid": "class-banner-code" }, `In class ${m.code}`), " · question: ");
    this.title = el("span", { "data-testid": "class-banner-question" }, shownTitle(m.question, false) || "…");
    head.append(this.title);
    // The question itself, so a learner on a phone reads what their answers answer.
    this.prompt = el("p", { class: "class-banner__prompt", "data-testid": "class-banner-prompt" }, promptOf(m.question));
    this.status = el("p", { class: "status class-banner__status", role: "status", "data-testid": "class-banner-status" });
    this.open = el("a", { class: "button", "data-testid": "class-open-question", hidden: "" }, "Open the class's question");
    const follow = el("input", { type: "checkbox", id: "class-follow", "data-testid": "class-follow" });
    follow.checked = m.follow;
    follow.addEventListener("change", () => {
      this.m = { ...this.m, follow: follow.checked };
      save(this.m);
    });
    const label = el("label", { for: "class-follow" }, "Follow the instructor");
    const leave = el("button", { type: "button", class: "button button--quiet", "data-testid": "class-leave" }, "Leave class");
    leave.addEventListener("click", () => this.leave());
    const controls = el("div", { class: "class-banner__controls" });
    const box = el("span", { class: "class-banner__follow" });
    box.append(follow, label);
    controls.append(box, this.open, leave);
    slot.replaceChildren(head, this.prompt, this.status, controls);
    slot.hidden = false;
    this.say(this.onQuestion() ? this.waiting() : "");
  }

  say(text) {
    // Only a change is written: a status region re-read every poll would chatter.
    if (this.status.textContent !== text) this.status.textContent = text;
  }

  onQuestion() {
    return this.page.preset === this.m.question;
  }

  waiting() {
    if (!this.page.pred) return "Record a prediction in step 03: it is sent to the class, anonymously.";
    if (this.page.pred === "skip") return "You skipped: nothing is sent to the class. Record a prediction to be counted.";
    return "Sending your prediction to the class…";
  }

  signature() {
    return `${this.m.question}|${this.page.pred}|${this.page.faster}|${this.page.kept}`;
  }

  leave() {
    this.stop();
    forget();
    const note = el("p", { class: "status", role: "status", "data-testid": "class-left" }, `You left class ${this.m.code}. The station works on its own.`);
    this.slot.replaceChildren(note);
  }

  stop() {
    this.stopped = true;
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
  }

  schedule(delay = CLASS_POLL_MS) {
    if (this.stopped || document.hidden) return;
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.poll(), delay);
  }

  async poll() {
    this.timer = null;
    if (this.stopped) return;
    let info = null;
    try {
      const r = await fetch(`/api/classes/${this.m.code}`, { headers: { Accept: "application/json" }, cache: "no-store" });
      if (r.status === 404) return this.ended();
      if (r.ok) info = await r.json();
    } catch {
      info = null; // the class Wi-Fi dropped: try again at the next tick
    }
    if (this.stopped) return;
    if (info === null) {
      this.say("The class is not answering right now; this station keeps working, and tries again.");
    } else {
      await this.apply(info);
    }
    this.schedule();
  }

  ended() {
    this.stop();
    forget();
    const note = el("p", { class: "status", role: "status", "data-testid": "class-ended" }, `Class ${this.m.code} has ended (or expired). The station works on its own.`);
    this.slot.replaceChildren(note);
  }

  async apply(info) {
    const question = typeof info.question === "string" && Object.hasOwn(CLASS_PRESETS, info.question) ? info.question : "";
    if (!question) return;
    this.revealed = info.revealed === true;
    if (question !== this.m.question) {
      this.m = { ...this.m, question, sent: "" };
      save(this.m);
      if (this.m.follow && this.page.preset !== question) {
        this.stop();
        this.say(`The class moved to the next question: opening it…`);
        window.location.assign(CLASS_PRESETS[question].url);
        return;
      }
    }
    this.title.textContent = shownTitle(question, this.revealed);
    this.prompt.textContent = promptOf(question);
    this.open.setAttribute("href", CLASS_PRESETS[question].url);
    this.open.hidden = this.onQuestion();
    if (!this.onQuestion()) {
      this.say("This page is not the class's question: open it to predict for the class.");
      return;
    }
    if (this.revealed) {
      this.say("The answers are in: the instructor has revealed the evidence.");
      return;
    }
    // Refused as new to a locked class: sent again only once the instructor unlocks it.
    if (this.closed && info.locked === true) {
      this.say(this.closed);
      return;
    }
    this.closed = "";
    await this.send();
  }

  async send() {
    const { pred, faster, kept } = this.page;
    if (!CLASS_INTERVENTIONS.includes(pred)) {
      this.say(this.waiting());
      return;
    }
    const signature = this.signature();
    if (this.m.sent === signature) {
      this.say("Your prediction is in the class tally. You can change it until the reveal.");
      return;
    }
    const body = { learner: this.m.learner, question: this.m.question, intervention: pred };
    if (faster) body.faster = faster === "yes";
    if (kept) body.kept = kept === "yes";
    let r;
    try {
      r = await fetch(`/api/classes/${this.m.code}/predictions`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body),
      });
    } catch {
      this.say("Your prediction could not be sent yet: trying again.");
      return;
    }
    if (r.ok) {
      this.m = { ...this.m, sent: signature };
      save(this.m);
      this.say("Your prediction is in the class tally. You can change it until the reveal.");
      return;
    }
    const answer = await r.json().catch(() => ({}));
    const detail = typeof answer.detail === "string" ? answer.detail : "";
    if (r.status === 404) return this.ended();
    if (r.status === 423) {
      this.closed = detail || `Class ${this.m.code} is closed to new learners: the instructor has locked it.`;
      this.say(this.closed);
      return;
    }
    if (r.status === 409) {
      this.say(detail || "The class is not taking predictions on this question now.");
      return;
    }
    this.say(detail ? `Not sent: ${detail}` : `Not sent (the class answered ${r.status}); trying again.`);
  }

  start() {
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) {
        if (this.timer !== null) window.clearTimeout(this.timer);
        this.timer = null;
      } else {
        this.schedule(0);
      }
    });
    this.schedule(0);
  }
}

function banner(slot) {
  const { membership, damaged } = readMembership();
  if (damaged) {
    slot.replaceChildren(el("p", { class: "status", role: "status", "data-testid": "class-damaged" }, "A damaged class membership in this browser was removed: the station works on its own. Join the class again from its code."));
    slot.hidden = false;
  }
  if (!membership) return;
  new Banner(slot, membership).start();
}

export function startClass() {
  const joining = document.querySelector("[data-class-join]");
  if (joining) join(joining);
  const slot = document.getElementById("class-banner");
  if (slot) banner(slot);
}

startClass();
