"""The evaluation slice: judge "faster" and "correct" side by side, per mode.

For the request's first drafted position (p and q from the tiny models at the prompt), run
many seeded blocks in each mode and compare the emitted tokens with p: a chi-square test
(`witness.models.fit`), the empirical total-variation distance, and the exact distance of the
mode's law, next to the speedup the same blocks achieved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from witness.core.modes import MODES, Mode, mode_of, switches
from witness.core.settings import Settings
from witness.core.theory import acceptance_rate, output_distribution, total_variation_unchecked
from witness.core.trace import JsonRecord
from witness.cost.costing import costing, price
from witness.judge.method_slice import MethodCheck, method_checks, own_check
from witness.methods.block import is_chain
from witness.models.cache import RequestCache
from witness.models.fit import (
    MIN_EXPECTED,
    SIGNIFICANCE,
    ChiSquare,
    chi_square_against,
    first_position,
)
from witness.models.pair import models_for
from witness.models.simulate import simulate_blocks
from witness.serve.accounting import measured_speedup, priced_cost, speedup_expected

# The goodness-of-fit pieces live in witness.models.fit (the method checks use them too); they are
# re-exported here, where the evaluation slice's callers have always found them.
__all__ = [
    "MIN_EXPECTED",
    "SIGNIFICANCE",
    "ChiSquare",
    "EvaluationSlice",
    "FirstTokenCheck",
    "ModeCheck",
    "chi_square_against",
    "check_mode",
    "evaluate",
    "first_position",
    "first_token_check",
]

HISTOGRAM_TOKENS = 10


@dataclass(frozen=True, slots=True)
class ModeCheck:
    mode: Mode
    blocks: int
    chi_square: ChiSquare
    tv_empirical: float
    tv_exact: float
    keeps_target: bool
    mean_tokens_per_block: float
    speedup_measured: float | None
    speedup_expected: float | None
    histogram: tuple[tuple[str, float, float], ...]  # (word, empirical share, p)


@dataclass(frozen=True, slots=True)
class EvaluationSlice(JsonRecord):
    settings: dict[str, Any]
    alpha: float
    current_mode: Mode
    modes: tuple[ModeCheck, ...]
    # The tree, typical acceptance and prompt lookup on the same two gates, same position.
    methods: tuple[MethodCheck, ...] = ()


@dataclass(frozen=True, slots=True)
class FirstTokenCheck:
    """The sampled check alone: does the first emitted token follow p?"""

    mode: Mode
    blocks: int
    chi_square: ChiSquare
    tv_empirical: float
    tv_exact: float  # the mode's exact law at this position against p
    keeps_target: bool  # the sample's verdict: no evidence against p at SIGNIFICANCE


def first_token_check(
    settings: Settings, mode: Mode, blocks: int, *, cache: RequestCache | None = None
) -> FirstTokenCheck:
    """The live evidence's quick slice.

    The first token a block emits is the drafted x1 if accepted, else the repair token: it
    never depends on positions 2..k. So blocks of length 1 give exactly the same law for a
    quarter of the draws at k = 4, which keeps a slider move inside its budget. A ``cache``
    keeps the seed's uniform grids for the next slider move.
    """
    if not is_chain(settings):
        verify, repair = switches(mode)
        own = own_check(settings.model_copy(update={"verify": verify, "repair": repair}), blocks)
        return FirstTokenCheck(
            mode, own.blocks, own.chi_square, own.tv_empirical, own.tv_exact, own.keeps_target
        )
    p, q = first_position(settings)
    verify, repair = switches(mode)
    sim = simulate_blocks(
        p, q, 1, blocks, seed=settings.seed, verify=verify, repair=repair, cache=cache
    )
    chi = chi_square_against(sim.first_token_counts, p)
    share = sim.first_token_counts / sim.n
    return FirstTokenCheck(
        mode=mode,
        blocks=sim.n,
        chi_square=chi,
        tv_empirical=float(total_variation_unchecked(share, p)),
        tv_exact=float(
            total_variation_unchecked(output_distribution(p, q, verify=verify, repair=repair), p)
        ),
        keeps_target=chi.p_value > SIGNIFICANCE,
    )


def check_mode(
    settings: Settings, mode: Mode, blocks: int, *, cache: RequestCache | None = None
) -> ModeCheck:
    """One mode of the slice: ``blocks`` seeded blocks at the request's first position."""
    p, q = first_position(settings)
    verify, repair = switches(mode)
    k, c = settings.k, price(settings)
    sim = simulate_blocks(
        p, q, k, blocks, seed=settings.seed, verify=verify, repair=repair, cache=cache
    )
    chi = chi_square_against(sim.first_token_counts, p)
    share = sim.first_token_counts / sim.n
    law = output_distribution(p, q, verify=verify, repair=repair)
    # One block: a target pass scoring k + 1 tokens if verified, and k draft passes.
    cost = priced_cost(costing(settings), [k + 1] if verify else [], k)
    top = np.argsort(-np.maximum(p, share), kind="stable")[:HISTOGRAM_TOKENS]
    vocab = models_for(settings.models).vocab
    return ModeCheck(
        mode=mode,
        blocks=sim.n,
        chi_square=chi,
        tv_empirical=float(total_variation_unchecked(share, p)),
        tv_exact=float(total_variation_unchecked(law, p)),
        keeps_target=chi.p_value > SIGNIFICANCE,
        mean_tokens_per_block=sim.mean_tokens_per_block,
        speedup_measured=measured_speedup(sim.mean_tokens_per_block, cost),
        speedup_expected=speedup_expected(float(acceptance_rate(p, q)), k, c, verify=verify),
        histogram=tuple((vocab[int(t)], float(share[t]), float(p[t])) for t in top),
    )


def evaluate(
    settings: Settings, blocks: int = 100_000, *, cache: RequestCache | None = None
) -> EvaluationSlice:
    """Run ``blocks`` seeded blocks in every mode, with this request's seed, k and cost.

    The three modes draw the same keyed uniforms, so they share ``cache`` (a fresh one when
    None).
    """
    cache = RequestCache() if cache is None else cache
    p, q = first_position(settings)
    return EvaluationSlice(
        settings=settings.model_dump(),
        alpha=float(acceptance_rate(p, q)),
        current_mode=mode_of(settings.verify, settings.repair),
        modes=tuple(check_mode(settings, mode, blocks, cache=cache) for mode, _, _ in MODES),
        methods=method_checks(settings, blocks, cache=cache),
    )
