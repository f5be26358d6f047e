"""The draft-length sweep chart: speedup against k, measured beside expected.

The optimum (the formula's, `optimal_k`) is marked, the current k is marked, and the region
where speculation stops paying (speedup at or below 1×, i.e. below the break-even line; no
k pays at all when α ≤ c) is shaded with a pattern and labelled in words.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.views import fmt
from witness import Settings
from witness.settings import field_bounds
from witness.sweep import KSweep

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 52.0, 620.0, 24.0, 236.0
K_MAX = int(field_bounds("k")["max"])  # the x axis spans every k the slider offers



@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float
    k: int
    label: str


@dataclass(frozen=True, slots=True)
class YTick:
    y: float
    text: str


@dataclass(frozen=True, slots=True)
class SweepChart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    break_even_y: float
    plot_width: float
    shade_height: float
    measured: tuple[Point, ...]
    measured_path: str
    expected: tuple[Point, ...]
    expected_path: str
    x_ticks: tuple[Point, ...]
    y_ticks: tuple[YTick, ...]
    optimum_x: float
    optimum_label: str
    current_x: float
    current_label: str
    current_anchor: str  # labels near the right edge read leftwards, so they stay on the chart
    current_dx: int
    optimum_anchor: str
    optimum_dx: int
    # Each label has its own row under the legend (baselines in the SVG's units), so the
    # legend, "optimum" and "now k" never overlap, whatever k is, even at projector size.
    optimum_y: float
    current_y: float
    summary: str
    rows: tuple[tuple[str, str, str], ...]  # (k, measured, expected) for the table


def sweep_chart(sweep: KSweep, settings: Settings) -> SweepChart:
    values = [p.speedup_expected for p in sweep.points]
    values += [p.speedup_measured for p in sweep.points if p.speedup_measured is not None]
    top = max(1.5, max(values) * 1.1)

    def x(k: int) -> float:
        return round(LEFT + (RIGHT - LEFT) * (k - 1) / (K_MAX - 1), 2)

    def y(v: float) -> float:
        return round(BOTTOM - (BOTTOM - TOP) * min(v, top) / top, 2)

    measured = tuple(
        Point(
            x(p.k),
            y(p.speedup_measured),
            p.k,
            f"k = {p.k}: measured {fmt.speedup(p.speedup_measured)}",
        )
        for p in sweep.points
        if p.speedup_measured is not None
    )
    expected = tuple(
        Point(
            x(p.k),
            y(p.speedup_expected),
            p.k,
            f"k = {p.k}: expected {fmt.speedup(p.speedup_expected)}",
        )
        for p in sweep.points
    )
    step = 0.5 if top <= 4 else 1.0 if top <= 8 else 2.0
    y_ticks = tuple(YTick(y(i * step), f"{i * step:g}×") for i in range(int(top // step) + 1))
    best = sweep.optimal_k
    pays = "pays" if sweep.pays else "does not pay at any k"
    summary = (
        f"Speedup against draft length k at match {settings.match:.2f} and draft cost "
        f"{settings.draft_cost:.2f} (α = {sweep.alpha:.2f}): the formula's optimum is k = {best} "
        f"({fmt.speedup(sweep.points[best - 1].speedup_expected)} expected); speculation {pays} "
        f"(break-even at α = c = {settings.draft_cost:.2f}). The instrument is at k = {settings.k}."
    )
    return SweepChart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=RIGHT,
        top=TOP,
        bottom=BOTTOM,
        break_even_y=y(1.0),
        plot_width=RIGHT - LEFT,
        shade_height=round(BOTTOM - y(1.0), 2),
        measured=measured,
        measured_path=_path(measured),
        expected=expected,
        expected_path=_path(expected),
        x_ticks=tuple(Point(x(k), BOTTOM + 16.0, k, str(k)) for k in range(1, K_MAX + 1)),
        y_ticks=y_ticks,
        optimum_x=x(best),
        optimum_label=f"optimum k = {best}",
        current_x=x(settings.k),
        current_label=f"now k = {settings.k}",
        current_anchor="end" if settings.k > 8 else "start",
        current_dx=-4 if settings.k > 8 else 4,
        optimum_anchor="end" if best > 8 else "start",
        optimum_dx=-4 if best > 8 else 4,
        optimum_y=TOP + 13.0,
        current_y=TOP + 32.0,
        summary=summary,
        rows=tuple(
            (str(p.k), fmt.speedup(p.speedup_measured), fmt.speedup(p.speedup_expected))
            for p in sweep.points
        ),
    )


def _path(points: tuple[Point, ...]) -> str:
    return " ".join(f"{'M' if i == 0 else 'L'} {p.x} {p.y}" for i, p in enumerate(points))
