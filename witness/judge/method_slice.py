"""Every method on the same two gates, at the request's first drafted position.

The evaluation slice (`witness.judge.evaluation`) samples the chain's three modes there; this
module adds the methods serving systems use beside it, each run for many seeded blocks at
the same p and q and judged the same way: does the emitted token follow p (chi-square
against p, the empirical TV, and the exact TV of the method's law), and what does one pass
buy (the acceptance per level, and the formula's speedup at it for the state's k and c).

- a token tree at the state's width (2 when the state is a chain) and drafting;
- typical acceptance (Medusa) at that width: faster where p is flat, and not lossless;
- prompt lookup: the copied token is one-hot, so it stands with probability p(x); what it
  copies at the first position is what the request's first block would copy (nothing, when
  the prompt has no earlier occurrence of its last words: a plain pass, p's own draw).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from witness.core.distributions import sample_inverse_cdf
from witness.core.keys import Stream, block_uniforms, sibling_uniforms
from witness.core.settings import DISTINCT_WIDTH_MAX, Settings
from witness.core.theory import total_variation_unchecked
from witness.cost.costing import price
from witness.methods.block import lookup_law, unverified_law
from witness.methods.lookup import lookup_draft
from witness.methods.sibling_blocks import simulate_siblings
from witness.methods.sibling_laws import sibling_law_and_acceptance
from witness.methods.typical import typical_law_and_acceptance, typical_threshold
from witness.models.cache import RequestCache
from witness.models.fit import SIGNIFICANCE, ChiSquare, chi_square_against, first_position
from witness.models.pair import models_for
from witness.serve.accounting import speedup_expected

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class MethodCheck:
    """One method at the first position: its sample against p, its exact law, its speed."""

    method: str  # "tree", "typical" or "lookup"
    label: str
    lossless: bool  # by construction (exact rule, repair on, verified)
    blocks: int
    chi_square: ChiSquare
    tv_empirical: float
    tv_exact: float
    keeps_target: bool  # the sample's verdict: no evidence against p at SIGNIFICANCE
    acceptance: float  # the sampled share of positions where a draft stood
    acceptance_exact: float
    speedup_expected: float | None  # the formula at acceptance_exact, the state's k and c
    note: str = ""


TYPICAL = {"acceptance": "typical", "draft_source": "model"}


def tree_settings(s: Settings) -> Settings:
    """The tree the slice checks: the state's own, or two wide when the state is a chain."""
    width = s.tree_width if s.tree_width > 1 else 2
    drafting = (
        s.drafting if not (s.drafting == "distinct" and width > DISTINCT_WIDTH_MAX) else "sample"
    )
    return s.model_copy(
        update={
            "tree_width": width,
            "drafting": drafting,
            "acceptance": "exact",
            "draft_source": "model",
        }
    )


def method_checks(
    settings: Settings, blocks: int, *, cache: RequestCache | None = None
) -> tuple[MethodCheck, ...]:
    """The tree, typical acceptance and prompt lookup at the first position, ``blocks`` each."""

    p, q = first_position(settings)
    tree = tree_settings(settings)
    return (
        _tree(tree, p, q, blocks, cache),
        _typical(settings.model_copy(update=TYPICAL), p, q, blocks),
        _lookup(settings, p, q, blocks, cache),
    )


def own_check(settings: Settings, blocks: int, *, cache: RequestCache | None = None) -> MethodCheck:
    """The state's own method at the first position (its quick sampled check)."""

    p, q = first_position(settings)
    if settings.draft_source == "lookup":
        return _lookup(settings, p, q, blocks, cache)
    if settings.acceptance == "typical":
        return _typical(settings, p, q, blocks)
    return _tree(settings, p, q, blocks, cache)


def _judged(
    method: str,
    label: str,
    lossless: bool,
    counts: NDArray[np.int64],
    hits: NDArray[np.int64],
    p: FloatArray,
    law: FloatArray,
    acceptance: float,
    speedup: float | None,
    note: str = "",
) -> MethodCheck:

    chi = chi_square_against(counts, p)
    n = int(counts.sum())
    return MethodCheck(
        method=method,
        label=label,
        lossless=lossless,
        blocks=n,
        chi_square=chi,
        tv_empirical=float(total_variation_unchecked(counts / n, p)),
        tv_exact=float(total_variation_unchecked(law, p)),
        keeps_target=chi.p_value > SIGNIFICANCE,
        acceptance=float(hits.mean()),
        acceptance_exact=acceptance,
        speedup_expected=speedup,
        note=note,
    )


def _tree(
    s: Settings, p: FloatArray, q: FloatArray, blocks: int, cache: RequestCache | None
) -> MethodCheck:
    w, d = s.tree_width, s.drafting
    label = f"tree {w} wide, {d} drafting"
    if not s.verify:
        law = unverified_law(q, d)
        counts = _unverified_counts(s, q, law, blocks)
        return _judged("tree", label, False, counts, np.zeros(blocks, np.int64), p, law, 0.0, None)
    sim = simulate_siblings(p, q, w, blocks, seed=s.seed, drafting=d, repair=s.repair, cache=cache)
    # With repair off every sibling is tested against p: its own exact acceptance.
    law, beta = sibling_law_and_acceptance(p, q, w, drafting=d, repair=s.repair)
    speed = speedup_expected(beta, s.k, price(s), verify=True)
    return _judged(
        "tree", label, s.repair, sim.first_token_counts, sim.accepted_per_block, p, law, beta, speed
    )


def _typical(s: Settings, p: FloatArray, q: FloatArray, blocks: int) -> MethodCheck:
    w, d = s.tree_width, s.drafting
    label = f"typical acceptance, {w} {'sibling' if w == 1 else 'siblings'}"
    if not s.verify:
        law = unverified_law(q, d)
        counts = _unverified_counts(s, q, law, blocks)
        return _judged(
            "typical", label, False, counts, np.zeros(blocks, np.int64), p, law, 0.0, None
        )
    drafts = _draft_grid(s, q, blocks)
    typical = p > typical_threshold(p)
    ok = typical[drafts]
    first = np.argmax(ok, axis=1)
    hit: NDArray[np.bool_] = np.asarray(ok.any(axis=1))
    token = np.where(hit, drafts[np.arange(blocks), first], int(np.argmax(p)))
    counts = np.bincount(token, minlength=p.shape[0]).astype(np.int64)
    law, beta = typical_law_and_acceptance(p, q, n=w, drafting=d)
    speed = speedup_expected(beta, s.k, price(s), verify=True)
    return _judged("typical", label, False, counts, hit.astype(np.int64), p, law, beta, speed)


def _lookup(
    s: Settings, p: FloatArray, q: FloatArray, blocks: int, cache: RequestCache | None
) -> MethodCheck:
    models = models_for(s.models)
    prompt, _ = models.encode(s.prompt)
    match = lookup_draft(prompt, 1)
    label = "prompt lookup"
    if match is None:  # a plain target pass: p's own draw
        u = block_uniforms(s.seed, blocks, 1, Stream.FINAL)[:, 0]
        counts = np.bincount(sample_inverse_cdf(p, u), minlength=p.shape[0]).astype(np.int64)
        note = "nothing to copy at the first position: a plain target pass"
        return _judged(
            "lookup", label, True, counts, np.zeros(blocks, np.int64), p, p, 0.0, 1.0, note
        )
    x = match.continuation[0]
    word = models.vocab[x]
    note = f"copies '{word}' (seen after '{' '.join(models.vocab[t] for t in match.ngram)}')"
    one_hot = np.zeros_like(p)
    one_hot[x] = 1.0
    law = lookup_law(p, x, s.verify, s.repair)
    if not s.verify:
        counts = np.zeros(p.shape[0], np.int64)
        counts[x] = blocks
        return _judged(
            "lookup", label, False, counts, np.zeros(blocks, np.int64), p, law, 0.0, None, note
        )
    sim = simulate_siblings(
        p, one_hot, 1, blocks, seed=s.seed, drafting="top", repair=s.repair, cache=cache
    )
    speed = speedup_expected(float(p[x]), s.k, 0.0, verify=True)
    return _judged(
        "lookup",
        label,
        s.repair,
        sim.first_token_counts,
        sim.accepted_per_block,
        p,
        law,
        float(p[x]),
        speed,
        note,
    )


def _draft_grid(s: Settings, q: FloatArray, blocks: int) -> IntArray:
    """[blocks, width] drafted siblings from the keyed sibling uniforms, by drafting."""
    w = s.tree_width
    if s.drafting == "top":
        top = np.argsort(-q, kind="stable")[:w]
        return np.broadcast_to(top, (blocks, w))
    u = sibling_uniforms(s.seed, blocks, 1, w, Stream.DRAFT)[:, 0, :]
    first = sample_inverse_cdf(q, u[:, 0])
    if s.drafting == "sample" or w == 1:
        return np.asarray(sample_inverse_cdf(q, u), dtype=np.intp)
    # distinct, two siblings: the inverse CDF of q without the first, by skipping its mass.
    cdf = np.cumsum(q)
    gone = q[first]
    t = u[:, 1] * (1.0 - gone)
    before = cdf[first] - gone
    shifted = np.where(t < before, t, t + gone)
    second = np.minimum(np.searchsorted(cdf, shifted, side="right"), q.shape[0] - 1)
    return np.stack([first, second], axis=1).astype(np.intp)


def _unverified_counts(
    s: Settings, q: FloatArray, law: FloatArray, blocks: int
) -> NDArray[np.int64]:
    """Sibling 0 unchecked: a draw from q (or q's argmax, for top)."""
    if s.drafting == "top":
        counts = np.zeros(q.shape[0], np.int64)
        counts[int(np.argmax(law))] = blocks
        return counts
    u = block_uniforms(s.seed, blocks, 1, Stream.DRAFT)[:, 0]
    return np.bincount(sample_inverse_cdf(q, u), minlength=q.shape[0]).astype(np.int64)
