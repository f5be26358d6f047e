"""The longest station query there is: every setting and option at a long value, together as
the station allows. The contract's link bound (app/contract/bounds.py) is held to it, and the
browser test saves and reloads it (tests/browser/test_hostile_memory.py)."""

from __future__ import annotations

from urllib.parse import quote

from app.contract.route import WORKLOAD_FIELDS
from app.station.state.presets import BY_ID


def longest_query(prompt: str) -> str:
    """Every option the station has, each at a long value, together as the station allows."""
    fields = {
        "match": "0.12345678901234566",
        "k": "5",
        "draft_cost": "0.98765432109876541",
        "repair": "off",
        "greedy": "on",
        "seed": "2147483647",
        "tokens": "256",
        "prompt": prompt,
        "tpot_ms": "2.2250738585072014e-308",
        "ttft_ms": "599999.98765432101",
        "tree_width": "2",
        "drafting": "distinct",
        "acceptance": "typical",
        "draft_source": "adversary",
        "machine": "laptop",
        "pair": "t5-xxl-small",
        "batch": "512",
        "context": "131072",
        "from": "cockpit",
        "memory": ",".join(WORKLOAD_FIELDS),
        "pred": "cheapen_draft",
        "expect_faster": "yes",
        "expect_kept": "yes",
        "base": "0.12345678901234566,5,0.98765432109876541,0,0,1,2,distinct,typical,adversary",
        "preset": max(BY_ID, key=len),
        "view": "projector",
        "embed": "1",
        "sub": "40",
        "slice": "1",
        "race": "1",
        "block": "255",
    }
    return "&".join(f"{k}={quote(v, safe='')}" for k, v in fields.items())
