"""A study for issue 13's class budgets: a verdict's passes as an exact expectation per text.

The station draws every verdict from 32 seeded requests served in full (`witness.ensemble`),
~58 ms at a never-seen state. This script measures one way to draw them for far less, on the
lossless chain (verify and repair on), before anything in the station is changed.

Why it is exact. With repair on, every emitted token has the target's law whatever the draft
(`witness.rule`), so the text a request emits is a sample of the target alone: it does not
depend on the match or on k. Given the text, a drafted position that emitted x was accepted
with probability min(p(x), q(x)) / p(x) = min(1, m + (1 − m) · d(x) / p(x)) (the joint law of
"accepted" and "emitted x" is min(p, q)(x), of "rejected" and x is (p − q)⁺(x)), independently
of every other position. So the expected target passes of a request *given its text* follow
from one backward recursion over the text's positions, for any (m, k): a Rao–Blackwellised
ensemble. Its mean estimates the same expected passes as the served requests, with less
spread (the acceptance draws are averaged out exactly), and a new match or k costs only the
recursion: the texts and their ratios d(x)/p(x) are kept per (prompt, tokens, seeds).

What it prints, against the station's own served ensembles in the same process:

1. agreement: at four (m, k), 512 served requests against 512 texts: the difference of the
   mean target passes in standard errors, each side's spread per request, and how many
   served requests one text is worth ((sd served / sd text)²);
2. cost at never-seen states: the station's `Witness.ensemble` (warm caches, a new match
   each time, as a running server pays) against the recursion over 32 texts; median ms and
   the ratio;
3. the trap (printed under 1): a speedup averaged per request, tokens / E[passes | text], is
   below the served requests' mean of tokens / passes (Jensen's inequality), by about the
   acceptance draws' share of the spread. That gap is why the two kinds of ensemble can
   never be set side by side in one paired comparison, and why adopting this means comparing
   passes (or speedups as ratios of means), not per-request speedups.

Information only; nothing here is used by the station or asserted in pytest.
Run from the repo root: `.venv/bin/python bench/expected_passes.py` (~1 min).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from app.services import Witness  # noqa: E402
from witness.cache import RequestCache  # noqa: E402
from witness.lm import BOUNDARY, tiny_models  # noqa: E402
from witness.lockstep import serve_lockstep  # noqa: E402
from witness.settings import Settings  # noqa: E402

FloatArray = NDArray[np.float64]
STATES = ((0.6, 4), (0.2, 8), (0.9, 3), (0.0, 2))
AGREE_N = 512
ENSEMBLE_N = 32
NEW_STATES = 40


def target_texts(prompt: str, tokens: int, seeds: range) -> FloatArray:
    """d(x)/p(x) at each position of a target text per seed: [texts, tokens]. The texts are
    sampled from the target alone (numpy's generator, seeded per text), as repair makes them."""
    models = tiny_models()
    pad = models.index[BOUNDARY]
    ids, _ = models.encode(prompt)
    ratios = np.empty((len(seeds), tokens))
    for j, seed in enumerate(seeds):
        rng = np.random.default_rng(seed)
        before, prev = ([pad, pad, *ids])[-2:]
        for t in range(tokens):
            p, d = models.target_row(before, prev), models.draft_row(prev)
            x = min(int(np.searchsorted(np.cumsum(p), rng.random(), side="right")), p.size - 1)
            ratios[j, t] = d[x] / p[x]
            before, prev = prev, x
    return ratios


def expected_passes(ratios: FloatArray, match: float, k: int) -> FloatArray:
    """E[target passes | text] per text, for the chain at (match, k) with verify and repair
    on: a block at position t drafts min(k, tokens − t − 1); its first rejection at t + j
    emits j + 1 tokens, no rejection emits the drafts and the bonus token."""
    n, tokens = ratios.shape
    accept = np.minimum(1.0, match + (1.0 - match) * ratios)
    after = np.zeros((n, tokens + 1))  # after[:, t]: expected passes from position t on
    for t in range(tokens - 1, -1, -1):
        drafts = min(k, tokens - t - 1)
        standing = np.ones(n)
        total = np.zeros(n)
        for j in range(drafts):
            a = accept[:, t + j]
            total += standing * (1.0 - a) * after[:, t + j + 1]
            standing = standing * a
        after[:, t] = 1.0 + total + standing * after[:, t + drafts + 1]
    return after[:, 0]


def agreement(prompt: str, tokens: int) -> None:
    print(f"\n1. Agreement: {AGREE_N} served requests against {AGREE_N} texts, {tokens} tokens")
    texts = target_texts(prompt, tokens, range(50_000, 50_000 + AGREE_N))
    for match, k in STATES:
        s = Settings(match=match, k=k, tokens=tokens, prompt=prompt)
        seeds = list(range(10_000, 10_000 + AGREE_N))
        served = np.array(
            [p.target_passes for p in serve_lockstep(s, seeds, cache=RequestCache())], float
        )
        exact = expected_passes(texts, match, k)
        se = np.sqrt(served.var(ddof=1) / served.size + exact.var(ddof=1) / exact.size)
        worth = (served.std(ddof=1) / exact.std(ddof=1)) ** 2
        print(
            f"   match {match:.1f}, k {k:>2}: served {served.mean():6.2f} passes "
            f"(sd {served.std(ddof=1):.2f}), "
            f"texts {exact.mean():6.2f} (sd {exact.std(ddof=1):.2f}); "
            f"difference {(exact.mean() - served.mean()) / se:+.2f} SE; one text is worth "
            f"{worth:.0f} served requests"
        )
        # The trap: per-request speedups at c = 0 averaged over requests.
        a, b = tokens / served, tokens / exact
        gap_se = float(np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size))
        print(
            f"      mean per-request speedup at c = 0: served {a.mean():.3f}, texts "
            f"{b.mean():.3f}: {b.mean() / a.mean() - 1:+.1%} "
            f"({(b.mean() - a.mean()) / gap_se:+.1f} SE; Jensen's inequality pulls the texts' down)"
        )


def cost(prompt: str, tokens: int) -> None:
    print(f"\n2. Cost of a never-seen state's ensemble ({ENSEMBLE_N} requests or texts)")
    witness = Witness()
    witness.ensemble(Settings(prompt=prompt, tokens=tokens))  # warm, as a running server is
    texts = target_texts(prompt, tokens, range(ENSEMBLE_N))  # kept per prompt, tokens, seeds
    served_ms, exact_ms = [], []
    for i in range(NEW_STATES):
        match, k = round(0.05 + i * 0.0213, 4), 3 + i % 4
        t0 = time.perf_counter()
        witness.ensemble(Settings(match=match, k=k, prompt=prompt, tokens=tokens))
        t1 = time.perf_counter()
        expected_passes(texts, match, k)
        t2 = time.perf_counter()
        served_ms.append((t1 - t0) * 1e3)
        exact_ms.append((t2 - t1) * 1e3)
    a, b = statistics.median(served_ms), statistics.median(exact_ms)
    print(f"   served (Witness.ensemble): median {a:.1f} ms")
    print(f"   texts (the recursion):     median {b:.2f} ms")
    print(f"   ratio served / texts: {a / b:.0f}x")


def main() -> int:
    load = os.getloadavg()[0]
    print(f"load average {load:.2f}" + ("  (busy: figures are inflated)" if load > 1.0 else ""))
    s = Settings()
    agreement(s.prompt, s.tokens)
    cost(s.prompt, s.tokens)
    return 0


if __name__ == "__main__":
    sys.exit(main())
