"""What a pass costs on a real machine: model pairs and machines (`witness.cost.catalog`),
priced by the roofline or by passes timed on the machine.

With ``machine = custom`` the station keeps its teaching model: a draft pass costs the slider's
c of a target pass, and a target pass costs the same whatever it scores. On a machine, every
pass is priced by `witness.cost.roofline` from the pair's sizes, the batch and the context, in
units of one plain decoding step (one target pass scoring one token of every sequence):

    c       = T_draft(batch) / T_target(batch)
    v(s)    = T_target(batch · s) / T_target(batch)   (a verifying pass scoring s tokens each)

A block that drafts k tokens then costs k·c + v(k + 1), and the effective cost of one drafted
token is c + (v(k + 1) − 1)/k: the formulas the station already states hold with it at that
k. The roofline's v is convex in s (a maximum of two lines), so there the effective cost never
falls as k grows, and "α > c" at k = 1 answers whether any k pays. Passes measured on a real
machine (`witness.cost.passes`) are not convex: the second token of a verifying pass costs
most (another attention kernel), so their effective cost can fall with k and `any_k_pays`
searches every k instead.

The draft pass is the pair's draft model's, or with ``models = early-exit`` the pair's target
run through the first quarter of its layers and an exit head (`witness.cost.catalog`): on
the roofline the bytes and arithmetic of those layers and the head, on timed passes the
fitted pass model of a model that deep, so its fixed time per layer counts as much as its
bytes. The verifying pass is the target's whole pass either way.

Every number about a real machine or model is cited where it is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from math import inf

import numpy as np
from numpy.typing import ArrayLike, NDArray

from witness.core.settings import TREE_NODES_MAX, Settings, drafted_width, tree_nodes
from witness.core.theory import (
    Optimum,
    draft_length_optimum,
    expected_tokens_per_pass,
    speculation_pays,
)
from witness.cost.catalog import BF16, MODELS, Machine, Model, Pair, drafting
from witness.cost.catalog import MACHINES as MACHINES
from witness.cost.catalog import PAIRS as PAIRS
from witness.cost.passes import STACKS, PassTimes, Provenance, build
from witness.cost.roofline import roofline_pass_seconds
from witness.models.laws import FloatArray


@dataclass(frozen=True, slots=True)
class Costing:
    """The price of every pass of a request, in plain decoding steps (see the module).

    ``machine`` is None for custom: c is the slider's and every target pass costs 1.
    ``pair`` is the pair as it drafts (`witness.cost.catalog.drafting`): with an early exit,
    its draft is the target's own first layers and exit head.
    ``stack`` is None where passes are priced by the roofline, else the serving stack whose
    measured passes price them (`witness.cost.passes`).
    """

    c: float
    machine: Machine | None = None
    pair: Pair | None = None
    batch: int = 1
    context: int = 0
    plain_seconds: float = 0.0  # one plain decoding step: a target pass over the batch
    draft_seconds: float = 0.0  # one draft pass over the batch
    drafts_with_model: bool = True  # False for prompt lookup: no draft model is loaded or run
    stack: str | None = None
    # Passes already priced, by model and tokens: an ensemble asks for the same few verifying
    # passes thousands of times, and hashing the whole pricing each time would cost more.
    _memo: dict[tuple[str, int], float] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def seconds(self, model: Model, tokens: int) -> float:
        """One pass of ``model`` scoring ``tokens`` tokens of every sequence of the batch."""
        key = (model.key, tokens)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._pass_seconds(model, tokens)
        return found

    def _pass_seconds(self, model: Model, tokens: int) -> float:
        assert self.machine is not None
        if self.stack is not None:
            # Timed passes interpolate: one call prices every length up to a full tree's
            # (each a pass the page may ask for next) for the price of one.
            upto = max(tokens, 1 + TREE_NODES_MAX)
            every = self.seconds_at(model, np.float64(self.batch), np.arange(1, upto + 1))
            self._memo.update({(model.key, n + 1): float(t) for n, t in enumerate(every)})
            return self._memo[(model.key, tokens)]
        m = self.machine
        return roofline_pass_seconds(
            model.params,
            self.batch * tokens,
            bandwidth=m.bandwidth,
            flops=m.flops,
            bytes_per_param=BF16,
            kv_bytes=self.batch * self.context * model.kv_per_token,
        )

    def seconds_at(self, model: Model, batch: ArrayLike, tokens: ArrayLike) -> FloatArray:
        """`seconds` at arrays of batch sizes and tokens per sequence (broadcast): the
        roofline of `roofline_pass_seconds`, vectorised, or the stack's timed passes."""
        assert self.machine is not None
        m = self.machine
        if self.stack is not None:
            return passes().seconds(model.key, self.stack, batch, self.context, tokens)
        batch, tokens = np.asarray(batch, dtype=np.float64), np.asarray(tokens, dtype=np.float64)
        memory = (model.params * BF16 + batch * self.context * model.kv_per_token) / m.bandwidth
        out: FloatArray = np.maximum(memory, 2.0 * model.params * batch * tokens / m.flops)
        return out

    @property
    def measured(self) -> bool:
        """Priced from passes timed on the machine, not by the roofline."""
        return self.stack is not None

    def provenance(self, scored: int) -> Provenance | None:
        """Where this pricing's numbers come from at a verifying pass scoring ``scored``
        tokens a sequence: every pass measured, between or beyond the measured points, or
        the fit alone (None for the roofline and custom). The weakest of its passes wins."""
        if self.stack is None or self.pair is None:
            return None
        t, d, times = self.pair.target.key, self.pair.draft.key, passes()
        found = {
            times.provenance(t, self.stack, self.batch, self.context, 1),
            times.provenance(t, self.stack, self.batch, self.context, scored),
        }
        if self.drafts_with_model:
            found.add(times.provenance(d, self.stack, self.batch, self.context, 1))
        for weakest in ("fit", "beyond", "between"):
            if weakest in found:
                return weakest
        return "measured"

    def verify(self, scored: int) -> float:
        """A target pass in which each sequence scores ``scored`` tokens (1: a plain step)."""
        if self.machine is None or self.pair is None or scored <= 1:
            return 1.0
        return self.seconds(self.pair.target, scored) / self.plain_seconds

    def per_draft(self, k: int, scored: int | None = None) -> float:
        """The effective cost of one drafted level: c + (v(scored) − 1)/k, scored = k + 1 for
        a chain (1 + the drafted nodes for a tree). With it, a block of k drafts costs
        k · per_draft + 1 plain steps, which is what every formula of the station assumes."""
        if k < 1:
            raise ValueError(f"k must be at least 1 (got {k})")
        return self.c + (self.verify(k + 1 if scored is None else scored) - 1.0) / k

    @property
    def machine_label(self) -> str:
        if self.machine is None:
            return "custom"
        if self.machine.measured:
            how = "roofline" if self.stack is None else f"measured, {STACKS[self.stack]}"
            return f"{self.machine.label} ({how})"
        return self.machine.label

    @property
    def weights_bytes(self) -> float:
        """The weights the server holds: the target's, and the draft's unless lookup (an
        early exit's head alone: its layers are the target's)."""
        assert self.pair is not None
        draft = self.pair.draft.held_params if self.drafts_with_model else 0.0
        return (self.pair.target.params + draft) * BF16

    @property
    def kv_bytes(self) -> float:
        """KV cache of the batch, each model that runs: what the context costs in memory (an
        early exit writes into the target's cache and holds none of its own)."""
        assert self.pair is not None
        draft = self.pair.draft.held_kv_per_token if self.drafts_with_model else 0.0
        return self.batch * self.context * (self.pair.target.kv_per_token + draft)

    @property
    def fits(self) -> bool:
        """The weights and the batch's KV cache fit in the machine's memory."""
        if self.machine is None:
            return True
        return self.weights_bytes + self.kv_bytes <= self.machine.memory


def costing(s: Settings) -> Costing:
    """How ``s`` prices its passes (cached: the page asks at every sentence).

    Prompt lookup copies its draft and runs no draft model: its c is 0 on every machine. On
    machine custom c is the slider's whatever models draft: the learner's own figure."""
    if s.machine == "custom":
        return Costing(0.0 if s.draft_source == "lookup" else s.draft_cost)
    # Keyed on every field the price reads: the models decide which draft pass is priced.
    on = _on_machine(s.machine, s.pair, s.models, s.batch, s.context, stack_of(s))
    return replace(on, c=0.0, drafts_with_model=False) if s.draft_source == "lookup" else on


def stack_of(s: Settings) -> str | None:
    """The serving stack whose measured passes price ``s``: None on a datasheet machine or
    with stack roofline, where the roofline prices them."""
    measured = s.machine != "custom" and MACHINES[s.machine].measured
    return s.stack if measured and s.stack != "roofline" else None


@lru_cache(maxsize=1024)
def _on_machine(
    machine: str, pair: str, models: str, batch: int, context: int, stack: str | None
) -> Costing:
    m, p = MACHINES[machine], drafting(pair, models)
    shell = Costing(0.0, m, p, batch, context, stack=stack)
    plain, draft = shell.seconds(p.target, 1), shell.seconds(p.draft, 1)
    return Costing(draft / plain, m, p, batch, context, plain, draft, stack=stack)


@lru_cache(maxsize=1)
def passes() -> PassTimes:
    """The H200's measured passes and the fits to them, read once per process; a model never
    timed (an early exit, the T5 pair) is priced by the fit alone."""
    h200 = MACHINES["h200"]
    shapes = {key: m.shape for key, m in MODELS.items()}
    return build(shapes, bandwidth=h200.bandwidth, flops=h200.flops)


def scored_per_sequence(s: Settings, k: int | None = None) -> int:
    """Tokens a full block's verifying pass scores for each sequence: the drafted nodes and
    the position after the last word (k + 1 for a chain)."""
    depth = s.k if k is None else k
    return 1 + tree_nodes(drafted_width(s), depth)


def price(s: Settings, k: int | None = None) -> float:
    """The cost of one drafted level at draft length ``k`` (the settings' own by default), in
    plain decoding steps: the slider's c (custom), or the machine's c plus the verifying
    pass's surcharge spread over the k levels (`Costing.per_draft`)."""
    depth = s.k if k is None else k
    return costing(s).per_draft(depth, scored_per_sequence(s, depth))


# How far a machine's best k is searched for a chain: at batch 1 an H100 pass stays
# memory-bound to ~295 tokens, so the optimum of any α < 0.999 lies well inside this.
K_SEARCH_ON_MACHINE = 1024


def prices(s: Settings, ks: NDArray[np.int64]) -> FloatArray:
    """`price` at every draft length in ``ks`` at once (vectorised roofline)."""
    cost = costing(s)
    if cost.machine is None or cost.pair is None:
        return np.full(ks.shape, cost.c)
    return _roofline_prices(cost, drafted_width(s), ks)


def _roofline_prices(cost: Costing, width: int, ks: NDArray[np.int64]) -> FloatArray:
    """The price per draft at every k in ``ks``, each verifying pass priced as ``cost``
    prices passes (the roofline, or a stack's measured passes)."""
    assert cost.pair is not None
    # A tree's nodes, w + w² + … + w^k, in floats: past the width's range (where the search
    # for its unconstrained best k goes) they overflow to inf, a pass no k can afford.
    with np.errstate(over="ignore", invalid="ignore"):
        nodes = width * (np.float64(width) ** ks - 1.0) / (width - 1) if width > 1 else ks
        seconds = cost.seconds_at(cost.pair.target, np.float64(cost.batch), 1.0 + nodes)
        seconds = np.where(np.isfinite(nodes), seconds, np.inf)
        out: FloatArray = cost.c + (seconds / cost.plain_seconds - 1.0) / ks
    return out


_SEARCH = np.arange(1, K_SEARCH_ON_MACHINE + 1)
_SEARCH.flags.writeable = False


@lru_cache(maxsize=512)
def _search_prices(cost: Costing, width: int) -> FloatArray:
    """`prices` over the whole search for a best k, kept per pricing: they do not depend on
    α, and a never-seen state (a new match) asks for them again at every batch of its batch
    table. Read-only, as it is shared; each element is what `prices` computes for that k."""
    out = _roofline_prices(cost, width, _SEARCH)
    out.flags.writeable = False
    return out


def priced_optimum(s: Settings, alpha: float, k_max: int) -> Optimum:
    """The formula's best draft length for ``s``, every k priced as ``s`` prices it.

    With machine custom this is `draft_length_optimum`. On a machine the verifying pass
    grows dearer with k once it is compute-bound, so the best k is finite: searched over
    `K_SEARCH_ON_MACHINE` lengths, for a tree too (past its width's range the best k is
    "past the slider", as with custom; it is never "no finite optimum", since a deep
    enough tree makes every pass compute-bound).
    """
    cost = costing(s)
    if cost.machine is None:
        return draft_length_optimum(alpha, cost.c, k_max)
    top, ks = K_SEARCH_ON_MACHINE, _SEARCH
    if alpha >= 1.0:
        tokens = ks + 1.0
    else:
        tokens = (1.0 - alpha ** (ks + 1)) / (1.0 - alpha)
    speedups = np.round(tokens / (ks * _search_prices(cost, drafted_width(s)) + 1.0), 12)
    inside = int(ks[np.argmax(speedups[:k_max])])
    best = int(ks[np.argmax(speedups)])
    return Optimum(inside, k_max, best if best < top else None, None if best < top else inf)


def any_k_pays(s: Settings, alpha: float) -> bool:
    """Whether some draft length beats plain decoding at ``alpha``, every k priced as ``s``
    prices it: α above the k = 1 price where the price per draft never falls with k (custom,
    the roofline), else the best of every k searched."""
    cost = costing(s)
    if not cost.measured:
        return speculation_pays(alpha, price(s, 1))
    tokens = expected_tokens_per_pass(alpha, _SEARCH)
    return bool(np.any(tokens > _SEARCH * _search_prices(cost, drafted_width(s)) + 1.0))


def prices_by_batch(s: Settings, batches: NDArray[np.int64], k: int | None = None) -> FloatArray:
    """`price` at draft length ``k`` for every batch in ``batches`` at once (vectorised):
    what the batch axis scans, 512 batches in one numpy expression."""
    depth = s.k if k is None else k
    out: FloatArray = prices_by_batch_and_k(s, batches, np.array([depth]))[0]
    return out


def prices_by_batch_and_k(
    s: Settings, batches: NDArray[np.int64], ks: NDArray[np.int64]
) -> FloatArray:
    """`price` at every draft length in ``ks`` (rows) and batch in ``batches`` (columns), the
    passes of every row priced in one broadcast call per model."""
    cost = costing(s)
    if cost.machine is None or cost.pair is None:
        return np.full((len(ks), len(batches)), cost.c)
    t, d = cost.pair.target, cost.pair.draft
    b = batches.astype(np.float64)[None, :]
    plain = cost.seconds_at(t, b, np.float64(1.0))
    draft = 0.0 if s.draft_source == "lookup" else cost.seconds_at(d, b, np.float64(1.0)) / plain
    scored = np.array([scored_per_sequence(s, int(k)) for k in ks], dtype=np.float64)[:, None]
    verify = cost.seconds_at(t, b, scored) / plain
    out: FloatArray = draft + (verify - 1.0) / ks[:, None]
    return out
