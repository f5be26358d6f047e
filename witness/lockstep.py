"""Many seeded requests of one chain setting served at once: `serve_lockstep`.

An ensemble (`witness.ensemble`) serves one setting at dozens of seeds. Served one by one
(`witness.request.serve_path`), each drafted position builds its own `witness.laws.Law`, and
a new match makes every law new: most of a slider move's time. Here the requests move in
lockstep instead: block b of every request unfinished is served together, and position i of
those blocks is one step over a [requests, V] stack of rows, so numpy does per step what the
per-request loop does per request and position.

Every value is computed with the same floating-point operations as the per-request path, row
by row: the blend q = m·p + (1 − m)·d and the one-hot rows are elementwise, a cumulative sum
or a sum along a contiguous row is the one-row reduction, and a draw by inverse CDF is the
same comparison (the first CDF entry above u times the total, else the last token with mass),
so each request's `ServedPath` is exactly serve_path's (tests/witness/test_lockstep.py).
Only the plain chain is served so (`witness.methods.is_chain`); trees, typical acceptance
and prompt lookup keep their own path.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from witness.cache import RequestCache
from witness.keys import Stream
from witness.laws import FloatArray
from witness.lm import BOUNDARY, tiny_models
from witness.methods import is_chain
from witness.request import ServedPath, _first_alpha, serve_path
from witness.settings import Settings

IntArray = NDArray[np.intp]


def serve_lockstep(
    settings: Settings, seeds: Sequence[int], *, cache: RequestCache | None = None
) -> list[ServedPath]:
    """`serve_path(settings with seed s)` for every s in ``seeds``, served together.

    ``settings`` must be a chain (`is_chain`); its own seed is not read.
    """
    if not is_chain(settings):
        raise ValueError("serve_lockstep serves the plain chain only (is_chain)")
    cache = RequestCache() if cache is None else cache
    n = len(seeds)
    if n == 0:
        return []
    s = settings
    models = tiny_models()
    # Every row either model can give, as tables: a step gathers its [m, V] rows with one
    # `numpy.take` each (a copy of the same values, so the arithmetic below is unchanged).
    target_rows, row_of, draft_rows = models.target_rows, models.row_of, models.draft_rows
    prompt, _ = models.encode(s.prompt)
    tokens, k, match, greedy, verify, repair = s.tokens, s.k, s.match, s.greedy, s.verify, s.repair
    adversary = s.draft_source == "adversary"
    v = models.size
    # Each request's keyed uniforms, [request, block, position] (final: [request, block]).
    u_draft = np.stack([cache.uniforms(seed, tokens, k, Stream.DRAFT) for seed in seeds])
    u_accept = np.stack([cache.uniforms(seed, tokens, k, Stream.ACCEPT) for seed in seeds])
    u_final = np.stack([cache.uniforms(seed, tokens, 1, Stream.FINAL)[:, 0] for seed in seeds])
    # Contexts: two boundaries, the prompt, then what each request emitted (the models read
    # the last two tokens, so the padding is `context_pair`'s).
    pad = models.index[BOUNDARY]
    start = 2 + len(prompt)
    ctx = np.full((n, start + tokens + k + 1), pad, dtype=np.intp)
    ctx[:, 2:start] = prompt
    emitted = np.zeros(n, dtype=np.intp)
    blocks = np.zeros(n, dtype=np.intp)
    draft_passes = np.zeros(n, dtype=np.intp)
    scored = np.zeros((n, k + 2), dtype=np.intp)  # [request, tokens scored]: passes
    alphas = np.zeros((n, tokens, k))
    drafted = np.zeros((n, tokens, k), dtype=np.bool_)
    rows = np.arange(n)
    cols = np.arange(k + 1)
    # Work rows, [request, V], allocated once: a fresh 160 kB temporary per step costs more
    # in page faults than the arithmetic on it.
    sampled, d, q = (np.empty((n, v)) for _ in range(3))
    p = np.empty((n, v)) if greedy else sampled
    # Each block's closing law: p at its first rejection (with q there, for the residual)
    # or at the bonus position.
    final = np.empty((n, v)) if verify else sampled
    final_q = np.empty((n, v)) if verify and repair else sampled
    b = 0
    while True:
        live = np.flatnonzero(emitted < tokens)
        if live.size == 0:
            break
        room = tokens - emitted[live]
        drafts = np.minimum(k, room - 1 if verify else room)
        at = start + emitted[live]
        before, prev = ctx[live, at - 2], ctx[live, at - 1]
        x = np.zeros((live.size, k + 1), dtype=np.intp)
        first = drafts.copy()  # the first rejection; drafts where every draft stood
        u_d, u_a = u_draft[live, b], u_accept[live, b]
        alpha = np.zeros((live.size, k))
        everyone = int(drafts.min())
        for i in range(int(drafts.max())):
            # The rows of ``live`` drafting position i: all of them but near the end.
            here: IntArray | slice = slice(None) if i < everyone else np.flatnonzero(drafts > i)
            pb, pp = before[here], prev[here]
            m = pb.size
            r = rows[:m]
            s_i = np.take(target_rows, row_of[pb, pp], axis=0, out=sampled[:m])
            p_i = _one_hot(p[:m], s_i.argmax(axis=1)) if greedy else s_i
            if adversary:
                d_i = _one_hot(d[:m], s_i.argmin(axis=1))
            else:
                d_i = np.take(draft_rows, pp, axis=0, out=d[:m])
            q_i = q[:m]
            np.multiply(match, s_i, out=q_i)
            np.multiply(1.0 - match, d_i, out=d_i)
            np.add(q_i, d_i, out=q_i)
            if greedy:
                q_i = _one_hot(q_i, q_i.argmax(axis=1))
            alpha[here, i] = np.minimum(p_i, q_i, out=d_i).sum(axis=1)
            token = _sample(q_i, np.cumsum(q_i, axis=1, out=d_i), u_d[here, i])
            x[here, i] = token
            before[here], prev[here] = prev[here], token
            if not verify:
                continue
            # `accepts`: u·q(x) < p(x). A token drawn from q has q(x) > 0, so verify_unchecked's
            # refusal of q = 0 cannot arise. Rejected here, and not before: the block closes
            # here, from the residual.
            hit = ~(u_a[here, i] * q_i[r, token] < p_i[r, token]) & (first[here] == drafts[here])
            if hit.any():
                rejected = r[hit] if isinstance(here, slice) else here[hit]
                first[rejected] = i
                final[rejected] = p_i[hit]
                if repair:
                    final_q[rejected] = q_i[hit]
        alphas[live, b] = alpha
        drafted[live, b] = cols[None, :k] < drafts[:, None]
        draft_passes[live] += drafts
        blocks[live] += 1
        if verify:
            scored[live, drafts + 1] += 1
            rejected = np.flatnonzero(first < drafts)
            if repair and rejected.size:
                final[rejected] = _residual(final[rejected], final_q[rejected])
            bonus = np.flatnonzero(first == drafts)  # p at the context after the drafts
            if bonus.size:
                at_bonus = row_of[before[bonus], prev[bonus]]
                p_b = np.take(target_rows, at_bonus, axis=0, out=q[: bonus.size])
                final[bonus] = _one_hot(p[: bonus.size], p_b.argmax(axis=1)) if greedy else p_b
            f = final[: live.size]
            x[rows[: live.size], first] = _sample(
                f, np.cumsum(f, axis=1, out=d[: live.size]), u_final[live, b]
            )
            count = first + 1
        else:
            count = drafts
        count = np.minimum(count, room)  # cut to what the request still needs
        keep = cols[None, :] < count[:, None]
        where = at[:, None] + cols[None, :]
        ctx[np.broadcast_to(live[:, None], keep.shape)[keep], where[keep]] = x[keep]
        emitted[live] += count
        b += 1
    served = []
    for j in range(n):
        seen = tuple(alphas[j][drafted[j]].tolist())
        served.append(
            ServedPath(
                target_passes=int(blocks[j]) if verify else 0,
                draft_passes=int(draft_passes[j]),
                alphas=seen,
                first_alpha=_first_alpha(models, cache, s, prompt, list(seen[:1])),
                scored=tuple((int(t), int(c)) for t, c in enumerate(scored[j]) if c > 0),
            )
        )
    return served


def _one_hot(out: FloatArray, index: IntArray) -> FloatArray:
    """Rows with all mass on ``index``, written into ``out``: `greedy_distribution` (and
    `adversary_row`) row by row."""
    out[...] = 0.0
    out[np.arange(index.size), index] = 1.0
    return out


def _residual(p: FloatArray, q: FloatArray) -> FloatArray:
    """`residual_unchecked` row by row: the excess of p over q, normalised (p if none)."""
    excess = np.maximum(p - q, 0.0)
    total = excess.sum(axis=1)
    safe = np.where(total > 0.0, total, 1.0)
    out: FloatArray = np.where((total > 0.0)[:, None], excess / safe[:, None], p)
    return out


def _sample(dist: FloatArray, cdf: FloatArray, u: FloatArray) -> IntArray:
    """`sample_from_cdf` per row: the first index whose CDF exceeds u times the row's total
    (searchsorted, side="right"), else the last token with mass."""
    above = cdf > (u * cdf[:, -1])[:, None]
    index: IntArray = above.argmax(axis=1)
    none = ~above[:, -1]  # a CDF is non-decreasing: nothing above u·total iff not the last
    if none.any():
        index[none] = dist.shape[1] - 1 - (dist[none, ::-1] != 0).argmax(axis=1)
    return index


class ServedPaths:
    """One request's `ServedPath` per settings, the latest ``size`` kept: a ``path`` for
    `witness.ensemble.serve_ensemble` that serves an ensemble's misses in lockstep.

    The app keeps one (neighbouring seeds' ensembles share all but one request); as a plain
    ``path(settings)`` it serves one request. Thread-safe: two threads may serve the same
    miss, which is harmless (it is pure).
    """

    def __init__(self, cache: RequestCache, size: int) -> None:
        self.cache, self._size = cache, size
        self._values: OrderedDict[Settings, ServedPath] = OrderedDict()
        self._lock = threading.Lock()  # guards the dict only, never held while serving

    def __call__(self, settings: Settings) -> ServedPath:
        return self.many([settings])[0]

    def many(self, requests: Sequence[Settings]) -> list[ServedPath]:
        """The paths of ``requests``, those not kept served together.

        The first request (an ensemble's request on screen) is served alone when it is
        missing, on the shared cache: its laws stay there for its trace and its k sweep,
        which serve the same contexts (the lockstep keeps no laws)."""
        with self._lock:
            found = {r: self._values[r] for r in requests if r in self._values}
            for r in found:
                self._values.move_to_end(r)
        missing = list(dict.fromkeys(r for r in requests if r not in found))
        if missing:
            new: dict[Settings, ServedPath] = {}
            if missing[0] == requests[0]:
                new[missing[0]] = serve_path(missing[0], cache=self.cache)
            rest = missing[len(new) :]
            new.update(zip(rest, serve_paths(rest, cache=self.cache), strict=True))
            with self._lock:
                self._values.update(new)
                while len(self._values) > self._size:
                    self._values.popitem(last=False)
            found.update(new)
        return [found[r] for r in requests]

    def __len__(self) -> int:
        return len(self._values)


def serve_paths(requests: Sequence[Settings], *, cache: RequestCache) -> list[ServedPath]:
    """`serve_path` of each request; chains that differ only in the seed served in lockstep."""
    groups: dict[Settings, list[int]] = {}
    out: list[ServedPath | None] = [None] * len(requests)
    for j, r in enumerate(requests):
        if is_chain(r):
            groups.setdefault(r.model_copy(update={"seed": 0}), []).append(j)
        else:
            out[j] = serve_path(r, cache=cache)
    for key, members in groups.items():
        paths = serve_lockstep(key, [requests[j].seed for j in members], cache=cache)
        for j, path in zip(members, paths, strict=True):
            out[j] = path
    return [p for p in out if p is not None]
