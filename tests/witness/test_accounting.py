"""What a request costs: the totals add up from the blocks, and the cost rules' known values."""

from __future__ import annotations

import numpy as np
import pytest

from tests.witness.served import IDS, SETTINGS, emitted
from witness import Settings, expected_speedup, serve_request
from witness.judge.evaluation import evaluate
from witness.models.lm import detokenize, tiny_models
from witness.serve.accounting import cost_units, measured_speedup, speedup_expected


@pytest.mark.parametrize("s", SETTINGS, ids=IDS)
def test_totals_add_up(s: Settings) -> None:
    trace = serve_request(s)
    t, vocab = trace.totals, tiny_models().vocab
    out = emitted(trace)
    assert len(out) == s.tokens == t.tokens
    words = [w for b in trace.blocks for w in b.emitted_words]
    assert words == [vocab[i] for i in out]
    assert trace.text == detokenize(words)
    assert set(words) <= set(vocab)
    assert t.blocks == len(trace.blocks)
    assert t.target_passes == (t.blocks if s.verify else 0)
    assert t.draft_passes == sum(len(b.drafts) for b in trace.blocks)
    # A block drafts no further than the request goes: room - 1 when verified (the pass adds
    # one token of its own), room when not.
    for b in trace.blocks:
        room = s.tokens - b.start
        assert len(b.drafts) == min(s.k, room - 1 if s.verify else room)
    assert t.baseline_target_passes == s.tokens
    cost = t.target_passes + s.draft_cost * t.draft_passes
    assert t.cost_units == pytest.approx(cost, rel=1e-12)
    if cost > 0:
        assert t.speedup_measured == pytest.approx(s.tokens / cost, rel=1e-12)
    else:
        assert t.speedup_measured is None
    assert t.ms_speculative == pytest.approx(s.ttft_ms + cost * s.tpot_ms, rel=1e-12)
    assert t.ms_baseline == pytest.approx(s.ttft_ms + s.tokens * s.tpot_ms, rel=1e-12)
    if s.verify:
        assert t.accepted_drafts == sum(b.result.accepted for b in trace.blocks)
        assert t.rejected_drafts == sum(b.result.first_rejection is not None for b in trace.blocks)
        assert t.tokens_per_pass == pytest.approx(s.tokens / t.blocks, rel=1e-12)
    # Blocks run until the tokens are out, no further: only the last one is cut short.
    starts = [b.start for b in trace.blocks]
    assert starts == list(np.cumsum([0] + [len(b.emitted_words) for b in trace.blocks[:-1]]))
    assert all(b.truncated == 0 for b in trace.blocks[:-1])
    assert starts[-1] < s.tokens


def test_cost_rules_known_values() -> None:
    assert cost_units(12, 48, 0.1) == 12 + 0.1 * 48
    assert cost_units(0, 4, 0.0) == 0.0
    assert measured_speedup(48, 16.0) == 3.0
    assert measured_speedup(48, 0.0) is None
    assert speedup_expected(0.8, 4, 0.05, verify=True) == expected_speedup(0.8, 4, 0.05)
    # Verify off: k tokens for k draft passes, 1/c; unbounded when drafting is free.
    assert speedup_expected(0.8, 4, 0.25, verify=False) == 4.0
    assert speedup_expected(0.3, 16, 0.0, verify=False) is None


@pytest.mark.parametrize("c", [0.0, 0.2])
def test_served_request_and_slice_share_the_verify_off_rule(c: float) -> None:
    s = Settings(verify=False, draft_cost=c)
    served = serve_request(s).totals.speedup_expected
    sliced = {m.mode: m for m in evaluate(s, blocks=200).modes}["no_verify"].speedup_expected
    assert served == sliced == speedup_expected(0.0, s.k, c, verify=False)
