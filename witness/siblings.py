"""Several drafted siblings at one position, verified in turn: recursive rejection sampling.

A token tree drafts n candidates ("siblings") for one position instead of one. They are
checked one after another: sibling j is tested against the current target law p′ (p at
first) with the law q′_j it was drafted from, ``u * q′(x) < p′(x)`` as in
`witness.rule.accepts`; a rejection replaces p′ by the normalised excess ``max(0, p′ − q′_j)``
and passes to the next sibling; when every sibling fails, the token is drawn from the last p′.
Each rejection removes exactly the mass the rejected sibling could have claimed, so the
emitted token is distributed as p whatever the drafting (the three rows of `DRAFTINGS`):

============  ===========================================  ========================  ===========
drafting      siblings                                     draft law q′_j            known as
============  ===========================================  ========================  ===========
``sample``    n independent draws from q                   q                         SpecInfer
``distinct``  n draws from q without replacement           q without x_0..x_{j-1}    Sequoia/RSD
``top``       q's n most likely tokens (no randomness)     one-hot at x_j            EAGLE-2
============  ===========================================  ========================  ===========

With ``repair=False`` (the station's "repair off" switch, a deliberately broken rule) p′ is
never updated: every sibling is tested against p and the fallback is drawn from p.

Sibling 0 of ``sample`` and ``distinct`` uses the chain's own keyed uniforms
(`witness.keys.sibling_uniforms`), so one sibling is exactly the chain's k = 1 block and
widening the node keeps every decision the narrower node made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.cache import RequestCache
from witness.keys import SIBLINGS_MAX, Stream, block_uniforms, sibling_uniforms
from witness.rule import accepts
from witness.simulate import Simulation
from witness.theory import (
    _pair,
    as_distribution,
    expected_tokens_per_pass,
    residual_unchecked,
    sample_from_cdf,
    sample_inverse_cdf,
    sample_one,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
Drafting = Literal["sample", "distinct", "top"]
DRAFTINGS: tuple[Drafting, ...] = ("sample", "distinct", "top")

# Elements (float64) the exact law of ``distinct`` siblings may enumerate: ~400 MB of work,
# done in batches of _BATCH elements so the memory stays near 16 MB whatever the budget.
LAW_BUDGET = 50_000_000
_BATCH = 1 << 21

# One sibling's check, for any rule: (p′ rows, q′ rows) -> (mass emitted by accepting,
# mass of the drafts rejected, the next p′ rows). The exact laws take it as a parameter so
# typical acceptance (`witness.typical`) shares the enumeration.
Step = Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray, FloatArray]]
# The same two exact values (law, acceptance) for ``distinct`` with two siblings, given q:
# the rule's closed form over q's order, O(V log V) instead of the enumeration's V².
Pair = Callable[[FloatArray], tuple[FloatArray, float]]


@dataclass(frozen=True, slots=True)
class SiblingTest:
    """One sibling's check: ``accepted`` is ``u * q < p``.

    ``p`` is p′(x), the law it was tested against; ``q`` is q′(x), the law it was drafted
    from (1.0 for ``top``, whose draft law is a point mass).
    """

    index: int
    token: int
    p: float
    q: float
    u: float
    accepted: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SiblingResult:
    """What one position with siblings emitted.

    ``accepted`` is the index of the accepted sibling (None when every sibling failed);
    ``tests`` has one entry per sibling tested, in order, ending at the accepted one;
    ``law`` is the last p′ the token was drawn from when every sibling failed, else None
    (it is left out of ``==``: it follows from the rest for given p and q).
    """

    accepted: int | None
    token: int
    tests: tuple[SiblingTest, ...]
    law: FloatArray | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "token": self.token,
            "tests": [t.to_dict() for t in self.tests],
            "law": None if self.law is None else self.law.tolist(),
        }


def _check_drafting(drafting: str) -> None:
    if drafting not in DRAFTINGS:
        raise ValueError(f"drafting must be one of {', '.join(DRAFTINGS)}, not {drafting!r}")


def _check_count(n: object, name: str = "n") -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"{name} must be a positive integer, not {n!r}")
    return int(n)


def _row(x: ArrayLike, name: str) -> FloatArray:
    arr = as_distribution(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one distribution (a single row)")
    return arr


def _one_position(p: ArrayLike, q: ArrayLike) -> tuple[FloatArray, FloatArray]:
    pa, qa = _pair(p, q)
    if pa.ndim != 1 or qa.ndim != 1:
        raise ValueError("p and q must be single rows (one position)")
    return pa, qa


def _unit(values: ArrayLike, name: str, shape: tuple[int, ...]) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, not {arr.shape}")
    if not (np.isfinite(arr).all() and (arr >= 0.0).all() and (arr < 1.0).all()):
        raise ValueError(f"{name} must hold uniforms in [0, 1)")
    return arr


def _top_tokens(q: FloatArray, n: int) -> IntArray:
    """q's n most likely tokens, ties by lower id; never a token q cannot draft."""
    order = np.argsort(-q, kind="stable")
    return order[: min(n, int(np.count_nonzero(q)))]


def _one_hot(x: int, vocab: int) -> FloatArray:
    row = np.zeros(vocab)
    row[x] = 1.0
    return row


def draft_siblings(
    q: ArrayLike, n: int, u_draft: ArrayLike, *, drafting: Drafting = "sample"
) -> tuple[int, ...]:
    """The ``n`` siblings drafted from ``q`` with uniforms ``u_draft`` (by inverse CDF).

    ``sample`` draws each sibling from q with its own uniform; ``distinct`` draws sibling j
    from q with the earlier siblings removed (renormalised), and stops early when q's support
    is used up; ``top`` takes q's n most likely tokens with q > 0 (ties by lower id) and
    ignores the uniforms' values. Sibling 0 of ``sample`` and ``distinct`` is
    ``sample_inverse_cdf(q, u_draft[0])`` exactly: the token the chain drafts.

    Examples
    --------
    >>> q, u = [.4, .3, .2, .1], [0.1, 0.1, 0.1]
    >>> draft_siblings(q, 3, u), draft_siblings(q, 3, u, drafting="distinct")
    ((0, 0, 0), (0, 1, 2))
    >>> draft_siblings(q, 2, [0.9, 0.9], drafting="top")
    (0, 1)
    """
    _check_drafting(drafting)
    qa = _row(q, "q")
    count = _check_count(n)
    return _draft_one(qa, count, _unit(u_draft, "u_draft", (count,)), drafting)


def draft_siblings_unchecked(
    q: FloatArray,
    n: int,
    u_draft: Sequence[float] | FloatArray,
    *,
    drafting: Drafting,
    q_cdf: FloatArray | None = None,
) -> tuple[int, ...]:
    """`draft_siblings` for callers whose q is valid already (the served request).

    ``q_cdf``, when given, is ``q.cumsum()`` (the served request keeps it on each `Law`):
    every draw from q itself then skips the sum; the tokens are the same.
    """
    return _draft_one(q, n, u_draft, drafting, q_cdf)


def _draft_one(
    q: FloatArray,
    n: int,
    u: Sequence[float] | FloatArray,
    drafting: Drafting,
    q_cdf: FloatArray | None = None,
) -> tuple[int, ...]:
    if drafting == "top":
        return tuple(int(x) for x in _top_tokens(q, n))
    cdf = q.cumsum() if q_cdf is None else q_cdf
    out = [sample_from_cdf(q, cdf, float(u[0]))]
    if drafting == "sample":
        out.extend(sample_from_cdf(q, cdf, float(u[j])) for j in range(1, n))
        return tuple(out)
    remaining = q.copy()
    for j in range(1, n):
        remaining[out[-1]] = 0.0
        if not remaining.any():  # q's support is used up: fewer siblings
            break
        out.append(sample_one(remaining, float(u[j])))
    return tuple(out)


def _draft_laws(
    q: FloatArray, drafts: Sequence[int] | IntArray, drafting: Drafting
) -> Iterator[tuple[int, int, FloatArray | None]]:
    """(index, token, q′) per sibling; q′ is None for ``top`` (a point mass at the token)."""
    remaining: FloatArray | None = None
    for j, token in enumerate(drafts):
        x = int(token)
        if drafting == "top":
            yield j, x, None
        elif drafting == "sample" or remaining is None:
            yield j, x, q
        else:
            yield j, x, remaining / remaining.sum()
        if drafting == "distinct":
            remaining = q.copy() if remaining is None else remaining
            remaining[x] = 0.0


def _checked(
    p: ArrayLike,
    q: ArrayLike,
    drafts: ArrayLike,
    u: ArrayLike | None,
    u_final: float,
    drafting: str,
) -> tuple[FloatArray, FloatArray, IntArray, FloatArray | None, float]:
    """The validation `verify_siblings` and `witness.typical.verify_typical` share."""
    _check_drafting(drafting)
    pa, qa = _one_position(p, q)
    vocab = pa.shape[0]
    raw = np.asarray(drafts)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError("drafts must be a non-empty list of token ids")
    if raw.dtype.kind not in "iu":
        raise ValueError(f"drafts must be integer token ids, not {raw.dtype}")
    if (raw < 0).any() or (raw >= vocab).any():
        raise ValueError(f"drafts must be token ids in 0..{vocab - 1}")
    x = raw.astype(np.intp)
    if drafting != "top" and (qa[x] <= 0.0).any():
        raise ValueError("drafts must have q > 0: q drafted them")
    if drafting == "distinct" and np.unique(x).size != x.size:
        raise ValueError("drafts must be distinct for drafting='distinct' (no replacement)")
    uu = None if u is None else _unit(u, "u", x.shape)
    uf = float(_unit(u_final, "u_final", ()))
    return pa, qa, x, uu, uf


def verify_siblings(
    p: ArrayLike,
    q: ArrayLike,
    drafts: ArrayLike,
    u: ArrayLike,
    u_final: float,
    *,
    drafting: Drafting = "sample",
) -> SiblingResult:
    """Verify the siblings ``drafts`` at one position, in order, against the target ``p``.

    Parameters
    ----------
    p, q : array, shape (V,)
        Target and draft distributions at the position.
    drafts : array of int, shape (n,)
        The siblings, as `draft_siblings` drafts them (``sample`` and ``distinct`` need
        q > 0 for each, ``distinct`` needs them distinct; for ``top`` any fixed list is
        lossless, since the draft law is a point mass).
    u : array, shape (n,)
        Acceptance uniforms in [0, 1), one per sibling.
    u_final : float
        The uniform that draws the token from the last p′ when every sibling fails.

    Raises
    ------
    ValueError
        Naming the argument that is not valid.

    Examples
    --------
    >>> p, q = [.1, .2, .3, .4], [.4, .3, .2, .1]
    >>> r = verify_siblings(p, q, [0, 2], [0.5, 0.9], 0.0)   # 0 fails .5 > .25; 2 passes
    >>> r.accepted, r.token, round(r.tests[1].p, 12)
    (1, 2, 0.25)
    """
    pa, qa, x, uu, uf = _checked(p, q, drafts, u, u_final, drafting)
    assert uu is not None
    return verify_siblings_unchecked(pa, qa, x, uu, uf, drafting=drafting)


def verify_siblings_unchecked(
    p: FloatArray,
    q: FloatArray,
    drafts: Sequence[int] | IntArray,
    u: Sequence[float] | FloatArray,
    u_final: float,
    *,
    drafting: Drafting,
    repair: bool = True,
    residual0: FloatArray | None = None,
) -> SiblingResult:
    """`verify_siblings` for callers whose rows are valid already (the served request).

    ``repair=False`` is the broken "repair off" rule: p′ stays p. ``residual0``, when given,
    is ``residual(p, q)``, the law after a first rejection of ``sample`` or ``distinct``
    (a caller that keeps it saves one computation).
    """
    law = p
    tests: list[SiblingTest] = []
    for j, x, q_row in _draft_laws(q, drafts, drafting):
        p_x, q_x, u_j = float(law[x]), 1.0 if q_row is None else float(q_row[x]), float(u[j])
        ok = accepts(u_j, p_x, q_x)
        tests.append(SiblingTest(j, x, p_x, q_x, u_j, ok))
        if ok:
            return SiblingResult(j, x, tuple(tests))
        if not repair:
            continue
        if q_row is None:
            law = residual_unchecked(law, _one_hot(x, law.shape[0]))
        elif j == 0 and residual0 is not None:
            law = residual0
        else:
            law = residual_unchecked(law, q_row)
    return SiblingResult(None, sample_one(law, float(u_final)), tuple(tests), law)


# ---------------------------------------------------------------------------- exact laws


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


# ---------------------------------------------------------------------------- simulation


def _sample_rows(rows: FloatArray, u: FloatArray) -> IntArray:
    """`sample_one` row by row, with the same arithmetic (cumsum, then the right search)."""
    cdf = rows.cumsum(axis=1)
    index: IntArray = (cdf <= (u * cdf[:, -1])[:, None]).sum(axis=1).astype(np.intp)
    over = index >= rows.shape[1]  # u * total rounded up to the total: the last live token
    if over.any():
        index[over] = rows.shape[1] - 1 - np.argmax(rows[over, ::-1] > 0.0, axis=1)
    return index


def _shared_chain(
    p: FloatArray,
    q: FloatArray,
    drafts: IntArray,
    u: FloatArray,
    u_final: FloatArray,
    drafting: Drafting,
    repair: bool,
) -> tuple[IntArray, NDArray[np.bool_]]:
    """``sample`` and ``top``: p′_j is the same for every block that reached sibling j (q′
    does not depend on what was drafted), so one chain of laws serves all the blocks."""
    blocks, width = drafts.shape
    laws = [p]
    for j in range(width):
        q_row = q if drafting == "sample" else _one_hot(int(drafts[0, j]), q.shape[0])
        laws.append(residual_unchecked(laws[-1], q_row) if repair else p)
    q_x = q[drafts] if drafting == "sample" else np.ones(drafts.shape)
    p_x = np.stack([laws[j][drafts[:, j]] for j in range(width)], axis=1)
    ok = u[:, :width] * q_x < p_x
    hit = np.asarray(ok.any(axis=1), dtype=np.bool_)
    token = drafts[np.arange(blocks), np.argmax(ok, axis=1)].astype(np.intp)
    token[~hit] = sample_inverse_cdf(laws[width], u_final[~hit])
    return token, hit


def _distinct(
    p: FloatArray,
    q: FloatArray,
    u_draft: FloatArray,
    u: FloatArray,
    u_final: FloatArray,
    repair: bool,
    renormalise: bool,
) -> tuple[IntArray, NDArray[np.bool_]]:
    """``distinct``: sibling 0 is shared by all blocks; a rejected block carries its own p′
    and its q without the drafted tokens, in batches of rows, and drafts sibling j only
    when it reaches it (the tokens `draft_siblings` would have drafted, lazily)."""
    blocks, width = u.shape
    x0 = sample_inverse_cdf(q, u_draft[:, 0])
    hit = np.asarray(u[:, 0] * q[x0] < p[x0], dtype=np.bool_)
    token = x0.astype(np.intp)
    first_law = residual_unchecked(p, q) if repair else p
    if width == 2:
        _distinct_second(q, x0, first_law, u_draft, u, u_final, repair, renormalise, token, hit)
        return token, hit
    batch = max(1, _BATCH // p.shape[0])
    rejected = np.flatnonzero(~hit)
    for s in range(0, rejected.size, batch):
        rows = rejected[s : s + batch]
        law = np.tile(first_law, (rows.size, 1))
        remaining = np.tile(q, (rows.size, 1))
        remaining[np.arange(rows.size), x0[rows]] = 0.0
        live = np.arange(rows.size)  # not yet accepted (some may have run out of q)
        for j in range(1, width):
            left = live[remaining[live].any(axis=1)]  # q's support used up: no sibling j
            if not left.size:
                break
            here = remaining[left]
            x = _sample_rows(here, u_draft[rows[left], j])
            if renormalise:
                q_rows = here / here.sum(axis=1, keepdims=True)
            else:  # the teeth's broken rule: the rejected tokens stay in the draft law
                q_rows = np.broadcast_to(q, here.shape)
            r = np.arange(left.size)
            cur = law[left]
            ok = u[rows[left], j] * q_rows[r, x] < cur[r, x]
            token[rows[left[ok]]] = x[ok]
            hit[rows[left[ok]]] = True
            no = ~ok
            if repair:
                law[left[no]] = residual_unchecked(cur[no], q_rows[no])
            remaining[left[no], x[no]] = 0.0
            live = np.setdiff1d(live, left[ok], assume_unique=True)
        if live.size:
            token[rows[live]] = _sample_rows(law[live], u_final[rows[live]])
    return token, hit


def _distinct_second(
    q: FloatArray,
    x0: IntArray,
    first_law: FloatArray,
    u_draft: FloatArray,
    u: FloatArray,
    u_final: FloatArray,
    repair: bool,
    renormalise: bool,
    token: IntArray,
    hit: NDArray[np.bool_],
) -> None:
    """``distinct`` with two siblings, in place: every block that rejected the same x0 meets
    the same q without x0, the same p′ and so the same last residual, so the laws are one
    row per rejected token (not per block), and each token's blocks are drawn from them with
    one search each, with the plain loop's arithmetic."""
    rejected = np.flatnonzero(~hit)
    if not rejected.size:
        return
    order = rejected[np.argsort(x0[rejected], kind="stable")]
    firsts, starts = np.unique(x0[order], return_index=True)
    groups = np.arange(firsts.size)
    remaining = np.tile(q, (firsts.size, 1))
    remaining[groups, firsts] = 0.0
    mass = remaining.sum(axis=1)
    live = mass > 0.0  # else q's support is used up: no second sibling
    safe = np.where(live, mass, 1.0)[:, None]
    q_rows = remaining / safe if renormalise else np.broadcast_to(q, remaining.shape)
    lasts = (
        residual_unchecked(np.broadcast_to(first_law, q_rows.shape), q_rows)
        if repair
        else np.broadcast_to(first_law, q_rows.shape)
    )
    draft_cdf, last_cdf = remaining.cumsum(axis=1), lasts.cumsum(axis=1)
    vocab = q.shape[0]
    tail = vocab - 1 - np.argmax(remaining[:, ::-1] > 0.0, axis=1)  # last token q still has
    last_tail = vocab - 1 - np.argmax(lasts[:, ::-1] > 0.0, axis=1)
    first_tail = int(np.flatnonzero(first_law)[-1])
    for g, rows in zip(groups, np.split(order, starts[1:]), strict=True):
        if not live[g]:
            cdf = first_law.cumsum()
            drawn = cdf.searchsorted(u_final[rows] * cdf[-1], side="right")
            token[rows] = np.minimum(drawn, first_tail)
            continue
        cdf = draft_cdf[g]
        y = np.minimum(cdf.searchsorted(u_draft[rows, 1] * cdf[-1], side="right"), tail[g])
        ok = u[rows, 1] * q_rows[g, y] < first_law[y]
        token[rows[ok]] = y[ok]
        hit[rows[ok]] = True
        no = rows[~ok]
        if no.size:
            cdf = last_cdf[g]
            drawn = cdf.searchsorted(u_final[no] * cdf[-1], side="right")
            token[no] = np.minimum(drawn, last_tail[g])


def _sibling_grid(
    seed: int, blocks: int, n: int, stream: Stream, cache: RequestCache | None
) -> FloatArray:
    if n == 1:  # the chain's own grid, shared with simulate_blocks through the cache
        grid = block_uniforms if cache is None else cache.uniforms
        return grid(seed, blocks, 1, stream)
    return sibling_uniforms(seed, blocks, 1, n, stream)[:, 0, :]


def _run_siblings(
    p: ArrayLike,
    q: ArrayLike,
    n: int,
    blocks: int,
    *,
    seed: int,
    drafting: Drafting,
    repair: bool,
    cache: RequestCache | None,
    renormalise: bool = True,
) -> Simulation:
    """`simulate_siblings`, with a private hook for the teeth tests: ``renormalise=False``
    verifies ``distinct`` siblings as if q′_j were q (the rejected tokens stay in the draft
    law), a broken rule."""
    _check_drafting(drafting)
    pa, qa = _one_position(p, q)
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= SIBLINGS_MAX:
        raise ValueError(f"n must be 1 to {SIBLINGS_MAX} siblings, not {n!r}")
    count = _check_count(blocks, "blocks")
    u_accept = _sibling_grid(seed, count, n, Stream.ACCEPT, cache)
    grid = block_uniforms if cache is None else cache.uniforms
    u_final = grid(seed, count, 1, Stream.FINAL)[:, 0]
    if drafting == "top":  # no uniforms drafted: q's most likely tokens, in every block
        top = _top_tokens(qa, n)
        drafts = np.broadcast_to(top, (count, top.size))
        token, hit = _shared_chain(pa, qa, drafts, u_accept, u_final, drafting, repair)
    else:
        u_draft = _sibling_grid(seed, count, n, Stream.DRAFT, cache)
        if drafting == "sample":
            drafts = sample_inverse_cdf(qa, u_draft)
            token, hit = _shared_chain(pa, qa, drafts, u_accept, u_final, drafting, repair)
        else:
            token, hit = _distinct(pa, qa, u_draft, u_accept, u_final, repair, renormalise)
    counts = np.bincount(token, minlength=pa.shape[0]).astype(np.int64)
    return Simulation(counts, np.ones(count, dtype=np.int64), hit.astype(np.int64), counts.copy())


def simulate_siblings(
    p: ArrayLike,
    q: ArrayLike,
    n: int,
    blocks: int,
    *,
    seed: int,
    drafting: Drafting = "sample",
    repair: bool = True,
    cache: RequestCache | None = None,
) -> Simulation:
    """``blocks`` independent positions verified with ``n`` siblings, vectorised over blocks.

    Block b's sibling j uses ``sibling_uniforms(seed, blocks, 1, n, stream)[b, 0, j]`` for
    DRAFT and ACCEPT and ``block_uniforms(seed, blocks, 1, Stream.FINAL)[b, 0]`` for the
    fallback: exactly what a loop over `draft_siblings` and `verify_siblings` is given, with
    the same counts. With n = 1 the grids are the chain's, so the first-token counts are
    `witness.simulate.simulate_blocks`' at k = 1. Each block is one position:
    ``tokens_per_block`` is all ones and ``accepted_per_block`` is 1 where a sibling stood.

    Examples
    --------
    >>> sim = simulate_siblings([.1, .2, .3, .4], [.4, .3, .2, .1], 2, 20000, seed=1)
    >>> (sim.first_token_counts / sim.n).round(2).tolist()
    [0.1, 0.2, 0.3, 0.4]
    >>> round(float(sim.accepted_per_block.mean()), 2)    # sibling_acceptance: 0.72
    0.72
    """
    return _run_siblings(p, q, n, blocks, seed=seed, drafting=drafting, repair=repair, cache=cache)
