"""The draft-length sweep chart: speedup against k, measured beside expected.

The optimum (the formula's, `optimal_k`) is marked, the current k is marked, and the region
where speculation stops paying (speedup at or below 1×, i.e. below the break-even line; no
k pays at all when α ≤ c) is shaded with a pattern and labelled in words.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.views import fmt
from app.views.charts import Frame, polyline
from app.views.judgement import optimum_sentence
from app.views.pricing import cost_short
from witness import Settings
from witness.core.settings import TREE_NODES_MAX, field_bounds, tree_nodes
from witness.core.theory import Optimum
from witness.cost.costing import costing, price
from witness.judge.sweep import KSweep
from witness.methods.block import is_chain

FRAME = Frame(width=640, height=280, left=52.0, right=620.0, top=24.0, bottom=236.0)
K_MAX = int(field_bounds("k")["max"])  # the x axis spans every k the slider (and width) offers


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
class SweepChart(Frame):
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
    # The tree's width at the current k, one request each: (width, tokens per pass, scored
    # per pass, draft passes, this request's speedup, formula); empty for prompt lookup.
    widths: tuple[tuple[str, str, str, str, str, str], ...] = ()
    widths_note: str = ""


def sweep_chart(sweep: KSweep, settings: Settings) -> SweepChart:
    k_max = sweep.k_max
    values = [p.speedup_expected for p in sweep.points]
    values += [p.speedup_measured for p in sweep.points if p.speedup_measured is not None]
    top = max(1.5, max(values) * 1.1)

    def x(k: int) -> float:
        return FRAME.x(k - 1, max(k_max - 1, 1))

    def y(v: float) -> float:
        return FRAME.y(min(v, top), top)

    measured = tuple(
        Point(
            x(p.k),
            y(p.speedup_measured),
            p.k,
            f"k = {p.k}: this request {fmt.speedup(p.speedup_measured)}",
        )
        for p in sweep.points
        if p.speedup_measured is not None
    )
    expected = tuple(
        Point(
            x(p.k),
            y(p.speedup_expected),
            p.k,
            f"k = {p.k}: formula {fmt.speedup(p.speedup_expected)}",
        )
        for p in sweep.points
    )
    step = 0.5 if top <= 4 else 1.0 if top <= 8 else 2.0
    y_ticks = tuple(YTick(y(i * step), f"{i * step:g}×") for i in range(int(top // step) + 1))
    best = sweep.optimal_k
    optimum = Optimum(best, k_max, sweep.optimal_k_unconstrained, sweep.speedup_limit)
    summary = " ".join(
        part
        for part in (
            f"Speedup against draft length k at match {settings.match:.2f} and "
            f"{_cost_words(settings)}{_method(settings)}. Measured: the request on screen (seed "
            f"{settings.seed}) served at each k, one request per k, so it is an example "
            f"with the seed's noise. Expected: the formula at the station's α = "
            f"{sweep.alpha:.3f}.",
            _verify_off_note(settings) or optimum_sentence(sweep.alpha, settings, optimum),
            _range_note(settings, k_max),
            "" if not settings.verify else break_even_sentence_formula(sweep, settings),
            f"The instrument is at k = {settings.k}.",
        )
        if part
    )
    if optimum.unconstrained is None:
        optimum_label = f"no finite optimum; edge k = {best}"
    elif optimum.past_range:
        optimum_label = f"best in range k = {best} (formula: k = {optimum.unconstrained})"
    else:
        optimum_label = f"optimum k = {best}"
    return SweepChart(
        *FRAME.args(),
        break_even_y=y(1.0),
        plot_width=FRAME.right - FRAME.left,
        shade_height=round(FRAME.bottom - y(1.0), 2),
        measured=measured,
        measured_path=polyline(measured),
        expected=expected,
        expected_path=polyline(expected),
        x_ticks=tuple(Point(x(k), FRAME.bottom + 16.0, k, str(k)) for k in range(1, k_max + 1)),
        y_ticks=y_ticks,
        optimum_x=x(best),
        optimum_label=optimum_label,
        current_x=x(settings.k),
        current_label=f"now k = {settings.k}",
        current_anchor="end" if settings.k > k_max / 2 else "start",
        current_dx=-4 if settings.k > k_max / 2 else 4,
        optimum_anchor="end" if best > k_max / 2 else "start",
        optimum_dx=-4 if best > k_max / 2 else 4,
        optimum_y=FRAME.top + 13.0,
        current_y=FRAME.top + 32.0,
        summary=summary,
        rows=tuple(
            (str(p.k), fmt.speedup(p.speedup_measured), fmt.speedup(p.speedup_expected))
            for p in sweep.points
        ),
        widths=tuple(
            (
                str(w.width),
                _num(w.tokens_per_pass),
                _num(w.scored_per_pass),
                str(w.draft_passes),
                fmt.speedup(w.speedup_measured),
                fmt.speedup(w.speedup_expected),
            )
            for w in sweep.widths
        ),
        widths_note=_widths_note(sweep, settings),
    )


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _method(s: Settings) -> str:
    if is_chain(s):
        return ""
    if s.draft_source == "lookup":
        return ", prompt lookup (no draft model: c does not enter)"
    rule = ", typical acceptance" if s.acceptance == "typical" else ""
    shape = f", a tree {s.tree_width} wide ({s.drafting} drafting)" if s.tree_width > 1 else ""
    return shape + rule


def _range_note(s: Settings, k_max: int) -> str:
    if k_max >= K_MAX:
        return ""
    return (
        f"A tree {s.tree_width} wide may be at most k = {k_max} deep "
        f"({tree_nodes(s.tree_width, k_max)} drafted nodes; the target scores at most "
        f"{TREE_NODES_MAX} a pass), so the sweep stops there."
    )


def _widths_note(sweep: KSweep, s: Settings) -> str:
    if not sweep.widths:
        return ""
    pricing = (
        "the station prices passes, not tokens (decoding is memory-bound), so a wider pass "
        "costs what a narrow one does here."
        if s.machine == "custom"
        else f"on {costing(s).machine_label} each pass is priced by the tokens it scores, so "
        "a wider pass costs more once the batch makes it compute-bound."
    )
    return (
        f"The same request (seed {s.seed}) drafted as a tree of each width that fits at k = "
        f"{s.k}: one request per width, an example with the seed's noise. Every width makes "
        "the same draft passes (one batched pass per level), and the target scores every "
        f"node in its one pass; {pricing}"
    )


def _cost_words(s: Settings) -> str:
    """'draft cost 0.10', or on a machine 'price per draft 0.17'."""
    return f"draft cost {price(s):.2f}" if s.machine == "custom" else cost_short(s)


def _verify_off_note(s: Settings) -> str:
    if s.verify:
        return ""
    if s.draft_source == "lookup":
        return (
            "Verify off: the copied words are emitted unchecked, with no model pass for them; "
            "the formula's curve is what verification would give."
        )
    return (
        "Verify off: no target pass at any k, so the measured curve is the draft model's own "
        f"speed (1/c = {fmt.speedup(1 / costing(s).c if costing(s).c else None)}), not "
        "speculation; the formula's curve is what verification would give."
    )


def break_even_sentence_formula(sweep: KSweep, s: Settings) -> str:
    """Break-even per k from the formula: the current k's, then k = 1's (the α > c rule)."""
    if s.draft_source == "lookup":
        return ""  # no draft model: no cost to break even with
    here = sweep.points[s.k - 1].break_even_cost
    verdict = "pays" if price(s) < here else "does not pay"
    # On a machine the number held against the break-even is the price per draft, not the
    # draft pass's c (c alone can sit under it while the k does not pay).
    cost = "c" if s.machine == "custom" else "the price per draft"
    first = (
        f"By the formula, k = {s.k} pays while {cost} < {here:.2f} (now {cost_short(s)}: it "
        f"{verdict})"
    )
    if s.k == 1:
        return f"{first}; at k = 1 that is the rule α > {cost}."
    if s.machine != "custom":
        return (
            f"{first}; k = 1 pays while its price per draft ({price(s, 1):.2f}) < α = "
            f"{sweep.alpha:.2f}, the familiar rule α > c with the price in c's place, for k = 1 "
            "only."
        )
    return (
        f"{first}; k = 1 pays while c < α = {sweep.alpha:.2f}, the familiar rule, for k = 1 only."
    )
