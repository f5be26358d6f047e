"""The station's witness served by the tiny transformers (`models` early-exit / small-draft).

The same laws hold as with the n-grams: the lossless rule keeps p exactly (the exact check's
TV is 0), repair off and verify off do not; the trie of contexts computes each context's rows
as a full recomputation does, the same bits whatever batch or order computed them; acceptance
is read from the models, and the exact-given-text verdicts agree with served requests.
"""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from witness import Settings, serve_request
from witness.core.theory import acceptance_rate
from witness.judge.adaptive import race
from witness.judge.ensemble import serve_ensemble
from witness.judge.expected import exact_ensemble, texts_for
from witness.models.cache import RequestCache
from witness.neural.contexts import EXIT, SMALL, START, TARGET, ContextDropped, ContextTree
from witness.neural.corpus import encode
from witness.neural.model import softmax, tiny_pair
from witness.neural.served import transformer_models
from witness.serve.request import serve_path

MODELS = ("early-exit", "small-draft")


@pytest.fixture(scope="module")
def cache() -> RequestCache:
    return RequestCache()


@pytest.mark.parametrize("models", MODELS)
def test_the_lossless_rule_keeps_p_exactly_and_repair_off_does_not(
    models: str, cache: RequestCache
) -> None:
    kept = serve_request(Settings(models=models), cache=cache).check
    assert kept.keeps_target and kept.tv_max <= 1e-12
    # The teeth: the same request with the rejected position resampled from p, or unchecked.
    for switch in ({"repair": False}, {"verify": False}):
        broken = serve_request(Settings(models=models, **switch), cache=cache).check
        assert not broken.keeps_target and broken.tv_max > 0.01, switch


@pytest.mark.parametrize("models", MODELS)
def test_trees_typical_and_lookup_serve_with_the_transformers(
    models: str, cache: RequestCache
) -> None:
    tree = serve_request(Settings(models=models, tree_width=2, k=3), cache=cache)
    assert tree.check.keeps_target and all(b.levels for b in tree.blocks)
    typical = serve_request(Settings(models=models, acceptance="typical"), cache=cache)
    assert not typical.check.keeps_target  # Medusa's threshold is not lossless here either
    lookup = serve_request(Settings(models=models, draft_source="lookup"), cache=cache)
    assert lookup.check.keeps_target and lookup.totals.tokens == 48


def test_acceptance_comes_from_the_models_at_match_0(cache: RequestCache) -> None:
    pair = tiny_pair()
    prompt = [START, *encode("the draft model proposes").tolist()]
    for models, depth, draft in (("early-exit", 1, None), ("small-draft", None, pair.draft)):
        trace = serve_request(Settings(models=models, match=0.0, k=4, tokens=12), cache=cache)
        block = trace.blocks[0]
        context = list(prompt)
        for step in block.drafts:
            p = softmax(pair.target.full_logits(context))[-1]
            model = pair.target if draft is None else draft
            q = softmax(model.full_logits(context, depth=depth))[-1]
            # α at the position is the overlap of the two models' next-character laws.
            assert step.alpha == pytest.approx(acceptance_rate(p, q), abs=1e-12)
            assert step.p == pytest.approx(p[step.token], abs=1e-12)
            context.append(step.token)


def test_a_chain_block_records_every_drafted_token_even_after_a_rejection(
    cache: RequestCache,
) -> None:
    trace = serve_request(Settings(models="early-exit", match=0.0, k=8), cache=cache)
    rejected = [b for b in trace.blocks if b.result.first_rejection is not None]
    assert rejected, "match 0 at k = 8 rejects somewhere"
    for b in rejected:
        assert len(b.drafts) == b.depth == 8 or b.start + b.depth + 1 >= 48
        after = b.drafts[b.result.first_rejection + 1 :]
        assert all(d.accepted is None for d in after)  # drafted, never checked
    path = serve_path(Settings(models="early-exit", match=0.0, k=8), cache=cache)
    assert path.draft_passes == trace.totals.draft_passes
    assert len(path.alphas) == sum(len(b.drafts) for b in trace.blocks)


def test_the_trie_computes_what_a_full_recomputation_does() -> None:
    pair = tiny_pair()
    tree = ContextTree(pair)
    rng = np.random.default_rng(3)
    for _ in range(5):
        tokens = rng.integers(1, 31, size=int(rng.integers(1, 40))).tolist()
        laws = tree.laws(tree.path(tokens))
        context = [START, *tokens]
        assert np.abs(laws[TARGET] - softmax(pair.target.full_logits(context))[-1]).max() < 1e-12
        exit_law = softmax(pair.target.full_logits(context, depth=1))[-1]
        assert np.abs(laws[EXIT] - exit_law).max() < 1e-12
        assert np.abs(laws[SMALL] - softmax(pair.draft.full_logits(context))[-1]).max() < 1e-12
    # The teeth: a context one token short is another context, with other laws.
    short = tree.laws(tree.path(tokens[:-1]))
    assert np.abs(short[TARGET] - laws[TARGET]).max() > 1e-3


def test_a_contexts_rows_are_the_same_bits_whatever_computed_them() -> None:
    pair = tiny_pair()
    prompt = encode("the target verifies").tolist()
    one, batched = ContextTree(pair), ContextTree(pair, slots=320)
    base = batched.path(prompt)
    children, past = batched.extend([base] * 3, [5, 6, 7], None)
    grand, _ = batched.extend(children, [9, 9, 9], past)
    for j, t in enumerate((5, 6, 7)):
        alone = one.laws(one.path([*prompt, t, 9]))
        assert np.array_equal(alone, batched.laws(grand[j]))
    # Slots dropped (all 320 are full after two long walks) are recomputed to the same bits.
    for t in (10, 11):
        batched.laws(batched.path([*prompt, *([t] * 200)]))
    assert batched.nodes_held() < 320
    assert np.array_equal(batched.laws(grand[1]), one.laws(one.path([*prompt, 6, 9])))
    again, _ = batched.extend([grand[1]], [12], None)  # a gather across the dropped slots
    assert np.array_equal(batched.laws(again[0]), one.laws(one.path([*prompt, 6, 9, 12])))


@pytest.mark.parametrize("models", MODELS)
def test_a_request_is_a_pure_function_of_its_settings(models: str) -> None:
    s = Settings(models=models, match=0.3, seed=11)
    first = serve_request(s, cache=RequestCache())
    again = serve_request(s, cache=RequestCache())
    assert first.text == again.text and first.blocks == again.blocks


@pytest.mark.parametrize("models", MODELS)
def test_exact_given_text_verdicts_agree_with_served_requests(
    models: str, cache: RequestCache
) -> None:
    s = Settings(models=models, match=0.2, k=4, seed=5)
    exact = exact_ensemble(s, texts_for(s))
    served = serve_ensemble(s, 32, cache=cache)
    mean_exact = float(np.mean(exact.target_passes))
    served_passes = np.asarray(served.target_passes, dtype=float)
    half = 3 * served_passes.std(ddof=1) / np.sqrt(served_passes.size)
    assert abs(mean_exact - served_passes.mean()) <= half
    assert exact.alpha == pytest.approx(served.alpha, abs=0.03)
    # The teeth: another draft's acceptance is not this one's.
    other = "small-draft" if models == "early-exit" else "early-exit"
    s_other = s.model_copy(update={"models": other})
    assert exact_ensemble(s_other, texts_for(s_other)).alpha != pytest.approx(exact.alpha, abs=1e-6)


def test_the_match_slider_blends_the_draft_toward_the_target(cache: RequestCache) -> None:
    alphas = [
        serve_request(Settings(models="early-exit", match=m), cache=cache).totals.mean_alpha
        for m in (0.0, 0.5, 1.0)
    ]
    assert alphas[0] < alphas[1] < alphas[2] == pytest.approx(1.0)


def test_the_race_runs_on_the_transformers() -> None:
    raced = race(Settings(models="small-draft", tokens=24))
    assert {run.policy for run in raced.runs} >= {"fixed", "oracle"}
    assert all(sum(run.emitted) >= 24 for run in raced.runs)


def test_a_request_that_would_outrun_the_trained_positions_is_refused() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(models="early-exit", prompt="the draft " * 10, tokens=256, k=16)
    message = str(refused.value)
    assert "320 positions" in message and "tokens (256)" in message
    Settings(models="ngram", prompt="the draft " * 10, tokens=256, k=16)  # the n-grams: fine


def test_the_trained_positions_are_the_settings_limit() -> None:
    from witness.core.settings import TRANSFORMER_POSITIONS

    assert TRANSFORMER_POSITIONS == tiny_pair().target.config.context


def test_characters_are_shown_visibly() -> None:
    m = transformer_models("early-exit")
    ids, skipped = m.encode("Hi, GPU!")
    assert m.text(ids) == "hi, gpu" and skipped == ["!"]
    assert m.vocab[m.index[" "]] == "␣"


def test_a_new_generation_of_the_trie_never_reuses_a_node_id() -> None:
    pair = tiny_pair()
    tree = ContextTree(pair, nodes_max=30)
    old = tree.path(encode("the draft model proposes").tolist())  # 25 nodes
    laws = tree.laws(old)
    tree.path(encode("then the target").tolist())  # past 30: the next request starts anew
    fresh = tree.path(encode("the draft model proposes").tolist())
    assert fresh > old and np.array_equal(tree.laws(fresh), laws)
    # The teeth: an id from the dropped generation is refused, never read as another context.
    with pytest.raises(ContextDropped):
        tree.child(old, 5)
