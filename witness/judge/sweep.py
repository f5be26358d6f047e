"""The draft-length sweep: speedup against k, measured on served requests beside the formula.

Each k re-serves the request on screen (same seed, so the same keyed uniforms): that curve
is one request per k, the worked example, and it is labelled so. The formula's curve uses
the station's α (`witness.judge.ensemble`: the mean acceptance rate over every position the
seeded requests of the current state visit), so its value at the current k is the same
"expected" speedup the evidence and the gates quote. The formula assumes one α at every
position; a real request's α varies from position to position and a block's run of
acceptances stops at its first low-α position, which is why, at large k, the measured curve
sits under the formula.

The optimum is honest about the slider's range (`draft_length_optimum`), and break-even is
given per k (`break_even_cost`): "α > c" is only the k = 1 rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from witness.core.settings import (
    DISTINCT_WIDTH_MAX,
    TREE_NODES_MAX,
    Settings,
    field_bounds,
    max_depth,
    tree_nodes,
)
from witness.core.theory import break_even_cost, expected_speedup
from witness.core.trace import JsonRecord, RequestTrace
from witness.cost.costing import Costing, any_k_pays, costing, price, priced_optimum
from witness.judge.expected import ensemble_of
from witness.models.cache import RequestCache
from witness.serve.accounting import measured_speedup, priced_cost, speedup_expected
from witness.serve.request import serve_request

K_MAX = int(field_bounds("k")["max"])


@dataclass(frozen=True, slots=True)
class SweepPoint:
    k: int
    speedup_measured: float | None  # one request (the one on screen) at this k
    speedup_expected: float  # the formula at the station's α
    tokens_per_pass: float | None
    break_even_cost: float  # the draft cost at which this k stops paying, by the formula


@dataclass(frozen=True, slots=True)
class WidthPoint:
    """The request on screen drafted as a tree of this width at the current k (one request)."""

    width: int
    k: int
    tokens_per_pass: float | None
    scored_per_pass: float | None  # tokens the target scored per pass: the wider pass's size
    drafted_tokens: int
    draft_passes: int
    mean_alpha: float  # this request's acceptance per level
    speedup_measured: float | None  # priced at the sweep's draft cost
    speedup_expected: float | None  # the formula at this request's acceptance per level


@dataclass(frozen=True, slots=True)
class WidthMeasure:
    """What `width_sweep` serves for one width; any draft cost prices it (`priced`)."""

    width: int
    k: int
    tokens: int
    target_passes: int
    draft_passes: int
    drafted_tokens: int
    scored_per_pass: float | None
    mean_alpha: float
    verify: bool
    scored: tuple[int, ...] = ()  # tokens each target pass scored for its sequence

    def priced(self, cost: Costing, c: float) -> WidthPoint:
        """This width priced by ``cost`` (the formula at ``c``, its own per-level price)."""
        return WidthPoint(
            width=self.width,
            k=self.k,
            tokens_per_pass=self.tokens / self.target_passes if self.target_passes else None,
            scored_per_pass=self.scored_per_pass,
            drafted_tokens=self.drafted_tokens,
            draft_passes=self.draft_passes,
            mean_alpha=self.mean_alpha,
            speedup_measured=measured_speedup(
                self.tokens, priced_cost(cost, self.scored, self.draft_passes)
            ),
            speedup_expected=speedup_expected(self.mean_alpha, self.k, c, verify=self.verify),
        )


@dataclass(frozen=True, slots=True)
class KSweep(JsonRecord):
    alpha: float  # the station's α for the current state (see witness.judge.ensemble)
    draft_cost: float
    optimal_k: int  # the formula's best k within 1..k_max
    optimal_k_unconstrained: int | None  # over every k; None: the speedup rises without end
    speedup_limit: float | None  # what it rises toward then (inf: unbounded)
    pays: bool  # some k pays by the formula: α > c, the k = 1 break-even
    points: tuple[SweepPoint, ...]  # k = 1 .. k_max: the deepest k the tree's width allows
    k_max: int = K_MAX
    widths: tuple[WidthPoint, ...] = ()  # the tree widths at the current k (`width_sweep`)


@dataclass(frozen=True, slots=True)
class MeasuredPoint:
    """The request on screen at one k: what it emitted and how many passes of each model."""

    k: int
    tokens: int
    target_passes: int
    draft_passes: int
    scored: tuple[int, ...] = ()  # tokens each target pass scored for its sequence

    def speedup(self, cost: Costing) -> float | None:
        return measured_speedup(self.tokens, priced_cost(cost, self.scored, self.draft_passes))


def passes_scored(trace: RequestTrace) -> tuple[int, ...]:
    """What each of the request's target passes scored for its sequence."""
    return tuple(b.scored for b in trace.blocks if b.scored > 0)


def measure_k(
    settings: Settings, *, cache: RequestCache | None = None
) -> tuple[MeasuredPoint, ...]:
    """The request on screen served at every allowed k (a wide tree allows fewer).

    Neither the current k nor the draft cost changes what is measured here (the cost only
    prices the passes), so one measurement serves every k and c of the instrument.
    """
    cache = RequestCache() if cache is None else cache
    out = []
    for k in range(1, max_depth(settings.tree_width) + 1):
        trace = serve_request(settings.model_copy(update={"k": k}), cache=cache)
        t = trace.totals
        out.append(
            MeasuredPoint(k, t.tokens, t.target_passes, t.draft_passes, passes_scored(trace))
        )
    return tuple(out)


def sweep_from(
    measured: tuple[MeasuredPoint, ...],
    alpha: float,
    settings: Settings,
    widths: tuple[WidthMeasure, ...] = (),
) -> KSweep:
    """The sweep from its measured points and the station's α, priced as ``settings`` price
    passes (`witness.cost.costing`: on a machine every k has its own per-level price).

    For a tree, α is the acceptance per level and the formula is the chain's with α := β:
    a level is one draft pass, whatever its width (`witness.methods.block`)."""
    k_max = measured[-1].k
    cost, c = costing(settings), price(settings)
    optimum = priced_optimum(settings, alpha, k_max)
    points = tuple(
        SweepPoint(
            k=m.k,
            speedup_measured=m.speedup(cost),
            speedup_expected=float(expected_speedup(alpha, m.k, price(settings, m.k))),
            tokens_per_pass=m.tokens / m.target_passes if m.target_passes else None,
            break_even_cost=float(break_even_cost(alpha, m.k)),
        )
        for m in measured
    )
    return KSweep(
        alpha=alpha,
        draft_cost=c,
        optimal_k=optimum.k,
        optimal_k_unconstrained=optimum.unconstrained,
        speedup_limit=optimum.limit,
        pays=any_k_pays(settings, alpha),
        points=points,
        k_max=k_max,
        widths=tuple(
            w.priced(cost, price(settings.model_copy(update={"tree_width": w.width})))
            for w in widths
        ),
    )


def width_sweep(
    settings: Settings, *, cache: RequestCache | None = None
) -> tuple[WidthMeasure, ...]:
    """The request on screen as a tree of every width that fits at the current k.

    One request per width (the same seed, so sibling 0 makes the chain's draws): a worked
    example, not a verdict. Prompt lookup copies one chain and has no width.
    """
    cache = RequestCache() if cache is None else cache
    if settings.draft_source == "lookup":
        return ()
    out = []
    for w in range(1, int(field_bounds("tree_width")["max"]) + 1):
        if tree_nodes(w, settings.k) > TREE_NODES_MAX or (
            settings.drafting == "distinct" and w > DISTINCT_WIDTH_MAX
        ):
            continue  # a tree the settings refuse
        s = settings.model_copy(update={"tree_width": w})
        trace = serve_request(s, cache=cache)
        t = trace.totals
        out.append(
            WidthMeasure(
                width=w,
                k=s.k,
                tokens=t.tokens,
                target_passes=t.target_passes,
                draft_passes=t.draft_passes,
                drafted_tokens=t.drafted_tokens,
                scored_per_pass=t.scored_per_pass,
                mean_alpha=t.mean_alpha,
                verify=s.verify,
                scored=passes_scored(trace),
            )
        )
    return tuple(out)


def sweep_k(
    settings: Settings, *, alpha: float | None = None, cache: RequestCache | None = None
) -> KSweep:
    """Serve the request at every allowed k; the formula's curve and optimum beside it.

    ``alpha`` is the station's α for ``settings`` (computed from its ensemble when None).
    The requests share ``cache`` (a fresh one when None): they visit many of the same
    contexts.
    """
    cache = RequestCache() if cache is None else cache
    if alpha is None:
        alpha = ensemble_of(settings, cache=cache).alpha
    widths = width_sweep(settings, cache=cache)
    return sweep_from(measure_k(settings, cache=cache), alpha, settings, widths)
