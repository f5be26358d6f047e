"""The numpy transformers' KV caches: incremental, multi-position and rolled-back passes
agree with recomputing everything, and the early exit is the target's first layer."""

from __future__ import annotations

import numpy as np
import pytest

from witness.neural.cache import KVCache
from witness.neural.model import DRAFT, TARGET, Config, EarlyExit, Transformer, parameter_shapes
from witness.neural.speculate import speculative_decode

TOLERANCE = 1e-6


def random_model(config: Config, seed: int) -> Transformer:
    """Weights large enough that attention is far from uniform, so positions matter."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in parameter_shapes(config).items():
        if name.endswith("norm"):
            params[name] = 1.0 + 0.1 * rng.standard_normal(shape)
        else:
            params[name] = 0.4 * rng.standard_normal(shape)
    return Transformer(config, params)


class SkippedRollback(KVCache):
    """A cache that forgets to discard rejected rows."""

    def truncate(self, length: int) -> None:
        pass


def cached_rows(model: Transformer, cache: KVCache, tokens: np.ndarray, seed: int) -> np.ndarray:
    """Feed `tokens` in chunks of 1 to 5 positions; after most chunks also feed 1 to 4 junk
    tokens and roll them back, as a verifier does with rejected drafts. Returns the logits of
    the real tokens, in order."""
    rng = np.random.default_rng(seed)
    rows = []
    i = 0
    while i < tokens.size:
        n = int(rng.integers(1, 6))
        rows.append(model.forward_logits(tokens[i : i + n], cache))
        i += n
        if i < tokens.size and rng.random() < 0.7:
            junk = rng.integers(0, model.config.vocab, size=int(rng.integers(1, 5)))
            model.forward_logits(junk, cache)
            cache.rollback(junk.size)
    return np.concatenate(rows)


@pytest.mark.parametrize("config", [TARGET, DRAFT], ids=["target", "draft"])
def test_cached_passes_with_rollbacks_agree_with_full_recomputation(config: Config) -> None:
    model = random_model(config, seed=1)
    tokens = np.random.default_rng(2).integers(0, config.vocab, size=150)
    full = model.full_logits(tokens)
    cache = model.new_cache()
    incremental = cached_rows(model, cache, tokens, seed=3)
    assert incremental.shape == full.shape == (150, config.vocab)
    np.testing.assert_allclose(incremental, full, atol=TOLERANCE, rtol=0)
    assert cache.length == 150  # grown past its first capacity of 64
    # A fresh cache fed everything at once is the same pass as the full one.
    np.testing.assert_allclose(model.forward_logits(tokens, model.new_cache()), full, atol=1e-12)


def test_a_cache_that_skips_its_rollback_disagrees() -> None:
    model = random_model(TARGET, seed=1)
    tokens = np.random.default_rng(2).integers(0, TARGET.vocab, size=60)
    full = model.full_logits(tokens)
    cache = SkippedRollback(TARGET.n_layers, TARGET.n_heads, TARGET.head_dim, TARGET.d_model)
    incremental = cached_rows(model, cache, tokens, seed=3)
    assert np.abs(incremental - full).max() > 1e-2


def test_rollback_drops_positions_from_every_layer() -> None:
    model = random_model(TARGET, seed=4)
    cache = model.new_cache()
    model.forward([1, 2, 3, 4, 5], cache)
    EarlyExit(model).forward([6, 7], cache)
    assert cache.lengths == [7, 5, 5, 5]
    assert (cache.length, cache.ahead) == (5, 7)
    cache.rollback(2)
    assert cache.lengths == [3, 3, 3, 3]
    with pytest.raises(ValueError, match="roll back"):
        cache.rollback(4)


def test_early_exit_equals_the_targets_first_layer_computed_in_full() -> None:
    target = random_model(TARGET, seed=5)
    tokens = np.random.default_rng(6).integers(0, TARGET.vocab, size=40)
    exit_full = target.full_logits(tokens, depth=TARGET.exit_layer)
    early = EarlyExit(target)
    cache = target.new_cache()
    rows = [early.forward(tokens[:10], cache)]
    rows += [early.forward(tokens[i : i + 1], cache) for i in range(10, 40)]
    np.testing.assert_allclose(np.concatenate(rows), _softmax(exit_full), atol=1e-12)
    # The draft ran only the first layer; the target's pass reuses those rows and fills the rest.
    assert cache.lengths == [40, 0, 0, 0]
    np.testing.assert_allclose(
        target.forward_logits(tokens, cache), target.full_logits(tokens), atol=TOLERANCE, rtol=0
    )
    # Rows made for other tokens are never reused.
    cache.truncate(30)
    early.forward([1, 2, 3], cache)
    with pytest.raises(ValueError, match="other tokens"):
        target.forward_logits([3, 2, 1, 0], cache)


def test_speculative_decoding_leaves_caches_that_match_the_text() -> None:
    target = random_model(TARGET, seed=7)
    draft = random_model(DRAFT, seed=8)
    prompt = [5, 6, 7, 1, 9, 10]
    for drafter in (EarlyExit(target), draft):
        decoded = speculative_decode(target, drafter, prompt, 30, 4, np.random.default_rng(9))
        assert len(decoded.tokens) >= 30
        assert decoded.passes == len(decoded.accepted) and all(
            0 <= a <= 4 for a in decoded.accepted
        )
        assert sum(a + 1 for a in decoded.accepted) == len(decoded.tokens)
        # The caches rolled back pass after pass hold exactly the rows a fresh pass over the
        # committed text computes (all but the pending last token).
        text = prompt + decoded.tokens
        assert decoded.target_cache is not None and decoded.draft_cache is not None
        checks = [(target, decoded.target_cache)]
        if drafter is draft:
            checks.append((draft, decoded.draft_cache))
        else:
            assert decoded.draft_cache is decoded.target_cache
        for model, cache in checks:
            fresh = model.new_cache()
            model.forward(text[:-1], fresh)
            held = cache.length
            assert len(text) - 1 - 4 <= held <= len(text) - 1
            for layer in range(fresh.n_layers):
                np.testing.assert_allclose(
                    cache.keys[layer][:, :held], fresh.keys[layer][:, :held], atol=TOLERANCE
                )
                np.testing.assert_allclose(
                    cache.values[layer][:, :held], fresh.values[layer][:, :held], atol=TOLERANCE
                )
            assert cache.tokens[:held].tolist() == text[:held]
        assert decoded.tokens_per_pass == pytest.approx(len(decoded.tokens) / decoded.passes)


def test_forward_gives_distributions_at_a_temperature() -> None:
    model = random_model(DRAFT, seed=10)
    cool = model.forward([3, 4, 5], model.new_cache(), temperature=0.5)
    warm = model.forward([3, 4, 5], model.new_cache(), temperature=2.0)
    for rows in (cool, warm):
        assert (rows >= 0).all()
        np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-12)
    # Cooler is more peaked.
    assert (cool.max(axis=1) > warm.max(axis=1)).all()
    with pytest.raises(ValueError, match="temperature"):
        model.forward([1], model.new_cache(), temperature=0.0)


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def test_passes_beyond_the_trained_context_are_refused() -> None:
    model = random_model(DRAFT, seed=11)
    cache = model.new_cache()
    model.forward_logits(np.zeros(DRAFT.context - 1, dtype=np.int64), cache)
    model.forward_logits([1], cache)
    with pytest.raises(ValueError, match="knows 320"):
        model.forward_logits([2], cache)
    with pytest.raises(ValueError, match="knows 320"):
        model.full_logits(np.zeros(DRAFT.context + 1, dtype=np.int64))
