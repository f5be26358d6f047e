"""Distributions as the witness takes them: checked once at the edge, then sampled.

`as_distribution` and `rows_checked` refuse what is not a distribution (by name, with the
reason); `token_ids` refuses what is not a token of the vocabulary; the samplers draw by
inverse CDF with keyed uniforms, so a draw is a pure function of its uniform.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

# Distributions in float64 are checked to this tolerance (the tiny models' sums are within
# 1e-15); rows given in a coarser float are held to what that float can sum to (below).
_SUM_TOLERANCE = 1e-9
_FLOAT64 = np.dtype(np.float64)


def _sum_tolerance(dtype: np.dtype[Any], vocab: int) -> float:
    """How far from 1 a row of ``vocab`` probabilities in ``dtype`` may sum: a float32 row
    normalised in float32 is off by ~1e-7 (its rounding, summed over the row)."""
    if dtype == _FLOAT64:  # the common case, without asking np.finfo twice
        return _SUM_TOLERANCE
    return _coarse_sum_tolerance(dtype, vocab)


@functools.lru_cache(maxsize=256)
def _coarse_sum_tolerance(dtype: np.dtype[Any], vocab: int) -> float:
    if dtype.kind != "f" or np.finfo(dtype).eps <= np.finfo(np.float64).eps:
        return _SUM_TOLERANCE
    return float(max(_SUM_TOLERANCE, 4.0 * float(np.finfo(dtype).eps) * max(vocab, 1) ** 0.5))


# Up to this many values, a small reduction is cheaper as a Python list than as numpy calls.
_SMALL = 64


def _min_max(values: NDArray[Any]) -> tuple[Any, Any]:
    """The smallest and largest of a non-empty array (Python scalars), in the fewest calls."""
    if values.size <= _SMALL:
        listed = values.ravel().tolist()
        return min(listed), max(listed)
    return values.min().item(), values.max().item()


def _plainly_valid(arr: FloatArray, tolerance: float) -> bool:
    """True when every value is finite and non-negative and every row sums to 1 within
    ``tolerance``: two passes over ``arr`` (its row sums and its minimum) instead of four.

    False means "look again" (the named checks in `as_distribution` decide and word the
    refusal), so this may be conservative but never accepts what those checks refuse: a NaN
    makes the minimum NaN, a -inf makes it negative, and a +inf (or an overflow) makes a row
    sum infinite, all of which fail here. A row sum can be NaN only with a NaN or a -inf in
    the row, which the minimum has already caught, so the list's min and max see no NaN.
    """
    if not float(np.minimum.reduce(arr, axis=None)) >= 0.0:
        return False
    sums = np.add.reduce(arr, axis=-1)  # what arr.sum(axis=-1) computes, to the last bit
    if sums.ndim == 0:
        total = float(sums)
        return abs(total - 1.0) <= tolerance
    low, high = _min_max(sums)
    # |s - 1| <= t for every s, as the two one-sided tests (rounding is sign-symmetric).
    return bool(high - 1.0 <= tolerance and 1.0 - low <= tolerance)


def as_distribution(x: ArrayLike, name: str = "distribution") -> FloatArray:
    """Return ``x`` as a float64 array whose last axis is a probability vector, or raise
    a ValueError naming ``name``. The sum's tolerance follows the input's float type.

    Examples
    --------
    >>> as_distribution([0.25, 0.75]).tolist()
    [0.25, 0.75]
    >>> as_distribution(np.array([0.1, 0.2, 0.7], dtype=np.float32)).dtype
    dtype('float64')
    """
    return rows_checked(x, name, copy=True)


def rows_checked(x: ArrayLike, name: str, *, copy: bool) -> FloatArray:
    """`as_distribution`; with ``copy=False`` a float64 array comes back as itself, not
    copied, for a caller that only reads it and returns none of it (`verify_block`)."""
    try:
        given = np.asarray(x)
    except ValueError as exc:  # ragged rows
        raise ValueError(f"{name} must be rows of equal length (a rectangular array)") from exc
    if given.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold numbers, not {given.dtype}")
    arr = given if given.dtype == _FLOAT64 and not copy else given.astype(np.float64, copy=copy)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must have at least one token on its last axis")
    tolerance = _sum_tolerance(given.dtype, arr.shape[-1])
    if arr.size == 0 or _plainly_valid(arr, tolerance):
        return arr
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{name} must hold finite, non-negative probabilities")
    if float(np.abs(arr.sum(axis=-1) - 1.0).max()) > tolerance:
        raise ValueError(f"{name} must sum to 1 along its last axis (within {tolerance:.0e})")
    return arr


def token_ids(x: ArrayLike, name: str, vocab: int) -> NDArray[np.intp]:
    """Return ``x`` as token ids (an integer array of values 0..vocab − 1; ``x`` itself when
    it already is one), or raise a ValueError naming ``name`` and the range: a float, a bool
    or a negative id is refused, never rounded or wrapped.

    Examples
    --------
    >>> token_ids([2, 0], "draft", 4).tolist()
    [2, 0]
    """
    raw = np.asarray(x)
    if raw.size and raw.dtype.kind not in "iu":
        raise ValueError(f"{name} must be integer token ids from 0 to {vocab - 1}, not {raw.dtype}")
    if raw.size:
        low, high = _min_max(raw)
        if low < 0 or high >= vocab:
            bad = int(low) if low < 0 else int(high)
            raise ValueError(f"{name} must be token ids from 0 to {vocab - 1} (got {bad})")
    return raw if raw.dtype == np.intp else raw.astype(np.intp)


def greedy_distribution(p: ArrayLike) -> FloatArray:
    """Temperature 0: all mass on the argmax (lowest index on ties).

    Examples
    --------
    >>> greedy_distribution([.2, .5, .3]).tolist()
    [0.0, 1.0, 0.0]
    """
    pa = as_distribution(p, "p")
    out = np.zeros_like(pa)
    np.put_along_axis(out, np.argmax(pa, axis=-1)[..., None], 1.0, axis=-1)
    return out


def sample_inverse_cdf(dist: ArrayLike, u: ArrayLike) -> NDArray[np.intp]:
    """Token ids drawn from ``dist`` by inverse CDF with uniforms ``u`` in [0, 1).

    The search takes the first token whose CDF exceeds ``u`` times the total mass: a token of
    zero mass is never returned, not even for ``u = 0`` (this is why ``side="right"``).

    Examples
    --------
    >>> sample_inverse_cdf([0.0, 0.5, 0.25, 0.25], [0.0, 0.5, 0.999]).tolist()
    [1, 2, 3]
    >>> sample_inverse_cdf([0.5, 0.5, 0.0, 0.0], [0.0, 0.9999999]).tolist()
    [0, 1]
    """
    arr = np.asarray(dist, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError("sample_inverse_cdf takes one distribution")
    if isinstance(u, float):  # one uniform (a Python or numpy float): no array to build
        return np.asarray(sample_one(arr, float(u)), dtype=np.intp)
    if np.ndim(u) == 0:
        return np.asarray(sample_one(arr, float(np.asarray(u))), dtype=np.intp)
    cdf = arr.cumsum()
    index = cdf.searchsorted(np.asarray(u, dtype=np.float64) * cdf[-1], side="right")
    # u * total can round up to the total itself only for u within an ulp of 1.
    clamped: NDArray[np.intp] = np.minimum(index, np.flatnonzero(arr)[-1])
    return clamped


def sample_one(dist: FloatArray, u: float) -> int:
    """One draw by inverse CDF: the token `sample_inverse_cdf` gives for this u, with less
    overhead (the served request draws one token at a time)."""
    return sample_from_cdf(dist, dist.cumsum(), u)


def sample_from_cdf(dist: FloatArray, cdf: FloatArray, u: float) -> int:
    """`sample_one` for a caller that keeps ``cdf = dist.cumsum()`` (the served request's
    draft rows are sampled many times)."""
    index = int(cdf.searchsorted(u * cdf[-1], side="right"))
    # u * total can round up to the total itself only for u within an ulp of 1.
    return index if index < cdf.shape[0] else int(np.flatnonzero(dist)[-1])
