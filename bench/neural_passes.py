"""The tiny transformers' passes timed on this server: what verifying k drafts really costs.

With the committed weights (`witness/neural/weights/tiny.npz`), numpy inference as the
station runs it, on one fixed prompt of 64 characters of the generated corpus already in each
model's KV cache:

- the target's forward over s = 1, 2, 4, 5, 8, 16 new positions (a verifying pass over
  k + 1 = s positions; s = 1 is one plain decoding step, the reference);
- the early-exit draft's step (the target's first layer and its exit head, one position);
- the separate 1-layer draft's step (one position, in its own cache).

Each timed call is followed, untimed, by a rollback of the cache to the prompt, so every
repeat sees the same cache. The calls are interleaved in a shuffled order each round (drift
of the machine's speed falls on all of them alike), after a warm-up; the medians of all
rounds give v(s) = T_target(s) / T_target(1) and c = T_draft / T_target(1), and the medians
of each fifth of the rounds give a range for each ratio.

Beside them, what the station's pricing assumes for the same passes (Llama 3.1 8B verifying,
batch 1, context 512): the roofline on an H100 (a verifying pass costs one step at small batch)
and the H200's timed passes (CUDA graphs). From v(5), c and the committed tokens per verifying
pass at k = 4 (`witness/neural/weights/train-log.json`), the speedup k = 4 would give here (not
timed end to end).

The calls and their interleaved rounds are `witness.neural.timing`'s, which the station's
`/roofline` page also times (over s = 1 to 16, the best of a few rounds, once per server
process); this script runs them for many more rounds, on a quiet machine, and reports the
medians and their spread.

Medians and ratios from one run only; nothing here is asserted in pytest.
Run from the repo root: `.venv/bin/python bench/neural_passes.py [--repeats N] [--json PATH]`
(~10 s).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import numpy as np  # noqa: E402

from witness.core.settings import Settings  # noqa: E402
from witness.cost.costing import costing  # noqa: E402
from witness.neural.model import TinyPair, tiny_pair  # noqa: E402
from witness.neural.timing import (  # noqa: E402
    K,
    committed_tokens_per_pass,
    pass_calls,
    time_rounds,
)

PROMPT = 64
WIDTHS = (1, 2, 4, 5, 8, 16)
REPEATS = 1_000
WARMUP = 50
CHUNKS = 5


def cpu_model() -> str | None:
    """The CPU's model name from /proc/cpuinfo, or None where it cannot be read."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _calls(
    pair: TinyPair, prompt: int
) -> tuple[dict[str, Callable[[], object]], Callable[[], None]]:
    """The timed passes at this script's widths (`witness.neural.timing.pass_calls`)."""
    return pass_calls(pair, prompt, WIDTHS)


def measure(
    repeats: int = REPEATS, warmup: int = WARMUP, prompt: int = PROMPT, seed: int = 0
) -> dict[str, Any]:
    """Time every pass `repeats` times, interleaved; medians (ms) and ratios to one step.

    Returns ``ms`` (median per pass), ``v`` (s -> T_target(s) / T_target(1), as strings of s),
    ``c`` (each draft's step / T_target(1)), ``ranges`` (each ratio's lowest and highest over
    the fifths of the rounds) and the run's parameters.
    """
    pair = tiny_pair()
    calls, reset = _calls(pair, prompt)
    names = list(calls)
    times = time_rounds(calls, reset, repeats=repeats, warmup=warmup, seed=seed)

    def ratios(rows: dict[str, list[float]]) -> dict[str, float]:
        step = statistics.median(rows["target_1"])
        return {name: statistics.median(rows[name]) / step for name in names}

    whole = ratios(times)
    chunks = max(1, min(CHUNKS, repeats))
    size = repeats // chunks
    parts = [
        ratios({name: t[i * size : (i + 1) * size] for name, t in times.items()})
        for i in range(chunks)
    ]
    ranges = {name: (min(p[name] for p in parts), max(p[name] for p in parts)) for name in names}
    return {
        "prompt": prompt,
        "repeats": repeats,
        "warmup": warmup,
        "ms": {name: statistics.median(times[name]) * 1e3 for name in names},
        "v": {str(s): whole[f"target_{s}"] for s in WIDTHS},
        "c": {"early_exit": whole["early_exit"], "draft": whole["draft"]},
        "ranges": {name: list(r) for name, r in ranges.items()},
        "layers": {"target": pair.target.config.n_layers, "early_exit": pair.early_exit.depth},
    }


def station_prices() -> dict[str, dict[str, float]]:
    """v(s) as the station prices it: the roofline on an H100 and the H200's timed passes,
    Llama 3.1 8B / 3.2 1B at batch 1, context 512."""
    out: dict[str, dict[str, float]] = {}
    for label, settings in (
        ("roofline (H100)", Settings(machine="h100", context=512)),
        ("H200, timed (CUDA graphs)", Settings(machine="h200", context=512)),
    ):
        cost = costing(settings)
        out[label] = {str(s): cost.verify(s) for s in WIDTHS}
    return out


def tokens_per_pass() -> dict[str, float] | None:
    """The committed log's tokens per verifying pass at k = 4, per draft (None if absent)."""
    return committed_tokens_per_pass()


def report(figures: dict[str, Any], prices: dict[str, dict[str, float]]) -> str:
    ms, v, c, ranges = figures["ms"], figures["v"], figures["c"], figures["ranges"]
    lines = [
        f"prompt {figures['prompt']} positions in the cache, {figures['repeats']} rounds "
        f"(+{figures['warmup']} warm-up), medians; range: lowest-highest over the rounds' fifths",
        "",
        f"{'pass':<32}{'ms':>8}{'ratio':>8}   range",
    ]
    for s in WIDTHS:
        name = f"target_{s}"
        lo, hi = ranges[name]
        label = "target, 1 position (one step)" if s == 1 else f"target, {s} positions  v({s})"
        lines.append(f"{label:<32}{ms[name]:>8.3f}{v[str(s)]:>8.2f}   {lo:.2f}-{hi:.2f}")
    for name, label in (
        ("early_exit", "early-exit draft step  c"),
        ("draft", "1-layer draft step  c"),
    ):
        lo, hi = ranges[name]
        lines.append(f"{label:<32}{ms[name]:>8.3f}{c[name]:>8.2f}   {lo:.2f}-{hi:.2f}")
    layers = figures["layers"]
    share = layers["early_exit"] / layers["target"]
    lines += [
        "",
        f"a layer's share of the target: {layers['early_exit']}/{layers['target']} = {share:.2f}",
    ]
    lines.append("")
    lines.append("what the station's pricing assumes for a verifying pass, v(s):")
    lines.append(f"{'':<32}" + "".join(f"{f's={s}':>7}" for s in WIDTHS))
    lines.append(
        f"{'measured here (numpy, CPU)':<32}" + "".join(f"{v[str(s)]:>7.2f}" for s in WIDTHS)
    )
    for label, row in prices.items():
        lines.append(f"{label:<32}" + "".join(f"{row[str(s)]:>7.2f}" for s in WIDTHS))
    lines.append("(both: Llama 3.1 8B verifying, batch 1, context 512)")
    per_pass = tokens_per_pass()
    if per_pass is not None:
        lines.append("")
        lines.append(
            f"k = {K} from these figures (not timed end to end): a round of k draft steps and "
            f"one verifying pass costs k·c + v({K + 1}) steps and commits the log's tokens per pass"
        )
        for name, label in (("early_exit", "early exit"), ("draft", "1-layer draft")):
            if name in per_pass:
                cost = K * c[name] + v[str(K + 1)]
                lines.append(
                    f"  {label:<14} {per_pass[name]:.2f} tokens / {cost:.2f} steps: "
                    f"speedup {per_pass[name] / cost:.2f}x"
                )
        lines.append(
            "  (after the early exit's drafts the verifying pass reuses their first-layer rows, "
            "so that round costs a little less)"
        )
    reading = (
        "Reading: a model this small is not memory-bound. Its weights (0.26 M parameters, "
        "~2 MB in float64) fit in the CPU's caches, so a pass is paid in arithmetic and in "
        "numpy's per-operation overhead, not in reading the weights; one pass over k + 1 "
        f"positions therefore costs more than one step here (v(5) = {v['5']:.2f}, "
        f"v(16) = {v['16']:.2f}), where the roofline of a large model at small batch prices it "
        f"at about one step. The early exit runs one of the target's {layers['target']} layers "
        f"and costs about that share of a step (c = {c['early_exit']:.2f} against "
        f"{share:.2f}), as the H200's timed passes show a per-layer cost: a draft's price "
        "follows its depth, not only its size. So the wall-clock speedup here is far below "
        "what the same acceptance gives where a pass is memory-bound; the station takes the "
        "cited machines' speedups from their prices and the acceptance from the real models."
    )
    lines += ["", textwrap.fill(reading, 100)]
    return "\n".join(lines)


def document(figures: dict[str, Any], prices: dict[str, dict[str, float]]) -> dict[str, Any]:
    """The figures as JSON, with the machine they were measured on."""
    return {
        "measured": datetime.date.today().isoformat(),
        "env": {
            "cpu": cpu_model(),
            "cpus": os.cpu_count(),
            "numpy": np.__version__,
            "python": platform.python_version(),
            "load": os.getloadavg()[0],
        },
        **figures,
        "station_prices": prices,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=REPEATS, help="timed rounds")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    cpus = os.cpu_count() or 1
    load = os.getloadavg()[0]
    print(
        f"{cpus} cpus ({cpu_model() or 'model unknown'}), numpy {np.__version__}, load {load:.2f}"
    )
    if load > 0.5 * cpus:
        print("note: the machine is busy (load average above half the cpus): figures are noisy")
    start = time.perf_counter()
    figures = measure(repeats=args.repeats)
    prices = station_prices()
    print(report(figures, prices))
    print(f"\n({time.perf_counter() - start:.1f} s)")
    if args.json is not None:
        args.json.write_text(
            json.dumps(document(figures, prices), indent=2) + "\n", encoding="utf-8"
        )
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
