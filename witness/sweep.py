"""The draft-length sweep: speedup against k, measured on served requests beside the formula.

Each k re-serves the same request (same seed, so the same keyed uniforms); the expected
curve uses the acceptance rate realised at the current k, so both curves speak of the same
draft-target pair. The optimum is `optimal_k` of that alpha and cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from witness.request import serve_request
from witness.settings import Settings, field_bounds
from witness.theory import expected_speedup, optimal_k, speculation_pays


@dataclass(frozen=True)
class SweepPoint:
    k: int
    speedup_measured: float | None
    speedup_expected: float
    tokens_per_pass: float | None


@dataclass(frozen=True)
class KSweep:
    alpha: float
    draft_cost: float
    optimal_k: int
    pays: bool
    points: tuple[SweepPoint, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"points": [asdict(p) for p in self.points]}


def sweep_k(settings: Settings) -> KSweep:
    """Serve the request at every allowed k; the formula's curve and optimum beside it."""
    alpha = serve_request(settings).totals.mean_alpha
    k_max = int(field_bounds("k")["max"])
    points = []
    for k in range(1, k_max + 1):
        totals = serve_request(settings.model_copy(update={"k": k})).totals
        points.append(
            SweepPoint(
                k=k,
                speedup_measured=totals.speedup_measured,
                speedup_expected=float(expected_speedup(alpha, k, settings.draft_cost)),
                tokens_per_pass=totals.tokens_per_pass,
            )
        )
    return KSweep(
        alpha=alpha,
        draft_cost=settings.draft_cost,
        optimal_k=optimal_k(alpha, settings.draft_cost, k_max),
        pays=speculation_pays(alpha, settings.draft_cost),
        points=tuple(points),
    )
