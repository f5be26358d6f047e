"""Classroom: presets match their hints, the sweep marks the formula's optimum, the slice judges
each mode, and every view option is reachable from the page."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.station.state.presets import BY_ID, PRESETS
from app.station.views.station import LiveView
from tests.app.forms import find
from tests.app.view_models import WITNESS, view_of
from witness import Settings, optimal_k


def open_preset(client: TestClient, preset: str) -> LiveView:
    html = client.get("/station?pred=skip").text
    (link,) = find(html, data_testid=f"preset-{preset}")
    r = client.get(link.attrs["href"])
    assert r.status_code == 200
    view: LiveView = view_of(r)
    return view


@pytest.mark.parametrize("preset", [p.id for p in PRESETS])
def test_every_preset_loads_with_its_hint_and_question(client: TestClient, preset: str) -> None:
    view = open_preset(client, preset)
    p = BY_ID[preset]
    assert view.settings == p.settings
    assert view.classroom.current is not None
    assert view.classroom.current.hint == p.hint
    assert not view.classroom.current.modified
    html = client.get(view.links.page).text
    assert p.question in html.replace("&#39;", "'")


def test_each_preset_evidence_matches_its_hint(client: TestClient) -> None:
    def at(preset: str) -> LiveView:
        return open_preset(client, preset)

    well, mismatched = at("well-matched"), at("mismatched")
    assert well.trace.totals.mean_alpha > 0.9 > mismatched.trace.totals.mean_alpha
    assert well.trace.totals.tokens_per_pass > mismatched.trace.totals.tokens_per_pass  # type: ignore[operator]
    assert mismatched.trace.check.keeps_target
    slow = at("draft-too-slow")
    slow_ens = WITNESS.ensemble(slow.settings)
    # "at k = 4 this is slower than plain decoding": beyond noise, over the seeded requests.
    assert slow_ens.speedup(slow.settings.draft_cost).ci_high < 1.0
    assert slow.invariant.savings.status == "fails"  # type: ignore[union-attr]
    assert abs(slow_ens.alpha - slow.settings.draft_cost) < 0.05  # "α is so close to c"
    k1 = slow.settings.model_copy(update={"k": 1})
    assert abs(WITNESS.ensemble(k1).speedup(k1.draft_cost).mean - 1.0) < 0.1  # "barely"
    past = at("k-past-optimum")
    past_ens = WITNESS.ensemble(past.settings)
    best = optimal_k(past_ens.alpha, past.settings.draft_cost, 16)
    assert past.settings.k > best
    # "over the seeded requests k = 16 is slower than the formula's optimum k"
    assert WITNESS.compare(past.settings.model_copy(update={"k": best}), past.settings).change == (
        "slower"
    )
    unsafe = at("unsafe-shortcut")
    assert not unsafe.invariant.correctness.holds  # type: ignore[union-attr]
    # "the speed hardly changes (a few percent at most, over the seeded requests)"
    safe = unsafe.settings.model_copy(update={"repair": True})
    cmp = WITNESS.compare(safe, unsafe.settings)
    assert abs(cmp.difference) < 0.05 * cmp.before.mean
    off = at("verify-off")
    assert off.trace.check.mode == "no_verify" and not off.trace.check.keeps_target
    greedy = at("greedy")
    assert greedy.trace.check.matches_greedy_baseline is True
    same = at("p-equals-q")
    assert same.trace.totals.rejected_drafts == 0
    # Every full block emits k + 1 tokens; the last drafts only what is left to generate.
    *full, last = same.trace.blocks
    assert {len(b.result.emitted) for b in full} == {same.settings.k + 1}
    assert len(last.result.emitted) == same.settings.tokens - last.start
    assert last.truncated == 0


def test_a_moved_preset_says_so(client: TestClient) -> None:
    view = open_preset(client, "mismatched")
    moved = view_of(client.get(view.state.url(settings=view.settings.model_copy(update={"k": 9}))))
    assert moved.classroom.current.modified is True


def test_the_sweep_marks_the_optimum_of_the_formula(client: TestClient) -> None:
    view: LiveView = view_of(client.get("/station?pred=skip&draft_cost=0.05&match=0.7"))
    chart = view.sweep
    assert chart is not None
    alpha = float(re.search(r"station's α = (\d\.\d+)", chart.summary).group(1))  # type: ignore[union-attr]
    opt = int(chart.optimum_label.rsplit(" ", 1)[1])
    sweep = WITNESS.sweep(view.settings)
    assert opt == sweep.optimal_k == optimal_k(sweep.alpha, 0.05, 16)
    assert sweep.alpha == WITNESS.ensemble(view.settings).alpha
    assert abs(sweep.alpha - alpha) < 0.0005
    assert chart.optimum_x == chart.expected[opt - 1].x
    # The measured curve does not depend on the instrument's k, only marks it.
    other: LiveView = view_of(client.get("/station?pred=skip&draft_cost=0.05&match=0.7&k=12"))
    assert [p.y for p in other.sweep.measured] == [p.y for p in chart.measured]  # type: ignore[union-attr]
    assert other.sweep.current_x != chart.current_x  # type: ignore[union-attr]


def test_fragments_fetch_the_sweep_after_the_evidence(client: TestClient) -> None:
    frag = client.get("/station/evidence?pred=skip&match=0.7")
    assert 'id="sweep"' in frag.text and 'hx-trigger="load"' in frag.text
    assert view_of(frag).sweep is None
    (placeholder,) = find(frag.text, id="sweep")
    sweep = client.get(placeholder.attrs["hx-get"])
    assert sweep.status_code == 200 and 'data-testid="chart-sweep"' in sweep.text


def test_the_evaluation_slice_passes_lossless_and_fails_each_shortcut(client: TestClient) -> None:
    html = client.get("/station?pred=skip").text
    (run,) = find(html, data_testid="run-slice")
    page = client.get(run.attrs["href"].split("#")[0])
    view: LiveView = view_of(page)
    assert view.slice is not None
    verdicts = {r.mode: r.verdict for r in view.slice.rows}
    assert verdicts == {"lossless": "keeps p", "no_repair": "fails p", "no_verify": "fails p"}
    rows = {r.mode: r for r in view.slice.rows}
    assert float(rows["lossless"].p_value) > 1e-3
    assert rows["no_repair"].speedup == rows["lossless"].speedup  # as fast, and wrong
    assert "the unsafe shortcut runs at" in view.slice.summary
    assert "does not keep p (exact TV" in view.slice.summary
    frag = client.get(run.attrs["hx-get"])
    assert frag.headers["HX-Replace-Url"].endswith("slice=1")
    assert 'data-testid="slice-no_repair-verdict">fails p<' in frag.text


def test_the_slice_stays_behind_the_prediction(client: TestClient) -> None:
    view: LiveView = view_of(client.get("/station?slice=1"))
    assert view.slice is None
    assert "opens once a prediction is recorded" in client.get("/station?slice=1").text


@pytest.mark.parametrize(
    ("label", "option", "value", "body_class"),
    [
        ("Projector view", "view", "projector", "view-projector"),
        ("Embed view", "embed", "1", "view-embed"),
    ],
)
def test_every_view_option_is_reachable_from_the_page(
    client: TestClient, label: str, option: str, value: str, body_class: str
) -> None:
    html = client.get("/station?pred=skip&k=6").text
    links = [a for a in find(html, **{"class": "chip"}) if a.attrs.get("href")]
    hrefs = {a.attrs["href"] for a in links}
    target = next(h for h in hrefs if f"{option}={value}" in h)
    query = dict(parse_qsl(urlsplit(target).query))
    assert query["k"] == "6" and query["pred"] == "skip"  # the rest of the state is kept
    page = client.get(target)
    assert f'<body class="{body_class}">' in page.text
    assert label in html


def test_the_full_share_link_is_the_canonical_page_url(client: TestClient) -> None:
    # The link with the prediction (offered beside the default one, which leaves it out:
    # tests/app/station/views/test_prediction.py) reproduces exactly this state.
    view: LiveView = view_of(client.get("/station?k=6&pred=skip&block=1"))
    assert view.classroom.share_full_url == view.links.page
    again: LiveView = view_of(client.get(view.classroom.share_full_url))
    assert again.state == view.state
    assert again.settings == Settings(k=6)


# --------------------------------------------------------------------------- drafting presets


def test_the_drafting_presets_match_their_hints() -> None:
    """Each drafting preset's hint, sentence by sentence, against the witness's numbers."""
    from witness import serve_request
    from witness.core.settings import tree_nodes
    from witness.judge.ensemble import compare, serve_ensemble
    from witness.serve.accounting import draft_cost

    chain = Settings()
    tree, top, medusa, lookup = (
        BY_ID[p].settings for p in ("tree-of-two", "eagle-top-k", "medusa-typical", "prompt-lookup")
    )
    # "A tree of two": 30 nodes scored in one pass, faster than the chain of four, keeps p.
    assert (tree.tree_width, tree.k, tree_nodes(2, 4)) == (2, 4, 30)
    assert "2 + 4 + 8 + 16 = 30 drafted nodes" in BY_ID["tree-of-two"].hint
    assert (chain.k, chain.match, chain.draft_cost) == (tree.k, tree.match, tree.draft_cost)
    assert WITNESS.compare(chain, tree).change == "faster"
    served = serve_request(tree)
    assert served.check.keeps_target and served.check.tv_max < 1e-12
    assert served.totals.drafted_tokens > served.totals.target_passes * tree.k
    # "EAGLE-style": gains little, if anything, on the chain; no faster than the sampled tree.
    assert top.model_copy(update={"drafting": "sample"}) == tree
    on_chain = WITNESS.compare(chain, top)
    assert on_chain.change in ("faster", "within noise")
    assert on_chain.difference < 0.15 * on_chain.before.mean  # "little"
    assert WITNESS.compare(tree, top).change in ("slower", "within noise")
    assert serve_request(top).check.keeps_target
    # "Medusa's shortcut": faster than the same tree checked exactly, exact TV above 0.8.
    assert medusa.model_copy(update={"acceptance": "exact"}) == top
    assert WITNESS.compare(top, medusa).change == "faster"
    check = serve_request(medusa).check
    assert not check.keeps_target and check.tv_max > 0.8
    assert BY_ID["medusa-typical"].names_answer  # it tells what a lossy shortcut does
    # "Prompt lookup": the prompt repeats its start; 48 tokens in 22 passes, 2.18 per pass,
    # no draft cost; the draft model does better (4.71×); sampled, 1.06 tokens per pass.
    words = lookup.prompt.split()
    assert words[:2] == words[-2:]
    trace = serve_request(lookup)
    assert not trace.skipped_prompt_words  # every word is the corpus's
    t = trace.totals
    assert (t.tokens, t.target_passes, t.draft_passes) == (48, 22, 0)
    assert f"{t.tokens_per_pass:.2f}" == "2.18" and trace.check.keeps_target
    ens = serve_ensemble(lookup)
    assert ens.speedup(draft_cost(lookup)).mean == ens.speedup(0.0).mean  # copying is free
    model = lookup.model_copy(update={"draft_source": "model"})
    cmp = compare(serve_ensemble(model), model.draft_cost, ens, draft_cost(lookup))
    assert cmp.change == "slower" and f"{cmp.before.mean:.2f}" == "4.71"
    sampled = serve_ensemble(lookup.model_copy(update={"greedy": False}))
    assert sampled.tokens_per_pass is not None
    assert f"{sampled.tokens_per_pass:.2f}" == "1.06"
    assert sampled.speedup(0.0).ci_low > 1.0  # faster than plain decoding, barely
    assert sampled.tokens_per_pass < 1.1
    # Copying wins whole blocks once the greedy answer loops: some block emits k + 1.
    assert max(len(b.result.emitted) for b in trace.blocks) == lookup.k + 1


def test_a_preset_sets_the_workload_fields_it_names_and_keeps_the_rest(
    client: TestClient,
) -> None:
    from app.station.state.presets import LOOKUP_PROMPT
    from app.station.views.classroom import preset_state
    from tests.app.view_models import state_of

    state = state_of("/station?tokens=64&prompt=the+server&tpot_ms=20")
    opened = preset_state(state, "prompt-lookup")
    assert opened.settings.prompt == LOOKUP_PROMPT and opened.settings.tokens == 48
    assert opened.settings.tpot_ms == 20
    tree = preset_state(state, "tree-of-two")
    assert (tree.settings.prompt, tree.settings.tokens) == ("the server", 64)


# --------------------------------------------------------------------- cost-of-a-pass presets


def test_the_batch_that_kills_the_win_matches_its_hint(client: TestClient) -> None:
    from witness.cost.costing import costing, scored_per_sequence

    view = open_preset(client, "batch-kills-win")
    s = view.settings
    assert (s.machine, s.pair, s.batch, s.k, s.match) == ("h100", "llama-8b-1b", 256, 4, 0.9)
    # "At batch 1 verifying five tokens costs one pass and speculation is well over 2× faster"
    one = s.model_copy(update={"batch": 1})
    assert costing(one).verify(5) == 1.0
    assert WITNESS.ensemble(one).speedup(costing(one)).ci_low > 2.0
    # "here the verifying pass scores 1 280 tokens, is compute-bound and costs over four plain
    # steps, so over the seeded requests speculation is slower than plain decoding"
    assert s.batch * scored_per_sequence(s) == 256 * 5 == 1280
    assert costing(s).verify(5) > 4.0
    assert WITNESS.ensemble(s).speedup(costing(s)).ci_high < 1.0
    assert view.invariant.savings.status == "fails"  # type: ignore[union-attr]
    # "The output still keeps p."
    assert view.trace.check.keeps_target and view.trace.check.tv_max <= 1e-12
    assert view.batch is not None and "stops paying from batch" in view.batch.summary


def test_long_context_helps_speculation_as_its_hint_says(client: TestClient) -> None:
    from witness.cost.costing import costing
    from witness.judge.ensemble import compare

    view = open_preset(client, "long-context")
    s = view.settings
    assert (s.machine, s.batch, s.context) == ("h100", 128, 2048)
    # "which keeps the verifying pass memory-bound"
    assert costing(s).verify(5) == 1.0
    bare = s.model_copy(update={"context": 0})
    assert costing(bare).verify(5) > 1.0  # without the context it is compute-bound
    # "over the seeded requests speculation is faster here than at the same batch with no
    # context": paired on the same seeds, each side priced on its own machine settings.
    cmp = compare(WITNESS.ensemble(bare), costing(bare), WITNESS.ensemble(s), costing(s))
    assert cmp.change == "faster"
    assert costing(s).fits  # 128 sequences of 2 048 tokens fit beside the weights
    assert view.trace.check.keeps_target


def test_the_adaptive_k_preset_is_a_valid_mixed_request(client: TestClient) -> None:
    view = open_preset(client, "adaptive-k")
    s = view.settings
    assert Settings.model_validate(s.model_dump()) == s
    assert s.tokens == 96 and s.machine == "custom"
    assert view.trace.totals.tokens == 96 and view.trace.check.keeps_target


def test_the_adversary_preset_matches_its_hint(client: TestClient) -> None:
    from witness.cost.costing import costing

    view = open_preset(client, "adversary-recovery")
    s = view.settings
    assert s.draft_source == "adversary" and s.match == 0.0
    ens = WITNESS.ensemble(s)
    # "which the target almost never takes (α ≈ 0.00002)": the smoothed target leaves its least
    # likely word about 2·10⁻⁵, so α is that small, and no draft of this request is accepted.
    assert 1e-5 < ens.alpha < 3e-5
    t = view.trace.totals
    assert t.accepted_drafts == 0
    # "Every full block pays k draft passes for one repaired token" (a full block: one with
    # k + 1 tokens left to generate; the last few draft only what is left)
    blocks = view.trace.blocks
    assert len(blocks) == t.target_passes == s.tokens
    assert all(b.emitted_kinds == ("repaired",) for b in blocks[:-1])
    full = [b for b in blocks if s.tokens - b.start >= s.k + 1]
    assert len(full) == s.tokens - s.k and all(len(b.drafts) == s.k for b in full)
    # "speculation is slower than plain decoding, though the output keeps p"
    assert ens.speedup(costing(s)).ci_high < 1.0
    priced = t.tokens / (t.target_passes + s.draft_cost * t.draft_passes)
    assert ens.speedups(costing(s))[0] == pytest.approx(priced, rel=1e-12)
    assert view.trace.check.keeps_target and view.trace.check.tv_max <= 1e-12
    # "In the policy race a recovery policy ... comes back to within 1% of plain-decoding
    # speed: only the probes ... still cost c each" (over the race's seeded requests)
    _, raced = WITNESS.race(s)
    recovery, fixed = raced.speedup("recovery"), raced.speedup("fixed")
    assert 0.99 <= recovery.ci_low and recovery.ci_high < 1.0
    assert fixed.ci_high < 0.99
