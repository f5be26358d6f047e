"""The tiny models: small, strictly positive distributions that disagree."""

from __future__ import annotations

from witness import Settings, acceptance_rate
from witness.lm import tiny_models


def test_tiny_models_are_small_distributions() -> None:
    models = tiny_models()
    assert 300 <= models.size <= 3000
    assert len(models.vocab) == len(set(models.vocab)) == models.size
    prompt, _ = models.encode(Settings().prompt)
    for ctx in ([], prompt, prompt[:1], [0, 0], [models.size - 1, 3]):
        for row in (models.target(ctx), models.draft(ctx)):
            assert row.shape == (models.size,)
            assert (row > 0).all()
            assert abs(row.sum() - 1.0) <= 1e-12
    # The target reads two words of context, the draft one: they do disagree.
    assert acceptance_rate(models.target(prompt), models.draft(prompt)) < 0.99
