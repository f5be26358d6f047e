"""The draft-length sweep chart: speedup against k, measured beside expected.

The optimum (the formula's, `optimal_k`) is marked, the current k is marked, and the region
where speculation stops paying (speedup at or below 1×, i.e. below the break-even line; no
k pays at all when α ≤ c) is shaded with a pattern and labelled in words.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.station.views import fmt
from app.station.views.charts import Frame, polyline
from app.station.views.judgement import optimum_sentence
from app.station.views.pricing import cost_short, measured_gap
from app.words import Sentence, say
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
            say(
                "sweep.caption.intro",
                match=f"{settings.match:.2f}",
                cost=_cost_words(settings),
                method="".join(f", {m}" for m in _method(settings)),
                seed=settings.seed,
                alpha=f"{sweep.alpha:.3f}",
            ),
            _verify_off_note(settings) or optimum_sentence(sweep.alpha, settings, optimum),
            "" if not settings.verify else measured_gap(sweep.alpha, settings, k_max),
            _range_note(settings, k_max),
            "" if not settings.verify else break_even_sentence_formula(sweep, settings),
            say("sweep.caption.now", k=settings.k),
        )
        if part
    )
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
        optimum_label=_optimum_label(optimum),
        current_x=x(settings.k),
        current_label=say("sweep.label.now", k=settings.k),
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


def _optimum_label(optimum: Optimum) -> Sentence:
    """The optimum's marker: inside the range, past it, or none finite (α = 1, c = 0)."""
    if optimum.unconstrained is None:
        return say("sweep.label.optimum.unbounded", k=optimum.k)
    if optimum.past_range:
        return say("sweep.label.optimum.past_range", k=optimum.k, formula=optimum.unconstrained)
    return say("sweep.label.optimum.inside", k=optimum.k)


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _method(s: Settings) -> list[Sentence]:
    """How the blocks are drafted and checked, where it is not the plain chain."""
    if is_chain(s):
        return []
    if s.draft_source == "lookup":
        return [say("sweep.caption.method.lookup")]
    parts = []
    if s.tree_width > 1:
        parts.append(say("sweep.caption.method.tree", width=s.tree_width, drafting=s.drafting))
    if s.acceptance == "typical":
        parts.append(say("sweep.caption.method.typical"))
    return parts


def _range_note(s: Settings, k_max: int) -> str:
    if k_max >= K_MAX:
        return ""
    return say(
        "sweep.caption.range",
        width=s.tree_width,
        k=k_max,
        nodes=tree_nodes(s.tree_width, k_max),
        nodes_max=TREE_NODES_MAX,
    )


def _widths_note(sweep: KSweep, s: Settings) -> str:
    if not sweep.widths:
        return ""
    if s.machine == "custom":
        pricing = say("sweep.widths.pricing.custom")
    else:
        cost = costing(s)
        how = "measured" if cost.measured else "machine"
        pricing = say(f"sweep.widths.pricing.{how}", machine=cost.machine_label)
    return say("sweep.widths.note", seed=s.seed, k=s.k, pricing=pricing)


def _cost_words(s: Settings) -> str:
    """'draft cost 0.10', or on a machine 'price per draft 0.17'."""
    if s.machine == "custom":
        return say("sweep.caption.cost.custom", cost=f"{price(s):.2f}")
    return cost_short(s)


def _verify_off_note(s: Settings) -> str:
    if s.verify:
        return ""
    if s.draft_source == "lookup":
        return say("sweep.caption.verify_off.lookup")
    c = costing(s).c
    return say("sweep.caption.verify_off.model", speed=fmt.speedup(1 / c if c else None))


def break_even_sentence_formula(sweep: KSweep, s: Settings) -> str:
    """Break-even per k from the formula: the current k's, then k = 1's (the α > c rule)."""
    if s.draft_source == "lookup":
        return ""  # no draft model: no cost to break even with
    here = sweep.points[s.k - 1].break_even_cost
    verdict = "pays" if price(s) < here else "does_not_pay"
    # On a machine the number held against the break-even is the price per draft, not the
    # draft pass's c (c alone can sit under it while the k does not pay).
    pricing = "custom" if s.machine == "custom" else "machine"
    cost = say(f"sweep.break_even.cost.{pricing}")
    first = say(
        "sweep.break_even.here",
        k=s.k,
        cost=cost,
        cost_max=f"{here:.2f}",
        now=cost_short(s),
        verdict=say(f"sweep.break_even.verdict.{verdict}"),
    )
    alpha = f"{sweep.alpha:.2f}"
    if s.k == 1:
        return say("sweep.break_even.k_one.here", here=first, cost=cost)
    if pricing == "machine":
        price_one = f"{price(s, 1):.2f}"
        return say("sweep.break_even.k_one.machine", here=first, price=price_one, alpha=alpha)
    return say("sweep.break_even.k_one.custom", here=first, alpha=alpha)
