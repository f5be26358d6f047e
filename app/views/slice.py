"""The Next panel's evaluation slice: "faster" and "correct" judged side by side, per mode.

Each mode runs 100 000 seeded blocks at the request's first position (witness.judge.evaluation):
the emitted-token histogram against p, the chi-square p-value, the sampled and exact TV
distance, next to the speedup the same blocks achieved. A shortcut can win on speed and
fail on correctness in the same row.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.views import fmt
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
    summary = (
        f"Lossless: {_finding(lossless)}, at {fmt.speedup(lossless.speedup_measured)}; "
        f"the unsafe shortcut runs at {fmt.speedup(shortcut.speedup_measured)}: "
        f"{_finding(shortcut)}; verify off runs at "
        f"{fmt.speedup(unverified.speedup_measured)}: {_finding(unverified)}."
    )
    alpha_note = (
        f"Every block here starts at the request's first position, where α = {ev.alpha:.3f}; "
        f"the station's α, over every position of the state's ensemble, is "
        f"{station_alpha:.3f}. The speedups and their expected values are that one "
        "position's, not a request's."
    )
    if settings.greedy:
        greedy_note = (
            "Greedy decoding promises more than sampling can: the output is identical token for "
            "token to plain greedy decoding, because a draft is kept only when it is the target's "
            "argmax. With one-hot laws every mode that checks the draft emits the argmax."
        )
    else:
        greedy_note = (
            "Sampling promises identical in distribution, not token for token: the same seed "
            "gives other tokens than plain sampling would, but over many requests every token "
            "appears as often as p says. Greedy decoding (temperature 0) is the case that is "
            "identical token for token."
        )
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
    exact = m.tv_exact <= EXACT
    if exact:
        verdict = "keeps p" if m.keeps_target else "keeps p (sample: false alarm)"
    else:
        verdict = "fails p" if not m.keeps_target else "fails p (the sample missed it)"
    return MethodRow(
        method=m.method,
        title=m.label,
        lossless="lossless" if m.lossless else "not lossless",
        keeps=exact,
        verdict=verdict,
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
    parts = []
    for m in ev.methods:
        speed = fmt.speedup(m.speedup_expected)
        kept = (
            "keeps p" if m.tv_exact <= EXACT else f"fails p (exact TV {fmt.distance(m.tv_exact)})"
        )
        parts.append(f"{m.label}: {speed} by the formula, {kept}")
    return (
        f"Beside the lossless chain ({fmt.speedup(chain.speedup_expected)} by the formula at "
        f"this position, k = {s.k}): " + "; ".join(parts) + ". The formula takes each method's "
        "exact acceptance here (per level for a tree); prompt lookup's draft costs nothing."
    )


def _exact_zero(m: ModeCheck) -> bool:
    return m.tv_exact <= EXACT


def _finding(m: ModeCheck) -> str:
    """What the sample found beside what the exact law is: a test that fails to reject has
    not shown agreement."""
    p = f"p-value {fmt.p_value(m.chi_square.p_value)}"
    exact = "exact TV 0" if _exact_zero(m) else f"exact TV {fmt.distance(m.tv_exact)}"
    if m.keeps_target and _exact_zero(m):
        return f"keeps p ({exact}; the sample finds no evidence against it, {p})"
    if not m.keeps_target and not _exact_zero(m):
        return f"does not keep p ({exact}; the sample rejects it, {p})"
    if m.keeps_target:
        return f"does not keep p ({exact}), though this sample missed it ({p})"
    return f"keeps p ({exact}); the sample's rejection is a false alarm ({p})"


def _row_verdict(m: ModeCheck) -> str:
    if _exact_zero(m):
        return "keeps p" if m.keeps_target else "keeps p (sample: false alarm)"
    return "fails p" if not m.keeps_target else "fails p (the sample missed it)"


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
            label=f"'{word}': sampled {share:.3f}, p {p:.3f}",
        )
        for i, (word, share, p) in enumerate(m.histogram)
    )
    keeps = _exact_zero(m)
    return ModeRow(
        mode=m.mode,
        title=TITLES[m.mode],
        current=current,
        keeps=keeps,
        verdict=_row_verdict(m),
        p_value=fmt.p_value(m.chi_square.p_value),
        tv_sampled=f"{m.tv_empirical:.4f}",
        tv_exact=fmt.distance(m.tv_exact),
        speedup=fmt.speedup(m.speedup_measured),
        speedup_expected=fmt.speedup(m.speedup_expected),
        bars=bars,
        chart_summary=(
            f"{TITLES[m.mode]}: first emitted token over {m.blocks:,} blocks against p, top "
            f"{n} tokens; " + "; ".join(b.label for b in bars) + "."
        ),
        width=H_WIDTH,
        height=H_HEIGHT,
        baseline_y=H_BOTTOM,
        label_y=H_BOTTOM + 14,
    )
