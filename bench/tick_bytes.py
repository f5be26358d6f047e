"""What one slider tick sends: the evidence fragment's bytes, against the whole fragment.

In process (the app's TestClient; bytes are deterministic, nothing is timed). For each
control a learner moves from the same page (a skipped prediction at the defaults), the
fragment the browser gets: the whole fragment without the `X-Station-Parts` header (the
reference: what a browser without the parts header, or before it, gets), and with the page's
part digests held (what the station's script sends), plain and gzipped; then the parts the
answer left out and the worked block fetched after it settles. Budget (docs/QUALITY.md):
a tick's fragment <= 25 KB of HTML, plain.

Run from the repo root: `.venv/bin/python bench/tick_bytes.py`.
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

# The repo root instead of bench/, whose http.py would shadow the standard library's.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from fastapi.testclient import TestClient  # noqa: E402

from app.config import AppSettings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.rendering.parts import HEADER  # noqa: E402

BUDGET = 25_000
START = "pred=skip&base=0.6,4,0.1,1,1,0"
TICKS = {
    "match 0.60 -> 0.65": "match=0.65",
    "k 4 -> 5": "k=5",
    "draft cost 0.10 -> 0.15": "draft_cost=0.15",
    "greedy on": "temperature=0",
    "verify off": "verify=0",
    "seed 1 -> 2": "seed=2",
    "machine H100, Llama 8B/1B": "machine=h100&pair=llama-8b-1b",
    "machine H200, timed passes": "machine=h200&pair=llama-8b-1b",
    "tree 2 wide": "tree_width=2",
}


def held_on(page: str) -> str:
    return " ".join(re.findall(r'data-part="([0-9a-f]{16})"', page))


def main() -> int:
    with TestClient(create_app(settings=AppSettings())) as client:
        page = client.get(f"/station?{START}").text
        held = held_on(page)
        rows = []
        for name, change in TICKS.items():
            url = f"/station/evidence?{START}&{change}"
            whole = client.get(url, headers={"Accept-Encoding": "identity"}).content
            r = client.get(url, headers={HEADER: held, "Accept-Encoding": "identity"})
            tick = r.content
            left = len(r.headers.get(HEADER, "").split())
            block = re.search(r'hx-get="(/station/block\?[^"]*)"', r.text)
            block_bytes = (
                len(client.get(block.group(1).replace("&amp;", "&")).content) if block else 0
            )
            rows.append(
                (name, len(whole), len(tick), len(gzip.compress(tick, 3)), left, block_bytes)
            )
    print(
        f"{'tick':<26}{'whole':>9}{'sent':>9}{'gzip':>8}{'ratio':>7}"
        f"{'parts cut':>11}{'block after':>13}"
    )
    for name, whole, tick, gz, left, block in rows:
        flag = "" if tick <= BUDGET else "  OVER BUDGET"
        print(
            f"{name:<26}{whole:>9}{tick:>9}{gz:>8}{tick / whole:>7.2f}{left:>11}{block:>13}{flag}"
        )
    sent = sorted(t for _, _, t, _, _, _ in rows)
    print(
        f"median sent {sent[len(sent) // 2]} B (budget {BUDGET} B plain);"
        " reference: the whole fragment"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
