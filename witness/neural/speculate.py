"""Speculative sampling with the tiny transformers and their KV caches, pass by pass.

Each round the draft proposes k tokens one forward at a time; the target scores the pending
token and the k drafts in one forward over k + 1 positions; the standard rule (accept d with
probability min(1, p(d) / q(d)), else sample the residual max(p - q, 0), and a bonus token
from the last row when all k pass) keeps the target's distribution exactly. A rejection rolls
the target's cache back to the accepted prefix, and the draft's with it: the early exit's rows
live in the target's cache, the separate draft truncates its own.

The caches hold every committed token but the last: that pending token is the first one fed
in the next round, by the draft and by the verifying pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from witness.neural.cache import FloatArray, KVCache
from witness.neural.model import EarlyExit, Transformer

Draft = Transformer | EarlyExit


@dataclass
class Decoded:
    """The committed tokens after the prompt, and how many drafts each verifying pass accepted."""

    tokens: list[int]
    accepted: list[int] = field(default_factory=list)
    k: int = 0
    # The caches as the last pass left them: every committed token's rows but the last one's.
    target_cache: KVCache | None = field(default=None, repr=False)
    draft_cache: KVCache | None = field(default=None, repr=False)

    @property
    def passes(self) -> int:
        return len(self.accepted)

    @property
    def tokens_per_pass(self) -> float:
        """Committed tokens per verifying pass: accepted drafts plus the one the target adds."""
        return float(np.mean(self.accepted)) + 1.0 if self.accepted else 0.0


def _sample(row: FloatArray, u: float) -> int:
    """Inverse-CDF draw from one distribution with one uniform."""
    index = int(np.searchsorted(np.cumsum(row), u * row.sum(), side="right"))
    return min(index, row.size - 1)


def _draft_held(draft: Draft, cache: KVCache) -> int:
    return draft.held(cache) if isinstance(draft, EarlyExit) else cache.length


def speculative_decode(
    target: Transformer,
    draft: Draft,
    prompt: list[int],
    new_tokens: int,
    k: int,
    rng: np.random.Generator,
    temperature: float = 1.0,
) -> Decoded:
    """At least `new_tokens` tokens after `prompt` (a pass may overrun by up to k)."""
    if not prompt:
        raise ValueError("the prompt needs at least one token")
    text = list(prompt)
    target_cache = target.new_cache()
    shared = isinstance(draft, EarlyExit)
    draft_cache = target_cache if isinstance(draft, EarlyExit) else draft.new_cache()
    if len(text) > 1:
        target.forward(text[:-1], target_cache, temperature)
    result = Decoded(tokens=[], k=k)
    while len(text) - len(prompt) < new_tokens:
        committed = len(text)
        drafts: list[int] = []
        q_rows: list[FloatArray] = []
        feed = text[_draft_held(draft, draft_cache) :]
        for _ in range(k):
            q = draft.forward(feed, draft_cache, temperature)[-1]
            token = _sample(q, float(rng.random()))
            drafts.append(token)
            q_rows.append(q)
            feed = [token]
        # One verifying pass: the pending token and the k drafts.
        p_rows = target.forward(text[target_cache.length :] + drafts, target_cache, temperature)
        accepted = 0
        for i, token in enumerate(drafts):
            p, q = p_rows[i], q_rows[i]
            if rng.random() * q[token] < p[token]:
                accepted += 1
                continue
            leftover = np.maximum(p - q, 0.0)
            final = _sample(leftover, float(rng.random()))
            break
        else:
            final = _sample(p_rows[k], float(rng.random()))
        text.extend(drafts[:accepted] + [final])
        # Keep the rows of the pending token and the accepted drafts; the new pending token
        # (`final`) has no rows yet.
        target_cache.rollback(k - accepted)
        if not shared:
            draft_cache.truncate(committed + accepted)
        result.accepted.append(accepted)
    result.tokens = text[len(prompt) :]
    result.target_cache, result.draft_cache = target_cache, draft_cache
    return result


def acceptance(p_rows: FloatArray, q_rows: FloatArray) -> FloatArray:
    """Per position, the chance a drafted token is accepted: the overlap sum min(p, q).

    Examples
    --------
    >>> acceptance(np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]])).tolist()
    [0.5]
    """
    overlap: FloatArray = np.minimum(p_rows, q_rows).sum(axis=-1)
    return overlap
