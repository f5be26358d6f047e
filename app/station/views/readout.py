"""The live readout beside the instrument: what a slider did, on the same screen as the slider.

Tokens per target pass, the speedup against plain decoding (the mean over the state's seeded
requests, with this request's beside it), both gates, and a small sweep of the formula's
speedup against k at the station's α with the current k marked. Everything here is already
computed for the evidence (the ensemble, the gates); the sparkline is the formula alone, so
the readout costs no served request of its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from app.station.views import fmt
from app.station.views.evidence import block_tokens
from app.station.views.gates import Gate, InvariantView
from app.station.views.judgement import LEVEL, counted, exact, formula_speedup
from app.station.views.marks import MARKS
from app.station.views.pricing import priced
from app.words import Sentence, say
from witness import Settings
from witness.core.settings import max_depth
from witness.core.theory import expected_tokens_per_pass
from witness.core.trace import RequestTrace
from witness.cost.costing import costing
from witness.judge.ensemble import Ensemble, Estimate
from witness.judge.optimum import priced_speedups
from witness.methods.block import is_chain
from witness.serve.accounting import draft_cost

# The sparkline's box (SVG user units); the template only draws.
SPARK_W, SPARK_H, SPARK_PAD, SPARK_TOP = 240, 96, 18.0, 8.0


@dataclass(frozen=True, slots=True)
class Reading:
    label: str
    value: str
    note: str
    testid: str


@dataclass(frozen=True, slots=True)
class Sparkline:
    width: int
    height: int
    path: str
    current_x: float
    current_y: float
    mean_y: float | None  # the ensemble's mean at the current k (None: unbounded)
    break_even_y: float
    left: float
    right: float
    bottom: float
    summary: str
    k_max: int  # the right end of the k axis: the deepest k the tree's width allows


@dataclass(frozen=True, slots=True)
class LaneMark:
    style: str  # accepted, rejected, repaired, bonus, unchecked, argmax
    glyph: str


@dataclass(frozen=True, slots=True)
class Lane:
    """The served request as its marks, block by block: the accepted prefix, the first
    rejection and what closed each block, readable without colour. Glyphs, not words, so a
    slider's answer carries a few bytes per token."""

    blocks: tuple[tuple[LaneMark, ...], ...]
    summary: Sentence  # what a screen reader hears instead of the glyphs


@dataclass(frozen=True, slots=True)
class ReadoutView:
    readings: tuple[Reading, ...]
    gates: tuple[Gate, ...]
    spark: Sparkline | None  # None: verify off (no speculative curve to draw)
    lane: Lane


# Measured and formula tokens per pass closer than this read as the same at two places.
SAME_TOKENS = 0.005


def tokens_note(ens: Ensemble, s: Settings, est: Estimate, this: str) -> Sentence:
    """The measured tokens per pass, with the formula's beside it and why they differ:
    the formula's blocks all draft k at one α, while a request's last block drafts only what
    is left and α varies by position."""
    measured = ens.tokens_per_pass
    if not s.verify or measured is None or s.tokens == 1:
        return say("readout.tokens.note", counted=counted(est), this=this)
    formula = float(expected_tokens_per_pass(ens.alpha, s.k))
    values: dict[str, object] = {
        "counted": counted(est),
        "this": this,
        "formula": f"{formula:.2f}",
    }
    if s.draft_source == "lookup":
        return say("readout.tokens.lookup", **values)
    if abs(measured - formula) < SAME_TOKENS:
        return say("readout.tokens.formula", **values)
    if measured < formula:
        # With every draft accepted α cannot vary: only the cut last block is left to blame.
        mode = "cut" if ens.alpha >= 1.0 else "under"
        return say(f"readout.tokens.{mode}", tokens=s.tokens, **values)
    return say("readout.tokens.over", **values)


def readout_view(
    trace: RequestTrace, ens: Ensemble, invariant: InvariantView, s: Settings
) -> ReadoutView:
    t, est = trace.totals, ens.speedup(costing(s))
    per_pass = "—" if ens.tokens_per_pass is None else f"{ens.tokens_per_pass:.2f}"
    this_pass = "—" if t.tokens_per_pass is None else f"{t.tokens_per_pass:.2f}"
    readings: tuple[Reading, ...] = (
        Reading(
            "Tokens per target pass",
            per_pass,
            tokens_note(ens, s, est, this_pass),
            "readout-tokens",
        ),
        Reading(
            "Speedup over plain decoding",
            fmt.speedup(est.mean),
            say(
                f"readout.speedup.{_formula_caveat(ens, s)}",
                counted=counted(est),
                interval=_interval(est),
                this=fmt.speedup(t.speedup_measured),
                formula=fmt.speedup(formula_speedup(ens, s)),
            ),
            "readout-speedup",
        ),
    )
    if not is_chain(s) and t.scored_per_pass is not None:
        readings += (
            Reading(
                "Tokens the target scores per pass",
                f"{t.scored_per_pass:.1f}",
                say(
                    "readout.scored.note",
                    drafted=t.drafted_tokens,
                    passes=t.target_passes,
                    k=s.k,
                    most=s.k + 1,
                ),
                "readout-scored",
            ),
        )
    return ReadoutView(
        readings,
        (invariant.correctness, invariant.savings),
        _spark(ens, s, est.mean) if s.verify else None,
        lane(trace, s),
    )


def lane(trace: RequestTrace, s: Settings) -> Lane:
    typical = s.acceptance == "typical"
    blocks = tuple(
        tuple(LaneMark(t.mark.style, t.mark.glyph) for t in block_tokens(b, typical))
        for b in trace.blocks
    )
    counts = Counter(m.style for b in blocks for m in b)
    labels = ", ".join(f"{counts[style]} {MARKS[style].label}" for style in MARKS if counts[style])
    summary = say(
        "readout.lane.summary",
        tokens=sum(n for style, n in counts.items() if style != "rejected"),
        blocks=len(blocks),
        counts=labels,
    )
    return Lane(blocks, summary)


def _interval(est: Estimate) -> Sentence:
    """The ensemble's spread: its interval, or that every member is the same."""
    if est.sd == 0.0:
        return say(f"readout.interval.{'texts' if exact(est) else 'seeds'}")
    return say(
        "readout.interval.spread",
        level=LEVEL,
        low=f"{est.ci_low:.2f}",
        high=f"{est.ci_high:.2f}",
    )


def _formula_caveat(ens: Ensemble, s: Settings) -> str:
    """What the formula's value assumes here: the mode of ``readout.speedup``."""
    if not ens.drafted_positions:
        return "too_short"
    if s.draft_source == "lookup":
        return "lookup"
    return "formula"


def _spark(ens: Ensemble, s: Settings, mean: float) -> Sparkline:
    k_max = max_depth(s.tree_width)
    ks = range(1, k_max + 1)
    values = priced_speedups(ens.alpha, s, k_max)
    finite_mean = mean if mean != float("inf") else None
    top = max(1.5, *values, finite_mean or 0.0) * 1.1
    left, right, bottom = SPARK_PAD, SPARK_W - 4.0, SPARK_H - SPARK_PAD

    def x(k: int) -> float:
        return round(left + (right - left) * (k - 1) / max(k_max - 1, 1), 2)

    def y(v: float) -> float:
        return round(bottom - (bottom - SPARK_TOP) * min(v, top) / top, 2)

    path = " ".join(
        f"{'M' if k == 1 else 'L'} {x(k)} {y(v)}" for k, v in zip(ks, values, strict=True)
    )
    here = values[s.k - 1]
    return Sparkline(
        width=SPARK_W,
        height=SPARK_H,
        path=path,
        current_x=x(s.k),
        current_y=y(here),
        mean_y=y(finite_mean) if finite_mean is not None else None,
        break_even_y=y(1.0),
        left=left,
        right=right,
        bottom=bottom,
        k_max=k_max,
        summary=say(
            "readout.spark.summary",
            alpha=f"{ens.alpha:.3f}",
            priced=_priced_words(s),
            first=fmt.speedup(values[0]),
            last=fmt.speedup(values[-1]),
            k_max=k_max,
            k=s.k,
            here=fmt.speedup(here),
            mean=fmt.speedup(mean),
        ),
    )


def _priced_words(s: Settings) -> Sentence:
    """How the sparkline prices each k: the slider's c, or the machine per k."""
    if priced(s) == "custom":
        return say("readout.spark.priced.custom", c=f"{draft_cost(s):.2f}")
    return say("readout.spark.priced.machine")
