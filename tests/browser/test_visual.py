"""Visual defects a learner saw, each pinned in a real browser.

1. Generated content (the "locked" mark, warnings, …) needs no emoji font.
2. Every disclosure keeps its triangle: ``summary`` stays ``display: list-item``.
3. The carry-in table never breaks a word ("defa/ult") at 1280 or 390 px.
4. At 390 px nothing scrolls sideways: every chart scales to the width through its viewBox
   (the teeth: a chart held at 560 px is caught).
5. The sweep's legend and its "optimum" / "now k" labels never overlap, in projector view
   and in the standard view, for k at both ends and at the anchor switch (8 → 9).
6. The repaired mark is unmistakable at 1×: not "↻" (which read as a degree sign), distinct
   from the other marks and at least as large as the token's own text.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import PREDICTED, PREDICTED_URL, open_fold

# Every character that only an emoji font draws: anything past the Basic Multilingual Plane
# (🔒 is U+1F512) and the BMP characters whose default presentation is emoji (⌛, ⚡, …).
# Returns [where, character, code point] for each, from ::before/::after and from text.
NEEDS_EMOJI_FONT = """() => {
  const bad = [];
  const emoji = /\\p{Emoji_Presentation}/u;
  const check = (text, where) => {
    for (const ch of text) {
      const cp = ch.codePointAt(0);
      if (cp > 0xFFFF || emoji.test(ch)) bad.push([where, ch, 'U+' + cp.toString(16).toUpperCase()]);
    }
  };
  for (const el of document.querySelectorAll('body, body *')) {
    for (const pseudo of ['::before', '::after', '::marker']) {
      const content = getComputedStyle(el, pseudo).content;
      if (content && content !== 'none' && content !== 'normal') {
        check(content, `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}${pseudo}`);
      }
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    check(n.data, `text in <${n.parentElement.tagName.toLowerCase()}>`);
  }
  return bad;
}"""

# The words of a table's cells that the browser drew on more than one line (a word broken
# mid-word): each as [the cell's text, the word, how many line fragments it took].
BROKEN_WORDS = """(selector) => {
  const broken = [];
  const table = document.querySelector(selector);
  for (const cell of table.querySelectorAll('th, td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of n.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push([cell.textContent.trim(), m[0], tops.size]);
      }
    }
  }
  return broken;
}"""

# Every chart figure at the current width: does it fit, or is it a scroll container that is
# focusable, named and visibly says to scroll? The hint may be an element or generated text.
CHARTS = """() => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  for (const fig of document.querySelectorAll('figure.chart')) {
    const svg = fig.querySelector('svg');
    const f = fig.getBoundingClientRect(), s = svg.getBoundingClientRect();
    const fits = f.left >= 0 && f.right <= vw + 0.5 && s.left >= f.left - 0.5 && s.right <= f.right + 0.5
      && fig.scrollWidth <= fig.clientWidth + 1;
    const style = getComputedStyle(fig);
    const scrolls = ['auto', 'scroll'].includes(style.overflowX) && fig.scrollWidth > fig.clientWidth;
    const caption = fig.querySelector('figcaption');
    const named = Boolean(fig.getAttribute('aria-label') || fig.getAttribute('aria-labelledby')
      || (caption && caption.textContent.trim()));
    const hint = /scroll sideways/i;
    let hinted = false;
    for (const pseudo of ['::before', '::after']) {
      const ps = getComputedStyle(fig, pseudo);
      if (ps.display !== 'none' && ps.visibility !== 'hidden' && hint.test(ps.content)) hinted = true;
    }
    for (const el of fig.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (hint.test(el.textContent) && el.children.length === 0 && r.width > 0 && r.left >= 0 && r.right <= vw
          && getComputedStyle(el).visibility !== 'hidden') hinted = true;
    }
    out.push({chart: svg.dataset.chart || svg.dataset.testid || '?', fits, scrolls,
      focusable: fig.tabIndex >= 0, named, hinted, figure: [f.left, f.right], svg: [s.left, s.right]});
  }
  return out;
}"""

# The sweep's legend items and its two labels, as named boxes in page pixels.
SWEEP_LABELS = """() => {
  const svg = document.querySelector('[data-chart=sweep]');
  const box = (name, el) => { const r = el.getBoundingClientRect(); return [name, r.left, r.top, r.right, r.bottom]; };
  const boxes = [...svg.querySelectorAll('.chart-legend > *')].map((el, i) => box(`legend ${i} ${el.tagName} ${el.textContent}`, el));
  boxes.push(box('optimum label', svg.querySelector('.optimum-label')));
  boxes.push(box('now label', svg.querySelector('.current-label')));
  boxes.push(box('chart', svg));
  return boxes;
}"""


def revealed(**extra: str) -> str:
    return PREDICTED_URL + "".join(f"&{k}={v}" for k, v in extra.items())


# --------------------------------------------------------------------------- 1. lock glyph


@pytest.mark.parametrize(
    "url",
    ["/station", PREDICTED_URL, "/station/worksheet", f"/station/worksheet?{PREDICTED}", "/study"],
)
def test_no_mark_on_the_page_needs_an_emoji_font(page: Page, url: str) -> None:
    page.goto(url)
    bad = page.evaluate(NEEDS_EMOJI_FONT)
    assert not bad, f"{url}: characters only an emoji font draws (a box elsewhere): {bad}"


def test_the_locked_panels_still_say_they_are_locked(page: Page) -> None:
    page.goto("/station")
    locked = page.locator(".locked")
    assert locked.count() >= 3
    for i in range(locked.count()):
        # the box itself, or the first paragraph of a box that holds paragraphs
        content = locked.nth(i).evaluate(
            "el => [el, el.firstElementChild].filter(Boolean).map(e => getComputedStyle(e, '::before').content).join(' ')"
        )
        assert "Locked" in content, f"the locked mark is gone: {content!r}"


# --------------------------------------------------------------------------- 2. disclosures


@pytest.mark.parametrize("url", ["/station", PREDICTED_URL, revealed(slice="1")])
def test_every_disclosure_keeps_its_triangle_and_a_44px_target(page: Page, url: str) -> None:
    page.goto(url)
    if url != "/station":
        open_fold(page, "sweep")
        expect(page.get_by_test_id("chart-sweep")).to_be_visible()
    summaries = page.locator("summary:visible")
    # the carried-in workload; once revealed, the sweep as a table too
    assert summaries.count() >= (1 if url == "/station" else 2)
    for i in range(summaries.count()):
        s = summaries.nth(i)
        style = s.evaluate(
            "el => { const c = getComputedStyle(el); return [c.display, c.listStyleType, el.getBoundingClientRect().height, el.textContent.trim()]; }"
        )
        display, marker, height, text = style
        assert display == "list-item", f"summary {text!r} is display: {display} (no triangle)"
        assert marker != "none", f"summary {text!r} has list-style-type none"
        assert height >= 44, f"summary {text!r} is {height}px tall, under the 44 px target"


# --------------------------------------------------------------------------- 3. carry-in


CARRY_URLS = [
    PREDICTED_URL,
    # every source phrase: a link from Serving, the saved checkpoint, the link's gaps
    revealed(**{"from": "serving", "ttft_ms": "250", "memory": "tpot_ms", "tpot_ms": "30"}),
    revealed(**{"from": "cockpit", "prompt": "hello"}),
]


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("url", CARRY_URLS, ids=["defaults", "serving", "cockpit"])
def test_the_carry_in_table_never_breaks_a_word(page: Page, width: int, url: str) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url)
    open_fold(page, "workload")
    table = page.get_by_test_id("carry-workload")
    expect(table).to_be_visible()
    broken = page.evaluate(BROKEN_WORDS, "[data-testid=carry-workload]")
    assert not broken, f"at {width}px the carry-in table breaks words: {broken}"
    # and it stays inside its card
    fits = table.evaluate(
        "t => t.getBoundingClientRect().right <= t.closest('.card').getBoundingClientRect().right + 0.5"
    )
    assert fits, f"at {width}px the carry-in table sticks out of its card"


@pytest.mark.parametrize("width", [1280, 390])
def test_a_long_unbroken_prompt_wraps_inside_the_carry_in_card(page: Page, width: int) -> None:
    # The prompt is the learner's text and may be a URL: that value alone may break anywhere.
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(revealed(prompt="https://example.org/" + "a" * 60))
    open_fold(page, "workload")
    table = page.get_by_test_id("carry-workload")
    expect(table).to_be_visible()
    fits = table.evaluate(
        "t => t.getBoundingClientRect().right <= t.closest('.card').getBoundingClientRect().right + 0.5"
    )
    assert fits, f"at {width}px a long URL in the prompt pushes the carry-in table out of its card"
    broken = page.evaluate(BROKEN_WORDS, "[data-testid=carry-workload]")
    assert all(word.startswith("https://") for _, word, _ in broken), broken


# --------------------------------------------------------------------------- 4. charts at 390


def _charts_at_390(page: Page, url: str) -> list[dict[str, Any]]:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    open_fold(page, "worked", "sweep")
    expect(page.get_by_test_id("chart-sweep")).to_be_visible()
    if "slice=1" in url:
        expect(page.get_by_test_id("slice-summary")).to_be_visible()
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px"
    charts: list[dict[str, Any]] = page.evaluate(CHARTS)
    assert len(charts) >= (7 if "slice=1" in url else 4)
    return charts


@pytest.mark.parametrize("url", [PREDICTED_URL, revealed(slice="1")], ids=["revealed", "slice"])
def test_at_390px_every_chart_scales_to_the_width(page: Page, url: str) -> None:
    for c in _charts_at_390(page, url):
        assert c["fits"] and not c["scrolls"], f"chart {c['chart']} does not fit 390 px: {c}"
        assert c["named"], f"chart {c['chart']} has no name"


def test_teeth_a_chart_held_at_560px_is_caught(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(PREDICTED_URL)
    # (Set through the CSSOM, which the page's CSP allows.)
    page.evaluate(
        "() => document.querySelector('[data-testid=chart-passes]').style.minWidth = '560px'"
    )
    charts = {c["chart"]: c for c in page.evaluate(CHARTS)}
    assert charts["passes"]["fits"] is False


def test_a_chart_that_fits_shows_no_scroll_hint(page: Page) -> None:
    page.goto(PREDICTED_URL)  # 1280 px: the main column is wide enough for every chart
    charts: list[dict[str, Any]] = page.evaluate(CHARTS)
    for c in charts:
        assert c["fits"], f"chart {c['chart']} does not fit at 1280 px: {c}"
        assert not c["hinted"], f"chart {c['chart']} fits yet asks to be scrolled"


# --------------------------------------------------------------------------- 5. sweep labels


def _overlaps(boxes: list[list[Any]]) -> list[str]:
    out = []
    items = [b for b in boxes if b[0] != "chart"]
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5:
                out.append(f"{a[0]!r} overlaps {b[0]!r}")
    return out


@pytest.mark.parametrize("k", [1, 8, 9, 16])
@pytest.mark.parametrize(
    ("view", "width", "height"),
    [("projector", 1024, 768), ("standard", 1280, 800)],
)
def test_the_sweep_legend_and_labels_never_collide(
    page: Page, k: int, view: str, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    url = PREDICTED_URL.replace("&k=8", f"&k={k}")
    page.goto(url + ("&view=projector" if view == "projector" else ""))
    open_fold(page, "sweep")
    expect(page.get_by_test_id("chart-sweep")).to_be_visible()
    expect(page.locator(".current-label")).to_have_text(f"now k = {k}")
    boxes: list[list[Any]] = page.evaluate(SWEEP_LABELS)
    clashes = _overlaps(boxes)
    assert not clashes, f"{view} view, k = {k}: " + "; ".join(clashes)
    chart = next(b for b in boxes if b[0] == "chart")
    for b in boxes:
        assert chart[1] - 0.5 <= b[1] and b[3] <= chart[3] + 0.5, f"{b[0]!r} leaves the chart"


# --------------------------------------------------------------------------- 6. repaired mark


# A token's mark is drawn by static/css/marks.css: [its glyph, its alternative text, the
# mark's font size, the token's, the mark's height] (an inline block has a used height).
MARK_OF = """t => {
  const after = getComputedStyle(t, '::after');
  const said = [...after.content.matchAll(/"((?:[^"\\\\]|\\\\.)*)"/g)].map(m => m[1]);
  return [said[0] ?? '', said[1] ?? null, parseFloat(after.fontSize),
          parseFloat(getComputedStyle(t).fontSize), parseFloat(after.height) || 0];
}"""


def test_the_repaired_mark_is_unmistakable_at_1x(page: Page) -> None:
    page.goto(PREDICTED_URL)
    legend = page.locator(".legend .tok")
    marks = {
        legend.nth(i).get_attribute("class"): legend.nth(i).evaluate(MARK_OF)[0]
        for i in range(legend.count())
    }
    assert len(marks) == 5 and len(set(marks.values())) == 5, f"marks are not distinct: {marks}"
    for where in (".legend .tok--repaired", ".request-text .tok--repaired"):
        token = page.locator(where).first
        expect(token).to_be_visible()
        text, said, mark_px, token_px, mark_height = token.evaluate(MARK_OF)
        assert text not in {"↻", "°", "º", "o", ""}, (
            f"{where}: the repaired mark {text!r} reads as a degree sign"
        )
        assert all(ord(c) < 0x250 for c in text), f"{where}: {text!r} needs more than a Latin font"
        # The lane's mark is said by its label; the legend's label is written beside it.
        assert said == ("" if where.startswith(".legend") else "repaired from the residual")
        assert mark_px >= token_px, (
            f"{where}: mark at {mark_px}px, smaller than the token's {token_px}px"
        )
        assert mark_height >= token_px, f"{where}: the mark is drawn {mark_height}px tall"


def test_a_block_link_is_named_by_its_tokens_and_their_marks(page: Page) -> None:
    """A screen reader reads each token's outcome where the eye sees its mark."""
    page.goto(PREDICTED_URL)
    link = page.get_by_test_id("block-1")
    expect(link).to_have_accessible_name(re.compile(r"^Block 1: .*\b(accepted|rejected draft)\b"))
