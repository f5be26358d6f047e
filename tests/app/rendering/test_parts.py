"""Parts a slider's fragment sends only when they changed (app/rendering/parts.py): the
filter's stamp, the pipeline's cut, and the evidence route answering a browser that says
which parts it holds."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.contract.generate import contract_js
from app.rendering.parts import HEADER, MAX_HELD, cut, digest, held, part, unmark
from app.station.state.query import PREDICTION_FIELDS
from tests.app.forms import PREDICTED, find, parse

# ----------------------------------------------------------------------------- the stamp


def test_a_part_is_stamped_with_the_digest_of_its_own_html() -> None:
    html = '<p id="x" class="a">one</p>'
    stamped = str(part(html))
    h = digest(html)
    assert stamped == f'<!--part {h}--><p data-part="{h}" id="x" class="a">one</p><!--/part-->'
    assert digest('<p id="x" class="a">two</p>') != h  # another text, another digest
    assert 'hx-swap-oob="outerHTML"' in str(part(html, oob=True))
    assert "hx-swap-oob" not in stamped
    # Out of band or not, one element has one digest: the page and the fragment agree.
    assert f'data-part="{h}"' in str(part(html, oob=True))


def test_a_part_must_be_an_element() -> None:
    with pytest.raises(ValueError, match="one element"):
        part("just words")


def test_unmark_removes_the_markers_and_finds_each_part_in_the_bytes() -> None:
    a, b = part('<p id="a">é</p>'), part('<div id="b">two</div>')
    text = f"<main>{a} between {b}</main>"
    body, spans = unmark(text)
    assert b"<!--" not in body
    assert [s.digest for s in spans] == [digest('<p id="a">é</p>'), digest('<div id="b">two</div>')]
    for s in spans:
        piece = body[s.start : s.end].decode()  # byte offsets survive a two-byte character
        assert piece.startswith("<") and piece.endswith(">")
        assert f'data-part="{s.digest}"' in piece
    assert body.decode() == re.sub(r"<!--/?part[^>]*-->", "", text)


def test_parts_do_not_nest() -> None:
    inner = part('<span id="i">i</span>')
    with pytest.raises(ValueError, match="nest"):
        unmark(f'<!--part {"0" * 16}--><div id="o">{inner}</div><!--/part-->')


def test_held_keeps_only_digests_and_ignores_a_header_that_is_not_ours() -> None:
    h = digest("<p>x</p>")
    assert held(f"{h}  nonsense {h.upper()} {h}") == {h}
    assert held(" ".join([h] * (MAX_HELD + 1))) == frozenset()
    assert held("") == frozenset()


def test_cut_drops_exactly_the_named_parts() -> None:
    a, b = part('<p id="a">a</p>'), part('<p id="b">b</p>')
    body, spans = unmark(f"<x>{a}|{b}</x>")
    only_b = cut(body, spans, frozenset({digest('<p id="a">a</p>')})).decode()
    assert 'id="a"' not in only_b and 'id="b"' in only_b and only_b.startswith("<x>|")
    assert cut(body, spans, frozenset()) == body
    assert cut(body, spans, frozenset({"0" * 16})) == body  # a digest it does not hold


# ----------------------------------------------------------------------------- the route


def page_parts(html: str) -> dict[str, str]:
    """id -> digest of every part in a page or a fragment."""
    return {
        e.attrs["id"]: e.attrs["data-part"] for e in parse(html).elements if "data-part" in e.attrs
    }


TICK = PREDICTED.replace("k=8", "k=5")


def test_without_the_header_every_part_is_sent(client: TestClient) -> None:
    r = client.get(f"/station/evidence?{TICK}")
    assert r.status_code == 200
    assert HEADER not in r.headers
    assert HEADER in r.headers["vary"]
    page = page_parts(client.get(f"/station?{TICK}").text)
    # Every part the fragment refreshes is one the page draws, stamped alike.
    assert page_parts(r.text).items() <= page.items()
    assert len(page_parts(r.text)) >= 8


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
def test_a_tick_leaves_out_exactly_the_parts_the_browser_holds(
    client: TestClient, encoding: str
) -> None:
    before = page_parts(client.get(f"/station?{PREDICTED}").text)
    whole = client.get(f"/station/evidence?{TICK}").text
    r = client.get(
        f"/station/evidence?{TICK}",
        headers={HEADER: " ".join(before.values()), "Accept-Encoding": encoding},
    )
    assert r.status_code == 200
    assert r.headers.get("content-encoding", "identity") == encoding
    left_out = set(r.headers[HEADER].split())
    full, sent = page_parts(whole), page_parts(r.text)
    assert left_out and left_out <= set(before.values())
    # Each part is either sent or held by the browser as is; none is both, none is lost.
    assert set(full.values()) == set(sent.values()) | left_out
    assert not set(sent.values()) & set(before.values())
    # k 8 -> 5 changes the readout: it is sent although the page holds a readout.
    assert "readout" in before and before["readout"] != full["readout"]
    assert sent["readout"] == full["readout"]
    assert len(r.content) < len(whole.encode()) or encoding == "gzip"


def test_a_changed_part_is_sent_even_when_its_old_self_is_held(client: TestClient) -> None:
    """The teeth: hold every part of another state; whatever differs must come back."""
    other = page_parts(client.get("/station?pred=skip&base=0.6,4,0.1,1,1,0&match=0.2").text)
    whole = page_parts(client.get(f"/station/evidence?{TICK}").text)
    r = client.get(f"/station/evidence?{TICK}", headers={HEADER: " ".join(other.values())})
    sent = page_parts(r.text)
    for pid, h in whole.items():
        if other.get(pid) != h:
            assert sent.get(pid) == h, pid


def test_a_page_is_never_cut(client: TestClient) -> None:
    html = client.get(f"/station?{PREDICTED}").text
    held_all = " ".join(page_parts(html).values())
    again = client.get(f"/station?{PREDICTED}", headers={HEADER: held_all})
    assert again.text == html
    assert HEADER not in again.headers
    assert "<!--part" not in html


def test_the_controls_name_the_header_the_server_reads() -> None:
    assert f'"{HEADER}"' in contract_js()


TREE_TICK = f"{TICK.replace('k=5', 'k=4')}&tree_width=2"
# What a slider's answer leaves for later: (its query, the element's id, its route).
DEFERRED = [
    pytest.param(TICK, "block-detail", "/station/block", id="worked-block"),
    pytest.param(TREE_TICK, "beside-chain", "/station/beside", id="beside-chain"),
]


@pytest.mark.parametrize(("query", "testid", "route"), DEFERRED)
def test_what_waits_for_the_tick_to_settle_is_what_the_page_draws(
    client: TestClient, query: str, testid: str, route: str
) -> None:
    tick = client.get(f"/station/evidence?{query}").text
    pending = find(tick, data_testid=f"{testid}-pending")
    assert len(pending) == 1 and not find(tick, data_testid=testid)
    href = pending[0].attrs["hx-get"]
    assert href.startswith(f"{route}?") and pending[0].attrs["hx-trigger"] == "load"
    later = client.get(href)
    assert later.status_code == 200
    page = client.get(f"/station?{query}").text
    drawn = re.search(rf'<div class="{testid}" id="{testid}".*?\n</div>', page, re.S)
    assert drawn is not None and drawn.group(0) in later.text  # the page draws the same


def test_the_chain_waits_for_nothing_beside_itself(client: TestClient) -> None:
    """The teeth of the test above: a chain's tick has no placeholder, and answered alone the
    route says there is nothing to compare instead of a blank."""
    tick = client.get(f"/station/evidence?{TICK}").text
    assert not find(tick, data_testid="beside-chain-pending")
    alone = client.get(f"/station/beside?{TICK}")
    assert alone.status_code == 200 and find(alone.text, data_testid="beside-chain-none")


@pytest.mark.parametrize(("query", "testid", "route"), DEFERRED)
def test_what_waits_stays_behind_the_prediction(
    client: TestClient, query: str, testid: str, route: str
) -> None:
    unpredicted = "&".join(f for f in query.split("&") if f.split("=")[0] not in PREDICTION_FIELDS)
    r = client.get(f"{route}?{unpredicted}")
    assert r.status_code == 200
    assert find(r.text, data_testid=f"{testid}-locked") and not find(r.text, data_testid=testid)
