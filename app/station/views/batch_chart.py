"""Speculation against batch size: where verification stops being free (the sweep's batch axis).

The numbers are `witness.cost.batching`'s table, at the station's α: the speedup at the current k,
the best k for each batch and its speedup, and the batch from which the current k, and then
every k, stops paying. With machine custom a pass costs the same at any batch, and the panel
says so instead of drawing a flat line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import log2

from app.station.views import fmt
from app.station.views.charts import Point, polyline
from app.words import Sentence, say
from witness import Settings
from witness.cost.batching import (
    BATCH_MAX,
    BATCHES,
    BatchTable,
    at_batch,
    batch_table,
    speedup_at,
)
from witness.cost.costing import costing, passes, price, scored_per_sequence
from witness.cost.passes import STACKS

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
class PassCurves:
    """The verifying pass at the current k, in plain steps, against batch: as a machine's
    passes measured it (one serving stack) and as its roofline prices it."""

    title: str
    stack: str  # the measured stack's label
    measured: tuple[Point, ...]
    roofline: tuple[Point, ...]
    measured_path: str
    roofline_path: str
    y_ticks: tuple[tuple[float, str], ...]
    x_ticks: tuple[tuple[float, str], ...]
    rows: tuple[tuple[int, str, str], ...]  # batch, measured v, roofline v
    note: str


@dataclass(frozen=True, slots=True)
class BatchView:
    """The batch axis: a chart and a table, or only the sentence saying custom has none."""

    summary: str
    k: int = 0  # the draft length the table's "speedup at k" column is at
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
    passes: PassCurves | None = None  # a measured machine: its v(k + 1) beside the roofline's
    floor: str = ""  # where the roofline prices the passes: it is a floor, and how far
    width: int = WIDTH
    height: int = HEIGHT
    left: float = LEFT
    right: float = RIGHT
    top: float = TOP
    bottom: float = BOTTOM


def batch_view(s: Settings, alpha: float) -> BatchView:
    if not s.verify:
        return BatchView(say("batch.none.unverified"))
    cost = costing(s)
    if cost.machine is None or cost.pair is None:
        return BatchView(say("batch.none.custom"))
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
        k=s.k,
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
        passes=_pass_curves(s, x),
        floor=_floor(s),
    )


# The state the floor quotes: the 1B/8B pair on the H200 at batch 1, context 512, k = 4.
FLOOR = Settings(machine="h200", pair="llama-8b-1b", context=512, k=4)


def _floor(s: Settings) -> str:
    """Where the roofline prices the passes: it is a floor, and what the timed H200 shows."""
    if costing(s).measured:
        return ""
    roofline = {"stack": "roofline"}
    timed, roof = costing(FLOOR), costing(FLOOR.model_copy(update=roofline))
    timed_32 = costing(FLOOR.model_copy(update={"batch": 32}))
    roof_32 = costing(FLOOR.model_copy(update={"batch": 32, **roofline}))
    return say(
        "batch.floor.line",
        per_layer=f"{passes().fits['graphs'].per_layer * 1e3:.2f}",
        c_timed=f"{timed.c:.2f}",
        c_roof=f"{roof.c:.2f}",
        v_one=f"{timed.verify(5):.2f}",
        v_many=f"{timed_32.verify(5):.2f}",
        r_one=f"{roof.verify(5):.2f}",
        r_many=f"{roof_32.verify(5):.2f}",
    )


def _pass_curves(s: Settings, x: Callable[[int], float]) -> PassCurves | None:
    """v(k + 1) at every row's batch, measured and by the roofline, where the machine's passes
    were measured (with stack roofline, the CUDA-graph measurements stand beside it)."""
    cost = costing(s)
    if cost.machine is None or not cost.machine.measured:
        return None
    stack = s.stack if s.stack != "roofline" else "graphs"
    scored = scored_per_sequence(s)
    measured = [costing(at_batch(s, b).model_copy(update={"stack": stack})) for b in BATCHES]
    roofline = [costing(at_batch(s, b).model_copy(update={"stack": "roofline"})) for b in BATCHES]
    vm = [c.verify(scored) for c in measured]
    vr = [c.verify(scored) for c in roofline]
    ceiling = max(2.0, max(vm + vr) * 1.1)

    def y(v: float) -> float:
        return round(BOTTOM - (BOTTOM - TOP) * min(v, ceiling) / ceiling, 2)

    def points(vs: list[float], how: str) -> tuple[Point, ...]:
        return tuple(
            Point(x(b), y(v), f"batch {b}: {v:.2f} plain steps ({how})")
            for b, v in zip(BATCHES, vs, strict=True)
        )

    label = STACKS[stack]
    pm, pr = points(vm, f"measured, {label}"), points(vr, "roofline")
    step = 0.5 if ceiling <= 4 else 1.0
    return PassCurves(
        title=say("batch.passes.title", scored=scored, machine=cost.machine.label, stack=label),
        stack=label,
        measured=pm,
        roofline=pr,
        measured_path=polyline(pm),
        roofline_path=polyline(pr),
        y_ticks=tuple((y(i * step), f"{i * step:g}") for i in range(int(ceiling // step) + 1)),
        x_ticks=tuple((x(b), str(b)) for b in BATCHES),
        rows=tuple((b, f"{m:.2f}", f"{r:.2f}") for b, m, r in zip(BATCHES, vm, vr, strict=True)),
        note=say(
            "batch.passes.note",
            m_first=f"{vm[0]:.2f}",
            r_first=f"{vr[0]:.2f}",
            last=BATCHES[-1],
            m_last=f"{vm[-1]:.2f}",
            r_last=f"{vr[-1]:.2f}",
        ),
    )


def _summary(s: Settings, alpha: float, table: BatchTable) -> str:
    now = say(
        "batch.summary.now",
        alpha=f"{alpha:.3f}",
        machine=costing(s).machine_label,
        batch=s.batch,
        k=s.k,
        speedup=fmt.speedup(speedup_at(s, alpha, s.batch)),
    )
    parts = (now, _at_k(s, alpha, table), _any_k(s, alpha, table), _memory(s, table))
    return " ".join(p for p in parts if p)


def _memory(s: Settings, table: BatchTable) -> str:
    """Which batches fit in memory, where not all of them do."""
    if table.fits_up_to >= BATCH_MAX:
        return ""
    cost = costing(s)
    assert cost.machine is not None
    memory = f"{cost.machine.memory / 1e9:.0f} GB"
    if table.fits_up_to == 0:
        return say("batch.summary.memory.none", context=s.context, memory=memory)
    return say("batch.summary.memory.some", context=s.context, fits=table.fits_up_to, memory=memory)


def _at_k(s: Settings, alpha: float, table: BatchTable) -> Sentence:
    """From which batch the current k stops paying, and why."""
    here = table.stops_paying
    if here is None:
        if table.fits_up_to >= BATCH_MAX:
            return say("batch.summary.at_k.every_batch", k=s.k, batch_max=BATCH_MAX)
        if table.fits_up_to == 0:
            return say("batch.summary.at_k.no_fit", k=s.k, batch_max=BATCH_MAX)
        return say("batch.summary.at_k.every_fitting", k=s.k, fits=table.fits_up_to)
    if here == 1:
        return say("batch.summary.at_k.never", k=s.k)
    there = costing(at_batch(s, here))
    if there.measured:
        why = "measured"
    else:
        why = "compute_bound" if there.verify(scored_per_sequence(s)) > 1.0 + 1e-9 else "draft_kv"
    before, after = speedup_at(s, alpha, here - 1), speedup_at(s, alpha, here)
    return say(
        "batch.summary.at_k.stops",
        k=s.k,
        batch=here,
        before=f"{before:.3f}×",
        previous=here - 1,
        after=f"{after:.3f}×",
        why=say(f"batch.summary.why.{why}"),
    )


def _any_k(s: Settings, alpha: float, table: BatchTable) -> Sentence:
    """From which batch no k pays: where a serving system turns speculation off."""
    none = table.none_pays
    if none is None:
        return say("batch.summary.any_k.every_batch")
    if none == 1:
        return say("batch.summary.any_k.never")
    return say(
        "batch.summary.any_k.stops",
        batch=none,
        alpha=f"{alpha:.3f}",
        price=f"{price(at_batch(s, none), 1):.3f}",
    )


def _context_note(s: Settings, alpha: float) -> str:
    """What the context does to the win at this batch, from the numbers either way."""
    if s.context == 0:
        return say("batch.context.none")
    bare = s.model_copy(update={"context": 0})
    with_kv, without = speedup_at(s, alpha, s.batch), speedup_at(bare, alpha, s.batch)
    plain_kv, plain_bare = costing(s).plain_seconds, costing(bare).plain_seconds
    if abs(with_kv - without) < 0.005:
        effect = say("batch.context.effect.same")
    else:
        direction = "raises" if with_kv > without else "lowers"
        timed = "_measured" if costing(s).measured else ""
        effect = say(
            f"batch.context.effect.{direction}{timed}",
            without=fmt.speedup(without),
            with_kv=fmt.speedup(with_kv),
        )
    return say(
        "batch.context.note",
        context=s.context,
        batch=s.batch,
        plain_kv=f"{plain_kv * 1e3:.2f}",
        plain_bare=f"{plain_bare * 1e3:.2f}",
        effect=effect,
    )
