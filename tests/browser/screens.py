"""The three screens the station is read on, and what one of them shows: the page's height,
the words visible with every disclosure closed, whether the loop (the match and k sliders, a
speedup figure, both gates) stands in one viewport, and what is wider than the screen.

Shared by tests/browser/test_one_screen.py, which holds the page to the budgets, and
scripts/screens.py, which prints the figures and takes the screenshots."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page


@dataclass(frozen=True)
class Screen:
    name: str
    width: int
    height: int
    query: str  # the page, after a recorded (skipped) prediction
    words_max: int | None  # words visible with every disclosure closed
    height_max: int | None  # the page's height in CSS px

    @property
    def viewport(self) -> dict[str, int]:
        return {"width": self.width, "height": self.height}


LAPTOP_WORDS = 1200
SCREENS = (
    Screen("laptop", 1280, 800, "/station?pred=skip", LAPTOP_WORDS, None),
    Screen("phone", 390, 844, "/station?pred=skip", None, 7000),
    # The projector shows fewer words than the laptop.
    Screen("projector", 1024, 768, "/station?pred=skip&view=projector", LAPTOP_WORDS - 200, None),
)

# The loop a learner watches: what they move and what answers, by CSS selector.
LOOP = {
    "match slider": "#in-match",
    "k slider": "#in-k",
    "speedup": "[data-testid=readout-speedup]",
    "correctness gate": "[data-testid=readout-gate-correctness]",
    "savings gate": "[data-testid=readout-gate-savings]",
}

# Words a reader sees: text that has a box on screen (not in a closed disclosure, not
# visually hidden for screen readers), counted when it holds a letter.
WORDS = """() => {
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'title']);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let words = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || skip.has(el.tagName) || !n.textContent.trim()) continue;
    if (!el.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    range.selectNodeContents(n);
    const area = [...range.getClientRects()].reduce((a, r) => a + r.width * r.height, 0);
    if (area <= 4) continue;
    words += n.textContent.split(/\\s+/).filter(w => /\\p{L}/u.test(w)).length;
  }
  return words;
}"""

# Each selector's element: wholly inside the viewport, and on top at its centre (not under a
# sticky bar). Returns the names that are not.
OUT_OF_VIEW = """(loop) => Object.entries(loop).filter(([name, sel]) => {
  const el = document.querySelector(sel);
  if (!el) return true;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)
    return true;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !(hit && (el === hit || el.contains(hit) || hit.contains(el)));
}).map(([name]) => name)"""

# What is wider than the screen, or scrolls sideways, among the elements a reader sees.
WIDE = """() => {
  const out = [];
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.dataset.testid ? `[${el.dataset.testid}]` : '') +
    (el.classList.length ? '.' + [...el.classList].join('.') : '');
  if (document.documentElement.scrollWidth > innerWidth + 1)
    out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px)`);
  const scrollers = [], hidden = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (!el.checkVisibility()) continue;
    if (scrollers.some(s => s.contains(el))) continue;  // counted once, as its scroller
    if (hidden.some(h => h.contains(el))) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.position === 'absolute' && style.clip !== 'auto') {  // visually hidden, with all it holds
      hidden.push(el);
      continue;
    }
    if (r.right > innerWidth + 1 || r.left < -1) out.push(`${name(el)} is ${Math.round(r.width)} px wide`);
    else if (['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
      out.push(`${name(el)} scrolls sideways (${el.scrollWidth} in ${el.clientWidth} px)`);
      scrollers.push(el);
    }
  }
  return out;
}"""


@dataclass
class Measure:
    height: int
    words: int
    apart: list[str]  # what of the loop is out of view with the instrument in view
    apart_after_k: list[str]  # …after a keyboard change of k
    wide: list[str] = field(default_factory=list)
    screen: Screen | None = None

    def summary(self) -> str:
        loop = "together" if not (self.apart or self.apart_after_k) else "apart"
        return (
            f"height {self.height:6d} px  words {self.words:5d}  loop {loop:8s}"
            f"  wide {len(self.wide)}"
        )

    def problems(self) -> list[str]:
        s = self.screen
        out = []
        if s and s.words_max is not None and self.words > s.words_max:
            out.append(f"{self.words} words visible (budget {s.words_max})")
        if s and s.height_max is not None and self.height > s.height_max:
            out.append(f"{self.height} px tall (budget {s.height_max})")
        if self.apart:
            out.append(f"out of view beside the sliders: {', '.join(self.apart)}")
        if self.apart_after_k:
            out.append(f"out of view after a change of k: {', '.join(self.apart_after_k)}")
        out += self.wide[:12]
        if len(self.wide) > 12:
            out.append(f"… and {len(self.wide) - 12} more wide elements")
        return out


def settle(page: Page) -> None:
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready")


def instrument_in_view(page: Page) -> None:
    """Where a learner working the sliders has scrolled: the match slider at the top of the
    screen (below any sticky bar)."""
    page.evaluate(
        "() => { document.documentElement.style.scrollBehavior = 'auto';"
        " document.querySelector('#in-match').scrollIntoView({block: 'center'}); }"
    )


def measure(page: Page, url: str, screen: Screen) -> Measure:
    page.emulate_media(reduced_motion="reduce")
    page.goto(f"{url}{screen.query}", wait_until="networkidle")
    settle(page)
    height = int(page.evaluate("() => document.documentElement.scrollHeight"))
    words = int(page.evaluate(WORDS))
    wide: list[str] = list(page.evaluate(WIDE))
    instrument_in_view(page)
    apart: list[str] = list(page.evaluate(OUT_OF_VIEW, LOOP))
    k = page.locator("#in-k")
    k.focus()
    with page.expect_response(lambda r: "/station/evidence" in r.url):
        page.keyboard.press("ArrowRight")
    settle(page)
    after: list[str] = list(page.evaluate(OUT_OF_VIEW, LOOP))
    return Measure(height, words, apart, after, wide, screen)


def out_of_view(page: Page) -> list[str]:
    names: Any = page.evaluate(OUT_OF_VIEW, LOOP)
    return list(names)
