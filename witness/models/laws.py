"""p and q at one context of the served request, and what the rule derives from them.

A context is named by a pair of integers ``(before, prev)`` (`witness.models.pair`: the n-grams'
last two tokens, or a transformer context's node); with the match and the temperature it
decides every row here.
These are pure functions of their arguments; `witness.models.cache.RequestCache` decides how long
each result is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from witness.core.distributions import greedy_distribution
from witness.core.modes import Mode
from witness.models import kernels
from witness.models.pair import Models

FloatArray = NDArray[np.float64]
IntpArray = NDArray[np.intp]


def draft_law(match: float, p: FloatArray, d: FloatArray) -> FloatArray:
    """The served draft q = m·p + (1 − m)·d: the draft model blended toward the target.

    Examples
    --------
    >>> draft_law(0.25, np.array([1.0, 0.0]), np.array([0.0, 1.0])).tolist()
    [0.25, 0.75]
    """
    q: FloatArray = match * p + (1.0 - match) * d
    return q


def context_pair(models: Models, context: Sequence[int]) -> tuple[int, int]:
    """The (before, prev) pair that names the context after ``context`` (`Models.start`)."""
    return models.start(context)


def target_at(models: Models, greedy: bool, before: int, prev: int) -> FloatArray:
    """p(. | before, prev), in the mode's temperature (greedy: one-hot at the argmax)."""
    p = models.target_row(before, prev)
    return read_only(greedy_distribution(p)) if greedy else p


def adversary_row(p: FloatArray) -> FloatArray:
    """The injected failure's "draft model": all its mass on the target's least likely word.

    Blended in place of the draft model, q = m·p + (1 − m)·a agrees with p only through the
    match m: α = m + (1 − m)·min p, which is m exactly where p gives that word nothing (the
    tiny target is smoothed, so on the served request min p is small but never 0).

    Examples
    --------
    >>> adversary_row(np.array([0.5, 0.0, 0.5])).tolist()
    [0.0, 1.0, 0.0]
    """
    a = np.zeros_like(p)
    a[int(np.argmin(p))] = 1.0
    return a


def law_at(
    models: Models,
    p: FloatArray,
    match: float,
    greedy: bool,
    before: int,
    prev: int,
    adversary: bool = False,
) -> Law:
    """The laws at one context, given its target ``p = target_at(models, greedy, ...)``."""
    # q is blended from the *sampled* target, then made greedy: at match 1, q = p exactly.
    # (`draft_law` and `greedy_distribution`, compiled: `witness.models.kernels`.)
    sampled = models.target_row(before, prev)
    d = adversary_row(sampled) if adversary else models.draft_at(before, prev)
    return Law(p, read_only(kernels.draft_row(sampled, d, match, greedy)))


def read_only(row: FloatArray) -> FloatArray:
    """Cached laws are shared by every request: make an accidental write an error."""
    row.flags.writeable = False
    return row


class Law:
    """p and q at one context, and what the rule derives from them, each computed once.

    Lazy parts are plain attributes filled on first use, not `functools.cached_property`:
    in Python 3.11 that holds one lock shared by every instance, which serialised the
    server's worker threads (two threads filling the same value is harmless: it is pure).
    """

    def __init__(self, p: FloatArray, q: FloatArray) -> None:
        self.p = p
        self.q = q
        # Every draft samples from it: `sample_from_cdf(law.q, law.q_cdf, u)`; every draft
        # step shows α = Σ min(p, q). (`q.cumsum()` and the sum, compiled:
        # `witness.models.kernels`.)
        cdf, self.alpha = kernels.cdf_and_alpha(p, q)
        self.q_cdf: FloatArray = read_only(cdf)
        self._residual: FloatArray | None = None
        self._by_residual: dict[int, IntpArray] = {}
        self._by_max: dict[int, IntpArray] = {}
        self._tv: dict[Mode, float] = {}
        # Values the other methods derive here (a tree's acceptance, its exact TV), keyed by
        # what decides them (`witness.methods.block`).
        self.memo: dict[tuple[object, ...], object] = {}

    @property
    def residual(self) -> FloatArray:
        if self._residual is None:  # `residual_unchecked`, compiled
            self._residual = read_only(kernels.residual_row(self.p, self.q))
        return self._residual

    def top_by_residual(self, n: int) -> IntpArray:
        """The first ``n`` token ids by residual mass, largest first (ties by id)."""
        if n not in self._by_residual:
            self._by_residual[n] = np.argsort(-self.residual, kind="stable")[:n]
        return self._by_residual[n]

    def top_by_max(self, n: int) -> IntpArray:
        """The first ``n`` token ids by max(p, q), largest first (ties by id)."""
        if n not in self._by_max:
            order = np.argsort(-np.maximum(self.p, self.q), kind="stable")
            self._by_max[n] = order[:n]
        return self._by_max[n]

    def tv(self, mode: Mode) -> float:
        """Exact total variation between the law this mode emits here and p."""
        if mode not in self._tv:  # TV(output_law(p, q, …), p), compiled
            verify, repair = mode != "no_verify", mode == "lossless"
            self._tv[mode] = kernels.tv_row(self.p, self.q, verify, repair)
        return self._tv[mode]
