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

3. The chain's default path against the code from before token trees (commit b668a52,
   loaded into this process as the package ``witness_before`` from `git archive`): the same
   200 slider changes served by both, fresh caches, alternating; the texts must be identical
   (else MISMATCH, exit 1). Budget: today / before <= 1.05.
5. The cost of a pass on the slider path: the evidence fragment (`live_view`) for the same new
   states priced on a machine (H100, Llama 3.1 8B / 3.2 1B) against machine custom, fresh
   caches, alternating; then a batch drag on a machine (every batch new, the match seen: the
   request's passes are cached, only its price and the batch axis are new) against the same
   drag of the c slider with machine custom. Budget: a machine adds at most 10% to a new
   state (median ratio of the pairs).
4. What a slider change to a new method costs: ``serve_request`` + the quick check
   (`first_token_check` of the state's method, 10 000 blocks) and the 32-request ensemble
   (`serve_ensemble`, `serve_path` per request) for trees of width 2/3/4 and each drafting,
   typical acceptance and prompt lookup, with a fresh cache (a match never seen) and a warm
   one (the state's laws already kept), as ratios to the chain's at the same k.
6. The verdicts' ensemble of the lossless chain (`Witness.ensemble`): a never-seen (match, k)
   on a prompt and seeds already seen (the texts kept: the exact recursion alone), and the
   first sight of a prompt and seeds (the texts drawn, then the recursion); beside them the
   same states' 32 served requests (`Witness.ensemble(served=True)`, the estimator the
   exact one replaces), the in-run reference. Budgets: <= 1 ms and <= 5 ms (medians), at the
   default 48 tokens; 256 tokens for information.
7. The chain's serve loop, compiled (`witness.serve.chain`), against the numpy loops it replaced
   (commit 5cc1102, loaded as ``witness_numpy``): 32 seeded requests, one request's passes,
   the request on screen and a race, each at never-seen states (a match no law is kept for;
   verify and repair off in some), alternating; the results must be identical (else
   MISMATCH, exit 1). The compiled loop is kept because it is faster: ratio < 1.
8. A never-seen state served by the tiny transformers (`models` early-exit and small-draft)
   against the same state with the n-grams: the evidence fragment (`live_view`) and then the
   k sweep, at a (match, k) never served on one running server's `Witness`, its prompt and
   seeds seen (the texts kept, the transformers' trie of contexts warm, as the n-grams' tables
   are), alternating. Budget: each transformer pair <= 4x the n-grams (median ratio).

Medians and ratios from one run only; nothing here is asserted in pytest.
Run from the repo root: `.venv/bin/python bench/witness.py [1] [5] [6] [7] [8]` (those sections
alone), or with no argument for every section (or `make bench`).
"""

from __future__ import annotations

import atexit
import importlib
import io
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from app.config import AppSettings  # noqa: E402
from app.station.services import QUICK_SLICE_BLOCKS, Witness, quick_key  # noqa: E402
from app.station.state.query import parse_state  # noqa: E402
from app.station.views.station import live_view  # noqa: E402
from witness import RequestCache, Settings, serve_request  # noqa: E402
from witness.core.modes import mode_of  # noqa: E402
from witness.core.settings import DISTINCT_WIDTH_MAX, max_depth  # noqa: E402
from witness.judge.ensemble import serve_ensemble  # noqa: E402
from witness.judge.evaluation import first_position, first_token_check  # noqa: E402
from witness.models.cache import UniformGrids  # noqa: E402
from witness.models.simulate import Simulation, simulate_blocks, simulate_blocks_loop  # noqa: E402

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


def quick_check(s: Settings, c: RequestCache) -> object:
    """What `Witness.quick_check` runs, on its reduced key (`app.station.services.quick_key`)."""
    return first_token_check(quick_key(s), mode_of(s.verify, s.repair), QUICK_BLOCKS, cache=c)


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

    def check(s: Settings) -> object:
        return quick_check(s, cache)

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


BEFORE_COMMIT = "b668a52"  # the last commit before token trees, typical acceptance, lookup
ROUNDS = 5  # measured rounds of section 3
CHAIN_BUDGET = 1.05


def load_before(commit: str = BEFORE_COMMIT, name: str = "witness_before") -> Any | None:
    """The witness of ``commit`` as the package ``name``, or None without git."""
    root = Path(__file__).resolve().parent.parent
    target = Path(tempfile.mkdtemp(prefix=f"{name}_"))
    try:
        archive = subprocess.run(
            ["git", "archive", commit, "witness", "seeds/corpus.txt"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    package = target / name
    (target / "witness").rename(package)
    for source in package.rglob("*.py"):
        text = source.read_text()
        text = re.sub(r"\b(from|import) witness\b", rf"\1 {name}", text)
        source.write_text(text)
    sys.path.insert(0, str(target))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    return importlib.import_module(name)


def bench_chain_before() -> bool:
    """Section 3: today's chain path against the pre-issue code, same changes, same process."""
    before = load_before()
    print(f"\n3. The chain's default path against the code before token trees ({BEFORE_COMMIT})")
    if before is None:
        print("   skipped: git archive is not available here")
        return True
    old_settings = before.settings.Settings
    changes = [slider_settings(i) for i in range(ITERATIONS)]
    olds = [old_settings(match=s.match, k=s.k) for s in changes]
    grids_old = before.cache.UniformGrids()
    same = all(
        serve_request(s, cache=RequestCache(grids=GRIDS)).text
        == before.serve_request(o, cache=before.RequestCache(grids=grids_old)).text
        for s, o in zip(changes[:40], olds[:40], strict=True)
    )
    # Rounds after a warm-up, order alternating within each: one round's ratio moves by a few
    # percent on this machine, so the verdict reads the spread of five, not one number.
    ratios: list[float] = []
    now_ms: list[float] = []
    old_ms: list[float] = []
    for rep in range(ROUNDS + 1):
        now_ms.clear()
        old_ms.clear()
        for i, (s, o) in enumerate(zip(changes, olds, strict=True)):
            pair = [
                (now_ms, lambda s=s: serve_request(s, cache=RequestCache(grids=GRIDS))),
                (
                    old_ms,
                    lambda o=o: before.serve_request(o, cache=before.RequestCache(grids=grids_old)),
                ),
            ]
            for out, fn in pair if (i + rep) % 2 == 0 else pair[::-1]:
                t0 = time.perf_counter()
                fn()
                out.append((time.perf_counter() - t0) * 1e3)
        if rep:  # round 0 warms both up
            ratios.append(statistics.median(now_ms) / statistics.median(old_ms))
    med_now, med_old = statistics.median(now_ms), statistics.median(old_ms)
    ratio, low, high = statistics.median(ratios), min(ratios), max(ratios)
    print(f"   {'serve_request, fresh cache (last round)':<40} {'median ms':>10} {'p90 ms':>8}")
    print(f"   {'  today':<40} {med_now:>10.3f} {p90(now_ms):>8.3f}")
    print(f"   {'  before (reference)':<40} {med_old:>10.3f} {p90(old_ms):>8.3f}")
    verdict = "same text" if same else "MISMATCH"
    if ratio <= CHAIN_BUDGET:
        ok = "ok"
    elif low <= 1.0:
        ok = "within noise of the reference (the rounds' spread includes 1)"
    else:
        ok = "OVER BUDGET"
    print(
        f"   today / before: {ratio:.3f}, median of {ROUNDS} rounds (range {low:.3f}-"
        f"{high:.3f}; budget <= {CHAIN_BUDGET}): {ok}; {verdict} (40 changes)"
    )
    return same


def method_states() -> list[tuple[str, Settings]]:
    """A slider change to each method; k is the default where the width allows it."""
    out = [("chain", Settings())]
    for width in (2, 3, 4):
        for drafting in ("sample", "distinct", "top"):
            if drafting == "distinct" and width > DISTINCT_WIDTH_MAX:
                continue
            k = min(Settings().k, max_depth(width))
            out.append(
                (f"tree {width} {drafting}", Settings(tree_width=width, drafting=drafting, k=k))
            )
    out.append(("typical 1", Settings(acceptance="typical")))
    out.append(
        ("typical 2 distinct", Settings(acceptance="typical", tree_width=2, drafting="distinct"))
    )
    out.append(("lookup", Settings(draft_source="lookup")))
    out.append(("lookup, repeats", Settings(draft_source="lookup", prompt=REPEATS)))
    return out


REPEATS = "the model the model the model the"
METHOD_CHANGES = 8  # new matches per state (each a fresh cache), after one warm-up


def bench_methods() -> None:
    """Section 4: ms per new state of each method, fresh and warm cache, against the chain."""
    states = method_states()

    def change(s: Settings, i: int) -> Settings:
        return s.model_copy(update={"match": round(0.50 + 0.01 * (i % 21), 2)})

    def request(s: Settings, c: RequestCache) -> None:
        serve_request(s, cache=c)
        quick_check(s, c)

    rows = []
    for name, base in states:
        fresh, warm, ens_fresh, ens_warm = [], [], [], []
        for i in range(METHOD_CHANGES + 1):  # one warm-up change
            s = change(base, i)
            c = RequestCache(grids=GRIDS)
            t0 = time.perf_counter()
            request(s, c)
            t1 = time.perf_counter()
            request(s, c)
            t2 = time.perf_counter()
            e = RequestCache(grids=GRIDS)
            serve_ensemble(s, cache=e)
            t3 = time.perf_counter()
            serve_ensemble(s, cache=e)
            t4 = time.perf_counter()
            if i >= 1:
                fresh.append((t1 - t0) * 1e3)
                warm.append((t2 - t1) * 1e3)
                ens_fresh.append((t3 - t2) * 1e3)
                ens_warm.append((t4 - t3) * 1e3)
        rows.append(
            (name, base.k, *(statistics.median(x) for x in (fresh, warm, ens_fresh, ens_warm)))
        )
    chain = {k: r for r in rows if r[0] == "chain" for k in (r[1],)}
    for k in sorted({r[1] for r in rows} - set(chain)):  # the chain at each tree's k
        s = Settings(k=k)
        fresh, warm, ens_fresh, ens_warm = [], [], [], []
        for i in range(METHOD_CHANGES):
            c = RequestCache(grids=GRIDS)
            t0 = time.perf_counter()
            request(change(s, i), c)
            t1 = time.perf_counter()
            request(change(s, i), c)
            t2 = time.perf_counter()
            e = RequestCache(grids=GRIDS)
            serve_ensemble(change(s, i), cache=e)
            t3 = time.perf_counter()
            serve_ensemble(change(s, i), cache=e)
            t4 = time.perf_counter()
            fresh.append((t1 - t0) * 1e3)
            warm.append((t2 - t1) * 1e3)
            ens_fresh.append((t3 - t2) * 1e3)
            ens_warm.append((t4 - t3) * 1e3)
        chain[k] = ("chain", k, *(statistics.median(x) for x in (fresh, warm, ens_fresh, ens_warm)))
    print(
        f"\n4. A new state per method ({METHOD_CHANGES} new matches each; request + quick check,"
        " and the 32-request ensemble)"
    )
    print(
        f"   {'state':<20} {'k':>2} {'fresh ms':>9} {'x chain':>8} {'warm ms':>8} {'x chain':>8}"
        f" {'ens fresh':>10} {'x chain':>8} {'ens warm':>9} {'x chain':>8}"
    )
    for name, k, f, w, ef, ew in rows:
        ref = chain[k]
        print(
            f"   {name:<20} {k:>2} {f:>9.2f} {f / ref[2]:>8.2f} {w:>8.2f} {w / ref[3]:>8.2f}"
            f" {ef:>10.1f} {ef / ref[4]:>8.2f} {ew:>9.1f} {ew / ref[5]:>8.2f}"
        )
    print("   x chain: against the chain at the same k, measured in this run")


MACHINE_BUDGET = 1.10


def bench_machine() -> bool:
    app = AppSettings()
    # The roofline's machine, and the H200 priced from its timed passes (the default stack).
    machines = {
        "an H100": {"machine": "h100", "pair": "llama-8b-1b"},
        "the H200, timed passes": {"machine": "h200", "pair": "llama-8b-1b", "stack": "graphs"},
    }

    def state(s: Settings, extra: dict[str, str]) -> Any:
        return parse_state([*query(s), *extra.items()])

    def view(st: Any) -> float:
        return timed(lambda _: live_view(st, app, witness), 1)[0]

    ratios: dict[str, list[float]] = {name: [] for name in machines}
    ms_by: dict[str, list[float]] = {"custom": [], **{name: [] for name in machines}}
    for i in range(60):
        s = slider_settings(i)
        names = ["custom", *machines]
        states = [state(s, {}), *(state(s, m) for m in machines.values())]
        order = list(range(len(states)))
        if i % 2:
            order.reverse()  # alternate which goes first
        ms = [0.0] * len(states)
        for j in order:
            clear_caches()
            ms[j] = view(states[j])
        if i >= 10:  # warm-up
            for name, value in zip(names, ms, strict=True):
                ms_by[name].append(value)
            for name, value in zip(names[1:], ms[1:], strict=True):
                ratios[name].append(value / ms[0])
    print("\n5. The cost of a pass on the slider path (the evidence fragment, live_view)")
    print(f"   {'what':<52} {'median ms':>10}")
    reference = statistics.median(ms_by["custom"])
    print(f"   {'a new state, machine custom (reference)':<52} {reference:>10.2f}")
    for name in machines:
        print(f"   {'the same new state on ' + name:<52} {statistics.median(ms_by[name]):>10.2f}")
    clear_caches()
    base = Settings(match=0.6)
    view(state(base, {}))  # the match is seen: its ensemble and laws are kept
    drags = {
        f"batch drag on {name} (batch 2..41)": [
            state(base, {**m, "batch": str(b)}) for b in range(2, 42)
        ]
        for name, m in machines.items()
    }
    drags["c slider drag, machine custom (0.11..0.50)"] = [
        state(base, {"draft_cost": f"{0.10 + 0.01 * i:.2f}"}) for i in range(1, 41)
    ]
    for name, states in drags.items():
        print(f"   {name:<52} {statistics.median(view(st) for st in states):>10.2f}")
    ok = True
    for name, values in ratios.items():
        ratio = statistics.median(values)
        ok &= ratio <= MACHINE_BUDGET
        verdict = "ok" if ratio <= MACHINE_BUDGET else "OVER BUDGET"
        print(
            f"   a new state on {name} / custom: {ratio:.3f} (median of {len(values)} pairs; "
            f"budget <= {MACHINE_BUDGET}): {verdict}"
        )
    return ok


ENSEMBLE_BUDGET_MS, TEXTS_BUDGET_MS = 1.0, 5.0


def bench_ensemble() -> bool:
    """Section 6: the exact ensemble at never-seen states, against served requests."""
    print("\n6. The verdicts' ensemble of the lossless chain, never-seen states (median ms)")
    print(f"   {'what':<58} {'exact':>7} {'served':>7} {'ratio':>6}")
    ok = True
    for tokens in (48, 256):
        w = Witness()
        base = Settings(tokens=tokens)
        w.ensemble(base)  # the prompt and seeds seen: their texts kept
        exact, served, first = [], [], []
        for i in range(60):
            s = base.model_copy(update={"match": 0.05 + i * 0.0149, "k": 2 + i % 11})
            t0 = time.perf_counter()
            w.ensemble(s)
            t1 = time.perf_counter()
            if i % 3 == 0:  # served requests cost ~100x more: a third of the states
                w.ensemble(s, served=True)
                served.append((time.perf_counter() - t1) * 1e3)
            exact.append((t1 - t0) * 1e3)
            t2 = time.perf_counter()
            w.ensemble(s.model_copy(update={"seed": 1_000 + i}))  # new seeds: texts drawn
            first.append((time.perf_counter() - t2) * 1e3)
        e, f, r = (statistics.median(x) for x in (exact, first, served))
        what = f"new (match, k), texts kept, {tokens} tokens"
        print(f"   {what:<58} {e:>7.3f} {r:>7.2f} {r / e:>6.0f}")
        print(f"   {f'new prompt and seeds (texts drawn), {tokens} tokens':<58} {f:>7.3f}")
        if tokens == 48:
            ok = e <= ENSEMBLE_BUDGET_MS and f <= TEXTS_BUDGET_MS
            verdict = "ok" if ok else "OVER BUDGET"
            print(
                f"   budgets <= {ENSEMBLE_BUDGET_MS:g} ms and <= {TEXTS_BUDGET_MS:g} ms at 48 "
                f"tokens: {verdict}"
            )
    return ok


NUMPY_COMMIT = "5cc1102"  # the last commit whose chain loops were numpy (the lockstep)
LOOP_STATES = 60


def bench_compiled_chain() -> bool:
    """Section 7: the compiled chain against the numpy loops it replaced, same states."""
    old = load_before(NUMPY_COMMIT, "witness_numpy")
    print(f"\n7. The chain's serve loop, compiled, against the numpy loops of {NUMPY_COMMIT}")
    if old is None:
        print("   skipped: git archive is not available here")
        return True
    from dataclasses import asdict

    from witness.judge.adaptive import race
    from witness.judge.ensemble import ensemble_seeds
    from witness.serve.chain import serve_chains
    from witness.serve.request import serve_path

    old_lockstep = importlib.import_module("witness_numpy.lockstep")
    old_request = importlib.import_module("witness_numpy.request")
    old_adaptive = importlib.import_module("witness_numpy.adaptive")
    old_grids = old.cache.UniformGrids()

    def pair(s: Settings) -> Any:
        return old.settings.Settings(**s.model_dump())

    def seeds(s: Settings) -> tuple[int, ...]:
        return tuple(ensemble_seeds(s.seed, 32))

    # What each loop serves for a never-seen match (fresh laws): the loop now, the loop then.
    rows: list[tuple[str, Callable[[Settings], Any], Callable[[Any], Any]]] = [
        (
            "32 seeded requests (an ensemble)",
            lambda s: serve_chains(s, seeds(s), cache=RequestCache(grids=GRIDS)),
            lambda o: old_lockstep.serve_lockstep(
                o, seeds(o), cache=old.RequestCache(grids=old_grids)
            ),
        ),
        (
            "one request's passes (serve_path)",
            lambda s: serve_path(s, cache=RequestCache(grids=GRIDS)),
            lambda o: old_request.serve_path(o, cache=old.RequestCache(grids=old_grids)),
        ),
        (
            "the request on screen (serve_request)",
            lambda s: serve_request(s, cache=RequestCache(grids=GRIDS)),
            lambda o: old.serve_request(o, cache=old.RequestCache(grids=old_grids)),
        ),
        (
            "a race of five policies",
            race,
            lambda o: old_adaptive.race(o, cache=old.RequestCache(grids=old_grids)),
        ),
    ]
    states = [
        Settings(match=0.05 + i * 0.0149, k=2 + i % 11, verify=i % 5 != 1, repair=i % 5 != 2)
        for i in range(LOOP_STATES)
    ]
    same = True
    print(f"   {'never-seen match, 48 tokens':<40} {'now ms':>8} {'numpy ms':>9} {'ratio':>6}")
    for name, new_fn, old_fn in rows:
        for s in states[:8]:
            a, b = new_fn(s), old_fn(pair(s))
            same = same and _as_plain(a, asdict) == _as_plain(b, asdict)
        now, then = [], []
        for i, s in enumerate(states):
            o = pair(s)
            order = [(now, partial(new_fn, s)), (then, partial(old_fn, o))]
            for out, fn in order if i % 2 == 0 else order[::-1]:
                t0 = time.perf_counter()
                fn()
                out.append((time.perf_counter() - t0) * 1e3)
        n, t = statistics.median(now), statistics.median(then)
        print(f"   {name:<40} {n:>8.3f} {t:>9.3f} {n / t:>6.2f}")
    print(f"   identical results ({NUMPY_COMMIT}'s loops): {'yes' if same else 'MISMATCH'}")
    return same


def _as_plain(x: Any, asdict: Callable[[Any], Any]) -> Any:
    """A result as plain data, whichever package's dataclasses it is made of."""
    if isinstance(x, list):
        return [_as_plain(v, asdict) for v in x]
    if hasattr(x, "to_dict"):
        return x.to_dict()
    d = asdict(x)
    return {k: v for k, v in d.items() if k not in ("settings", "raced")}


TRANSFORMER_BUDGET = 4.0


def bench_transformers() -> bool:
    """Section 8: a never-seen state served by the tiny transformers against the n-grams."""
    app = AppSettings()
    models = ("early-exit", "small-draft")
    own = Witness(RequestCache(grids=GRIDS))  # one running server: texts and laws kept

    def state(i: int, name: str) -> Any:
        # A match no state has had (never served, never judged) on the prompt and seeds the
        # server has seen: the texts are kept, the trie of contexts is warm.
        s = Settings(match=round(0.3 + 0.0007 * i, 4), k=3 + i % 4)
        return parse_state([*query(s), ("models", name)])

    def view(st: Any) -> float:
        # The evidence fragment, then the sweep (a request of its own): a state's whole cost.
        return timed(lambda _: (live_view(st, app, own), own.sweep(st.settings)), 1)[0]

    ms_by: dict[str, list[float]] = {"ngram": [], **{m: [] for m in models}}
    ratios: dict[str, list[float]] = {m: [] for m in models}
    for i in range(80):
        names = ["ngram", *models]
        order = list(range(len(names)))
        if i % 2:
            order.reverse()  # alternate which goes first
        ms = [0.0] * len(names)
        for j in order:
            ms[j] = view(state(i, names[j]))
        if i >= 10:  # warm-up: the texts, the trie along them, scipy
            for name, value in zip(names, ms, strict=True):
                ms_by[name].append(value)
            for name, value in zip(models, ms[1:], strict=True):
                ratios[name].append(value / ms[0])
    print("\n8. A never-seen state with the tiny transformers (live_view, then the k sweep)")
    print(f"   {'what':<52} {'median ms':>10} {'p90 ms':>8}")
    for name, values in ms_by.items():
        label = "the n-grams (reference)" if name == "ngram" else f"models {name}"
        print(f"   {label:<52} {statistics.median(values):>10.2f} {p90(values):>8.2f}")
    ok = True
    for name, values in ratios.items():
        ratio = statistics.median(values)
        ok &= ratio <= TRANSFORMER_BUDGET
        verdict = "ok" if ratio <= TRANSFORMER_BUDGET else "OVER BUDGET"
        print(
            f"   {name} / n-grams: {ratio:.2f} (median of {len(values)} pairs; budget <= "
            f"{TRANSFORMER_BUDGET:g}): {verdict}"
        )
    return ok


def main() -> int:
    cpus = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    print(
        f"environment: python {platform.python_version()}, numpy {np.__version__}, "
        f"{cpus} cpus ({usable} usable), {platform.machine()}, load {os.getloadavg()[0]:.2f}"
    )
    if os.getloadavg()[0] > 0.5 * (usable or 1):
        print("note: the machine is busy (load average above half the cpus): tails are noisy")
    only = set(sys.argv[1:])  # sections to run, e.g. `bench/witness.py 1 6`; all when none
    if only:
        ok = bench_slider() if "1" in only else True
        ok = (bench_machine() if "5" in only else True) and ok
        ok = (bench_ensemble() if "6" in only else True) and ok
        ok = (bench_compiled_chain() if "7" in only else True) and ok
        ok = (bench_transformers() if "8" in only else True) and ok
        return 0 if ok else 1
    bench_slider()
    if not bench_simulation():
        print("MISMATCH: the vectorised and looped simulations disagree for the same seed")
        return 1
    if not bench_chain_before():
        print("MISMATCH: the chain's text differs from the code before token trees")
        return 1
    bench_methods()
    machine_ok = bench_machine()
    chain_ok = bench_compiled_chain()
    transformers_ok = bench_transformers()
    return 0 if bench_ensemble() and machine_ok and chain_ok and transformers_ok else 1


if __name__ == "__main__":
    sys.exit(main())
