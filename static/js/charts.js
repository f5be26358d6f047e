// Download a chart as SVG or PNG. The page's charts are styled by the stylesheet, so the
// exported copy carries each element's computed paint as attributes (and any pattern it
// borrows from another chart), which makes the file look the same outside the page.

import { saveBlob } from "./download.js";

const PAINT = ["fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "font-size", "font-family", "font-weight"];

function standalone(svg) {
  const copy = svg.cloneNode(true);
  const source = [svg, ...svg.querySelectorAll("*")];
  const target = [copy, ...copy.querySelectorAll("*")];
  source.forEach((el, i) => {
    const style = getComputedStyle(el);
    for (const name of PAINT) {
      const value = style.getPropertyValue(name);
      if (value) target[i].setAttribute(name, value);
    }
  });
  // Patterns referenced by url(#id) but defined in another chart travel with the copy.
  let defs = copy.querySelector("defs");
  for (const el of copy.querySelectorAll("[fill^='url(']")) {
    const id = el.getAttribute("fill").match(/#([^)"']+)/);
    if (!id || copy.querySelector(`#${CSS.escape(id[1])}`)) continue;
    const pattern = document.getElementById(id[1]);
    if (!pattern) continue;
    if (!defs) {
      defs = document.createElementNS("http://www.w3.org/2000/svg", "defs");
      copy.prepend(defs);
    }
    defs.append(standalone(pattern.ownerSVGElement).querySelector(`#${CSS.escape(id[1])}`));
  }
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  const box = svg.viewBox.baseVal;
  copy.setAttribute("width", String(box.width));
  copy.setAttribute("height", String(box.height));
  return copy;
}

function toPng(text, width, height, name) {
  const scale = 2; // crisp on slides and projectors
  const image = new Image();
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  image.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = width * scale;
    canvas.height = height * scale;
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor || "#ffffff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => blob && saveBlob(blob, name), "image/png");
  };
  image.src = url;
}

export function startChartDownloads() {
  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("[data-download]") : null;
    if (!button) return;
    const svg = button.closest("figure")?.querySelector("svg");
    if (!svg) return;
    const name = `station08-${svg.dataset.chart || "chart"}`;
    const text = new XMLSerializer().serializeToString(standalone(svg));
    if (button.dataset.download === "svg") saveBlob(new Blob([text], { type: "image/svg+xml" }), `${name}.svg`);
    else toPng(text, svg.viewBox.baseVal.width, svg.viewBox.baseVal.height, `${name}.png`);
  });
}
