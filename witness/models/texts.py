"""The target's own texts: what a lossless request emits, whatever the draft, match or k.

With target verify and sampling repair on, every emitted token has the target's law
(`witness.core.rule`), so the text of a lossless request is a sample of the target alone. An
exact-given-text ensemble (`witness.judge.expected`) draws its texts here once per prompt, length,
temperature and seeds, and reads every (match, k) off them: nothing here depends on either.

A text is drawn token by token by inverse CDF from p at its context, each uniform keyed by
(seed, 0, position) in its own stream (`Stream.TEXT`), so a text is a pure function of its
seed. Greedy decoding has one text, p's argmax at every step, whatever the seed: each seed
holds that same text, so a greedy ensemble pairs seed by seed with any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from witness.core.keys import Stream, uniforms
from witness.models.lm import BOUNDARY, TinyModels, tiny_models
from witness.models.pair import Models

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


@dataclass(frozen=True, slots=True, eq=False)
class Texts:
    """Target texts, one per seed, [texts, tokens] each (read-only arrays).

    ``rows[j, t]`` is the target table row of the context of text j's token t (the draft
    reads ``prev_of_row`` of it) and ``token[j, t]`` the token p gave there; ``p[j, t]`` is
    p(token) and ``d[j, t]`` the draft model's d(token) at that context.
    """

    seeds: tuple[int, ...]
    greedy: bool
    rows: IntArray
    token: IntArray
    p: FloatArray
    d: FloatArray
    # The transformers' whole laws along the texts, [texts, tokens, vocab] (their contexts have
    # no table to look rows up in); None for the n-grams, whose ``rows`` index their tables.
    p_rows: FloatArray | None = None
    d_rows: FloatArray | None = None

    @property
    def n(self) -> int:
        return int(self.rows.shape[0])

    @property
    def tokens(self) -> int:
        return int(self.rows.shape[1])


def draw_texts(
    prompt: str,
    tokens: int,
    greedy: bool,
    seeds: Sequence[int],
    *,
    models: Models | None = None,
) -> Texts:
    """The target's text after ``prompt`` at each seed (greedy: its one text at every seed).

    Examples
    --------
    >>> t = draw_texts("the draft model proposes", 6, False, (8, 9))
    >>> t.rows.shape, bool((t.p > 0).all()), t.seeds
    ((2, 6), True, (8, 9))
    >>> bool((draw_texts("the draft model proposes", 6, False, (9,)).token == t.token[1]).all())
    True
    >>> g = draw_texts("the", 4, True, (8, 9, 10))
    >>> g.seeds, bool((g.token == g.token[0]).all())
    ((8, 9, 10), True)
    """
    models = tiny_models() if models is None else models
    seeds = tuple(seeds)
    if not seeds:
        raise ValueError("draw_texts needs at least one seed")
    if not isinstance(models, TinyModels):
        return _transformer_texts(models, prompt, tokens, greedy, seeds)
    n = 1 if greedy else len(seeds)  # greedy: one text, repeated at every seed below
    ids, _ = models.encode(prompt)
    pad = models.index[BOUNDARY]
    context = [pad, pad, *ids]
    before = np.full(n, context[-2], dtype=np.intp)
    prev = np.full(n, context[-1], dtype=np.intp)
    rows = np.empty((n, tokens), dtype=np.intp)
    token = np.empty((n, tokens), dtype=np.intp)
    table, cdf, row_of = models.target_rows, models.target_cdf, models.row_of
    u = None if greedy else uniforms(np.asarray(seeds)[:, None], 0, np.arange(tokens), Stream.TEXT)
    for t in range(tokens):
        r = row_of[before, prev]
        if u is None:
            x = models.target_argmax[r]
        else:
            x = _inverse_cdf(np.take(cdf, r, axis=0), u[:, t])
        rows[:, t], token[:, t] = r, x
        before, prev = prev, x
    shape = (len(seeds), tokens)
    rows, token = np.broadcast_to(rows, shape), np.broadcast_to(token, shape)
    p = table[rows, token]
    d = models.draft_rows[models.prev_of_row[rows], token]
    for a in (p, d):
        a.flags.writeable = False
    return Texts(seeds, greedy, rows, token, p, d)


def _inverse_cdf(cdf: FloatArray, u: FloatArray) -> IntArray:
    """Per row, the first token whose CDF exceeds u times the row's total (`sample_from_cdf`),
    else the last (u·total rounds up to the total only within an ulp of 1; a target row gives
    every word some mass)."""
    above = cdf > (u * cdf[:, -1])[:, None]
    index: IntArray = np.where(above[:, -1], above.argmax(axis=1), cdf.shape[1] - 1)
    return index


def _transformer_texts(
    models: Models, prompt: str, tokens: int, greedy: bool, seeds: tuple[int, ...]
) -> Texts:
    """The transformer target's texts, drawn in lockstep: each step one batched decoding step
    of every text (`witness.neural.contexts.ContextTree.extend`), the same uniforms and the
    same inverse CDF as the n-grams'. ``rows`` are the contexts' trie nodes."""
    from witness.neural.served import TransformerModels

    assert isinstance(models, TransformerModels)
    tree = models.tree
    n = 1 if greedy else len(seeds)
    ids, _ = models.encode(prompt)
    node = tree.path(ids)
    nodes = [node] * n
    past = tree.gather(nodes)
    rows = np.empty((n, tokens), dtype=np.intp)
    token = np.empty((n, tokens), dtype=np.intp)
    p_rows = np.empty((n, tokens, models.size))
    d_rows = np.empty((n, tokens, models.size))
    u = None if greedy else uniforms(np.asarray(seeds)[:, None], 0, np.arange(tokens), Stream.TEXT)
    for t in range(tokens):
        for j, c in enumerate(nodes):
            p_rows[j, t] = models.target_row(c, -1)
            d_rows[j, t] = models.draft_at(c, -1)
        if u is None:
            x = p_rows[:, t].argmax(axis=1)
        else:
            x = _inverse_cdf(np.cumsum(p_rows[:, t], axis=1), u[:, t])
        rows[:, t], token[:, t] = nodes, x
        if t + 1 < tokens:
            nodes, past = tree.extend(nodes, [int(v) for v in x], past)
    shape = (len(seeds), tokens)
    at = np.arange(tokens)
    p = p_rows[np.arange(n)[:, None], at, token]
    d = d_rows[np.arange(n)[:, None], at, token]

    def shared(a: NDArray[Any]) -> NDArray[Any]:  # greedy: the one text at every seed
        out = np.broadcast_to(a, (*shape, *a.shape[2:]))
        out.flags.writeable = False
        return out

    return Texts(
        seeds,
        greedy,
        shared(rows),
        shared(token),
        shared(p),
        shared(d),
        shared(p_rows),
        shared(d_rows),
    )
