"""Against the training framework: numpy inference on the committed weights, and a short run."""

from __future__ import annotations

import numpy as np
import pytest

from witness.neural.corpus import corpus, encode, split
from witness.neural.model import TARGET, tiny_pair
from witness.neural.train import load_torch, train

torch = pytest.importorskip(
    "torch",
    reason="PyTorch is the optional `train` extra (pip install -e '.[train]'), absent from CI "
    "and the station: the numpy inference and the training script's run are checked where it "
    "is installed",
)


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


def test_training_a_few_steps_from_its_seed_lowers_the_loss() -> None:
    def run() -> dict:
        return train(
            seed=3,
            steps=12,
            batch=8,
            context=32,
            corpus_chars=20_000,
            eval_every=6,
            weights=None,
            log=None,
        )

    log = run()
    first, last = log["curve"][0]["held_out"], log["curve"][-1]["held_out"]
    # Target, early exit and draft all learn: from ~ln 31 = 3.43 nats a character.
    assert all(after < before - 0.2 for before, after in zip(first, last, strict=True))
    assert abs(first[0] - np.log(31)) < 0.2
    assert [point["held_out"] for point in run()["curve"]] == [p["held_out"] for p in log["curve"]]
