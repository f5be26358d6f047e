"""What one forward pass of a Llama-shaped decoder costs on a CUDA accelerator, re-measured.

The station prices decoder passes from figures measured on an NVIDIA H200; they are the three
files in `witness/cost/h200/` (passes.json, passes-grid.json, passes-compiled.json), and this
script writes files in exactly their format, so the figures can be measured again on any
CUDA machine and compared point by point. The station never runs it and never needs torch.

What is measured. Three shapes from the models' config.json: llama-3.1-8b (32 layers, hidden
4096, MLP 14336, 32 heads, 8 KV heads of 128, vocabulary 128256), llama-3.2-1b (16 layers,
2048, 8192, 32 heads, 8 KV heads of 64, tied embeddings) and llama-3.1-70b (80 layers, 8192,
28672, 64 heads, 8 KV heads of 128). Random BF16 weights (a pass's time does not depend on
the values) and a static KV cache holding ``context`` cached tokens of each of ``batch``
sequences. A pass scores ``s`` new tokens of every sequence, as a verifying pass must: RMSNorm,
one fused QKV product, rotary positions, grouped-query SDPA over the cache (with the causal
lower-right mask when s > 1: every cached position, causal among the s new ones), the output
product, RMSNorm and a SwiGLU MLP (one fused gate-and-up product) per layer, then the final
norm and the logits of all s positions. s = 1 is a plain decoding step; a block of k drafts is
verified by one pass with s = k + 1.

Ways of running the same pass (the row's ``way``):

  own           eager_ms: op by op from Python; graph_ms: the pass captured once as a CUDA
                graph and replayed (what serving engines do)
  own-compiled  each layer's elementwise work around the matrix products fused by
                torch.compile (attention stays eager); eager_ms: those compiled pieces called
                from Python; graph_ms: the whole pass captured as a CUDA graph and replayed

Each figure is the median of 15 timed passes (CUDA events) after 3 warm-ups; the ``_min_ms``
beside it is the fastest of the 15; ``wall_s`` is the wall time spent on the row.

What each run measures (``--models`` keeps only the named models of it):

  (default)   -> passes.json: llama-3.1-8b and llama-3.2-1b, way own, at (batch, context)
                 (1, 512), (8, 512), (32, 512), (1, 8192); s = 1, 2, 3, 4, 5, 6, 8, 12, 16;
                 eager and graph
  --grid      -> passes-grid.json: CUDA graphs only (eager_ms null), s = 1, 2, 3, 5, 9, 17;
                 llama-3.1-8b and llama-3.2-1b at batch 1, 2, 4, 8, 16, 32, 64 with context
                 512, at batch 1, 8, 32 with context 2048 and 8192; llama-3.1-70b at batch 8,
                 context 512
  --compiled  -> passes-compiled.json: llama-3.1-70b, way own, batch 1, context 512,
                 s = 1, 2, 5, 9, 16; then way own-compiled for llama-3.1-8b, llama-3.2-1b and
                 llama-3.1-70b at batch 1, context 512, s = 1, 5
  --quick     a check of about a minute: llama-3.1-8b and llama-3.2-1b at batch 1, context
              512, s = 1, 5, way own and then way own-compiled

The committed passes.json also holds rows of transformers' LlamaForCausalLM (way ``hf``);
this script does not re-measure them. A model whose BF16 weights and KV cache do not
fit in the accelerator's free memory (the 70B's weights alone take 141 GB) is skipped with a
printed line.

Output: one JSON file, written again after every row (a run cut short keeps what it
measured): ``env`` (torch, device, gpu, sms, memory_gb, transformers or null), ``params``
(each model's parameter count, from its shape), ``rows``, ``elapsed_s``, ``measured`` (the
date) and ``method`` (one line). Usage, on a machine with torch and a CUDA device:

    python bench/passes.py OUTFILE [--grid | --compiled | --quick] [--models ID ...]

Without torch, or without a CUDA device, it prints one line saying what is missing and
exits 2. torch is imported inside the functions that time passes: the shape table, the
parameter counts, the plans and the writer import without it.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

WARM_UPS = 3
TIMED = 15
ROPE_BASE = 500_000.0
NORM_EPS = 1e-5
BF16_BYTES = 2

ROW_KEYS = (
    "model",
    "way",
    "batch",
    "context",
    "s",
    "eager_ms",
    "eager_min_ms",
    "graph_ms",
    "graph_min_ms",
    "wall_s",
)
ENV_KEYS = ("torch", "device", "gpu", "sms", "memory_gb", "transformers")
METHOD = (
    "Llama-shaped decoder passes (random BF16 weights, static KV cache, RoPE, grouped-query "
    "SDPA with the lower-right causal mask, SwiGLU, RMSNorm, logits of all s positions); "
    f"median and min of {TIMED} CUDA-event-timed passes after {WARM_UPS} warm-ups; own: eager "
    "and CUDA graph replay; own-compiled: torch.compile of each layer's elementwise work, "
    "then a CUDA graph (bench/passes.py)"
)


@dataclass(frozen=True, slots=True)
class Shape:
    """A Llama decoder's shape, as its config.json gives it."""

    layers: int
    hidden: int
    mlp: int  # intermediate_size
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tied: bool  # the logits reuse the embedding matrix


SHAPES: dict[str, Shape] = {
    "llama-3.1-8b": Shape(32, 4096, 14336, 32, 8, 128, 128256, tied=False),
    "llama-3.2-1b": Shape(16, 2048, 8192, 32, 8, 64, 128256, tied=True),
    "llama-3.1-70b": Shape(80, 8192, 28672, 64, 8, 128, 128256, tied=False),
}
PAIR = ("llama-3.1-8b", "llama-3.2-1b")  # a target and its draft


def param_count(shape: Shape) -> int:
    """Every weight of the model: embeddings, per layer Q, K, V, O, gate, up, down and two
    norms, the final norm, and the logits matrix unless it is the embeddings."""
    h = shape.hidden
    attention = h * shape.heads * shape.head_dim * 2 + h * shape.kv_heads * shape.head_dim * 2
    per_layer = attention + 3 * h * shape.mlp + 2 * h
    matrices = 1 if shape.tied else 2
    return shape.layers * per_layer + matrices * shape.vocab * h + h


@dataclass(frozen=True, slots=True)
class Run:
    """One model built once for ``batch`` sequences after ``context`` cached tokens, then a
    pass timed for each width s."""

    model: str
    way: str  # "own" or "own-compiled"
    batch: int
    context: int
    widths: tuple[int, ...]
    eager: bool = True  # time the pass op by op too, not only its CUDA graph


MAIN_CELLS = ((1, 512), (8, 512), (32, 512), (1, 8192))
MAIN_WIDTHS = (1, 2, 3, 4, 5, 6, 8, 12, 16)
GRID_CELLS = (
    *((batch, 512) for batch in (1, 2, 4, 8, 16, 32, 64)),
    *((batch, context) for context in (2048, 8192) for batch in (1, 8, 32)),
)
GRID_WIDTHS = (1, 2, 3, 5, 9, 17)
MODES = ("main", "grid", "compiled", "quick")


def plan(mode: str, models: Iterable[str] | None = None) -> list[Run]:
    """The runs of a mode, in order; ``models`` keeps only those models' runs."""
    runs: list[Run]
    if mode == "main":
        runs = [Run(m, "own", b, c, MAIN_WIDTHS) for m in PAIR for b, c in MAIN_CELLS]
    elif mode == "grid":
        runs = [Run(m, "own", b, c, GRID_WIDTHS, eager=False) for m in PAIR for b, c in GRID_CELLS]
        runs.append(Run("llama-3.1-70b", "own", 8, 512, GRID_WIDTHS, eager=False))
    elif mode == "compiled":
        runs = [Run("llama-3.1-70b", "own", 1, 512, (1, 2, 5, 9, 16))]
        runs += [Run(m, "own-compiled", 1, 512, (1, 5)) for m in (*PAIR, "llama-3.1-70b")]
    elif mode == "quick":
        runs = [Run(m, way, 1, 512, (1, 5)) for way in ("own", "own-compiled") for m in PAIR]
    else:
        raise ValueError(f"unknown mode {mode!r}; one of {MODES}")
    if models is not None:
        keep = set(models)
        runs = [r for r in runs if r.model in keep]
    return runs


def points(runs: Iterable[Run]) -> list[tuple[str, str, int, int, int]]:
    """(model, way, batch, context, s) of every row the runs write, in order."""
    return [(r.model, r.way, r.batch, r.context, s) for r in runs for s in r.widths]


Timing = tuple[float, float]  # (median, min) milliseconds


def make_row(
    run: Run, s: int, eager: Timing | None, graph: Timing | None, wall_s: float
) -> dict[str, Any]:
    """One row of the committed format; a way not timed is null."""
    row = {
        "model": run.model,
        "way": run.way,
        "batch": run.batch,
        "context": run.context,
        "s": s,
        "eager_ms": eager[0] if eager else None,
        "eager_min_ms": eager[1] if eager else None,
        "graph_ms": graph[0] if graph else None,
        "graph_min_ms": graph[1] if graph else None,
        "wall_s": wall_s,
    }
    assert tuple(row) == ROW_KEYS
    return row


def document(
    env: dict[str, Any],
    rows: Sequence[dict[str, Any]],
    elapsed_s: float,
    measured: str | None = None,
) -> dict[str, Any]:
    """The whole file: env, params, rows, elapsed_s, then the date and the method."""
    return {
        "env": {key: env.get(key) for key in ENV_KEYS},
        "params": {name: param_count(shape) for name, shape in SHAPES.items()},
        "rows": list(rows),
        "elapsed_s": elapsed_s,
        "measured": measured or datetime.date.today().isoformat(),
        "method": METHOD,
    }


def write(path: Path, doc: dict[str, Any]) -> None:
    """Write ``doc`` as the committed files are written (one-space indent), atomically."""
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    part.replace(path)


# ---------------------------------------------------------------------------------------------
# The timed part: everything below imports torch inside its functions.


def missing(what: str) -> NoReturn:
    """Say what is missing on one line and exit 2."""
    print(f"bench/passes.py: {what}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def load_torch() -> Any:
    """torch with a CUDA device, or one line saying what is missing and exit status 2."""
    # Run as a script, this file's folder leads sys.path, and bench/http.py there would shadow
    # the standard library's http, which torch imports.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    try:
        import torch  # type: ignore[import-not-found, unused-ignore]
    except ImportError as exc:
        if exc.name == "torch":
            missing(
                f"needs torch with a CUDA device, and torch is not installed in "
                f"{sys.executable}; the station never needs it"
            )
        missing(f"needs torch with a CUDA device, and torch failed to import: {exc!r}")
    if not torch.cuda.is_available():
        missing(f"needs a CUDA device, and torch {torch.__version__} sees none")
    return torch


def environment(torch: Any) -> dict[str, Any]:
    props = torch.cuda.get_device_properties(0)
    try:  # a note beside the figures, not a need: read without importing it
        transformers_version: str | None = metadata.version("transformers")
    except metadata.PackageNotFoundError:
        transformers_version = None
    return {
        "torch": torch.__version__,
        "device": "cuda",
        "gpu": props.name,
        "sms": props.multi_processor_count,
        "memory_gb": props.total_memory / 1e9,
        "transformers": transformers_version,
    }


class Decoder:
    """A Llama-shaped decoder with a static KV cache of ``length`` positions: BF16 on the GPU
    (float32 with ``device="cpu"``, to check its arithmetic where there is no GPU)."""

    def __init__(
        self, torch: Any, shape: Shape, batch: int, length: int, device: str = "cuda"
    ) -> None:
        self.torch, self.shape = torch, shape
        self.functional = torch.nn.functional
        bias = importlib.import_module("torch.nn.attention.bias")
        self.causal_lower_right: Callable[[int, int], Any] = bias.causal_lower_right
        dtype = torch.bfloat16 if device == "cuda" else torch.float32
        generator = torch.Generator(device=device).manual_seed(8)

        def weight(rows: int, cols: int) -> Any:  # [out, in], drawn in place
            tensor = torch.empty(rows, cols, device=device, dtype=dtype)
            return tensor.normal_(0.0, 0.02, generator=generator)

        def ones(n: int) -> Any:
            return torch.ones(n, device=device, dtype=dtype)

        h, hd = shape.hidden, shape.head_dim
        self.embed = weight(shape.vocab, h)
        self.logits_w = self.embed if shape.tied else weight(shape.vocab, h)
        self.final_norm = ones(h)
        self.layers: list[dict[str, Any]] = []
        for _ in range(shape.layers):
            cache = (batch, shape.kv_heads, length, hd)
            self.layers.append(
                {
                    "norm1": ones(h),
                    "qkv": weight((shape.heads + 2 * shape.kv_heads) * hd, h),
                    "o": weight(h, shape.heads * hd),
                    "norm2": ones(h),
                    "gate_up": weight(2 * shape.mlp, h),
                    "down": weight(h, shape.mlp),
                    "k": torch.zeros(cache, device=device, dtype=dtype),
                    "v": torch.zeros(cache, device=device, dtype=dtype),
                }
            )
        # rotate-half rotary tables, [length, head_dim]
        inverse = ROPE_BASE ** -(torch.arange(0, hd, 2, device=device, dtype=torch.float32) / hd)
        angles = torch.outer(torch.arange(length, device=device, dtype=torch.float32), inverse)
        angles = torch.cat((angles, angles), dim=-1)
        self.cos, self.sin = angles.cos().to(dtype), angles.sin().to(dtype)
        self.before_attention: Callable[..., Any] = self._before_attention
        self.after_attention: Callable[..., Any] = self._after_attention
        self.logits: Callable[..., Any] = self._logits

    def prefill(self, context: int) -> None:
        """As if ``context`` tokens had been scored already: random keys and values."""
        for layer in self.layers:
            layer["k"][:, :, :context].normal_()
            layer["v"][:, :, :context].normal_()

    def compile(self) -> None:
        """Fuse the elementwise work around the matrix products; attention stays eager."""
        dynamo = self.torch._dynamo.config
        for knob in ("recompile_limit", "cache_size_limit"):  # every width compiles anew
            if hasattr(dynamo, knob):
                setattr(dynamo, knob, 1024)
        self.before_attention = self.torch.compile(self._before_attention, dynamic=False)
        self.after_attention = self.torch.compile(self._after_attention, dynamic=False)
        self.logits = self.torch.compile(self._logits, dynamic=False)

    def _norm(self, x: Any, weight: Any) -> Any:
        wide = x.float()
        wide = wide * self.torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + NORM_EPS)
        return wide.to(x.dtype) * weight

    @staticmethod
    def _rotate(x: Any, cos: Any, sin: Any, torch: Any) -> Any:
        half = x.shape[-1] // 2
        turned = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + turned * sin

    def _before_attention(self, h: Any, norm: Any, qkv: Any, cos: Any, sin: Any) -> Any:
        """RMSNorm, the fused QKV product and rotary positions: q, k, v as [B, heads, s, hd]."""
        shape, torch = self.shape, self.torch
        batch, s, _ = h.shape
        hd = shape.head_dim
        mixed = self.functional.linear(self._norm(h, norm), qkv)
        q, k, v = mixed.split((shape.heads * hd, shape.kv_heads * hd, shape.kv_heads * hd), dim=-1)
        q = q.view(batch, s, shape.heads, hd).transpose(1, 2)
        k = k.view(batch, s, shape.kv_heads, hd).transpose(1, 2)
        v = v.view(batch, s, shape.kv_heads, hd).transpose(1, 2)
        return self._rotate(q, cos, sin, torch), self._rotate(k, cos, sin, torch), v

    def _after_attention(
        self, h: Any, attended: Any, o: Any, norm: Any, gate_up: Any, down: Any
    ) -> Any:
        """The output product and the SwiGLU MLP, each added to the residual stream."""
        f = self.functional
        batch, s, _ = h.shape
        h = h + f.linear(attended.transpose(1, 2).reshape(batch, s, -1), o)
        gate, up = f.linear(self._norm(h, norm), gate_up).chunk(2, dim=-1)
        return h + f.linear(f.silu(gate) * up, down)

    def _logits(self, h: Any, norm: Any, weights: Any) -> Any:
        return self.functional.linear(self._norm(h, norm), weights)

    def forward(self, ids: Any, start: int) -> Any:
        """Score ``ids`` [batch, s] at positions start .. start + s - 1: logits [batch, s, V]."""
        torch = self.torch
        s = ids.shape[1]
        end = start + s
        mask = None
        if s > 1:  # every cached position, causal among the s new ones
            mask = self.causal_lower_right(s, end)
        cos, sin = self.cos[start:end], self.sin[start:end]
        h = self.functional.embedding(ids, self.embed)
        for layer in self.layers:
            q, k, v = self.before_attention(h, layer["norm1"], layer["qkv"], cos, sin)
            layer["k"][:, :, start:end] = k
            layer["v"][:, :, start:end] = v
            attended = torch.nn.functional.scaled_dot_product_attention(
                q, layer["k"][:, :, :end], layer["v"][:, :, :end], attn_mask=mask, enable_gqa=True
            )
            h = self.after_attention(
                h, attended, layer["o"], layer["norm2"], layer["gate_up"], layer["down"]
            )
        return self.logits(h, self.final_norm, self.logits_w)


def timed(torch: Any, fn: Callable[[], Any]) -> Timing:
    """The median and the fastest milliseconds of ``fn()`` (CUDA events), after warm-ups."""
    for _ in range(WARM_UPS):
        fn()
    times = []
    for _ in range(TIMED):
        begin = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        begin.record()
        fn()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    times.sort()
    return times[len(times) // 2], times[0]


def graph_of(torch: Any, fn: Callable[[], Any]) -> Any:
    """``fn`` captured as a CUDA graph (run twice on a side stream first, as capture needs)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph


def bytes_needed(run: Run) -> int:
    """The weights and the KV cache of a run's model, in bytes, and a GiB for the rest."""
    shape = SHAPES[run.model]
    length = run.context + max(run.widths)
    cache = 2 * shape.layers * run.batch * shape.kv_heads * length * shape.head_dim
    return (param_count(shape) + cache) * BF16_BYTES + 2**30


def fits(torch: Any, run: Run) -> bool:
    """Whether the run's model fits in the device's free memory (else a line says so)."""
    free, _ = torch.cuda.mem_get_info()
    need = bytes_needed(run)
    if need <= free:
        return True
    print(
        f"{run.model:13s} B={run.batch:<3d} L={run.context:<5d} skipped: it needs "
        f"{need / 1e9:.0f} GB, {free / 1e9:.0f} GB free",
        flush=True,
    )
    return False


def measure(torch: Any, run: Run, emit: Callable[[dict[str, Any]], None]) -> None:
    """Build the run's model once, emit a row for each width, and free the device again."""
    if not fits(torch, run):
        return
    try:
        time_widths(torch, run, emit)
    except torch.cuda.OutOfMemoryError as exc:
        print(f"{run.model:13s} B={run.batch:<3d} L={run.context:<5d} out of memory: {exc}")
    finally:
        if run.way == "own-compiled":
            torch._dynamo.reset()  # its compiled code holds no model after this
        gc.collect()
        torch.cuda.empty_cache()


def time_widths(torch: Any, run: Run, emit: Callable[[dict[str, Any]], None]) -> None:
    shape = SHAPES[run.model]
    model = Decoder(torch, shape, run.batch, run.context + max(run.widths))
    model.prefill(run.context)
    if run.way == "own-compiled":
        model.compile()
    for s in run.widths:
        started = time.monotonic()
        ids = torch.randint(0, shape.vocab, (run.batch, s), device="cuda")

        def step(ids: Any = ids) -> Any:
            return model.forward(ids, run.context)

        with torch.inference_mode():
            eager = timed(torch, step) if run.eager else None
            graph = graph_of(torch, step)
            replayed = timed(torch, graph.replay)
            del graph
        emit(make_row(run, s, eager, replayed, time.monotonic() - started))
        eager_text = f"eager {eager[0]:8.3f} ms  " if eager else ""
        print(
            f"{run.model:13s} B={run.batch:<3d} L={run.context:<5d} s={s:<3d} {run.way:12s} "
            f"{eager_text}graph {replayed[0]:8.3f} ms",
            flush=True,
        )


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/passes.py",
        description="Time Llama-shaped decoder passes on a CUDA device; write the figures as "
        "witness/cost/h200/ holds them.",
    )
    parser.add_argument("outfile", type=Path, help="the JSON file to write")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--grid", action="store_true", help="as passes-grid.json")
    which.add_argument("--compiled", action="store_true", help="as passes-compiled.json")
    which.add_argument("--quick", action="store_true", help="8B and 1B, b1, ctx 512, s 1 and 5")
    parser.add_argument("--models", nargs="+", choices=sorted(SHAPES), help="only these models")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    flags = {"grid": args.grid, "compiled": args.compiled, "quick": args.quick}
    mode = next((name for name, given in flags.items() if given), "main")
    runs = plan(mode, args.models)
    torch = load_torch()
    torch.manual_seed(0)
    began = time.monotonic()
    env = environment(torch)
    print(
        f"{env['gpu']} ({env['sms']} SMs, {env['memory_gb']:.0f} GB), torch {env['torch']}: "
        f"{mode}, {len(points(runs))} rows",
        flush=True,
    )
    rows: list[dict[str, Any]] = []

    def emit(row: dict[str, Any]) -> None:
        rows.append(row)
        write(args.outfile, document(env, rows, time.monotonic() - began))

    for run in runs:
        measure(torch, run, emit)
    write(args.outfile, document(env, rows, time.monotonic() - began))
    print(f"{len(rows)} rows in {time.monotonic() - began:.0f} s -> {args.outfile}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
