"""Trace detail: the repair picture and context each block records for display.

The picture is a stack per token: min(p, q) under the mass a rejection gives the token.
With repair on that mass is (1 − α)·residual and the stack is p, exactly, for every bar:
the identity that makes speculative sampling lossless. With repair off it is (1 − α)·p, and
the stack is the biased law repair-off emits.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.witness.served import SAMPLED, SETTINGS, visited
from tests.witness.strategies import PROPERTY, pairs
from witness import Settings, acceptance_rate, output_distribution, residual, serve_request
from witness.core.trace import Bar
from witness.models.laws import Law
from witness.models.lm import tiny_models
from witness.serve.detail import BAR_TOKENS, CONTEXT_WORDS, RESIDUAL_TOP, repair_picture

EXACT = 1e-12
VOCAB = [f"t{i}" for i in range(32)]


@pytest.mark.parametrize("s", [pytest.param(x, id=i) for x, i in SAMPLED])
def test_repair_picture_at_each_focus(s: Settings) -> None:
    for b, d, p, q in visited(s, serve_request(s)):
        if d.position == b.focus:
            _check_repair_picture(b, d, p, q, s)


def _check_repair_picture(b, d, p, q, s: Settings) -> None:
    """The residual shown at the block's focus, and the token the repair drew from it."""
    vocab = tiny_models().vocab
    r = residual(p, q)
    shown = [share for _, share in b.residual_top]
    assert shown == sorted(shown, reverse=True)
    for word, share in b.residual_top:
        assert share == pytest.approx(r[vocab.index(word)], abs=1e-12)
    if b.residual_top:
        assert shown[0] == pytest.approx(r.max(), abs=1e-12)
    assert b.bars[0].word == d.word  # the drafted token leads the picture
    if s.verify and b.result.repair_token is not None:
        law = r if s.repair else p
        assert law[b.result.repair_token] > 0
    # The stack, bar by bar, against the models' own laws recomputed here.
    alpha = acceptance_rate(p, q)
    assert d.alpha == pytest.approx(alpha, abs=EXACT)
    for bar in b.bars:
        x = vocab.index(bar.word)
        assert bar.overlap == pytest.approx(min(p[x], q[x]), abs=EXACT)
        assert bar.repair_mass == pytest.approx((1 - alpha) * r[x], abs=EXACT)
        assert bar.resample_mass == pytest.approx((1 - alpha) * p[x], abs=EXACT)
        assert abs(bar.overlap + bar.repair_mass - bar.p) <= EXACT


@pytest.mark.parametrize("s", SETTINGS)
def test_detail_is_bounded(s: Settings) -> None:
    for b in serve_request(s).blocks:
        # A block that drafted nothing (one token left) has no picture; every other has one.
        assert (len(b.bars) > 0) == (len(b.drafts) > 0)
        assert len(b.bars) <= BAR_TOKENS
        assert len(b.residual_top) <= RESIDUAL_TOP
        assert len(b.context) <= CONTEXT_WORDS
        assert len({bar.word for bar in b.bars}) == len(b.bars)


@pytest.mark.parametrize("s", SETTINGS)
def test_the_served_stack_adds_to_p_at_every_bar(s: Settings) -> None:
    """Whatever the mode, the recorded repair mass stacks on min(p, q) to p (within 1e-12),
    and the resample mass stacks to the repair-off law, whose deviation from p is the bias."""
    for b in serve_request(s).blocks:
        if b.focus is None:
            continue
        alpha = b.drafts[b.focus].alpha
        assert b.bars[0].word == b.drafts[b.focus].word
        for bar in b.bars:
            assert abs(bar.overlap + bar.repair_mass - bar.p) <= EXACT, bar
            assert bar.resample_mass == pytest.approx(max(0.0, 1 - alpha) * bar.p, abs=EXACT)


# --------------------------------------------------------------------------- for any p, q


def _picture(p: np.ndarray, q: np.ndarray, drafted: int) -> tuple[Bar, ...]:
    bars, _ = repair_picture(VOCAB[: len(p)], Law(p, q), drafted)
    return bars


def _drafts(q: np.ndarray) -> list[int]:
    return [int(x) for x in np.flatnonzero(q)]  # the draft only proposes tokens q gives mass


@PROPERTY
@given(pq=pairs(), pick=st.integers(0, 10**6))
def test_the_stack_adds_to_p_for_any_p_and_q(pq: tuple[np.ndarray, np.ndarray], pick: int) -> None:
    p, q = pq
    drafts = _drafts(q)
    drafted = drafts[pick % len(drafts)]
    bars = _picture(p, q, drafted)
    assert bars[0].word == VOCAB[drafted]  # the focus token is always drawn, first
    lossless = output_distribution(p, q)
    biased = output_distribution(p, q, repair=False)
    for bar in bars:
        x = VOCAB.index(bar.word)
        assert abs(bar.overlap + bar.repair_mass - bar.p) <= EXACT
        assert abs(bar.overlap + bar.repair_mass - lossless[x]) <= EXACT
        # Repair off: the stack is the law repair-off emits, exactly.
        assert abs(bar.overlap + bar.resample_mass - biased[x]) <= EXACT


def _random_pairs(n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        v = int(rng.integers(2, 33))
        p = rng.dirichlet(np.full(v, rng.choice([0.1, 0.5, 1.0, 5.0])))
        q = rng.dirichlet(np.full(v, rng.choice([0.1, 0.5, 1.0, 5.0])))
        m = rng.choice([0.0, 0.5, 0.9, 0.999])
        q = m * p + (1 - m) * q
        out.append((p, q / q.sum()))
    return out


SEEDED = _random_pairs(500, seed=20230518)


def test_the_stack_adds_to_p_for_many_seeded_pairs() -> None:
    for p, q in SEEDED:
        for drafted in _drafts(q)[:3]:
            for bar in _picture(p, q, drafted):
                assert abs(bar.overlap + bar.repair_mass - bar.p) <= EXACT


def test_teeth_the_normalised_residual_does_not_stack_to_p() -> None:
    """The twin: put the normalised residual r on top instead of (1 − α)·r, and the stack
    misses p wherever α > 0 and r(x) > 0 — so the test above can tell the difference."""
    missed = 0
    for p, q in SEEDED:
        alpha = acceptance_rate(p, q)
        for bar in _picture(p, q, _drafts(q)[0]):
            if alpha > 1e-6 and bar.residual > 1e-6:
                assert abs(bar.overlap + bar.residual - bar.p) > EXACT
                missed += 1
    assert missed > 100


def test_teeth_repair_off_does_not_stack_to_p() -> None:
    """With (1 − α)·p on top the stack misses p wherever α is inside (0, 1): the bias shows."""
    biased = 0
    for p, q in SEEDED:
        alpha = acceptance_rate(p, q)
        if not 0.01 < alpha < 0.99:
            continue
        gaps = [abs(b.overlap + b.resample_mass - b.p) for b in _picture(p, q, _drafts(q)[0])]
        assert max(gaps) > EXACT
        biased += 1
    assert biased > 100


def test_the_picture_of_a_known_pair() -> None:
    p = np.array([0.5, 0.3, 0.2])
    q = np.array([0.2, 0.6, 0.2])  # α = 0.7, residual = (1, 0, 0)
    bars = _picture(p, q, 1)
    assert [b.word for b in bars] == ["t1", "t0", "t2"]
    by = {b.word: b for b in bars}
    assert by["t0"].overlap == pytest.approx(0.2)
    assert by["t0"].repair_mass == pytest.approx(0.3)  # all of 1 − α lands where p > q
    assert by["t0"].resample_mass == pytest.approx(0.15)
    assert by["t1"].repair_mass == 0.0
    assert by["t1"].overlap + by["t1"].resample_mass == pytest.approx(0.39)  # > p = 0.3
