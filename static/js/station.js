// Station 08's one page script (an ES module; the CSP allows no inline script).
// The server does the work; this only keeps the instrument's numbers in step with the
// sliders while a request is in flight, so a drag never shows a stale value.

function showSliderValue(input) {
  const out = document.getElementById(`out-${input.name}`);
  if (!out) return;
  const step = input.getAttribute("step") || "1";
  const places = step.includes(".") ? step.split(".")[1].length : 0;
  out.textContent = Number(input.value).toFixed(Math.max(places, input.name === "k" ? 0 : 2));
}

document.addEventListener("input", (event) => {
  const target = event.target;
  if (target instanceof HTMLInputElement && target.type === "range") showSliderValue(target);
});
