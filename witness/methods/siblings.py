"""Several drafted siblings at one position, verified in turn: recursive rejection sampling.

A token tree drafts n candidates ("siblings") for one position instead of one. They are
checked one after another: sibling j is tested against the current target law p′ (p at
first) with the law q′_j it was drafted from, ``u * q′(x) < p′(x)`` as in
`witness.core.rule.accepts`; a rejection replaces p′ by the normalised excess ``max(0, p′ − q′_j)``
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
(`witness.core.keys.sibling_uniforms`), so one sibling is exactly the chain's k = 1 block and
widening the node keeps every decision the narrower node made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.core.distributions import (
    as_distribution,
    sample_from_cdf,
    sample_one,
)
from witness.core.rule import accepts
from witness.core.theory import _pair, residual_unchecked

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
Drafting = Literal["sample", "distinct", "top"]
DRAFTINGS: tuple[Drafting, ...] = ("sample", "distinct", "top")

# One sibling's check, for any rule: (p′ rows, q′ rows) -> (mass emitted by accepting,
# mass of the drafts rejected, the next p′ rows). The exact laws take it as a parameter so
# typical acceptance (`witness.methods.typical`) shares the enumeration.
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
    """The validation `verify_siblings` and `witness.methods.typical.verify_typical` share."""
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
