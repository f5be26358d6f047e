"""Speculation against batch size: where verification stops being free (the sweep's batch axis).

Every number is the formula at the station's α with each batch priced as the state prices it
(`witness.costing`): the speedup at the current k, the best k for each batch and its speedup,
and the batch from which the current k, and then every k, stops paying. With machine custom a
pass costs the same at any batch, and the panel says so instead of drawing a flat line.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log2

from app.views import fmt
from witness import Settings
from witness.costing import costing, price, priced_optimum, scored_per_sequence
from witness.settings import field_bounds, max_depth
from witness.theory import expected_speedup, speculation_pays

BATCH_MAX = int(field_bounds("batch")["max"])
# The rows of the table and the chart's points: powers of two up to the batch's range.
BATCHES = tuple(2**i for i in range(BATCH_MAX.bit_length()) if 2**i <= BATCH_MAX)
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
class Point:
    x: float
    y: float
    label: str


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


def _at(s: Settings, batch: int) -> Settings:
    return s.model_copy(update={"batch": batch})


def speedup_at(s: Settings, alpha: float, batch: int, k: int | None = None) -> float:
    """The formula's speedup at ``batch`` and draft length ``k`` (the settings' own)."""
    depth = s.k if k is None else k
    return float(expected_speedup(alpha, depth, price(_at(s, batch), depth)))


def stops_paying(s: Settings, alpha: float) -> tuple[int | None, int | None]:
    """The first batch at which the current k no longer pays, and at which no k pays.

    Scanned over every batch of the range (the price grows with the batch once the
    verifying pass is compute-bound, so each is a threshold); None when it pays throughout.
    """
    here = none = None
    for b in range(1, BATCH_MAX + 1):
        if here is None and speedup_at(s, alpha, b) <= 1.0:
            here = b
        if none is None and not speculation_pays(alpha, price(_at(s, b), 1)):
            none = b
        if here is not None and none is not None:
            break
    return here, none


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
    k_max = max_depth(s.tree_width)
    rows, at_k, best = [], [], []
    values: list[float] = []
    for b in BATCHES:
        sb = _at(s, b)
        cb = costing(sb)
        optimum = priced_optimum(sb, alpha, k_max)
        here = speedup_at(s, alpha, b)
        top = float(expected_speedup(alpha, optimum.k, price(sb, optimum.k)))
        verify = cb.seconds(cost.pair.target, scored_per_sequence(s))
        rows.append(
            BatchRow(
                batch=b,
                plain_ms=f"{cb.plain_seconds * 1e3:.2f}",
                verify_ms=f"{verify * 1e3:.2f}",
                price=f"{price(sb):.3f}",
                speedup=fmt.speedup(here),
                best_k=optimum.k,
                best_speedup=fmt.speedup(top),
                fits=cb.fits,
                current=b == s.batch,
            )
        )
        values += [here, top]
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
        summary=_summary(s, alpha),
        rows=tuple(rows),
        at_k=tuple(at_k),
        best=tuple(best),
        at_k_path=_path(at_k),
        best_path=_path(best),
        one_y=y(1.0),
        current_x=x_any(s.batch),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        context_note=_context_note(s, alpha),
    )


def _summary(s: Settings, alpha: float) -> str:
    cost = costing(s)
    here, none = stops_paying(s, alpha)
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
        there = costing(_at(s, here))
        why = (
            "scoring the drafts of every sequence makes the verifying pass compute-bound, and "
            "it costs more than the tokens it saves"
            if there.verify(scored_per_sequence(s)) > 1.0 + 1e-9
            else "the draft's own KV reads make each draft pass a larger share of a target pass"
        )
        before, after = speedup_at(s, alpha, here - 1), speedup_at(s, alpha, here)
        at_k = (
            f"k = {s.k} stops paying from batch {here} ({fmt.speedup(before)} at {here - 1}, "
            f"{fmt.speedup(after)} at {here}): past there {why}."
        )
    if none is None:
        any_k = "Some k pays at every batch in the range (the best k per batch is in the table)."
    elif none == 1:
        any_k = "No k pays at any batch: α is under even k = 1's price."
    else:
        any_k = (
            f"From batch {none} no k pays (α = {alpha:.2f} ≤ k = 1's price per draft, "
            f"{price(_at(s, none), 1):.2f}): a serving system switches speculation off there."
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


def _path(points: list[Point]) -> str:
    return " ".join(f"{'M' if i == 0 else 'L'} {p.x} {p.y}" for i, p in enumerate(points))
