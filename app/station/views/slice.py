"""The Next panel's evaluation slice: "faster" and "correct" judged side by side, per mode.

Each mode runs 100 000 seeded blocks at the request's first position (witness.judge.evaluation):
the emitted-token histogram against p, the chi-square p-value, the sampled and exact TV
distance, next to the speedup the same blocks achieved. A shortcut can win on speed and
fail on correctness in the same row.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.station.views import fmt
from app.words import Sentence, say
from witness import Settings
from witness.core.modes import mode_of
from witness.judge.evaluation import EvaluationSlice, ModeCheck
from witness.judge.method_slice import MethodCheck
from witness.serve.check import EXACT

TITLES = {
    "lossless": "Verify and repair (lossless)",
    "no_repair": "Repair off (the unsafe shortcut)",
    "no_verify": "Verify off (plain draft sampling)",
}
H_WIDTH, H_HEIGHT, H_TOP, H_BOTTOM = 320, 150, 10.0, 110.0


@dataclass(frozen=True, slots=True)
class HistBar:
    x: float
    y: float
    width: float
    height: float
    p_y: float  # where p's marker sits for the same token
    word: str
    label: str


@dataclass(frozen=True, slots=True)
class ModeRow:
    mode: str
    title: str
    current: bool
    keeps: bool
    verdict: str
    p_value: str
    tv_sampled: str
    tv_exact: str
    speedup: str
    speedup_expected: str
    bars: tuple[HistBar, ...]
    chart_summary: str
    width: int
    height: int
    baseline_y: float
    label_y: float


@dataclass(frozen=True, slots=True)
class MethodRow:
    """A method serving systems use, on the same two gates at the same position."""

    method: str
    title: str
    lossless: str  # what the method promises: "lossless" or "not lossless"
    keeps: bool
    verdict: str
    p_value: str
    tv_sampled: str
    tv_exact: str
    acceptance: str  # sampled (exact)
    speedup_expected: str
    note: str


@dataclass(frozen=True, slots=True)
class SliceView:
    blocks: str
    alpha: str
    rows: tuple[ModeRow, ...]
    summary: str
    greedy_note: str
    alpha_note: str
    methods: tuple[MethodRow, ...] = ()
    methods_summary: str = ""


def slice_view(ev: EvaluationSlice, settings: Settings, station_alpha: float) -> SliceView:
    current = mode_of(settings.verify, settings.repair)
    rows = tuple(_row(m, m.mode == current) for m in ev.modes)
    by = {m.mode: m for m in ev.modes}
    lossless, shortcut, unverified = by["lossless"], by["no_repair"], by["no_verify"]
    summary = say(
        "slice.summary.modes",
        lossless=_finding(lossless),
        lossless_speed=fmt.speedup(lossless.speedup_measured),
        shortcut=_finding(shortcut),
        shortcut_speed=fmt.speedup(shortcut.speedup_measured),
        unverified=_finding(unverified),
        unverified_speed=fmt.speedup(unverified.speedup_measured),
    )
    alpha_note = say(
        "slice.alpha_note.first_position",
        alpha=f"{ev.alpha:.3f}",
        station_alpha=f"{station_alpha:.3f}",
    )
    greedy_note = say(f"slice.promise.{'greedy' if settings.greedy else 'sampling'}")
    return SliceView(
        f"{ev.modes[0].blocks:,}",
        f"{ev.alpha:.3f}",
        rows,
        summary,
        greedy_note,
        alpha_note,
        tuple(_method_row(m) for m in ev.methods),
        _methods_summary(ev, settings),
    )


def _method_row(m: MethodCheck) -> MethodRow:
    return MethodRow(
        method=m.method,
        title=m.label,
        lossless="lossless" if m.lossless else "not lossless",
        keeps=m.tv_exact <= EXACT,
        verdict=_verdict(m.tv_exact, m.keeps_target),
        p_value=fmt.p_value(m.chi_square.p_value),
        tv_sampled=fmt.distance(m.tv_empirical),
        tv_exact=fmt.distance(m.tv_exact),
        acceptance=f"{m.acceptance:.3f} ({m.acceptance_exact:.3f} exact)",
        speedup_expected=fmt.speedup(m.speedup_expected),
        note=m.note,
    )


def _methods_summary(ev: EvaluationSlice, s: Settings) -> str:
    """Each method's two gates at this position, by the formula and the exact law."""
    if not ev.methods:
        return ""
    chain = ev.modes[0]  # lossless chain, the reference
    parts = [
        say(
            "slice.methods.method",
            label=m.label,
            speed=fmt.speedup(m.speedup_expected),
            kept=_kept(m.tv_exact),
        )
        for m in ev.methods
    ]
    return say(
        "slice.methods.summary",
        speed=fmt.speedup(chain.speedup_expected),
        k=s.k,
        methods="; ".join(parts),
    )


def _kept(tv_exact: float) -> Sentence:
    """Whether the exact law keeps p, with its distance where it does not."""
    if tv_exact <= EXACT:
        return say("slice.methods.kept.keeps")
    return say("slice.methods.kept.fails", tv=fmt.distance(tv_exact))


def _exact_zero(m: ModeCheck) -> bool:
    return m.tv_exact <= EXACT


def _finding(m: ModeCheck) -> Sentence:
    """What the sample found beside what the exact law is: a test that fails to reject has
    not shown agreement."""
    return say(
        f"slice.finding.{_outcome(m.tv_exact, m.keeps_target)}",
        tv=fmt.distance(m.tv_exact),
        p=fmt.p_value(m.chi_square.p_value),
    )


def _outcome(tv_exact: float, sample_keeps: bool) -> str:
    """The exact law beside the sample's test: keeps, fails, missed (the law is off but the
    sample did not reject it) or false_alarm (the law is exact but the sample rejected it)."""
    if tv_exact <= EXACT:
        return "keeps" if sample_keeps else "false_alarm"
    return "missed" if sample_keeps else "fails"


def _verdict(tv_exact: float, sample_keeps: bool) -> Sentence:
    """A row's verdict: the exact law's, with the sample's disagreement named."""
    return say(f"slice.verdict.{_outcome(tv_exact, sample_keeps)}")


def _row(m: ModeCheck, current: bool) -> ModeRow:
    top = max(max(share, p) for _, share, p in m.histogram) or 1.0
    n = len(m.histogram)
    slot = H_WIDTH / n

    def y(v: float) -> float:
        return round(H_BOTTOM - (H_BOTTOM - H_TOP) * v / top, 2)

    bars = tuple(
        HistBar(
            x=round(i * slot + slot * 0.15, 2),
            y=y(share),
            width=round(slot * 0.7, 2),
            height=round(H_BOTTOM - y(share), 2),
            p_y=y(p),
            word=word,
            label=say("slice.bar.label", word=word, share=f"{share:.3f}", p=f"{p:.3f}"),
        )
        for i, (word, share, p) in enumerate(m.histogram)
    )
    keeps = _exact_zero(m)
    return ModeRow(
        mode=m.mode,
        title=TITLES[m.mode],
        current=current,
        keeps=keeps,
        verdict=_verdict(m.tv_exact, m.keeps_target),
        p_value=fmt.p_value(m.chi_square.p_value),
        tv_sampled=f"{m.tv_empirical:.4f}",
        tv_exact=fmt.distance(m.tv_exact),
        speedup=fmt.speedup(m.speedup_measured),
        speedup_expected=fmt.speedup(m.speedup_expected),
        bars=bars,
        chart_summary=say(
            "slice.chart.summary",
            title=TITLES[m.mode],
            blocks=f"{m.blocks:,}",
            n=n,
            bars="; ".join(b.label for b in bars),
        ),
        width=H_WIDTH,
        height=H_HEIGHT,
        baseline_y=H_BOTTOM,
        label_y=H_BOTTOM + 14,
    )
