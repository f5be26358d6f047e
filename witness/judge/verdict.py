"""The served request with the ensemble its state's verdicts are drawn from, as JSON.

The request on screen is one draw; "faster" and "pays" are said of its state's ensemble
(`witness.judge.expected.ensemble_of`). `judged_trace` puts both in one answer, for the JSON API's
``/api/trace`` and the command line's ``json`` view, so a client reads the verdict's
numbers and how they were estimated beside the example they judge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from witness.core.settings import Settings
from witness.core.trace import RequestTrace
from witness.cost.costing import costing
from witness.judge.ensemble import CONFIDENCE, Ensemble, Estimator


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the state's verdicts rest on: the ensemble's speedup over plain decoding (a
    ratio of means, priced as the state prices passes) with its interval, tokens per target
    pass pooled over it, its size, and its estimator. A speedup is null where it is
    unbounded (no target pass and free drafts)."""

    estimator: Estimator  # exact-given-text: expectations given target texts; served: requests
    n: int  # texts or requests
    texts: int | None  # distinct target texts (one when greedy); null for served requests
    speedup: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    tokens_per_pass: float | None
    alpha: float  # the station's α over the same ensemble

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def verdict_of(ensemble: Ensemble, settings: Settings) -> Verdict:
    """The ensemble's verdict numbers at the settings' price."""
    est = ensemble.speedup(costing(settings))
    return Verdict(
        estimator=ensemble.estimator,
        n=len(ensemble.seeds),
        texts=ensemble.texts if ensemble.estimator == "exact-given-text" else None,
        speedup=_finite(est.mean),
        ci_low=_finite(est.ci_low),
        ci_high=_finite(est.ci_high),
        confidence=CONFIDENCE,
        tokens_per_pass=ensemble.tokens_per_pass,
        alpha=ensemble.alpha,
    )


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


@dataclass(frozen=True, slots=True)
class JudgedTrace(RequestTrace):
    """A `RequestTrace` and its state's `Verdict`: every field of the trace, then
    ``verdict`` (its `to_dict` is the trace's, with the verdict last)."""

    verdict: Verdict


def judged_trace(trace: RequestTrace, verdict: Verdict) -> JudgedTrace:
    """``trace`` with ``verdict`` beside it."""
    kept = {f.name: getattr(trace, f.name) for f in fields(RequestTrace)}
    return JudgedTrace(**kept, verdict=verdict)
