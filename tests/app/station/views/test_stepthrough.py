"""The step-through of one verification step, at the client level: the fragment route
GET /station/step, its view model, its links and its narration, and the partial as the full
page includes it."""

from __future__ import annotations

import re
from dataclasses import replace
from html import unescape
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.station.state.query import parse_state
from app.station.views import stepthrough_words as step_words
from app.station.views.charts import exact
from app.station.views.stepthrough import StepThroughView, selected_block, stepthrough_view
from app.words import Sentence
from tests.app.forms import find
from tests.app.view_models import station_of, step_of, trace_of
from witness import Settings

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"  # a recorded skip at the defaults: evidence open

# The default request's first block (the evidence panel's default: its first rejection):
# each sub-step's sentence and the numbers it says.
DEFAULT_SAYS: tuple[tuple[str, dict[str, object]], ...] = (
    (
        "stepthrough.narration.draft",
        {
            "number": 1,
            "context": "the draft model proposes",
            "tokens": "4 tokens",
            "listed": "',' (q 0.407), '.' (q 0.011), 'so' (q 0.018), 'every' (q 0.083)",
        },
    ),
    (
        "stepthrough.narration.target",
        {
            "positions": 5,
            "listed": "',' p 0.486 against q 0.407, '.' p 0.002 against q 0.011, "
            "'so' p 0.019 against q 0.018, 'every' p 0.116 against q 0.083",
        },
    ),
    (
        "stepthrough.check.sampled.accepted",
        {"number": 1, "word": ",", "u": "0.63", "ratio": "1.19"},
    ),
    (
        "stepthrough.check.sampled.rejected",
        {"number": 2, "word": ".", "u": "0.88", "ratio": "0.16"},
    ),
    (
        "stepthrough.narration.repair",
        {"draft": 2, "word": "and", "top": "'and' 0.573, 'the' 0.427"},
    ),
)


def says(said: object, key: str, **values: object) -> Sentence:
    """``said`` is the catalog's sentence ``key``, filled with (at least) ``values``."""
    assert isinstance(said, Sentence), f"not a catalog sentence: {said!r}"
    assert said.key == key, f"{said.key} where {key} was expected: {said}"
    for name, value in values.items():
        assert str(said.values[name]) == str(value), (name, said.values[name], value)
    return said


def says_default(sub: int, said: object) -> Sentence:
    key, values = DEFAULT_SAYS[sub]
    return says(said, key, **values)


def key_of(said: object) -> str:
    assert isinstance(said, Sentence), f"not a catalog sentence: {said!r}"
    return said.key


def step(client: TestClient, query: str, **headers: str) -> Any:
    return client.get(f"/station/step?{query}", headers=headers)


def st_of(response: Any) -> StepThroughView:
    """The view model behind a /station/step answer, built from the request that asked."""
    request = response.request
    live = request.headers.get("hx-trigger") != "stepthrough"
    return step_of(str(request.url), live).stepthrough


def narration_of(html: str) -> str:
    m = re.search(r'data-testid="st-narration">([^<]*)<', html)
    assert m is not None, "no narration on screen"
    return unescape(m.group(1))


def identity_of(html: str) -> str:
    m = re.search(r'data-testid="st-identity">([^<]*)<', html)
    assert m is not None, "no identity sentence on screen"
    return unescape(m.group(1))


def live_of(html: str) -> str | None:
    m = re.search(r'<div [^>]*hx-swap-oob="outerHTML"[^>]*id="live"[^>]*>([^<]*)</div>', html)
    return unescape(m.group(1)) if m else None


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def page_with_stepthrough(client: TestClient, query: str) -> str:
    """The full station page for ``query``, which includes the step-through."""
    html: str = client.get(f"/station?{query}").text
    return html


# --------------------------------------------------------------------------- narration


def test_each_sub_step_of_the_default_block_is_narrated(client: TestClient) -> None:
    for sub in range(len(DEFAULT_SAYS)):
        r = step(client, f"{SKIP}&sub={sub}")
        assert r.status_code == 200
        assert 'data-testid="st-narration"' in r.text  # the step-through partial
        st = st_of(r)
        sentence = says_default(sub, st.narration)
        assert narration_of(r.text) == sentence
        # The live region (an out-of-band swap of #live) says the same sentence.
        assert live_of(r.text) == sentence
        assert st.progress == f"Step {sub + 1} of 5"
        assert f"Step {sub + 1} of 5" in r.text
        assert [s.status for s in st.steps] == (["done"] * sub + ["current"] + ["todo"] * (4 - sub))
    # The rejection throws drafts 3 and 4 away; the repair emits the accepted draft and itself.
    rejected = says_default(3, st_of(step(client, f"{SKIP}&sub=3")).narration)
    says(rejected.values["stop"], "stepthrough.check.stop.many", first=3, last=4)
    repair = says_default(4, st_of(step(client, f"{SKIP}&sub=4")).narration)
    says(repair.values["emits"], "stepthrough.emits.whole", tokens="2 tokens")


def test_the_sub_steps_are_listed_with_the_current_one_marked_not_by_colour_alone(
    client: TestClient,
) -> None:
    r = step(client, f"{SKIP}&sub=2")
    st = st_of(r)
    titles = [s.title for s in st.steps]
    assert len(titles) == 5
    says(titles[0], "stepthrough.title.draft", tokens="4 tokens")
    says(titles[1], "stepthrough.title.target")
    says(titles[2], "stepthrough.title.check", number=1, word=",")
    says(titles[3], "stepthrough.title.check", number=2, word=".")
    says(titles[4], "stepthrough.title.repair")
    assert [s.mark for s in st.steps] == ["✓", "✓", "▶", "○", "○"]
    assert [s.lane for s in st.steps] == [
        "Draft lane",
        "Target verifier",
        "Target verifier",
        "Target verifier",
        "Repair lane",
    ]
    (current,) = find(r.text, **{"aria-current": "step"})
    assert current.tag == "strong"
    assert "3. Check draft 1 &#39;,&#39;" in r.text
    assert '<span class="visually-hidden"> (done)</span>' in r.text
    assert '<span class="visually-hidden"> (to come)</span>' in r.text


def test_the_table_reveals_p_then_each_check_in_turn(client: TestClient) -> None:
    rows = st_of(step(client, f"{SKIP}&sub=0")).rows
    assert [r.q for r in rows] == ["0.407", "0.011", "0.018", "0.083"]
    assert all(r.p == "" and r.u == "" for r in rows)
    rows = st_of(step(client, f"{SKIP}&sub=1")).rows
    assert [r.p for r in rows] == ["0.486", "0.002", "0.019", "0.116"]
    assert [r.threshold for r in rows] == ["1.00", "0.16", "1.00", "1.00"]
    assert all(r.u == "" and r.outcome == "waiting" for r in rows)
    st = st_of(step(client, f"{SKIP}&sub=3"))
    assert [(r.u, r.outcome) for r in st.rows] == [
        ("0.63", "accepted"),
        ("0.88", "rejected"),
        ("", "waiting"),
        ("", "waiting"),
    ]
    assert [r.current for r in st.rows] == [False, True, False, False]
    assert st.gauge is not None
    assert st.gauge.summary == "Draft 2 '.': u = 0.88 ≥ min(1, p/q) = 0.16, so it was rejected."
    end = st_of(step(client, f"{SKIP}&sub=4"))
    assert [r.outcome for r in end.rows] == ["accepted", "rejected", "not reached", "not reached"]
    assert end.gauge is None
    assert end.ending is not None
    assert end.ending.kind == "repair"
    assert end.ending.residual == (("and", "0.573", True), ("the", "0.427", False))
    assert [(t.word, t.kind) for t in end.output] == [
        (",", "accepted"),
        (".", "rejected"),
        ("and", "repaired"),
    ]


# --------------------------------------------------------------------------- counts


@pytest.mark.parametrize(
    "query",
    [
        SKIP,
        f"{SKIP}&k=8",
        f"{SKIP}&match=0.3&k=6",
        f"{SKIP}&match=1",
        f"{SKIP}&greedy=on",
        f"{SKIP}&repair=off",
        f"{SKIP}&verify=off",
        f"{SKIP}&block=1",
        f"{SKIP}&block=3",
        f"{SKIP}&k=16&seed=7",
    ],
)
def test_a_block_has_two_plus_checked_drafts_plus_one_sub_steps(
    client: TestClient, query: str
) -> None:
    state = parse_state(parse_qsl(query))
    trace = trace_of(state.settings)
    block = trace.blocks[selected_block(state, trace)]
    checked = sum(d.accepted is not None for d in block.drafts)
    if not state.settings.verify:
        assert checked == 0
    r = step(client, f"{query}&sub=0")
    st = st_of(r)
    assert len(st.steps) == 2 + checked + 1
    assert r.text.count('<li class="st-step ') == len(st.steps)
    # Every sub-step answers, and the last one is the ending.
    last = step(client, f"{query}&sub={len(st.steps) - 1}")
    assert last.status_code == 200
    assert st_of(last).ending is not None
    assert st_of(last).next.href == ""


def test_the_step_through_walks_the_block_the_evidence_shows(client: TestClient) -> None:
    assert st_of(step(client, f"{SKIP}&sub=0")).block_number == 1  # the default block
    assert st_of(step(client, f"{SKIP}&block=3&sub=0")).block_number == 4
    # A block number past the request's end falls back to the default, as the evidence does.
    assert st_of(step(client, f"{SKIP}&block=200&sub=0")).block_number == 1


# --------------------------------------------------------------------------- links


def test_back_and_next_are_page_links_with_fragment_twins(client: TestClient) -> None:
    r = step(client, f"{SKIP}&sub=2")
    assert r.headers["HX-Replace-Url"] == f"/station?{SKIP.replace(',', '%2C')}&sub=2"
    assert "HX-Trigger" in r.headers["Vary"]
    assert "<html" not in r.text
    for testid, sub in (("st-back", "1"), ("st-next", "3"), ("st-reset", "0")):
        (a,) = find(r.text, data_testid=testid)
        href, fragment = a.attrs["href"], a.attrs["hx-get"]
        assert href.startswith("/station?") and href.endswith("#stepthrough")
        assert query_of(href)["sub"] == sub
        assert query_of(href)["pred"] == "skip"
        assert fragment.startswith("/station/step?")
        assert query_of(fragment) == query_of(href)
        assert a.attrs["hx-target"] == "#stepthrough"
        assert a.attrs["hx-swap"] == "outerHTML"
        # Following the fragment link answers with the page link as the address bar's URL.
        nxt = client.get(fragment)
        assert nxt.status_code == 200
        assert nxt.headers["HX-Replace-Url"] == href.split("#")[0]
    (close,) = find(r.text, data_testid="st-close")
    assert "sub" not in query_of(close.attrs["href"])


def test_back_is_off_at_the_first_sub_step_and_next_at_the_last(client: TestClient) -> None:
    first = step(client, f"{SKIP}&sub=0")
    (back,) = find(first.text, data_testid="st-back")
    assert back.tag == "span" and "href" not in back.attrs
    assert "(this is the first sub-step)" in first.text
    last = step(client, f"{SKIP}&sub=4")
    (nxt,) = find(last.text, data_testid="st-next")
    assert nxt.tag == "span" and "href" not in nxt.attrs
    assert "(this is the last sub-step)" in last.text


def test_closed_the_step_through_offers_to_start(client: TestClient) -> None:
    r = step(client, SKIP)
    assert r.status_code == 200
    st = st_of(r)
    assert not st.open
    assert st.current is None
    assert st.narration == ""
    assert live_of(r.text) is None
    (start,) = find(r.text, data_testid="st-next")
    assert query_of(start.attrs["href"])["sub"] == "0"
    assert 'data-testid="st-stage"' not in r.text
    assert st.progress == "Not started: 5 sub-steps"
    assert not find(r.text, data_testid="st-back")


def test_the_silent_refresh_leaves_the_live_region_alone(client: TestClient) -> None:
    loud = step(client, f"{SKIP}&sub=2", **{"HX-Request": "true", "HX-Trigger": "st-next"})
    assert live_of(loud.text) == says_default(2, st_of(loud).narration)
    quiet = step(client, f"{SKIP}&sub=2", **{"HX-Request": "true", "HX-Trigger": "stepthrough"})
    assert quiet.status_code == 200
    assert 'id="live"' not in quiet.text
    # ... and the address bar: the evidence answer that asked for it has set it already.
    assert quiet.headers["HX-Replace-Url"] == "false"
    assert loud.headers["HX-Replace-Url"].endswith("&sub=2")
    assert narration_of(quiet.text) == says_default(2, st_of(quiet).narration)


def test_after_a_slider_shortened_the_block_the_refresh_shows_its_last_sub_step(
    client: TestClient,
) -> None:
    """The learner was at sub-step 9 of a long block and moved k down: not a bad link."""
    quiet = step(client, f"{SKIP}&sub=9", **{"HX-Request": "true", "HX-Trigger": "stepthrough"})
    assert quiet.status_code == 200
    st = st_of(quiet)
    assert st.problems == ()
    assert st.progress == "Step 5 of 5"
    assert 'data-testid="stepthrough-error"' not in quiet.text


# --------------------------------------------------------------------------- bad values


@pytest.mark.parametrize(
    ("sub", "words"),
    [
        ("abc", "sub must be an integer from 0 to 40 (got 'abc')"),
        ("-1", "sub must be an integer from 0 to 40 (got '-1')"),
        ("99", "sub must be an integer from 0 to 40 (got '99')"),
        ("2.5", "sub must be an integer from 0 to 40 (got '2.5')"),
        ("9", "sub must be from 0 to 4 for block 1, which has 5 sub-steps (got 9)"),
        ("40", "sub must be from 0 to 4 for block 1, which has 5 sub-steps (got 40)"),
    ],
)
def test_a_bad_sub_step_is_a_422_with_the_message_in_place(
    client: TestClient, sub: str, words: str
) -> None:
    r = step(client, f"{SKIP}&sub={sub}")
    assert r.status_code == 422
    root = unescape(r.text.split('id="stepthrough"', 1)[1].split("</section>", 1)[0])
    assert words in root
    assert 'data-testid="stepthrough-error"' in r.text
    assert 'role="alert"' in r.text


def test_other_bad_values_are_named_in_the_fragment_too(client: TestClient) -> None:
    r = step(client, f"{SKIP}&k=0&sub=1")
    assert r.status_code == 422
    assert "k must be an integer from 1 to 16 (got &#39;0&#39;)" in r.text
    # ... and the step-through still works on the defaults.
    assert st_of(r).progress == "Step 2 of 5"


@pytest.mark.parametrize(
    "query",
    ["sub=", "sub=%00", "sub=1e3", "sub=０", "block=-1&sub=1", "pred=nope&sub=1", "sub=1&sub=x"],
)
def test_odd_queries_never_raise(client: TestClient, query: str) -> None:
    r = step(client, query)
    assert r.status_code in (200, 422)
    assert 'id="stepthrough"' in r.text


# --------------------------------------------------------------------------- modes


def test_verify_off_says_nothing_is_checked_and_the_drafts_are_emitted(
    client: TestClient,
) -> None:
    q = f"{SKIP}&verify=off"
    st = st_of(step(client, f"{q}&sub=0"))
    assert len(st.steps) == 3
    assert [key_of(s.title) for s in st.steps] == [
        "stepthrough.title.draft",
        "stepthrough.title.no_target",
        "stepthrough.title.unchecked",
    ]
    says(st.steps[0].title, "stepthrough.title.draft", tokens="4 tokens")
    says(st.steps[1].narration, "stepthrough.no_target.chain", drafts="4 drafts")
    end = st_of(step(client, f"{q}&sub=2"))
    says(end.narration, "stepthrough.narration.unchecked.whole", drafts="4 drafted tokens")
    assert "the output follows q, not p" in end.narration
    assert end.ending is not None and end.ending.kind == "unchecked"
    assert [r.outcome for r in end.rows] == ["emitted unchecked"] * 4
    assert all(r.p == "" for r in end.rows)  # no target pass computed p
    assert [t.kind for t in end.output] == ["unchecked"] * 4


def test_repair_off_says_the_target_resampled_p(client: TestClient) -> None:
    st = st_of(step(client, f"{SKIP}&repair=off&sub=4"))
    said = says(st.narration, "stepthrough.narration.resample", draft=2, word="the")
    says(said.values["emits"], "stepthrough.emits.whole", tokens="2 tokens")
    assert "resampled p" in said and "residual" not in said
    says(st.steps[-1].title, "stepthrough.title.resample")
    assert st.ending is not None and st.ending.kind == "resample"
    assert st.ending.residual == ()


def _focus_numbers(query: str) -> tuple[Any, float]:
    """The selected block's focus bar (its rejected token) and α there, from the trace."""
    state = parse_state(parse_qsl(query))
    trace = trace_of(state.settings)
    block = trace.blocks[selected_block(state, trace)]
    assert block.result.first_rejection is not None and block.focus is not None
    return block.bars[0], block.drafts[block.focus].alpha


def test_the_repair_step_states_the_identity_with_the_focus_numbers(client: TestClient) -> None:
    bar, alpha = _focus_numbers(SKIP)
    r = step(client, f"{SKIP}&sub=4")
    st = st_of(r)
    assert st.current is not None and st.current.kind == "repair"
    assert st.ending is not None
    sentence = st.ending.identity
    stack = (
        f"'{bar.word}': min(p, q) {exact(bar.overlap)} + (1 − α) {exact(1 - alpha)} × residual "
        f"{exact(bar.residual)} = {exact(bar.overlap + bar.repair_mass)} = p"
    )
    says(sentence, "stepthrough.identity.repair", stack=stack)
    assert f"at the rejected {stack};" in sentence
    assert exact(bar.overlap + bar.repair_mass) == exact(bar.p)  # the numbers add up to p
    assert "emit exactly p" in sentence
    assert sentence.endswith(".") and sentence.count(". ") == 0  # one sentence
    assert identity_of(r.text) == sentence


def test_with_repair_off_the_step_says_the_stack_is_not_p(client: TestClient) -> None:
    query = f"{SKIP}&repair=off"
    bar, alpha = _focus_numbers(query)
    r = step(client, f"{query}&sub=4")
    st = st_of(r)
    assert st.ending is not None and st.ending.kind == "resample"
    sentence = st.ending.identity
    says(sentence, "stepthrough.identity.no_repair")
    assert sentence.startswith("Without the residual the stack no longer equals p")
    assert (
        f"'{bar.word}': min(p, q) {exact(bar.overlap)} + (1 − α) {exact(1 - alpha)} × p "
        f"{exact(bar.p)} = " in sentence
    )
    assert " ≠ p " in sentence
    assert abs(bar.overlap + bar.resample_mass - bar.p) > 1e-6  # and the trace agrees
    assert sentence.endswith(".") and sentence.count(". ") == 0
    assert identity_of(r.text) == sentence


def test_only_a_rejection_states_the_identity(client: TestClient) -> None:
    end = st_of(step(client, f"{SKIP}&block=1&sub=6")).ending  # all accepted: bonus
    assert end is not None and end.kind == "bonus" and end.identity == ""
    end = st_of(step(client, f"{SKIP}&verify=off&sub=2")).ending
    assert end is not None and end.kind == "unchecked" and end.identity == ""


def test_all_accepted_ends_with_the_bonus_token_from_p(client: TestClient) -> None:
    st = st_of(step(client, f"{SKIP}&block=1&sub=6"))  # block 2 of the default request
    assert len(st.steps) == 7
    says(st.steps[-1].title, "stepthrough.title.bonus")
    said = says(
        st.narration, "stepthrough.narration.bonus", drafts="4 drafts", word="the", position=5
    )
    says(said.values["emits"], "stepthrough.emits.whole", tokens="5 tokens")
    assert st.ending is not None and st.ending.kind == "bonus"
    assert [t.kind for t in st.output] == ["accepted"] * 4 + ["bonus"]
    says(
        st.steps[2].narration,
        "stepthrough.check.sampled.accepted",
        number=1,
        word="the",
        u="0.71",
        ratio="1.28",
    )


def test_a_rejection_at_the_first_draft_throws_the_rest_away(client: TestClient) -> None:
    st = st_of(step(client, f"{SKIP}&block=3&sub=2"))
    assert len(st.steps) == 4
    said = says(
        st.narration,
        "stepthrough.check.sampled.rejected",
        number=1,
        word="runs",
        u="0.88",
        ratio="0.27",
    )
    says(said.values["stop"], "stepthrough.check.stop.many", first=2, last=4)


def test_the_last_token_is_a_plain_pass_and_says_so(client: TestClient) -> None:
    # At the defaults block 18 starts with one token left: it drafts nothing (a server drafts
    # no further than the request goes), and the step-through says why, step by step.
    trace = trace_of(parse_state(parse_qsl(SKIP)).settings)
    last = trace.blocks[-1]
    assert (last.index, last.start, last.drafts) == (17, 47, ())
    titles = [s.title for s in st_of(step(client, f"{SKIP}&block=17&sub=0")).steps]
    says(titles[0], "stepthrough.title.plain.draft")
    first = st_of(step(client, f"{SKIP}&block=17&sub=0")).narration
    says(first, "stepthrough.narration.one_left.draft", number=18)
    assert "one token is left to generate, so the draft proposes nothing" in first
    end = st_of(step(client, f"{SKIP}&block=17&sub={len(titles) - 1}")).narration
    says(end, "stepthrough.narration.one_left.token", word=last.final_word)
    assert "exactly as in plain decoding" in end and "1 token for one target pass" in end


def test_greedy_checks_read_as_greedy_choices(client: TestClient) -> None:
    st = st_of(step(client, f"{SKIP}&greedy=on&sub=2"))
    says(st.narration, "stepthrough.check.greedy.accepted", number=1, word=",")
    assert "greedy" in st.mode
    mode = says(st.mode, "stepthrough.mode.lossless")
    says(mode.values["sampling"], "stepthrough.mode.sampling.greedy")


def test_every_check_narration_matches_the_witness(client: TestClient) -> None:
    """Across a longer draft, each check sentence carries the trace's own u and p/q."""
    q = f"{SKIP}&k=12&match=0.4&seed=11"
    state = parse_state(parse_qsl(q))
    trace = trace_of(state.settings)
    block = trace.blocks[selected_block(state, trace)]
    st = st_of(step(client, f"{q}&sub=0"))
    checks = [s for s in st.steps if s.kind == "check"]
    assert len(checks) == sum(d.accepted is not None for d in block.drafts)
    for s, d in zip(checks, block.drafts, strict=False):
        outcome, relation = ("accepted", "<") if d.accepted else ("rejected", "≥")
        says(
            s.narration,
            f"stepthrough.check.sampled.{outcome}",
            number=d.position + 1,
            word=d.word,
            u=f"{d.u:.2f}",
            ratio=f"{d.ratio:.2f}",
        )
        assert f"u = {d.u:.2f} {relation} p/q = {d.ratio:.2f}" in s.narration
    # The narration of every sub-step is one sentence.
    for s in st.steps:
        assert s.narration.endswith(".")
        assert s.narration.count(". ") == 0, s.narration


# --------------------------------------------------------------------------- prediction first


def test_the_step_through_stays_hidden_until_a_prediction_is_recorded(
    client: TestClient,
) -> None:
    r = step(client, "sub=2")
    assert r.status_code == 200
    (root,) = find(r.text, id="stepthrough")
    assert "hidden" in root.attrs
    assert 'data-testid="st-stage"' not in r.text
    assert live_of(r.text) is None
    assert st_of(r).narration == ""
    html = page_with_stepthrough(client, "sub=2")
    (root,) = find(html, id="stepthrough")
    assert "hidden" in root.attrs


# --------------------------------------------------------------------------- the full page


def test_the_page_includes_the_step_through_at_the_sub_step_in_the_url(
    client: TestClient,
) -> None:
    html = page_with_stepthrough(client, f"{SKIP}&sub=3")
    assert html.count(' id="stepthrough"') == 1
    assert 'href="/static/css/stepthrough.css"' in html
    assert "Step 4 of 5: Check draft 2 &#39;.&#39;" in html
    view = station_of(f"/station?{SKIP}&sub=3")
    assert narration_of(html) == says_default(3, view.stepthrough.narration)
    # Without JavaScript every control is a plain link to the page at that sub-step.
    (nxt,) = find(html, data_testid="st-next")
    assert nxt.attrs["href"].startswith("/station?")
    assert nxt.attrs["href"].endswith("&sub=4#stepthrough")
    # The step-through sits right after the evidence panel.
    assert html.index('id="panel-evidence"') < html.index(' id="stepthrough"')
    assert html.index(' id="stepthrough"') < html.index('id="step-06"')
    # ... and it puts no style attribute and no inline script on the page (CSP).
    part = html.split('id="stepthrough"', 1)[1].split("</section>", 1)[0]
    assert " style=" not in part
    assert "<script" not in part


def test_the_wired_page_shows_the_step_through(client: TestClient) -> None:
    r = client.get(f"/station?{SKIP}&sub=2")
    assert r.status_code == 200
    view = station_of(f"/station?{SKIP}&sub=2")
    says_default(2, view.stepthrough.narration)
    assert 'id="stepthrough"' in r.text
    assert "Step 3 of 5" in r.text
    locked = client.get("/station?sub=2")
    (root,) = find(locked.text, id="stepthrough")
    assert "hidden" in root.attrs
    # The page's status follows the state's problems; the message is shown in place.
    far = client.get(f"/station?{SKIP}&sub=30")
    assert "sub must be from 0 to 4 for block 1" in unescape(far.text)


def test_the_view_model_is_frozen_and_formatted() -> None:
    state = parse_state(parse_qsl(f"{SKIP}&sub=1"))
    trace = trace_of(Settings())
    st = stepthrough_view(state, trace, selected_block(state, trace))
    with pytest.raises(AttributeError):
        st.narration = "x"  # type: ignore[misc]
    for row in st.rows:
        for value in (row.q, row.p, row.ratio, row.threshold, row.u):
            assert isinstance(value, str)


def test_a_block_cut_short_says_how_many_tokens_the_request_needed() -> None:
    """A block that gives more tokens than the request still needs says so, in every
    sentence that counts what it emits (the served traces cut the drafts first, so the
    block is cut here by hand)."""
    whole = trace_of(Settings()).blocks[0]
    block = replace(whole, truncated=1)
    needed = len(block.emitted_words)
    said = says(
        step_words.narration(block, True, True, False, "repair", 0), "stepthrough.narration.repair"
    )
    says(said.values["emits"], "stepthrough.emits.cut", tokens="2 tokens", needed=needed)
    unchecked = step_words.narration(block, False, True, False, "unchecked", 0)
    says(unchecked, "stepthrough.narration.unchecked.cut", drafts="4 drafted tokens", needed=needed)
    assert f"the request needed only {needed} of them" in unchecked
    said = says(
        step_words.narration(whole, True, True, False, "repair", 0), "stepthrough.narration.repair"
    )
    says(said.values["emits"], "stepthrough.emits.whole", tokens="2 tokens")
