"""Properties that hold for every (p, q), k and uniform: hypothesis, derandomised."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from tests.witness.strategies import PROPERTY, alphas, blocks, costs, ks, pairs
from witness import (
    acceptance_rate,
    expected_speedup,
    expected_tokens_per_pass,
    optimal_k,
    output_distribution,
    residual,
    verify_block,
)
from witness.core.theory import speculation_pays

SWITCHES = [(True, True), (True, False), (False, True)]


@PROPERTY
@given(pairs())
def test_every_output_law_is_a_distribution(pq) -> None:
    p, q = pq
    for verify, repair in SWITCHES:
        law = output_distribution(p, q, verify=verify, repair=repair)
        assert law.shape == p.shape
        assert (law >= 0).all()
        assert abs(law.sum() - 1.0) <= 1e-12


@PROPERTY
@given(pairs())
def test_lossless_law_is_p(pq) -> None:
    p, q = pq
    assert_allclose(output_distribution(p, q), p, rtol=0, atol=1e-12)


@PROPERTY
@given(pairs())
def test_no_repair_law_matches_the_table(pq) -> None:
    p, q = pq
    alpha = np.minimum(p, q).sum()
    expected = np.minimum(p, q) + (1.0 - alpha) * p
    assert_allclose(output_distribution(p, q, repair=False), expected, rtol=0, atol=1e-12)
    assert_allclose(output_distribution(p, q, verify=False), q, rtol=0, atol=1e-12)


@PROPERTY
@given(pairs())
def test_acceptance_rate_is_one_minus_total_variation(pq) -> None:
    p, q = pq
    tv = 0.5 * np.abs(p - q).sum()
    alpha = acceptance_rate(p, q)
    assert abs(alpha - (1.0 - tv)) <= 1e-12
    assert 0.0 <= alpha <= 1.0 + 1e-12


@PROPERTY
@given(pairs())
def test_residual_is_a_distribution_on_the_excess(pq) -> None:
    p, q = pq
    r = residual(p, q)
    assert np.isfinite(r).all()
    assert (r >= 0).all()
    assert abs(r.sum() - 1.0) <= 1e-12
    if (p > q).any():  # a rejection is possible: the repair only adds where p exceeds q
        assert (r[p <= q] == 0.0).all()
        excess = np.maximum(p - q, 0.0)
        assert_allclose(r, excess / excess.sum(), rtol=0, atol=1e-12)


@PROPERTY
@given(ks)
def test_tokens_per_pass_at_the_extremes(k: int) -> None:
    assert expected_tokens_per_pass(1.0, k) == k + 1
    assert expected_tokens_per_pass(0.0, k) == 1.0


@PROPERTY
@given(alphas, alphas, ks)
def test_tokens_per_pass_increases_with_alpha_and_k(a1: float, a2: float, k: int) -> None:
    lo, hi = sorted((a1, a2))
    assert expected_tokens_per_pass(lo, k) <= expected_tokens_per_pass(hi, k)
    assert expected_tokens_per_pass(hi, k) <= expected_tokens_per_pass(hi, k + 1)
    if hi - lo > 1e-6:
        assert expected_tokens_per_pass(lo, k) < expected_tokens_per_pass(hi, k)
    if hi ** (k + 1) > 1e-12:
        assert expected_tokens_per_pass(hi, k) < expected_tokens_per_pass(hi, k + 1)
    if hi < 0.99:  # away from 1 the closed form is well conditioned
        closed = (1.0 - hi ** (k + 1)) / (1.0 - hi)
        assert expected_tokens_per_pass(hi, k) == pytest.approx(closed, rel=1e-12)


@PROPERTY
@given(alphas, costs, st.integers(1, 32))
def test_optimal_k_maximises_the_speedup(alpha: float, c: float, k_max: int) -> None:
    ks_all = np.arange(1, k_max + 1)
    # The spec's sum, sum_{j <= k} alpha^j, written out independently of the witness.
    tokens = np.array([sum(alpha**j for j in range(k + 1)) for k in ks_all])
    s = tokens / (ks_all * c + 1.0)
    best = optimal_k(alpha, c, k_max)
    assert 1 <= best <= k_max
    assert s[best - 1] >= s.max() - 1e-11
    # Exact ties (the smaller k wins) are pinned in test_known_values.
    assert expected_speedup(alpha, best, c) == pytest.approx(s[best - 1], rel=1e-9)


@PROPERTY
@given(alphas, costs)
def test_speculation_pays_exactly_when_some_k_beats_plain_decoding(alpha, c) -> None:
    best = np.asarray(expected_speedup(alpha, np.arange(1, 33), c)).max()
    if abs(alpha - c) > 1e-9:
        assert speculation_pays(alpha, c) == (best > 1.0)
    if alpha <= c:
        assert not speculation_pays(alpha, c)
        assert best <= 1.0 + 1e-12


@PROPERTY
@given(blocks())
def test_verify_block_emits_the_accepted_prefix_and_one_more(args) -> None:
    p, q, draft, u = args["p_rows"], args["q_rows"], args["draft"], args["u"]
    k = len(draft)
    r = verify_block(**args)
    ratio_ok = u * q[np.arange(k), draft] < p[np.arange(k), draft]
    # The accepted prefix is exactly the run of passed ratio tests.
    expected_accepted = k if ratio_ok.all() else int(np.argmin(ratio_ok))
    assert r.accepted == expected_accepted
    assert len(r.emitted) == r.accepted + 1
    assert list(r.emitted[: r.accepted]) == draft[: r.accepted].tolist()
    last = r.emitted[-1]
    if r.accepted < k:
        assert r.first_rejection == r.accepted
        assert r.repair_token == last
        assert r.bonus_token is None
        assert residual(p[r.accepted], q[r.accepted])[last] > 0
    else:
        assert r.first_rejection is None
        assert r.bonus_token == last
        assert r.repair_token is None
        assert p[k, last] > 0
    no_repair = verify_block(**args, repair=False)
    assert no_repair.accepted == r.accepted
    assert p[min(r.accepted, k), no_repair.emitted[-1]] > 0


@PROPERTY
@given(blocks())
def test_verify_off_emits_the_draft_unchecked(args) -> None:
    r = verify_block(**args, verify=False)
    assert r.emitted == tuple(args["draft"].tolist())
    assert len(r.emitted) == len(args["draft"])
    assert r.first_rejection is None
    assert r.repair_token is None
    assert r.bonus_token is None
    assert not r.verified
