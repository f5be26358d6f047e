// The Serving stand-in: save the entered workload as the Serving checkpoint of route memory
// (docs/route-memory.md), then go to the station carrying it in the link as well.

import { MEMORY_VERSION, ROUTE_ID, SETTINGS, WORKLOAD } from "./contract.js";
import { entryProblems, storage, write } from "./memory.js";

const form = document.querySelector("[data-testid=serving-form]");
const status = document.querySelector("[data-testid=serving-status]");

const SERVING = "serving"; // the station this page stands in for

function workloadFrom(data) {
  const workload = {};
  for (const [setting, field, optional] of WORKLOAD) {
    const raw = String(data.get(setting) || "");
    if (SETTINGS[setting].kind === "str") {
      if (raw) workload[field] = raw; // an empty prompt is left out, as Serving would
    } else if (raw.trim() || !optional) workload[field] = Number(raw); // optional: left out
  }
  const notes = String(data.get("notes") || "").trim();
  if (notes) workload.notes = notes;
  return workload;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const entry = {
    version: MEMORY_VERSION,
    station: SERVING,
    savedAt: new Date().toISOString(),
    checkpoint: {
      object: `route:${ROUTE_ID}/${SERVING}#${SERVING}-station (stand-in)`,
      summary: "Entered in station 08's Serving stand-in.",
      workload: workloadFrom(data),
    },
  };
  const problems = entryProblems(entry, SERVING);
  if (problems.length) {
    status.textContent = `Not saved: ${problems.join("; ")}.`;
    return;
  }
  const result = write(storage(), entry);
  const query = new URLSearchParams({ from: "serving" });
  for (const [name] of WORKLOAD) query.set(name, String(data.get(name) || ""));
  if (!result.ok) {
    status.textContent = `${result.message} Going on with the workload in the link only…`;
  }
  window.location.assign(`/station?${query.toString()}`);
});
