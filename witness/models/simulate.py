"""Many independent blocks with fixed p and q, vectorised: the sampled side of the evidence.

The same rule as `witness.core.rule.verify_block`, with the same keyed uniforms, so a plain loop
over `verify_block` and `simulate_blocks` give identical counts for a seed (the benchmark
and a test check this). The rule's two choices are parameters of `run_blocks` so the tests
can run deliberately broken rules through the very same machinery ("teeth").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.core.distributions import sample_inverse_cdf
from witness.core.keys import Stream, block_uniforms, uniforms
from witness.core.theory import _pair, residual
from witness.models.cache import RequestCache

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
# (u, p(x), q(x)) -> accepted?   and   (p, q) -> law of the token emitted at a rejection
AcceptRule = Callable[[FloatArray, FloatArray, FloatArray], NDArray[np.bool_]]
RepairRule = Callable[[FloatArray, FloatArray], FloatArray]


def ratio_test(u: FloatArray, p_x: FloatArray, q_x: FloatArray) -> NDArray[np.bool_]:
    """``u < min(1, p/q)`` as ``u * q < p`` (see `witness.core.rule.accepts`)."""
    return np.asarray(u * q_x < p_x)


def resample_from_target(p: FloatArray, q: FloatArray) -> FloatArray:
    """What "repair off" does: resample the rejected position from p itself."""
    return p


@dataclass(frozen=True, slots=True)
class Simulation:
    """Counts from ``n`` simulated blocks.

    ``first_token_counts[v]`` is how many blocks emitted token v first (the law a drafted
    position emits, by the switches table); ``tokens_per_block`` is each block's length.
    """

    first_token_counts: IntArray
    tokens_per_block: IntArray
    accepted_per_block: IntArray
    # Every emitted token, bonus and repair tokens included: under the lossless rule with
    # fixed p these are i.i.d. p too, and counting them pins the bonus law as well.
    token_counts: IntArray

    @property
    def mean_tokens_per_block(self) -> float:
        return float(self.tokens_per_block.mean())

    @property
    def n(self) -> int:
        return int(self.tokens_per_block.shape[0])

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "first_token_counts": self.first_token_counts.tolist(),
            "mean_tokens_per_block": self.mean_tokens_per_block,
            "tokens_per_block_histogram": np.bincount(self.tokens_per_block).tolist(),
        }


def run_blocks(
    p: ArrayLike,
    q: ArrayLike,
    k: int,
    n: int,
    *,
    seed: int,
    verify: bool = True,
    accept: AcceptRule = ratio_test,
    repair_law: RepairRule | None = residual,
    bonus_law: RepairRule = resample_from_target,
    cache: RequestCache | None = None,
) -> Simulation:
    """Vectorised blocks under any accept rule and repair law (None means "verify off").

    Use `simulate_blocks` for the real rule; this entry point exists for the teeth tests.
    The keyed uniform grids come from ``cache`` when one is given.
    """
    grid = block_uniforms if cache is None else cache.uniforms
    pa, qa = _pair(p, q)
    if pa.ndim != 1:
        raise ValueError("run_blocks takes one p and one q (fixed across positions)")
    if k < 1 or n < 1:
        raise ValueError("k and n must be at least 1")
    vocab = pa.shape[0]
    positions = np.arange(k)[None, :]
    draft = sample_inverse_cdf(qa, grid(seed, n, k, Stream.DRAFT))
    if not verify or repair_law is None:
        return Simulation(
            np.bincount(draft[:, 0], minlength=vocab),
            np.full(n, k, dtype=np.int64),
            np.full(n, k, dtype=np.int64),
            np.bincount(draft.ravel(), minlength=vocab),
        )
    ok = accept(grid(seed, n, k, Stream.ACCEPT), pa[draft], qa[draft])
    # Index of the first False per row; k where the whole row was accepted.
    accepted = np.where(ok.all(axis=1), k, np.argmin(ok, axis=1))
    u_final = grid(seed, n, 1, Stream.FINAL)[:, 0]
    rejected = accepted < k
    final = np.empty(n, dtype=np.intp)
    if rejected.any():  # lazily: with p = q nothing is rejected and no residual is formed
        final[rejected] = sample_inverse_cdf(repair_law(pa, qa), u_final[rejected])
    # With fixed p the bonus position has the same law as any other: p.
    final[~rejected] = sample_inverse_cdf(bonus_law(pa, qa), u_final[~rejected])
    first = np.where(accepted > 0, draft[:, 0], final)
    kept = draft[positions < accepted[:, None]]
    return Simulation(
        np.bincount(first, minlength=vocab),
        (accepted + 1).astype(np.int64),
        accepted.astype(np.int64),
        np.bincount(kept, minlength=vocab) + np.bincount(final, minlength=vocab),
    )


def simulate_blocks(
    p: ArrayLike,
    q: ArrayLike,
    k: int,
    n: int,
    *,
    seed: int,
    verify: bool = True,
    repair: bool = True,
    cache: RequestCache | None = None,
) -> Simulation:
    """Run ``n`` independent blocks of speculative sampling with fixed ``p`` and ``q``.

    Block ``b``, drafted position ``i`` uses the uniforms keyed ``(seed, b, i)``, as
    `verify_block` would be given them, so k = 4 and k = 5 share their first four decisions.
    A ``cache`` keeps those grids for the next call with the same seed, n and k.

    Examples
    --------
    >>> sim = simulate_blocks([.1, .2, .3, .4], [.4, .3, .2, .1], 4, 20000, seed=1)
    >>> (sim.first_token_counts / sim.n).round(2).tolist()
    [0.1, 0.2, 0.3, 0.4]
    """
    return run_blocks(
        p,
        q,
        k,
        n,
        seed=seed,
        verify=verify,
        repair_law=residual if repair else resample_from_target,
        cache=cache,
    )


def simulate_blocks_loop(
    p: ArrayLike,
    q: ArrayLike,
    k: int,
    n: int,
    *,
    seed: int,
    verify: bool = True,
    repair: bool = True,
) -> Simulation:
    """The same as `simulate_blocks`, one `verify_block` call per block: the reference.

    Kept in the package (not only in the benchmark) so tests can hold the two to the same
    counts.
    """
    from witness.core.rule import verify_block

    pa, qa = _pair(p, q)
    vocab = pa.shape[0]
    p_rows = np.broadcast_to(pa, (k + 1, vocab))
    q_rows = np.broadcast_to(qa, (k, vocab))
    all_tokens = np.zeros(vocab, dtype=np.int64)
    firsts = np.empty(n, dtype=np.int64)
    lengths = np.empty(n, dtype=np.int64)
    accepted = np.empty(n, dtype=np.int64)
    positions = np.arange(k)
    for b in range(n):
        draft = sample_inverse_cdf(qa, uniforms(seed, b, positions, Stream.DRAFT))
        u = uniforms(seed, b, positions, Stream.ACCEPT)
        u_final = float(uniforms(seed, b, 0, Stream.FINAL)[0])
        result = verify_block(p_rows, q_rows, draft, u, u_final, verify=verify, repair=repair)
        firsts[b] = result.emitted[0]
        lengths[b] = len(result.emitted)
        accepted[b] = result.accepted
        np.add.at(all_tokens, list(result.emitted), 1)
    return Simulation(np.bincount(firsts, minlength=vocab), lengths, accepted, all_tokens)
