"""What a learner sees on three screens: `python scripts/screens.py [--shots DIR]`.

Serves the station as the browser tests do and opens it in Debian's chromium after a skipped
prediction at a laptop (1280×800), a phone (390×844) and a projector (1024×768,
`view=projector`). For each it prints the page's height, the words visible with every
disclosure closed, whether the match slider, the k slider, a speedup figure and both gates
stand in one viewport (with the match slider scrolled into view, and again after a keyboard
change of k), and every element wider than the screen or scrolling sideways. With `--shots`
it writes a screenshot of each viewport with the match slider in view (and with `--whole`,
of each whole page too). docs/screens/before/ holds the viewports as they were before the
instrument and its evidence stood side by side, with the text in full; docs/screens/after/
holds them with text on demand (`--shots docs/screens/after`).
The budgets and the checks are the ones `tests/browser/test_one_screen.py` holds the page to.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS, live_station  # noqa: E402
from tests.browser.screens import SCREENS, instrument_in_view, measure  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=Path, help="write screenshots into this folder")
    parser.add_argument("--whole", action="store_true", help="with --shots: whole pages too")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATION08_")}
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    with live_station(env) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for screen in SCREENS:
            page = browser.new_page(viewport=screen.viewport)
            m = measure(page, url, screen)
            print(f"{screen.name:10s} {m.summary()}")
            for line in m.problems():
                print(f"           {line}")
            if args.shots:
                page.goto(f"{url}{screen.query}", wait_until="networkidle")
                instrument_in_view(page)
                page.screenshot(path=str(args.shots / f"{screen.name}.png"))
                if args.whole:
                    whole = args.shots / f"{screen.name}-page.png"
                    page.screenshot(path=str(whole), full_page=True)
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
