"""The exact distribution check: per mode, and greedy decoding against plain greedy."""

from __future__ import annotations

import numpy as np
import pytest

from tests.witness.served import emitted
from witness import Settings, serve_request
from witness.models.lm import tiny_models


def test_distribution_check_per_mode() -> None:
    lossless = serve_request(Settings()).check
    assert lossless.mode == "lossless"
    assert lossless.keeps_target
    assert lossless.tv_max <= 1e-12
    for s, mode in [(Settings(repair=False), "no_repair"), (Settings(verify=False), "no_verify")]:
        check = serve_request(s).check
        assert check.mode == mode
        assert not check.keeps_target
        assert check.tv_max > 0.01
        assert check.matches_greedy_baseline is None


def _plain_greedy(s: Settings) -> list[int]:
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    out: list[int] = []
    for _ in range(s.tokens):
        out.append(int(np.argmax(models.target(prompt + out))))
    return out


@pytest.mark.parametrize("match", [0.0, 0.3, 0.7, 1.0])
@pytest.mark.parametrize("seed", [0, 8, 99])
def test_greedy_is_plain_greedy_decoding(match: float, seed: int) -> None:
    s = Settings(greedy=True, match=match, seed=seed, k=5)
    trace = serve_request(s)
    assert emitted(trace) == _plain_greedy(s)
    assert trace.check.matches_greedy_baseline is True
    assert trace.check.keeps_target
    # Acceptance in greedy mode is "the draft token is the target's argmax".
    for b in trace.blocks:
        for d in b.drafts:
            if d.accepted is not None:
                assert d.accepted == (d.p == 1.0)


def test_greedy_baseline_differs_from_sampling() -> None:
    # Teeth for the comparison above: sampled decoding is not greedy decoding.
    s = Settings(match=0.3, k=5)
    assert emitted(serve_request(s)) != _plain_greedy(s)
