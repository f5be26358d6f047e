// The step-through of one verification step (templates/partials/_stepthrough.html).
//
// Back, Next, Reset and the sub-step list are plain links that work without JavaScript;
// with htmx they fetch /station/step and swap the step-through's root (#stepthrough), and
// the server swaps the sub-step's narration into the live region (#live). This module adds
// what links cannot do:
//   - Play/Pause: advance one sub-step every ~1.2 s, stop at the end;
//   - keys, only while focus is inside the step-through: ← Back, → Next, Space Play/Pause
//     (never taken from a field, a select or a sideways-scrolling table);
//   - focus kept inside the step-through across swaps, so the keys keep working;
//   - the address bar stays the one source of truth: the evidence requests carry the
//     current sub-step, and when the evidence moved the state the step-through follows.
// Transitions are CSS only (static/css/stepthrough.css) and off under reduced motion.

const ROOT_ID = "stepthrough";
const INTERVAL_MS = 1200;

let playing = false;
let timer = 0;
let hadFocus = false;
let autoClick = false;
let inFlight = null; // the step-through request on its way (its XMLHttpRequest), if any
let pending = ""; // a key pressed meanwhile: "st-back" or "st-next", taken after the swap

const root = () => document.getElementById(ROOT_ID);

function enabledLink(id) {
  const el = document.getElementById(id);
  return el instanceof HTMLAnchorElement && el.hasAttribute("href") ? el : null;
}

function follow(id, automatic = false) {
  const link = enabledLink(id);
  if (!link) return false;
  if (!automatic) stop();
  const fragment = link.getAttribute("hx-get");
  if (window.htmx && fragment) {
    // Straight through htmx (the same request the link's own click makes), so a link that
    // htmx has not wired up yet is never followed as a whole-page load by mistake.
    window.htmx
      .ajax("GET", fragment, { source: link, target: `#${ROOT_ID}`, swap: "outerHTML" })
      .catch(stop); // a lost request stops the playback; htmx has reported it already
  } else {
    autoClick = automatic;
    try {
      link.click();
    } finally {
      autoClick = false;
    }
  }
  return true;
}

function showPlayState() {
  const button = document.getElementById("st-play");
  if (button) button.textContent = playing ? "Pause" : "Play";
}

function stop() {
  playing = false;
  window.clearTimeout(timer);
  showPlayState();
}

function schedule() {
  window.clearTimeout(timer);
  if (!playing) return;
  timer = window.setTimeout(() => {
    if (!playing) return;
    if (inFlight) schedule(); // a refresh is landing: step once it has
    else if (!follow("st-next", true)) stop();
  }, INTERVAL_MS);
}

function togglePlay() {
  if (playing) {
    stop();
    return;
  }
  playing = true;
  showPlayState();
  // Snappy: the first step is taken at once; at the end, play starts again from the top.
  if (!follow("st-next", true) && !follow("st-reset", true)) stop();
}

function isField(el) {
  return el.closest("input, select, textarea, [contenteditable]:not([contenteditable='false'])") !== null;
}

function scrollsSideways(el) {
  return el.matches(".table-wrap, .chart") && el.scrollWidth > el.clientWidth;
}

function onKeydown(event) {
  const r = root();
  const target = event.target;
  if (!r || !(target instanceof Element) || !r.contains(target)) return;
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (isField(target)) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    if (scrollsSideways(target)) return;
    event.preventDefault();
    stop();
    const id = event.key === "ArrowLeft" ? "st-back" : "st-next";
    // While a step is on its way the links on screen are one step behind: keep the key
    // (the newest one) and take it once the step has arrived, so quick presses all count.
    if (inFlight) pending = id;
    else follow(id);
  } else if (event.key === " " || event.key === "Spacebar") {
    if (target.closest("button, summary")) return; // the button's own click does it
    event.preventDefault();
    togglePlay();
  }
}

function onClick(event) {
  const target = event.target;
  if (!(target instanceof Element)) return;
  if (target.closest("#st-play")) {
    togglePlay();
  } else if (!autoClick && target.closest(`#${ROOT_ID} a[href]`)) {
    stop(); // a learner's own step pauses the playback
  }
}

function onBeforeSwap(event) {
  const target = event.detail && event.detail.target;
  if (target instanceof Element && target.id === ROOT_ID) {
    hadFocus = target.contains(document.activeElement);
  }
}

function onAfterSwap(event) {
  const el = event.target;
  if (!(el instanceof HTMLElement) || el.id !== ROOT_ID) return;
  showPlayState();
  // htmx refocuses the element with the same id; where there is none (Next at the end is
  // no longer a link), the root itself takes focus so ←/→/Space keep working.
  if (hadFocus && !el.contains(document.activeElement)) el.focus({ preventScroll: true });
  hadFocus = false;
}

// htmx wires the new links up when the swap settles: only then can they be followed.
function onAfterSettle(event) {
  const el = event.target;
  if (!(el instanceof HTMLElement) || el.id !== ROOT_ID) return;
  inFlight = null; // the links on screen are current again
  if (pending) {
    const id = pending;
    pending = "";
    follow(id);
    return;
  }
  if (playing) {
    if (enabledLink("st-next")) schedule();
    else stop();
  }
}

function isStep(detail) {
  return !!detail && !!detail.pathInfo && String(detail.pathInfo.requestPath).startsWith("/station/step");
}

function onBeforeRequest(event) {
  if (isStep(event.detail)) inFlight = event.detail.xhr || null;
}

function onStepDone(event) {
  // A step that arrived is done when it settles (onAfterSettle); one that failed is done
  // now, and leaves no key waiting.
  const detail = event.detail;
  if (isStep(detail) && detail.xhr === inFlight && !detail.successful) {
    inFlight = null;
    pending = "";
  }
}

function isEvidence(path) {
  return typeof path === "string" && path.startsWith("/station/evidence");
}

// Forms and block links drawn before a step carry the sub-step they were drawn with; the
// address bar (HX-Replace-Url) holds the current one.
function onConfigRequest(event) {
  const detail = event.detail;
  if (!detail || !isEvidence(detail.path) || !root()) return;
  const sub = new URLSearchParams(window.location.search).get("sub");
  const url = new URL(detail.path, window.location.href);
  if (url.searchParams.has("sub")) {
    url.searchParams.delete("sub");
    detail.path = url.pathname + url.search;
  }
  if (sub === null || sub === "") delete detail.parameters.sub;
  else detail.parameters.sub = sub;
}

// A whole-page form (the prediction, or the instrument without htmx) likewise sends the
// sub-step the address bar shows, not the one the page was drawn with.
function onSubmit(event) {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== "get" || !root()) return;
  if (!["/station", "/station/predict"].includes(new URL(form.action, window.location.href).pathname)) return;
  const sub = new URLSearchParams(window.location.search).get("sub");
  let field = form.querySelector("input[type=hidden][name='sub']");
  if (sub === null || sub === "") {
    if (field) field.remove();
    return;
  }
  if (!field) {
    field = document.createElement("input");
    field.type = "hidden";
    field.name = "sub";
    form.append(field);
  }
  field.value = sub;
}

// After a slider or a block link moved the state, the step-through shows the new block.
// (When the evidence fragment already carries the step-through out of band, its page URL
// matches and nothing more is asked.) The refresh names the root as its trigger, so the
// server leaves the live region to the evidence's own narration.
function onAfterRequest(event) {
  const detail = event.detail;
  if (!detail || !detail.pathInfo || !isEvidence(detail.pathInfo.requestPath)) return;
  const r = root();
  const page = detail.xhr ? detail.xhr.getResponseHeader("HX-Replace-Url") : null;
  if (!r || !page || r.dataset.page === page || !window.htmx) return;
  const url = new URL(page, window.location.href);
  window.htmx
    .ajax("GET", `/station/step${url.search}`, { source: r, target: r, swap: "outerHTML" })
    .catch(() => {}); // the page stays as it was; htmx has reported the failure already
}

export function startStepThrough() {
  document.documentElement.classList.add("js");
  document.addEventListener("keydown", onKeydown);
  document.addEventListener("click", onClick);
  document.addEventListener("htmx:beforeSwap", onBeforeSwap);
  document.addEventListener("htmx:afterSwap", onAfterSwap);
  document.addEventListener("htmx:afterSettle", onAfterSettle);
  document.addEventListener("htmx:configRequest", onConfigRequest);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("htmx:afterRequest", onAfterRequest);
  document.addEventListener("htmx:beforeRequest", onBeforeRequest);
  document.addEventListener("htmx:afterRequest", onStepDone);
  for (const name of ["htmx:responseError", "htmx:sendError", "htmx:timeout"]) {
    document.addEventListener(name, stop);
  }
}
