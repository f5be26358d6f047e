"""The tiny transformers' passes timed on this server, beside the roofline's price for them.

Not part of the deterministic witness, like `witness.cost.measured`: these are numpy's
timings on whatever machine runs them, so they change from run to run and nothing the station
judges depends on them. They answer what a verifying pass really costs a model this small.

With the committed weights, on a prompt of `PROMPT` characters of the generated corpus already
in each model's KV cache:

- the target's forward over s new positions (a verifying pass over k + 1 = s; s = 1 is one
  plain decoding step, the unit): v(s) = T_target(s) / T_target(1);
- the early-exit draft's step (the target's first layer and its exit head) and the 1-layer
  draft's step: c = T_draft / T_target(1).

Each timed call is followed, untimed, by a rollback of both caches to the prompt, so every
repeat sees the same cache; the calls run in a shuffled order each round (a drift of the
machine's speed falls on all of them alike) and each time is the best over the rounds, as
`witness.cost.measured` takes it: the least disturbed run. On a server that other work keeps
busy a median is not robust here: with more runnable threads than cores a pass of a few
milliseconds is preempted in most rounds, the wider (longer) passes more often. On a 2-core
machine at a load of 10 the medians of 15 rounds jump between 2× and 8× a step from one width
to the next, while the best times rise smoothly and match a quiet machine's medians
(`bench/neural_passes.py`).

Beside them, the roofline's price for the same target passes on this server
(`roofline_passes`): the bandwidth and compute measured by `witness.cost.measured`, the
target's float64 weights and the prompt's keys and values read once a pass against
2 · parameters · s of arithmetic, whichever takes longer. For a model of 0.2 M parameters
(1.6 MB, inside the CPU's caches) that is flat over 1 to 16 positions, while the timing rises:
a pass this small is Python's and numpy's fixed cost per call over a handful of small matrix
products, which run far below the CPU's peak, so their work grows with the positions; it is
not a stream of weights.

`timed_here()` measures once per process (well under a second; the `/roofline` page uses
it); `bench/neural_passes.py` runs the same calls for many more rounds.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import numpy as np

from witness.cost.measured import MeasuredRoofline
from witness.cost.roofline import roofline_pass_seconds
from witness.neural.corpus import CORPUS_SEED, corpus, encode
from witness.neural.model import TinyPair, tiny_pair

TRAIN_LOG = Path(__file__).resolve().parent / "weights" / "train-log.json"
PROMPT = 64  # positions in each cache before a timed pass
WIDTHS = tuple(range(1, 17))  # new positions of the target's pass: verifying k = 0 … 15
REPEATS = 15  # rounds timed once per process: ~0.5 s on a 2-core machine
WARMUP = 2
K = 4  # drafts a verifying pass of 5 positions checks: the committed log's k
FLOAT64 = 8.0  # bytes a parameter and a cached element: the weights are widened at load
# A pass whose ratio to one step is at most this costs "about one step": the H200's timed
# verifying pass of 5 positions (1.09, CUDA graphs, batch 1) is one.
NEAR_ONE = 1.10

Calls = dict[str, Callable[[], object]]


def pass_calls(
    pair: TinyPair, prompt: int = PROMPT, widths: Sequence[int] = WIDTHS
) -> tuple[Calls, Callable[[], None]]:
    """Each timed pass as a call on caches holding `prompt` positions of the corpus, and the
    rollback that returns both caches to those positions (run after each call, untimed).

    The calls are ``target_{s}`` for each width, ``early_exit`` and ``draft``.
    """
    tokens = encode(corpus(CORPUS_SEED, prompt + max(widths) + 200))
    head, after = tokens[:prompt], tokens[prompt:]
    target_cache = pair.target.new_cache()
    pair.target.forward(head, target_cache)
    draft_cache = pair.draft.new_cache()
    pair.draft.forward(head, draft_cache)
    # Room for the longest pass, so no timed call grows the arrays.
    target_cache.reserve(prompt + max(widths))
    draft_cache.reserve(prompt + 1)

    calls: Calls = {
        f"target_{s}": partial(pair.target.forward, after[:s], target_cache) for s in widths
    }
    calls["early_exit"] = partial(pair.early_exit.forward, after[:1], target_cache)
    calls["draft"] = partial(pair.draft.forward, after[:1], draft_cache)

    def reset() -> None:
        # truncate, not rollback: the early exit leaves its first layer a position ahead.
        target_cache.truncate(prompt)
        draft_cache.truncate(prompt)

    return calls, reset


def time_rounds(
    calls: Calls, reset: Callable[[], None], *, repeats: int, warmup: int, seed: int = 0
) -> dict[str, list[float]]:
    """Every call once a round in a shuffled order, `warmup` rounds then `repeats` timed;
    the seconds of each call in each timed round."""
    if repeats < 1 or warmup < 0:
        raise ValueError(f"repeats must be at least 1, warmup at least 0 ({repeats}, {warmup})")
    names = list(calls)
    times: dict[str, list[float]] = {name: [] for name in names}
    rng = np.random.default_rng(seed)
    for round_ in range(warmup + repeats):
        for i in rng.permutation(len(names)):
            name = names[int(i)]
            start = time.perf_counter()
            calls[name]()
            elapsed = time.perf_counter() - start
            reset()
            if round_ >= warmup:
                times[name].append(elapsed)
    return times


@dataclass(frozen=True, slots=True)
class TimedPasses:
    """The target's pass over each width and both drafts' steps: the best seconds of the rounds."""

    widths: tuple[int, ...]
    seconds: tuple[float, ...]  # the target's pass over each width
    early_exit_seconds: float
    draft_seconds: float
    repeats: int
    prompt: int
    layers: int  # the target's
    exit_layer: int  # the layers the early exit runs

    def __post_init__(self) -> None:
        if not self.widths or self.widths[0] != 1 or list(self.widths) != sorted(self.widths):
            raise ValueError(f"widths must start at 1 and ascend (got {self.widths!r})")
        if len(self.seconds) != len(self.widths):
            raise ValueError("one time per width")
        if min(*self.seconds, self.early_exit_seconds, self.draft_seconds) <= 0:
            raise ValueError("every time must be above 0")

    @property
    def step_seconds(self) -> float:
        """One plain decoding step: the target's pass over one position."""
        return self.seconds[0]

    @property
    def v(self) -> tuple[float, ...]:
        """v(s) = T_target(s) / T_target(1) for each width."""
        return tuple(t / self.seconds[0] for t in self.seconds)

    def v_at(self, s: int) -> float:
        return self.v[self.widths.index(s)]

    @property
    def c_early_exit(self) -> float:
        return self.early_exit_seconds / self.seconds[0]

    @property
    def c_draft(self) -> float:
        return self.draft_seconds / self.seconds[0]


def measure_passes(
    *,
    repeats: int = REPEATS,
    warmup: int = WARMUP,
    prompt: int = PROMPT,
    widths: Sequence[int] = WIDTHS,
    seed: int = 0,
) -> TimedPasses:
    """Time the target's pass over each width and both drafts' steps (see the module)."""
    pair = tiny_pair()
    calls, reset = pass_calls(pair, prompt, widths)
    times = time_rounds(calls, reset, repeats=repeats, warmup=warmup, seed=seed)
    return TimedPasses(
        widths=tuple(widths),
        seconds=tuple(min(times[f"target_{s}"]) for s in widths),
        early_exit_seconds=min(times["early_exit"]),
        draft_seconds=min(times["draft"]),
        repeats=repeats,
        prompt=prompt,
        layers=pair.target.config.n_layers,
        exit_layer=pair.early_exit.depth,
    )


_LOCK = threading.Lock()


@cache
def _timed_once() -> TimedPasses:
    return measure_passes()


def timed_here() -> TimedPasses:
    """This server's timing, made once per process.

    The lock keeps two first requests from timing at once (each would slow the other).
    """
    with _LOCK:
        return _timed_once()


@dataclass(frozen=True, slots=True)
class RooflinePasses:
    """The roofline's time of the target's pass over each width, on a measured machine."""

    widths: tuple[int, ...]
    seconds: tuple[float, ...]
    params: int  # the parameters a target pass reads (all but the exit head's)
    weight_bytes: float
    kv_bytes: float  # the prompt's keys and values, every layer
    bandwidth: float  # bytes a second, from the measured roofline
    flops: float  # floating-point operations a second, from the measured roofline
    cache_bytes: int | None  # this server's last-level cache, when the OS says

    @property
    def v(self) -> tuple[float, ...]:
        return tuple(t / self.seconds[0] for t in self.seconds)

    def v_at(self, s: int) -> float:
        return self.v[self.widths.index(s)]

    @property
    def compute_bound_width(self) -> float:
        """Positions a pass must hold before its arithmetic outlasts its reads."""
        return (self.weight_bytes + self.kv_bytes) / self.bandwidth * self.flops / (2 * self.params)

    @property
    def flat(self) -> bool:
        """Every width costs one step: the reads outlast the arithmetic throughout."""
        return self.compute_bound_width >= self.widths[-1]


def roofline_passes(
    m: MeasuredRoofline,
    *,
    pair: TinyPair | None = None,
    prompt: int = PROMPT,
    widths: Sequence[int] = WIDTHS,
) -> RooflinePasses:
    """The roofline's price of the target's pass over each width, on the machine ``m`` measured.

    T(s) = max((weights + KV) / bandwidth, 2 · params · s / flops), with the weights in
    float64 (what a pass reads) and the KV of the ``prompt`` positions the cache holds.
    ``m``'s bandwidth streams a matrix larger than the caches and its compute is float32's: a
    floor drawn from this machine's own numbers, not a prediction of numpy's overheads.

    Notes
    -----
    The weights (1.6 MB) sit in the CPU's caches, which read faster than the streamed
    bandwidth, so the real memory time is lower still; the curve would be flat either way.

    Examples
    --------
    >>> # a CPU measured at 10 GB/s and 100 GFLOP/s
    >>> cpu = MeasuredRoofline(8192, 4096, 5, "", None, (), 10e9, 100e9, 1.0)
    >>> r = roofline_passes(cpu)
    >>> r.params, round(r.seconds[0] * 1e3, 3), round(r.compute_bound_width, 1), r.v[-1]
    (201152, 0.187, 46.5, 1.0)
    """
    pair = pair or tiny_pair()
    target = pair.target
    params = sum(int(p.size) for name, p in target.params.items() if not name.startswith("exit_"))
    c = target.config
    kv_bytes = 2.0 * c.n_layers * c.d_model * FLOAT64 * prompt
    seconds = tuple(
        roofline_pass_seconds(
            params,
            s,
            bandwidth=m.bandwidth,
            flops=m.flops,
            bytes_per_param=FLOAT64,
            kv_bytes=kv_bytes,
        )
        for s in widths
    )
    return RooflinePasses(
        widths=tuple(widths),
        seconds=seconds,
        params=params,
        weight_bytes=params * FLOAT64,
        kv_bytes=kv_bytes,
        bandwidth=m.bandwidth,
        flops=m.flops,
        cache_bytes=m.cache_bytes,
    )


@dataclass(frozen=True, slots=True)
class NeuralPasses:
    """The passes timed on this server, and the roofline's price for them on it."""

    timed: TimedPasses
    roofline: RooflinePasses


def passes_here(m: MeasuredRoofline) -> NeuralPasses:
    """This process's timing (`timed_here`) beside the roofline of the measurement ``m``."""
    timed = timed_here()
    return NeuralPasses(timed, roofline_passes(m, prompt=timed.prompt, widths=timed.widths))


def committed_tokens_per_pass() -> dict[str, float] | None:
    """The committed log's tokens per verifying pass at k = `K`, per draft (None if absent)."""
    try:
        log = json.loads(TRAIN_LOG.read_text(encoding="utf-8"))
        measured = log["measured"]
        if int(measured["k"]) != K:
            return None
        return {name: float(x) for name, x in measured["tokens_per_pass"].items()}
    except (OSError, KeyError, ValueError, TypeError):
        return None
