// Station 08's page script (an ES module; the CSP allows no inline script). The server does
// the work; this keeps the instrument's numbers in step with the sliders while a request is
// in flight, and starts route memory (./station-memory.js).

import { startChartDownloads } from "./charts.js";
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

// "Copy link": the address bar already holds the whole state (htmx keeps it current).
async function copyLink() {
  const status = document.getElementById("copy-status");
  const field = document.getElementById("share-url");
  const url = window.location.href;
  if (field) field.value = url;
  try {
    await navigator.clipboard.writeText(url);
    if (status) status.textContent = "Link copied.";
  } catch {
    if (field) field.select();
    if (status) status.textContent = "Copying was not allowed here: the link is selected, copy it with Ctrl+C.";
  }
}

document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("#copy-link") : null;
  if (button) copyLink();
});

document.documentElement.classList.add("js");
startStationMemory();
startChartDownloads();
startStepThrough();
startConnectionNotices();
