"""The tiny transformers' passes timed on this server, beside the roofline's price for them.

The numbers come from `witness.neural.timing` (timed once per process, never on the slider
path; not part of the deterministic witness) and the H200's timed passes through
`witness.cost.costing`. The chart draws v(s), a verifying pass over s positions in target
steps, timed (solid line, circles) and priced by the roofline from this server's measured
bandwidth and compute (dashed line, squares), each labelled at its end, so it reads without
colour; the table beside it holds every number it draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.station.views import fmt
from app.station.views.charts import Frame, Point, polyline
from app.station.views.roofline import Tick, tick_step
from app.words import Sentence, say
from witness.core.settings import Settings
from witness.cost.costing import costing
from witness.cost.passes import MEASURED_ON, STACKS
from witness.neural.timing import (
    NEAR_ONE,
    K,
    NeuralPasses,
    RooflinePasses,
    TimedPasses,
    committed_tokens_per_pass,
)

FRAME = Frame(width=640, height=300, left=60.0, right=520.0, top=24.0, bottom=252.0)
X_TICKS = (1, 4, 5, 8, 12, 16)  # 5: verifying the k = 4 the sentences name
LABEL_GAP = 14.0  # the least vertical distance between the two lines' end labels
# The H200's timed passes price Llama 3.1 8B verifying at batch 1 where they were timed
# (context 512, CUDA graphs: what serving engines replay), as bench/neural_passes.py does.
H200 = Settings(machine="h200", stack="graphs", batch=1, context=512)


@dataclass(frozen=True, slots=True)
class EndLabel:
    x: float
    y: float
    text: str


@dataclass(frozen=True, slots=True)
class PassesChart(Frame):
    timed: tuple[Point, ...]
    timed_path: str
    roofline: tuple[Point, ...]
    roofline_path: str
    timed_label: EndLabel
    roofline_label: EndLabel
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    summary: str  # the title: what is drawn and what it shows
    caption: str


@dataclass(frozen=True, slots=True)
class PassRow:
    s: str
    timed_ms: str
    timed_v: str
    roofline_ms: str
    roofline_v: str


@dataclass(frozen=True, slots=True)
class PassesView:
    heading: Sentence
    verify: Sentence  # verifying k drafts: what the pass over k + 1 cost here, in steps
    drafts: Sentence  # each draft's step in target steps
    roofline: Sentence  # the roofline's price for the same passes on this server
    why: Sentence  # why the timing and the roofline differ (or agree)
    round: Sentence | None  # the k = 4 round from these ratios (None without the log)
    machines: Sentence  # where a real server's speedup comes from instead
    setup: Sentence
    rows: tuple[PassRow, ...]
    chart: PassesChart


def ratio(x: float) -> str:
    """A ratio to one step, as the sentences and the table say it: '2.03'."""
    return f"{x:.2f}"


def verify_mode(v: float) -> str:
    """ "dear" above `NEAR_ONE` steps, "about_one" within it, "cheaper" under 1 / `NEAR_ONE`."""
    if v > NEAR_ONE:
        return "dear"
    return "about_one" if v >= 1 / NEAR_ONE else "cheaper"


def per_position(t: TimedPasses) -> float:
    """What each position past the first adds, in steps, over the widths timed."""
    return (t.v[-1] - 1.0) / (t.widths[-1] - 1)


def _seconds(x: float) -> str:
    return fmt.pass_ms(x * 1e3)


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def cache_words(r: RooflinePasses) -> Sentence:
    """The target's weights against this server's last-level cache, where the OS says."""
    if r.cache_bytes is None:
        return say("roofline.passes.cache.unknown", weights=_mib(r.weight_bytes))
    where = "inside" if r.weight_bytes <= r.cache_bytes else "outside"
    return say(
        f"roofline.passes.cache.{where}", weights=_mib(r.weight_bytes), llc=_mib(r.cache_bytes)
    )


def passes_chart(n: NeuralPasses, summary: str) -> PassesChart:
    widths = n.timed.widths
    timed_v, roof_v = n.timed.v, n.roofline.v
    span = max(widths[-1] - 1, 1)
    peak = max(*timed_v, *roof_v) * 1.1
    step = tick_step(peak)
    top = step * math.ceil(peak / step)

    def x(s: int) -> float:
        return FRAME.x(s - 1, span)

    def y(v: float) -> float:
        return FRAME.y(v, top)

    timed = tuple(
        Point(x(s), y(v), f"{s} positions: timed {ratio(v)} steps")
        for s, v in zip(widths, timed_v, strict=True)
    )
    roofline = tuple(
        Point(x(s), y(v), f"{s} positions: roofline {ratio(v)} steps")
        for s, v in zip(widths, roof_v, strict=True)
    )
    # Each line is named at its end; where the ends nearly meet, the labels part around them.
    t_end, r_end = timed[-1].y, roofline[-1].y
    mid, apart = (t_end + r_end) / 2, abs(t_end - r_end)
    if apart < LABEL_GAP:
        above = -1.0 if t_end <= r_end else 1.0
        t_end = mid + above * LABEL_GAP / 2
        r_end = mid - above * LABEL_GAP / 2
    right = FRAME.right + 8.0
    return PassesChart(
        *FRAME.args(),
        timed=timed,
        timed_path=polyline(timed),
        roofline=roofline,
        roofline_path=polyline(roofline),
        timed_label=EndLabel(right, round(t_end + 4.0, 2), say("roofline.passes.label.timed")),
        roofline_label=EndLabel(
            right, round(r_end + 4.0, 2), say("roofline.passes.label.roofline")
        ),
        x_ticks=tuple(Tick(x(s), FRAME.bottom + 16.0, str(s)) for s in widths if s in X_TICKS),
        y_ticks=tuple(
            Tick(FRAME.left, y(i * step), f"{i * step:g}")
            for i in range(int(round(top / step)) + 1)
        ),
        summary=summary,
        caption=say("roofline.passes.caption", top=widths[-1]),
    )


def passes_view(n: NeuralPasses) -> PassesView:
    t, r = n.timed, n.roofline
    s, top = K + 1, t.widths[-1]
    v_five = t.v_at(s)
    mode = verify_mode(v_five)
    verify = say(
        f"roofline.passes.verify.{mode}",
        k=K,
        s=s,
        v=ratio(v_five),
        top=top,
        v_top=ratio(t.v[-1]),
    )
    cheap = max(t.c_early_exit, t.c_draft) < 1.0
    drafts = say(
        f"roofline.passes.drafts.{'cheap' if cheap else 'dear'}",
        early=ratio(t.c_early_exit),
        draft=ratio(t.c_draft),
        exit_layer=t.exit_layer,
        layers=t.layers,
        **({"share": ratio(t.exit_layer / t.layers)} if cheap else {}),
    )
    roof_step = _seconds(r.seconds[0])
    roofline = say(
        f"roofline.passes.roofline.{'flat' if r.flat else 'rising'}",
        params=f"{r.params:,}",
        weights=_mib(r.weight_bytes),
        kv=f"{r.kv_bytes / 2**10:.0f} KiB",
        roof_step=roof_step,
        bandwidth=f"{r.bandwidth / 1e9:.1f}",
        flops=f"{r.flops / 1e9:.1f}",
        knee=f"{r.compute_bound_width:.0f}",
        top=top,
        roof_top=ratio(r.v[-1]),
    )
    step = _seconds(t.step_seconds)
    why = (
        say(
            "roofline.passes.why.dear",
            cache=cache_words(r),
            roof_step=roof_step,
            step=step,
            per_position=ratio(per_position(t)),
        )
        if mode == "dear"
        else say("roofline.passes.why.flat", roof_step=roof_step, step=step)
    )
    return PassesView(
        heading=say("roofline.passes.heading"),
        verify=verify,
        drafts=drafts,
        roofline=roofline,
        why=why,
        round=round_sentence(n),
        machines=machines_sentence(),
        setup=say("roofline.passes.setup", top=top, prompt=t.prompt, repeats=t.repeats),
        rows=tuple(
            PassRow(str(w), _seconds(ts), ratio(tv), _seconds(rs), ratio(rv))
            for w, ts, tv, rs, rv in zip(t.widths, t.seconds, t.v, r.seconds, r.v, strict=True)
        ),
        chart=passes_chart(n, f"{verify} {roofline}"),
    )


def round_sentence(n: NeuralPasses) -> Sentence | None:
    """A round of k drafts and one verifying pass, priced by these ratios, against the
    trained pair's committed tokens per verifying pass (None where the log lacks them)."""
    tokens = committed_tokens_per_pass()
    t = n.timed
    if tokens is None or not {"early_exit", "draft"} <= tokens.keys():
        return None
    v = t.v_at(K + 1)
    cost_early, cost_draft = K * t.c_early_exit + v, K * t.c_draft + v
    return say(
        "roofline.passes.round",
        k=K,
        s=K + 1,
        cost_early=ratio(cost_early),
        tokens_early=ratio(tokens["early_exit"]),
        speed_early=fmt.speedup(tokens["early_exit"] / cost_early),
        cost_draft=ratio(cost_draft),
        tokens_draft=ratio(tokens["draft"]),
        speed_draft=fmt.speedup(tokens["draft"] / cost_draft),
    )


def machines_sentence() -> Sentence:
    """The H200's timed verifying pass (CUDA graphs) and its roofline, from the station's
    own pricing, so the page cites the shipped figures rather than copies of them."""
    timed = costing(H200)
    roof = costing(H200.model_copy(update={"stack": "roofline"}))
    assert timed.machine is not None
    assert timed.pair is not None
    assert timed.stack is not None
    s = K + 1
    return say(
        "roofline.passes.machines.speedup",
        machine=timed.machine.label,
        stack=STACKS[timed.stack],
        date=MEASURED_ON,
        target=timed.pair.target.label,
        draft=timed.pair.draft.label,
        k=K,
        s=s,
        context=H200.context,
        v=ratio(timed.verify(s)),
        c=ratio(timed.c),
        roof=ratio(roof.verify(s)),
    )
