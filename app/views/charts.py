"""Server-rendered SVG geometry: every coordinate is computed here, templates only draw.

Each chart carries a text alternative (`summary`) and, for tables of numbers, the values the
screen-reader table beside it shows. Series differ by pattern and outline as well as colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.views import fmt
from witness.trace import Bar, BlockTrace, DraftStep, Totals

WIDTH = 640
PLOT_TOP = 28
PLOT_HEIGHT = 150
LABEL_Y = PLOT_TOP + PLOT_HEIGHT + 18


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    series: str  # css class suffix: p, q, overlap, residual, target, draft
    label: str  # value text, drawn above the bar and read as the bar's title


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    text: str
    marked: bool = False


@dataclass(frozen=True, slots=True)
class BarChart:
    title: str
    summary: str
    width: int
    height: int
    rects: tuple[Rect, ...]
    ticks: tuple[Tick, ...]
    baseline_y: float
    label_y: float


def repair_chart(block: BlockTrace, repair: bool = True) -> BarChart:
    """p, q, min(p, q) and the residual at the block's focus position, over its top tokens."""
    bars = block.bars
    top = max(max(b.p, b.q, b.residual) for b in bars) or 1.0
    group = WIDTH / len(bars)
    bar_w = group * 0.8 / 4
    rects: list[Rect] = []
    ticks: list[Tick] = []
    drafted = block.drafts[block.focus].word
    for i, b in enumerate(bars):
        x0 = i * group + group * 0.1
        for j, (series, value) in enumerate(_series(b)):
            h = PLOT_HEIGHT * value / top
            rects.append(
                Rect(
                    x=round(x0 + j * bar_w, 2),
                    y=round(PLOT_TOP + PLOT_HEIGHT - h, 2),
                    width=round(bar_w - 1, 2),
                    height=round(h, 2),
                    series=series,
                    label=f"{series} {fmt.prob(value)}",
                )
            )
        ticks.append(Tick(round(i * group + group / 2, 2), b.word, marked=b.word == drafted))
    where = "first rejection" if block.result.first_rejection is not None else "last drafted token"
    return BarChart(
        title=(
            f"Block {block.index + 1}, draft {block.focus + 1} ({where}): p, q, min(p, q), residual"
        ),
        summary=_repair_summary(block, repair),
        width=WIDTH,
        height=LABEL_Y + 10,
        rects=tuple(rects),
        ticks=tuple(ticks),
        baseline_y=PLOT_TOP + PLOT_HEIGHT,
        label_y=LABEL_Y,
    )


def _series(b: Bar) -> tuple[tuple[str, float], ...]:
    return (("p", b.p), ("q", b.q), ("overlap", b.overlap), ("residual", b.residual))


def _repair_summary(block: BlockTrace, repair: bool) -> str:
    d = block.drafts[block.focus]
    if block.result.first_rejection is not None and not repair:
        return (
            f"The draft proposed '{d.word}' with q = {fmt.prob(d.q)} but the target gives it "
            f"p = {fmt.prob(d.p)}. Repair is off, so the target resampled p itself (not the "
            f"residual) and gave '{block.final_word}'."
        )
    if block.result.first_rejection is not None:
        top = ", ".join(f"'{w}' {fmt.prob(r)}" for w, r in block.residual_top[:3])
        return (
            f"The draft proposed '{d.word}' with q = {fmt.prob(d.q)} but the target gives it "
            f"p = {fmt.prob(d.p)}. The residual max(0, p − q), normalised, puts its mass on "
            f"{top}; it gave '{block.final_word}'."
        )
    return (
        f"Every draft of this block was accepted; at the last one, '{d.word}', "
        f"p = {fmt.prob(d.p)} and q = {fmt.prob(d.q)}. The bonus token came from p."
    )


@dataclass(frozen=True, slots=True)
class Gauge:
    """u against the acceptance threshold min(1, p/q) on a 0..1 line."""

    width: int
    height: int
    left: float
    accept_label_x: float  # the zones' words sit just inside the line's ends
    reject_label_x: float
    accept_width: float
    threshold_x: float
    reject_width: float
    u_x: float
    accepted: bool
    u_text: str
    threshold_text: str
    summary: str


GAUGE_LEFT, GAUGE_RIGHT, GAUGE_HEIGHT = 20.0, 620.0, 64


def gauge(step: DraftStep) -> Gauge:
    threshold = min(1.0, step.ratio)
    span = GAUGE_RIGHT - GAUGE_LEFT
    accepted = step.u < threshold
    relation = "<" if accepted else "≥"
    outcome = "accepted" if accepted else "rejected"
    threshold_x = round(GAUGE_LEFT + span * threshold, 2)
    return Gauge(
        width=WIDTH,
        height=GAUGE_HEIGHT,
        left=GAUGE_LEFT,
        accept_label_x=GAUGE_LEFT + 4,
        reject_label_x=GAUGE_RIGHT - 4,
        accept_width=round(threshold_x - GAUGE_LEFT, 2),
        threshold_x=threshold_x,
        reject_width=round(GAUGE_RIGHT - threshold_x, 2),
        u_x=round(GAUGE_LEFT + span * step.u, 2),
        accepted=accepted,
        u_text=f"u = {step.u:.2f}",
        threshold_text=f"min(1, p/q) = {threshold:.2f}",
        summary=(
            f"Draft {step.position + 1} '{step.word}': u = {step.u:.2f} {relation} "
            f"min(1, p/q) = {threshold:.2f}, so it was {outcome}."
        ),
    )


@dataclass(frozen=True, slots=True)
class PassRow:
    label: str
    value_text: str
    rects: tuple[Rect, ...]
    y: float


@dataclass(frozen=True, slots=True)
class PassChart:
    width: int
    height: int
    rows: tuple[PassRow, ...]
    summary: str


def pass_chart(t: Totals, draft_cost: float) -> PassChart:
    """Cost in target-pass units: plain decoding against speculation (target + draft passes)."""
    scale = (WIDTH - 20) / max(t.baseline_cost_units, t.cost_units, 1.0)
    draft_units = draft_cost * t.draft_passes
    plain = PassRow(
        label="Plain decoding",
        value_text=f"{t.baseline_target_passes} target passes",
        rects=(Rect(0, 0, round(t.baseline_cost_units * scale, 2), 22, "target", "target"),),
        y=20,
    )
    spec = PassRow(
        label="Speculative",
        value_text=(
            f"{t.target_passes} target passes + {t.draft_passes} draft passes × {draft_cost:.2f}"
            f" = {t.cost_units:.1f} units"
        ),
        rects=(
            Rect(0, 0, round(t.target_passes * scale, 2), 22, "target", "target passes"),
            Rect(
                round(t.target_passes * scale, 2),
                0,
                round(draft_units * scale, 2),
                22,
                "draft",
                "draft passes",
            ),
        ),
        y=78,
    )
    return PassChart(
        width=WIDTH,
        height=112,
        rows=(plain, spec),
        summary=(
            f"Plain decoding costs {t.baseline_cost_units:.0f} target-pass units for "
            f"{t.tokens} tokens; speculation costs {t.cost_units:.1f} "
            f"({t.target_passes} target passes and {t.draft_passes} draft passes)."
        ),
    )
