"""One verification block, written as plainly as the rule reads (the reference for the rest).

`verify_block` takes everything random as arguments (drafted tokens, uniforms), so it is a
pure function; `simulate_blocks` and `serve_request` decide where the randomness comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.core.distributions import rows_checked, sample_one, token_ids
from witness.core.theory import residual_unchecked


@dataclass(frozen=True, slots=True)
class BlockResult:
    """What one draft-then-verify block emitted.

    ``accepted`` counts drafted tokens kept; ``first_rejection`` is the 0-based drafted
    position that was rejected (None when every draft stood); ``emitted`` is the accepted
    prefix followed by the repair or bonus token. With verify off nothing is checked:
    ``verified`` is False, and ``emitted`` is the k drafted tokens as they came.
    """

    accepted: int
    first_rejection: int | None
    emitted: tuple[int, ...]
    repair_token: int | None
    bonus_token: int | None
    verified: bool = True

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["emitted"] = list(self.emitted)
        return out


def accepts(u: float, p_x: float, q_x: float) -> bool:
    """``u < min(1, p(x)/q(x))``, written without the division.

    ``u * q < p`` is the same test for ``q > 0`` and stays exact when ``p >= q`` (always
    accepted, since ``u < 1``) or ``p = 0`` (never accepted).
    """
    return bool(u * q_x < p_x)


def verify_block(
    p_rows: ArrayLike,
    q_rows: ArrayLike,
    draft: ArrayLike,
    u: ArrayLike,
    u_repair: float,
    *,
    verify: bool = True,
    repair: bool = True,
) -> BlockResult:
    """Verify ``k`` drafted tokens against the target in one pass.

    Parameters
    ----------
    p_rows : array, shape (k + 1, V)
        Target distributions at the k drafted positions and at the bonus position.
    q_rows : array, shape (k, V)
        Draft distributions the tokens were drawn from.
    draft : array of int, shape (k,)
        The drafted tokens; each must have ``q_i(x_i) > 0``.
    u : array, shape (k,)
        Acceptance uniforms in [0, 1).
    u_repair : float
        The uniform that draws the repair or bonus token by inverse CDF.
    verify, repair : bool
        The switches: without verify the draft is emitted unchecked; without repair a
        rejection is resampled from ``p`` instead of the residual.

    Examples
    --------
    >>> p = [[.1, .2, .3, .4]] * 3
    >>> q = [[.4, .3, .2, .1]] * 2
    >>> verify_block(p, q, [2, 0], [0.5, 0.9], 0.5).emitted   # 2 accepted; 0 rejected: .9 > .25
    (2, 3)
    """
    # Checked as `as_distribution` checks, without copying float64 rows: only read here.
    p = rows_checked(p_rows, "p_rows", copy=False)
    q = rows_checked(q_rows, "q_rows", copy=False)
    x = token_ids(draft, "draft", p.shape[-1])
    uu = np.asarray(u, dtype=np.float64)
    k = x.shape[0] if x.ndim == 1 else -1
    if (
        x.ndim != 1
        or p.ndim != 2
        or q.ndim != 2
        or q.shape[0] != k
        or p.shape[0] != k + 1
        or uu.shape != (k,)
        or p.shape[1:] != q.shape[1:]
    ):
        raise ValueError(
            f"need p_rows[k+1, V], q_rows[k, V], draft[k], u[k] (got p_rows {p.shape}, "
            f"q_rows {q.shape}, draft {x.shape}, u {uu.shape})"
        )
    if not all(0.0 <= value < 1.0 for value in uu.tolist()):  # NaN fails both comparisons
        raise ValueError("u must hold uniforms in [0, 1)")
    if not 0.0 <= float(u_repair) < 1.0:
        raise ValueError(f"u_repair must be a uniform in [0, 1) (got {u_repair!r})")
    return verify_unchecked(p, q, x.tolist(), uu, u_repair, verify=verify, repair=repair)


def verify_unchecked(
    p: Sequence[NDArray[np.float64]] | NDArray[np.float64],
    q: Sequence[NDArray[np.float64]] | NDArray[np.float64],
    x: Sequence[int] | NDArray[np.intp],
    uu: NDArray[np.float64],
    u_repair: float,
    *,
    verify: bool,
    repair: bool,
    residual_at: Callable[[int], NDArray[np.float64]] | None = None,
) -> BlockResult:
    """`verify_block` for callers whose rows are already valid (the served request).

    Rows may be a stacked array or a list of rows (no copy is needed to verify a block), and
    ``residual_at(i)`` lets a caller that will draw the residual itself share one copy.
    """
    k = len(x)
    if not verify:
        return BlockResult(k, None, tuple(int(t) for t in x), None, None, verified=False)
    for i in range(k):
        p_x, q_x = float(p[i][x[i]]), float(q[i][x[i]])
        if q_x <= 0.0:
            raise ValueError(f"drafted token {int(x[i])} at position {i} has q = 0")
        if not accepts(float(uu[i]), p_x, q_x):
            if repair:
                law = residual_at(i) if residual_at else residual_unchecked(p[i], q[i])
            else:
                law = p[i]
            token = sample_one(law, float(u_repair))  # float64 rows: no conversion to make
            return BlockResult(i, i, (*(int(t) for t in x[:i]), token), token, None)
    bonus = sample_one(p[k], float(u_repair))
    return BlockResult(k, None, (*(int(t) for t in x), bonus), None, bonus)
