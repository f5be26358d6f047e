"""The laws at one context: the blended draft, its sampling, and what alpha does with match."""

from __future__ import annotations

import numpy as np
import pytest

from tests.witness.served import emitted
from witness import Settings, acceptance_rate, serve_request
from witness.core.distributions import sample_from_cdf, sample_one
from witness.core.theory import total_variation
from witness.models.cache import RequestCache
from witness.models.laws import context_pair, draft_law
from witness.models.lm import BOUNDARY, tiny_models


def test_alpha_rises_with_match_on_fixed_contexts() -> None:
    models = tiny_models()
    trace = serve_request(Settings(match=0.0, tokens=40))
    prompt, _ = models.encode(Settings().prompt)
    out = emitted(trace)
    contexts = [prompt + out[:i] for i in range(20)]
    ms = np.linspace(0.0, 1.0, 21)
    for ctx in contexts:
        p, d = models.target(ctx), models.draft(ctx)
        alphas = np.array([acceptance_rate(p, m * p + (1 - m) * d) for m in ms])
        assert (np.diff(alphas) > 0).all()
        assert alphas[-1] == pytest.approx(1.0, abs=1e-12)


def test_draft_law_is_the_blend_and_reaches_p() -> None:
    models = tiny_models()
    p, d = models.target_row(0, 1), models.draft_row(1)
    assert np.array_equal(draft_law(1.0, p, d), p)
    assert np.array_equal(draft_law(0.0, p, d), d)
    assert np.array_equal(draft_law(0.3, p, d), 0.3 * p + (1.0 - 0.3) * d)


def test_a_law_samples_q_from_its_kept_cdf_as_sample_one_does() -> None:
    law = RequestCache().law(0.4, False, 3, 5, False)
    for u in [*np.linspace(0.0, 1.0 - 2.0**-53, 101), 1.0 - 2.0**-53]:
        assert sample_from_cdf(law.q, law.q_cdf, float(u)) == sample_one(law.q, float(u))


def test_a_law_knows_its_alpha_and_distances() -> None:
    law = RequestCache().law(0.4, False, 3, 5, False)
    assert law.alpha == pytest.approx(acceptance_rate(law.p, law.q), abs=1e-15)
    assert law.tv("lossless") <= 1e-12
    assert law.tv("no_verify") == total_variation(law.q, law.p)


def test_short_contexts_are_padded_with_boundaries() -> None:
    models = tiny_models()
    pad = models.index[BOUNDARY]
    assert context_pair(models, []) == (pad, pad)
    assert context_pair(models, [7]) == (pad, 7)
    assert context_pair(models, [3, 7, 9]) == (7, 9)
