"""The served request: real words drafted by the tiny draft model and verified by the target.

`serve_request(settings)` runs blocks until the requested number of tokens is emitted and
records everything a learner can ask about: per block the context, each drafted token with
p(x), q(x), the ratio and its uniform, the accepted prefix, the first rejection, the residual
that repaired it, or the bonus token; then the totals and the exact distribution check.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from witness.keys import Stream
from witness.lm import BOUNDARY, TinyModels, detokenize, tiny_models
from witness.rule import BlockResult, verify_unchecked
from witness.settings import Settings
from witness.simulate import block_uniforms
from witness.theory import (
    expected_speedup,
    greedy_distribution,
    output_law,
    residual_unchecked,
)

FloatArray = NDArray[np.float64]
Kind = Literal["accepted", "repaired", "bonus", "unchecked"]
Mode = Literal["lossless", "no_repair", "no_verify"]

CONTEXT_WORDS = 6  # words of context shown before each block
BAR_TOKENS = 8  # tokens drawn in the p / q / residual picture
RESIDUAL_TOP = 5
EXACT = 1e-12  # a distance below this is "the target distribution is kept"


def mode_of(verify: bool, repair: bool) -> Mode:
    if not verify:
        return "no_verify"
    return "lossless" if repair else "no_repair"


@dataclass(frozen=True, slots=True)
class DraftStep:
    """One drafted token and its check; ``accepted`` is None where nothing checked it."""

    position: int
    token: int
    word: str
    p: float
    q: float
    ratio: float
    u: float
    accepted: bool | None
    alpha: float


@dataclass(frozen=True, slots=True)
class Bar:
    """One token of the repair picture at a block's focus position."""

    word: str
    p: float
    q: float
    overlap: float
    residual: float


@dataclass(frozen=True, slots=True)
class BlockTrace:
    index: int
    start: int
    context: tuple[str, ...]
    drafts: tuple[DraftStep, ...]
    result: BlockResult
    emitted_words: tuple[str, ...]
    emitted_kinds: tuple[Kind, ...]
    rejected_word: str | None
    final_word: str | None
    u_final: float
    focus: int
    bars: tuple[Bar, ...]
    residual_top: tuple[tuple[str, float], ...]
    truncated: int


@dataclass(frozen=True, slots=True)
class Totals:
    tokens: int
    blocks: int
    target_passes: int
    draft_passes: int
    baseline_target_passes: int
    accepted_drafts: int
    rejected_drafts: int
    cost_units: float
    baseline_cost_units: float
    tokens_per_pass: float | None
    mean_alpha: float
    speedup_measured: float | None
    speedup_expected: float | None
    ms_speculative: float
    ms_baseline: float


@dataclass(frozen=True, slots=True)
class DistributionCheck:
    """Exact distance of the emitted law from p, over every drafted position of the request."""

    mode: Mode
    greedy: bool
    tv_max: float
    tv_mean: float
    keeps_target: bool
    matches_greedy_baseline: bool | None


@dataclass(frozen=True, slots=True)
class RequestTrace:
    settings: dict[str, Any]
    prompt_words: tuple[str, ...]
    skipped_prompt_words: tuple[str, ...]
    vocab_size: int
    text: str
    blocks: tuple[BlockTrace, ...]
    totals: Totals
    check: DistributionCheck

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = _plain(asdict(self))
        return out


def _plain(x: Any) -> Any:
    """Tuples to lists, recursively: the JSON API returns exactly this."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    return x


# A context's laws are cached: the trigram target and bigram draft see only the last two
# tokens, so the same pair recurs within a request, across the sixteen requests of a k sweep,
# and as an instructor drags k at one match; ~2 000 pairs are ~30 MB at most.
LAW_CACHE = 2048


@lru_cache(maxsize=LAW_CACHE)
def _target(greedy: bool, before: int, prev: int) -> FloatArray:
    """p(. | before, prev), in the mode's temperature (greedy: one-hot at the argmax)."""
    p = tiny_models().target_row(before, prev)
    return _read_only(greedy_distribution(p)) if greedy else p


class _Law:
    """p and q at one context, and what the rule derives from them, each computed once.

    Lazy parts are plain attributes filled on first use, not `functools.cached_property`:
    in Python 3.11 that holds one lock shared by every instance, which serialised the
    server's worker threads (two threads filling the same value is harmless: it is pure).
    """

    def __init__(self, match: float, greedy: bool, before: int, prev: int) -> None:
        models = tiny_models()
        self.p = _target(greedy, before, prev)
        # q is blended from the *sampled* target, then made greedy: at match 1, q = p exactly.
        raw = models.target_row(before, prev)
        q = match * raw + (1.0 - match) * models.draft_row(prev)
        self.q: FloatArray = _read_only(greedy_distribution(q) if greedy else q)
        self.q_cdf: FloatArray = _read_only(self.q.cumsum())  # every draft samples from it
        self.alpha = float(np.minimum(self.p, self.q).sum())  # every draft step shows it
        self._residual: FloatArray | None = None
        self._residual_order: NDArray[np.intp] | None = None
        self._liked: NDArray[np.intp] | None = None
        self._tv: dict[Mode, float] = {}

    def sample_q(self, u: float) -> int:
        """The draft's token for uniform u: `sample_one(q, u)` with q's CDF kept."""
        cdf = self.q_cdf
        index = int(cdf.searchsorted(u * cdf[-1], side="right"))
        return index if index < cdf.shape[0] else int(np.flatnonzero(self.q)[-1])

    @property
    def residual(self) -> FloatArray:
        if self._residual is None:
            self._residual = _read_only(residual_unchecked(self.p, self.q))
        return self._residual

    @property
    def residual_order(self) -> NDArray[np.intp]:
        """Token ids by residual mass, largest first (ties by id), the first RESIDUAL_TOP."""
        if self._residual_order is None:
            self._residual_order = np.argsort(-self.residual, kind="stable")[:RESIDUAL_TOP]
        return self._residual_order

    @property
    def liked(self) -> NDArray[np.intp]:
        """Token ids by max(p, q), largest first (ties by id), the first BAR_TOKENS."""
        if self._liked is None:
            order = np.argsort(-np.maximum(self.p, self.q), kind="stable")
            self._liked = order[:BAR_TOKENS]
        return self._liked

    def tv(self, mode: Mode) -> float:
        """Exact total variation between the law this mode emits here and p."""
        if mode not in self._tv:
            law = output_law(self.p, self.q, verify=mode != "no_verify", repair=mode == "lossless")
            self._tv[mode] = float(0.5 * np.abs(law - self.p).sum())
        return self._tv[mode]


_law = lru_cache(maxsize=LAW_CACHE)(_Law)


def _read_only(row: FloatArray) -> FloatArray:
    """Cached laws are shared by every request: make an accidental write an error."""
    row.flags.writeable = False
    return row


def _last_two(models: TinyModels, context: list[int]) -> tuple[int, int]:
    """The (before, prev) pair the models condition on, padded with sentence boundaries."""
    pad = models.index[BOUNDARY]
    return (context[-2] if len(context) >= 2 else pad), (context[-1] if context else pad)


def serve_request(settings: Settings) -> RequestTrace:
    """Serve one request under ``settings``: deterministic, a pure function of them."""
    models = tiny_models()
    prompt_ids, skipped = models.encode(settings.prompt)
    out: list[int] = []
    blocks: list[BlockTrace] = []
    seen: list[_Law] = []  # every drafted position's laws, for the exact check
    # Every block emits at least one token, so `tokens` blocks always suffice; the keyed
    # uniforms come as whole grids (shared with simulate_blocks, cached per seed).
    n, k = settings.tokens, settings.k
    draws = _Draws(
        block_uniforms(settings.seed, n, k, Stream.DRAFT),
        block_uniforms(settings.seed, n, k, Stream.ACCEPT),
        block_uniforms(settings.seed, n, 1, Stream.FINAL)[:, 0],
    )
    while len(out) < settings.tokens:
        trace, laws = _serve_block(models, settings, draws, len(blocks), prompt_ids, out)
        blocks.append(trace)
        seen.extend(laws)
        out.extend(trace.result.emitted[: len(trace.emitted_words)])
    totals = _totals(settings, blocks)
    check = _check(settings, models, prompt_ids, out, seen)
    return RequestTrace(
        settings=settings.model_dump(),
        prompt_words=tuple(models.vocab[i] for i in prompt_ids),
        skipped_prompt_words=tuple(skipped),
        vocab_size=models.size,
        text=detokenize([models.vocab[i] for i in out]),
        blocks=tuple(blocks),
        totals=totals,
        check=check,
    )


@dataclass(frozen=True, slots=True)
class _Draws:
    """The request's keyed uniforms, indexed [block, position] (final: [block])."""

    draft: FloatArray
    accept: FloatArray
    final: FloatArray


def _serve_block(
    models: TinyModels,
    s: Settings,
    draws: _Draws,
    b: int,
    prompt: list[int],
    out: list[int],
) -> tuple[BlockTrace, list[_Law]]:
    context = prompt + out
    u_draft, u_accept, u_final = draws.draft[b], draws.accept[b], float(draws.final[b])
    before, prev = _last_two(models, context)
    draft: list[int] = []
    laws: list[_Law] = []
    for i in range(s.k):  # the draft is autoregressive: each token extends the context
        law = _law(s.match, s.greedy, before, prev)
        x = law.sample_q(float(u_draft[i]))
        draft.append(x)
        laws.append(law)
        before, prev = prev, x
    p_rows = [law.p for law in laws]
    p_rows.append(_target(s.greedy, before, prev))  # the bonus position, same target pass
    result = verify_unchecked(
        p_rows,
        [law.q for law in laws],
        draft,
        u_accept,
        u_final,
        verify=s.verify,
        repair=s.repair,
        residual_at=lambda i: laws[i].residual,
    )
    steps = tuple(
        _draft_step(models, i, draft[i], laws[i], float(u_accept[i]), result) for i in range(s.k)
    )
    room = s.tokens - len(out)
    kinds = _kinds(result)[:room]
    focus = result.first_rejection if result.first_rejection is not None else s.k - 1
    bars, top = _repair_picture(models, laws[focus], draft[focus])
    rejected = result.first_rejection
    final = result.repair_token if result.repair_token is not None else result.bonus_token
    trace = BlockTrace(
        index=b,
        start=len(out),
        context=tuple(models.vocab[t] for t in context[-CONTEXT_WORDS:]),
        drafts=steps,
        result=result,
        emitted_words=tuple(models.vocab[t] for t in result.emitted[:room]),
        emitted_kinds=kinds,
        rejected_word=models.vocab[draft[rejected]] if rejected is not None else None,
        final_word=models.vocab[final] if final is not None else None,
        u_final=u_final,
        focus=focus,
        bars=bars,
        residual_top=top,
        truncated=len(result.emitted) - len(kinds),
    )
    return trace, laws


def _draft_step(
    models: TinyModels, i: int, x: int, law: _Law, u: float, r: BlockResult
) -> DraftStep:
    checked = r.verified and (r.first_rejection is None or i <= r.first_rejection)
    p, q = float(law.p[x]), float(law.q[x])
    return DraftStep(
        position=i,
        token=x,
        word=models.vocab[x],
        p=p,
        q=q,
        ratio=p / q,
        u=u,
        accepted=(i < r.accepted) if checked else None,
        alpha=law.alpha,
    )


def _kinds(r: BlockResult) -> tuple[Kind, ...]:
    if not r.verified:
        return tuple("unchecked" for _ in r.emitted)
    last: Kind = "repaired" if r.first_rejection is not None else "bonus"
    accepted: tuple[Kind, ...] = tuple("accepted" for _ in range(r.accepted))
    return (*accepted, last)


def _repair_picture(
    models: TinyModels, law: _Law, drafted: int
) -> tuple[tuple[Bar, ...], tuple[tuple[str, float], ...]]:
    """Bars of p, q, min(p, q) and the residual over the tokens that carry the picture."""
    p, q, r = law.p, law.q, law.residual
    top_ids = law.residual_order
    # The drafted token, the residual's top tokens, then whatever either model likes most.
    order = [drafted, *top_ids[:3], *law.liked]
    picked = list(dict.fromkeys(int(t) for t in order))[:BAR_TOKENS]
    bars = tuple(
        Bar(models.vocab[t], float(p[t]), float(q[t]), float(min(p[t], q[t])), float(r[t]))
        for t in picked
    )
    top = tuple((models.vocab[int(t)], float(r[t])) for t in top_ids if r[t] > 0)
    return bars, top


def _totals(s: Settings, blocks: list[BlockTrace]) -> Totals:
    n = s.tokens
    target_passes = len(blocks) if s.verify else 0
    draft_passes = s.k * len(blocks)
    accepted = sum(b.result.accepted for b in blocks) if s.verify else 0
    rejected = sum(b.result.first_rejection is not None for b in blocks)
    cost = target_passes + s.draft_cost * draft_passes
    alphas = [d.alpha for b in blocks for d in b.drafts]
    mean_alpha = float(np.mean(alphas))
    if s.verify:
        expected: float | None = float(expected_speedup(mean_alpha, s.k, s.draft_cost))
    else:  # k tokens for k draft passes: 1/c, unbounded when drafting is free
        expected = 1.0 / s.draft_cost if s.draft_cost > 0 else None
    return Totals(
        tokens=n,
        blocks=len(blocks),
        target_passes=target_passes,
        draft_passes=draft_passes,
        baseline_target_passes=n,
        accepted_drafts=accepted,
        rejected_drafts=rejected,
        cost_units=cost,
        baseline_cost_units=float(n),
        tokens_per_pass=n / target_passes if target_passes else None,
        mean_alpha=mean_alpha,
        speedup_measured=n / cost if cost > 0 else None,
        speedup_expected=expected,
        ms_speculative=s.ttft_ms + cost * s.tpot_ms,
        ms_baseline=s.ttft_ms + n * s.tpot_ms,
    )


def _check(
    s: Settings, models: TinyModels, prompt: list[int], out: list[int], seen: list[_Law]
) -> DistributionCheck:
    mode = mode_of(s.verify, s.repair)
    tv = np.array([law.tv(mode) for law in seen])
    baseline_match: bool | None = None
    if s.greedy:  # plain greedy decoding of the target, one pass per token
        plain: list[int] = []
        before, prev = _last_two(models, prompt)
        for _ in range(s.tokens):
            plain.append(int(np.argmax(_target(True, before, prev))))
            before, prev = prev, plain[-1]
        baseline_match = plain == out
    tv_max = float(tv.max())
    return DistributionCheck(
        mode=mode,
        greedy=s.greedy,
        tv_max=tv_max,
        tv_mean=float(tv.mean()),
        keeps_target=tv_max <= EXACT,
        matches_greedy_baseline=baseline_match,
    )
