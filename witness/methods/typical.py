"""Medusa's typical acceptance: keep a drafted token the target finds plausible enough.

Instead of the ratio test, a drafted token x stands when ``p(x)`` clears a bar set by the
target's own uncertainty, ``min(epsilon, delta * exp(-H(p)))``: a confident target (low
entropy) asks for a likely token, an unsure one accepts almost anything it gives some mass.
With several siblings the first typical one is emitted; when none is, the target's argmax.
Nothing is resampled, so it is fast and simple, and it is NOT lossless: the emitted law
leans toward q (`typical_distribution`), which the station sets beside the exact rule.

Cai et al., "Medusa" (2024), section 2.3.1; the defaults are their ``posterior_threshold``
(epsilon = 0.09) and ``posterior_alpha`` (delta = 0.3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.methods.sibling_laws import _exact, others_mass
from witness.methods.siblings import (
    Drafting,
    Pair,
    SiblingResult,
    SiblingTest,
    Step,
    _check_count,
    _check_drafting,
    _checked,
    _draft_laws,
    _one_position,
    _row,
)

FloatArray = NDArray[np.float64]

EPSILON = 0.09  # the bar never rises above this (a confident target still accepts p > 0.09)
DELTA = 0.3  # the bar's scale: delta * exp(-H), the bar for a target of entropy H nats


def _check_bar(epsilon: float, delta: float) -> None:
    for name, value in (("epsilon", epsilon), ("delta", delta)):
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"{name} must be a finite, non-negative number, not {value!r}")


def _threshold(p: FloatArray, epsilon: float, delta: float) -> float:
    live = p[p > 0.0]  # 0 log 0 = 0
    entropy = float(-(live * np.log(live)).sum())
    return min(epsilon, delta * math.exp(-entropy))


def typical_threshold(p: ArrayLike, *, epsilon: float = EPSILON, delta: float = DELTA) -> float:
    """The bar a drafted token's ``p(x)`` must exceed: ``min(epsilon, delta * exp(-H(p)))``.

    H is the entropy of p in nats (with 0 log 0 = 0).

    Examples
    --------
    >>> round(typical_threshold([.1, .2, .3, .4]), 6)   # H = 1.2799 nats: 0.3 * 0.278
    0.083423
    >>> typical_threshold([0.0, 1.0])                   # a certain target: the cap epsilon
    0.09
    """
    _check_bar(epsilon, delta)
    return _threshold(_row(p, "p"), epsilon, delta)


def typical_accepts(
    p: ArrayLike, x: int, *, epsilon: float = EPSILON, delta: float = DELTA
) -> bool:
    """Whether the drafted token ``x`` is typical: ``p(x) > typical_threshold(p)``.

    Examples
    --------
    >>> typical_accepts([.05, .95], 0), typical_accepts([.05, .95], 1)
    (False, True)
    """
    pa = _row(p, "p")
    _check_bar(epsilon, delta)
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or not 0 <= x < pa.shape[0]:
        raise ValueError(f"x must be a token id in 0..{pa.shape[0] - 1}, not {x!r}")
    return bool(pa[x] > _threshold(pa, epsilon, delta))


def _greedy(p: FloatArray) -> FloatArray:
    out = np.zeros_like(p)
    out[int(np.argmax(p))] = 1.0  # ties: the lower id
    return out


def _typical_step(typical: NDArray[np.bool_]) -> Step:
    """Sibling x stands exactly when it is typical; the fallback law (argmax) never changes."""

    def step(law: FloatArray, q_rows: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        return np.where(typical, q_rows, 0.0), np.where(typical, 0.0, q_rows), law

    return step


def _law_and_acceptance(
    p: ArrayLike, q: ArrayLike, epsilon: float, delta: float, n: int, drafting: Drafting
) -> tuple[FloatArray, float]:
    _check_drafting(drafting)
    _check_bar(epsilon, delta)
    pa, qa = _one_position(p, q)
    return typical_law_and_acceptance_unchecked(
        pa, qa, _check_count(n), drafting=drafting, bar=_threshold(pa, epsilon, delta)
    )


def typical_law_and_acceptance_unchecked(
    p: FloatArray, q: FloatArray, n: int, *, drafting: Drafting, bar: float
) -> tuple[FloatArray, float]:
    """`typical_law_and_acceptance` for callers whose rows are valid and who know the bar."""
    typical = p > bar
    start = _greedy(p)
    return _exact(start, q, n, drafting, _typical_step(typical), _typical_pair(typical, start))


def _typical_pair(typical: NDArray[np.bool_], greedy: FloatArray) -> Pair:
    """Two ``distinct`` siblings under typical acceptance, in closed form (O(V)).

    Sibling 0 emits q on the typical set T (q-mass t); an untypical x (mass q(x)) leaves q
    without x, ``q / s(x)``, which emits ``q / s(x)`` on T and falls back to the argmax with
    the rest, ``1 − t / s(x)``.
    """

    def pair(q: FloatArray) -> tuple[FloatArray, float]:
        on_t = np.where(typical, q, 0.0)
        t = float(on_t.sum())
        rows = np.flatnonzero(~typical & (q > 0.0))
        w, s = q[rows], others_mass(q)[rows]
        reach = float((w / s).sum())  # sum over x of q(x) / s(x): sibling 1's weight on T
        none = float(w @ np.maximum(1.0 - t / s, 0.0))
        law: FloatArray = on_t * (1.0 + reach) + none * greedy
        return law, t * (1.0 + reach)

    return pair


def typical_law_and_acceptance(
    p: ArrayLike,
    q: ArrayLike,
    *,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    n: int = 1,
    drafting: Drafting = "sample",
) -> tuple[FloatArray, float]:
    """`typical_distribution` and `typical_acceptance` from one computation.

    Examples
    --------
    >>> law, beta = typical_law_and_acceptance([.02, .98], [.5, .5], n=2, drafting="distinct")
    >>> law.tolist(), beta      # token 1 is drafted first or second: always typical
    ([0.0, 1.0], 1.0)
    """
    return _law_and_acceptance(p, q, epsilon, delta, n, drafting)


def typical_distribution(
    p: ArrayLike,
    q: ArrayLike,
    *,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    n: int = 1,
    drafting: Drafting = "sample",
) -> FloatArray:
    """Exact law of the token typical acceptance emits at one position.

    ``n`` siblings are drafted as in `witness.methods.siblings.draft_siblings`; the first
    typical one is emitted, and the target's argmax (ties by lower id) when none is. For one sibling
    drafted from q with typical set T of q-mass t, that is ``q`` on T plus ``1 - t`` at
    the argmax. ``distinct`` enumerates the ordered draws, at the cost and budget of
    `witness.methods.siblings.sibling_distribution`.

    Examples
    --------
    >>> p, q = [.1, .2, .3, .4], [.4, .3, .2, .1]
    >>> typical_distribution(p, q).tolist()          # every token is typical here: q itself
    [0.4, 0.3, 0.2, 0.1]
    >>> typical_distribution([.02, .98], [.5, .5]).tolist()   # token 0 is not: its draws
    [0.0, 1.0]
    """
    return _law_and_acceptance(p, q, epsilon, delta, n, drafting)[0]


def typical_acceptance(
    p: ArrayLike,
    q: ArrayLike,
    *,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    n: int = 1,
    drafting: Drafting = "sample",
) -> float:
    """Probability that one of the ``n`` siblings is typical (exact, any drafting and n).

    Examples
    --------
    >>> typical_acceptance([.02, .98], [.5, .5]), typical_acceptance([.02, .98], [.5, .5], n=2)
    (0.5, 0.75)
    """
    return _law_and_acceptance(p, q, epsilon, delta, n, drafting)[1]


def verify_typical(
    p: ArrayLike,
    q: ArrayLike,
    drafts: ArrayLike,
    u_final: float,
    *,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    drafting: Drafting = "sample",
) -> SiblingResult:
    """Typical acceptance of the siblings ``drafts``, as a `witness.methods.siblings.SiblingResult`.

    Each test records ``p(x)``, q′(x) as drafted (``drafting`` says which law: q, q without
    the earlier siblings, or 1.0 for ``top``), ``u = 0.0`` (nothing random is compared) and
    whether x is typical. When no sibling is, the token is p's argmax and ``law`` its point
    mass. ``u_final`` is validated but unused: the argument keeps the signature of
    `witness.methods.siblings.verify_siblings`, so a caller can swap the rules.

    Examples
    --------
    >>> r = verify_typical([.02, .5, .48], [.6, .1, .3], [0, 2], 0.5)
    >>> r.accepted, r.token, [t.accepted for t in r.tests]
    (1, 2, [False, True])
    >>> verify_typical([.02, .5, .48], [.6, .1, .3], [0], 0.5).token   # none: the argmax
    1
    """
    pa, qa, x, _, _ = _checked(p, q, drafts, None, u_final, drafting)
    _check_bar(epsilon, delta)
    return verify_typical_unchecked(
        pa, qa, x, drafting=drafting, bar=_threshold(pa, epsilon, delta)
    )


def verify_typical_unchecked(
    p: FloatArray,
    q: FloatArray,
    drafts: Sequence[int] | NDArray[np.intp],
    *,
    drafting: Drafting,
    bar: float,
) -> SiblingResult:
    """`verify_typical` for callers whose rows are valid and who know the ``bar``
    (`typical_threshold(p)`): the served request keeps it on each context's laws."""
    tests: list[SiblingTest] = []
    for j, token, q_row in _draft_laws(q, drafts, drafting):
        p_x = float(p[token])
        ok = p_x > bar
        tests.append(
            SiblingTest(j, token, p_x, 1.0 if q_row is None else float(q_row[token]), 0.0, ok)
        )
        if ok:
            return SiblingResult(j, token, tuple(tests))
    law = _greedy(p)
    return SiblingResult(None, int(np.argmax(p)), tuple(tests), law)
