"""The draft-length sweep: speedup against k, measured on served requests beside the formula.

Each k re-serves the same request (same seed, so the same keyed uniforms); the expected
curve uses the acceptance rate realised over all those requests (every drafted position of
every k), so both curves speak of the same draft-target pair and neither depends on which k
the instrument shows now. The optimum is `optimal_k` of that alpha and cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from witness.cache import RequestCache
from witness.request import serve_request
from witness.settings import Settings, field_bounds
from witness.theory import expected_speedup, optimal_k, speculation_pays
from witness.trace import plain


@dataclass(frozen=True, slots=True)
class SweepPoint:
    k: int
    speedup_measured: float | None
    speedup_expected: float
    tokens_per_pass: float | None


@dataclass(frozen=True, slots=True)
class KSweep:
    alpha: float
    draft_cost: float
    optimal_k: int
    pays: bool
    points: tuple[SweepPoint, ...]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = plain(asdict(self))
        return out


def sweep_k(settings: Settings, *, cache: RequestCache | None = None) -> KSweep:
    """Serve the request at every allowed k; the formula's curve and optimum beside it.

    The sixteen requests share ``cache`` (a fresh one when None): they visit many of the
    same contexts.
    """
    cache = RequestCache() if cache is None else cache
    k_max = int(field_bounds("k")["max"])
    served = [
        serve_request(settings.model_copy(update={"k": k}), cache=cache).totals
        for k in range(1, k_max + 1)
    ]
    positions = sum(t.draft_passes for t in served)
    alpha = sum(t.mean_alpha * t.draft_passes for t in served) / positions
    points = tuple(
        SweepPoint(
            k=k,
            speedup_measured=t.speedup_measured,
            speedup_expected=float(expected_speedup(alpha, k, settings.draft_cost)),
            tokens_per_pass=t.tokens_per_pass,
        )
        for k, t in enumerate(served, start=1)
    )
    return KSweep(
        alpha=alpha,
        draft_cost=settings.draft_cost,
        optimal_k=optimal_k(alpha, settings.draft_cost, k_max),
        pays=speculation_pays(alpha, settings.draft_cost),
        points=points,
    )
