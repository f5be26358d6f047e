"""Trace detail: the repair picture and context each block records for display."""

from __future__ import annotations

import pytest

from tests.witness.served import SAMPLED, SETTINGS, visited
from witness import Settings, residual, serve_request
from witness.detail import BAR_TOKENS, CONTEXT_WORDS, RESIDUAL_TOP
from witness.lm import tiny_models


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


@pytest.mark.parametrize("s", SETTINGS)
def test_detail_is_bounded(s: Settings) -> None:
    for b in serve_request(s).blocks:
        assert 0 < len(b.bars) <= BAR_TOKENS
        assert len(b.residual_top) <= RESIDUAL_TOP
        assert len(b.context) <= CONTEXT_WORDS
        assert len({bar.word for bar in b.bars}) == len(b.bars)
