"""Against the training framework: numpy inference on the committed weights, and a short run.

PyTorch is the `train` extra, which `make test` installs (tests/torch_extra.py): both run in
CI, and skip, saying why, where torch is absent outside make.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.torch_extra import torch_or_skip
from witness.neural.corpus import corpus, encode, split
from witness.neural.model import TARGET, tiny_pair
from witness.neural.train import load_torch, train

torch = torch_or_skip()


def test_numpy_inference_equals_the_torch_forward_on_the_committed_weights() -> None:
    pair = tiny_pair()
    torch_target, torch_draft = load_torch(pair)
    _, held_out = split(corpus())
    tokens = encode(held_out[:200])
    with torch.no_grad():
        batch = torch.from_numpy(tokens[None, :])
        logits, exit_logits = torch_target(batch)
        draft_logits, no_exit = torch_draft(batch)
    assert no_exit is None
    cases = [
        (pair.target, None, logits),
        (pair.target, TARGET.exit_layer, exit_logits),
        (pair.draft, None, draft_logits),
    ]
    for model, depth, expected in cases:
        reference = expected[0].double().numpy()
        # float32 in torch against float64 here, from the same float16 weights.
        np.testing.assert_allclose(model.full_logits(tokens, depth=depth), reference, atol=2e-3)
        cache = model.new_cache()
        cached = np.concatenate(
            [model.forward_logits(tokens[i : i + 7], cache, depth=depth) for i in range(0, 200, 7)]
        )
        np.testing.assert_allclose(cached, reference, atol=2e-3)


def _short_run(seed: int) -> dict[str, Any]:
    """12 steps of 8 windows of 32 characters, held-out losses at steps 0, 6 and 12."""
    return train(
        seed=seed,
        steps=12,
        batch=8,
        context=32,
        corpus_chars=20_000,
        eval_every=6,
        weights=None,
        log=None,
    )


def _held_out(log: dict[str, Any]) -> list[list[float]]:
    return [point["held_out"] for point in log["curve"]]


def test_training_a_few_steps_from_its_seed_lowers_the_loss() -> None:
    log = _short_run(seed=3)
    assert [point["step"] for point in log["curve"]] == [0, 6, 12]
    curve = _held_out(log)
    # Before the first step every model is near uniform: ~ln 31 = 3.43 nats a character.
    assert all(abs(loss - np.log(31)) < 0.2 for loss in curve[0])
    # Target, early exit and draft all learn, at every evaluation, by 0.2 nats in all.
    for model in range(3):
        losses = [point[model] for point in curve]
        assert losses == sorted(losses, reverse=True) and len(set(losses)) == 3
        assert losses[-1] < losses[0] - 0.2
    assert all(loss < np.log(31) - 0.2 for loss in log["curve"][-1]["train"])
    # Deterministic from its seed: the same seed gives the same curve, another seed another.
    assert _held_out(_short_run(seed=3)) == curve
    assert _held_out(_short_run(seed=4)) != curve
