// When an update cannot reach the station's server (the class Wi-Fi dropped, the laptop
// serving the class went to sleep, the server stopped) htmx leaves the last evidence on
// screen. Without a word that would show evidence for settings the sliders no longer hold,
// so this says what happened, in place, and marks the evidence as out of date until the
// next answer replaces it.

const NOTICE_ID = "connection-notice";

function say(lines) {
  const notice = document.getElementById(NOTICE_ID);
  if (!notice) return;
  notice.replaceChildren(...lines.map((text, i) => {
    const p = document.createElement("p");
    if (i === 0) {
      const strong = document.createElement("strong");
      strong.textContent = text;
      p.append(strong);
    } else {
      p.textContent = text;
    }
    return p;
  }));
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

function onFailure(event) {
  const xhr = event.detail && event.detail.xhr;
  const status = xhr && event.type === "htmx:responseError" ? xhr.status : 0;
  const what = status
    ? `The station's server answered with an error (HTTP ${status}).`
    : event.type === "htmx:timeout"
      ? "The station's server took too long to answer."
      : "The station's server could not be reached.";
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

export function startConnectionNotices() {
  for (const name of ["htmx:sendError", "htmx:timeout", "htmx:responseError"]) {
    document.addEventListener(name, onFailure);
  }
  document.addEventListener("htmx:afterRequest", onAnswer);
}
