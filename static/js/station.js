// Station 08's page script (an ES module; the CSP allows no inline script). The server does
// the work; this keeps the instrument's numbers in step with the sliders while a request is
// in flight, and starts route memory (./station-memory.js).

import { startStationMemory } from "./station-memory.js";

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

document.documentElement.classList.add("js");
startStationMemory();
