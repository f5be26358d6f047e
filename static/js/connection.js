// When an update cannot reach the station's server (the class Wi-Fi dropped, the laptop
// serving the class went to sleep, the server stopped) htmx leaves the last evidence on
// screen. Without a word that would show evidence for settings the sliders no longer hold,
// so this says what happened, in place, and marks the evidence as out of date until the
// next answer replaces it. A panel fetched on its own says so in itself, and a form sent while
// the browser knows it is offline stays on the page with a message.

const NOTICE_ID = "connection-notice";

function say(lines) {
  const notice = document.getElementById(NOTICE_ID);
  if (!notice) return;
  notice.replaceChildren(...paragraphs(lines));
  notice.hidden = false;
}

function markStale() {
  const panel = document.getElementById("panel-evidence");
  if (!panel || panel.querySelector(".stale-banner")) return;
  const banner = document.createElement("p");
  banner.className = "stale-banner";
  banner.dataset.testid = "evidence-stale";
  banner.textContent = "Out of date: this evidence is for the last settings the server answered, not for the instrument as it is now.";
  const heading = panel.querySelector("h2");
  if (heading) heading.after(banner);
  else panel.prepend(banner);
}

function paragraphs(lines) {
  return lines.map((text, i) => {
    const p = document.createElement("p");
    if (i === 0) {
      const strong = document.createElement("strong");
      strong.textContent = text;
      p.append(strong);
    } else {
      p.textContent = text;
    }
    return p;
  });
}

/** Say what happened inside the part of the page the learner asked for (a panel, a form). */
function noteIn(container, lines, after = null) {
  let note = container.querySelector(".request-failed");
  if (!note) {
    note = document.createElement("div");
    note.className = "panel-error request-failed";
    note.setAttribute("role", "alert");
    note.dataset.testid = "request-failed";
    const heading = container.querySelector("h2, h3");
    if (after) after.after(note);
    else if (heading) heading.after(note);
    else container.prepend(note);
  }
  note.replaceChildren(...paragraphs(lines));
}

function onFailure(event) {
  const xhr = event.detail && event.detail.xhr;
  const status = xhr && event.type === "htmx:responseError" ? xhr.status : 0;
  // 503: a lane's queue was full (app/rendering/lanes.py); Retry-After says when to come back.
  const retry = status === 503 ? Number(xhr.getResponseHeader("Retry-After")) || 0 : 0;
  const what = retry
    ? `The station's server is busy with other learners' requests (HTTP 503): try again in ${retry} seconds.`
    : status
    ? `The station's server answered with an error (HTTP ${status}).`
    : event.type === "htmx:timeout"
      ? "The station's server took too long to answer."
      : "The station's server could not be reached.";
  // A panel fetched on its own (the step-through, a policy race, a measurement, the sweep or
  // the slice) says so in itself, where the learner is looking; the evidence is not stale.
  const target = event.detail && event.detail.target;
  if (target instanceof Element && target.id !== "panel-evidence" && target.isConnected) {
    noteIn(target, [
      what,
      status
        ? "This part was not fetched; the rest of the page is as it was. Try again; if it keeps happening, reload the page."
        : "This part was not fetched; the rest of the page is as it was. Is the network down, or has the server stopped? Try again once it is back.",
    ]);
    return;
  }
  say([
    what,
    status
      ? "Nothing on the page was changed. Move a control again to retry; if it keeps happening, reload the page."
      : "Is the network down, or has the server stopped? Nothing on the page was changed: move a control again to retry, or reload once the server is back.",
  ]);
  markStale();
}

function onAnswer(event) {
  if (!event.detail || !event.detail.successful) return;
  const notice = document.getElementById(NOTICE_ID);
  if (notice && !notice.hidden) {
    notice.hidden = true;
    notice.replaceChildren();
  }
  document.querySelectorAll("#panel-evidence .stale-banner").forEach((b) => b.remove());
}

// A form sent while the browser knows it is offline (a prediction, the instrument's Enter)
// would leave the page for the browser's own error page and lose what was chosen; it is kept
// here instead, with a message beside its buttons.
function onSubmit(event) {
  const form = event.target;
  if (navigator.onLine !== false || !(form instanceof HTMLFormElement) || form.method === "dialog") return;
  event.preventDefault();
  const submitter = event.submitter instanceof Element ? event.submitter : null;
  noteIn(form, [
    "You are offline: this needs the station's server.",
    "Nothing was sent, and what you chose is kept on the page. Try again once the network is back.",
  ], submitter ? submitter.closest(".buttons") || submitter : null);
}

export function startConnectionNotices() {
  document.addEventListener("submit", onSubmit);
  for (const name of ["htmx:sendError", "htmx:timeout", "htmx:responseError"]) {
    document.addEventListener(name, onFailure);
  }
  document.addEventListener("htmx:afterRequest", onAnswer);
}
