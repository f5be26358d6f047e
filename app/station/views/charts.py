"""Server-rendered SVG geometry: every coordinate is computed here, templates only draw.

Each chart carries a text alternative (`summary`) and, for tables of numbers, the values the
screen-reader table beside it shows. Series differ by pattern and outline as well as colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from app.words import Sentence, say
from witness.core.trace import Bar, BlockTrace, DraftStep, Totals

WIDTH = 640


@dataclass(frozen=True, slots=True)
class Point:
    """One marker of a line chart, with the words its <title> says."""

    x: float
    y: float
    label: str


@dataclass(frozen=True, slots=True)
class Frame:
    """A line chart's canvas and plot area in the SVG's units; the axes run along ``left``
    and ``bottom``. A chart's view extends it, so the template reads the frame off the chart."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float

    def args(self) -> tuple[int, int, float, float, float, float]:
        """The fields in order: the first arguments of a chart that extends Frame."""
        return (self.width, self.height, self.left, self.right, self.top, self.bottom)

    def x(self, value: float, span: float) -> float:
        """``value`` on a linear x axis from 0 at ``left`` to ``span`` at ``right``."""
        return round(self.left + (self.right - self.left) * value / span, 2)

    def y(self, value: float, peak: float) -> float:
        """``value`` on a linear y axis from 0 at ``bottom`` to ``peak`` at ``top``."""
        return round(self.bottom - (self.bottom - self.top) * value / peak, 2)


class _XY(Protocol):
    @property
    def x(self) -> float: ...
    @property
    def y(self) -> float: ...


def polyline(points: Sequence[_XY]) -> str:
    """An SVG path through ``points`` in order: "M x0 y0 L x1 y1 …"."""
    return " ".join(f"{'M' if i == 0 else 'L'} {p.x} {p.y}" for i, p in enumerate(points))


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    series: str  # css class suffix: accepted, repair, resample, target, draft
    label: str  # value text, read as the rect's title


# --------------------------------------------------------------------------- the repair picture
#
# One stacked bar per token at the block's focus position: min(p, q) (what an accepted draft
# gives the token) at the bottom, the mass a rejection gives it on top, and p as an outline
# with a mark at its top. With repair on the top is (1 − α)·residual and the stack fills p
# exactly; with repair off it is (1 − α)·p, and the outline shows the gap.

LEGEND_ROWS = (2.0, 18.0)  # the legend's two rows (top of each 12 px swatch)
LEGEND_COLUMN = 250.0  # x of the legend's second column
CALLOUT_Y = 46.0  # baseline of the focus token's label
PLOT_TOP = 66
PLOT_HEIGHT = 150
BASELINE_Y = PLOT_TOP + PLOT_HEIGHT
LABEL_Y = BASELINE_Y + 18
VISIBLE_PX = 1.0  # a bar shorter than this is "too small to see at this scale"
ZOOM_BELOW_PX = 4.0  # the focus bar is drawn magnified when shorter than this…
FOCUS_PX = 16.0  # …to this height, with its numbers printed beside the marker
STUB_PX = 6.0  # where p and the stack are both 0 at the focus, an empty stub marks the place
CHAR_PX = 6.6  # rough width of one 12 px character, to keep the callout inside the chart


@dataclass(frozen=True, slots=True)
class StackBar:
    """One token's column: two stacked segments, p's outline and the mark at its top."""

    word: str
    focus: bool  # the drafted token at the focus position (always the first bar)
    x: float
    width: float
    accepted: Rect  # bottom: min(p, q)
    rejection: Rect  # top: (1 − α)·residual (repair on) or (1 − α)·p (repair off)
    outline: Rect  # p, drawn as an outline over the stack
    mark_x1: float  # the mark at p's top, a little wider than the bar
    mark_x2: float
    mark_y: float
    stub: Rect | None  # only at a focus where p and the stack are both 0
    zoom: float  # 1 where drawn to scale; the focus bar's magnification otherwise
    empty: bool  # p and the stack are both 0: nothing to draw
    tick_x: float
    value_label: str  # p, printed above the bar ("" at the focus: the callout says it)
    value_y: float
    title: str  # every number of the bar, read as its title

    @property
    def visible_height(self) -> float:
        """The tallest thing drawn in the column (the focus bar's is at least 2 px)."""
        stub = self.stub.height if self.stub is not None else 0.0
        stack = round(self.accepted.height + self.rejection.height, 2)
        return max(stack, self.outline.height, stub)


@dataclass(frozen=True, slots=True)
class LegendItem:
    x: float
    y: float
    shape: str  # swatch (a filled square of the series), outline (p), marker (the focus)
    series: str
    text: str


@dataclass(frozen=True, slots=True)
class Callout:
    """The focus token's marker and its exact numbers, readable whatever the bar's size."""

    text: str
    x: float
    y: float
    anchor: str  # start, middle or end: kept inside the chart
    marker: str  # SVG path of the downward triangle above the focus bar
    leader_x: float
    leader_y1: float
    leader_y2: float


@dataclass(frozen=True, slots=True)
class BarRow:
    """One bar's numbers for the table under the chart."""

    word: str
    focus: bool
    p: str
    q: str
    overlap: str
    rejection: str
    stack: str
    relation: str  # "=" or "≠": does the stack equal p?


@dataclass(frozen=True, slots=True)
class BarChart:
    """The stacked repair picture (the name is the evidence panel's, which holds one)."""

    title: str
    summary: str
    identity: str  # the identity at the focus token, in numbers ("" without a focus)
    repair: bool
    top_series: str  # "repair" or "resample": what the upper segments are
    top_text: str  # how the table heads the upper segment
    width: int
    height: int
    bars: tuple[StackBar, ...]
    legend: tuple[LegendItem, ...]
    callout: Callout | None
    rows: tuple[BarRow, ...]
    baseline_y: float
    label_y: float


def exact(x: float, digits: int = 2) -> str:
    """A probability printed exactly enough to read a tiny one: 0.120, 0.0021, 3.2e-05.

    From 0.01 up, three places; below, ``digits`` significant figures (never "<0.001": the
    repair picture's point is that a tiny p is still a number that adds up).
    """
    if x <= 0:
        return "0"
    if x >= 0.01 and digits <= 3:
        return f"{x:.3f}"
    return f"{x:.{digits}g}"


def apart(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` printed with just enough digits that unequal values read unequal."""
    digits = 2
    while exact(a, digits) == exact(b, digits) and digits < 6 and not _fills(a, b):
        digits += 1
    return exact(a, digits), exact(b, digits)


def focus_alpha(block: BlockTrace) -> float:
    """α at the block's focus position (the drafted token the picture is about)."""
    assert block.focus is not None
    return block.drafts[block.focus].alpha


def rejection_mass(alpha: float) -> float:
    """1 − α, the mass a rejection spreads (never below 0 where rounding puts α over 1)."""
    return max(0.0, 1.0 - alpha)


def identity_text(bar: Bar, alpha: float, repair: bool) -> Sentence:
    """The stack of one bar in numbers, e.g. "'cat': min(p, q) 0.120 + (1 − α) 0.380 ×
    residual 0.210 = 0.200 = p" (repair on), or with ``≠`` and the resampled p (repair off)."""
    one_minus = exact(rejection_mass(alpha))
    if repair:
        total = bar.overlap + bar.repair_mass
        return say(
            "charts.repair.identity.repair",
            word=bar.word,
            overlap=exact(bar.overlap),
            one_minus=one_minus,
            residual=exact(bar.residual),
            total=exact(total),
        )
    total = bar.overlap + bar.resample_mass
    stack, p = apart(total, bar.p)
    return say(
        "charts.repair.identity.resample",
        word=bar.word,
        overlap=exact(bar.overlap),
        one_minus=one_minus,
        p=exact(bar.p),
        stack=stack,
        relation=_relation(total, bar.p),
        p_apart=p,
    )


def _fills(total: float, p: float) -> bool:
    return abs(total - p) <= 1e-12


def _relation(total: float, p: float) -> str:
    """The sign between a stack and p: "=" where the stack fills p, "≠" where it does not."""
    return "=" if _fills(total, p) else "≠"


def _mode(repair: bool) -> str:
    """What the upper segments are: the repair's mass, or p resampled (repair off)."""
    return "repair" if repair else "resample"


def _top_mass(b: Bar, repair: bool) -> float:
    return b.repair_mass if repair else b.resample_mass


def repair_chart(block: BlockTrace, repair: bool = True) -> BarChart:
    """The stacked picture at the block's focus: min(p, q) + rejection mass against p."""
    series = _mode(repair)
    top_text = "(1 − α)·residual" if repair else "(1 − α)·p"
    if block.focus is None or not block.bars:
        return BarChart(
            title=say("charts.repair.title.empty", block=block.index + 1),
            summary=say("charts.repair.summary.empty", block=block.index + 1),
            identity="",
            repair=repair,
            top_series=series,
            top_text=top_text,
            width=WIDTH,
            height=LABEL_Y + 10,
            bars=(),
            legend=_legend(repair),
            callout=None,
            rows=(),
            baseline_y=BASELINE_Y,
            label_y=LABEL_Y,
        )
    alpha = focus_alpha(block)
    bars = block.bars
    top = max(max(b.p, b.overlap + _top_mass(b, repair)) for b in bars) or 1.0
    unit = PLOT_HEIGHT / top
    group = WIDTH / len(bars)
    stacks = tuple(
        _stack_bar(i, b, group, unit, repair, focus=i == 0, alpha=alpha) for i, b in enumerate(bars)
    )
    where = "first_rejection" if block.result.first_rejection is not None else "last_drafted"
    rows = tuple(_row(b, i == 0, repair) for i, b in enumerate(bars))
    return BarChart(
        title=say(
            "charts.repair.title.focus",
            block=block.index + 1,
            draft=block.focus + 1,
            where=say(f"charts.repair.where.{where}"),
            top=top_text,
        ),
        summary=_repair_summary(block, repair, stacks, alpha),
        identity=identity_text(bars[0], alpha, repair),
        repair=repair,
        top_series=series,
        top_text=top_text,
        width=WIDTH,
        height=LABEL_Y + 10,
        bars=stacks,
        legend=_legend(repair),
        callout=_callout(stacks[0], bars[0], alpha),
        rows=rows,
        baseline_y=BASELINE_Y,
        label_y=LABEL_Y,
    )


def _stack_bar(
    i: int, b: Bar, group: float, unit: float, repair: bool, *, focus: bool, alpha: float
) -> StackBar:
    lower, upper = b.overlap, _top_mass(b, repair)
    tallest = max(b.p, lower + upper)
    zoom = 1.0
    if focus and 0 < tallest * unit < ZOOM_BELOW_PX:
        zoom = FOCUS_PX / (tallest * unit)
    scale = unit * zoom
    # Round the edges, not the heights, so the segments meet and add up to their top exactly.
    y_mid = round(BASELINE_Y - lower * scale, 2)
    y_top = round(BASELINE_Y - (lower + upper) * scale, 2)
    y_p = round(BASELINE_Y - b.p * scale, 2)
    x = round(i * group + group * 0.2, 2)
    width = round(group * 0.6, 2)
    name, formula = (
        ("repair mass", "(1 − α)·residual") if repair else ("resample mass", "(1 − α)·p")
    )
    accepted = Rect(
        x,
        y_mid,
        width,
        round(BASELINE_Y - y_mid, 2),
        "accepted",
        f"accepted mass min(p, q) {exact(lower)}",
    )
    rejection = Rect(
        x,
        y_top,
        width,
        round(y_mid - y_top, 2),
        "repair" if repair else "resample",
        f"{name} {formula} {exact(upper)}",
    )
    outline = Rect(x, y_p, width, round(BASELINE_Y - y_p, 2), "p", f"p {exact(b.p)}")
    stub = None
    if focus and tallest == 0:
        stub = Rect(x, BASELINE_Y - STUB_PX, width, STUB_PX, "stub", f"'{b.word}': p = 0")
    stack, p = apart(lower + upper, b.p)
    numbers = {
        "word": b.word,
        "overlap": exact(lower),
        "top": formula,
        "upper": exact(upper),
        "stack": stack,
        "relation": _relation(lower + upper, b.p),
        "p": p,
        "q": exact(b.q),
        "alpha": f"{alpha:.3f}",
    }
    if zoom == 1.0:
        title = say("charts.repair.bar.to_scale", **numbers)
    else:
        title = say("charts.repair.bar.zoomed", **numbers, zoom=f"{zoom:.0f}")
    return StackBar(
        word=b.word,
        focus=focus,
        x=x,
        width=width,
        accepted=accepted,
        rejection=rejection,
        outline=outline,
        mark_x1=round(x - 4, 2),
        mark_x2=round(x + width + 4, 2),
        mark_y=y_p,
        stub=stub,
        zoom=zoom,
        empty=tallest == 0,
        tick_x=round(i * group + group / 2, 2),
        value_label="" if focus else exact(b.p),
        value_y=round(min(y_p, y_top) - 4, 2),
        title=title,
    )


def _legend(repair: bool) -> tuple[LegendItem, ...]:
    first, second = LEGEND_ROWS
    top = _mode(repair)
    return (
        LegendItem(0, first, "swatch", "accepted", say("charts.repair.legend.accepted")),
        LegendItem(LEGEND_COLUMN, first, "swatch", top, say(f"charts.repair.legend.{top}")),
        LegendItem(0, second, "outline", "p", say("charts.repair.legend.p")),
        LegendItem(LEGEND_COLUMN, second, "marker", "focus", say("charts.repair.legend.focus")),
    )


def _callout(bar: StackBar, b: Bar, alpha: float) -> Callout:
    numbers = {"word": b.word, "p": exact(b.p), "q": exact(b.q), "alpha": f"{alpha:.3f}"}
    if bar.zoom == 1.0:
        text = say("charts.repair.callout.to_scale", **numbers)
    else:
        text = say("charts.repair.callout.zoomed", **numbers, zoom=f"{bar.zoom:.0f}")
    centre = bar.x + bar.width / 2
    half = len(text) * CHAR_PX / 2
    if centre - half < 0:
        x, anchor = max(0.0, bar.x), "start"
    elif centre + half > WIDTH:
        x, anchor = min(float(WIDTH), bar.x + bar.width), "end"
    else:
        x, anchor = centre, "middle"
    tip = min(bar.outline.y, bar.rejection.y, bar.stub.y if bar.stub else BASELINE_Y) - 2
    cx = round(centre, 2)
    marker = f"M {round(cx - 6, 2)} {round(tip - 8, 2)} h 12 l -6 8 z"
    return Callout(
        text=text,
        x=round(x, 2),
        y=CALLOUT_Y,
        anchor=anchor,
        marker=marker,
        leader_x=cx,
        leader_y1=CALLOUT_Y + 4,
        leader_y2=round(tip - 8, 2),
    )


def _row(b: Bar, focus: bool, repair: bool) -> BarRow:
    upper = _top_mass(b, repair)
    stack, p = apart(b.overlap + upper, b.p)
    return BarRow(
        word=b.word,
        focus=focus,
        p=p,
        q=exact(b.q),
        overlap=exact(b.overlap),
        rejection=exact(upper),
        stack=stack,
        relation=_relation(b.overlap + upper, b.p),
    )


def _repair_summary(
    block: BlockTrace, repair: bool, stacks: tuple[StackBar, ...], alpha: float
) -> str:
    d = block.drafts[block.focus] if block.focus is not None else None
    assert d is not None
    mode = _mode(repair)
    parts: list[Sentence] = [
        _checked(block, d),
        say(f"charts.repair.summary.stacks.{mode}", alpha=f"{alpha:.3f}"),
        say("charts.repair.summary.identity", identity=identity_text(block.bars[0], alpha, repair)),
    ]
    final = block.final_word
    if block.result.verified and block.result.first_rejection is not None and final is not None:
        parts.append(_final(block, final, alpha, repair))
    parts += _how_drawn(stacks)
    return " ".join(parts)


def _checked(block: BlockTrace, d: DraftStep) -> Sentence:
    """What happened to the focus token: unchecked, rejected, or the last of an accepted run."""
    if not block.result.verified:
        return say("charts.repair.summary.checked.unverified", word=d.word)
    if block.result.first_rejection is not None:
        return say(
            "charts.repair.summary.checked.rejected", word=d.word, q=exact(d.q), p=exact(d.p)
        )
    return say("charts.repair.summary.checked.accepted", word=d.word)


def _final(block: BlockTrace, final: str, alpha: float, repair: bool) -> Sentence:
    """The token a rejection gave: its stack in numbers when its bar is drawn."""
    mode = _mode(repair)
    drawn = next((b for b in block.bars[1:] if b.word == final), None)
    if drawn is not None:
        identity = identity_text(drawn, alpha, repair)
        return say(f"charts.repair.summary.drawn.{mode}", identity=identity)
    return say(f"charts.repair.summary.undrawn.{mode}", word=final)


def _how_drawn(stacks: tuple[StackBar, ...]) -> list[Sentence]:
    """Where the picture is not to scale, or too small to see, the words say so."""
    parts: list[Sentence] = []
    focus = stacks[0]
    if focus.zoom != 1.0:
        zoom = f"{focus.zoom:.0f}"
        parts.append(say("charts.repair.summary.focus.zoomed", word=focus.word, zoom=zoom))
    elif focus.stub is not None:
        parts.append(say("charts.repair.summary.focus.stub", word=focus.word))
    tiny = [s.word for s in stacks[1:] if not s.empty and s.visible_height < VISIBLE_PX]
    if tiny:
        listed = ", ".join(f"'{w}'" for w in tiny)
        parts.append(say("charts.repair.summary.too_small", words=listed))
    return parts


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
        summary=say(
            f"charts.gauge.{'accepted' if accepted else 'rejected'}",
            draft=step.position + 1,
            word=step.word,
            u=f"{step.u:.2f}",
            threshold=f"{threshold:.2f}",
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
    # On a machine a verifying pass that scores k + 1 tokens a sequence may cost more than one
    # plain step (`witness.cost.costing`): the target's bar is what its passes really cost.
    target_units = t.cost_units - draft_units
    priced = abs(target_units - t.target_passes) > 1e-9
    plain = PassRow(
        label="Plain decoding",
        value_text=say("charts.passes.plain", passes=t.baseline_target_passes),
        rects=(Rect(0, 0, round(t.baseline_cost_units * scale, 2), 22, "target", "target"),),
        y=20,
    )
    spec = PassRow(
        label="Speculative",
        value_text=_spec_value(t, draft_cost, target_units, priced),
        rects=(
            Rect(0, 0, round(target_units * scale, 2), 22, "target", "target passes"),
            Rect(
                round(target_units * scale, 2),
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
        summary=say(
            "charts.passes.summary",
            plain=f"{t.baseline_cost_units:.0f}",
            tokens=t.tokens,
            units=f"{t.cost_units:.1f}",
            target=t.target_passes,
            draft=t.draft_passes,
        ),
    )


def _spec_value(t: Totals, draft_cost: float, target_units: float, priced: bool) -> Sentence:
    """The speculative row's cost: its passes, the target's priced where a pass costs more
    than one plain step."""
    passes = {
        "target": t.target_passes,
        "draft": t.draft_passes,
        "cost": f"{draft_cost:.2f}",
        "units": f"{t.cost_units:.1f}",
    }
    if priced:
        return say("charts.passes.priced", **passes, priced=f"{target_units:.1f}")
    return say("charts.passes.speculative", **passes)
