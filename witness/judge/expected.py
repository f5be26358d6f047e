"""Exact expected passes given the target's text: the verdicts of the lossless chain.

With target verify, sampling repair and the exact acceptance test, a request's text is a
sample of the target alone (`witness.models.texts`), whatever the match, k and c. Given the text,
each drafted position whose context is the text's (every draft up to the block's first
rejection) was accepted with a probability known in closed form: the joint law of "accepted"
and "emitted x" is min(p, q)(x), of "rejected" and x it is (p − q)⁺(x), so

    P(accepted | x) = min(p, q)(x) / p(x) = min(1, m + (1 − m)·d(x)/p(x))

with q = m·p + (1 − m)·d (the adversary's d is one-hot on p's least likely word; greedy
accepts exactly where q's argmax is p's). Those events are independent given the text, so
the expected target passes, draft passes and tokens scored per pass of a request given its
text follow from one forward recursion over the text's positions (`expected_passes`): the
probability that a block starts at each position. Averaging them over texts estimates the
same expectations as served requests do (a Rao–Blackwellised ensemble, tested against 512
served requests in tests/witness/test_expected.py), with less spread, and a new (match, k)
costs only the recursion.

The speedup of an ensemble is a ratio of means either way (`witness.judge.ensemble`), so this
estimator and served requests judge the same quantity; a comparison still never sets one
against the other (`witness.judge.ensemble.compare` refuses it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from witness.core.settings import Settings
from witness.judge.ensemble import Ensemble, ensemble_seeds, ensemble_size, serve_ensemble
from witness.methods.block import is_chain
from witness.models.cache import RequestCache
from witness.models.lm import TinyModels, tiny_models
from witness.models.pair import Models, models_for
from witness.models.texts import Texts, draw_texts

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


def exact_applies(s: Settings) -> bool:
    """Whether the exact-given-text estimator judges ``s``: the lossless chain (verify, repair
    and the exact test; a model draft or the adversary), whose text is the target's alone."""
    return s.verify and s.repair and is_chain(s)


def ensemble_of(
    settings: Settings, *, served: bool = False, cache: RequestCache | None = None
) -> Ensemble:
    """The state's verdicts' ensemble: exact given the target's texts where `exact_applies`,
    else seeded requests served (also where ``served``: the side of a comparison whose other
    side has no exact form). ``cache`` serves the requests."""
    if exact_applies(settings) and not served:
        return exact_ensemble(settings)
    return serve_ensemble(settings, cache=cache)


def texts_for(s: Settings, *, models: Models | None = None) -> Texts:
    """The texts an exact ensemble of ``s`` averages over: ``ensemble_size`` seeds from the
    request's own (greedy: its one text)."""
    seeds = ensemble_seeds(s.seed, ensemble_size(s.tokens))
    models = models_for(s.models) if models is None else models
    return draw_texts(s.prompt, s.tokens, s.greedy, seeds, models=models)


@dataclass(frozen=True, slots=True)
class Acceptance:
    """Per text and position: P(accepted | the text's token), and α at the context."""

    accept: FloatArray  # [texts, tokens]
    alpha: FloatArray  # [texts, tokens]


def acceptance(
    texts: Texts, match: float, adversary: bool, *, models: TinyModels | None = None
) -> Acceptance:
    """P(a draft at each text position is accepted | the token there), and α there.

    α at a context is Σ min(p, q) = 1 − (1 − m)·TV(p, d): linear in the match, so the
    distance of the draft from the target is read once per context (`_laws_along`).

    Examples
    --------
    >>> t = draw_texts("the draft model proposes", 8, False, (8, 9))
    >>> a = acceptance(t, 1.0, False)
    >>> bool((a.accept == 1.0).all() and np.allclose(a.alpha, 1.0))
    True
    >>> z = acceptance(t, 0.0, True)
    >>> bool((z.accept < 1e-12).all())  # p's least likely word is never the text's here
    True
    """
    laws = _laws_along(texts, models)
    if texts.greedy:
        # q's argmax as the served request blends it (m·p + (1 − m)·d, then argmax).
        s = laws.target(0)
        if adversary:
            d = np.zeros_like(s)
            d[np.arange(s.shape[0]), laws.least()[0]] = 1.0
        else:
            d = laws.draft(0)
        q = match * s + (1.0 - match) * d
        hit = (q.argmax(axis=1) == texts.token[0]).astype(np.float64)
        every = np.broadcast_to(hit, texts.rows.shape)  # the one text, at every seed
        return Acceptance(every, every)
    if adversary:
        least = laws.least()
        ratio = np.where(texts.token == least, 1.0 / texts.p, 0.0)
        tv = 1.0 - laws.p_at(least)
    else:
        ratio = texts.d / texts.p
        tv = laws.draft_tv()
    accept = np.minimum(1.0, match + (1.0 - match) * ratio)
    return Acceptance(accept, 1.0 - (1.0 - match) * tv)


@dataclass(frozen=True, slots=True)
class _LawsAlong:
    """What `acceptance` reads of the laws at the texts' contexts: text j's target and draft
    rows, p's least likely token per position, p there, and TV(p, d) per position."""

    target: Callable[[int], FloatArray]
    draft: Callable[[int], FloatArray]
    least: Callable[[], IntArray]
    p_at: Callable[[IntArray], FloatArray]
    draft_tv: Callable[[], FloatArray]


def _laws_along(texts: Texts, models: TinyModels | None) -> _LawsAlong:
    """The n-grams' laws looked up in their tables by the texts' rows; the transformers'
    kept along the texts when they were drawn (a trie has no table)."""
    p, d = texts.p_rows, texts.d_rows
    if p is not None and d is not None:
        return _LawsAlong(
            target=lambda j: p[j],
            draft=lambda j: d[j],
            least=lambda: p.argmin(axis=2),
            p_at=lambda least: np.take_along_axis(p, least[..., None], axis=2)[..., 0],
            draft_tv=lambda: 0.5 * np.abs(p - d).sum(axis=2),
        )
    m = tiny_models() if models is None else models
    rows = texts.rows
    return _LawsAlong(
        target=lambda j: m.target_rows[rows[j]],
        draft=lambda j: m.draft_rows[m.prev_of_row[rows[j]]],
        least=lambda: m.target_argmin[rows],
        p_at=lambda least: m.target_rows[rows, least],
        draft_tv=lambda: m.draft_tv[rows],
    )


@dataclass(frozen=True, slots=True)
class Expected:
    """Per text, given it: expected target passes, draft passes, and passes by tokens scored
    (``scored[:, s]``: passes that scored s tokens, 1 to k + 1)."""

    target: FloatArray
    draft: FloatArray
    scored: FloatArray


def expected_passes(accept: FloatArray, k: int) -> Expected:
    """The expected passes of the chain at draft length ``k`` given each text.

    A block starting at position t drafts D(t) = min(k, T − t − 1) (no further than the
    request goes); it emits j + 1 tokens when its first rejection is draft j, and D + 1 when
    every draft stands. ``start[t]``, the probability that a block starts at t, is carried
    forward through those transitions; a request's expected target passes are Σ start[t],
    its draft passes Σ start[t]·D(t).

    Examples
    --------
    >>> e = expected_passes(np.array([[1.0, 1.0, 1.0, 1.0, 1.0]]), 2)  # every draft stands
    >>> e.target.tolist(), e.draft.tolist()  # a block of 3 tokens (2 drafts), then 2 (1 draft)
    ([2.0], [3.0])
    >>> expected_passes(np.zeros((1, 5)), 4).target.tolist()  # every draft rejected
    [5.0]
    >>> round(float(expected_passes(np.full((1, 2), 0.5), 1).target[0]), 12)  # 1 + P(reject)
    1.5
    """
    n, T = accept.shape
    K = min(k, T - 1)
    drafts = np.minimum(k, T - 1 - np.arange(T))  # D(t)
    if K == 0:
        ones = np.ones(n)
        return Expected(ones * T, np.zeros(n), np.column_stack([np.zeros(n), ones * T]))
    padded = np.zeros((n, T + K))
    padded[:, :T] = accept
    window = sliding_window_view(padded, K, axis=1)[:, :T, :]  # [n, t, j]: accept[t + j]
    lead = np.ones((n, T, K + 1))  # P(the block's first j drafts all stand)
    np.cumprod(window, axis=2, out=lead[:, :, 1:])
    # P(the block at t emits j + 1 tokens): rejected at draft j < D(t), or all D(t) stood.
    emits = np.zeros((n, T, K + 1))
    j = np.arange(K + 1)
    inside = j[None, :] < drafts[:, None]  # [t, j]
    emits[:, :, :K] = lead[:, :, :K] * (1.0 - window)
    emits *= inside
    ends = j[None, :] == drafts[:, None]
    emits += lead * ends
    # Carried forward position by position, [position, text] so each step reads and writes
    # contiguous rows (a third less time per step than [text, position]).
    flow = np.ascontiguousarray(emits.transpose(1, 2, 0))
    start = np.zeros((T + K + 1, n))
    start[0] = 1.0
    for t in range(T):
        start[t + 1 : t + K + 2] += flow[t] * start[t]
    at = start[:T].T
    scored = np.zeros((n, K + 2))
    scored[:, K + 1] = at[:, : T - K].sum(axis=1)
    tail = np.arange(T - K, T)  # the last K positions draft T − t − 1 each
    scored[:, T - tail] = at[:, tail]
    return Expected(at.sum(axis=1), at @ drafts.astype(np.float64), scored)


def exact_ensemble(
    settings: Settings, texts: Texts | None = None, *, models: Models | None = None
) -> Ensemble:
    """The verdicts' ensemble of a lossless chain (`exact_applies`), exact given each text.

    ``texts`` are `texts_for(settings)` (drawn here when None); the match, k and draft
    source are the settings'. α is the mean over every position of every text a draft can
    be made at (all but the last; the first alone for one token), each position's α being
    that of its context.
    """
    if not exact_applies(settings):
        raise ValueError("exact_ensemble judges the lossless chain only (exact_applies)")
    texts = texts_for(settings, models=models) if texts is None else texts
    if texts.tokens != settings.tokens or texts.greedy != settings.greedy:
        raise ValueError("texts drawn for another length or temperature")
    tables = models if isinstance(models, TinyModels) else None  # the transformers': along texts
    law = acceptance(texts, settings.match, settings.draft_source == "adversary", models=tables)
    passes = expected_passes(law.accept, settings.k)
    reach = max(1, texts.tokens - 1)
    alphas = law.alpha[:, :reach].ravel()
    pairs = tuple(
        tuple((s, float(x)) for s, x in enumerate(row) if x > 0.0) for row in passes.scored
    )
    total = float(passes.target.sum())
    return Ensemble(
        seeds=texts.seeds,
        tokens=settings.tokens,
        k=settings.k,
        verify=True,
        target_passes=tuple(passes.target.tolist()),
        draft_passes=tuple(passes.draft.tolist()),
        alpha=float(alphas.mean()),
        alpha_low=float(np.percentile(alphas, 10)),
        alpha_high=float(np.percentile(alphas, 90)),
        tokens_per_pass=settings.tokens * texts.n / total,
        drafted_positions=int(round(float(passes.draft.sum()))),
        scored=pairs,
        estimator="exact-given-text",
        texts=1 if texts.greedy else texts.n,
    )
