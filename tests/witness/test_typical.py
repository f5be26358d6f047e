"""Typical acceptance (Medusa): the bar, its exact law, and the evidence that it is biased.

Unlike the exact rule it keeps no promise about p, so its tests pin the law it does have
(hand values, a brute-force enumeration, a seeded chi-square) and, as teeth, show that same
evidence rejecting p where the two differ.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from tests.witness.drafted import drafted_sequences
from tests.witness.strategies import PROPERTY, distributions, pairs, small_pairs
from witness import Settings
from witness.core.keys import Stream, block_uniforms, sibling_uniforms
from witness.core.theory import total_variation
from witness.judge.evaluation import chi_square_against, first_position
from witness.methods.sibling_laws import _exact
from witness.methods.siblings import DRAFTINGS, SiblingResult, draft_siblings
from witness.methods.typical import (
    DELTA,
    EPSILON,
    _greedy,
    _typical_step,
    typical_acceptance,
    typical_accepts,
    typical_distribution,
    typical_law_and_acceptance,
    typical_threshold,
    verify_typical,
)
from witness.models.cache import RequestCache

P = np.array([0.1, 0.2, 0.3, 0.4])
Q = np.array([0.4, 0.3, 0.2, 0.1])
# A confident target (bar = epsilon = .09) with one atypical token q likes.
SKEW = (np.array([0.02, 0.5, 0.48]), np.array([0.6, 0.1, 0.3]))
LEVEL = 1e-3


def _entropy(p) -> float:
    return -sum(x * math.log(x) for x in p if x > 0)


def test_known_threshold() -> None:
    assert (EPSILON, DELTA) == (0.09, 0.3)
    h = _entropy(P)  # 1.2799 nats
    assert typical_threshold(P) == pytest.approx(min(0.09, 0.3 * math.exp(-h)), abs=1e-15)
    assert typical_threshold(P) == pytest.approx(0.08342335, abs=1e-8)  # below the cap
    assert typical_threshold([0.0, 1.0]) == 0.09  # 0 log 0 = 0: H = 0, the cap
    assert typical_threshold(np.full(100, 0.01)) == pytest.approx(0.003, rel=1e-12)  # δ / V
    assert typical_threshold(P, epsilon=0.05) == 0.05
    assert typical_threshold(P, delta=0.0) == 0.0


def test_the_bar_is_strict() -> None:
    p = [0.25, 0.75]
    # epsilon = .25 puts the bar exactly on p(0): not above it, so not typical.
    assert not typical_accepts(p, 0, epsilon=0.25, delta=10.0)
    assert typical_accepts(p, 1, epsilon=0.25, delta=10.0)
    assert not typical_accepts([0.0, 1.0], 0, epsilon=0.0, delta=0.0)  # p = 0 never is
    assert [typical_accepts(P, x) for x in range(4)] == [True] * 4


def test_known_pair_accepts_every_token_so_the_law_is_q() -> None:
    law = typical_distribution(P, Q)
    assert_allclose(law, Q, rtol=0, atol=1e-15)
    assert total_variation(law, P) == pytest.approx(0.4, abs=1e-12)
    assert typical_acceptance(P, Q) == pytest.approx(1.0, abs=1e-15)
    # Every sibling is typical, so the first one is emitted: q, or q's argmax for top.
    for n in (2, 3):
        assert_allclose(typical_distribution(P, Q, n=n), Q, atol=1e-15)
        assert_allclose(typical_distribution(P, Q, n=n, drafting="distinct"), Q, atol=1e-15)
        assert_array_equal(typical_distribution(P, Q, n=n, drafting="top"), [1, 0, 0, 0])


def test_skewed_pair_by_hand() -> None:
    p, q = SKEW
    assert typical_threshold(p) == 0.09  # 0.3 exp(-H) = 0.14 is above the cap
    # One sibling: q on {1, 2}, and q(0) = .6 goes to the argmax, token 1.
    assert_allclose(typical_distribution(p, q), [0.0, 0.7, 0.3], atol=1e-15)
    # Two samples: both atypical with .36.
    assert_allclose(typical_distribution(p, q, n=2), [0.0, 0.16 + 0.36, 0.48], atol=1e-15)
    assert typical_acceptance(p, q, n=2) == pytest.approx(0.64, abs=1e-15)
    # Distinct: after token 0 the second sibling is typical for sure.
    assert_allclose(typical_distribution(p, q, n=2, drafting="distinct"), [0, 0.25, 0.75])
    assert typical_acceptance(p, q, n=2, drafting="distinct") == pytest.approx(1.0)
    # Top: q's favourite is token 0 (atypical), then token 2.
    assert_array_equal(typical_distribution(p, q, drafting="top"), [0, 1, 0])
    assert_array_equal(typical_distribution(p, q, n=2, drafting="top"), [0, 0, 1])


def _brute_force(p, q, n, drafting, epsilon=EPSILON, delta=DELTA):
    """Every drafted sequence, its probability, and the token the rule emits for it."""
    bar = min(epsilon, delta * math.exp(-_entropy(p)))
    law = np.zeros(len(p))
    for seq, prob in drafted_sequences(q, n, drafting):
        typical = [x for x in seq if p[x] > bar]
        law[typical[0] if typical else int(np.argmax(p))] += prob
    return law


@PROPERTY
@given(small_pairs(5), st.integers(1, 3), st.sampled_from([(EPSILON, DELTA), (0.3, 1.0)]))
def test_exact_law_matches_the_brute_force_enumeration(pq, n, bar) -> None:
    p, q = pq
    epsilon, delta = bar
    for drafting in DRAFTINGS:
        law = typical_distribution(p, q, epsilon=epsilon, delta=delta, n=n, drafting=drafting)
        expected = _brute_force(p, q, n, drafting, epsilon, delta)
        assert_allclose(law, expected, rtol=0, atol=1e-12)
        assert abs(law.sum() - 1.0) <= 1e-12 and (law >= 0).all()
        # Accepted exactly when the emitted token came from a typical sibling.
        none = 1.0 - typical_acceptance(p, q, epsilon=epsilon, delta=delta, n=n, drafting=drafting)
        assert law[np.argmax(p)] >= none - 1e-12


@PROPERTY
@given(distributions(), st.integers(0, 11), st.integers(1, 4))
def test_a_greedy_target_is_kept(q, y, n) -> None:
    """With a one-hot p the rule emits p's token whatever is drafted: lossless there only."""
    p = np.zeros_like(q)
    p[y % q.size] = 1.0
    for drafting in DRAFTINGS:
        assert_allclose(typical_distribution(p, q, n=n, drafting=drafting), p, atol=1e-12)


def test_verify_typical_records_each_test() -> None:
    p, q = SKEW
    r = verify_typical(p, q, [0, 2], 0.5)
    assert isinstance(r, SiblingResult)
    assert (r.accepted, r.token, r.law) == (1, 2, None)
    assert [(t.token, t.p, t.q, t.u, t.accepted) for t in r.tests] == [
        (0, 0.02, 0.6, 0.0, False),
        (2, 0.48, 0.3, 0.0, True),
    ]
    # q′ as drafted: without token 0, token 2 had .3 / .4 of q; for top, a point mass.
    assert verify_typical(p, q, [0, 2], 0.5, drafting="distinct").tests[1].q == pytest.approx(0.75)
    assert [t.q for t in verify_typical(p, q, [0, 2], 0.5, drafting="top").tests] == [1.0, 1.0]
    none = verify_typical(p, q, [0], 0.99)
    assert (none.accepted, none.token) == (None, 1)  # the argmax, u_final unused
    assert_array_equal(none.law, [0, 1, 0])
    assert verify_typical(p, q, [0], 0.0) == none


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"drafts": [3]}, "^drafts must be token ids in 0..2"),
        ({"drafts": [0.5]}, "^drafts must be integer"),
        ({"u_final": 1.0}, "^u_final must hold uniforms"),
        ({"q": [0.5, 0.5]}, "^p and q need the same vocabulary"),
        ({"drafting": "beam"}, "^drafting must be one of"),
        ({"epsilon": -0.1}, "^epsilon must be a finite, non-negative number"),
        ({"delta": math.inf}, "^delta must be"),
    ],
)
def test_verify_typical_refuses_bad_input(change, match) -> None:
    args = {"p": SKEW[0], "q": SKEW[1], "drafts": [0, 2], "u_final": 0.5} | change
    with pytest.raises(ValueError, match=match):
        verify_typical(**args)


def test_typical_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="^x must be a token id in 0..3"):
        typical_accepts(P, 4)
    with pytest.raises(ValueError, match="^p must sum to 1"):
        typical_threshold([0.5, 0.6])
    with pytest.raises(ValueError, match="^n must be a positive integer"):
        typical_distribution(P, Q, n=0)
    with pytest.raises(ValueError, match="^epsilon"):
        typical_distribution(P, Q, epsilon=math.nan)


# --------------------------------------------------------------- seeded sampled evidence

N = 5_000  # a block costs two validated calls; p(0) = .02 still expects 100 draws
SEED = 20240


def _sampled(p, q, n, drafting) -> np.ndarray:
    """Tokens from `draft_siblings` + `verify_typical` on the keyed uniforms, block by block."""
    u_draft = sibling_uniforms(SEED, N, 1, n, Stream.DRAFT)[:, 0]
    u_final = block_uniforms(SEED, N, 1, Stream.FINAL)[:, 0]
    tokens = [
        verify_typical(p, q, draft_siblings(q, n, u_draft[b], drafting=drafting), u_final[b]).token
        for b in range(N)
    ]
    return np.bincount(tokens, minlength=len(p))


@pytest.mark.slow
@pytest.mark.parametrize("drafting", ["sample", "distinct"])
def test_sampled_tokens_follow_the_typical_law_not_p(drafting) -> None:
    p, q = SKEW
    counts = _sampled(p, q, 2, drafting)
    law = typical_distribution(p, q, n=2, drafting=drafting)
    assert chi_square_against(counts, law).p_value > LEVEL
    # Teeth: the same counts against p, which typical acceptance does not keep.
    assert chi_square_against(counts, p).p_value < LEVEL


# ----------------------------------------------------- two distinct siblings, closed form


def _agree(p, q, n, epsilon=EPSILON, delta=DELTA) -> None:
    law, beta = typical_law_and_acceptance(
        p, q, epsilon=epsilon, delta=delta, n=n, drafting="distinct"
    )
    typical = p > typical_threshold(p, epsilon=epsilon, delta=delta)
    ref_law, ref_beta = _exact(_greedy(p), q, n, "distinct", _typical_step(typical))
    assert_allclose(law, ref_law, rtol=0, atol=1e-12)
    assert beta == pytest.approx(ref_beta, abs=1e-12)


@PROPERTY
@given(pairs(), st.integers(2, 4), st.sampled_from([(EPSILON, DELTA), (0.3, 1.0), (1.0, 0.0)]))
def test_two_distinct_siblings_closed_form_is_the_enumeration(pq, n, bar) -> None:
    p, q = pq
    if n > 2 and np.count_nonzero(q) > 2:
        n = 2
    _agree(p, q, n, *bar)


@pytest.mark.parametrize("match", [0.0, 0.6, 1.0])
def test_two_distinct_siblings_closed_form_on_the_tiny_pair(match) -> None:
    p, q = first_position(Settings(match=match))
    _agree(p, q, 2)
    law = RequestCache().law(match, False, 40, 41, False)
    _agree(law.p, law.q, 2)
