"""Compiled kernels for the laws at one context, bit for bit what numpy computes.

A served request derives, at every drafted position, the draft q, its CDF, α, and the exact
TV of the mode's emitted law from p (`witness.models.laws.Law`). In numpy each is a handful of
whole-row calls on a 630-word row, and for a match never seen before a request of 48 tokens
makes ~60 of them: most of its time is call overhead. Compiled with numba they are one call.

Bit-identity with numpy is the contract (the served request on screen, its JSON and every
cached law must not change by a bit), so each kernel performs numpy's own operations in
numpy's own order: elementwise arithmetic as written (numba contracts nothing into a fused
multiply-add without ``fastmath``), a cumulative sum left to right, and a sum as numpy's
pairwise summation (`_pairwise`: eight accumulators over blocks of at most 128, halving
above). tests/witness/test_kernels.py holds them to numpy on every row the target can give.

Each kernel has one explicit signature, so it is compiled when this module is first
imported and cached on disk beside it (``cache=True``; later imports load it in a fraction of
a second). ``make setup`` imports it, so on a served machine the compiler has run before any
server starts, and a worker's import (before it listens) loads it: no learner's request
waits on a compiler.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Every row the witness passes is a C-contiguous float64 vector, most of them read-only views
# of the models' tables. One signature each, over read-only rows (a writable row converts to
# it), so the kernels are compiled once, eagerly, and never again for a new mix of flags.
_ROW = types.Array(types.float64, 1, "C", readonly=True)
_F, _B = types.float64, types.boolean

_BLOCK = 128  # numpy's PW_BLOCKSIZE


@njit(_F(_ROW, types.intp, types.intp), cache=True, nogil=True)
def _pairwise(a: FloatArray, lo: int, n: int) -> float:
    """numpy's pairwise sum of a[lo:lo + n] (numpy/_core/src/umath/loops_utils.h.src)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    if n <= _BLOCK:
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = 8
        whole = n - n % 8
        while i < whole:
            j = lo + i
            r0 += a[j]
            r1 += a[j + 1]
            r2 += a[j + 2]
            r3 += a[j + 3]
            r4 += a[j + 4]
            r5 += a[j + 5]
            r6 += a[j + 6]
            r7 += a[j + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return _pairwise(a, lo, half) + _pairwise(a, lo + half, n - half)


@njit(_F(_ROW), cache=True, nogil=True)
def row_sum(a: FloatArray) -> float:
    """``a.sum()`` for a 1-D float64 array, bit for bit (add's identity, then pairwise)."""
    return 0.0 + _pairwise(a, 0, a.size)


@njit(cache=True, nogil=True)
def argmax_first(row):  # type: ignore[no-untyped-def]
    """``np.argmax``: the first index of the largest value."""
    best = 0
    for i in range(1, row.size):
        if row[i] > row[best]:
            best = i
    return best


@njit(cache=True, nogil=True)
def argmin_first(row):  # type: ignore[no-untyped-def]
    """``np.argmin``: the first index of the smallest value."""
    worst = 0
    for i in range(1, row.size):
        if row[i] < row[worst]:
            worst = i
    return worst


@njit(cache=True, nogil=True)
def one_hot_into(out, index):  # type: ignore[no-untyped-def]
    """``out`` as a row with all its mass on ``index`` (`greedy_distribution`'s rows)."""
    out[:] = 0.0
    out[index] = 1.0


@njit(cache=True, nogil=True)
def blend_into(sampled, d, match, greedy, q):  # type: ignore[no-untyped-def]
    """q = m·p + (1 − m)·d into ``q``, from the sampled target (one-hot at its argmax when
    greedy): `witness.models.laws.draft_law`, then `greedy_distribution`."""
    keep = 1.0 - match
    for i in range(sampled.size):
        q[i] = match * sampled[i] + keep * d[i]
    if greedy:
        one_hot_into(q, argmax_first(q))


@njit(cache=True, nogil=True)
def cdf_alpha_into(p, q, cdf, low):  # type: ignore[no-untyped-def]
    """``q.cumsum()`` into ``cdf``; returns ``np.minimum(p, q).sum()`` (``low`` a work row)."""
    total = 0.0
    for i in range(q.size):
        total += q[i]
        cdf[i] = total
        low[i] = p[i] if p[i] < q[i] else q[i]
    return row_sum(low)


@njit(types.float64[::1](_ROW, _ROW, _F, _B), cache=True, nogil=True)
def draft_row(sampled: FloatArray, d: FloatArray, match: float, greedy: bool) -> FloatArray:
    """q = m·p + (1 − m)·d from the sampled target (one-hot at its argmax when greedy)."""
    q = np.empty(sampled.size)
    blend_into(sampled, d, match, greedy, q)
    return q


@njit(types.Tuple((types.float64[::1], _F))(_ROW, _ROW), cache=True, nogil=True)
def cdf_and_alpha(p: FloatArray, q: FloatArray) -> tuple[FloatArray, float]:
    """``q.cumsum()`` and ``np.minimum(p, q).sum()``."""
    cdf = np.empty(q.size)
    return cdf, cdf_alpha_into(p, q, cdf, np.empty(q.size))


@njit(types.float64[::1](_ROW, _ROW), cache=True, nogil=True)
def residual_row(p: FloatArray, q: FloatArray) -> FloatArray:
    """`witness.core.theory.residual_unchecked` for one row: (p − q)⁺ normalised, p if none."""
    v = p.size
    row = np.empty(v)
    for i in range(v):
        x = p[i] - q[i]
        row[i] = x if x > 0.0 else 0.0
    total = row_sum(row)
    if not total > 0.0:
        return p.copy()
    for i in range(v):
        row[i] = row[i] / total
    return row


@njit(_F(_ROW, _ROW, _B, _B), cache=True, nogil=True)
def tv_row(p: FloatArray, q: FloatArray, verify: bool, repair: bool) -> float:
    """``total_variation_unchecked(output_law(p, q, verify=, repair=), p)`` for one row."""
    v = p.size
    law = np.empty(v)
    if not verify:
        for i in range(v):
            law[i] = q[i]
    else:
        overlap = np.empty(v)
        for i in range(v):
            overlap[i] = p[i] if p[i] < q[i] else q[i]
        rejected = 1.0 - row_sum(overlap)
        source = residual_row(p, q) if repair else p
        for i in range(v):
            law[i] = overlap[i] + rejected * source[i]
    gap = np.empty(v)
    for i in range(v):
        gap[i] = abs(law[i] - p[i])
    return 0.5 * row_sum(gap)


def warm() -> None:
    """Run every kernel once: they are compiled (or loaded from the disk cache) when this
    module is imported, so this only proves they answer."""
    p = np.array([0.25, 0.25, 0.5])
    q = draft_row(p, p[::-1].copy(), 0.5, False)
    cdf_and_alpha(p, q)
    tv_row(p, q, True, True)
