"""The chain's serve loop, compiled: one drafted position, one block, whole requests.

Every chain request on the station is served here: the request on screen
(`witness.serve.request.serve_request` reads its trace from the record), every seeded request of
an ensemble (`serve_chains`; `serve_path` is it with one seed) and every policy of a race
(`witness.judge.adaptive`, one block at a time, with its own stop rules and position-keyed
uniforms). One rule, one step:

- **a drafted position** (`_laws`, `_draw`): p at the context (one-hot at its argmax when
  greedy), q = m·p + (1 − m)·d (d the draft model's row, or the adversary's one-hot at p's
  least likely word; one-hot at q's argmax when greedy), α = Σ min(p, q), the token drawn
  from q by inverse CDF with its draft uniform, and the test u·q(x) < p(x);
- **a block** (`_block`): positions until the draft length (or a race's stop rule), drafted
  on past a rejection as a server does (the draft is autoregressive and runs ahead of the
  target), then one closing token from the first rejection's residual (p with repair off),
  or a bonus from p after the last draft; with verify off the drafts are the output;
- **a request** (`_serve`): blocks until the request has its tokens, each drafting no further
  than the request goes, the output cut to what it still needs.

Bit-identity with the per-context laws (`witness.models.laws.Law`,
`witness.core.rule.verify_unchecked`) is the contract: each value is computed with numpy's own
operations in numpy's own order, as `witness.models.kernels` does (they share its pairwise
sum), so a served request, its JSON and every ensemble are what the numpy loops give.
tests/witness/reference_loops.py keeps those loops, and tests/witness/test_chain.py holds
this one to them.

Why compiled: a chain request of 48 tokens visits ~60 contexts, each a handful of whole-row
operations on a 630-word row; in numpy most of that time is call overhead, and an ensemble
serves dozens of requests (bench/witness.py prints the ratio). Every kernel has an explicit
signature, so it is compiled when this module is first imported and cached on disk beside
it; ``make setup`` imports it, so no learner's request waits on a compiler.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numpy.typing import NDArray

from witness.core.keys import Stream
from witness.core.settings import Settings
from witness.core.trace import ServedPath
from witness.methods.block import compiled_chain, first_alpha
from witness.models.cache import RequestCache
from witness.models.kernels import (
    argmax_first,
    argmin_first,
    blend_into,
    cdf_alpha_into,
    one_hot_into,
    residual_row,
    tv_row,
)
from witness.models.laws import context_pair
from witness.models.lm import tiny_models

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

# Stop rules a race's policies add to a block (`witness.judge.adaptive`); a served request has none.
NO_STOP = 0
STOP_UNSURE = 1  # after a token the draft gives less than the threshold (confidence)
STOP_REJECTED = 2  # after the first token the target will reject (the hindsight oracle)
# The tests' broken twin of the oracle: stops *before* the token it knows will be rejected.
STOP_BEFORE_REJECTED = 3

_I = types.intp
_F, _B = types.float64, types.boolean
_TABLE = types.Array(types.float64, 2, "C", readonly=True)
_IDS = types.Array(types.intp, 2, "C", readonly=True)
_U1 = types.Array(types.float64, 1, "C", readonly=True)
_U3 = types.Array(types.float64, 3, "C", readonly=True)
_U2 = types.Array(types.float64, 2, "C", readonly=True)
_OUT_I1 = types.Array(types.intp, 1, "C")
_OUT_F1 = types.Array(types.float64, 1, "C")
_OUT_I3 = types.Array(types.intp, 3, "C")
_OUT_F3 = types.Array(types.float64, 3, "C")


@njit(cache=True, nogil=True)
def _laws(target_rows, row_of, draft_rows, before, prev, match, greedy, adversary, p, q, cdf, low):  # type: ignore[no-untyped-def]  # noqa: E501
    """p and q at context (before, prev) into ``p`` and ``q``, q's CDF into ``cdf``; returns
    α. As `witness.models.laws.law_at` and `Law` compute them, with the same kernels
    (``low`` is a work row; the adversary's one-hot row is built in it first)."""
    sampled = target_rows[row_of[before, prev]]
    if greedy:
        one_hot_into(p, argmax_first(sampled))
    else:
        p[:] = sampled
    if adversary:  # `adversary_row`: all the draft's mass on p's first least likely word
        one_hot_into(low, argmin_first(sampled))
        blend_into(sampled, low, match, greedy, q)
    else:
        blend_into(sampled, draft_rows[prev], match, greedy, q)
    return cdf_alpha_into(p, q, cdf, low)


@njit(cache=True, nogil=True)
def _draw(dist, cdf, u):  # type: ignore[no-untyped-def]
    """`witness.core.distributions.sample_from_cdf`: the first index whose CDF exceeds u
    times the total (numpy's searchsorted, side="right"), else the last token with mass."""
    target = u * cdf[cdf.size - 1]
    lo, hi = 0, cdf.size
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] > target:
            hi = mid
        else:
            lo = mid + 1
    if lo < cdf.size:
        return lo
    last = dist.size - 1
    while dist[last] == 0.0:
        last -= 1
    return last


@njit(cache=True, nogil=True)
def _draw_row(dist, cdf, u):  # type: ignore[no-untyped-def]
    """`witness.core.distributions.sample_one`: the CDF (``dist.cumsum()``) into ``cdf``,
    then a draw."""
    total = 0.0
    for i in range(dist.size):
        total += dist[i]
        cdf[i] = total
    return _draw(dist, cdf, u)


@njit(cache=True, nogil=True)
def _block(  # type: ignore[no-untyped-def]
    tables, before, prev, limit, u_draft, u_accept, u_final, final_by_end, switches,
    stop, threshold, work, token, alpha, p_x, q_x, tv, detail,
):  # fmt: skip
    """One block from context (before, prev): drafts into ``token``/``alpha`` (and, with
    ``detail``, p(x), q(x) and the mode's TV into ``p_x``/``q_x``/``tv``).

    Returns (drafted, accepted, first rejection or −1, closing token or −1, before, prev),
    the last two the context after the drafts. ``u_final`` is one uniform per block, or one
    per position when ``final_by_end`` (a race's uniforms are keyed by output position)."""
    target_rows, row_of, draft_rows = tables
    match, greedy, adversary, verify, repair = switches
    p, q, cdf, low, p_r, q_r = work[0], work[1], work[2], work[3], work[4], work[5]
    n, rejected = 0, -1
    for i in range(limit):
        a = _laws(target_rows, row_of, draft_rows, before, prev, match, greedy, adversary,
                  p, q, cdf, low)  # fmt: skip
        x = _draw(q, cdf, u_draft[i])
        accepted = u_accept[i] * q[x] < p[x]  # `witness.core.rule.accepts`, without a division
        if stop == STOP_BEFORE_REJECTED and verify and not accepted:
            break
        token[n], alpha[n] = x, a
        if detail:
            p_x[n], q_x[n] = p[x], q[x]
            tv[n] = tv_row(p, q, verify, repair)
        n += 1
        if verify and not accepted and rejected < 0:
            rejected = i
            p_r[:] = p
            q_r[:] = q
        before, prev = prev, x
        if stop == STOP_UNSURE and q[x] < threshold:
            break
        if stop == STOP_REJECTED and verify and not accepted:
            break
    if not verify:
        return n, n, -1, -1, before, prev
    end = rejected if rejected >= 0 else n
    u = u_final[end] if final_by_end else u_final[0]
    if rejected >= 0:
        law = residual_row(p_r, q_r) if repair else p_r
        return n, rejected, rejected, _draw_row(law, cdf, u), before, prev
    _laws(target_rows, row_of, draft_rows, before, prev, match, greedy, adversary,
          p, q, cdf, low)  # fmt: skip
    return n, n, -1, _draw_row(p, cdf, u), before, prev


_BLOCK_SIG = types.UniTuple(_I, 6)(
    _TABLE, _IDS, _TABLE, _I, _I, _I, _U1, _U1, _U1, _B, _F, _B, _B, _B, _B, _I, _F,
    _OUT_I1, _OUT_F1, _OUT_F1, _OUT_F1, _OUT_F1, _B,
)  # fmt: skip


@njit(_BLOCK_SIG, cache=True, nogil=True)
def block_kernel(  # type: ignore[no-untyped-def]
    target_rows, row_of, draft_rows, before, prev, limit, u_draft, u_accept, u_final,
    final_by_end, match, greedy, adversary, verify, repair, stop, threshold,
    token, alpha, p_x, q_x, tv, detail,
):  # fmt: skip
    """`_block` for a caller that plans block by block (a race's policies)."""
    work = np.empty((6, target_rows.shape[1]))
    return _block(
        (target_rows, row_of, draft_rows), before, prev, limit, u_draft, u_accept, u_final,
        final_by_end, (match, greedy, adversary, verify, repair), stop, threshold, work,
        token, alpha, p_x, q_x, tv, detail,
    )  # fmt: skip


_SERVE_SIG = types.void(
    _TABLE, _IDS, _TABLE, _I, _I, _I, _I, _U3, _U3, _U2, _F, _B, _B, _B, _B,
    _OUT_I1, _OUT_I3, _OUT_I3, _OUT_F3, _OUT_F3, _OUT_F3, _OUT_F3, _B,
)  # fmt: skip


@njit(_SERVE_SIG, cache=True, nogil=True)
def serve_kernel(  # type: ignore[no-untyped-def]
    target_rows, row_of, draft_rows, before0, prev0, tokens, k, u_draft, u_accept, u_final,
    match, greedy, adversary, verify, repair,
    blocks, record, token, alpha, p_x, q_x, tv, detail,
):  # fmt: skip
    """Whole requests, one per row of the uniforms ([request, block, position]; final:
    [request, block]), all from the prompt's context (before0, prev0).

    Writes per request its block count into ``blocks``; per block (drafted, accepted, first
    rejection or −1, closing token or −1) into ``record[request, block]``; per drafted
    position its token and α (with ``detail``: p(x), q(x), TV) into [request, block, i]."""
    tables = (target_rows, row_of, draft_rows)
    switches = (match, greedy, adversary, verify, repair)
    work = np.empty((6, target_rows.shape[1]))
    for j in range(u_draft.shape[0]):
        before, prev = before0, prev0
        emitted, b = 0, 0
        while emitted < tokens:
            room = tokens - emitted
            # A verified block of d drafts emits at most d + 1 tokens: it drafts room − 1;
            # unverified drafts are the output: it drafts room.
            limit = min(k, room - 1 if verify else room)
            # Without detail the detail rows are one row, never written.
            dj, db = (j, b) if detail else (0, 0)
            n, accepted, rejected, closing, _, _ = _block(
                tables, before, prev, limit, u_draft[j, b], u_accept[j, b], u_final[j, b:],
                False, switches, NO_STOP, 0.0, work, token[j, b], alpha[j, b], p_x[dj, db],
                q_x[dj, db], tv[dj, db], detail,
            )  # fmt: skip
            record[j, b, 0], record[j, b, 1] = n, accepted
            record[j, b, 2], record[j, b, 3] = rejected, closing
            count = min(accepted + 1 if verify else n, room)
            for t in range(count):  # the context moves on by what the block emitted
                before, prev = prev, (token[j, b, t] if t < accepted else closing)
            emitted += count
            b += 1
        blocks[j] = b


@dataclass(frozen=True, slots=True)
class ChainRecord:
    """What `serve_kernel` wrote for some requests of one chain setting.

    ``record[j, b]`` is block b of request j: (drafted, accepted, first rejection or −1,
    closing token or −1); ``token``/``alpha`` (and with detail ``p_x``/``q_x``/``tv``) are
    [request, block, position]."""

    blocks: IntArray
    record: IntArray
    token: IntArray
    alpha: FloatArray
    p_x: FloatArray
    q_x: FloatArray
    tv: FloatArray

    def alphas(self, j: int) -> FloatArray:
        """α at request j's drafted positions, block by block."""
        b = int(self.blocks[j])
        drafted = self.record[j, :b, 0]
        mask = np.arange(self.alpha.shape[2])[None, :] < drafted[:, None]
        out: FloatArray = self.alpha[j, :b][mask]
        return out


def serve_record(
    s: Settings, seeds: Sequence[int], cache: RequestCache, *, detail: bool = False
) -> ChainRecord:
    """Serve the chain ``s`` at each of ``seeds`` (its own seed is not read), recording
    every block; ``detail`` also records p(x), q(x) and the TV at every drafted position."""
    if not compiled_chain(s):
        raise ValueError("the chain's loop serves the n-grams' plain chain only (compiled_chain)")
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    before, prev = context_pair(models, prompt)
    n, tokens, k = len(seeds), s.tokens, s.k
    u_draft = _stacked(cache, seeds, tokens, k, Stream.DRAFT)
    u_accept = _stacked(cache, seeds, tokens, k, Stream.ACCEPT)
    u_final = _stacked(cache, seeds, tokens, 1, Stream.FINAL)[:, :, 0]
    blocks = np.empty(n, dtype=np.intp)
    record = np.empty((n, tokens, 4), dtype=np.intp)
    token = np.empty((n, tokens, k), dtype=np.intp)
    alpha = np.empty((n, tokens, k))
    shape = (n, tokens, k) if detail else (1, 1, 1)
    p_x, q_x, tv = np.empty(shape), np.empty(shape), np.empty(shape)
    serve_kernel(
        models.target_rows, models.row_of, models.draft_rows, before, prev, tokens, k,
        u_draft, u_accept, np.ascontiguousarray(u_final), s.match, s.greedy,
        s.draft_source == "adversary", s.verify, s.repair,
        blocks, record, token, alpha, p_x, q_x, tv, detail,
    )  # fmt: skip
    return ChainRecord(blocks, record, token, alpha, p_x, q_x, tv)


def _stacked(
    cache: RequestCache, seeds: Sequence[int], n: int, k: int, stream: Stream
) -> FloatArray:
    if len(seeds) == 1:
        grid = cache.uniforms(seeds[0], n, k, stream)
        return grid.reshape(1, *grid.shape)
    return np.stack([cache.uniforms(seed, n, k, stream) for seed in seeds])


def serve_chains(
    settings: Settings, seeds: Sequence[int], *, cache: RequestCache | None = None
) -> list[ServedPath]:
    """`serve_path(settings with seed s)` for every s in ``seeds``: one compiled loop.

    ``settings`` must be the n-grams' chain (`compiled_chain`); its own seed is not read."""
    if not compiled_chain(settings):
        raise ValueError("serve_chains serves the n-grams' plain chain only (compiled_chain)")
    if len(seeds) == 0:
        return []
    cache = RequestCache() if cache is None else cache
    rec = serve_record(settings, seeds, cache)
    return [_path(settings, rec, j, cache) for j in range(len(seeds))]


def _path(s: Settings, rec: ChainRecord, j: int, cache: RequestCache) -> ServedPath:
    b = int(rec.blocks[j])
    drafted = rec.record[j, :b, 0]
    alphas = tuple(rec.alphas(j).tolist())
    if alphas:
        first = alphas[0]
    else:  # nothing drafted (one token, verified): α where the first draft would be made
        models = tiny_models()
        first = first_alpha(models, cache, s, models.encode(s.prompt)[0])
    passes = np.bincount(drafted + 1) if s.verify else np.zeros(0, dtype=np.intp)
    return ServedPath(
        target_passes=b if s.verify else 0,
        draft_passes=int(drafted.sum()),
        alphas=alphas,
        first_alpha=first,
        scored=tuple((int(t), int(c)) for t, c in enumerate(passes) if c > 0),
    )
