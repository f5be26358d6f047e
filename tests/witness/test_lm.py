"""The tiny models: small, strictly positive distributions that disagree."""

from __future__ import annotations

import numpy as np

from witness import Settings, acceptance_rate
from witness.models.laws import FloatArray
from witness.models.lm import TARGET_WEIGHTS, TinyModels, tiny_models


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


def _formula_row(models: TinyModels, before: int, prev: int) -> FloatArray:
    """p(. | before, prev) written out from the counts, as the fit defines it: the trigram's
    share only where the corpus has that context."""
    w_tri, w_bi, w_uni, w_flat = TARGET_WEIGHTS
    bigram = models._bigram[prev]
    bi = bigram / bigram.sum() if bigram.sum() > 0 else models.unigram
    row = w_bi * bi + w_uni * models.unigram + w_flat / models.size
    seen = models._trigram.get(before * models.size + prev)
    if seen is not None:
        nxt, cnt = seen
        row[nxt] += w_tri * cnt / cnt.sum()
    out: FloatArray = row / row.sum()
    return out


def _contexts(models: TinyModels) -> list[tuple[int, int]]:
    """Every context the corpus has a trigram for, and 2 000 drawn from all V² pairs."""
    v = models.size
    seen = [(c // v, c % v) for c in models._trigram]
    rng = np.random.default_rng(8)
    drawn = [(int(b), int(p)) for b, p in rng.integers(0, v, size=(2000, 2))]
    return seen + drawn


def test_the_row_tables_hold_every_context_bit_for_bit() -> None:
    # The tables are the models (every request reads them): each row must be exactly the
    # fitted formula's, seen contexts and the unseen ones that share their last word's row.
    models = tiny_models()
    contexts = _contexts(models)
    assert models.target_rows.shape == (models.size + len(models._trigram), models.size)
    for before, prev in contexts:
        row = models.target_row(before, prev)
        assert np.array_equal(row, _formula_row(models, before, prev)), (before, prev)
        assert np.array_equal(models.target_rows[models.row_of[before, prev]], row)
    for prev in range(models.size):
        assert models.draft_row(prev) is models.draft([prev])
    for table in (models.target_rows, models.row_of, models.draft_rows):
        assert not table.flags.writeable


def test_teeth_a_table_that_drops_the_trigram_fails_the_bit_for_bit_check() -> None:
    # Break the tables the way a careless fit would (every context on its last word's row):
    # the formula check must then fail on the seen contexts.
    models = tiny_models()
    broken = object.__new__(TinyModels)
    broken.__dict__.update(models.__dict__, _seen_row={})
    mismatched = [
        (b, p)
        for b, p in _contexts(models)
        if not np.array_equal(broken.target_row(b, p), _formula_row(models, b, p))
    ]
    assert len(mismatched) >= len(models._trigram)
