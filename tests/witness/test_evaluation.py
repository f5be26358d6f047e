"""The evaluation slice and the k sweep: "correct" and "faster", judged side by side."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from witness import Settings, acceptance_rate, expected_speedup, optimal_k, serve_request
from witness.judge.evaluation import chi_square_against, evaluate, first_position
from witness.judge.expected import ensemble_of
from witness.judge.sweep import sweep_k
from witness.models.lm import tiny_models


@pytest.fixture(scope="module")
def slice_default():
    return evaluate(Settings(), blocks=100_000)


@pytest.mark.slow
def test_lossless_keeps_the_target_and_the_others_do_not(slice_default) -> None:
    modes = {m.mode: m for m in slice_default.modes}
    assert list(modes) == ["lossless", "no_repair", "no_verify"]
    assert all(m.blocks == 100_000 for m in modes.values())
    assert modes["lossless"].keeps_target
    assert modes["lossless"].chi_square.p_value > 1e-3
    assert modes["lossless"].tv_exact <= 1e-12
    for name in ("no_repair", "no_verify"):
        assert not modes[name].keeps_target
        assert modes[name].chi_square.p_value < 1e-3
        assert modes[name].tv_exact > 0.01
    # The sampled distance sits near the exact one (100 000 draws over a 630-word law).
    for m in modes.values():
        assert abs(m.tv_empirical - m.tv_exact) < 0.03


@pytest.mark.slow
def test_slice_speedups_and_alpha(slice_default) -> None:
    s = Settings()
    p, q = first_position(s)
    alpha = acceptance_rate(p, q)
    assert slice_default.alpha == pytest.approx(alpha, abs=1e-15)
    assert slice_default.current_mode == "lossless"
    modes = {m.mode: m for m in slice_default.modes}
    expected = expected_speedup(alpha, s.k, s.draft_cost)
    lossless = modes["lossless"]
    assert lossless.speedup_expected == pytest.approx(expected, rel=1e-12)
    # Measured: the blocks' mean tokens over one target pass plus k draft passes.
    cost = 1 + s.k * s.draft_cost
    assert lossless.speedup_measured == pytest.approx(lossless.mean_tokens_per_block / cost)
    assert lossless.speedup_measured == pytest.approx(expected, rel=0.01)
    assert modes["no_verify"].speedup_measured == pytest.approx(1 / s.draft_cost)
    words = [w for w, _, _ in lossless.histogram]
    assert set(words) <= set(tiny_models().vocab)
    json.dumps(slice_default.to_dict(), allow_nan=False)


def test_greedy_slice() -> None:
    ev = evaluate(Settings(greedy=True, match=0.0), blocks=2000)
    modes = {m.mode: m for m in ev.modes}
    assert modes["lossless"].keeps_target
    assert modes["no_repair"].keeps_target
    assert modes["lossless"].tv_empirical == 0.0
    p, q = first_position(Settings(greedy=True, match=0.0))
    assert (np.argmax(p) == np.argmax(q)) == modes["no_verify"].keeps_target
    out = ev.to_dict()
    json.dumps(out, allow_nan=False)  # an infinite statistic is reported as None


def test_chi_square_equals_scipy_when_no_cell_is_pooled() -> None:
    p = np.array([0.1, 0.2, 0.3, 0.4])
    counts = np.array([90, 230, 280, 400])
    got = chi_square_against(counts, p)
    want = stats.chisquare(counts, 1000 * p)
    assert got.statistic == pytest.approx(want.statistic, rel=1e-12)
    assert got.p_value == pytest.approx(want.pvalue, rel=1e-9)
    assert got.dof == 3


def test_chi_square_pools_rare_cells() -> None:
    # 1000 draws: tokens 2 and 3 expect 2 each, so they are pooled into one rare cell of 4.
    # That is still under 5, so the rare cell is tested by its exact binomial tail and its
    # draws join the smallest common cell for the chi-square (Bonferroni-combined).
    p = np.array([0.5, 0.496, 0.002, 0.002])
    counts = np.array([500, 496, 2, 2])
    got = chi_square_against(counts, p)
    assert got.dof == 1
    assert got.p_value > 0.5
    skewed = chi_square_against(np.array([500, 480, 15, 5]), p)
    chi = stats.chisquare([500, 500], [500, 500])  # 480 + 20 rare draws vs 496 + 4
    rare = stats.binom.sf(20 - 1, 1000, 0.004)
    assert skewed.p_value == pytest.approx(min(1.0, 2 * min(chi.pvalue, rare)), rel=1e-9)
    assert skewed.p_value < 1e-3


def test_a_rare_cell_is_judged_by_its_exact_tail_not_a_tiny_chi_square_cell() -> None:
    # Two draws of a token with p = 1e-4 in 1000 is unusual (P = 0.0047) but no evidence
    # against p at the 1e-3 level; a chi-square cell expecting 0.1 would call it damning.
    p = np.array([0.5, 0.4999, 0.0001])
    assert chi_square_against(np.array([500, 498, 2]), p).p_value > 1e-3
    assert chi_square_against(np.array([500, 490, 10]), p).p_value < 1e-3


def test_impossible_tokens_are_decisive() -> None:
    p = np.array([0.5, 0.5, 0.0])
    got = chi_square_against(np.array([5000, 4999, 1]), p)
    assert (got.p_value, got.impossible_tokens) == (0.0, 1)
    assert got.statistic is None  # unbounded: the JSON says null
    assert chi_square_against(np.array([5000, 5000, 0]), p).p_value == 1.0
    one_cell = np.array([0.0, 1.0, 0.0])
    assert chi_square_against(np.array([0, 300, 0]), one_cell).p_value == 1.0
    assert chi_square_against(np.array([1, 299, 0]), one_cell).p_value == 0.0


def test_near_impossible_tokens_are_not_ignored() -> None:
    # 100 of 1000 draws landed on a token p gives 1e-12: that is no draw from p. The
    # pooled rest cell must carry those 100 counts into the test rather than drop them.
    p = np.array([0.5, 0.5 - 1e-12, 1e-12])
    got = chi_square_against(np.array([450, 450, 100]), p)
    assert got.p_value < 1e-3


def test_sweep_optimum_is_the_formula_optimum() -> None:
    s = Settings()
    sweep = sweep_k(s)
    # The formula's curve is at the station's α: the state's seeded requests, pooled.
    alpha = ensemble_of(s).alpha
    assert sweep.alpha == pytest.approx(alpha, rel=1e-12)
    # The measured curve is the request on screen at each k, whatever k the instrument shows.
    at_11 = sweep_k(s.model_copy(update={"k": 11}))
    assert [p.speedup_measured for p in at_11.points] == [p.speedup_measured for p in sweep.points]
    assert at_11.alpha == ensemble_of(s.model_copy(update={"k": 11})).alpha
    assert sweep.optimal_k == optimal_k(alpha, s.draft_cost, 16)
    assert sweep.pays == (alpha > s.draft_cost) is True
    assert [pt.k for pt in sweep.points] == list(range(1, 17))
    best = max(sweep.points, key=lambda pt: pt.speedup_expected)
    assert best.k == sweep.optimal_k
    for pt in sweep.points:
        totals = serve_request(s.model_copy(update={"k": pt.k})).totals
        assert pt.speedup_measured == totals.speedup_measured
        assert pt.tokens_per_pass == totals.tokens_per_pass
    json.dumps(sweep.to_dict(), allow_nan=False)


def test_a_draft_too_slow_does_not_pay() -> None:
    s = Settings(draft_cost=0.9, match=0.0)
    sweep = sweep_k(s)
    assert sweep.alpha < 0.9
    assert sweep.pays is False
    assert sweep.optimal_k == 1
    assert all(pt.speedup_expected < 1.0 for pt in sweep.points)
    assert all(pt.speedup_measured < 1.0 for pt in sweep.points)
