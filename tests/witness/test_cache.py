"""The request cache: owned by its caller, bounded, shared safely, and never part of an answer."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from witness import RequestCache, Settings, serve_request, simulate_blocks
from witness.core.keys import Stream, block_uniforms
from witness.judge.evaluation import evaluate, first_token_check
from witness.judge.sweep import sweep_k
from witness.models.cache import UniformGrids

CASE = Settings(match=0.45, k=5, seed=21)


def _canonical(s: Settings, cache: RequestCache | None = None) -> str:
    return json.dumps(serve_request(s, cache=cache).to_dict(), sort_keys=True)


def test_a_trace_does_not_depend_on_what_the_law_cache_already_holds() -> None:
    # The per-context laws are shared between requests; whatever ran before (other k, other
    # modes at the same match, greedy) must not change a trace.
    cache = RequestCache()
    cold = _canonical(CASE, cache)
    for k in (1, 3, 5, 8, 16):
        for extra in ({}, {"repair": False}, {"verify": False}, {"greedy": True}):
            serve_request(Settings(match=0.45, k=k, seed=3, **extra), cache=cache)
    assert _canonical(CASE, cache) == cold
    cache.clear()
    assert cache.sizes() == {"laws": 0, "targets": 0, "grids": 0}
    assert _canonical(CASE, cache) == cold
    assert _canonical(CASE) == cold  # no cache: a fresh one for the call


def test_a_fresh_cache_starts_empty_and_fills_only_its_own_stores() -> None:
    first, second = RequestCache(), RequestCache()
    assert first.sizes() == second.sizes() == {"laws": 0, "targets": 0, "grids": 0}
    serve_request(CASE, cache=first)
    filled = first.sizes()
    assert filled["laws"] > 0 and filled["targets"] > 0 and filled["grids"] == 3
    assert second.sizes() == {"laws": 0, "targets": 0, "grids": 0}
    assert first.law(0.45, False, 0, 1, False) is not second.law(0.45, False, 0, 1, False)
    assert RequestCache().sizes() == {"laws": 0, "targets": 0, "grids": 0}


def test_caches_are_bounded() -> None:
    cache = RequestCache(maxsize=4, grids=UniformGrids(maxsize=2, small=2))
    serve_request(Settings(tokens=60, k=6), cache=cache)
    assert cache.sizes() == {"laws": 4, "targets": 4, "grids": 2}


def test_grids_can_be_shared_and_are_the_keyed_uniforms() -> None:
    grids = UniformGrids()
    a, b = RequestCache(grids=grids), RequestCache(grids=grids)
    grid = a.uniforms(8, 48, 4, Stream.ACCEPT)
    assert b.uniforms(8, 48, 4, Stream.ACCEPT) is grid
    assert np.array_equal(grid, block_uniforms(8, 48, 4, Stream.ACCEPT))
    assert b.sizes() == {"laws": 0, "targets": 0, "grids": 1}


def test_the_shared_laws_cannot_be_written_to() -> None:
    law = RequestCache().law(0.3, False, 0, 1, False)
    for row in (law.p, law.q, law.q_cdf, law.residual):
        assert not row.flags.writeable
    assert not RequestCache().uniforms(1, 3, 2, Stream.DRAFT).flags.writeable


def test_callers_with_a_cache_get_the_same_results() -> None:
    cache = RequestCache()
    s = Settings(match=0.3, k=3, tokens=20)
    assert sweep_k(s, cache=cache) == sweep_k(s)
    assert evaluate(s, blocks=500, cache=cache) == evaluate(s, blocks=500)
    for mode in ("lossless", "no_repair", "no_verify"):
        assert first_token_check(s, mode, 500, cache=cache) == first_token_check(s, mode, 500)
    p, q = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.3, 0.2, 0.1])
    cached = simulate_blocks(p, q, 4, 1000, seed=2, cache=cache)
    plain = simulate_blocks(p, q, 4, 1000, seed=2)
    assert np.array_equal(cached.token_counts, plain.token_counts)
    assert np.array_equal(cached.tokens_per_block, plain.tokens_per_block)


@pytest.mark.parametrize("workers", [4])
def test_one_cache_serves_threads_alike(workers: int) -> None:
    # The server calls from its thread pool; a cache shared by threads gives each the
    # trace it would get alone.
    cases = [Settings(match=m, k=k, seed=5) for m in (0.2, 0.5, 0.8) for k in (2, 7)]
    alone = [_canonical(s) for s in cases]
    cache = RequestCache()
    with ThreadPoolExecutor(workers) as pool:
        shared = list(pool.map(lambda s: _canonical(s, cache), cases * 3))
    assert shared == alone * 3
