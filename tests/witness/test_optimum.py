"""Honest optima and break-even: the best k at or past the slider's edge, none at α = 1, the
cost at which each k stops paying, and a sweep without the truncation sawtooth."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from witness import Settings, serve_request
from witness.core.theory import (
    break_even_alpha,
    break_even_cost,
    draft_length_optimum,
    expected_speedup,
    optimal_k,
)
from witness.judge.sweep import sweep_k
from witness.models.cache import RequestCache

alphas = st.floats(0.0, 0.999, allow_nan=False)
costs = st.floats(0.001, 1.0, allow_nan=False)
ks = st.integers(1, 16)


def test_known_optima() -> None:
    # The cases: the well-matched preset's best k lies past the slider ...
    well = draft_length_optimum(0.937, 0.05, 16)
    assert (well.k, well.unconstrained, well.past_range) == (16, 18, True)
    # ... and at alpha = 1 the speedup rises toward 1/c: no finite optimum at all.
    same = draft_length_optimum(1.0, 0.05, 16)
    assert (same.unconstrained, same.limit, same.past_range) == (None, 20.0, True)
    free = draft_length_optimum(0.5, 0.0, 16)
    assert free.unconstrained is None and free.limit == pytest.approx(2.0)
    inside = draft_length_optimum(0.8, 0.05, 16)
    assert (inside.k, inside.unconstrained, inside.past_range) == (8, 8, False)


@given(alphas, costs)
def test_the_unconstrained_optimum_beats_every_k(alpha: float, c: float) -> None:
    o = draft_length_optimum(alpha, c, 16)
    assert o.unconstrained is not None
    k = np.arange(1, 600)
    best = np.asarray(expected_speedup(alpha, o.unconstrained, c))
    assert (np.asarray(expected_speedup(alpha, k, c)) <= best + 1e-9).all()
    assert o.k == optimal_k(alpha, c, 16)
    assert o.past_range == (o.unconstrained > 16)


def test_break_even_cost_known_values() -> None:
    assert break_even_cost(0.44, 1) == pytest.approx(0.44)  # the k = 1 rule, alpha > c
    # The "draft too slow": at k = 4 the gate fails well below c = alpha.
    assert break_even_cost(0.44, 4) == pytest.approx(
        (1 + 0.44 + 0.44**2 + 0.44**3 + 0.44**4 - 1) / 4
    )
    assert break_even_cost(0.44, 4) < 0.44
    assert break_even_cost(1.0, 8) == pytest.approx(1.0)


@given(alphas, ks)
def test_at_the_break_even_cost_the_speedup_is_one(alpha: float, k: int) -> None:
    c = float(break_even_cost(alpha, k))
    assert expected_speedup(alpha, k, c) == pytest.approx(1.0, abs=1e-9)
    assert c <= alpha + 1e-12  # longer drafts break even at a lower cost, never a higher one


@given(ks, st.floats(0.01, 0.99))
def test_break_even_alpha_inverts_break_even_cost(k: int, c: float) -> None:
    a = break_even_alpha(k, c)
    assert float(break_even_cost(a, k)) == pytest.approx(c, abs=1e-9)
    assert break_even_alpha(1, c) == pytest.approx(c, abs=1e-12)


def test_teeth_the_k1_rule_is_not_the_break_even_of_k4() -> None:
    """alpha > c says k = 1 pays; at k = 4 the same pair can cost more than plain decoding."""
    alpha, c = 0.48, 0.45
    assert alpha > c and expected_speedup(alpha, 1, c) > 1
    assert expected_speedup(alpha, 4, c) < 1


def test_the_sweep_at_p_equals_q_rises_with_k_without_a_sawtooth() -> None:
    sweep = sweep_k(Settings(match=1.0, draft_cost=0.05), cache=RequestCache())
    measured = [p.speedup_measured for p in sweep.points]
    assert all(m is not None for m in measured)
    assert all(b >= a - 1e-12 for a, b in zip(measured, measured[1:], strict=False))  # type: ignore[operator]
    assert measured[-1] > measured[0]  # type: ignore[operator]
    # Each point is the request's passes: one target pass per block, nothing drafted past the end.
    for p in sweep.points:
        t = serve_request(Settings(match=1.0, draft_cost=0.05, k=p.k)).totals
        assert t.target_passes == -(-t.tokens // (p.k + 1))
        assert t.draft_passes == t.tokens - t.target_passes


def test_teeth_drafting_k_in_the_last_block_makes_the_sawtooth() -> None:
    """The old rule (every block drafts k) at p = q: k = 8 is slower than k = 7."""

    def old_rule(k: int, n: int = 48, c: float = 0.05) -> float:
        blocks = -(-n // (k + 1))
        return n / (blocks + c * k * blocks)

    assert old_rule(8) < old_rule(7)
    assert old_rule(16) < old_rule(15)
