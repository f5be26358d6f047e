"""Judgements from many requests: one request's speedup is an anecdote, not a verdict.

One served request of 48 tokens is the station's worked example, but its speedup swings with
the seed (at the defaults from about 1.7× to 2.9×). A verdict (faster, slower, pays) is
drawn from an ensemble instead: for the lossless chain, the exact expected passes given each
of the state's target texts (`witness.judge.expected`, estimator ``exact-given-text``); for every
other state, ``ENSEMBLE_REQUESTS`` seeded requests served in full (``served``), the request
on screen being the first of them.

An ensemble's speedup is a ratio of means: plain decoding's cost over the mean cost per
request, the throughput a server sees. Each request's own ratio is kept for the spread and
the tallies, but never averaged into a verdict: a mean of per-request ratios sits above the
ratio of means by Jensen's inequality, and that gap would read as an effect between two
estimators.

Three properties make this cheap and sharp:

- a request's trajectory (which tokens were drafted, accepted, emitted) does not depend on
  the draft cost c, only its price does: one ensemble gives the speedup at every c, and the
  break-even cost in closed form;
- two settings are compared on the *same* seeds (common random numbers), with one estimator
  on both sides: the paired differences cancel most of the seed-to-seed spread, so a real
  effect separates from noise, and "within noise" is said only when it does not;
- the exact estimator averages each text's acceptance draws out: its texts are drawn once
  per prompt, length and seeds, and a new match or k costs one recursion over them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from witness.core.settings import SEED_MAX, Settings
from witness.core.unbounded import MaybeInfinite
from witness.cost.costing import Costing
from witness.models.cache import RequestCache
from witness.serve.paths import ServedPaths, serve_paths
from witness.serve.request import ServedPath

ENSEMBLE_REQUESTS = 32
# A longer request varies less from seed to seed (its speedup averages over more blocks), so
# an ensemble needs fewer of them: enough requests to cover ENSEMBLE_TOKENS tokens, at least
# ENSEMBLE_MIN, at most ENSEMBLE_REQUESTS (32 requests of the default 48 tokens).
ENSEMBLE_TOKENS = 32 * 48
ENSEMBLE_MIN = 8
# The two-sided level of every interval and of "within noise". A verdict is read by a class
# and compared across many states, so it is set strictly: at 95% one state in twenty would
# claim a speed change that is not there (repair off, whose true effect on speed is under
# 1%, was "faster" at one default seed in ten when this was 0.95).
CONFIDENCE = 0.99
# Below this share of the slower side's speedup a change is not called faster or slower even
# when the interval excludes 0: too small to matter, and the place where a slight bias of the
# seeds shows first.
RELATIVE_MARGIN = 0.01

Change = Literal["faster", "slower", "within noise", "same"]
# How an ensemble was judged: exact expectations given target texts, or requests served.
Estimator = Literal["exact-given-text", "served"]


def ensemble_size(tokens: int) -> int:
    """How many seeded requests judge a setting whose request emits ``tokens``.

    Examples
    --------
    >>> ensemble_size(48), ensemble_size(1), ensemble_size(96), ensemble_size(256)
    (32, 32, 16, 8)
    """
    return max(ENSEMBLE_MIN, min(ENSEMBLE_REQUESTS, -(-ENSEMBLE_TOKENS // tokens)))


def ensemble_seeds(seed: int, n: int = ENSEMBLE_REQUESTS) -> tuple[int, ...]:
    """The seeds of an ensemble: the request's own, then the next ``n - 1`` (wrapping)."""
    return tuple((seed + i) % (SEED_MAX + 1) for i in range(n))


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over requests with its spread: the standard deviation of one request, the
    range, and the confidence interval of the mean. Speedups are inf where a request cost
    nothing (verify off at c = 0).

    For a speedup (`ratio_estimate`) the mean is the ratio of means, ``sd`` one request's
    spread carried to the speedup's scale (the delta method), and the interval the mean
    cost's, mapped through tokens / cost."""

    mean: MaybeInfinite
    sd: float
    low: MaybeInfinite  # the smallest single request
    high: MaybeInfinite  # the largest single request
    ci_low: MaybeInfinite
    ci_high: MaybeInfinite
    n: int
    estimator: Estimator = "served"  # what the n are: served requests, or texts
    # Distinct target texts behind an exact estimate: n, or one when decoding is greedy (the
    # target writes one text whatever the seed); 0 for served requests.
    texts: int = 0


HUGE = 1e300  # past this, a sum of a few hundred values can overflow


def estimate(values: NDArray[np.float64]) -> Estimate:
    """Mean, spread and a t confidence interval of ``values`` (one per request)."""
    n = int(values.size)
    if not np.isfinite(values).all():
        inf = float("inf")
        return Estimate(inf, 0.0, float(values.min()), inf, inf, inf, n)
    # A speedup of 1/c at c = 1e-308 is finite, but a sum of thirty-two of them is not
    # (schemathesis found it on /api/race): such values are summed scaled by the largest.
    # Every other ensemble is summed as it is, so its figures stay bit for bit the same.
    top = float(np.abs(values).max()) if n else 0.0
    scale = top if top > HUGE else 1.0
    scaled = values / scale if scale != 1.0 else values
    mean = float(scaled.mean()) * scale
    sd = float(scaled.std(ddof=1)) * scale if n > 1 else 0.0
    half = _t_quantile(CONFIDENCE, n - 1) * sd / np.sqrt(n) if n > 1 else 0.0
    low, high = float(values.min()), float(values.max())
    with np.errstate(over="ignore"):
        return Estimate(mean, sd, low, high, float(mean - half), float(mean + half), n)


@cache
def _t_quantile(confidence: float, df: int) -> float:
    """Student's t at two-sided ``confidence``: pure, and asked of a few dozen (confidence,
    df) pairs (a verdict reads eight estimates; scipy's ppf costs ~0.3 ms each)."""
    return float(stats.t.ppf(0.5 + confidence / 2, df))


def ratio_estimate(
    tokens: int, cost: NDArray[np.float64], estimator: Estimator = "served", texts: int = 0
) -> Estimate:
    """The speedup of requests of ``tokens`` tokens that cost ``cost`` each (plain decoding
    costs one per token): tokens over the mean cost, with the mean cost's t interval mapped
    through it (a monotone map, so the interval keeps its level).

    Examples
    --------
    >>> e = ratio_estimate(12, np.array([4.0, 6.0]))
    >>> e.mean, e.low, e.high  # 12 / 5, not the mean of 3 and 2
    (2.4, 2.0, 3.0)
    >>> ratio_estimate(12, np.array([4.0, 4.0])).ci_low
    3.0
    """
    n = int(cost.size)
    speedups = _per_request(tokens, cost)
    low, high = float(speedups.min()), float(speedups.max())
    mean_cost = float(cost.mean())
    if mean_cost <= 0.0:  # every request cost nothing (verify off at c = 0)
        inf = float("inf")
        return Estimate(inf, 0.0, low, high, inf, inf, n, estimator, texts)
    sd_cost = float(cost.std(ddof=1)) if n > 1 else 0.0
    half = _t_quantile(CONFIDENCE, n - 1) * sd_cost / math.sqrt(n) if n > 1 else 0.0
    mean = _ratio(tokens, mean_cost)
    sd = _ratio(tokens * sd_cost, mean_cost * mean_cost) if sd_cost > 0.0 else 0.0
    upper = _ratio(tokens, mean_cost - half) if mean_cost > half else float("inf")
    lower = _ratio(tokens, mean_cost + half)
    return Estimate(mean, sd, low, high, lower, upper, n, estimator, texts)


def _ratio(a: float, b: float) -> float:
    """a / b for b > 0, inf where it overflows or b underflows to 0 (a draft cost of 1e-320
    per pass is a valid setting, and 48 tokens over it is past any float)."""
    with np.errstate(over="ignore", divide="ignore"):
        return float(np.float64(a) / np.float64(b))


def _per_request(tokens: int, cost: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each request's own speedup, inf where it cost nothing (or so little it overflows)."""
    with np.errstate(divide="ignore", over="ignore"):
        out: NDArray[np.float64] = np.where(cost > 0, tokens / cost, np.inf)
    return out


@dataclass(frozen=True, slots=True)
class Ensemble:
    """What ``n`` requests of one setting cost, independent of the draft cost: each served
    request's passes (``served``), or each text's expected passes (``exact-given-text``)."""

    seeds: tuple[int, ...]
    tokens: int
    k: int
    verify: bool
    target_passes: tuple[float, ...]  # per request (a count) or per text (an expectation)
    draft_passes: tuple[float, ...]
    alpha: float  # the station's α (`witness.judge.expected`, or every drafted position served)
    alpha_low: float  # the 10th and 90th percentiles of α over those positions
    alpha_high: float
    tokens_per_pass: float | None  # pooled: all tokens over all target passes
    drafted_positions: int = 0  # positions drafted (or copied) over every request
    # Per request, the (tokens scored, target passes) pairs a machine prices passes by.
    scored: tuple[tuple[tuple[int, float], ...], ...] = ()
    estimator: Estimator = "served"
    texts: int = 0  # distinct target texts (`Estimate.texts`); 0 for served requests

    def costs(self, c: float | Costing) -> NDArray[np.float64]:
        """Each request's cost in plain decoding steps: at draft cost ``c`` with every target
        pass costing 1, or with each pass priced by a `Costing`."""
        if isinstance(c, Costing):
            if c.machine is None or not self.scored:
                return self.costs(c.c)
            verifying = [sum(c.verify(x) * n for x, n in pairs) for pairs in self.scored]
            return np.asarray(verifying) + c.c * np.asarray(self.draft_passes, float)
        return np.asarray(self.target_passes, float) + c * np.asarray(self.draft_passes, float)

    def speedups(self, c: float | Costing) -> NDArray[np.float64]:
        """Each request's own speedup over plain decoding (inf at cost 0): its spread and the
        tallies of a comparison, never a verdict's mean (`speedup`)."""
        return _per_request(self.tokens, self.costs(c))

    def speedup(self, c: float | Costing) -> Estimate:
        """The ensemble's speedup: plain decoding's cost over the mean cost (a ratio of
        means), with its interval."""
        return ratio_estimate(self.tokens, self.costs(c), self.estimator, self.texts)

    def break_even_cost(self) -> float | None:
        """The draft cost at which the ensemble's speedup is exactly 1: tokens over the mean
        of target passes + c · draft passes is 1 at c = (tokens − T̄) / D̄.

        None when there is no such cost (nothing drafted, or no target pass at all: verify
        off pays at any c below 1 per token and is not speculation); 0 when even free drafts
        do not pay.
        """
        if not self.verify or not any(self.draft_passes):
            return None
        target = float(np.mean(self.target_passes))
        draft = float(np.mean(self.draft_passes))
        if target >= self.tokens:
            return 0.0
        return (self.tokens - target) / draft


def serve_ensemble(
    settings: Settings,
    n: int | None = None,
    *,
    cache: RequestCache | None = None,
    path: Callable[[Settings], ServedPath] | None = None,
) -> Ensemble:
    """Serve ``settings`` at ``n`` seeds (the request's own first); the cost is not read.

    ``n`` defaults to `ensemble_size` of the request's length.

    ``path`` serves one request's passes (`serve_path` on ``cache`` when None); a caller
    that keeps them (the app) passes its own, so the next seed's ensemble, which shares all
    but one request with this one, costs one request. A chain's requests are served together
    (`witness.serve.paths`, the same paths): all of them when ``path`` is None, those a
    `ServedPaths` does not keep yet when it is one.
    """
    n = ensemble_size(settings.tokens) if n is None else n
    seeds = ensemble_seeds(settings.seed, n)
    requests = [settings.model_copy(update={"seed": s}) for s in seeds]
    if isinstance(path, ServedPaths):
        served = path.many(requests)
    elif path is not None:
        served = [path(r) for r in requests]
    else:
        served = serve_paths(requests, cache=RequestCache() if cache is None else cache)
    alphas = np.fromiter((a for p in served for a in p.alphas), dtype=np.float64)
    drafted = int(alphas.size)
    if alphas.size == 0:  # one token to generate: nothing drafted, α where it would have been
        alphas = np.array([served[0].first_alpha])
    passes = tuple(p.target_passes for p in served)
    return Ensemble(
        seeds=seeds,
        tokens=settings.tokens,
        k=settings.k,
        verify=settings.verify,
        target_passes=passes,
        draft_passes=tuple(p.draft_passes for p in served),
        alpha=float(alphas.mean()),
        alpha_low=float(np.percentile(alphas, 10)),
        alpha_high=float(np.percentile(alphas, 90)),
        tokens_per_pass=settings.tokens * n / sum(passes) if sum(passes) else None,
        drafted_positions=drafted,
        scored=tuple(p.scored for p in served),
    )


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two settings on the same seeds: the paired change in speedup and what it amounts to."""

    before: Estimate
    after: Estimate
    change: Change
    difference: float  # mean of the paired differences (after − before); inf if unbounded
    ci_low: float
    ci_high: float
    faster_on: int  # requests where ``after`` was faster, slower, equal
    slower_on: int
    equal_on: int
    n: int


# Below display precision a paired difference is "the same", never "faster: 1.90× → 1.90×".
SAME_SPEED = 0.005


def compare(
    before: Ensemble, c_before: float | Costing, after: Ensemble, c_after: float | Costing
) -> Comparison:
    """Is ``after`` faster than ``before``? Paired over the ensembles' shared seeds.

    The change is the difference of the two ratios of means; its interval is the delta
    method's over the paired requests (each request's influence on both ratios at once).
    "faster"/"slower" only when that interval excludes 0 and the change is at least
    RELATIVE_MARGIN; "within noise" otherwise; "same" when every request is unchanged. Both
    sides must come from one estimator: a served and an exact ensemble differ by how they
    are drawn, and that difference is not an effect.
    """
    if before.seeds != after.seeds:
        raise ValueError("compare needs ensembles on the same seeds")
    if before.estimator != after.estimator:
        raise ValueError("compare needs ensembles of one estimator on both sides")
    a, b = before.speedups(c_before), after.speedups(c_after)
    both_inf = np.isinf(a) & np.isinf(b)
    with np.errstate(invalid="ignore"):
        d = np.where(both_inf, 0.0, b - a)
    faster = int((d > SAME_SPEED).sum())
    slower = int((d < -SAME_SPEED).sum())
    equal = d.size - faster - slower
    cost_a, cost_b = before.costs(c_before), after.costs(c_after)
    was = ratio_estimate(before.tokens, cost_a, before.estimator, before.texts)
    now = ratio_estimate(after.tokens, cost_b, after.estimator, after.texts)
    if not (np.isfinite(was.mean) and np.isfinite(now.mean)):  # a side cost nothing at all
        change: Change = (
            "same" if was.mean == now.mean else "faster" if now.mean > was.mean else "slower"
        )
        difference = 0.0 if change == "same" else now.mean - was.mean
        return Comparison(
            was, now, change, difference, -np.inf, np.inf, faster, slower, equal, d.size
        )
    difference = now.mean - was.mean
    half = _paired_half_width(before.tokens, cost_a, after.tokens, cost_b)
    if faster == slower == 0:
        change = "same"
    elif difference - half > 0 and difference > max(SAME_SPEED, RELATIVE_MARGIN * was.mean):
        change = "faster"
    elif difference + half < 0 and -difference > max(SAME_SPEED, RELATIVE_MARGIN * now.mean):
        change = "slower"
    else:
        change = "within noise"
    return Comparison(
        was,
        now,
        change,
        difference,
        difference - half,
        difference + half,
        faster,
        slower,
        equal,
        d.size,
    )


def paired_difference(
    tokens: int, before: NDArray[np.float64], after: NDArray[np.float64]
) -> tuple[float, float]:
    """tokens / mean(after) − tokens / mean(before) over paired requests of one length, and
    half its interval at CONFIDENCE (the delta method): `compare`'s rule, for callers that
    hold the costs themselves (the draft-length policies' race)."""
    difference = ratio_estimate(tokens, after).mean - ratio_estimate(tokens, before).mean
    return difference, _paired_half_width(tokens, before, tokens, after)


def _paired_half_width(
    tokens_a: int, cost_a: NDArray[np.float64], tokens_b: int, cost_b: NDArray[np.float64]
) -> float:
    """Half the interval of T_b / mean(b) − T_a / mean(a) over paired requests: the delta
    method, with each request's influence on the difference."""
    n = cost_a.size
    if n < 2:
        return 0.0
    influence = _influence(tokens_a, cost_a) - _influence(tokens_b, cost_b)
    sd = float(influence.std(ddof=1))
    if not math.isfinite(sd):  # a mean cost so small its square underflows: no interval
        return float("inf")
    return _t_quantile(CONFIDENCE, n - 1) * sd / math.sqrt(n)


def _influence(tokens: int, cost: NDArray[np.float64]) -> NDArray[np.float64]:
    """tokens · (cost − mean) / mean² per request: minus its influence on tokens / mean(cost)
    (a costlier request lowers the ratio); 0 where a request costs the mean, even when the
    mean is too small to square."""
    mean = float(cost.mean())
    deviation = cost - mean
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        out: NDArray[np.float64] = np.where(
            deviation == 0.0, 0.0, tokens * deviation / (mean * mean)
        )
    return out


def verdict_on_one(est: Estimate) -> Literal["pays", "does not pay", "within noise"]:
    """Does the setting beat plain decoding (speedup 1) beyond noise?"""
    if est.ci_low > 1.0:
        return "pays"
    if est.ci_high < 1.0:
        return "does not pay"
    return "within noise"
