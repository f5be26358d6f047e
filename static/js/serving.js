// The Serving stand-in: save the entered workload as the Serving checkpoint of route memory
// (docs/route-memory.md), then go to the station carrying it in the link as well.

import { entryProblems, storage, write } from "./memory.js";

const form = document.querySelector("[data-testid=serving-form]");
const status = document.querySelector("[data-testid=serving-status]");

function workloadFrom(data) {
  const workload = {
    ttftMs: Number(data.get("ttft_ms")),
    tpotMs: Number(data.get("tpot_ms")),
    tokensToGenerate: Number(data.get("tokens")),
  };
  const prompt = String(data.get("prompt") || "");
  const notes = String(data.get("notes") || "").trim();
  if (prompt) workload.prompt = prompt;
  if (notes) workload.notes = notes;
  return workload;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const entry = {
    version: 1,
    station: "serving",
    savedAt: new Date().toISOString(),
    checkpoint: {
      object: "route:ai-lab/transformers/serving#serving-station (stand-in)",
      summary: "Entered in station 08's Serving stand-in.",
      workload: workloadFrom(data),
    },
  };
  const problems = entryProblems(entry, "serving");
  if (problems.length) {
    status.textContent = `Not saved: ${problems.join("; ")}.`;
    return;
  }
  const result = write(storage(), entry);
  const query = new URLSearchParams({ from: "serving" });
  for (const name of ["ttft_ms", "tpot_ms", "tokens", "prompt"]) query.set(name, String(data.get(name) || ""));
  if (!result.ok) {
    status.textContent = `${result.message} Going on with the workload in the link only…`;
  }
  window.location.assign(`/station?${query.toString()}`);
});
