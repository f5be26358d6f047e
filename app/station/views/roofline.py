"""The measured roofline panel: one matrix against 1 … 64 vectors, timed on this server.

The numbers come from `witness.cost.measured` (timed once per process, never on the slider
path) and are not part of the deterministic witness; the panel says so in its label. The
chart puts the measured time per pass beside the roofline fitted to the same run, on a
log-2 axis of vectors per pass; measured and model differ by line style and marker shape
as well as colour, and the table below the chart holds every number the chart draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.station.views import fmt
from app.station.views.charts import Frame, Point, polyline
from app.words import Sentence, say
from witness.cost.costing import MACHINES
from witness.cost.measured import FLAT, MeasuredRoofline, routine_note
from witness.cost.roofline import compute_bound_tokens

LABEL = say("roofline.label")
FRAME = Frame(width=640, height=300, left=60.0, right=612.0, top=44.0, bottom=252.0)


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    y: float
    text: str


@dataclass(frozen=True, slots=True)
class RooflineChart(Frame):
    measured: tuple[Point, ...]
    measured_path: str
    model: tuple[Point, ...]
    model_path: str
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    knee_x: float | None  # where the fitted model turns compute-bound, when on the axis
    knee_label: str
    summary: str  # the title: what is drawn and what it shows
    caption: str  # what is drawn (the sentence stands above the chart)


@dataclass(frozen=True, slots=True)
class Row:
    width: str
    ms: str
    ratio: str
    gb_per_s: str
    gflop_per_s: str
    model_ms: str


@dataclass(frozen=True, slots=True)
class RooflineView:
    heading: Sentence  # the roofline's claim and this server's measurement, each named
    why: Sentence  # why a numpy pass on this CPU and a GPU decode pass differ (or agree)
    label: str
    setup: str
    machine: str
    sentence: str
    routine_note: str  # why a step at two vectors, when there is one
    model_note: str
    rows: tuple[Row, ...]
    chart: RooflineChart


def _ms(seconds: float) -> str:
    # fmt.ms rounds to whole milliseconds (request times); a pass here is a few ms.
    return f"{seconds * 1e3:.2f} ms"


def tick_step(top: float) -> float:
    """A 1-2-5 tick step giving at most six ticks up to ``top``."""
    base = 10.0 ** math.floor(math.log10(top / 6))
    return next(m * base for m in (1.0, 2.0, 5.0, 10.0) if top / (m * base) <= 6)


def roofline_chart(m: MeasuredRoofline, sentence: str) -> RooflineChart:
    widest = m.widest.width
    span = max(math.log2(widest), 1.0)
    values_ms = [p.seconds * 1e3 for p in m.points] + [p.model_seconds * 1e3 for p in m.points]
    step = tick_step(max(values_ms) * 1.1)
    top = step * math.ceil(max(values_ms) * 1.1 / step)

    def x(n: float) -> float:
        return FRAME.x(math.log2(n), span)

    def y(ms: float) -> float:
        return FRAME.y(ms, top)

    measured = tuple(
        Point(x(p.width), y(p.seconds * 1e3), f"{p.width} vectors: measured {_ms(p.seconds)}")
        for p in m.points
    )
    model = tuple(
        Point(
            x(p.width), y(p.model_seconds * 1e3), f"{p.width} vectors: model {_ms(p.model_seconds)}"
        )
        for p in m.points
    )
    knee = m.compute_bound_width
    on_axis = 1 < knee < widest
    caption = say("roofline.chart.caption", rows=f"{m.rows:,}", cols=f"{m.cols:,}", widest=widest)
    return RooflineChart(
        *FRAME.args(),
        measured=measured,
        measured_path=polyline(measured),
        model=model,
        model_path=polyline(model),
        x_ticks=tuple(Tick(x(p.width), FRAME.bottom + 16.0, str(p.width)) for p in m.points),
        y_ticks=tuple(
            Tick(FRAME.left, y(i * step), f"{i * step:g}")
            for i in range(int(round(top / step)) + 1)
        ),
        knee_x=x(knee) if on_axis else None,
        knee_label=say("roofline.chart.knee", knee=f"{knee:.1f}"),
        summary=f"{caption} {sentence}",
        caption=caption,
    )


# The GPU whose decode pass the roofline's claim is about, as the station prices it.
GPU = MACHINES["h100"]


def heading_mode(m: MeasuredRoofline) -> str:
    """ "flat" where every width cost at most `FLAT` one-vector passes, else "rising"."""
    return "flat" if all(p.ratio <= FLAT for p in m.points) else "rising"


def roofline_view(m: MeasuredRoofline) -> RooflineView:
    sentence = m.summary()
    mode = heading_mode(m)
    gpu_knee = compute_bound_tokens(bandwidth=GPU.bandwidth, flops=GPU.flops)
    return RooflineView(
        heading=say(
            f"roofline.heading.{mode}", widest=m.widest.width, ratio=fmt.speedup(m.widest.ratio)
        ),
        why=say(
            f"roofline.why.{mode}",
            **(
                {"widest": m.widest.width}
                if mode == "flat"
                else {
                    "flops": f"{m.flops / 1e9:.1f}",
                    "bandwidth": f"{m.bandwidth / 1e9:.1f}",
                    "knee": f"{m.compute_bound_width:.1f}",
                }
            ),
            gpu=GPU.label,
            gpu_bandwidth=f"{GPU.bandwidth / 1e12:.2f}",
            gpu_flops=f"{GPU.flops / 1e12:.0f}",
            gpu_knee=f"{gpu_knee:.0f}",
        ),
        label=LABEL,
        setup=say(
            "roofline.setup",
            rows=f"{m.rows:,}",
            cols=f"{m.cols:,}",
            size=m.size_words(),
            widest=m.widest.width,
            repeats=m.repeats,
        ),
        machine=m.machine,
        sentence=sentence,
        routine_note=routine_note(m.points),
        model_note=say(
            "roofline.model",
            bandwidth=f"{m.bandwidth / 1e9:.1f}",
            flops=f"{m.flops / 1e9:.1f}",
            knee=f"{m.compute_bound_width:.1f}",
        ),
        rows=tuple(
            Row(
                str(p.width),
                _ms(p.seconds),
                fmt.speedup(p.ratio),
                f"{p.gb_per_s:.1f}",
                f"{p.gflop_per_s:.1f}",
                _ms(p.model_seconds),
            )
            for p in m.points
        ),
        chart=roofline_chart(m, sentence),
    )
