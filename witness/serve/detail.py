"""Trace detail: how much of each block the trace records for display.

These choices are about what a learner is shown (context words, the bars of the repair
picture, the residual's top tokens), yet they live in the witness, not the app, because
they decide what the trace *carries*: `RequestTrace.to_dict()` is the JSON API's answer,
and the API must give the same bytes as the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from witness.core.trace import Bar
from witness.models.laws import Law

CONTEXT_WORDS = 6  # words of context recorded before each block
BAR_TOKENS = 8  # tokens drawn in the stacked repair picture (min(p, q) + rejection mass)
RESIDUAL_TOP = 5  # tokens of the residual listed with their shares
RESIDUAL_BARS = 3  # of those, how many are sure of a bar after the drafted token


def context_words(vocab: Sequence[str], context: Sequence[int]) -> tuple[str, ...]:
    """The last CONTEXT_WORDS words before a block."""
    return tuple(vocab[t] for t in context[-CONTEXT_WORDS:])


def repair_picture(
    vocab: Sequence[str], law: Law, drafted: int
) -> tuple[tuple[Bar, ...], tuple[tuple[str, float], ...]]:
    """The stacked repair picture over the tokens that carry it, and the residual's top tokens.

    Each bar records p, q, min(p, q) and the normalised residual r, and the two masses a
    rejection can put on top of min(p, q): (1 − α)·r(x) with repair on, which fills p exactly,
    and (1 − α)·p(x) with repair off, which does not. α is the focus position's ``law.alpha``.
    The drafted token always comes first.

    Examples
    --------
    >>> import numpy as np
    >>> law = Law(np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.6, 0.2]))
    >>> bars, top = repair_picture(["a", "b", "c"], law, 1)
    >>> [(b.word, round(b.overlap + b.repair_mass, 12), b.p) for b in bars]
    [('b', 0.3, 0.3), ('a', 0.5, 0.5), ('c', 0.2, 0.2)]
    >>> [round(b.overlap + b.resample_mass, 12) for b in bars]  # repair off: not p
    [0.39, 0.35, 0.26]
    >>> top
    (('a', 1.0),)
    """
    p, q, r = law.p, law.q, law.residual
    # The mass a rejection spreads: 1 − α, never below 0 where rounding puts α a hair over 1.
    rejection = max(0.0, 1.0 - law.alpha)
    top_ids = law.top_by_residual(RESIDUAL_TOP)
    # The drafted token, the residual's top tokens, then whatever either model likes most.
    order = [int(drafted), *top_ids[:RESIDUAL_BARS].tolist(), *law.top_by_max(BAR_TOKENS).tolist()]
    picked = list(dict.fromkeys(order))[:BAR_TOKENS]
    # The picked values as Python floats in one conversion each (a bar reads seven).
    ps, qs, rs = (row[picked].tolist() for row in (p, q, r))
    bars = tuple(
        Bar(
            word=vocab[t],
            p=pt,
            q=qt,
            overlap=min(pt, qt),
            residual=rt,
            repair_mass=rejection * rt,
            resample_mass=rejection * pt,
        )
        for t, pt, qt, rt in zip(picked, ps, qs, rs, strict=True)
    )
    ids = top_ids.tolist()
    top = tuple((vocab[t], x) for t, x in zip(ids, r[ids].tolist(), strict=True) if x > 0)
    return bars, top
