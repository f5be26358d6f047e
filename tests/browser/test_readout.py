"""The live readout beside the instrument (step 04), in a real browser.

1. Locked before a prediction (a slider move keeps it locked), filled after one; a slider
   move redraws it out of band with the new state's numbers: the same readout the server
   renders for the new address, the "this request" figures of /api/checkpoint for that
   query, and the savings gate of the Invariant panel.
2. Projector view at 1024 x 768: after the step bar's "04" link (smooth scrolling settled),
   the whole instrument form and the whole readout are inside the viewport and below the
   sticky step bar, in eight states.
3. Teeth: the same fit check fails on a 1024 x 500 screen, with the readout scrolled under
   the step bar, and without the projector rules (standard view), so it is not vacuous.
4. axe is clean in every state of (2), in projector view at 1024 and in the standard view at
   1280 and 390 px wide, with and without the evaluation slice.
5. At 390 px wide the readout follows the controls in the document, pinned compact to the
   bottom of the screen while they scroll past, and the page does not scroll sideways.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import axe, is_evidence

PROJECTOR = {"width": 1024, "height": 768}

# The states a class is shown, as query suffixes after a recorded (skipped) prediction.
STATES = {
    "defaults": "",
    "k=16": "&k=16",
    "verify off": "&verify=off",
    "repair off": "&repair=off",
    "match 1": "&match=1",
    "greedy": "&greedy=on",
    "one token": "&tokens=1",
    "no match, dear draft": "&match=0&draft_cost=0.45",
}

GATE = re.compile(r"^(✓|✗|~|–) (Correctness|Savings) (holds|fails|undecided|not earned)$")

# Everything the readout shows, read from a document: the live page (html = null) or a page
# the server rendered (html = its text, parsed without running it). The Invariant panel's
# savings badge is read alongside, from the same document.
READOUT = """(html) => {
  const doc = html === null ? document : new DOMParser().parseFromString(html, 'text/html');
  const ro = doc.getElementById('readout');
  const text = (root, selector) => {
    const el = root && root.querySelector(selector);
    return el ? el.textContent.replace(/\\s+/g, ' ').trim() : null;
  };
  const spark = ro.querySelector('[data-testid=readout-spark]');
  return {
    locked: text(ro, '[data-testid=readout-locked]'),
    tokens: text(ro, '[data-testid=readout-tokens]'),
    speedup: text(ro, '[data-testid=readout-speedup]'),
    notes: [...ro.querySelectorAll('.readout__item small')].map(n => n.textContent.replace(/\\s+/g, ' ').trim()),
    correctness: text(ro, '[data-testid=readout-gate-correctness]'),
    savings: text(ro, '[data-testid=readout-gate-savings]'),
    spark: spark ? spark.querySelector('path').getAttribute('d') : null,
    sparkK: spark ? spark.querySelector('line.current-k').getAttribute('x1') : null,
    sparkTitle: text(spark, 'title'),
    invariantSavings: text(doc, '[data-testid=gate-savings] .gate__badge'),
  };
}"""


def readout(page: Page, html: str | None = None) -> dict[str, Any]:
    values: dict[str, Any] = page.evaluate(READOUT, html)
    return values


def gate_word(badge: str | None) -> tuple[str, str]:
    """'✗ Savings fails' -> ('✗', 'fails'): the mark and the word, never colour alone."""
    assert badge is not None, "no gate badge"
    found = GATE.match(badge)
    assert found, f"a gate badge reads {badge!r}"
    return found.group(1), found.group(3)


def speedup_text(x: float | None) -> str:
    return "unbounded" if x is None else f"{x:.2f}×"


def move_k_right(page: Page) -> None:
    """Focus the k slider and press ArrowRight, as a keyboard user does; wait until htmx has
    answered and the readout's text (redrawn out of band) has changed."""
    before = page.locator("#readout").text_content()
    k = page.locator("#in-k")
    k.focus()
    with page.expect_response(is_evidence):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "(before) => document.getElementById('readout').textContent !== before", arg=before
    )


# --------------------------------------------------------------------------- 1. live readout


def test_the_readout_is_locked_until_a_prediction_then_follows_the_k_slider(page: Page) -> None:
    page.goto("/station")
    expect(page.get_by_test_id("readout-locked")).to_be_visible()
    expect(page.get_by_test_id("readout-tokens")).to_have_count(0)
    expect(page.get_by_test_id("readout-spark")).to_have_count(0)
    # A slider move before a prediction redraws the readout out of band, still locked.
    page.locator("#in-k").focus()
    with page.expect_response(is_evidence):
        page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"[?&]k=5(&|$)"))
    expect(page.get_by_test_id("readout-locked")).to_be_visible()
    expect(page.get_by_test_id("readout-tokens")).to_have_count(0)

    page.goto("/station")
    page.get_by_test_id("skip-prediction").click()
    expect(page).to_have_url(re.compile(r"[?&]pred=skip(&|$|#)"))
    expect(page.get_by_test_id("readout-locked")).to_have_count(0)
    for part in ("tokens", "speedup", "gate-correctness", "gate-savings", "spark"):
        expect(page.get_by_test_id(f"readout-{part}")).to_be_visible()
    before = readout(page)
    assert re.fullmatch(r"\d+\.\d\d", before["tokens"]), before
    assert re.fullmatch(r"\d+\.\d\d×", before["speedup"]), before
    assert gate_word(before["correctness"]) == ("✓", "holds")
    assert gate_word(before["savings"]) == gate_word(before["invariantSavings"])

    move_k_right(page)
    expect(page).to_have_url(re.compile(r"[?&]k=5(&|$|#)"))
    expect(page.get_by_test_id("value-k")).to_have_text("5")
    after = readout(page)
    # The numbers moved with the slider ...
    assert after["tokens"] != before["tokens"], (before, after)
    assert after["speedup"] != before["speedup"], (before, after)
    assert after["sparkK"] != before["sparkK"], "the sparkline's current k did not move"
    # The formula's curve is drawn at the station's α, which for the lossless chain is a
    # property of the match and the target's texts, not of k: the same curve.
    assert after["spark"] == before["spark"]
    assert "at the current k = 5 " in after["sparkTitle"]
    # ... to exactly what the server renders for the new address ...
    served = page.request.get(page.url)
    assert served.ok, served.status
    assert readout(page, served.text()) == after
    # ... whose served request is the one /api/checkpoint reports for the same query ...
    query = page.url.split("#")[0].split("?", 1)[1]
    answer = page.request.get(f"/api/checkpoint?{query}")
    assert answer.ok, answer.status
    checkpoint = answer.json()["checkpoint"]
    prefix = checkpoint["acceptedPrefix"]
    assert checkpoint["settings"]["k"] == 5
    this_pass = f"{prefix['tokens'] / prefix['targetPasses']:.2f}"
    assert f"this request {this_pass};" in after["notes"][0] + ";", after["notes"]
    assert f"this request {speedup_text(prefix['speedupMeasured'])};" in after["notes"][1]
    assert (gate_word(after["savings"])[1] == "holds") == checkpoint["speedupBoundary"]["pays"]
    # ... and the savings gate says what the Invariant panel (also redrawn) says.
    assert gate_word(after["savings"]) == gate_word(after["invariantSavings"])
    expect(page.get_by_test_id("gate-savings").locator(".gate__badge")).to_have_text(
        after["savings"]
    )


@pytest.mark.parametrize("state", list(STATES.values()), ids=list(STATES))
def test_the_served_readout_agrees_with_the_checkpoint_and_the_invariant(
    page: Page, state: str
) -> None:
    page.goto(f"/station?pred=skip{state}")
    shown = readout(page)
    assert shown["locked"] is None
    assert gate_word(shown["savings"]) == gate_word(shown["invariantSavings"])
    checkpoint = page.request.get(f"/api/checkpoint?pred=skip{state}").json()["checkpoint"]
    prefix = checkpoint["acceptedPrefix"]
    this_pass = (
        "—" if not prefix["targetPasses"] else f"{prefix['tokens'] / prefix['targetPasses']:.2f}"
    )
    assert f"this request {this_pass};" in shown["notes"][0] + ";", shown["notes"]
    assert f"this request {speedup_text(prefix['speedupMeasured'])};" in shown["notes"][1]
    assert (gate_word(shown["savings"])[1] == "holds") == checkpoint["speedupBoundary"]["pays"]
    correctness = gate_word(shown["correctness"])[1]
    assert correctness == ("holds" if checkpoint["invariant"]["keepsTarget"] else "fails")
    if checkpoint["settings"]["verify"]:
        expect(page.get_by_test_id("readout-spark")).to_be_visible()
    else:
        expect(page.get_by_test_id("readout-spark")).to_have_count(0)
        assert gate_word(shown["savings"]) == ("–", "not earned")


def test_an_unbounded_speedup_reads_unbounded_not_inf(page: Page) -> None:
    page.goto("/station?pred=skip&verify=off&draft_cost=0")
    expect(page.get_by_test_id("readout-speedup")).to_have_text("unbounded")


# --------------------------------------------------------------------------- 2, 3. projector fit


@dataclass(frozen=True)
class Box:
    name: str
    left: float
    top: float
    right: float
    bottom: float


@dataclass(frozen=True)
class Layout:
    width: float  # the viewport, without scrollbars
    height: float
    bar: Box  # the sticky step bar
    boxes: tuple[Box, ...]

    def misfits(self) -> list[str]:
        """Every box not wholly inside the viewport and below the step bar, said why."""
        out = []
        for b in self.boxes:
            if b.top < self.bar.bottom - 0.5:
                out.append(
                    f"{b.name} top {b.top:.0f} is under the step bar (ends {self.bar.bottom:.0f})"
                )
            if b.bottom > self.height + 0.5:
                out.append(
                    f"{b.name} bottom {b.bottom:.0f} is below the viewport ({self.height:.0f})"
                )
            if b.left < -0.5 or b.right > self.width + 0.5:
                out.append(
                    f"{b.name} [{b.left:.0f}, {b.right:.0f}] leaves the viewport's width {self.width:.0f}"
                )
        return out

    def fits(self) -> bool:
        return not self.misfits()


LAYOUT = """(selectors) => {
  const box = (name, el) => { const r = el.getBoundingClientRect(); return {name, left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const bar = document.querySelector('nav.steps');
  return {
    width: document.documentElement.clientWidth,
    height: document.documentElement.clientHeight,
    bar: box('step bar', bar),
    barPosition: getComputedStyle(bar).position,
    boxes: selectors.map(s => box(s, document.querySelector(s))),
  };
}"""


# Every visible piece of text under the given roots drawn smaller than 14 px, as [its start,
# its size in CSS px]; SVG text is measured as drawn (its font size times the SVG's scale).
SMALL_TEXT = """(selectors) => {
  const out = [];
  for (const root of selectors.map(s => document.querySelector(s))) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.data.trim() || !el.getClientRects().length) continue;
      const svg = el.closest('svg');
      const size = parseFloat(getComputedStyle(el).fontSize) * (svg ? svg.getScreenCTM().a : 1);
      if (size < 14 - 0.05) out.push([n.data.trim().slice(0, 24), Math.round(size * 10) / 10]);
    }
  }
  return out;
}"""


def layout(page: Page) -> Layout:
    raw: dict[str, Any] = page.evaluate(LAYOUT, ["form.instrument", "#readout"])
    # The check means something only while the bar is what a learner sees: sticky, on top.
    assert raw["barPosition"] == "sticky" and abs(raw["bar"]["top"]) < 0.5, raw
    return Layout(
        raw["width"], raw["height"], Box(**raw["bar"]), tuple(Box(**b) for b in raw["boxes"])
    )


def settle_scroll(page: Page, timeout: float = 10.0) -> float:
    """Wait until smooth scrolling has stopped: scrollY the same over five polls (250 ms)."""
    deadline, last, still = time.monotonic() + timeout, None, 0
    while time.monotonic() < deadline:
        y: float = page.evaluate("() => window.scrollY")
        still = still + 1 if y == last else 0
        if still >= 5:
            return y
        last = y
        page.wait_for_timeout(50)
    raise AssertionError(f"scrolling did not settle within {timeout} s (last scrollY {last})")


def open_step_04(page: Page, url: str, viewport: dict[str, int]) -> Layout:
    page.set_viewport_size(viewport)  # type: ignore[arg-type]
    page.goto(url)
    expect(page.get_by_test_id("readout")).to_be_visible()
    page.locator("nav.steps").get_by_role("link", name="04 Manipulation").click()
    expect(page).to_have_url(re.compile(r"#step-04$"))
    y = settle_scroll(page)
    assert y > 0, "the step link did not scroll the page"
    return layout(page)


@pytest.mark.parametrize("state", list(STATES.values()), ids=list(STATES))
def test_in_projector_view_the_instrument_and_readout_fit_one_screen(
    page: Page, state: str
) -> None:
    url = f"/station?pred=skip&view=projector{state}"
    seen = open_step_04(page, url, PROJECTOR)
    assert seen.fits(), f"{url} at 1024x768:\n" + "\n".join(seen.misfits())
    # What the fit is for: every control and the button, the readout's numbers and gates.
    for testid in ("run-witness", "readout-tokens", "readout-speedup", "readout-gate-savings"):
        expect(page.get_by_test_id(testid)).to_be_in_viewport(ratio=1)
    # Fitting is not bought with small targets or small text.
    small = page.evaluate(
        """() => [...document.querySelectorAll('form.instrument button:not([hidden]), form.instrument .segmented label')]
              .filter(el => el.getClientRects().length)
              .map(el => [el.textContent.trim(), el.getBoundingClientRect().height])
              .filter(([, h]) => h < 44)"""
    )
    assert not small, f"touch targets under 44 px high: {small}"
    tiny = page.evaluate(SMALL_TEXT, ["form.instrument", "#readout"])
    assert not tiny, f"text drawn under 14 px: {tiny}"


def test_teeth_the_fit_check_fails_when_it_should(page: Page) -> None:
    url = "/station?pred=skip&view=projector"
    # A screen too short for the instrument: the form runs off the bottom.
    short = open_step_04(page, url, {"width": 1024, "height": 500})
    assert short.fits() is False
    assert any("form.instrument bottom" in m for m in short.misfits()), short.misfits()
    # The right size, but scrolled so the top of the instrument hides under the step bar.
    right = open_step_04(page, url, PROJECTOR)
    assert right.fits() is True
    page.evaluate("() => window.scrollBy({top: 80, behavior: 'instant'})")
    settle_scroll(page)
    under = layout(page)
    assert under.fits() is False
    assert any("under the step bar" in m for m in under.misfits()), under.misfits()
    # The text check too: the projector's legends and notes at their old 0.8rem are caught.
    assert not page.evaluate(SMALL_TEXT, ["form.instrument", "#readout"])
    # (Set through the CSSOM, which the page's CSP allows; an inline <style> it would refuse.)
    page.evaluate(
        "() => document.querySelectorAll('.switches legend, .readout__item small').forEach(el => { el.style.fontSize = '0.8rem'; })"
    )
    tiny = page.evaluate(SMALL_TEXT, ["form.instrument", "#readout"])
    assert ["Target verify", 12.8] in tiny and ["over 32 target texts; th", 12.8] in tiny, tiny
    # Without the projector rules (standard view) the same screen does not hold it all.
    standard = open_step_04(page, "/station?pred=skip", PROJECTOR)
    assert standard.fits() is False, "the projector rules are not what makes it fit"


# --------------------------------------------------------------------------- 4. axe


VIEWS = {
    "projector 1024": ("&view=projector", PROJECTOR),
    "standard 1280": ("", {"width": 1280, "height": 800}),
    "standard 390": ("", {"width": 390, "height": 844}),
}


# Every state once, each view and the slice in rotation (all 48 combinations took five
# minutes of the suite's budget; each state and each view is still covered, and the other
# browser modules run axe on the standard views of the defaults).
AXE_CASES = [
    (state, list(VIEWS)[i % len(VIEWS)], "&slice=1" if i % 2 else "")
    for i, state in enumerate(STATES.values())
]


@pytest.mark.parametrize(
    ("state", "view", "slice_"),
    AXE_CASES,
    ids=[
        f"{name}-{v}{'-slice' if sl else ''}"
        for name, (_, v, sl) in zip(STATES, AXE_CASES, strict=True)
    ],
)
def test_axe_is_clean_with_the_readout_in_every_state(
    page: Page, state: str, view: str, slice_: str
) -> None:
    suffix, viewport = VIEWS[view]
    page.set_viewport_size(viewport)  # type: ignore[arg-type]
    url = f"/station?pred=skip{suffix}{state}{slice_}"
    page.goto(url)
    expect(page.get_by_test_id("readout-speedup")).to_be_visible()
    if slice_:
        expect(page.get_by_test_id("slice")).to_be_attached()
    axe(page, f"{url} at {viewport['width']}x{viewport['height']}")


# --------------------------------------------------------------------------- 5. phone


@pytest.mark.parametrize("state", list(STATES.values()), ids=list(STATES))
def test_on_a_phone_the_readout_follows_the_controls_pinned_in_view_and_fits_the_width(
    page: Page, state: str
) -> None:
    """On a phone the readout comes after the controls in the document, and while they
    scroll past it is pinned to the bottom of the screen, compact, below the slider in use."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/station?pred=skip{state}")
    expect(page.get_by_test_id("readout-speedup")).to_be_visible()
    page.evaluate(
        "() => { document.documentElement.style.scrollBehavior = 'auto';"
        " document.querySelector('#in-k').scrollIntoView({block: 'center'}); }"
    )
    geometry = page.evaluate(
        """() => {
          const r = s => { const b = document.querySelector(s)?.getBoundingClientRect(); return b && [b.left, b.top, b.right, b.bottom]; };
          const form = document.querySelector('form.instrument'), ro = document.getElementById('readout');
          return {
            scrollWidth: document.documentElement.scrollWidth,
            width: document.documentElement.clientWidth,
            height: innerHeight,
            after: Boolean(form.compareDocumentPosition(ro) & Node.DOCUMENT_POSITION_FOLLOWING),
            k: r('#in-k'), readout: r('#readout'),
          };
        }"""
    )
    assert geometry["scrollWidth"] <= 390, f"the page scrolls sideways: {geometry}"
    assert geometry["after"], "the readout comes before the controls in the document"
    k, ro = geometry["k"], geometry["readout"]
    assert ro[3] <= geometry["height"] + 0.5 and ro[1] > k[3], (
        f"the readout is not pinned in view below the k slider: {geometry}"
    )
    assert ro[3] - ro[1] < 0.25 * geometry["height"], f"the readout is not compact: {geometry}"
    assert ro[0] >= 0 and ro[2] <= geometry["width"] + 0.5, f"the readout is too wide: {geometry}"
