"""The evaluation slice: judge "faster" and "correct" side by side, per mode.

For the request's first drafted position (p and q from the tiny models at the prompt), run
many seeded blocks in each mode and compare the emitted tokens with p: a chi-square test
(SciPy), the empirical total-variation distance, and the exact distance of the mode's law,
next to the speedup the same blocks achieved.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from witness.accounting import cost_units, measured_speedup, speedup_expected
from witness.cache import RequestCache
from witness.laws import draft_law
from witness.lm import tiny_models
from witness.modes import MODES, Mode, mode_of, switches
from witness.settings import Settings
from witness.simulate import simulate_blocks
from witness.theory import (
    acceptance_rate,
    greedy_distribution,
    output_distribution,
    total_variation_unchecked,
)
from witness.trace import plain

MIN_EXPECTED = 5.0  # the usual floor for a chi-square cell; rarer tokens are pooled
SIGNIFICANCE = 1e-3  # a mode "keeps p" while its p-value stays above this
HISTOGRAM_TOKENS = 10


@dataclass(frozen=True, slots=True)
class ChiSquare:
    statistic: float | None  # None where a token p never emits was drawn: it is unbounded
    dof: int
    p_value: float
    impossible_tokens: int  # emitted tokens that p gives probability 0


def chi_square_against(counts: NDArray[np.int64], p: NDArray[np.float64]) -> ChiSquare:
    """Goodness of fit of token counts to p.

    Tokens whose expected count is under 5 are pooled into one rare cell. If that cell still
    expects fewer than 5 draws, a chi-square cell would be unreliable, so it is tested on
    its own with the exact binomial tail P(X >= observed) (an excess of rare tokens is what
    a broken sampler produces), its draws are merged into the smallest common cell for the
    chi-square, and the two p-values are combined with a Bonferroni bound.

    A token that p never emits but the counts contain is decisive on its own: the p-value is
    0 whatever the other cells say.

    Examples
    --------
    >>> chi_square_against(np.array([100, 200, 300, 400]), np.array([.1, .2, .3, .4])).p_value
    1.0
    >>> chi_square_against(np.array([5, 0]), np.array([0.0, 1.0])).impossible_tokens
    1
    >>> chi_square_against(np.array([450, 450, 100]), np.array([.5, .5 - 1e-12, 1e-12])).p_value
    0.0
    """
    n = int(counts.sum())
    impossible = int(((p == 0) & (counts > 0)).sum())
    expected = n * p
    big = expected >= MIN_EXPECTED
    obs = counts[big].astype(np.float64)
    exp = expected[big].copy()
    rare_p = float(p[~big].sum())
    rare_obs = n - int(counts[big].sum())
    if impossible:
        return ChiSquare(None, max(obs.size - 1, 0), 0.0, impossible)
    p_rare: float | None = None
    if rare_p > 0 or rare_obs > 0:
        if n * rare_p >= MIN_EXPECTED:
            obs, exp = np.append(obs, rare_obs), np.append(exp, n * rare_p)
        else:
            p_rare = float(stats.binom.sf(rare_obs - 1, n, rare_p)) if rare_obs else 1.0
            if obs.size:
                smallest = int(np.argmin(exp))
                obs[smallest] += rare_obs
                exp[smallest] += n * rare_p
    if obs.size < 2:  # one cell (e.g. greedy): the counts either match exactly or not at all
        same = bool(np.isclose(obs[0], exp[0])) if obs.size else True
        statistic, dof, p_chi = 0.0, 0, 1.0 if same else 0.0
    else:
        # Pearson's statistic against expectations rescaled for float drift; the upper tail
        # comes from SciPy's chi-square survival function (scipy.stats.chisquare computes
        # the same two numbers, with a few hundred microseconds of wrapper around them).
        exp = exp * (obs.sum() / exp.sum())
        statistic, dof = float(((obs - exp) ** 2 / exp).sum()), obs.size - 1
        p_chi = float(special.chdtrc(dof, statistic))
    p_value = p_chi if p_rare is None else min(1.0, 2.0 * min(p_chi, p_rare))
    return ChiSquare(statistic, dof, p_value, 0)


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
class EvaluationSlice:
    settings: dict[str, Any]
    alpha: float
    current_mode: Mode
    modes: tuple[ModeCheck, ...]
    # The tree, typical acceptance and prompt lookup on the same two gates, same position.
    methods: tuple[MethodCheck, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = plain(asdict(self))
        return out


def first_position(settings: Settings) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """p and q at the request's first drafted position, in the request's temperature."""
    models = tiny_models()
    context, _ = models.encode(settings.prompt)
    p = models.target(context)
    q = draft_law(settings.match, p, models.draft(context))
    if settings.greedy:
        return greedy_distribution(p), greedy_distribution(q)
    return np.asarray(p), q


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
    k, c = settings.k, settings.draft_cost
    sim = simulate_blocks(
        p, q, k, blocks, seed=settings.seed, verify=verify, repair=repair, cache=cache
    )
    chi = chi_square_against(sim.first_token_counts, p)
    share = sim.first_token_counts / sim.n
    law = output_distribution(p, q, verify=verify, repair=repair)
    # One block: a target pass if verified, and k draft passes.
    cost = cost_units(1 if verify else 0, k, c)
    top = np.argsort(-np.maximum(p, share), kind="stable")[:HISTOGRAM_TOKENS]
    vocab = tiny_models().vocab
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


# Imported last: the method checks reuse this module's chi-square and first position.
from witness.method_slice import MethodCheck, method_checks, own_check  # noqa: E402
from witness.methods import is_chain  # noqa: E402
