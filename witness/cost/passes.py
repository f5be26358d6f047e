"""Decoder passes timed on a real accelerator, and a cost model fitted to them.

The roofline (`witness.cost.roofline`) is a floor: it charges a pass only for the bytes it
streams and the arithmetic it does. A real server also pays a fixed time per layer (kernel
launches and the work between them), reads a batch's KV cache more slowly than its weights,
and with more than one new token per sequence runs a slower attention kernel. The figures in
`witness/cost/h200/` (an NVIDIA H200, 2026-12-04; their README gives the machine, software
and method) time Llama-shaped passes three ways, the serving *stacks*:

- ``graphs``: captured once as a CUDA graph and replayed, what serving engines do;
- ``compiled``: torch.compile fusing each layer's elementwise work, then a CUDA graph;
- ``eager``: op by op from Python.

A pass of a model with N parameters (W = 2N bytes in BF16) and L layers, scoring s new tokens
of each of b sequences after ``context`` cached ones (KV = b · context · bytes per token), is
fitted as

    T = (W + KV) / bandwidth + L · per_layer + 2N · b · s / flops + [s > 1] · KV / attention

by least squares on relative error, no term faster than the datasheet allows. The CUDA-graph
run covers batch 1 to 64, context 512 to 8192 and s up to 17, and fits all four terms; the
compiled run (batch 1 only) fits its own bandwidth and per-layer cost and keeps the graphs'
arithmetic and attention. An eager pass launches every kernel from Python while the GPU works
through the ones before: it takes max(T_graphs, L · launch), one launch time per layer fitted.
The fit's error at every measured point is in docs/QUALITY.md ("Machine prices").

What the station uses (`PassTimes.seconds`): the measurement itself at a measured point; the
fit elsewhere, scaled by the measured/fitted ratio interpolated between the measured points
(linear in log batch, log context and log s, held at the edge beyond them), so the price
meets every measurement and follows the fit's shape between and beyond them. A model never
measured on a stack (the T5 pair) gets the fit alone. `provenance` says which.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import lsq_linear, minimize_scalar

FloatArray = NDArray[np.float64]

FIGURES = Path(__file__).with_name("h200")
MEASURED_ON = "2026-12-04"  # the day the figures were timed (witness/cost/h200/README.md)
Stack = Literal["graphs", "compiled", "eager"]
STACKS: dict[str, str] = {
    "graphs": "CUDA graphs",
    "compiled": "torch.compile + CUDA graphs",
    "eager": "eager PyTorch",
}
Provenance = Literal["measured", "between", "beyond", "fit"]
TERMS = ("stream", "layer", "flop", "attention")
# Which of the four terms each stack's measurements can pin down (see the module).
FREE: dict[str, tuple[str, ...]] = {
    "graphs": TERMS,
    "compiled": ("stream", "layer"),
}


@dataclass(frozen=True, slots=True)
class Shape:
    """What a pass's cost depends on: the model's size, depth and KV bytes per token."""

    key: str
    params: float
    layers: int
    kv_per_token: float


@dataclass(frozen=True, slots=True)
class Point:
    model: str
    stack: str
    batch: int
    context: int
    s: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Fit:
    """One stack's fitted model: seconds for each unit of each term."""

    stack: str
    per_byte: float  # 1 / bandwidth, weights and KV streamed once
    per_layer: float  # the fixed time a layer costs whatever it scores
    per_flop: float  # 1 / the arithmetic rate the matrix products reach
    per_attention_byte: float  # the KV read again by the kernel a multi-token pass runs
    # Python's time to launch one layer's kernels, which the GPU's work overlaps: an eager
    # pass takes the longer of the two (0 for a captured graph, which launches nothing).
    launch_per_layer: float = 0.0

    @property
    def bandwidth(self) -> float:
        return 1.0 / self.per_byte

    def seconds(self, shape: Shape, batch: ArrayLike, context: float, s: ArrayLike) -> FloatArray:
        b, n = np.asarray(batch, dtype=np.float64), np.asarray(s, dtype=np.float64)
        kv = b * context * shape.kv_per_token
        out: FloatArray = (
            (2.0 * shape.params + kv) * self.per_byte
            + shape.layers * self.per_layer
            + 2.0 * shape.params * b * n * self.per_flop
            + np.where(n > 1, kv, 0.0) * self.per_attention_byte
        )
        if self.launch_per_layer:
            out = np.maximum(out, shape.layers * self.launch_per_layer)
        return out

    def without(self, term: str) -> Fit:
        """The same fit with one term dropped (what a test's teeth twin prices with)."""
        values = asdict(self)
        values[_ATTR[term]] = 0.0
        return Fit(**values)


def _features(shape: Shape, batch: int, context: int, s: int) -> tuple[float, ...]:
    """What each term of `Fit.seconds` multiplies at one pass (a fit of that term alone, at
    one second a unit), so the fit and the formula it prices with are one formula."""
    return tuple(
        float(
            Fit("unit", **{_ATTR[t]: float(t == term) for t in TERMS}).seconds(
                shape, batch, context, s
            )
        )
        for term in TERMS
    )


def fit_stack(
    stack: str,
    points: Iterable[Point],
    shapes: Mapping[str, Shape],
    *,
    peak: Fit,
    fixed: Fit | None = None,
    free: tuple[str, ...] | None = None,
) -> Fit:
    """Least squares on relative error over ``points``, no term faster than ``peak`` allows
    (the datasheet's bandwidth and arithmetic: a fit that streams faster than the memory can
    is trading one term for another) and none below 0; the terms not in ``free`` are taken
    from ``fixed`` (the CUDA-graph fit)."""
    free = FREE[stack] if free is None else free
    pts = [p for p in points if p.stack == stack]
    x = np.array([_features(shapes[p.model], p.batch, p.context, p.s) for p in pts])
    y = np.array([p.seconds for p in pts])
    known = np.array([0.0 if t in free else getattr(fixed, _ATTR[t]) for t in TERMS])
    cols = [i for i, t in enumerate(TERMS) if t in free]
    floor = np.array([getattr(peak, _ATTR[t]) for t in TERMS])[cols]
    # Scaled to about 1 per column (seconds a term costs at its largest) for the solver.
    scale = np.abs(x[:, cols]).max(axis=0)
    a = x[:, cols] * scale.max() / scale / y[:, None]
    lower = floor * scale / scale.max()
    found = lsq_linear(a, (y - x @ known) / y, bounds=(lower, np.inf), method="bvls")
    out = known.copy()
    out[cols] = found.x * scale.max() / scale
    return Fit(stack, *(float(v) for v in out))


def fit_launch(
    stack: str, points: Iterable[Point], shapes: Mapping[str, Shape], *, gpu: Fit
) -> Fit:
    """An op-by-op stack: the GPU's own work as ``gpu`` times it, overlapped by Python's
    launches, one fitted time per layer (least squares on relative error)."""
    pts = [p for p in points if p.stack == stack]
    base = np.array([float(gpu.seconds(shapes[p.model], p.batch, p.context, p.s)) for p in pts])
    layers = np.array([shapes[p.model].layers for p in pts], dtype=np.float64)
    y = np.array([p.seconds for p in pts])

    def loss(per_layer: float) -> float:
        return float(np.mean((np.maximum(base, layers * per_layer) / y - 1.0) ** 2))

    # A launch takes well under 10 ms a layer; the loss is one-dimensional and unimodal there.
    found = minimize_scalar(loss, bounds=(0.0, 0.01), method="bounded", options={"xatol": 1e-9})
    return replace(gpu, stack=stack, launch_per_layer=float(found.x))


_ATTR = {
    "launch": "launch_per_layer",
    "stream": "per_byte",
    "layer": "per_layer",
    "flop": "per_flop",
    "attention": "per_attention_byte",
}


def load_points(shapes: Mapping[str, Shape], folder: Path = FIGURES) -> tuple[Point, ...]:
    """Every committed measurement, as seconds, each stack from one run where it can be:

    - graphs: ``passes-grid.json`` (one run over the whole grid), and the 70B at batch 1 from
      ``passes-compiled.json``, which the grid leaves out;
    - compiled: ``passes-compiled.json``'s ``own-compiled`` rows;
    - eager: ``passes.json``'s ``own`` rows and the 70B's in ``passes-compiled.json``, the
      fastest of each point's timed passes (Python's stalls only ever add time to an
      op-by-op pass, and its median carries them).

    Along each row of s (one model, stack, batch and context) the times are made
    non-decreasing (`_nondecreasing`): a pass scoring more tokens never costs less, and the
    few that read lower are noise within the runs' 5%."""
    grid = _rows(folder / "passes-grid.json")
    compiled = _rows(folder / "passes-compiled.json")
    single = _rows(folder / "passes.json")
    raw: list[Point] = []
    for r in grid:
        if r["way"] == "own" and r["graph_ms"] is not None:
            raw.append(_point(r, "graphs", r["graph_ms"]))
    grid_keys = {(p.model, p.batch, p.context) for p in raw}
    for r in compiled:
        if r["way"] == "own-compiled":
            raw.append(_point(r, "compiled", r["graph_ms"]))
        elif r["way"] == "own" and (r["model"], r["batch"], r["context"]) not in grid_keys:
            raw.append(_point(r, "graphs", r["graph_ms"]))
    for r in [*single, *compiled]:
        if r["way"] == "own" and r.get("eager_min_ms") is not None:
            raw.append(_point(r, "eager", r["eager_min_ms"]))
    known = [p for p in raw if p.model in shapes]
    return tuple(_monotone_in_s(known))


def _rows(path: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = json.loads(path.read_text())["rows"]
    return rows


def _point(r: Mapping[str, object], stack: str, ms: object) -> Point:
    assert isinstance(ms, float | int)
    return Point(
        str(r["model"]),
        stack,
        int(str(r["batch"])),
        int(str(r["context"])),
        int(str(r["s"])),
        float(ms) / 1e3,
    )


def _monotone_in_s(points: list[Point]) -> list[Point]:
    rows: dict[tuple[str, str, int, int], list[Point]] = {}
    for p in points:
        rows.setdefault((p.model, p.stack, p.batch, p.context), []).append(p)
    out: list[Point] = []
    for row in rows.values():
        row.sort(key=lambda p: p.s)
        times = _nondecreasing([p.seconds for p in row])
        out += [
            Point(p.model, p.stack, p.batch, p.context, p.s, t)
            for p, t in zip(row, times, strict=True)
        ]
    return out


def _nondecreasing(values: list[float]) -> list[float]:
    """The least-squares non-decreasing sequence (pool adjacent violators): a reading lower
    than the one before it is averaged with it, so one slow outlier is not carried forward.

    >>> _nondecreasing([1.0, 3.0, 2.0, 4.0])
    [1.0, 2.5, 2.5, 4.0]
    """
    blocks: list[list[float]] = []  # [mean, count]
    for v in values:
        blocks.append([v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            (m1, n1), (m2, n2) = blocks.pop(-2), blocks.pop()
            blocks.append([(m1 * n1 + m2 * n2) / (n1 + n2), n1 + n2])
    return [m for m, n in blocks for _ in range(int(n))]


# Per model and stack: context → batch → (log2 s, log ratio measured/fitted), sorted.
Residuals = dict[int, dict[int, tuple[FloatArray, FloatArray]]]


@dataclass(frozen=True)
class PassTimes:
    """The committed measurements, each stack's fit, and the price between them."""

    shapes: Mapping[str, Shape]
    points: tuple[Point, ...]
    fits: Mapping[str, Fit]
    residuals: Mapping[tuple[str, str], Residuals]
    _index: dict[tuple[str, str], frozenset[tuple[int, int, int]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def fitted(
        self, model: str, stack: str, batch: ArrayLike, context: int, s: ArrayLike
    ) -> FloatArray:
        return self.fits[stack].seconds(self.shapes[model], batch, context, s)

    def seconds(
        self, model: str, stack: str, batch: ArrayLike, context: int, s: ArrayLike
    ) -> FloatArray:
        """Seconds of one pass (arrays of batch and s broadcast): the measurement where
        measured, the fit scaled by the interpolated measured/fitted ratio elsewhere."""
        fitted = self.fitted(model, stack, batch, context, s)
        rows = self.residuals.get((model, stack))
        if not rows:
            return fitted
        out: FloatArray = fitted * np.exp(_interpolate(rows, batch, context, s))
        return out

    def provenance(self, model: str, stack: str, batch: int, context: int, s: int) -> Provenance:
        """Where a price comes from: a measured point, between measured points (inside the
        ranges of batch, context and s that were measured), beyond them, or the fit alone."""
        timed = self._timed().get((model, stack))
        if timed is None:
            return "fit"
        if (batch, context, s) in timed:
            return "measured"
        (b0, b1), (c0, c1), s1 = self.span(model, stack)
        inside = b0 <= batch <= b1 and c0 <= context <= c1 and min(k[2] for k in timed) <= s <= s1
        return "between" if inside else "beyond"

    def span(self, model: str, stack: str) -> tuple[tuple[int, int], tuple[int, int], int]:
        """The batches, contexts (each lowest, highest) and the most tokens a pass timed."""
        timed = self._timed()[(model, stack)]
        b, c = [k[0] for k in timed], [k[1] for k in timed]
        return (min(b), max(b)), (min(c), max(c)), max(k[2] for k in timed)

    def _timed(self) -> dict[tuple[str, str], frozenset[tuple[int, int, int]]]:
        """Each model and stack's timed (batch, context, s), indexed once (a page asks at
        every price it quotes)."""
        if not self._index:
            by: dict[tuple[str, str], set[tuple[int, int, int]]] = {}
            for p in self.points:
                by.setdefault((p.model, p.stack), set()).add((p.batch, p.context, p.s))
            self._index.update({key: frozenset(v) for key, v in by.items()})
        return self._index

    def errors(self, stack: str) -> FloatArray:
        """The fit's relative error (fitted / measured − 1) at each of the stack's points."""
        mine = [p for p in self.points if p.stack == stack]
        fitted = np.array([self.fitted(p.model, stack, p.batch, p.context, p.s) for p in mine])
        out: FloatArray = fitted / np.array([p.seconds for p in mine]) - 1.0
        return out


def _interpolate(rows: Residuals, batch: ArrayLike, context: int, s: ArrayLike) -> FloatArray:
    """The log ratio at (batch, context, s): linear in log s along each measured row, then
    in log batch across a context's rows, then in log context; held at the edges."""
    contexts = sorted(rows)
    per_context = [_across_batch(rows[c], batch, s) for c in contexts]
    return _between(np.log2(np.maximum(contexts, 1)), per_context, np.log2(max(context, 1)))


def _across_batch(
    rows: Mapping[int, tuple[FloatArray, FloatArray]], batch: ArrayLike, s: ArrayLike
) -> FloatArray:
    log_s = np.log2(np.maximum(np.asarray(s, dtype=np.float64), 1.0))
    batches = sorted(rows)
    per_batch = [np.interp(log_s, *rows[b]) for b in batches]
    return _between(np.log2(batches), per_batch, np.log2(np.asarray(batch, dtype=np.float64)))


def _between(at: ArrayLike, values: list[FloatArray], x: ArrayLike) -> FloatArray:
    """Linear interpolation over the first axis of ``values`` (each broadcast with ``x``)."""
    knots = np.asarray(at, dtype=np.float64)
    if len(knots) == 1:
        return np.asarray(values[0], dtype=np.float64) + 0.0 * np.asarray(x, dtype=np.float64)
    xs = np.clip(np.asarray(x, dtype=np.float64), knots[0], knots[-1])
    i = np.clip(np.searchsorted(knots, xs, side="right") - 1, 0, len(knots) - 2)
    t = (xs - knots[i]) / (knots[i + 1] - knots[i])
    *parts, xs = np.broadcast_arrays(*values, xs)
    vals = np.stack(parts)
    i = np.broadcast_to(i, xs.shape)
    t = np.broadcast_to(t, xs.shape)
    lo = np.take_along_axis(vals, i[None], 0)[0]
    hi = np.take_along_axis(vals, i[None] + 1, 0)[0]
    out: FloatArray = lo * (1.0 - t) + hi * t
    return out


def build(
    shapes: Mapping[str, Shape], *, bandwidth: float, flops: float, folder: Path = FIGURES
) -> PassTimes:
    """Load the figures, fit each stack under the datasheet's ``bandwidth`` and ``flops``,
    and keep each measured point's ratio to its fit."""
    points = load_points(shapes, folder)
    peak = Fit("datasheet", 1.0 / bandwidth, 0.0, 1.0 / flops, 1.0 / bandwidth)
    graphs = fit_stack("graphs", points, shapes, peak=peak)
    fits = {
        "graphs": graphs,
        "compiled": fit_stack("compiled", points, shapes, peak=peak, fixed=graphs),
        "eager": fit_launch("eager", points, shapes, gpu=graphs),
    }
    residuals: dict[tuple[str, str], Residuals] = {}
    for p in points:
        fitted = float(fits[p.stack].seconds(shapes[p.model], p.batch, p.context, p.s))
        row = residuals.setdefault((p.model, p.stack), {}).setdefault(p.context, {})
        ls, lr = row.get(p.batch, (np.empty(0), np.empty(0)))
        row[p.batch] = (np.append(ls, np.log2(p.s)), np.append(lr, np.log(p.seconds / fitted)))
    for rows in residuals.values():
        for by_batch in rows.values():
            for b, (ls, lr) in by_batch.items():
                order = np.argsort(ls)
                by_batch[b] = (ls[order], lr[order])
    return PassTimes(shapes, points, fits, residuals)


@cache
def figures_env(folder: Path = FIGURES) -> dict[str, object]:
    """The measuring machine and software, as the run recorded them."""
    env: dict[str, object] = json.loads((folder / "passes-grid.json").read_text())["env"]
    return env


def fit_report(times: PassTimes) -> str:
    """docs/h200-fit.md: each stack's fitted terms and its error at every measured point."""
    out = [
        "# The H200 pass model against every timed pass",
        "",
        "Generated by `python -m app.contract.generate` from `witness/cost/h200/` and",
        "`witness/cost/passes.py`: the fit alone, before it is scaled to meet the timings (the",
        "station prices a timed point at its timing). Error = fitted / timed − 1.",
        "",
    ]
    for stack, fit in times.fits.items():
        mine = [p for p in times.points if p.stack == stack]
        errors = times.errors(stack)
        terms = [
            f"bandwidth {fit.bandwidth / 1e12:.2f} TB/s",
            f"{fit.per_layer * 1e3:.4f} ms a layer",
            f"{1 / fit.per_flop / 1e12:.0f} TFLOP/s",
            "a multi-token pass re-reads the KV cache at "
            f"{1 / fit.per_attention_byte / 1e12:.2f} TB/s",
        ]
        if fit.launch_per_layer:
            terms.append(f"Python launches {fit.launch_per_layer * 1e3:.4f} ms a layer, overlapped")
        out += [
            f"## {stack}: {STACKS[stack]}",
            "",
            f"{len(mine)} timed passes; fitted: {'; '.join(terms)}. Largest error "
            f"{np.abs(errors).max():.1%}, median {np.median(np.abs(errors)):.1%}.",
            "",
            "| model | batch | context | s | timed (ms) | fitted (ms) | error |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for p, e in zip(mine, errors, strict=True):
            fitted = p.seconds * (1.0 + e)
            out.append(
                f"| {p.model} | {p.batch} | {p.context} | {p.s} | {p.seconds * 1e3:.2f} "
                f"| {fitted * 1e3:.2f} | {e:+.1%} |"
            )
        out.append("")
    return "\n".join(out)
