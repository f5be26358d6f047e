"""Speculation against batch size: where verification stops being free (the sweep's batch axis).

The numbers are `witness.cost.batching`'s table, at the station's α: the speedup at the current k,
the best k for each batch and its speedup, and the batch from which the current k, and then
every k, stops paying. With machine custom a pass costs the same at any batch, and the panel
says so instead of drawing a flat line.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log2

from app.views import fmt
from app.views.charts import Point, polyline
from witness import Settings
from witness.cost.batching import (
    BATCH_MAX,
    BATCHES,
    BatchTable,
    at_batch,
    batch_table,
    speedup_at,
)
from witness.cost.costing import costing, price, scored_per_sequence

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 56.0, 620.0, 24.0, 210.0


@dataclass(frozen=True, slots=True)
class BatchRow:
    batch: int
    plain_ms: str  # one plain decoding step over the batch
    verify_ms: str  # the verifying pass at the current k
    price: str  # the price per draft at the current k
    speedup: str  # the formula at the current k
    best_k: int
    best_speedup: str
    fits: bool
    current: bool


@dataclass(frozen=True, slots=True)
class BatchView:
    """The batch axis: a chart and a table, or only the sentence saying custom has none."""

    summary: str
    rows: tuple[BatchRow, ...] = ()
    at_k: tuple[Point, ...] = ()
    best: tuple[Point, ...] = ()
    at_k_path: str = ""
    best_path: str = ""
    one_y: float = 0.0  # the 1× line
    current_x: float = 0.0
    y_ticks: tuple[tuple[float, str], ...] = ()
    x_ticks: tuple[tuple[float, str], ...] = ()
    context_note: str = ""
    width: int = WIDTH
    height: int = HEIGHT
    left: float = LEFT
    right: float = RIGHT
    top: float = TOP
    bottom: float = BOTTOM


def batch_view(s: Settings, alpha: float) -> BatchView:
    if not s.verify:
        return BatchView(
            "Target verification is off: no pass checks the draft, so there is no verifying "
            "pass to price against the batch."
        )
    cost = costing(s)
    if cost.machine is None or cost.pair is None:
        return BatchView(
            "With machine custom every target pass costs one whatever it scores, so the batch "
            "changes nothing: choose a machine under “Cost of a pass” to see speculation "
            "against batch size."
        )
    table = batch_table(s, alpha)
    rows, at_k, best = [], [], []
    values: list[float] = []
    for pt in table.points:
        rows.append(
            BatchRow(
                batch=pt.batch,
                plain_ms=f"{pt.plain_seconds * 1e3:.2f}",
                verify_ms=f"{pt.verify_seconds * 1e3:.2f}",
                price=f"{pt.price:.3f}",
                speedup=fmt.speedup(pt.speedup),
                best_k=pt.best_k,
                best_speedup=fmt.speedup(pt.best_speedup),
                fits=pt.fits,
                current=pt.batch == s.batch,
            )
        )
        values += [pt.speedup, pt.best_speedup]
    ceiling = max(1.5, max(values) * 1.1)

    def x(b: int) -> float:
        return round(LEFT + (RIGHT - LEFT) * (b.bit_length() - 1) / (len(BATCHES) - 1), 2)

    def x_any(b: int) -> float:  # the current batch need not be a power of two
        return round(LEFT + (RIGHT - LEFT) * log2(b) / log2(BATCHES[-1]), 2)

    def y(v: float) -> float:
        return round(BOTTOM - (BOTTOM - TOP) * min(v, ceiling) / ceiling, 2)

    for row, (here, top) in zip(rows, zip(values[::2], values[1::2], strict=True), strict=True):
        at_k.append(Point(x(row.batch), y(here), f"batch {row.batch}: k = {s.k} {row.speedup}"))
        best.append(
            Point(
                x(row.batch), y(top), f"batch {row.batch}: best k = {row.best_k} {row.best_speedup}"
            )
        )
    step = 0.5 if ceiling <= 4 else 1.0
    y_ticks = tuple((y(i * step), f"{i * step:g}×") for i in range(int(ceiling // step) + 1))
    x_ticks = tuple((x(b), str(b)) for b in BATCHES)
    return BatchView(
        summary=_summary(s, alpha, table),
        rows=tuple(rows),
        at_k=tuple(at_k),
        best=tuple(best),
        at_k_path=polyline(at_k),
        best_path=polyline(best),
        one_y=y(1.0),
        current_x=x_any(s.batch),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        context_note=_context_note(s, alpha),
    )


def _summary(s: Settings, alpha: float, table: BatchTable) -> str:
    cost = costing(s)
    here, none = table.stops_paying, table.none_pays
    now = speedup_at(s, alpha, s.batch)
    first = (
        f"By the formula at the station's α = {alpha:.3f} on {cost.machine_label}: at batch "
        f"{s.batch}, k = {s.k} gives {fmt.speedup(now)}."
    )
    if here is None:
        at_k = f"k = {s.k} pays at every batch up to {BATCH_MAX}."
    elif here == 1:
        at_k = f"k = {s.k} does not pay even at batch 1."
    else:
        there = costing(at_batch(s, here))
        why = (
            "scoring the drafts of every sequence makes the verifying pass compute-bound, and "
            "it costs more than the tokens it saves"
            if there.verify(scored_per_sequence(s)) > 1.0 + 1e-9
            else "the draft's own KV reads make each draft pass a larger share of a target pass"
        )
        before, after = speedup_at(s, alpha, here - 1), speedup_at(s, alpha, here)
        at_k = (
            f"k = {s.k} stops paying from batch {here} ({before:.3f}× at {here - 1}, "
            f"{after:.3f}× at {here}): past there {why}."
        )
    if none is None:
        any_k = "Some k pays at every batch in the range (the best k per batch is in the table)."
    elif none == 1:
        any_k = "No k pays at any batch: α is at or under even k = 1's price."
    else:
        any_k = (
            f"From batch {none} no k pays (α = {alpha:.3f} ≤ k = 1's price per draft, "
            f"{price(at_batch(s, none), 1):.3f}): a serving system switches speculation off "
            "there."
        )
    return f"{first} {at_k} {any_k}"


def _context_note(s: Settings, alpha: float) -> str:
    """What the context does to the win at this batch, from the numbers either way."""
    if s.context == 0:
        return (
            "No context is read here. With a long context every pass also reads the batch's KV "
            "cache, which keeps passes memory-bound to larger batches: set the context to see "
            "what it does to the win."
        )
    bare = s.model_copy(update={"context": 0})
    with_kv, without = speedup_at(s, alpha, s.batch), speedup_at(bare, alpha, s.batch)
    plain_kv, plain_bare = costing(s).plain_seconds, costing(bare).plain_seconds
    if abs(with_kv - without) < 0.005:
        effect = "changes the speedup by less than 0.01×"
    elif with_kv > without:
        effect = (
            f"raises the speedup from {fmt.speedup(without)} to {fmt.speedup(with_kv)}: reading "
            "the KV cache dominates every pass, so scoring k + 1 tokens stays about as cheap "
            "as scoring one"
        )
    else:
        effect = (
            f"lowers the speedup from {fmt.speedup(without)} to {fmt.speedup(with_kv)}: the "
            "draft reads its own KV cache too, so a draft pass costs a larger share of a "
            "target pass"
        )
    return (
        f"With {s.context} tokens of context at batch {s.batch}, a plain step takes "
        f"{plain_kv * 1e3:.2f} ms instead of {plain_bare * 1e3:.2f} ms, and the context "
        f"{effect}."
    )
