"""Trace detail: how much of each block the trace records for display.

These choices are about what a learner is shown (context words, the bars of the repair
picture, the residual's top tokens), yet they live in the witness, not the app, because
they decide what the trace *carries*: `RequestTrace.to_dict()` is the JSON API's answer,
and the API must give the same bytes as the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from witness.laws import Law
from witness.trace import Bar

CONTEXT_WORDS = 6  # words of context recorded before each block
BAR_TOKENS = 8  # tokens drawn in the p / q / residual picture
RESIDUAL_TOP = 5  # tokens of the residual listed with their shares
RESIDUAL_BARS = 3  # of those, how many are sure of a bar after the drafted token


def context_words(vocab: Sequence[str], context: Sequence[int]) -> tuple[str, ...]:
    """The last CONTEXT_WORDS words before a block."""
    return tuple(vocab[t] for t in context[-CONTEXT_WORDS:])


def repair_picture(
    vocab: Sequence[str], law: Law, drafted: int
) -> tuple[tuple[Bar, ...], tuple[tuple[str, float], ...]]:
    """Bars of p, q, min(p, q) and the residual over the tokens that carry the picture."""
    p, q, r = law.p, law.q, law.residual
    top_ids = law.top_by_residual(RESIDUAL_TOP)
    # The drafted token, the residual's top tokens, then whatever either model likes most.
    order = [drafted, *top_ids[:RESIDUAL_BARS], *law.top_by_max(BAR_TOKENS)]
    picked = list(dict.fromkeys(int(t) for t in order))[:BAR_TOKENS]
    bars = tuple(
        Bar(vocab[t], float(p[t]), float(q[t]), float(min(p[t], q[t])), float(r[t])) for t in picked
    )
    top = tuple((vocab[int(t)], float(r[t])) for t in top_ids if r[t] > 0)
    return bars, top
