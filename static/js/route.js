// The station's own route view: the ten stations and what this browser's route memory holds.

import { STATION_ID } from "./contract.js";
import { readAll, safeStationUrl, storage } from "./memory.js";

const store = storage();
const status = document.querySelector("[data-testid=route-status]");
if (!store) {
  status.textContent = "Route memory is not available in this browser (storage is blocked or off).";
} else {
  const rows = readAll(store);
  const saved = rows.filter((r) => r.entry).length;
  status.textContent = `${saved} of ${rows.length} stations have a checkpoint saved in this browser.`;
  for (const row of rows) {
    const cell = document.querySelector(`[data-testid="memory-${row.id}"]`);
    if (!cell) continue;
    if (!row.entry) {
      cell.textContent = row.status === "missing" ? "nothing saved" : row.message;
      continue;
    }
    cell.textContent = `saved ${new Date(row.entry.savedAt).toLocaleString()}`;
    const url = row.id === STATION_ID ? safeStationUrl(row.entry.checkpoint.url) : null;
    if (url) {
      const link = document.createElement("a");
      link.href = url;
      link.textContent = "reopen";
      cell.append(" · ", link);
    }
  }
}
