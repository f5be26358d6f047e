"""Adaptive draft length: policies raced on one seeded request with the same uniforms.

Every policy serves the same request (the chain: one sampled draft per level, the exact
rule) and differs only in how many tokens each block drafts; how a drafted token is checked
is `witness.core.rule.verify_unchecked` for all of them. Every draw is keyed by the absolute
output position t of the token it decides, not by the block: the draft token at position t
uses ``uniforms(seed, t, 0, DRAFT)``, its accept test ``uniforms(seed, t, 0, ACCEPT)``, and a
block's repair, bonus or plain token at position t ``uniforms(seed, t, 0, FINAL)``. So two
policies standing at the same position with the same context make the same draw, and a race
compares policies, not luck.

The policies (``K_MAX`` = 16 is the station's longest draft):

``fixed``
    k = settings.k every block.
``heuristic``
    Starts at settings.k; after a block that planned k and had ``accepted`` drafts accepted,
    the next k is ``next_k_heuristic(k, accepted)`` (+2 when all were accepted, else −1,
    never below 1: Hugging Face transformers' default), at most ``K_MAX``.
``confidence``
    Drafts until the draft's probability of its own token, q(x), falls below
    ``CONFIDENCE_THRESHOLD`` (0.4; that token is still drafted, then drafting stops), or
    ``K_MAX`` tokens.
``oracle`` (hindsight)
    Looks ahead with the same accept uniforms and drafts up to and including the first token
    the target will reject, at most ``K_MAX``: no draft is wasted past a rejection. Its
    output equals fixed k = 16's with these uniforms (the same tokens are drafted, checked
    and repaired), so it is lossless; it is a bound, not a policy a server can run.
``recovery``
    The heuristic, plus: it measures acceptance over its last ``RECOVERY_WINDOW``
    speculative blocks, as accepted drafts over checked drafts (the accepted prefix and the
    rejected token; drafts past a rejection were never tested). Once at least
    ``RECOVERY_MIN_BLOCKS`` blocks are in the window and the measure is below the k = 1
    break-even (α < c with c = ``price(settings, 1)``), it stops speculating and takes plain
    decoding steps (one target pass, one token sampled from p with the FINAL uniform, no
    drafts), then probes with one block of k = 1 after ``PROBE_AFTER`` plain steps. Below c
    on fewer blocks than that, it shrinks the next block to k = 1. A probe
    that leaves the measure below c doubles the wait (at most ``PROBE_MAX``); one that lifts
    it resumes the heuristic from k = next_k_heuristic(1, accepted). With verify off nothing
    is checked (every draft is emitted), so it is the heuristic.

Every block drafts no further than the request needs (a verified block of j drafts emits at
most j + 1 tokens, so it drafts at most room − 1; unverified drafts are the output, so at
most room), as `witness.serve.request` does.

Why every policy keeps p (verify and repair on): the number of tokens a block drafts is
decided by the draft's own tokens (confidence), the past (heuristic, recovery) or, for the
oracle, by the accept decisions at positions up to the one it stops at. In each case the
event "the block ended at position t with these tokens" depends only on uniforms keyed at
positions ≤ t, and the next block starts at t + 1 with uniforms never looked at: the
standard argument for speculative sampling applies block by block. A policy that peeks and
stops *before* the token it knows will be rejected, then samples a bonus from p, is not
lossless (the token at that position is p's only when the draft would have been rejected):
that is the tests' teeth twin (`_race_on(peek=True)`), never a public policy.

Accounting (checked by the tests): the emitted tokens add up to settings.tokens; with verify
on every block is one target pass (scoring its drafts + 1 tokens); the cost is
Σ verify(scored) + c · draft passes (`witness.serve.accounting.priced_cost`); the speedup is tokens
over that cost (plain decoding costs one step a token). Which policy the seeded requests rank
first, and whether by more than noise, is `witness.judge.ranking`'s.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from witness.core.distributions import sample_from_cdf
from witness.core.keys import Stream, uniforms
from witness.core.modes import mode_of
from witness.core.rule import accepts, verify_unchecked
from witness.core.settings import Settings
from witness.core.unbounded import MaybeInfinite
from witness.cost.costing import costing, price
from witness.cost.roofline import next_k_heuristic
from witness.judge.ensemble import Estimate, ensemble_seeds, ensemble_size, ratio_estimate
from witness.methods.block import compiled_chain, is_chain
from witness.models.cache import RequestCache
from witness.models.laws import FloatArray, Law, context_pair
from witness.models.lm import tiny_models
from witness.models.pair import models_for
from witness.serve import chain
from witness.serve.accounting import measured_speedup, priced_cost

Policy = Literal["fixed", "heuristic", "confidence", "oracle", "recovery"]
POLICIES: tuple[Policy, ...] = ("fixed", "heuristic", "confidence", "oracle", "recovery")

K_MAX = 16  # the longest draft any policy makes: the k slider's maximum
CONFIDENCE_THRESHOLD = 0.4  # stop drafting after a token the draft gives less than this
# Recovery judges acceptance over its last few speculative blocks: one block of an honest
# draft can be all rejections by bad luck, so a single block is too little evidence to resume
# on, while a long window keeps paying for drafts long after the draft stopped agreeing.
RECOVERY_WINDOW = 4
# Plain steps before the first probe, and the longest wait between probes. A probe (k = 1)
# costs one draft pass when it fails; doubling the wait after each failure keeps a draft
# that never agrees to a handful of probes per request (vLLM-style systems switch
# speculation off for whole stretches of load for the same reason), while a draft that
# starts agreeing again is found within PROBE_AFTER tokens at first.
PROBE_AFTER = 16
PROBE_MAX = 64
# One block is too little evidence to stop on: an honest draft (α ≈ 0.6) rejects its first
# token four times in ten, and a false stop costs PROBE_AFTER steps at 1× instead of ~2×.
# Two blocks in a row with nothing accepted is rare for such a draft and costs a draft that
# never agrees only k + (k − 1) wasted draft passes before it stops.
RECOVERY_MIN_BLOCKS = 2


@dataclass(frozen=True, slots=True)
class PolicyRun:
    """One policy's request: per block what it planned, drafted, had accepted and emitted."""

    policy: Policy
    planned: tuple[int, ...]  # the k the policy chose (0: a plain decoding step)
    drafted: tuple[int, ...]  # draft passes of the block (planned, cut to the room left)
    accepted: tuple[int, ...]  # drafts the target accepted (all of them with verify off)
    emitted: tuple[int, ...]  # tokens the block added to the output
    output: tuple[int, ...]  # the output's token ids
    text: str
    target_passes: int
    draft_passes: int
    scored: tuple[int, ...]  # tokens each target pass scored for the sequence
    cost: float  # in plain decoding steps
    speedup: float | None  # tokens / cost against plain decoding; None at cost 0
    # The largest exact distance from p of the law the mode emits at a drafted position of
    # this request (0 with verify and repair on, by the algebra; as the trace counts it).
    tv_max: float = 0.0

    @property
    def blocks(self) -> int:
        return len(self.drafted)

    @property
    def plain_steps(self) -> int:
        """Blocks that drafted nothing: a plain target pass (recovery, or the last token)."""
        return sum(1 for d in self.drafted if d == 0)


@dataclass(frozen=True, slots=True)
class Race:
    """The policies on one seeded request."""

    settings: Settings  # as asked
    raced: Settings  # the chain actually raced (a tree, typical or lookup: its chain)
    runs: tuple[PolicyRun, ...]
    c: float  # the k = 1 break-even cost: what recovery compares measured acceptance with
    lossless: bool  # verify and repair on: every policy keeps p

    @property
    def substituted(self) -> bool:
        """Whether the chain raced is not the request the settings serve."""
        return self.raced != self.settings

    def run(self, policy: Policy) -> PolicyRun:
        return next(r for r in self.runs if r.policy == policy)


@dataclass(frozen=True, slots=True)
class RaceEnsemble:
    """Each policy's speedup over ``n`` seeded requests (the first is the request raced)."""

    seeds: tuple[int, ...]
    # Each policy's speedup over them: a ratio of means, as every ensemble's
    # (`witness.judge.ensemble`).
    speedups: tuple[tuple[Policy, Estimate], ...]
    # Each policy's speedup on every seed (inf at cost 0).
    per_request: tuple[tuple[Policy, tuple[MaybeInfinite, ...]], ...] = ()
    # Each policy's cost on every seed, in plain decoding steps, for paired comparisons.
    per_request_cost: tuple[tuple[Policy, tuple[float, ...]], ...] = ()
    tokens: int = 0

    def speedup(self, policy: Policy) -> Estimate:
        return next(e for p, e in self.speedups if p == policy)

    def values(self, policy: Policy) -> tuple[float, ...]:
        return next(v for p, v in self.per_request if p == policy)

    def costs(self, policy: Policy) -> tuple[float, ...]:
        return next(v for p, v in self.per_request_cost if p == policy)


def raced_chain(s: Settings) -> Settings:
    """The chain a race runs for ``s``: the same match, k, seeds, switches and pricing; a tree
    or typical acceptance becomes the chain, prompt lookup the draft model (it has no q)."""
    if is_chain(s):
        return s
    source = "model" if s.draft_source == "lookup" else s.draft_source
    return s.model_copy(
        update={
            "tree_width": 1,
            "drafting": "sample",
            "acceptance": "exact",
            "draft_source": source,
        }
    )


@dataclass(frozen=True, slots=True)
class _Grid:
    """The request's keyed uniforms by output position t = 0..tokens."""

    draft: FloatArray
    accept: FloatArray
    final: FloatArray


def _grid(seed: int, tokens: int) -> _Grid:
    # Positions 0..tokens: a block's closing token may sit one past its last draft.
    t = np.arange(tokens + 1)
    return _Grid(*(uniforms(seed, t, 0, x) for x in (Stream.DRAFT, Stream.ACCEPT, Stream.FINAL)))


def race(settings: Settings) -> Race:
    """Race every policy on the request ``settings`` serve (its chain), same uniforms."""
    s = raced_chain(settings)
    grid = _grid(s.seed, s.tokens)
    runs = tuple(_race_on(p, s, grid) for p in POLICIES)
    return Race(settings, s, runs, price(s, 1), mode_of(s.verify, s.repair) == "lossless")


def race_ensemble(settings: Settings, n: int | None = None) -> RaceEnsemble:
    """Each policy's speedup over ``n`` seeded requests (`ensemble_seeds`; by default as many
    as the station's ensembles use for this length), from which every verdict is drawn."""
    s = raced_chain(settings)
    seeds = ensemble_seeds(s.seed, ensemble_size(s.tokens) if n is None else n)
    values: dict[Policy, list[float]] = {p: [] for p in POLICIES}
    costs: dict[Policy, list[float]] = {p: [] for p in POLICIES}
    for seed in seeds:
        one = s.model_copy(update={"seed": seed})
        grid = _grid(seed, s.tokens)
        for p in POLICIES:
            run = _race_on(p, one, grid)
            values[p].append(float("inf") if run.speedup is None else run.speedup)
            costs[p].append(run.cost)
    return RaceEnsemble(
        seeds,
        tuple((p, ratio_estimate(s.tokens, np.asarray(costs[p]))) for p in POLICIES),
        tuple((p, tuple(values[p])) for p in POLICIES),
        tuple((p, tuple(costs[p])) for p in POLICIES),
        s.tokens,
    )


# ------------------------------------------------------------------------- the serve loop


class _Planner:
    """How many tokens the next block may draft (before the room cut), and what it learns."""

    def __init__(self, policy: Policy, s: Settings) -> None:
        self.policy = policy
        self.k = s.k
        self.recovering = policy == "recovery" and s.verify
        self.break_even = price(s, 1)
        self.window: deque[tuple[int, int]] = deque(maxlen=RECOVERY_WINDOW)
        self.plain_left = 0  # plain steps before the next probe
        self.wait = PROBE_AFTER
        self.stopped = False

    def plan(self) -> int:
        if self.policy in ("confidence", "oracle"):
            return K_MAX  # their stop rules decide within the block
        if self.plain_left > 0:
            return 0
        return self.k

    def after(self, planned: int, drafted: int, accepted: int) -> None:
        if self.policy not in ("heuristic", "recovery"):
            return
        if planned == 0:  # a plain step: count down to the next probe
            self.plain_left -= 1
            if self.plain_left == 0:
                self.k = 1  # the probe
            return
        self.k = min(K_MAX, next_k_heuristic(planned, accepted))
        if not self.recovering or drafted == 0:
            return
        probing = self.stopped
        # Checked: the accepted prefix and the rejected token (if any); drafts past a
        # rejection were never tested and say nothing about acceptance.
        self.window.append((accepted + (accepted < drafted), accepted))
        checked = sum(n for n, _ in self.window)
        measured = sum(a for _, a in self.window) / checked
        self.stopped = len(self.window) >= RECOVERY_MIN_BLOCKS and measured < self.break_even
        if self.stopped:
            if probing:  # the probe did not bring the measure above c: wait longer
                self.wait = min(PROBE_MAX, 2 * self.wait)
            self.plain_left = self.wait
            return
        self.wait = PROBE_AFTER
        if measured < self.break_even:
            # Below break-even on too little evidence to stop: shrink to the cheapest draft,
            # which tells as much about acceptance as a long one.
            self.k = 1


class BlockServer(Protocol):
    """What serves a race's blocks: `serve(t0, limit, room)` drafts at most ``limit`` tokens
    from output position ``t0``, verifies them, moves its context on by the ``room`` cut, and
    returns the tokens emitted (before the cut), the drafts made, those accepted and the
    largest exact TV from p of the mode's law at the drafted positions."""

    def serve(self, t0: int, limit: int, room: int) -> tuple[tuple[int, ...], int, int, float]: ...


def _race_on(
    policy: Policy,
    s: Settings,
    grid: _Grid,
    *,
    peek: bool = False,
    blocks: BlockServer | None = None,
) -> PolicyRun:
    """Serve ``s`` under ``policy`` with the position-keyed uniforms of ``grid``.

    ``peek`` (tests only, with the oracle) is the broken twin: it stops *before* the token
    the target will reject and closes the block with a bonus from p. ``blocks`` serves each
    block: the compiled chain (`_Blocks`) unless another is given (the tests' numpy
    reference, which the planning, the accounting and the price around it are shared with).
    """
    models = models_for(s.models)
    if blocks is None:
        blocks = (
            _Blocks(s, grid, _stop(policy, s, peek))
            if compiled_chain(s)
            else LawBlocks(policy, s, grid, RequestCache(models=s.models), peek)
        )
    out: list[int] = []
    planner = _Planner(policy, s)
    planned_l: list[int] = []
    drafted_l: list[int] = []
    accepted_l: list[int] = []
    emitted_l: list[int] = []
    scored: list[int] = []
    tv_max = 0.0
    while len(out) < s.tokens:
        room = s.tokens - len(out)
        planned = planner.plan()
        limit = min(planned, room - 1 if s.verify else room)
        emitted, drafted, accepted, tv = blocks.serve(len(out), limit, room)
        emitted = emitted[:room]
        tv_max = max(tv_max, tv)
        planner.after(planned, drafted, accepted)
        planned_l.append(planned)
        drafted_l.append(drafted)
        accepted_l.append(accepted)
        emitted_l.append(len(emitted))
        if s.verify:
            scored.append(drafted + 1)
        out.extend(emitted)
    cost = priced_cost(costing(s), scored, sum(drafted_l))
    return PolicyRun(
        policy=policy,
        planned=tuple(planned_l),
        drafted=tuple(drafted_l),
        accepted=tuple(accepted_l),
        emitted=tuple(emitted_l),
        output=tuple(out),
        text=models.text(out),
        target_passes=len(scored),
        draft_passes=sum(drafted_l),
        scored=tuple(scored),
        cost=cost,
        speedup=measured_speedup(s.tokens, cost),
        tv_max=tv_max,
    )


def _stop(policy: Policy, s: Settings, peek: bool) -> int:
    """The stop rule a policy adds to its blocks (`witness.serve.chain`)."""
    if policy == "confidence":
        return chain.STOP_UNSURE
    if policy == "oracle" and s.verify:
        # Hindsight: the target's own test with the very uniform it will use.
        return chain.STOP_BEFORE_REJECTED if peek else chain.STOP_REJECTED
    return chain.NO_STOP


class _Blocks:
    """A race's blocks on one request: `witness.serve.chain`'s block with uniforms keyed by
    output position, the draft's context carried from block to block."""

    def __init__(self, s: Settings, grid: _Grid, stop: int) -> None:
        models = tiny_models()
        prompt, _ = models.encode(s.prompt)
        self.tables = (models.target_rows, models.row_of, models.draft_rows)
        self.before, self.prev = context_pair(models, prompt)
        self.s, self.grid, self.stop = s, grid, stop
        self.token = np.empty(K_MAX, dtype=np.intp)
        self.alpha, self.tv = np.empty(K_MAX), np.empty(K_MAX)
        self.none = np.empty(K_MAX)  # p(x) and q(x): a race does not read them

    def serve(self, t0: int, limit: int, room: int) -> tuple[tuple[int, ...], int, int, float]:
        """Draft at most ``limit`` tokens from output position ``t0`` (until the stop rule),
        verify them in one target pass, and move the context on by the ``room`` cut.

        Returns the tokens emitted (before the room cut), the drafts made, those accepted,
        and the largest exact TV from p of the mode's law at the drafted positions."""
        s, grid = self.s, self.grid
        n, accepted, rejected, closing, _, _ = chain.block_kernel(
            *self.tables, self.before, self.prev, limit,
            grid.draft[t0 : t0 + limit], grid.accept[t0 : t0 + limit],
            grid.final[t0 : t0 + limit + 1], True, s.match, s.greedy,
            s.draft_source == "adversary", s.verify, s.repair, self.stop,
            CONFIDENCE_THRESHOLD, self.token, self.alpha, self.none, self.none, self.tv, True,
        )  # fmt: skip
        drafted = self.token[:n].tolist()
        emitted = tuple(drafted[:accepted]) + ((closing,) if s.verify else ())
        for x in emitted[:room]:
            self.before, self.prev = self.prev, x
        return emitted, n, accepted, float(self.tv[:n].max()) if n else 0.0


StopRule = Callable[[int, Law, int], bool]


class LawBlocks:
    """A race's blocks served position by position from the laws at each context (the
    uniforms keyed by position): the transformers' race, and the reference the compiled
    `_Blocks` is held to bit for bit on the n-grams (tests/witness/reference_loops.py)."""

    def __init__(
        self, policy: Policy, s: Settings, grid: _Grid, cache: RequestCache, peek: bool
    ) -> None:
        self.policy, self.s, self.grid = policy, s, grid
        self.cache = cache.of(s.models)
        self.models = models_for(s.models)
        self.peek = peek and policy == "oracle"
        self.context = self.models.encode(s.prompt)[0]

    def serve(self, t0: int, limit: int, room: int) -> tuple[tuple[int, ...], int, int, float]:
        stop = _stop_rule(self.policy, self.s, self.grid, t0)
        emitted, drafted, accepted, tv = self._block(t0, limit, stop)
        self.context = self.context + list(emitted[:room])
        return emitted, drafted, accepted, tv

    def _block(
        self, t0: int, limit: int, stop: StopRule | None
    ) -> tuple[tuple[int, ...], int, int, float]:
        s, grid, cache = self.s, self.grid, self.cache
        before, prev = context_pair(self.models, self.context)
        draft: list[int] = []
        laws: list[Law] = []
        for i in range(limit):
            law = cache.law(s.match, s.greedy, before, prev, s.draft_source == "adversary")
            x = sample_from_cdf(law.q, law.q_cdf, float(grid.draft[t0 + i]))
            halt = stop is not None and stop(i, law, x)
            if halt and self.peek:
                break  # the broken twin: it knows x will be rejected and leaves it out
            draft.append(x)
            laws.append(law)
            before, prev = self.models.advance(before, prev, x)
            if halt:
                break
        p_rows: list[FloatArray] = [law.p for law in laws]
        p_rows.append(cache.target(s.greedy, before, prev))
        u_accept = grid.accept[t0 : t0 + len(draft)]
        # The closing token sits at the first rejection's position, else after the last draft.
        end = next(
            (
                i
                for i, (law, x) in enumerate(zip(laws, draft, strict=True))
                if not accepts(float(u_accept[i]), float(law.p[x]), float(law.q[x]))
            ),
            len(draft),
        )
        result = verify_unchecked(
            p_rows,
            [law.q for law in laws],
            draft,
            u_accept,
            float(grid.final[t0 + end]),
            verify=s.verify,
            repair=s.repair,
            residual_at=lambda i: laws[i].residual,
        )
        mode = mode_of(s.verify, s.repair)
        tv = max((law.tv(mode) for law in laws), default=0.0)
        return result.emitted, len(draft), result.accepted, tv


def _stop_rule(policy: Policy, s: Settings, grid: _Grid, start: int) -> StopRule | None:
    """Whether drafting stops after the i-th token of a block starting at ``start``."""
    if policy == "confidence":
        return lambda i, law, x: float(law.q[x]) < CONFIDENCE_THRESHOLD
    if policy == "oracle" and s.verify:
        accept = grid.accept
        return lambda i, law, x: (
            not accepts(float(accept[start + i]), float(law.p[x]), float(law.q[x]))
        )
    return None
