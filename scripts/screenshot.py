"""Make README's screenshot from the real page: `python scripts/screenshot.py`.

Serves the station as the browser tests do (uvicorn on a free loopback port, the station's
protocol), opens it in Debian's chromium at 1280×800 after a skipped prediction, scrolls to
the instrument and its evidence, and writes docs/station.png. Run again whenever the page's
look changes; the picture is never edited by hand.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS, live_station  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "station.png"
STATE = "/station?pred=skip&match=0.6&k=4#step-04"


def main() -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATION08_")}
    with live_station(env) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{url}{STATE}", wait_until="networkidle")
        page.screenshot(path=str(OUT))
        browser.close()
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
