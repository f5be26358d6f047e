"""Exact oracles: hand-computed values of the rule, the laws and the cost model."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import witness.core.rule
import witness.models.simulate
from witness import (
    acceptance_rate,
    expected_speedup,
    expected_tokens_per_pass,
    optimal_k,
    output_distribution,
    residual,
    simulate_blocks,
    verify_block,
)
from witness.core.distributions import sample_inverse_cdf
from witness.core.rule import accepts
from witness.core.theory import speculation_pays, total_variation
from witness.models.simulate import run_blocks

P = np.array([0.1, 0.2, 0.3, 0.4])
Q = np.array([0.4, 0.3, 0.2, 0.1])
# min(1, p/q) per token, by hand: .1/.4, .2/.3, then capped at 1.
THRESHOLDS = [0.25, 2.0 / 3.0, 1.0, 1.0]
EDGES = [0.0, 0.5, 1.0 - 2.0**-53]  # the first, middle and last uniform the keys can give
EPS = 1e-9


def _one(token: int, u: float, u_repair: float = 0.0, **switches: bool):
    """A k = 1 block on the known pair that drafted ``token``."""
    return verify_block([P, P], [Q], [token], [u], u_repair, **switches)


@pytest.mark.parametrize(("token", "threshold"), list(enumerate(THRESHOLDS)))
def test_accept_threshold_is_min_one_ratio(token: int, threshold: float) -> None:
    below = max(threshold - EPS, 0.0)
    assert accepts(below, P[token], Q[token])
    assert _one(token, below).accepted == 1
    if threshold < 1.0:
        assert not accepts(threshold + EPS, P[token], Q[token])
        assert _one(token, threshold + EPS).first_rejection == 0
    else:  # p >= q: even the largest uniform the keys can give is accepted
        assert _one(token, 1.0 - 2.0**-53).accepted == 1


def test_accept_test_is_strict() -> None:
    # .1/.4 = .25 is exact in binary, so u = .25 sits on the threshold and is rejected;
    # a uniform of 0 never accepts a token p gives no mass.
    assert not accepts(0.25, 0.1, 0.4)
    assert accepts(0.0, 1e-300, 0.4)
    assert not accepts(0.0, 0.0, 0.4)


def test_known_pair_exact_laws() -> None:
    assert acceptance_rate(P, Q) == pytest.approx(0.6, abs=1e-12)
    assert total_variation(P, Q) == pytest.approx(0.4, abs=1e-12)
    assert_allclose(residual(P, Q), [0.0, 0.0, 0.25, 0.75], atol=1e-12)
    assert_allclose(output_distribution(P, Q), P, atol=1e-12)
    # min(p, q) + 0.4 p = [.1+.04, .2+.08, .2+.12, .1+.16]
    assert_allclose(output_distribution(P, Q, repair=False), [0.14, 0.28, 0.32, 0.26], atol=1e-12)
    assert_allclose(output_distribution(P, Q, verify=False), Q, atol=1e-12)
    assert_allclose(output_distribution(P, Q, verify=False, repair=False), Q, atol=1e-12)


def test_rejection_is_repaired_from_the_residual_by_inverse_cdf() -> None:
    # Token 0 drafted, u = .9 > .25: rejected. Residual CDF [0, 0, .25, 1].
    assert _one(0, 0.9, u_repair=0.0).emitted == (2,)
    assert _one(0, 0.9, u_repair=0.2499).emitted == (2,)
    assert _one(0, 0.9, u_repair=0.25).emitted == (3,)
    assert _one(0, 0.9, u_repair=0.0, repair=False).emitted == (0,)  # from p: CDF [.1, ...]
    done = _one(0, 0.9, u_repair=0.95)
    assert (done.accepted, done.first_rejection, done.repair_token, done.bonus_token) == (
        0,
        0,
        3,
        None,
    )


def test_bonus_token_comes_from_the_last_target_row() -> None:
    last = np.array([0.0, 0.0, 0.0, 1.0])
    result = verify_block([P, P, last], [Q, Q], [2, 3], [0.99, 0.99], 0.0)
    assert result.emitted == (2, 3, 3)
    assert (result.accepted, result.first_rejection, result.bonus_token) == (2, None, 3)
    unchecked = verify_block([P, P, last], [Q, Q], [0, 0], [0.99, 0.99], 0.0, verify=False)
    assert unchecked.emitted == (0, 0)
    assert not unchecked.verified


def test_cost_model_known_values() -> None:
    assert expected_tokens_per_pass(0.8, 4) == pytest.approx(3.3616, rel=1e-12)
    assert expected_speedup(0.8, 4, 0.05) == pytest.approx(2.801333, rel=1e-6)
    assert expected_tokens_per_pass(0.5, 1) == pytest.approx(1.5, rel=1e-12)
    assert optimal_k(0.8, 0.05) == 8
    assert optimal_k(0.8, 0.05, 4) == 4  # k_max caps the search


@pytest.mark.parametrize(
    ("alpha", "c", "k_max", "expected"),
    [
        (1.0, 1.0, 32, 1),  # every k gives exactly 1: the smallest wins
        (0.0, 1.0, 32, 1),
        (0.0, 0.0, 32, 1),  # all ties again
        (0.5, 0.2, 32, 1),  # k = 1 and k = 2 both give 1.25
        (1.0, 0.0, 16, 16),  # free drafting, perfect match: as long as allowed
    ],
)
def test_optimal_k_ties_go_to_the_smaller_k(alpha, c, k_max, expected) -> None:
    assert optimal_k(alpha, c, k_max) == expected


def test_tie_case_is_really_a_tie() -> None:
    s = np.asarray(expected_speedup(0.5, [1, 2, 3], 0.2))
    assert_allclose(s[:2], [1.25, 1.25], rtol=1e-12)
    assert s[2] < 1.25


def test_speculation_pays_edge() -> None:
    assert not speculation_pays(0.3, 0.3)
    assert speculation_pays(0.3 + 1e-9, 0.3)
    assert not speculation_pays(0.2, 0.9)
    assert expected_speedup(0.3, 1, 0.3) == pytest.approx(1.0, abs=1e-15)


def _raise(*args, **kwargs):
    raise AssertionError("the residual was computed for p = q")


@pytest.mark.parametrize("p", [P, np.array([0.5, 0.5, 0.0, 0.0]), np.array([1.0])])
def test_p_equals_q_never_needs_the_residual(monkeypatch, p) -> None:
    monkeypatch.setattr(witness.core.rule, "residual_unchecked", _raise)
    rows = [p] * 4
    support = np.flatnonzero(p)
    for draft in itertools.product(support, repeat=3):
        for u in itertools.product(EDGES, repeat=3):
            r = verify_block(rows, rows[:3], draft, u, 1.0 - 2.0**-53)
            assert r.accepted == 3
            assert r.first_rejection is None
    sim = run_blocks(p, p, 4, 50_000, seed=3, repair_law=_raise)
    assert (sim.tokens_per_block == 5).all()
    monkeypatch.setattr(witness.models.simulate, "residual", _raise)
    assert simulate_blocks(p, p, 2, 20_000, seed=4).mean_tokens_per_block == 3.0
    monkeypatch.undo()
    r = residual(p, p)
    assert np.isfinite(r).all()
    assert_allclose(r.sum(), 1.0, atol=1e-12)


PZ = np.array([0.5, 0.5, 0.0, 0.0])
QZ = np.array([0.0, 0.5, 0.25, 0.25])


@pytest.mark.parametrize("k", [1, 2])
def test_tokens_p_never_emits_are_never_emitted(k: int) -> None:
    p_rows, q_rows = [PZ] * (k + 1), [QZ] * k
    for draft in itertools.product([1, 2, 3], repeat=k):
        for u in itertools.product(EDGES, repeat=k):
            for u_repair in EDGES:
                r = verify_block(p_rows, q_rows, draft, u, u_repair)
                assert set(r.emitted) <= {0, 1}, (draft, u, u_repair, r)
    sim = simulate_blocks(PZ, QZ, 4, 50_000, seed=11)
    assert_array_equal(sim.first_token_counts[2:], [0, 0])
    assert sim.first_token_counts[:2].min() > 0
    assert_array_equal(sample_inverse_cdf(PZ, EDGES), [0, 1, 1])


def test_drafted_token_with_p_zero_is_rejected_even_at_u_zero() -> None:
    r = verify_block([PZ, PZ], [QZ], [2], [0.0], 0.0)
    assert (r.accepted, r.first_rejection, r.emitted) == (0, 0, (0,))


def test_one_token_vocabulary() -> None:
    one = np.array([1.0])
    assert acceptance_rate(one, one) == 1.0
    assert_array_equal(output_distribution(one, one, repair=False), one)
    r = verify_block([one] * 4, [one] * 3, [0, 0, 0], EDGES, EDGES[-1])
    assert r.emitted == (0, 0, 0, 0)
    sim = simulate_blocks(one, one, 3, 1000, seed=0)
    assert_array_equal(sim.first_token_counts, [1000])
    assert (sim.tokens_per_block == 4).all()


def test_disjoint_supports_emit_one_token_from_p_per_block() -> None:
    p = np.array([0.25, 0.75, 0.0, 0.0])
    q = np.array([0.0, 0.0, 0.5, 0.5])
    assert acceptance_rate(p, q) == 0.0
    assert_allclose(residual(p, q), p, atol=1e-15)
    assert_allclose(output_distribution(p, q), p, atol=1e-15)
    assert_allclose(output_distribution(p, q, repair=False), p, atol=1e-15)
    assert expected_tokens_per_pass(0.0, 7) == 1.0
    sim = simulate_blocks(p, q, 5, 40_000, seed=2)
    assert (sim.tokens_per_block == 1).all()
    assert_array_equal(sim.first_token_counts[2:], [0, 0])
    # 40 000 draws of Bernoulli(.25): 4 standard errors is about 0.0087.
    assert sim.first_token_counts[0] / sim.n == pytest.approx(0.25, abs=0.0087)


def test_k_equal_one() -> None:
    assert expected_tokens_per_pass(0.6, 1) == pytest.approx(1.6, rel=1e-12)
    sim = simulate_blocks(P, Q, 1, 20_000, seed=5)
    assert set(np.unique(sim.tokens_per_block)) == {1, 2}
    r = verify_block([P, P], [Q], [3], [0.7], 0.0)
    assert r.emitted == (3, 0)


def test_one_alpha_and_k_answer_exactly_what_the_array_path_does() -> None:
    """The views ask one (α, k, c) at a time; that path must give the array path's bits."""
    from witness.core.theory import expected_speedup, expected_tokens_per_pass

    rng = np.random.default_rng(29)
    for a in [0.0, 1.0, 1 - 1e-12, *rng.random(60).tolist()]:
        for k in [*range(0, 18), 300, 1024]:
            row = expected_tokens_per_pass(np.array([a]), np.array([k]))
            assert expected_tokens_per_pass(a, k) == float(np.asarray(row)[0])
            for c in (0.0, 0.1, 0.45, 1.0):
                row = expected_speedup(np.array([a]), np.array([k]), np.array([c]))
                assert expected_speedup(a, k, c) == float(np.asarray(row)[0])


def test_teeth_the_closed_quotient_is_not_the_series_bit_for_bit() -> None:
    """(1 − α^(k+1)) / (1 − α) is the same number on paper; in floats it differs from the
    summed series at some α, so the comparison above would catch another formula."""
    from witness.core.theory import expected_tokens_per_pass

    rng = np.random.default_rng(29)
    differ = sum(
        (1 - a ** (k + 1)) / (1 - a) != expected_tokens_per_pass(a, k)
        for a in rng.random(60).tolist()
        for k in range(1, 18)
    )
    assert differ > 0
