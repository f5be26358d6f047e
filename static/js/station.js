// Station 08's page script (an ES module; the CSP allows no inline script). The server does
// the work; this keeps the instrument's numbers in step with the sliders while a request is
// in flight, and starts route memory (./station-memory.js).

import { startChartDownloads } from "./charts.js";
import { PARTS_HEADER } from "./contract.js";
import { startConnectionNotices } from "./connection.js";
import { startStationMemory } from "./station-memory.js";
import { startStepThrough } from "./stepthrough.js";

function showSliderValue(input) {
  const out = document.getElementById(`out-${input.name}`);
  if (!out) return;
  const step = input.getAttribute("step") || "1";
  const places = step.includes(".") ? step.split(".")[1].length : 0;
  out.textContent = Number(input.value).toFixed(places);
}

document.addEventListener("input", (event) => {
  const target = event.target;
  if (target instanceof HTMLInputElement && target.type === "range") showSliderValue(target);
});

// A prediction is recorded against the instrument as it stands now, not as the page was
// first drawn: copy the instrument's current values into the prediction forms on submit.
function syncFromInstrument(form) {
  const instrument = document.querySelector("[data-testid=instrument]");
  if (!instrument) return;
  for (const [name, value] of new FormData(instrument)) {
    if (["pred", "expect_faster", "expect_kept"].includes(name)) continue;
    let field = form.querySelector(`input[type=hidden][name="${CSS.escape(name)}"]`);
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = name;
      form.append(field);
    }
    field.value = String(value);
  }
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.action.endsWith("/station/predict")) syncFromInstrument(form);
});

// "Copy link" copies the link the share field shows. The address bar holds the whole state
// (htmx keeps it current, the step-through's sub-step included), so both links are made from
// it: by default without the prediction (the parameters the share field lists in
// data-drops), opening at step 03, so a class that opens it predicts first; with "include my
// prediction and its evidence" ticked, the address bar as it is.
function linkWithoutPrediction(href, drops) {
  const url = new URL(href);
  // Filter the raw query rather than re-encode it, so every kept part reads as the server wrote it.
  const kept = url.search
    .slice(1)
    .split("&")
    .filter((part) => part && !drops.includes(decodeURIComponent(part.split("=")[0].replace(/\+/g, " "))));
  url.search = kept.length ? `?${kept.join("&")}` : "";
  url.hash = "#step-03";
  return url.href;
}

async function copyLink() {
  const status = document.getElementById("copy-status");
  const share = document.querySelector("[data-testid=share]");
  const include = document.getElementById("share-include");
  const full = Boolean(include && include.checked);
  const drops = (share?.getAttribute("data-drops") || "").split(" ").filter(Boolean);
  const url = full ? window.location.href : linkWithoutPrediction(window.location.href, drops);
  const field = document.getElementById(full ? "share-url-full" : "share-url");
  if (field) field.value = url;
  try {
    await navigator.clipboard.writeText(url);
    if (status) status.textContent = full ? "Link copied, with your prediction and its evidence." : "Link copied: it opens at the prediction.";
  } catch {
    if (field) field.select();
    if (status) status.textContent = "Copying was not allowed here: the link is selected, copy it with Ctrl+C.";
  }
}

document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("#copy-link") : null;
  if (button) copyLink();
});

// The classroom is redrawn (out of band) with every evidence answer; keep the sharer's choice
// of link across those redraws rather than fall back to the default each time.
let includePrediction = false;
document.addEventListener("change", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.id === "share-include") {
    includePrediction = event.target.checked;
  }
});
document.addEventListener("htmx:oobAfterSwap", () => {
  const include = document.getElementById("share-include");
  if (include) include.checked = includePrediction;
});

// A slider's fragment leaves out the parts of the page that would come back as they are
// (app/rendering/parts.py): name the ones this page holds, by the digest each carries. The
// answer names the parts it left out; if one of them has changed on this page since the
// request left (another answer swapped it meanwhile), the answer is not swapped and the
// request is sent again asking for every part, so the page never mixes two states.
document.addEventListener("htmx:configRequest", (event) => {
  const { path, headers } = event.detail;
  if (!path.startsWith("/station/evidence") || PARTS_HEADER in headers) return;
  headers[PARTS_HEADER] = [...document.querySelectorAll("[data-part]")].map((el) => el.dataset.part).join(" ");
});

document.addEventListener("htmx:beforeSwap", (event) => {
  const { xhr } = event.detail;
  const left = (xhr.getResponseHeader(PARTS_HEADER) || "").split(" ").filter(Boolean);
  if (left.every((digest) => document.querySelector(`[data-part="${digest}"]`))) return;
  event.detail.shouldSwap = false;
  window.htmx.ajax("GET", xhr.responseURL, {
    target: "#panel-evidence",
    swap: "outerHTML",
    headers: { [PARTS_HEADER]: "" },
  });
});

// A block of the request text is a link to the page with that block selected. Here it asks
// for the same state's evidence fragment instead (the lane names the fragment's route and
// where it goes), so each block carries one URL, not two, in every slider's answer.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("[data-fragment] a[href]") : null;
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const lane = link.closest("[data-fragment]");
  event.preventDefault();
  window.htmx.ajax("GET", lane.dataset.fragment + new URL(link.href).search, {
    source: link,
    target: lane.dataset.fragmentTarget,
    swap: "outerHTML",
  });
});

// A fold or a why a reader opened stays open when a slider's answer redraws the panel that
// holds it: the answer is rendered with every disclosure closed (it cannot know), so the ids
// the reader opened are kept here and opened again after each swap.
const opened = new Set();
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (!(details instanceof HTMLDetailsElement) || !details.id) return;
  if (details.open) opened.add(details.id);
  else opened.delete(details.id);
}, true);
const reopen = () => {
  for (const id of opened) document.getElementById(id)?.setAttribute("open", "");
};
document.addEventListener("htmx:afterSwap", reopen);
document.addEventListener("htmx:oobAfterSwap", reopen);

document.documentElement.classList.add("js");
startStationMemory();
startChartDownloads();
startStepThrough();
startConnectionNotices();
