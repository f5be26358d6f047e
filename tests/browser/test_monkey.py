"""A seeded monkey: random clicks and keys on the prediction, the instrument and the
evidence, for a bounded number of actions; then on every other view the station has (the
projector, the embed, the step-through, the policy race, the route view, the study card, the
Serving stand-in, the roofline page, the worksheet, a first visit), each bounded in time. It must end with the station still standing and
(through the autouse monitor) no console error, page error, dialog, foreign request or 5xx.

The sequence is reproducible: the same seed picks the same actions on the same page. When
it fails, the message lists every action taken, so the failure can be replayed by hand.
"""

from __future__ import annotations

import random
import re
import time

import pytest
from playwright.sync_api import Error, Page, expect

from tests.browser.helpers import ARTIFACTS, PREDICTED, PREDICTED_URL, BrowserMonitor, origin_of

SEED = 8
ACTIONS = 60
ACTION_TIMEOUT_MS = 2_000
KEYS = ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Tab", "Space")
SCOPE = ":is(#step-03, #step-04, #panel-evidence)"
CLICKABLE = f"{SCOPE} :is(button, a[href], label, summary)"
CONTROLS = f"{SCOPE} :is(input:not([type=hidden]), button, a[href], summary)"


def _same_origin(page: Page, href: str | None) -> bool:
    """Links the monkey may follow: relative ones (the station's own), never another site."""
    if href is None:
        return True
    return href.startswith(("/", "#", "?")) or origin_of(href) == origin_of(page.url)


def _act(
    page: Page,
    rng: random.Random,
    step: int,
    where: tuple[str, str, tuple[str, ...]],
    log: list[str],
) -> bool:
    """One seeded action, logged: a click on something of ``where``'s clickable selector, or
    a key of its keys on one of its controls. False when there was nothing to act on."""
    clickable, controls, keys = where
    if page.locator("dialog:modal").count():
        # A modal dialog takes every click and key, as it does a learner's: act inside it.
        clickable = controls = MODAL
    click = rng.random() < 0.5
    candidates = page.locator(clickable if click else controls).filter(visible=True)
    count = candidates.count()
    if count == 0:
        log.append(f"{step}: nothing to {'click' if click else 'key'} on {page.url}")
        return False
    index = rng.randrange(count)
    target = candidates.nth(index)
    href = target.get_attribute("href")
    if not _same_origin(page, href):  # Enter would follow it as a click does
        log.append(f"{step}: skipped off-site link {href}")
        return True
    if click:
        log.append(f"{step}: click #{index} {target.evaluate(_describe)}")
        # A block of the request text is an inline link that wraps over lines, so the
        # middle of its box may lie outside it: aim at its first line box.
        target.click(position=target.evaluate(_first_line_centre))
    else:
        key = rng.choice(keys)
        log.append(f"{step}: {key} on #{index} {target.evaluate(_describe)}")
        target.focus()
        page.keyboard.press(key)
    return True


def test_a_seeded_monkey_leaves_the_station_standing(page: Page, monitor: BrowserMonitor) -> None:
    rng = random.Random(SEED)
    page.set_default_timeout(ACTION_TIMEOUT_MS)  # a missed action costs little
    page.set_default_navigation_timeout(15_000)  # a whole page may take longer on 2 cores
    page.goto(PREDICTED_URL)
    log: list[str] = []
    missed = 0
    seen = 0
    for step in range(ACTIONS):
        page.wait_for_load_state()  # a click or a Space may have started a navigation
        # Note in the trail where each console error turned up (the monitor collects them).
        for text in monitor.console_errors[seen:]:
            log.append(f"    ^ console error: {text}")
        seen = len(monitor.console_errors)
        try:
            _act(page, rng, step, (CLICKABLE, CONTROLS, KEYS), log)
        except Error as exc:
            # The page moved under the monkey (a swap or a navigation detached the element
            # between choosing and acting). That is the monkey's race, not the station's;
            # what the station did about it is what the monitor checks.
            missed += 1
            log.append(f"{step}:   (missed: {exc.message.splitlines()[0]})")

    page.wait_for_load_state()
    expect(page.locator(".htmx-request")).to_have_count(0)
    for text in monitor.console_errors[seen:]:
        log.append(f"    ^ console error: {text}")
    trail = "\n".join(log)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "monkey-actions.txt").write_text(trail + "\n", encoding="utf-8")
    assert missed <= ACTIONS // 4, f"too many actions missed ({missed}):\n{trail}"
    expect(page.get_by_role("heading", level=1), trail).to_have_text(
        "Station 08 · Speculative decoding"
    )
    expect(page.locator("#step-04 form[data-testid='instrument']"), trail).to_be_visible()
    problems = monitor.problems()  # also checked at teardown; here with the trail attached
    assert not problems, "\n".join(problems) + "\nafter:\n" + trail


# --------------------------------------------------------------------------- every view

# Every view the station has, each at a state where its interactive parts are on screen, and
# the part of it the monkey plays in. (The station itself at PREDICTED_URL is the test above.)
VIEWS = {
    "projector": (f"{PREDICTED_URL}&view=projector", "main"),
    "embed": (f"{PREDICTED_URL}&embed=1", "body"),
    "step-through": (f"{PREDICTED_URL}&sub=1#stepthrough", "#stepthrough"),
    "race": (f"{PREDICTED_URL}&race=1", "#panel-evidence"),
    "route": ("/route", "body"),
    "study": ("/study", "body"),
    "serving": ("/serving", "body"),
    "roofline": ("/roofline", "body"),
    "worksheet": (f"/station/worksheet?{PREDICTED}", "body"),
    "first visit": ("/station", "body"),
}
VIEW_ACTIONS = 40
VIEW_BUDGET_S = 9.0  # wall time for the actions of one view; the sequence stops there
VIEW_KEYS = (*KEYS, "Enter", "Escape", "Home", "End", "PageDown")
# What the monkey leaves alone: the print dialog (a browser's, not the page's), the file
# chooser of Import (a browser's, and it would wait for a file).
UNTOUCHED = ":not(#print-worksheet):not([for=import-memory]):not([type=file])"
# Inside an open modal dialog (the study memory), the only place a learner can act.
MODAL = f"dialog:modal :is(input:not([type=hidden]), textarea, select, button, a[href], summary){UNTOUCHED}"


def _back_to(page: Page, url: str, log: list[str], step: int) -> None:
    """Return to the view when a link or a Space took the monkey elsewhere on the station."""
    path = url.split("?")[0].split("#")[0]
    here = page.url.split("?")[0].split("#")[0]
    if not here.endswith(path):
        log.append(f"{step}: left for {page.url}; back to {url}")
        page.goto(url)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_seeded_monkey_on_every_view(page: Page, monitor: BrowserMonitor, name: str) -> None:
    url, scope = VIEWS[name]
    # Some controls are valid alone but not together (a tree too deep, typical acceptance on a
    # lookup): the station answers such a state 422 on purpose, with the reason in place, and
    # chromium logs that answer as a failed load. Anything else in the console still fails.
    monitor.allow_console_error(
        r"^Failed to load resource: the server responded with a status of 422"
    )
    rng = random.Random(f"{SEED}:{name}")
    page.set_default_timeout(ACTION_TIMEOUT_MS)
    page.set_default_navigation_timeout(15_000)
    page.goto(url)
    clickable = f"{scope} :is(button, a[href], label, summary, select){UNTOUCHED}"
    controls = f"{scope} :is(input:not([type=hidden]), textarea, select, button, a[href], summary, [tabindex]){UNTOUCHED}"
    log: list[str] = []
    missed = 0
    done = 0
    start = time.monotonic()
    for step in range(VIEW_ACTIONS):
        if time.monotonic() - start > VIEW_BUDGET_S:
            log.append(f"{step}: time's up ({VIEW_BUDGET_S:.0f} s)")
            break
        done += 1
        try:
            page.wait_for_load_state()
            _back_to(page, url, log, step)
            if not _act(page, rng, step, (clickable, controls, VIEW_KEYS), log):
                page.keyboard.press(rng.choice(VIEW_KEYS))
        except Error as exc:
            missed += 1
            log.append(f"{step}:   (missed: {exc.message.splitlines()[0]})")

    page.wait_for_load_state()
    expect(page.locator(".htmx-request")).to_have_count(0, timeout=15_000)
    # The last action may have followed a link (the slice's JSON, another view) just as the
    # time ran out: the check is of the view the monkey was let loose on, as each step's is.
    _back_to(page, url, log, done)
    trail = "\n".join(log)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"monkey-{name.replace(' ', '-')}.txt").write_text(trail + "\n", encoding="utf-8")
    assert missed <= max(done // 3, 3), f"too many actions missed ({missed} of {done}):\n{trail}"
    # The view still stands: its heading is there (the embed hides the header's and shows
    # its own) and what the monkey played with is on screen.
    expect(page.locator("h1").first, trail).to_have_text(re.compile(r"\S"))
    expect(page.locator(scope).first, trail).to_be_visible()
    problems = monitor.problems()
    assert not problems, "\n".join(problems) + "\nafter:\n" + trail


_first_line_centre = """el => {
  const box = el.getBoundingClientRect(), line = el.getClientRects()[0] || box;
  return {x: line.left - box.left + line.width / 2, y: line.top - box.top + line.height / 2};
}"""

_describe = """el => {
  const text = (el.innerText || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
  return `<${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}> ${JSON.stringify(text)}`;
}"""
