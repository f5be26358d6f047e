"""The step-through's verifying pass and KV caches, for a request the tiny transformers served.

The rows a block keeps and discards follow from the block alone (its drafts, its accepted
prefix, how it ended, how many tokens the request kept), so most traces here are n-gram
requests relabelled as served by the transformers; one test serves a real one. The view is
checked against a reference that runs the caches' lengths block by block as
witness.neural.speculate runs the caches, and a view that keeps every row fails it (the teeth).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl

import pytest
from fastapi.testclient import TestClient

from app.rendering.templating import make_templates
from app.station.state.query import parse_state
from app.station.views import stepthrough_kv
from app.station.views.stepthrough import StepThroughView, selected_block, stepthrough_view
from app.station.views.stepthrough_kv import KvLane, KvView, kv_view, pass_of
from app.words import Sentence
from tests.app.forms import find
from tests.app.view_models import trace_of
from witness import RequestTrace, Settings
from witness.core.trace import BlockTrace

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"
TRANSFORMERS = ("early-exit", "small-draft")
# Requests whose blocks between them accept every draft, reject at the first draft and later
# ones, end on one token left, run greedy, resample without repair and skip verification.
REQUESTS: tuple[dict[str, Any], ...] = (
    {},
    {"k": 8},
    {"match": 0.3, "k": 6},
    {"match": 1.0, "k": 5},
    {"greedy": True},
    {"repair": False},
    {"verify": False},
    {"k": 16, "seed": 7},
    {"k": 3, "tokens": 20, "seed": 3},
)


def served_as(models: str, **settings: Any) -> RequestTrace:
    """An n-gram request's trace, relabelled as served by ``models``."""
    trace = trace_of(Settings(**settings))
    return replace(trace, settings={**trace.settings, "models": models})


def says(said: object, key: str, **values: object) -> Sentence:
    assert isinstance(said, Sentence), f"not a catalog sentence: {said!r}"
    assert said.key == key, f"{said.key} where {key} was expected: {said}"
    for name, value in values.items():
        assert str(said.values[name]) == str(value), (name, said.values[name], value)
    return said


# --------------------------------------------------------------------------- the reference


@dataclass(frozen=True)
class Rows:
    """One block's rows: new and discarded per cache, and the first-layer rows the verifying
    pass found already made by the early exit."""

    target_new: int
    target_discarded: int
    draft_new: int
    draft_discarded: int
    reused: int


def reference_rows(trace: RequestTrace, verify: bool) -> list[Rows]:
    """The caches' lengths, block by block, as witness.neural.speculate moves them: the draft
    feeds what it lacks of the text and then every draft but the last, the verifying pass the
    pending token and every draft, and then each cache holds every committed token but the
    last. The early exit's rows are the target's first layer, trimmed with it."""
    early = trace.settings["models"] == "early-exit"
    committed = 7  # any prompt: the prefill leaves both caches one row short of it
    target = draft = committed - 1
    out = []
    for b in trace.blocks:
        k = len(b.drafts)
        target_before, draft_before = target, draft
        if k:
            draft = committed + k - 1
        reused = 0
        if verify:
            if early:
                reused = min(draft, committed + k) - target_before
            target = committed + k
        fed = draft
        committed += len(b.emitted_words)
        hold = committed - 1
        out.append(
            Rows(
                target_new=target - target_before,
                target_discarded=max(0, target - hold) if verify else 0,
                draft_new=fed - draft_before,
                draft_discarded=max(0, fed - hold),
                reused=reused,
            )
        )
        target = min(target, hold)
        draft = target if early and verify else min(draft, hold)
    return out


def lanes_of(kv: KvView | None) -> dict[str, KvLane]:
    assert kv is not None
    return {lane.key: lane for lane in kv.lanes}


def view_rows(trace: RequestTrace, verify: bool) -> list[Rows]:
    """The same counts, as the step-through draws them."""
    out = []
    for b in trace.blocks:
        lanes = lanes_of(kv_view(trace, b, verify))
        target = lanes.get("target")
        draft = lanes["draft"]
        if verify:
            assert target is not None
            vp = pass_of(trace, b)
            assert vp is not None and len(vp.cells) == len(target.rows)
            reused = sum(
                isinstance(c.layer_one, Sentence) and c.layer_one.mode == "reused" for c in vp.cells
            )
        else:
            assert target is None  # no verifying pass: nothing to draw for the target
            reused = 0
        for lane in (target, draft):
            if lane is not None:
                assert lane.kept + lane.discarded == len(lane.rows)
                assert [r.kept for r in lane.rows] == sorted(
                    (r.kept for r in lane.rows), reverse=True
                )
        out.append(
            Rows(
                target_new=len(target.rows) if target else 0,
                target_discarded=target.discarded if target else 0,
                draft_new=len(draft.rows),
                draft_discarded=draft.discarded,
                reused=reused,
            )
        )
    return out


def mismatches(models: str, settings: dict[str, Any]) -> list[tuple[int, Rows, Rows]]:
    trace = served_as(models, **settings)
    verify = settings.get("verify", True)
    pairs = zip(reference_rows(trace, verify), view_rows(trace, verify), strict=True)
    return [(i, want, got) for i, (want, got) in enumerate(pairs) if want != got]


@pytest.mark.parametrize("models", TRANSFORMERS)
@pytest.mark.parametrize(
    "settings", REQUESTS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "defaults"
)
def test_every_block_keeps_and_discards_the_rows_the_reference_does(
    models: str, settings: dict[str, Any]
) -> None:
    assert mismatches(models, settings) == []


def test_teeth_a_view_that_keeps_every_row_fails_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stepthrough_kv, "kept_from_pending", lambda block: 10**6)
    for models in TRANSFORMERS:
        wrong = mismatches(models, {})
        assert wrong, "keeping every row should not pass"
        # Only the blocks with a rejection differ: an accepted prefix keeps everything.
        blocks = served_as(models).blocks
        assert {i for i, _, _ in wrong} == {
            i for i, b in enumerate(blocks) if b.result.first_rejection is not None
        }


def test_teeth_a_draft_that_feeds_its_last_draft_fails_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A separate draft that never falls behind (as if it had fed dk) is caught too."""
    monkeypatch.setattr(stepthrough_kv, "left_behind", lambda trace, block: None)
    assert mismatches("small-draft", {})
    assert not mismatches("early-exit", {})  # the early exit is never behind anyway


# --------------------------------------------------------------------------- the cases, by name


def _block(trace: RequestTrace, pick: Any) -> BlockTrace:
    return next(b for b in trace.blocks if pick(b))


@pytest.mark.parametrize("models", TRANSFORMERS)
def test_a_rejection_keeps_the_pending_token_and_the_accepted_prefix(models: str) -> None:
    trace = served_as(models)
    block = _block(trace, lambda b: b.result.first_rejection not in (None, 0))
    j, k = block.result.accepted, len(block.drafts)
    kv = kv_view(trace, block, True)
    assert kv is not None
    lanes = lanes_of(kv)
    target, draft = lanes["target"], lanes["draft"]
    assert [r.word for r in target.rows] == [block.context[-1], *(d.word for d in block.drafts)]
    assert [r.status for r in target.rows] == ["kept"] * (j + 1) + ["discarded"] * (k - j)
    assert [r.mark for r in target.rows] == ["✓"] * (j + 1) + ["✕"] * (k - j)
    # The draft fed the pending token and every draft but the last.
    assert [r.word for r in draft.rows][-k:] == [
        block.context[-1],
        *(d.word for d in block.drafts[:-1]),
    ]
    assert draft.kept == j + 1 + (draft.rows[0].role.startswith("left from"))
    assert draft.discarded == k - 1 - j
    said = says(kv.summary, "stepthrough.kv.summary", number=block.index + 1)
    says(
        said.values["target"],
        "stepthrough.kv.target.rollback",
        discarded=k - j,
        kept=j + 1,
        rows=f"{k + 1} new rows",
    )
    if k - 1 - j:
        says(said.values["draft"], "stepthrough.kv.draft.rollback", discarded=k - 1 - j)
    assert f"the target rolls back {k - j} of its {k + 1} new rows" in kv.summary


def test_a_rejection_at_the_first_draft_keeps_only_the_pending_token() -> None:
    trace = served_as("early-exit")
    block = _block(trace, lambda b: b.result.first_rejection == 0)
    k = len(block.drafts)
    lanes = lanes_of(kv_view(trace, block, True))
    assert (lanes["target"].kept, lanes["target"].discarded) == (1, k)
    assert (lanes["draft"].kept, lanes["draft"].discarded) == (1, k - 1)


def test_all_accepted_the_target_keeps_every_row_and_the_small_draft_falls_behind() -> None:
    trace = served_as("small-draft")
    block = _block(trace, lambda b: b.drafts and b.result.first_rejection is None)
    k = len(block.drafts)
    kv = kv_view(trace, block, True)
    assert kv is not None
    lanes = lanes_of(kv)
    assert (lanes["target"].kept, lanes["target"].discarded) == (k + 1, 0)
    assert lanes["draft"].discarded == 0
    said = says(kv.summary, "stepthrough.kv.summary")
    says(said.values["target"], "stepthrough.kv.target.all", rows=f"{k + 1} new rows")
    says(
        said.values["draft"],
        "stepthrough.kv.draft.behind",
        word=block.drafts[-1].word,
        next=block.index + 2,
    )
    # ... and the next block's draft feeds that last draft first, before its pending token.
    after = trace.blocks[block.index + 1]
    next_kv = kv_view(trace, after, True)
    assert next_kv is not None
    following = lanes_of(next_kv)["draft"]
    assert following.rows[0].word == block.drafts[-1].word
    assert following.rows[0].role == f"left from block {block.index + 1}"
    assert following.rows[0].kept
    assert following.rows[1].word == after.context[-1]
    assert [n.key for n in next_kv.notes if isinstance(n, Sentence)] == [
        "stepthrough.kv.note.behind"
    ]


def test_all_accepted_the_early_exit_is_never_behind() -> None:
    trace = served_as("early-exit")
    block = _block(trace, lambda b: b.drafts and b.result.first_rejection is None)
    kv = kv_view(trace, block, True)
    assert kv is not None
    says(
        kv.summary.values["draft"], "stepthrough.kv.draft.all", rows=f"{len(block.drafts)} new rows"
    )
    after = trace.blocks[block.index + 1]
    assert [r.role for r in lanes_of(kv_view(trace, after, True))["draft"].rows][0] == "pending"


def test_the_early_exit_says_its_rows_are_the_target_first_layer_and_which_were_reused() -> None:
    trace = served_as("early-exit")
    block = trace.blocks[0]
    fed = [block.context[-1], *(d.word for d in block.drafts)]
    vp = pass_of(trace, block)
    assert vp is not None
    assert [c.word for c in vp.cells] == fed
    assert [c.layer_one for c in vp.cells] == ["layer 1 reused"] * (len(fed) - 1) + [
        "layer 1 computed"
    ]
    says(
        vp.layers,
        "stepthrough.kv.pass_layers.early_exit",
        last=fed[-1],
        deeper="layers 2–4",
        positions=len(fed),
    )
    kv = kv_view(trace, block, True)
    assert kv is not None
    (note,) = kv.notes
    reused = ", ".join(f"'{w}'" for w in fed[:-1])
    says(note, "stepthrough.kv.note.early_exit", layer="layer 1", reused=reused, last=fed[-1])
    assert "live in the target's layer 1" in note


def test_the_pass_yields_one_distribution_per_position() -> None:
    trace = served_as("small-draft", k=6)
    block = trace.blocks[0]
    vp = pass_of(trace, block)
    assert vp is not None
    k = len(block.drafts)
    assert vp.positions == k + 1 == len(vp.cells)
    assert [c.role for c in vp.cells] == ["pending", *(f"draft {i}" for i in range(1, k + 1))]
    assert [c.yields for c in vp.cells] == [
        *(f"p for draft {i}" for i in range(1, k + 1)),
        "p for a bonus token",
    ]
    assert all(c.layer_one == "" for c in vp.cells)  # the separate draft shares no layer
    says(vp.sentence, "stepthrough.kv.pass.many", positions=k + 1, drafts=f"{k} drafts")
    says(vp.layers, "stepthrough.kv.pass_layers.small_draft", layers=4, positions=k + 1)


@pytest.mark.parametrize("models", TRANSFORMERS)
def test_verify_off_draws_only_the_draft_rows_all_kept(models: str) -> None:
    trace = served_as(models, verify=False)
    for block in trace.blocks:
        kv = kv_view(trace, block, False)
        lanes = lanes_of(kv)
        assert set(lanes) == {"draft"}
        assert lanes["draft"].discarded == 0 and lanes["draft"].kept == len(block.drafts)
        assert kv is not None
        says(kv.summary.values["target"], "stepthrough.kv.target.none")
    # ... and the step-through draws no verifying pass, only the caches at the ending.
    state = parse_state(parse_qsl(f"{SKIP}&verify=off&sub=1"))
    st = stepthrough_view(state, trace, selected_block(state, trace))
    assert st.verify_pass is None and st.caches is None


@pytest.mark.parametrize("verify", [True, False])
def test_the_last_block_cut_by_the_request_discards_the_rows_past_its_text(verify: bool) -> None:
    """A block that gives more tokens than the request needs keeps rows only for the text the
    request keeps (the served chains draft no further than the request goes, so the block is
    cut here by hand)."""
    trace = served_as("small-draft", verify=verify)
    i, whole = next(
        (i, b) for i, b in enumerate(trace.blocks) if len(b.emitted_words) >= 4 and i > 0
    )
    n = 2
    cut = replace(
        whole,
        emitted_words=whole.emitted_words[:n],
        emitted_kinds=whole.emitted_kinds[:n],
        truncated=len(whole.result.emitted) - n,
    )
    trace = replace(trace, blocks=(*trace.blocks[:i], cut))
    kv = kv_view(trace, cut, verify)
    lanes = lanes_of(kv)
    k = len(cut.drafts)
    behind = int(lanes["draft"].rows[0].role.startswith("left from"))
    if verify:
        assert (lanes["target"].kept, lanes["target"].discarded) == (n, k + 1 - n)
    assert (lanes["draft"].kept, lanes["draft"].discarded) == (n + behind, k - n)
    assert kv is not None
    assert any(isinstance(s, Sentence) and s.key == "stepthrough.kv.note.cut" for s in kv.notes)
    pairs = zip(reference_rows(trace, verify), view_rows(trace, verify), strict=True)
    assert all(want == got for want, got in pairs)


def test_a_block_with_one_token_left_is_one_position_and_the_draft_feeds_nothing() -> None:
    trace = served_as("early-exit")
    last = trace.blocks[-1]
    assert last.drafts == ()  # at the defaults the request ends on one token left
    vp = pass_of(trace, last)
    assert vp is not None and vp.positions == 1
    says(vp.sentence, "stepthrough.kv.pass.one", pending=last.context[-1])
    says(vp.layers, "stepthrough.kv.pass_layers.one")
    kv = kv_view(trace, last, True)
    lanes = lanes_of(kv)
    assert (lanes["target"].kept, lanes["target"].discarded) == (1, 0)
    assert lanes["draft"].rows == ()
    assert kv is not None
    says(kv.summary.values["draft"], "stepthrough.kv.draft.idle")


def test_the_ngrams_have_no_caches_and_say_so_once() -> None:
    trace = trace_of(Settings())
    assert pass_of(trace, trace.blocks[0]) is None
    assert kv_view(trace, trace.blocks[0], True) is None
    state = parse_state(parse_qsl(f"{SKIP}&sub=4"))
    st = stepthrough_view(state, trace, selected_block(state, trace))
    assert st.caches is None
    says(st.cache_note, "stepthrough.kv.note.ngram")
    # ... at the ending only.
    state = parse_state(parse_qsl(f"{SKIP}&sub=1"))
    st = stepthrough_view(state, trace, selected_block(state, trace))
    assert st.verify_pass is None and st.cache_note == ""


# --------------------------------------------------------------------------- on screen


def render(st: StepThroughView) -> str:
    template = make_templates().env.get_template("partials/_stepthrough.html")
    html: str = template.render(
        page=SimpleNamespace(stepthrough=st), st_fragment=True, st_live=False
    )
    return html


def view_at(trace: RequestTrace, query: str) -> StepThroughView:
    state = parse_state(parse_qsl(f"{SKIP}&{query}"))
    return stepthrough_view(state, trace, selected_block(state, trace))


def test_the_target_sub_step_draws_the_pass_as_one_row_of_cells() -> None:
    trace = served_as("early-exit")
    st = view_at(trace, "sub=1")
    assert st.current is not None and st.current.kind == "target"
    html = render(st)
    (figure,) = find(html, data_testid="st-pass")
    assert figure.tag == "figure"
    cells = find(html, data_testid="st-pass-cell")
    assert st.verify_pass is not None and len(cells) == st.verify_pass.positions
    assert "layer 1 reused" in html and "layer 1 computed" in html
    assert 'data-testid="st-kv"' not in html  # the caches wait for the ending


def test_the_ending_draws_each_row_kept_or_discarded_in_words_and_marks() -> None:
    trace = served_as("small-draft")
    st = view_at(trace, "sub=4")  # block 1 of the default request: a rejection at draft 2
    assert st.caches is not None
    html = render(st)
    (summary,) = find(html, data_testid="st-kv-summary")
    assert 'data-testid="st-kv-target"' in html and 'data-testid="st-kv-draft"' in html
    rows = [r for lane in st.caches.lanes for r in lane.rows]
    assert html.count('<li class="st-kv__row ') == len(rows)
    discarded = [r for r in rows if not r.kept]
    assert discarded
    # Kept and discarded say so in words; the struck word and the ✕ only repeat it.
    assert html.count("st-kv__row--discarded") == len(discarded)
    assert html.count('<s class="st-kv__word">') == len(discarded)
    assert html.count('<span aria-hidden="true">✕ </span>discarded') == len(discarded)
    assert html.count('<span aria-hidden="true">✓ </span>kept') == len(rows) - len(discarded)
    assert "the target rolls back 3 of its 5 new rows and keeps 2" in html
    assert "2 kept, 3 discarded" in html
    assert " style=" not in html and "<script" not in html


def test_the_ngram_ending_says_there_is_no_cache(client: TestClient) -> None:
    r = client.get(f"/station/step?{SKIP}&sub=4")
    (note,) = find(r.text, data_testid="st-cache-note")
    assert 'data-testid="st-kv"' not in r.text
    assert 'data-testid="st-pass"' not in client.get(f"/station/step?{SKIP}&sub=1").text
    assert note.tag == "p"


@pytest.mark.parametrize("models", TRANSFORMERS)
def test_a_request_the_transformers_served_draws_its_caches(
    client: TestClient, models: str
) -> None:
    """A real request, served by the transformers: the ending's caches agree with the
    reference on every block, and the page draws them."""
    query = f"{SKIP}&models={models}"
    state = parse_state(parse_qsl(query))
    trace = trace_of(state.settings)
    assert trace.settings["models"] == models
    assert reference_rows(trace, True) == view_rows(trace, True)
    block = trace.blocks[selected_block(state, trace)]
    last = 2 + sum(d.accepted is not None for d in block.drafts)
    r = client.get(f"/station/step?{query}&sub={last}")
    assert r.status_code == 200
    (kv,) = find(r.text, data_testid="st-kv")
    assert kv.tag == "div"
    assert 'data-testid="st-kv-target"' in r.text
    p = client.get(f"/station/step?{query}&sub=1")
    assert len(find(p.text, data_testid="st-pass-cell")) == len(block.drafts) + 1
