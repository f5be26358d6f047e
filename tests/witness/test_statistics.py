"""Seeded sampling evidence, each check paired with a broken rule that must fail it ("teeth").

The witness is deterministic given the seed, so these tests are too: a p-value here is a
fixed number, and the thresholds are the spec's (lossless passes with p > 1e-3, every
broken variant fails with p < 1e-3).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from scipy import stats

from witness import Settings, acceptance_rate, expected_tokens_per_pass, simulate_blocks
from witness.core.keys import Stream, uniforms
from witness.core.theory import output_distribution
from witness.judge.evaluation import chi_square_against, first_position
from witness.models.simulate import run_blocks, simulate_blocks_loop

pytestmark = pytest.mark.slow

N = 100_000
SEED = 20240
LEVEL = 1e-3
KNOWN = (np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.3, 0.2, 0.1]))


def _tiny_pair() -> tuple[np.ndarray, np.ndarray]:
    return first_position(Settings())


PAIRS = {"known": lambda: KNOWN, "tiny": _tiny_pair}


def _accept_all(u, p_x, q_x):
    return np.ones_like(u, dtype=bool)


def _inverted_ratio(u, p_x, q_x):
    return u * p_x < q_x  # u < q/p instead of u < p/q


def _abs_residual(p, q):
    d = np.abs(p - q)
    return d / d.sum()


BROKEN = {
    "accept_all": {"accept": _accept_all},
    "resample_from_p": {"repair_law": lambda p, q: p},
    "resample_from_q": {"repair_law": lambda p, q: q},
    "inverted_ratio": {"accept": _inverted_ratio},
    "residual_abs_diff": {"repair_law": _abs_residual},
}


def _first_token_p_value(pair: str, k: int, **rule) -> float:
    p, q = PAIRS[pair]()
    sim = run_blocks(p, q, k, N, seed=SEED, **rule)
    assert sim.n == N
    return chi_square_against(sim.first_token_counts, p).p_value


@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_lossless_first_token_follows_p(pair: str, k: int) -> None:
    p, q = PAIRS[pair]()
    sim = simulate_blocks(p, q, k, N, seed=SEED)
    assert chi_square_against(sim.first_token_counts, p).p_value > LEVEL
    # run_blocks with its defaults is the same rule: the teeth below share its machinery.
    assert _first_token_p_value(pair, k) > LEVEL
    # Every emitted token (bonus and repair included) is p-distributed too.
    assert chi_square_against(sim.token_counts, p).p_value > LEVEL


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_a_bonus_drawn_from_q_fails_the_all_tokens_check(pair: str) -> None:
    """Teeth for the check above: a bonus token drawn from q instead of p is caught."""
    p, q = PAIRS[pair]()
    sim = run_blocks(p, q, 4, N, seed=SEED, bonus_law=lambda p, q: q)
    assert chi_square_against(sim.token_counts, p).p_value < LEVEL


@pytest.mark.parametrize("broken", sorted(BROKEN))
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_teeth_every_broken_rule_fails_the_same_check(pair: str, broken: str) -> None:
    assert _first_token_p_value(pair, 4, **BROKEN[broken]) < LEVEL


@pytest.mark.parametrize(("verify", "repair"), [(True, False), (False, True)])
def test_biased_modes_sample_their_own_exact_law(verify: bool, repair: bool) -> None:
    p, q = _tiny_pair()
    sim = simulate_blocks(p, q, 4, N, seed=SEED, verify=verify, repair=repair)
    law = output_distribution(p, q, verify=verify, repair=repair)
    assert chi_square_against(sim.first_token_counts, law).p_value > LEVEL
    assert chi_square_against(sim.first_token_counts, p).p_value < LEVEL


def _within_3_se(tokens: np.ndarray, expected: float) -> bool:
    se = tokens.std(ddof=1) / np.sqrt(tokens.size)
    return abs(tokens.mean() - expected) <= 3.0 * se


@pytest.mark.parametrize("k", [1, 4, 8])
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_mean_tokens_per_block_matches_the_formula(pair: str, k: int) -> None:
    p, q = PAIRS[pair]()
    sim = simulate_blocks(p, q, k, N, seed=SEED)
    alpha = acceptance_rate(p, q)
    assert _within_3_se(sim.tokens_per_block, expected_tokens_per_pass(alpha, k))
    # Every verified block emits between 1 and k + 1 tokens, and both ends occur.
    assert sim.tokens_per_block.min() == 1
    assert sim.tokens_per_block.max() == k + 1
    assert sim.mean_tokens_per_block == pytest.approx(sim.tokens_per_block.mean(), rel=1e-15)


@pytest.mark.parametrize("k", [1, 4, 8])
def test_teeth_mean_tokens(k: int) -> None:
    p, q = KNOWN
    alpha = acceptance_rate(p, q)
    broken = run_blocks(p, q, k, N, seed=SEED, accept=_inverted_ratio)
    assert not _within_3_se(broken.tokens_per_block, expected_tokens_per_pass(alpha, k))
    real = simulate_blocks(p, q, k, N, seed=SEED)
    off_by_one = (1.0 - alpha**k) / (1.0 - alpha)  # a formula that forgets the bonus token
    assert not _within_3_se(real.tokens_per_block, off_by_one)


@pytest.mark.parametrize(
    ("k", "verify", "repair", "seed", "pair"),
    [
        (1, True, True, 0, "known"),
        (4, True, True, 7, "known"),
        (4, True, False, 7, "known"),
        (3, False, True, 1, "known"),
        (5, True, True, 2, "zeros"),
        (2, True, False, 3, "zeros"),
    ],
)
def test_vectorised_equals_the_plain_loop(k, verify, repair, seed, pair) -> None:
    p, q = {"known": KNOWN, "zeros": ([0.5, 0.5, 0.0, 0.0], [0.0, 0.5, 0.25, 0.25])}[pair]
    fast = simulate_blocks(p, q, k, 3000, seed=seed, verify=verify, repair=repair)
    slow = simulate_blocks_loop(p, q, k, 3000, seed=seed, verify=verify, repair=repair)
    assert_array_equal(fast.first_token_counts, slow.first_token_counts)
    assert_array_equal(fast.tokens_per_block, slow.tokens_per_block)
    assert_array_equal(fast.accepted_per_block, slow.accepted_per_block)
    assert_array_equal(fast.token_counts, slow.token_counts)
    assert fast.token_counts.sum() == fast.tokens_per_block.sum()
    # The comparison has teeth: another seed gives other blocks.
    other = simulate_blocks(p, q, k, 3000, seed=seed + 100, verify=verify, repair=repair)
    assert not np.array_equal(other.first_token_counts, fast.first_token_counts)


def _keyed(seed: int, stream: Stream) -> np.ndarray:
    # A [blocks, positions] grid, as the simulation draws them.
    return uniforms(seed, np.arange(20_000)[:, None], np.arange(10)[None, :], stream).ravel()


@pytest.mark.parametrize("stream", list(Stream))
def test_keyed_uniforms_are_uniform(stream: Stream) -> None:
    u = _keyed(5, stream)
    assert u.size == 200_000
    assert ((u >= 0.0) & (u < 1.0)).all()
    assert stats.kstest(u, "uniform").pvalue > LEVEL
    # Teeth: a mildly bent generator fails the same test.
    assert stats.kstest(u**1.02, "uniform").pvalue < LEVEL


def test_distinct_keys_give_distinct_unrelated_streams() -> None:
    draft, accept = _keyed(5, Stream.DRAFT), _keyed(5, Stream.ACCEPT)
    other_seed = _keyed(6, Stream.DRAFT)
    for a, b in [(draft, accept), (draft, other_seed)]:
        assert not np.array_equal(a, b)
        assert (a == b).mean() < 1e-3
        assert abs(np.corrcoef(a, b)[0, 1]) < 0.01  # 200 000 pairs: 4.5 standard errors
    # Swapping block and position is a different key, not the same uniform.
    grid = uniforms(5, np.arange(50)[:, None], np.arange(50)[None, :], Stream.ACCEPT)
    assert not np.array_equal(grid, grid.T)
    # Neighbouring blocks are not correlated, while a shifted copy would be (teeth).
    block_major = uniforms(5, np.arange(200_000), 0, Stream.ACCEPT)
    assert abs(np.corrcoef(block_major[:-1], block_major[1:])[0, 1]) < 0.01
    assert np.corrcoef(block_major[:-1], np.roll(block_major, 1)[1:])[0, 1] > 0.99
