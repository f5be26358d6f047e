"""Speed against the production reference: Hugging Face transformers' `_speculative_sampling`
and `witness.verify_block` on the same blocks from the same logits, in one process.

For each vocabulary V in (256, 630) and draft length k in (4, 8): seeded target logits
[k + 1, V] and draft logits [k, V] (float32, as transformers hands them over), and 16 blocks
of k draft ids drawn from the draft's softmax with their acceptance uniforms. Each side
gets what it takes:

- transformers: `_speculative_sampling(candidate_input_ids, candidate_logits, k, new_logits)`,
  the logits tensors [1, k, V] and [1, k + 1, V] and the ids [1, prompt + k]; it takes the
  softmax of both itself and draws its own uniforms (`torch.rand_like`) and repair token.
- the witness: `verify_block(p, q, draft, u, u_repair)` with p = softmax(target logits),
  q = softmax(draft logits) as float64 rows (and, in a second column, float32 rows), its
  input checks on; a third column times numpy's softmax of both logits plus `verify_block`.
- `simulate_blocks(p[0], q[0], k, n, seed=8)` (one p and q for every position), per block
  = its time / n, with no cache (the keyed uniforms are mixed anew on every call).

Time per block: the 16 blocks are run in turn, 8 times each, and that is timed; 30 such rounds
per callable, interleaved in rotating order, give the median (and the best). The ratio is
transformers' median over the witness's ("witness faster by x"). Targets:
`verify_block` >= 5x, `simulate_blocks` >= 100x per block.

Before timing, each block is also run through `_speculative_sampling` with its uniforms
handed in (`torch.rand_like` replaced for that call): both sides must accept the same number
of drafted tokens (else MISMATCH, exit 1). Nothing here is asserted in pytest.

One thread: OMP / OpenBLAS / MKL are set to 1 before numpy is imported, and
`torch.set_num_threads(1)`. It needs the optional extra `peer` (CPU torch and transformers),
never needed by the station: in a separate venv, `pip install -e '.[peer]'`, then from the
repo root `python bench/peer.py` (or `make bench-peer`, which makes that venv).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

# Not bench/ itself on the path: its http.py would shadow the standard library's (which
# transformers imports); the repo root instead, for `witness`.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import numpy as np  # noqa: E402

from witness import simulate_blocks, verify_block  # noqa: E402
from witness.core.distributions import sample_inverse_cdf  # noqa: E402

VOCABS = (256, 630)
DRAFT_LENGTHS = (4, 8)
BLOCKS = 16  # distinct blocks per (V, k), run in turn
PASSES = 8  # times through the 16 blocks per timed sample
ROUNDS = 30  # timed samples per callable, interleaved
SIM_BLOCKS = 10_000  # blocks per simulate_blocks call
PROMPT = 8  # prompt tokens before the draft in candidate_input_ids
VERIFY_TARGET = 5.0
SIMULATE_TARGET = 100.0


def load_peer() -> tuple[Any, Callable[..., Any], str]:
    """torch, `_speculative_sampling` and the versions, or exit saying what to install."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        sys.exit(
            f"bench/peer.py needs the optional 'peer' extra (CPU torch and transformers), "
            f"which the station never needs: {exc.msg}.\n"
            f"Install it into a separate venv, e.g.\n"
            f"  python3 -m venv /tmp/peer-venv && /tmp/peer-venv/bin/pip install -e '.[peer]'\n"
            f"  /tmp/peer-venv/bin/python bench/peer.py"
        )
    try:
        from transformers.generation.utils import _speculative_sampling
    except ImportError:
        sys.exit(
            f"transformers {transformers.__version__} has no "
            f"transformers.generation.utils._speculative_sampling: install the version the "
            f"'peer' extra pins (pyproject.toml)"
        )
    versions = f"torch {torch.__version__}, transformers {transformers.__version__}"
    return torch, _speculative_sampling, versions


def softmax(logits: np.ndarray[Any, Any], dtype: type[np.floating[Any]]) -> np.ndarray[Any, Any]:
    z = logits.astype(dtype)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    out: np.ndarray[Any, Any] = e / e.sum(axis=-1, keepdims=True, dtype=dtype)
    return out


class Case:
    """One (V, k): the logits, both sides' inputs and `BLOCKS` blocks."""

    def __init__(self, torch: Any, vocab: int, k: int) -> None:
        rng = np.random.default_rng(1000 * vocab + k)
        target = rng.normal(0.0, 2.0, size=(k + 1, vocab)).astype(np.float32)
        # A good draft (acceptance rate ~0.8): the target's logits plus noise. The better the
        # draft, the more positions verify_block walks before it stops; transformers' work is
        # the same whatever is accepted.
        draft_logits = (target[:k] + rng.normal(0.0, 0.5, size=(k, vocab))).astype(np.float32)
        self.vocab, self.k = vocab, k
        self.target_logits, self.draft_logits = target, draft_logits
        self.p64, self.q64 = softmax(target, np.float64), softmax(draft_logits, np.float64)
        self.p32, self.q32 = softmax(target, np.float32), softmax(draft_logits, np.float32)
        self.new_logits = torch.from_numpy(target)[None]  # [1, k + 1, V]
        self.candidate_logits = torch.from_numpy(draft_logits)[None]  # [1, k, V]
        prompt = rng.integers(0, vocab, size=PROMPT)
        self.blocks: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], float, Any]] = []
        for _ in range(BLOCKS):
            draft = np.array(
                [int(sample_inverse_cdf(self.q64[i], float(rng.random()))) for i in range(k)],
                dtype=np.int64,
            )
            u = rng.random(k)
            ids = torch.from_numpy(np.concatenate([prompt, draft]))[None]  # [1, PROMPT + k]
            self.blocks.append((draft, u, float(rng.random()), ids))


def per_block(run_blocks: Callable[[], None], blocks: int) -> Callable[[], float]:
    """A sampler: one timed call of ``run_blocks`` (which runs ``blocks`` blocks), per block."""

    def sample() -> float:
        start = time.perf_counter_ns()
        run_blocks()
        return (time.perf_counter_ns() - start) / blocks / 1e3  # microseconds

    return sample


def callables(case: Case, hf: Callable[..., Any]) -> dict[str, Callable[[], float]]:
    k, blocks = case.k, case.blocks * PASSES
    new_logits, candidate_logits = case.new_logits, case.candidate_logits
    p64, q64, p32, q32 = case.p64, case.q64, case.p32, case.q32
    target_logits, draft_logits = case.target_logits, case.draft_logits

    def transformers_blocks() -> None:
        for _, _, _, ids in blocks:
            hf(ids, candidate_logits, k, new_logits)

    def witness64() -> None:
        for draft, u, u_repair, _ in blocks:
            verify_block(p64, q64, draft, u, u_repair)

    def witness32() -> None:
        for draft, u, u_repair, _ in blocks:
            verify_block(p32, q32, draft, u, u_repair)

    def witness_softmax() -> None:
        for draft, u, u_repair, _ in blocks:
            p = softmax(target_logits, np.float64)
            q = softmax(draft_logits, np.float64)
            verify_block(p, q, draft, u, u_repair)

    def simulated() -> None:
        simulate_blocks(p64[0], q64[0], k, SIM_BLOCKS, seed=8)

    return {
        "transformers": per_block(transformers_blocks, len(blocks)),
        "verify_block f64": per_block(witness64, len(blocks)),
        "verify_block f32": per_block(witness32, len(blocks)),
        "softmax + verify_block": per_block(witness_softmax, len(blocks)),
        "simulate_blocks": per_block(simulated, SIM_BLOCKS),
    }


def same_decisions(torch: Any, hf: Callable[..., Any], case: Case) -> bool:
    """Each block's accepted count, from `_speculative_sampling` given the block's uniforms
    and from `verify_block`, must agree."""
    real_rand_like = torch.rand_like
    try:
        for draft, u, u_repair, ids in case.blocks:
            given = torch.from_numpy(u.astype(np.float32))
            torch.rand_like = lambda like, given=given: given.to(like.dtype)
            _, n_matches = hf(ids, case.candidate_logits, case.k, case.new_logits)
            ours = verify_block(case.p64, case.q64, draft, u, u_repair).accepted
            if int(n_matches) != ours:
                print(f"   V={case.vocab} k={case.k}: accepted {int(n_matches)} vs {ours}")
                return False
    finally:
        torch.rand_like = real_rand_like
    return True


def measure(samplers: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    for sample in samplers.values():  # warm up
        sample()
    times: dict[str, list[float]] = {name: [] for name in samplers}
    names = list(samplers)
    for r in range(ROUNDS):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(samplers[name]())
    return times


def main() -> int:
    torch, hf, versions = load_peer()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    cpus = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    print(
        f"environment: python {platform.python_version()}, numpy {np.__version__}, {versions}, "
        f"torch threads {torch.get_num_threads()}, {cpus} cpus ({usable} usable), "
        f"{platform.machine()}, load {os.getloadavg()[0]:.2f}"
    )
    if os.getloadavg()[0] > 0.5 * (usable or 1):
        print("note: the machine is busy (load average above half the cpus): figures are noisy")
    print(
        f"per block, median of {ROUNDS} rounds (best in brackets), microseconds; "
        f"x = transformers' median / the witness's (targets: verify_block >= "
        f"{VERIFY_TARGET:g}x, simulate_blocks >= {SIMULATE_TARGET:g}x)"
    )
    header = (
        f"{'V':>4} {'k':>2} {'accepted':>8} | {'transformers':>14} | {'verify_block f64':>20} | "
        f"{'verify_block f32':>20} | {'softmax+verify f64':>20} | {'simulate_blocks':>20}"
    )
    print(header)
    print("-" * len(header))
    ok, agree = True, True
    for vocab in VOCABS:
        for k in DRAFT_LENGTHS:
            case = Case(torch, vocab, k)
            if not same_decisions(torch, hf, case):
                agree = False
            times = measure(callables(case, hf))
            med = {name: statistics.median(t) for name, t in times.items()}
            best = {name: min(t) for name, t in times.items()}
            reference = med["transformers"]
            accepted = statistics.mean(
                verify_block(case.p64, case.q64, d, u, ur).accepted for d, u, ur, _ in case.blocks
            )
            cells = [f"{reference:7.1f} ({best['transformers']:5.1f})"]
            for name, target in (
                ("verify_block f64", VERIFY_TARGET),
                ("verify_block f32", VERIFY_TARGET),
                ("softmax + verify_block", VERIFY_TARGET),
                ("simulate_blocks", SIMULATE_TARGET),
            ):
                ratio = reference / med[name]
                mark = "" if ratio >= target else "!"
                if name in ("verify_block f64", "simulate_blocks") and ratio < target:
                    ok = False
                cells.append(f"{med[name]:6.2f} ({best[name]:5.2f}) {ratio:5.1f}x{mark or ' '}")
            print(f"{vocab:>4} {k:>2} {accepted:>8.2f} | {cells[0]:>14} | " + " | ".join(cells[1:]))
    print(
        "accepted = mean drafted tokens kept per block (of k); ! = under its target. "
        "verify_block f64 and simulate_blocks are the issue's targets: "
        + ("met" if ok else "BELOW TARGET")
    )
    if not agree:
        print("MISMATCH: transformers and the witness kept different drafts for the same uniforms")
        return 1
    print(f"same decisions: both sides kept the same drafts on all {BLOCKS} blocks of each case")
    return 0


if __name__ == "__main__":
    sys.exit(main())
