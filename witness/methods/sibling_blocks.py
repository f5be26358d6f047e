"""Many blocks of a node of siblings at one position, vectorised: `simulate_siblings`.

Each block draws its siblings and checks them with the same keyed uniforms a served tree
uses (`witness.core.keys.sibling_uniforms`), so sibling 0 is the chain's own draw and a wider
node keeps every decision a narrower one made.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.core.distributions import sample_inverse_cdf
from witness.core.keys import SIBLINGS_MAX, Stream, block_uniforms, sibling_uniforms
from witness.core.theory import residual_unchecked
from witness.methods.sibling_laws import _BATCH
from witness.methods.siblings import (
    Drafting,
    _check_count,
    _check_drafting,
    _one_hot,
    _one_position,
    _top_tokens,
)
from witness.models.cache import RequestCache
from witness.models.simulate import Simulation

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


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
    `witness.models.simulate.simulate_blocks`' at k = 1. Each block is one position:
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
