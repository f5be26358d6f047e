"""The exact law of the token a node of siblings emits, and the chance one is accepted.

Siblings drawn with replacement (``sample``) or as q's top tokens (``top``) need one chain
of rejections: sibling j is reached with the product of the masses rejected before it.
``distinct`` siblings change q′ after every draw, so their law enumerates the histories of
drawn tokens (in batches, under `LAW_BUDGET`), except for two siblings, which have a closed
form over q's order (`_distinct_pair`). Typical acceptance (`witness.methods.typical`)
shares the enumeration through its own per-sibling step.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.core.theory import expected_tokens_per_pass, residual_unchecked
from witness.methods.siblings import (
    Drafting,
    Pair,
    Step,
    _check_count,
    _check_drafting,
    _one_hot,
    _one_position,
    _row,
    _top_tokens,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

# Elements (float64) the exact law of ``distinct`` siblings may enumerate: ~400 MB of work,
# done in batches of _BATCH elements so the memory stays near 16 MB whatever the budget.
LAW_BUDGET = 50_000_000
_BATCH = 1 << 21


def _repair_step(repair: bool) -> Step:
    def step(law: FloatArray, q_rows: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        nxt = residual_unchecked(law, q_rows) if repair else law
        return np.minimum(law, q_rows), np.maximum(q_rows - law, 0.0), nxt

    return step


def sibling_law_cost(q: ArrayLike, n: int, drafting: Drafting) -> int:
    """How many float64 elements the exact law of ``n`` siblings works through.

    ``sample`` and ``top`` follow one chain of n laws (n·V); ``distinct`` depends on which
    tokens were drafted, so its law enumerates every ordered draw of the first n − 1
    siblings over q's support S: ``S^(n−1)·V`` (with n capped at S). The served request
    compares this with `LAW_BUDGET` before asking for the law.

    Examples
    --------
    >>> q = np.full(630, 1 / 630)
    >>> sibling_law_cost(q, 3, "sample"), sibling_law_cost(q, 2, "distinct")
    (1890, 396900)
    """
    _check_drafting(drafting)
    qa = _row(q, "q")
    count = _check_count(n)
    vocab, support = int(qa.shape[0]), int(np.count_nonzero(qa))
    if drafting == "sample":
        return count * vocab
    if drafting == "top":
        return min(count, support) * vocab
    return int(support ** (min(count, support) - 1) * vocab)


def _exact(
    start: FloatArray,
    q: FloatArray,
    n: int,
    drafting: Drafting,
    step: Step,
    pair: Pair | None = None,
) -> tuple[FloatArray, float]:
    """The law of the emitted token and the probability that a sibling was accepted.

    ``start`` is the first p′ (the law a token is drawn from if no sibling is tested);
    ``step`` is the per-sibling rule. ``sample`` and ``top`` need one chain: sibling j is
    reached with probability ``prod_{i<j} (rejected mass)_i`` whatever was drafted before.
    ``pair``, when given, computes the same two values for ``distinct`` with two siblings
    (q's support of two or more) without enumerating; without it, the enumeration (the
    reference the fast paths are tested against) runs.
    """
    if drafting == "distinct" and pair is not None and min(n, _support(q)) == 2:
        return pair(q)
    if drafting == "distinct":
        cost = sibling_law_cost(q, n, drafting)
        if cost > LAW_BUDGET:
            support = int(np.count_nonzero(q))
            raise ValueError(
                f"the exact law of {n} distinct siblings enumerates support^(n-1) x V = "
                f"{support}^{min(n, support) - 1} x {q.shape[0]} = {cost:,} elements, over "
                f"the budget of {LAW_BUDGET:,}"
            )
        law, accepted = _enumerate(start[None, :], q[None, :], np.ones(1), n, step)
        return law, accepted
    q_rows = (
        [q] * n
        if drafting == "sample"
        else [_one_hot(int(x), q.shape[0]) for x in _top_tokens(q, n)]
    )
    law, reach, accepted, current = np.zeros_like(start), 1.0, 0.0, start[None, :]
    for q_row in q_rows:
        emit, reject, current = step(current, q_row[None, :])
        law += reach * emit[0]
        accepted += reach * float(emit.sum())
        reach *= float(reject.sum())
    return law + reach * current[0], accepted


def _enumerate(
    law: FloatArray, remaining: FloatArray, weight: FloatArray, left: int, step: Step
) -> tuple[FloatArray, float]:
    """``distinct``: sum over the ordered histories drawn so far (rows), ``left`` to draw.

    Row h holds p′ after its history, q with the history removed (unnormalised), and the
    probability of having drafted that history and rejected all of it.
    """
    mass = remaining.sum(axis=1)
    out = np.zeros(law.shape[1])
    exhausted = mass <= 0.0  # q's support is used up: no sibling left, draw from p′
    if exhausted.any():
        out += weight[exhausted] @ law[exhausted]
        keep = ~exhausted
        law, remaining, weight, mass = law[keep], remaining[keep], weight[keep], mass[keep]
    if weight.size == 0:
        return out, 0.0
    q_rows = remaining / mass[:, None]
    emit, reject, nxt = step(law, q_rows)
    out += weight @ emit
    accepted = float(weight @ emit.sum(axis=1))
    if left == 1:
        return out + (weight * reject.sum(axis=1)) @ nxt, accepted
    # The next sibling is any rejected token: its row is the parent's with that token gone.
    reached = weight[:, None] * reject
    rows, tokens = np.nonzero(reached)
    batch = max(1, _BATCH // law.shape[1])
    for s in range(0, rows.size, batch):
        r, x = rows[s : s + batch], tokens[s : s + batch]
        child = remaining[r]
        child[np.arange(r.size), x] = 0.0
        sub, acc = _enumerate(nxt[r], child, reached[r, x], left - 1, step)
        out += sub
        accepted += acc
    return out, accepted


def _support(q: FloatArray) -> int:
    return int(np.count_nonzero(q))


def others_mass(q: FloatArray) -> FloatArray:
    """``sum(q) - q[x]`` for every x, as the sum of the other entries (no cancellation).

    The mass left to draw from once x is drafted: a prefix plus a suffix sum, so it stays
    accurate when ``q[x]`` is close to 1 (``1 - q[x]`` would keep only a few digits).
    """
    before = np.concatenate(([0.0], np.cumsum(q)[:-1]))
    after = np.concatenate((np.cumsum(q[::-1])[::-1][1:], [0.0]))
    out: FloatArray = before + after
    return out


def _distinct_pair(p: FloatArray, repair: bool) -> Pair:
    """The repair rule's `Pair`: two ``distinct`` siblings, exactly, by sorting.

    Sibling 0 emits ``min(p, q)``; drafting x and rejecting it has mass ``w(x) = max(q − p, 0)``
    and leaves p′ = the residual (p with repair off), the same whatever x was. Sibling 1 is
    drawn from q without x, ``q(y) / s(x)`` with ``s(x) = sum of the others``, so
    ``min(p′(y), q(y) / s)`` is ``q(y) / s`` when ``t(y) = q(y) / p′(y) < s`` and ``p′(y)``
    otherwise: every sum over y (for a row x) is a prefix / suffix sum in t's order, and every
    sum over x (for a token y) one in s's order. A rejected x always has ``t(x) > 1 ≥ s(x)``
    (q(x) > p(x) ≥ p′(x)), but its own term is removed by the same comparison the sums make.
    """

    def pair(q: FloatArray) -> tuple[FloatArray, float]:
        emit0 = np.minimum(p, q)
        w_all = np.maximum(q - p, 0.0)
        p1 = residual_unchecked(p, q) if repair else p
        rows = np.flatnonzero(w_all > 0.0)
        if rows.size == 0:  # nothing is ever rejected: sibling 1 is never drafted
            return emit0, float(emit0.sum())
        w, s = w_all[rows], others_mass(q)[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(p1 > 0.0, q / np.where(p1 > 0.0, p1, 1.0), np.inf)
        # Sibling 1's acceptance per row x: sum over y != x of min(p′(y), q(y) / s(x)).
        order = np.argsort(t, kind="stable")
        t_sorted = t[order]
        q_low = np.concatenate(([0.0], np.cumsum(q[order])))  # q over the first i in t order
        p_high = np.concatenate((np.cumsum(p1[order][::-1])[::-1], [0.0]))  # p′ from i on
        cut = np.searchsorted(t_sorted, s, side="left")  # how many y have t(y) < s
        low = t[rows] < s  # x's own term, counted as the sums counted it
        own = np.where(low, q[rows] / s, p1[rows])
        accept1 = q_low[cut] / s + p_high[cut] - own
        reject1 = np.maximum(1.0 - accept1, 0.0)  # sum over y of max(q(y)/s − p′(y), 0)
        # Sums over rows x for each token y, in s's order: rows with s(x) <= t(y) give y
        # p′(y) (sibling 1 accepts all of it), the others q(y) / s(x).
        by_s = np.argsort(s, kind="stable")
        s_sorted, w_sorted = s[by_s], w[by_s]
        w_le = np.concatenate(([0.0], np.cumsum(w_sorted)))
        w_gt = np.concatenate((np.cumsum(w_sorted[::-1])[::-1], [0.0]))
        ws_gt = np.concatenate((np.cumsum((w_sorted / s_sorted)[::-1])[::-1], [0.0]))
        split = np.searchsorted(s_sorted, t, side="right")  # rows with s(x) <= t(y)
        # y's own row (q without y cannot draft y): removed as it was counted.
        own_w = np.zeros_like(q)
        own_w[rows] = w
        own_s = np.ones_like(q)
        own_s[rows] = s
        own_low = own_s <= t  # y's own row among those that give y all of p′(y)
        emit1 = p1 * w_le[split] + q * ws_gt[split]
        emit1 -= own_w * np.where(own_low, p1, q / own_s)
        if repair:
            # Rejected at sibling 1 with mass reject1, the token comes from the residual of
            # p′ by q without x: reject1 · residual = max(p′ − q/s, 0), and y's own row
            # (q/s = 0 there) leaves all of p′(y).
            excess = p1 * w_gt[split] - q * ws_gt[split]
            excess -= own_w * np.where(own_low, 0.0, p1 - q / own_s)
            last = np.maximum(excess, 0.0) + own_w * p1
        else:
            last = float(w @ reject1) * p1
        law: FloatArray = emit0 + np.maximum(emit1, 0.0) + last
        return law, float(emit0.sum() + w @ accept1)

    return pair


def sibling_law_and_acceptance(
    p: ArrayLike,
    q: ArrayLike,
    n: int,
    *,
    drafting: Drafting = "sample",
    repair: bool = True,
) -> tuple[FloatArray, float]:
    """`sibling_distribution` and the probability that a sibling is accepted, at once.

    With ``repair=False`` every sibling is tested against p, not the residual, so the
    acceptance differs from `sibling_acceptance`'s repaired one past the first sibling.
    ``distinct`` with two siblings has a closed form (O(V log V), shared by both values);
    wider ``distinct`` enumerates the ordered draws, as `sibling_law_cost` counts.

    Examples
    --------
    >>> p, q = [.1, .2, .3, .4], [.4, .3, .2, .1]
    >>> law, beta = sibling_law_and_acceptance(p, q, 2, drafting="distinct", repair=False)
    >>> law.round(4).tolist(), round(beta, 4)     # repaired, 0.6 + .3 x 5/12 + .1 x 11/28
    ([0.1247, 0.2894, 0.3627, 0.2231], 0.8529)
    """
    _check_drafting(drafting)
    pa, qa = _one_position(p, q)
    return sibling_law_and_acceptance_unchecked(
        pa, qa, _check_count(n), drafting=drafting, repair=repair
    )


def sibling_law_and_acceptance_unchecked(
    p: FloatArray, q: FloatArray, n: int, *, drafting: Drafting, repair: bool
) -> tuple[FloatArray, float]:
    """`sibling_law_and_acceptance` for callers whose rows are valid already."""
    law, accepted = _exact(p, q, n, drafting, _repair_step(repair), _distinct_pair(p, repair))
    # A probability summed over every sibling's path can round an ulp or two past 1 (a draft
    # that puts nearly all its mass on a few tokens p likes, drafted distinct): it is 1.
    return law, min(1.0, accepted)


def sibling_distribution(
    p: ArrayLike,
    q: ArrayLike,
    n: int,
    *,
    drafting: Drafting = "sample",
    repair: bool = True,
) -> FloatArray:
    """Exact law of the token emitted at a position verified with ``n`` siblings.

    It is p for every drafting with ``repair=True`` (computed from the rule, not returned as
    p, so comparing it with p tests the algebra). ``sample`` and ``top`` cost O(nV);
    ``distinct`` enumerates the ordered draws, ``S^(n−1)·V`` elements for q's support S (one
    V×V array for n = 2) and raises ValueError past `LAW_BUDGET` (`sibling_law_cost`).

    Examples
    --------
    >>> p, q = [.1, .2, .3, .4], [.4, .3, .2, .1]
    >>> sibling_distribution(p, q, 2, drafting="distinct").round(12).tolist()
    [0.1, 0.2, 0.3, 0.4]
    >>> sibling_distribution(p, q, 2, repair=False).round(4).tolist()
    [0.156, 0.312, 0.328, 0.204]
    """
    return sibling_law_and_acceptance(p, q, n, drafting=drafting, repair=repair)[0]


def sibling_acceptance(
    p: ArrayLike, q: ArrayLike, n: int, *, drafting: Drafting = "sample", repair: bool = True
) -> float:
    """Probability that one of ``n`` siblings is accepted (exact; cost as `sibling_distribution`).

    Notes
    -----
    For ``sample``, sibling j is tested against p′_j with acceptance
    ``alpha_j = sum min(p′_j, q)``, so the node accepts with ``1 - prod_j (1 - alpha_j)``.

    Examples
    --------
    >>> p, q = [.1, .2, .3, .4], [.4, .3, .2, .1]
    >>> round(sibling_acceptance(p, q, 1), 12), round(sibling_acceptance(p, q, 2), 12)
    (0.6, 0.72)
    >>> round(sibling_acceptance(p, q, 2, drafting="top"), 12)
    0.3
    """
    return sibling_law_and_acceptance(p, q, n, drafting=drafting, repair=repair)[1]


def expected_tree_tokens_per_pass(beta: float, depth: int) -> float:
    """Expected tokens per target pass of a tree ``depth`` levels deep.

    Each level is a node of siblings accepted with probability ``beta`` (`sibling_acceptance`);
    the pass emits the accepted levels plus one token (the fallback or the bonus), so it is
    the chain's series with alpha replaced by beta. Exact with fixed p and q at every level.

    .. math:: E = \\sum_{j=0}^{d} \\beta^j = \\frac{1 - \\beta^{d+1}}{1 - \\beta}

    Examples
    --------
    >>> expected_tree_tokens_per_pass(0.5, 3), expected_tree_tokens_per_pass(1.0, 3)
    (1.875, 4.0)
    """
    return float(expected_tokens_per_pass(beta, depth))
