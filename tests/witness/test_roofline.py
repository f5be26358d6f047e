"""The cost of a pass (the witness's part): the roofline, batching, the k heuristic.

Known values from the issue (an H100 SXM and an 8.03 B-parameter BF16 target), the property
that ties the batched model to the station's formula, and monotonicity once compute-bound.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from witness import batched_speedup, expected_speedup, next_k_heuristic, roofline_pass_seconds
from witness.cost.roofline import compute_bound_tokens

H100 = {"bandwidth": 3.35e12, "flops": 989e12}  # the issue's H100 SXM (dense BF16)
TARGET = 8.03e9


def test_one_pass_costs_the_same_for_one_token_or_five() -> None:
    one = roofline_pass_seconds(TARGET, 1, **H100)
    five = roofline_pass_seconds(TARGET, 5, **H100)
    assert one == five == pytest.approx(4.794e-3, abs=5e-7)
    assert 2 * TARGET * 5 / H100["flops"] == pytest.approx(0.081e-3, abs=5e-7)
    assert compute_bound_tokens(**H100) == pytest.approx(295.2, abs=0.05)
    # Past that the pass grows with the tokens it scores (teeth: not a constant).
    assert roofline_pass_seconds(TARGET, 296, **H100) > one
    assert roofline_pass_seconds(TARGET, 295, **H100) == one


def test_kv_reads_add_to_the_memory_time() -> None:
    base = roofline_pass_seconds(TARGET, 1, **H100)
    with_kv = roofline_pass_seconds(TARGET, 1, kv_bytes=3.35e9, **H100)
    assert with_kv == pytest.approx(base + 1e-3)


@given(
    alpha=st.floats(0.0, 1.0),
    k=st.integers(1, 16),
    ratio=st.floats(0.01, 1.0),
)
def test_batch_one_memory_bound_is_the_stations_formula(alpha: float, k: int, ratio: float) -> None:
    """At batch 1 and no context every pass here is memory-bound (k + 1 ≤ 17 tokens, far
    under 295), so the batched speedup is expected_speedup with c = T_draft / T_target."""
    draft = TARGET * ratio
    got = batched_speedup(alpha, k, target_params=TARGET, draft_params=draft, batch=1, **H100)
    c = roofline_pass_seconds(draft, 1, **H100) / roofline_pass_seconds(TARGET, 1, **H100)
    assert got == pytest.approx(float(expected_speedup(alpha, k, c)), rel=1e-12)


def test_the_speedup_falls_with_batch_once_compute_bound() -> None:
    pair = {"target_params": TARGET, "draft_params": 1e9, **H100}
    speeds = [batched_speedup(0.8, 4, batch=b, **pair) for b in range(1, 513)]
    # Flat while batch·(k + 1) stays memory-bound, then never rising again.
    flat = [s for b, s in enumerate(speeds, 1) if b * 5 <= compute_bound_tokens(**H100)]
    assert max(flat) == pytest.approx(min(flat))
    turned = len(flat)
    assert all(a >= b - 1e-12 for a, b in zip(speeds[turned:], speeds[turned + 1 :], strict=False))
    assert speeds[-1] < 1.0 < speeds[0]  # the batch that kills the win exists here


def test_context_makes_every_pass_read_more() -> None:
    pair = {"target_params": TARGET, "draft_params": 1e9, **H100}
    kv = {"target_kv_per_token": 131072.0, "draft_kv_per_token": 32768.0}
    short = batched_speedup(0.8, 4, batch=8, context=0, **pair, **kv)
    long = batched_speedup(0.8, 4, batch=8, context=32768, **pair, **kv)
    assert long != short


def test_the_heuristic_walks_as_the_issue_says() -> None:
    ks = [5]
    for accepted in [5, 2, 6, 6, 0, 1]:
        ks.append(next_k_heuristic(ks[-1], accepted))
    assert ks == [5, 7, 6, 8, 7, 6, 5]
    assert next_k_heuristic(1, 0) == 1  # never below 1


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: roofline_pass_seconds(0, 1, **H100), "params"),
        (lambda: roofline_pass_seconds(TARGET, -1, **H100), "tokens"),
        (lambda: next_k_heuristic(4, 5), "accepted"),
        (
            lambda: batched_speedup(
                1.5, 4, target_params=TARGET, draft_params=1e9, batch=1, **H100
            ),
            "alpha",
        ),
    ],
)
def test_bad_input_names_its_argument(call: object, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        call()  # type: ignore[operator]
