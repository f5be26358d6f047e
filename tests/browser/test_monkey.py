"""A seeded monkey: random clicks and keys on the prediction, the instrument and the
evidence, for a bounded number of actions. It must end with the station still standing and
(through the autouse monitor) no console error, page error, dialog, foreign request or 5xx.

The sequence is reproducible: the same seed picks the same actions on the same page. When
it fails, the message lists every action taken, so the failure can be replayed by hand.
"""

from __future__ import annotations

import random

from playwright.sync_api import Error, Page, expect

from tests.browser.helpers import ARTIFACTS, PREDICTED_URL, BrowserMonitor, origin_of

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
        click = rng.random() < 0.5
        selector = CLICKABLE if click else CONTROLS
        try:
            candidates = page.locator(selector).filter(visible=True)
            count = candidates.count()
            if count == 0:
                log.append(f"{step}: nothing to {'click' if click else 'key'} on {page.url}")
                continue
            index = rng.randrange(count)
            target = candidates.nth(index)
            if click:
                href = target.get_attribute("href")
                if not _same_origin(page, href):
                    log.append(f"{step}: skipped off-site link {href}")
                    continue
                log.append(f"{step}: click #{index} {target.evaluate(_describe)}")
                # A block of the request text is an inline link that wraps over lines, so
                # the middle of its box may lie outside it: aim at its first line box.
                target.click(position=target.evaluate(_first_line_centre))
            else:
                key = rng.choice(KEYS)
                log.append(f"{step}: {key} on #{index} {target.evaluate(_describe)}")
                target.focus()
                page.keyboard.press(key)
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


_first_line_centre = """el => {
  const box = el.getBoundingClientRect(), line = el.getClientRects()[0] || box;
  return {x: line.left - box.left + line.width / 2, y: line.top - box.top + line.height / 2};
}"""

_describe = """el => {
  const text = (el.innerText || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
  return `<${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}> ${JSON.stringify(text)}`;
}"""
