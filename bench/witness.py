"""Speed of the witness, in process: what one slider change costs, and what vectorising bought.

1. One slider change, witness only: `serve_request` (the served request, its trace and the
   exact distribution check) plus the quick slice `first_token_check(key, mode, 10_000)`,
   the evidence's sampled check. Budget (QUALITY.md, Speed): median <= 5 ms. Each iteration
   moves one slider (match or k, around the default `Settings()`) on a fresh app `Witness`,
   so no result cache answers; the tiny models' row caches stay warm, as in a running server.
   Beside it, for information: `live_view` as the evidence fragment builds it (witness plus
   every view model) uncached, and the same call again from the caches (a slider dragged back
   to a seen value), the in-run reference.
2. `simulate_blocks` (vectorised) against `simulate_blocks_loop` (one `verify_block` call per
   block) of the same rule and seed: the counts must be identical (else MISMATCH, exit 1), and
   the loop's time per block over the vectorised one's is the speed ratio. Budget: >= 100x.

Medians and ratios from one run only; nothing here is asserted in pytest.
Run from the repo root: `.venv/bin/python bench/witness.py` (or `make bench`).
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from app.config import AppSettings  # noqa: E402
from app.services import QUICK_SLICE_BLOCKS, Witness  # noqa: E402
from app.state.query import parse_state  # noqa: E402
from app.views.station import live_view  # noqa: E402
from witness import RequestCache, Settings, serve_request  # noqa: E402
from witness.cache import UniformGrids  # noqa: E402
from witness.evaluation import first_position, first_token_check  # noqa: E402
from witness.modes import mode_of  # noqa: E402
from witness.simulate import Simulation, simulate_blocks, simulate_blocks_loop  # noqa: E402

Arr = np.ndarray

ITERATIONS = 200
SLIDER_BUDGET_MS = 5.0
RATIO_BUDGET = 100.0
K = 4
QUICK_BLOCKS = QUICK_SLICE_BLOCKS  # 10_000, what the live evidence samples
LOOP_BLOCKS = 2_000
VECTOR_BLOCKS = 200_000


def slider_settings(i: int) -> Settings:
    """Iteration i moves one slider: even i drag match over 0.50..0.70, odd i set k to 3..5."""
    if i % 2 == 0:
        return Settings(match=round(0.50 + 0.01 * ((i // 2) % 21), 2))
    return Settings(k=3 + (i // 2) % 3)


def query(s: Settings) -> list[tuple[str, str]]:
    # What the evidence fragment receives: the prediction is recorded (skip), so the
    # evidence, invariant and verdict are all built.
    return [("pred", "skip"), ("match", repr(s.match)), ("k", str(s.k))]


# The keyed uniform grids depend on the seed alone, so they stay warm from change to change,
# as in a server whose learner drags sliders at one seed.
GRIDS = UniformGrids()
cache = RequestCache(grids=GRIDS)
witness = Witness(cache)


def clear_caches() -> None:
    """A fresh app's caches: no result, and no per-context law, is kept from before.

    Every change is measured as if its match had never been seen (a k move at a seen match
    is cheaper; that is not what is timed)."""
    global cache, witness
    cache = RequestCache(grids=GRIDS)
    witness = Witness(cache)


def timed(fn: Callable[[int], object], n: int) -> list[float]:
    """Milliseconds per call, call i given i."""
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def p90(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=10)[-1]


def bench_slider() -> bool:
    app = AppSettings()
    settings = [slider_settings(i) for i in range(ITERATIONS)]
    states = [parse_state(query(s)) for s in settings]
    if any(st.problems or st.prediction is None for st in states):
        raise SystemExit("bench/witness.py: the slider states no longer parse cleanly")

    def check(s: Settings) -> object:  # what `quick_check` runs, on its reduced key
        key = Settings(match=s.match, k=s.k, seed=s.seed, greedy=s.greedy, prompt=s.prompt)
        return first_token_check(key, mode_of(s.verify, s.repair), QUICK_BLOCKS, cache=cache)

    def one_change(i: int) -> list[float]:
        """The parts, then the page's call uncached, then the same call again (cached)."""
        clear_caches()
        parts = [lambda: serve_request(settings[i], cache=cache), lambda: check(settings[i])]
        # What the evidence fragment builds (the sweep follows in a request of its own).
        def view() -> object:
            return live_view(states[i], app, witness)

        calls = [*parts, clear_caches, view, view]  # the second call finds the caches full
        out = timed(lambda j: calls[j](), len(calls))
        return [out[0] + out[1], out[0], out[1], out[3], out[4]]

    for i in range(20):  # warm-up: fit the models, import scipy, fill the row caches
        one_change(i)
    cols = list(zip(*(one_change(i) for i in range(ITERATIONS)), strict=True))
    names = [
        "witness only: request + quick slice (TOTAL)",
        "  serve_request(settings)",
        f"  first_token_check(key, mode, {QUICK_BLOCKS:_})",
        "live_view (the evidence fragment), uncached",
        "live_view again, cached (reference)",
    ]
    med_total = statistics.median(cols[0])
    print(f"\n1. One slider change, witness only ({ITERATIONS} changes of match or k)")
    print(f"   {'what':<40} {'median ms':>10} {'p90 ms':>8} {'/ total':>8}")
    for name, xs in zip(names, cols, strict=True):
        med = statistics.median(xs)
        print(f"   {name:<40} {med:>10.3f} {p90(list(xs)):>8.3f} {med / med_total:>8.2f}")
    ok = med_total <= SLIDER_BUDGET_MS
    verdict = "ok" if ok else f"OVER BUDGET ({med_total / SLIDER_BUDGET_MS:.2f}x the budget)"
    print(f"   median {med_total:.2f} ms vs budget <= {SLIDER_BUDGET_MS:g} ms: {verdict}")
    ratio = statistics.median(cols[3]) / statistics.median(cols[4])
    print(f"   uncached / cached (a slider dragged back to a seen value): {ratio:.1f}x")
    return ok


def same(a: Simulation, b: Simulation) -> bool:
    return bool(
        np.array_equal(a.first_token_counts, b.first_token_counts)
        and np.array_equal(a.tokens_per_block, b.tokens_per_block)
        and np.array_equal(a.accepted_per_block, b.accepted_per_block)
    )


def per_block_us(fn: Callable[..., Simulation], p: Arr, q: Arr, n: int, repeats: int) -> float:
    """Median microseconds per block of ``fn(p, q, K, n, seed)`` over ``repeats`` runs."""
    seed = Settings().seed
    return statistics.median(timed(lambda _: fn(p, q, K, n, seed=seed), repeats)) * 1e3 / n


def counts_agree(p: Arr, q: Arr) -> bool:
    """Every mode, and the long vectorised run's first blocks, give the loop's counts."""
    seed, equal = Settings().seed, True
    for verify, repair in ((True, True), (True, False), (False, True)):
        kw = {"verify": verify, "repair": repair}
        loop = simulate_blocks_loop(p, q, K, LOOP_BLOCKS, seed=seed, **kw)
        vec = simulate_blocks(p, q, K, LOOP_BLOCKS, seed=seed, **kw)
        equal &= same(loop, vec)
    # Keyed uniforms: the first blocks of the long run are the loop's blocks.
    big = simulate_blocks(p, q, K, VECTOR_BLOCKS, seed=seed)
    loop = simulate_blocks_loop(p, q, K, LOOP_BLOCKS, seed=seed)
    return equal and bool(np.array_equal(big.tokens_per_block[:LOOP_BLOCKS], loop.tokens_per_block))


def bench_simulation() -> bool:
    tiny_p, tiny_q = first_position(Settings())
    pairs = [
        (f"tiny models (V={tiny_p.size})", tiny_p, tiny_q),
        ("known pair (V=4)", np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.3, 0.2, 0.1])),
    ]
    print(f"\n2. simulate_blocks vs simulate_blocks_loop (k={K}, seed={Settings().seed})")
    print(f"   {'pair':<22} {'counts':<8} {'loop us/blk':>11} {'vec us/blk':>10} {'ratio':>8}")
    all_same = fast = True
    for name, p, q in pairs:
        equal = counts_agree(p, q)
        per_loop = per_block_us(simulate_blocks_loop, p, q, LOOP_BLOCKS, 3)
        per_vec = per_block_us(simulate_blocks, p, q, VECTOR_BLOCKS, 5)
        ratio = per_loop / per_vec
        all_same &= equal
        fast &= ratio >= RATIO_BUDGET
        verdict = "same" if equal else "MISMATCH"
        print(f"   {name:<22} {verdict:<8} {per_loop:>11.2f} {per_vec:>10.3f} {ratio:>7.0f}x")
    print(f"   per block: loop over {LOOP_BLOCKS:,} blocks, vectorised over {VECTOR_BLOCKS:,}")
    verdict = "ok" if fast and all_same else "OVER BUDGET" if all_same else "MISMATCH"
    print(f"   budget >= {RATIO_BUDGET:g}x with identical counts (3 modes): {verdict}")
    return all_same


def main() -> int:
    cpus = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    print(
        f"environment: python {platform.python_version()}, numpy {np.__version__}, "
        f"{cpus} cpus ({usable} usable), {platform.machine()}, load {os.getloadavg()[0]:.2f}"
    )
    if os.getloadavg()[0] > 0.5 * (usable or 1):
        print("note: the machine is busy (load average above half the cpus): tails are noisy")
    bench_slider()
    if not bench_simulation():
        print("MISMATCH: the vectorised and looped simulations disagree for the same seed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
