"""The served request's serve loop: every block follows the rule at the models' real rows.

Its totals are tested in test_accounting, its check in test_check, its repair picture in
test_detail, its JSON in test_trace and what its cache may hold in test_cache.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tests.witness.served import IDS, SAMPLED, SETTINGS, visited
from witness import Settings, acceptance_rate, serve_request
from witness.models.lm import tiny_models


@pytest.mark.parametrize("s", SETTINGS, ids=IDS)
def test_every_block_trace_follows_the_rule(s: Settings) -> None:
    trace = serve_request(s)
    for b in trace.blocks:
        r = b.result
        room = s.tokens - b.start  # a block drafts no further than the request goes
        drafted = min(s.k, room - 1 if s.verify else room)
        assert len(b.drafts) == drafted
        assert [d.position for d in b.drafts] == list(range(drafted))
        assert tuple(d.token for d in b.drafts[: r.accepted]) == r.emitted[: r.accepted]
        for d in b.drafts:
            assert d.q > 0  # the draft drew it
            assert d.ratio == pytest.approx(d.p / d.q, rel=1e-12)
            if d.accepted is True:
                assert d.u < d.ratio
            elif d.accepted is False:
                assert d.u >= d.ratio
                assert d.position == r.first_rejection
            else:  # nothing checked it: verify off, or after the first rejection
                assert not s.verify or d.position > r.first_rejection
        kinds = list(b.emitted_kinds)
        if not s.verify:
            assert kinds == ["unchecked"] * len(b.emitted_words)
            assert r.emitted == tuple(d.token for d in b.drafts)
            continue
        full = ["accepted"] * r.accepted + [
            "repaired" if r.first_rejection is not None else "bonus"
        ]
        assert kinds == full[: len(kinds)]
        assert len(kinds) + b.truncated == len(r.emitted) == r.accepted + 1
        final = r.repair_token if r.first_rejection is not None else r.bonus_token
        assert b.final_word == tiny_models().vocab[final]


@pytest.mark.parametrize("s", [pytest.param(x, id=i) for x, i in SAMPLED])
def test_trace_rows_are_the_models_at_the_visited_contexts(s: Settings) -> None:
    for _, d, p, q in visited(s, serve_request(s)):
        assert (d.p, d.q) == pytest.approx((p[d.token], q[d.token]), rel=1e-12)
        assert d.alpha == pytest.approx(acceptance_rate(p, q), abs=1e-12)


def test_realised_alpha_follows_match_and_reaches_one() -> None:
    ms = np.round(np.arange(0.0, 1.0001, 0.05), 2)
    realised = [serve_request(Settings(match=float(m))).totals.mean_alpha for m in ms]
    # Realised alpha averages over the contexts each request visits, and those change
    # with m, so it need not be monotone step by step (it is not at m = 0.10 -> 0.15 for
    # seed 8); its rank order with m is nearly perfect.
    assert stats.spearmanr(ms, realised).statistic > 0.98
    assert realised[0] < 0.5
    assert realised[-2] > 0.9
    top = serve_request(Settings(match=1.0))
    assert top.totals.mean_alpha == pytest.approx(1.0, abs=1e-12)
    assert top.totals.rejected_drafts == 0
    assert top.totals.accepted_drafts == top.totals.draft_passes
    assert all(d.accepted for b in top.blocks for d in b.drafts)


def test_prompt_words_outside_the_corpus_are_skipped() -> None:
    trace = serve_request(Settings(prompt="zzzz qqqq the target"))
    assert trace.skipped_prompt_words == ("zzzz", "qqqq")
    assert trace.prompt_words == ("the", "target")
