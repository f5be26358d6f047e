"""Goodness of fit at the request's first drafted position: p and q there, and the
chi-square test every sampled check (the slice's modes, the methods, the quick check) uses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from witness.core.distributions import greedy_distribution
from witness.core.settings import Settings
from witness.models.laws import adversary_row, draft_law
from witness.models.pair import models_for

MIN_EXPECTED = 5.0  # the usual floor for a chi-square cell; rarer tokens are pooled
SIGNIFICANCE = 1e-3  # a mode "keeps p" while its p-value stays above this


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


def first_position(settings: Settings) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """p and q at the request's first drafted position, in the request's temperature."""
    models = models_for(settings.models)
    context, _ = models.encode(settings.prompt)
    before, prev = models.start(context)
    p = models.target_row(before, prev)
    d = adversary_row(p) if settings.draft_source == "adversary" else models.draft_at(before, prev)
    q = draft_law(settings.match, p, d)
    if settings.greedy:
        return greedy_distribution(p), greedy_distribution(q)
    return np.asarray(p), q
