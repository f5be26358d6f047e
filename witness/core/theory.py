"""The closed forms of speculative sampling: acceptance, the residual, exact output laws, cost.

Every function here is exact (no sampling) and vectorised over leading axes: a distribution
is the last axis of an array, so a ``[k, V]`` stack of rows is handled in one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.core.distributions import as_distribution

FloatArray = NDArray[np.float64]


def _pair(p: ArrayLike, q: ArrayLike) -> tuple[FloatArray, FloatArray]:
    pa, qa = as_distribution(p, "p"), as_distribution(q, "q")
    if pa.shape[-1] != qa.shape[-1]:
        raise ValueError(f"p and q need the same vocabulary: {pa.shape[-1]} != {qa.shape[-1]}")
    return pa, qa


def _scalar_or_array(x: FloatArray) -> FloatArray | float:
    return float(x) if x.ndim == 0 else x


def acceptance_rate(p: ArrayLike, q: ArrayLike) -> FloatArray | float:
    """Probability that a token drafted from ``q`` is accepted against ``p``.

    Notes
    -----
    .. math:: \\alpha = \\sum_x \\min(p(x), q(x)) = 1 - \\mathrm{TV}(p, q)

    Examples
    --------
    >>> round(acceptance_rate([.1, .2, .3, .4], [.4, .3, .2, .1]), 12)
    0.6
    """
    pa, qa = _pair(p, q)
    return _scalar_or_array(np.minimum(pa, qa).sum(axis=-1))


def total_variation(p: ArrayLike, q: ArrayLike) -> FloatArray | float:
    """Total-variation distance, ``0.5 * sum |p - q|``.

    Examples
    --------
    >>> round(total_variation([.1, .2, .3, .4], [.4, .3, .2, .1]), 12)
    0.4
    """
    return _scalar_or_array(np.asarray(total_variation_unchecked(*_pair(p, q))))


def total_variation_unchecked(p: FloatArray, q: FloatArray) -> FloatArray | np.float64:
    """`total_variation` without the input checks (a numpy scalar for one row)."""
    tv: FloatArray | np.float64 = 0.5 * np.abs(p - q).sum(axis=-1)
    return tv


def residual(p: ArrayLike, q: ArrayLike) -> FloatArray:
    """The repair distribution sampled at the first rejection.

    Notes
    -----
    .. math:: r(x) = \\frac{\\max(0, p(x) - q(x))}{\\sum_y \\max(0, p(y) - q(y))}

    Where ``p == q`` the denominator is 0 and no rejection can happen, so the residual is
    never drawn from; rather than return NaN we return ``p`` for such rows (any law would do,
    and ``p`` keeps "the output is p" true even for a caller who samples it anyway).

    Examples
    --------
    >>> residual([.1, .2, .3, .4], [.4, .3, .2, .1]).round(12).tolist()
    [0.0, 0.0, 0.25, 0.75]
    >>> residual([.5, .5], [.5, .5]).tolist()
    [0.5, 0.5]
    """
    return residual_unchecked(*_pair(p, q))


def residual_unchecked(p: FloatArray, q: FloatArray) -> FloatArray:
    """`residual` without the input checks, for callers that built p and q themselves."""
    if p.ndim == 1:  # the served request's hot path: one row, no broadcasting machinery
        row = np.subtract(p, q)
        np.maximum(row, 0.0, out=row)  # in place: the same values, one array instead of three
        total = row.sum()
        if not total > 0.0:
            return p
        row /= total
        return row
    excess = np.maximum(p - q, 0.0)
    mass = excess.sum(axis=-1, keepdims=True)
    safe = np.where(mass > 0.0, mass, 1.0)
    return np.where(mass > 0.0, excess / safe, p)


def output_distribution(
    p: ArrayLike, q: ArrayLike, *, verify: bool = True, repair: bool = True
) -> FloatArray:
    """Exact law of the token emitted at a drafted position, per the switches table.

    Notes
    -----
    A drafted token is accepted with probability ``min(p, q)`` mass, and a rejection happens
    with total probability ``1 - alpha``; what the rejection emits decides the law:

    - verify on, repair on:  ``min(p, q) + (1 - alpha) * r = p``  (lossless);
    - verify on, repair off: ``min(p, q) + (1 - alpha) * p``       (biased toward q);
    - verify off:            ``q``                                 (plain draft sampling).

    The lossless case is computed from the formula, not returned as ``p``, so the tests that
    compare it with ``p`` test the algebra.

    Examples
    --------
    >>> p, q = [.1, .2, .3, .4], [.4, .3, .2, .1]
    >>> output_distribution(p, q).round(12).tolist()
    [0.1, 0.2, 0.3, 0.4]
    >>> output_distribution(p, q, repair=False).round(12).tolist()
    [0.14, 0.28, 0.32, 0.26]
    >>> output_distribution(p, q, verify=False).tolist()
    [0.4, 0.3, 0.2, 0.1]
    """
    pa, qa = _pair(p, q)
    return output_law(pa, qa, verify=verify, repair=repair)


def output_law(p: FloatArray, q: FloatArray, *, verify: bool, repair: bool) -> FloatArray:
    """`output_distribution` without the input checks, for callers that built p and q."""
    if not verify:
        return q.copy()
    overlap = np.minimum(p, q)
    rejected = 1.0 - overlap.sum(axis=-1, keepdims=True)
    repaired_from = residual_unchecked(p, q) if repair else p
    law: FloatArray = overlap + rejected * repaired_from
    return law


def expected_tokens_per_pass(alpha: ArrayLike, k: ArrayLike) -> FloatArray | float:
    """Expected tokens emitted per target pass with draft length ``k``.

    Notes
    -----
    .. math:: E[\\text{tokens}] = \\sum_{j=0}^{k} \\alpha^j = \\frac{1 - \\alpha^{k+1}}{1 - \\alpha}

    Summed as the geometric series rather than the quotient, so ``alpha = 1`` gives exactly
    ``k + 1`` and values near 1 lose no precision.

    Examples
    --------
    >>> round(expected_tokens_per_pass(0.8, 4), 12)
    3.3616
    >>> expected_tokens_per_pass(1.0, 4), expected_tokens_per_pass(0.0, 4)
    (5.0, 1.0)
    """
    one = _one(alpha, k)
    if one is not None:  # the views ask one (α, k) at a time, dozens per answer
        return _tokens_per_pass_one(*one)
    a = np.asarray(alpha, dtype=np.float64)
    kk = np.asarray(k)
    if kk.dtype.kind not in "iu" or (kk < 0).any():
        raise ValueError("k must be a non-negative integer")
    if not np.isfinite(a).all() or (a < 0).any() or (a > 1).any():
        raise ValueError("alpha must lie in [0, 1]")
    a, kk = np.broadcast_arrays(a, kk)
    j = np.arange(int(kk.max(initial=0)) + 1)
    terms = np.where(j <= kk[..., None], a[..., None] ** j, 0.0)
    return _scalar_or_array(terms.sum(axis=-1))


_POWERS = np.arange(1025)  # exponents j of the series, 0 to the longest search of k (1 024)
_POWERS.flags.writeable = False


def _one(alpha: ArrayLike, k: ArrayLike) -> tuple[float, int] | None:
    """(α, k) when they are one number and one integer (not arrays, not bools), else None."""
    number = isinstance(alpha, int | float | np.integer | np.floating)
    integer = isinstance(k, int | np.integer)
    if number and integer and not isinstance(alpha, bool) and not isinstance(k, bool):
        return float(alpha), int(k)  # type: ignore[arg-type]
    return None


def _tokens_per_pass_one(a: float, k: int) -> float:
    """`expected_tokens_per_pass` at one (α, k), with the same float operations as the array
    path (the powers a ** j on a numpy row, summed by numpy), without its broadcasting."""
    if k < 0:
        raise ValueError("k must be a non-negative integer")
    if not (0.0 <= a <= 1.0):  # NaN fails this too
        raise ValueError("alpha must lie in [0, 1]")
    powers = _POWERS[: k + 1] if k < _POWERS.size else np.arange(k + 1)
    return float((np.float64(a) ** powers).sum())


def expected_speedup(alpha: ArrayLike, k: ArrayLike, c: ArrayLike) -> FloatArray | float:
    """Expected walltime improvement over plain decoding with draft cost ``c``.

    Notes
    -----
    One block costs one target pass plus ``k`` draft passes of relative cost ``c``:

    .. math:: S = \\frac{1 - \\alpha^{k+1}}{(1 - \\alpha)(k c + 1)}

    Examples
    --------
    >>> round(expected_speedup(0.8, 4, 0.05), 6)
    2.801333
    """
    one = _one(alpha, k)
    if one is not None and isinstance(c, int | float | np.integer | np.floating):
        cost = float(c)
        if not (0.0 <= cost < float("inf")):  # NaN fails this too
            raise ValueError("c must be a finite, non-negative cost ratio")
        return _tokens_per_pass_one(*one) / (one[1] * cost + 1.0)
    cc = np.asarray(c, dtype=np.float64)
    if not np.isfinite(cc).all() or (cc < 0).any():
        raise ValueError("c must be a finite, non-negative cost ratio")
    tokens = np.asarray(expected_tokens_per_pass(alpha, k))
    return _scalar_or_array(tokens / (np.asarray(k) * cc + 1.0))


def optimal_k(alpha: float, c: float, k_max: int = 32) -> int:
    """The draft length in ``1..k_max`` with the highest expected speedup (ties: smaller k).

    Even the best ``k`` may not pay: see :func:`speculation_pays`.

    Examples
    --------
    >>> optimal_k(0.8, 0.05)
    8
    """
    if k_max < 1:
        raise ValueError("k_max must be at least 1")
    ks = np.arange(1, k_max + 1)
    speedups = np.asarray(expected_speedup(alpha, ks, c))
    # argmax returns the first maximum, which is the tie rule we want; the rounding keeps
    # float noise from breaking an exact tie in favour of the longer draft.
    return int(ks[np.argmax(np.round(speedups, 12))])


def break_even_cost(alpha: ArrayLike, k: ArrayLike) -> FloatArray | float:
    """The draft cost at which draft length ``k`` stops paying: the formula's speedup is 1.

    Notes
    -----
    .. math:: c^*(\\alpha, k) = \\frac{E[\\text{tokens}](\\alpha, k) - 1}{k}

    At ``k = 1`` this is ``alpha`` (the familiar "alpha > c" rule); at larger k it is smaller
    whenever alpha < 1, so the k = 1 rule says nothing about whether k = 4 pays.

    Examples
    --------
    >>> round(break_even_cost(0.44, 1), 12), round(break_even_cost(0.44, 4), 4)
    (0.44, 0.1891)
    """
    kk = np.asarray(k)
    if kk.dtype.kind not in "iu" or (kk < 1).any():
        raise ValueError("k must be a positive integer")
    tokens = np.asarray(expected_tokens_per_pass(alpha, kk))
    return _scalar_or_array((tokens - 1.0) / kk)


def break_even_alpha(k: int, c: float) -> float:
    """The acceptance rate draft length ``k`` needs to pay at draft cost ``c``.

    The α at which the formula's speedup is 1: ``sum_{j<=k} alpha^j = 1 + k c``. At ``k = 1``
    it is ``c``; longer drafts need more. It is 1 when ``c >= 1`` (only certain acceptance
    breaks even then).

    Examples
    --------
    >>> round(break_even_alpha(1, 0.45), 12), round(break_even_alpha(4, 0.45), 4)
    (0.45, 0.7051)
    """
    if k < 1:
        raise ValueError("k must be a positive integer")
    if c <= 0.0:
        return 0.0
    if c >= 1.0:
        return 1.0
    # The series rises strictly in alpha on [0, 1], from 1 to k + 1: bisect to 1e-12.
    lo, hi = 0.0, 1.0
    for _ in range(45):
        mid = (lo + hi) / 2
        if float(expected_tokens_per_pass(mid, k)) < 1.0 + k * c:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# How far the unconstrained optimum is searched: past it the speedup only falls (for c > 0
# and alpha < 1 it peaks well below 1 / c draft tokens; 4096 covers every alpha < 1 - 1e-3).
_K_SEARCH = 4096


@dataclass(frozen=True, slots=True)
class Optimum:
    """The formula's best draft length, honest about the slider's range.

    ``k`` is the best within ``1..k_max``; ``unconstrained`` the best over every k >= 1, or
    None when the speedup rises with k without end (alpha = 1, or a free draft c = 0), in
    which case ``limit`` is the value it rises toward (inf when unbounded).
    """

    k: int
    k_max: int
    unconstrained: int | None
    limit: float | None

    @property
    def past_range(self) -> bool:
        """The best k is beyond the slider (or there is none): k_max is only the edge."""
        return self.unconstrained is None or self.unconstrained > self.k_max


def draft_length_optimum(alpha: float, c: float, k_max: int) -> Optimum:
    """`optimal_k` within the range, and whether a better k lies past it.

    Examples
    --------
    >>> draft_length_optimum(0.8, 0.05, 16)
    Optimum(k=8, k_max=16, unconstrained=8, limit=None)
    >>> draft_length_optimum(0.937, 0.05, 16).unconstrained
    18
    >>> draft_length_optimum(1.0, 0.05, 16)
    Optimum(k=16, k_max=16, unconstrained=None, limit=20.0)
    """
    inside = optimal_k(alpha, c, k_max)
    if alpha >= 1.0 or c == 0.0:
        # (k + 1) / (k c + 1) rises toward 1 / c; with c = 0 every extra token is free.
        if alpha >= 1.0:
            limit = 1.0 / c if c > 0 else float("inf")
        else:
            limit = 1.0 / (1.0 - alpha)
        return Optimum(inside, k_max, None, limit)
    # Over every k: the series' closed form (alpha < 1 here), one O(K) pass rather than the
    # [K, K] table `expected_tokens_per_pass` builds to stay exact at alpha = 1.
    ks = np.arange(1, _K_SEARCH + 1)
    speedups = (1.0 - alpha ** (ks + 1)) / ((1.0 - alpha) * (ks * c + 1.0))
    return Optimum(inside, k_max, int(ks[np.argmax(np.round(speedups, 12))]), None)


def speculation_pays(alpha: float, c: float) -> bool:
    """Whether *some* draft length beats plain decoding: exactly when ``alpha > c``.

    This is the k = 1 break-even (`break_even_cost` at k = 1), and it answers "does any k
    pay?", not "does this k pay?": for that, compare c with ``break_even_cost(alpha, k)``.

    Notes
    -----
    At ``k = 1`` the factor is ``(1 + alpha) / (1 + c)``. If ``alpha <= c`` then
    ``sum_j alpha^j <= 1 + k*alpha <= 1 + k*c`` for every ``k``, so no length helps.

    Examples
    --------
    >>> speculation_pays(0.3, 0.2), speculation_pays(0.2, 0.2)
    (True, False)
    """
    return bool(alpha > c)
