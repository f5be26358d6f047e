"""The public surface the spec fixes, and the inputs the functions refuse."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import witness
from witness import (
    BlockResult,
    RequestTrace,
    Settings,
    Simulation,
    acceptance_rate,
    expected_speedup,
    expected_tokens_per_pass,
    optimal_k,
    output_distribution,
    residual,
    serve_request,
    simulate_blocks,
    verify_block,
)
from witness.core.keys import Stream, uniforms
from witness.core.settings import SEED_MAX

P = [0.1, 0.2, 0.3, 0.4]
Q = [0.4, 0.3, 0.2, 0.1]


def test_public_names_are_the_specified_ones() -> None:
    assert set(witness.__all__) == {
        "acceptance_rate",
        "residual",
        "output_distribution",
        "expected_tokens_per_pass",
        "expected_speedup",
        "optimal_k",
        "verify_block",
        "simulate_blocks",
        "serve_request",
        "Settings",
        "BlockResult",
        "Simulation",
        "RequestTrace",
        "RequestCache",
        # trees, typical acceptance (public names other tools import)
        "SiblingResult",
        "sibling_acceptance",
        "sibling_distribution",
        "verify_siblings",
        "simulate_siblings",
        "typical_distribution",
        "expected_tree_tokens_per_pass",
        # the cost of a pass (public names other tools import)
        "roofline_pass_seconds",
        "batched_speedup",
        "next_k_heuristic",
    }
    assert all(hasattr(witness, name) for name in witness.__all__)


def test_results_are_frozen_and_json_able() -> None:
    block = verify_block([P, P], [Q], [0], [0.9], 0.5)
    assert json.loads(json.dumps(block.to_dict())) == {
        "accepted": 0,
        "first_rejection": 0,
        "emitted": [3],
        "repair_token": 3,
        "bonus_token": None,
        "verified": True,
    }
    trace = serve_request(Settings(tokens=3))
    for obj, field in [(block, "accepted"), (trace, "text")]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, None)
    assert isinstance(block, BlockResult)
    assert isinstance(trace, RequestTrace)
    sim = simulate_blocks(P, Q, 3, 500, seed=1)
    assert isinstance(sim, Simulation)
    assert sim.first_token_counts.shape == (4,)
    assert sim.first_token_counts.sum() == sim.n == 500
    data = sim.to_dict()
    assert sum(data["tokens_per_block_histogram"]) == 500
    assert len(data["tokens_per_block_histogram"]) <= 3 + 2


@pytest.mark.parametrize(
    "bad",
    [
        [0.5, 0.6],  # does not sum to 1
        [1.2, -0.2],  # negative
        [np.nan, 1.0],
        [],
        0.5,
    ],
)
def test_non_distributions_are_refused(bad) -> None:
    for call in (
        lambda: acceptance_rate(bad, [0.5, 0.5]),
        lambda: residual([0.5, 0.5], bad),
        lambda: output_distribution(bad, [0.5, 0.5]),
    ):
        with pytest.raises(ValueError, match="must"):
            call()


def test_vocabularies_must_agree() -> None:
    with pytest.raises(ValueError, match="same vocabulary"):
        acceptance_rate([1.0], [0.5, 0.5])


def test_verify_block_checks_its_inputs() -> None:
    with pytest.raises(ValueError, match="q = 0"):
        verify_block([[0.5, 0.5]] * 2, [[1.0, 0.0]], [1], [0.1], 0.1)
    with pytest.raises(ValueError, match="k"):
        verify_block([P], [Q], [0], [0.1], 0.1)  # p needs k + 1 rows
    with pytest.raises(ValueError, match="k"):
        verify_block([P, P], [Q], [0], [0.1, 0.2], 0.1)


def test_cost_model_refuses_out_of_range_inputs() -> None:
    for alpha, k in [(1.1, 4), (-0.1, 4), (np.nan, 4), (0.5, -1), (0.5, 2.5)]:
        with pytest.raises(ValueError, match="alpha|k"):
            expected_tokens_per_pass(alpha, k)
    with pytest.raises(ValueError, match="c"):
        expected_speedup(0.5, 4, -0.1)
    with pytest.raises(ValueError, match="k_max"):
        optimal_k(0.5, 0.1, 0)


def test_cost_model_broadcasts() -> None:
    grid = np.asarray(expected_tokens_per_pass([[0.0], [0.5], [1.0]], [1, 2, 3]))
    assert grid.shape == (3, 3)
    np.testing.assert_allclose(grid[1], [1.5, 1.75, 1.875], rtol=1e-12)
    np.testing.assert_array_equal(grid[2], [2.0, 3.0, 4.0])


def test_simulation_refuses_bad_sizes() -> None:
    for k, n in [(0, 10), (3, 0)]:
        with pytest.raises(ValueError, match="at least 1"):
            simulate_blocks(P, Q, k, n, seed=0)


def test_keys_must_be_non_negative_integers() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        uniforms(-1, 0, 0, Stream.DRAFT)
    with pytest.raises(TypeError, match="integers"):
        uniforms(1.5, 0, 0, Stream.DRAFT)
    top = uniforms(SEED_MAX, np.arange(4), 0, Stream.FINAL)
    assert ((top >= 0) & (top < 1)).all()


def test_extreme_settings_serve() -> None:
    trace = serve_request(Settings(seed=SEED_MAX, k=16, tokens=256, match=1.0, draft_cost=1.0))
    assert sum(len(b.emitted_words) for b in trace.blocks) == 256
    json.dumps(trace.to_dict(), allow_nan=False)
