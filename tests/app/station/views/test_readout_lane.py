"""The readout's lane: the served request as its marks, block by block, counted the way the
witness's totals count them, in every mode."""

from __future__ import annotations

from collections import Counter

import pytest

from app.station.views.marks import MARKS
from app.station.views.readout import lane
from app.words import Sentence
from tests.app.view_models import WITNESS
from witness import Settings

STATES = {
    "defaults": Settings(),
    "repair off": Settings(repair=False, match=0.3),
    "verify off": Settings(verify=False),
    "greedy": Settings(greedy=True, match=0.4),
    "p = q": Settings(match=1.0),
    "alpha near 0": Settings(match=0.0, draft_source="adversary"),
    "k = 16, 256 tokens": Settings(k=16, tokens=256, match=0.2),
    "one token": Settings(tokens=1),
    "tree": Settings(tree_width=2),
    "typical": Settings(acceptance="typical"),
}


@pytest.mark.parametrize("s", STATES.values(), ids=STATES.keys())
def test_the_lane_counts_what_the_totals_count(s: Settings) -> None:
    trace = WITNESS.trace(s)
    seen = lane(trace, s)
    assert len(seen.blocks) == len(trace.blocks) == trace.totals.blocks
    counts = Counter(m.style for b in seen.blocks for m in b)
    t = trace.totals
    assert sum(n for style, n in counts.items() if style != "rejected") == t.tokens
    if s.verify:
        assert counts["accepted"] == t.accepted_drafts
        assert counts["rejected"] == t.rejected_drafts
    else:  # nothing checked: every token is an unchecked draft
        assert set(counts) == {"unchecked"}
    # Each block's accepted prefix comes first, its rejection (if any) right after it.
    for b in seen.blocks:
        styles = [m.style for m in b]
        prefix = len(styles) - len(list(dropwhile_accepted(styles)))
        assert "accepted" not in styles[prefix:], styles
        if "rejected" in styles:
            assert styles.index("rejected") == prefix
    # The glyph is the mark's: a shape as well as a colour.
    assert all(m.glyph == MARKS[m.style].glyph for b in seen.blocks for m in b)


def dropwhile_accepted(styles: list[str]) -> list[str]:
    i = 0
    while i < len(styles) and styles[i] == "accepted":
        i += 1
    return styles[i:]


def test_the_lane_says_its_counts_to_a_screen_reader() -> None:
    s = Settings(match=0.3)
    trace = WITNESS.trace(s)
    said = lane(trace, s).summary
    assert isinstance(said, Sentence) and said.key == "readout.lane.summary"
    assert said.values["tokens"] == trace.totals.tokens
    assert said.values["blocks"] == trace.totals.blocks
    assert f"{trace.totals.rejected_drafts} rejected draft" in said.values["counts"]


def test_teeth_a_lane_of_another_request_is_caught() -> None:
    """The count check is not vacuous: another state's lane does not match these totals."""
    a, b = Settings(match=0.2), Settings(match=0.9)
    other = Counter(m.style for blk in lane(WITNESS.trace(b), b).blocks for m in blk)
    assert other["accepted"] != WITNESS.trace(a).totals.accepted_drafts
