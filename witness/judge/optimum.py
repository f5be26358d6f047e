"""The formula's verdicts at the station's α, every k priced as the state prices it.

`priced_speedups` is the formula's speedup at each draft length; `optimum_verdict` says what
the best of them amounts to: no k pays (α at or under the k = 1 price), the speedup rises with
k without a finite optimum (α = 1, or a free draft), the best k lies past the slider's edge,
or within the range. The app words each mode; the judgement is made here, once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from witness.core.settings import Settings
from witness.core.theory import Optimum, expected_speedup
from witness.cost.costing import any_k_pays, price

OptimumMode = Literal["none_pays", "unbounded", "past_edge", "within"]
# Why the speedup has no finite optimum: every draft is accepted, or drafting costs nothing.
Unbounded = Literal["certain", "free"]


@dataclass(frozen=True, slots=True)
class OptimumVerdict:
    """What the formula's best k amounts to at one α and one pricing."""

    mode: OptimumMode
    alpha: float
    k: int  # the best k within the slider's range
    k_max: int  # the slider's edge
    unconstrained: int | None  # the best over every k; None where there is no finite one
    best: float  # the formula's speedup at k
    price_k1: float  # k = 1's price per draft: no k pays unless α beats it
    limit: float | None  # unbounded: what the speedup rises toward (inf: without bound)
    cause: Unbounded | None  # unbounded: why it rises without end


def priced_speedups(alpha: float, s: Settings, k_max: int) -> tuple[float, ...]:
    """The formula's speedup at k = 1 .. ``k_max``, each k at its own price per draft."""
    return tuple(float(expected_speedup(alpha, k, price(s, k))) for k in range(1, k_max + 1))


def optimum_verdict(alpha: float, s: Settings, optimum: Optimum) -> OptimumVerdict:
    """The verdict on ``optimum`` (the formula's best k for ``s`` at ``alpha``).

    "No k pays" is judged first (`any_k_pays`: on the roofline and custom, α at or under the
    k = 1 price, since the price per draft never falls with k there)."""
    price_k1 = price(s, 1)
    best = float(expected_speedup(alpha, optimum.k, price(s, optimum.k)))
    mode = _mode(any_k_pays(s, alpha), optimum)
    unbounded = mode == "unbounded"
    return OptimumVerdict(
        mode=mode,
        alpha=alpha,
        k=optimum.k,
        k_max=optimum.k_max,
        unconstrained=optimum.unconstrained,
        best=best,
        price_k1=price_k1,
        limit=_limit(optimum) if unbounded else None,
        cause=("certain" if alpha >= 1.0 else "free") if unbounded else None,
    )


def _mode(pays: bool, optimum: Optimum) -> OptimumMode:
    if not pays:
        return "none_pays"
    if optimum.unconstrained is None:
        return "unbounded"
    return "past_edge" if optimum.unconstrained > optimum.k_max else "within"


def _limit(optimum: Optimum) -> float:
    """What an unbounded speedup rises toward; inf where it rises without bound."""
    limit = optimum.limit
    return math.inf if limit is None or math.isinf(limit) else limit
