"""The served request: real words drafted by the tiny draft model and verified by the target.

`serve_request(settings)` runs blocks until the requested number of tokens is emitted and
records everything a learner can ask about (`witness.trace`): per block the context, each
drafted token with p(x), q(x), the ratio and its uniform, the accepted prefix, the first
rejection, the residual that repaired it, or the bonus token; then the totals
(`witness.accounting`) and the exact distribution check (`witness.check`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from witness.accounting import totals
from witness.cache import RequestCache
from witness.check import distribution_check
from witness.detail import RESIDUAL_TOP, context_words, repair_picture
from witness.keys import Stream
from witness.laws import FloatArray, Law, context_pair
from witness.lm import TinyModels, detokenize, tiny_models
from witness.methods import (
    Level,
    MethodBlock,
    SiblingGrids,
    is_chain,
    level_alpha,
    level_tv,
    method_block,
)
from witness.modes import Mode, mode_of
from witness.rule import BlockResult, verify_unchecked
from witness.settings import Settings
from witness.theory import sample_from_cdf
from witness.trace import (
    BlockTrace,
    DraftStep,
    Kind,
    Lookup,
    RequestTrace,
    SiblingStep,
    TreeLevel,
)

# The served request's entry point and what callers ask of it; `Mode`, `mode_of` and
# `RequestTrace` live in witness.modes and witness.trace and are re-exported for the app,
# which imports them from here.
__all__ = ["Mode", "RequestTrace", "ServedPath", "mode_of", "serve_path", "serve_request"]


def serve_request(settings: Settings, *, cache: RequestCache | None = None) -> RequestTrace:
    """Serve one request under ``settings``: deterministic, a pure function of them.

    ``cache`` keeps laws and uniform grids for later requests; whatever it holds, the trace
    is the same. Without one, a fresh cache serves this call alone.
    """
    cache = RequestCache() if cache is None else cache
    models = tiny_models()
    prompt_ids, skipped = models.encode(settings.prompt)
    out: list[int] = []
    blocks: list[BlockTrace] = []
    tvs: list[float] = []  # the exact TV of the emitted law from p at each of them
    draws = _draws(cache, settings)
    grids = None if is_chain(settings) else SiblingGrids.of(settings, cache)
    mode = mode_of(settings.verify, settings.repair)
    while len(out) < settings.tokens:
        drafts = _drafts(settings, len(out))
        if grids is None:
            trace, laws = _serve_block(
                models, cache, settings, draws, len(blocks), prompt_ids, out, drafts
            )
            tvs.extend(law.tv(mode) for law in laws)
        else:
            b = len(blocks)
            block = method_block(
                models, cache, settings, grids, float(draws.final[b]), b, prompt_ids + out, drafts
            )
            trace = _method_trace(models, settings, b, prompt_ids + out, out, block, draws)
            tvs.extend(
                level_tv(settings, level.law, x)
                for level, x in zip(block.levels, _copied(block), strict=True)
            )
        blocks.append(trace)
        out.extend(trace.result.emitted[: len(trace.emitted_words)])
    alphas = [d.alpha for b in blocks for d in b.drafts]
    return RequestTrace(
        settings=settings.model_dump(),
        prompt_words=tuple(models.vocab[i] for i in prompt_ids),
        skipped_prompt_words=tuple(skipped),
        vocab_size=models.size,
        text=detokenize([models.vocab[i] for i in out]),
        blocks=tuple(blocks),
        totals=totals(settings, blocks, _first_alpha(models, cache, settings, prompt_ids, alphas)),
        check=distribution_check(settings, models, prompt_ids, out, tvs, cache),
    )


def _first_alpha(
    models: TinyModels, cache: RequestCache, s: Settings, prompt: list[int], alphas: list[float]
) -> float:
    """α at the request's first drafted position (needed only when nothing was drafted).

    A prompt lookup that never found words to copy proposed nothing: nothing to accept."""
    if alphas:
        return alphas[0]
    if s.draft_source == "lookup":
        return 0.0
    before, prev = context_pair(models, prompt)
    law = cache.law(s.match, s.greedy, before, prev, s.draft_source == "adversary")
    return law.alpha if is_chain(s) else level_alpha(s, law)


@dataclass(frozen=True, slots=True)
class ServedPath:
    """What a request did, without its trace: enough to price it and to pool its α."""

    target_passes: int
    draft_passes: int
    alphas: tuple[float, ...]  # α at every drafted position, in order
    first_alpha: float  # α where the first draft is (or would be) made
    # Tokens each target pass scored for its sequence, as (scored, passes) pairs: what a
    # machine prices a pass by (`witness.costing`).
    scored: tuple[tuple[int, int], ...] = ()


def serve_path(settings: Settings, *, cache: RequestCache | None = None) -> ServedPath:
    """`serve_request`'s passes and α alone: the same blocks, none of the trace.

    The ensembles behind every verdict (`witness.ensemble`) serve dozens of requests per
    state; this skips what only a learner reads (draft steps, the repair picture, the text,
    the exact check), so each costs about half as much. Always equal to the trace's totals.
    """
    cache = RequestCache() if cache is None else cache
    models = tiny_models()
    prompt_ids, _ = models.encode(settings.prompt)
    out: list[int] = []
    alphas: list[float] = []
    draws = _draws(cache, settings)
    grids = None if is_chain(settings) else SiblingGrids.of(settings, cache)
    blocks = draft_passes = target_passes = 0  # target passes: counted when verify is off
    scored: Counter[int] = Counter()
    while len(out) < settings.tokens:
        drafts = _drafts(settings, len(out))
        if grids is None:
            _, laws, result = _draft_and_verify(
                models, cache, settings, draws, blocks, prompt_ids + out, drafts
            )
            alphas.extend(law.alpha for law in laws)
            draft_passes += drafts
            if settings.verify:
                scored[drafts + 1] += 1
        else:
            block = method_block(
                models,
                cache,
                settings,
                grids,
                float(draws.final[blocks]),
                blocks,
                prompt_ids + out,
                drafts,
            )
            result = block.result
            alphas.extend(level.alpha for level in block.levels)
            draft_passes += block.draft_passes
            target_passes += block.scored > 0
            if block.scored > 0:
                scored[block.scored] += 1
        out.extend(result.emitted[: settings.tokens - len(out)])
        blocks += 1
    seen_first = _first_alpha(models, cache, settings, prompt_ids, alphas)
    return ServedPath(
        target_passes=blocks if settings.verify else target_passes,
        draft_passes=draft_passes,
        alphas=tuple(alphas),
        first_alpha=seen_first,
        scored=tuple(sorted(scored.items())),
    )


def _draws(cache: RequestCache, s: Settings) -> _Draws:
    # Every block emits at least one token, so `tokens` blocks always suffice; the keyed
    # uniforms come as whole grids (shared with simulate_blocks through the cache).
    n, k = s.tokens, s.k
    return _Draws(
        cache.uniforms(s.seed, n, k, Stream.DRAFT),
        cache.uniforms(s.seed, n, k, Stream.ACCEPT),
        cache.uniforms(s.seed, n, 1, Stream.FINAL)[:, 0],
    )


def _drafts(s: Settings, emitted: int) -> int:
    """How many tokens the next block drafts.

    A server drafts no further than the request goes: a verified block of j drafts emits at
    most j + 1 tokens, so it drafts room - 1 (none for the last token: a plain target pass);
    unverified drafts are the output, so it drafts room.
    """
    room = s.tokens - emitted
    return min(s.k, room - 1 if s.verify else room)


@dataclass(frozen=True, slots=True)
class _Draws:
    """The request's keyed uniforms, indexed [block, position] (final: [block])."""

    draft: FloatArray
    accept: FloatArray
    final: FloatArray


def _serve_block(
    models: TinyModels,
    cache: RequestCache,
    s: Settings,
    draws: _Draws,
    b: int,
    prompt: list[int],
    out: list[int],
    drafts: int,
) -> tuple[BlockTrace, list[Law]]:
    context = prompt + out
    u_accept, u_final = draws.accept[b], float(draws.final[b])
    draft, laws, result = _draft_and_verify(models, cache, s, draws, b, context, drafts)
    steps = tuple(
        _draft_step(models, i, draft[i], laws[i], float(u_accept[i]), result) for i in range(drafts)
    )
    return _block_trace(models, s, b, context, out, draft, laws, steps, result, u_final), laws


def _draft_and_verify(
    models: TinyModels,
    cache: RequestCache,
    s: Settings,
    draws: _Draws,
    b: int,
    context: list[int],
    drafts: int,
) -> tuple[list[int], list[Law], BlockResult]:
    """One block: draft ``drafts`` tokens from q, then verify them in one target pass."""
    u_draft = draws.draft[b]
    before, prev = context_pair(models, context)
    draft: list[int] = []
    laws: list[Law] = []
    law_at, match, greedy = cache.law, s.match, s.greedy
    adversary = s.draft_source == "adversary"
    for i in range(drafts):  # the draft is autoregressive: each token extends the context
        law = law_at(match, greedy, before, prev, adversary)
        x = sample_from_cdf(law.q, law.q_cdf, float(u_draft[i]))
        draft.append(x)
        laws.append(law)
        before, prev = prev, x
    p_rows = [law.p for law in laws]
    p_rows.append(cache.target(s.greedy, before, prev))  # the bonus position, same pass
    result = verify_unchecked(
        p_rows,
        [law.q for law in laws],
        draft,
        draws.accept[b],
        float(draws.final[b]),
        verify=s.verify,
        repair=s.repair,
        residual_at=lambda i: laws[i].residual,
    )
    return draft, laws, result


def _block_trace(
    models: TinyModels,
    s: Settings,
    b: int,
    context: list[int],
    out: list[int],
    draft: list[int],
    laws: list[Law],
    steps: tuple[DraftStep, ...],
    result: BlockResult,
    u_final: float,
) -> BlockTrace:
    """The block's record; its emitted tokens are cut to what the request still needs."""
    room = s.tokens - len(out)
    kinds = _kinds(result)[:room]
    # The focus is the first rejection, else the last draft; a block that drafted nothing
    # (one token left) has no focus and no repair picture.
    focus = result.first_rejection if result.first_rejection is not None else len(draft) - 1
    bars, top = repair_picture(models.vocab, laws[focus], draft[focus]) if draft else ((), ())
    rejected = result.first_rejection
    final = result.repair_token if result.repair_token is not None else result.bonus_token
    return BlockTrace(
        index=b,
        start=len(out),
        context=context_words(models.vocab, context),
        drafts=steps,
        result=result,
        emitted_words=tuple(models.vocab[t] for t in result.emitted[:room]),
        emitted_kinds=kinds,
        rejected_word=models.vocab[draft[rejected]] if rejected is not None else None,
        final_word=models.vocab[final] if final is not None else None,
        u_final=u_final,
        focus=focus if draft else None,
        bars=bars,
        residual_top=top,
        truncated=len(result.emitted) - len(kinds),
        depth=len(draft),
        scored=len(draft) + 1 if s.verify else 0,
    )


def _draft_step(
    models: TinyModels, i: int, x: int, law: Law, u: float, r: BlockResult
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


# ------------------------------------------------------- trees, typical acceptance, lookup


def _copied(block: MethodBlock) -> list[int | None]:
    """Each level's copied token (prompt lookup's law depends on it); None for the others."""
    if block.lookup is None:
        return [None] * len(block.levels)
    return [level.siblings[0] for level in block.levels]


def _method_trace(
    models: TinyModels,
    s: Settings,
    b: int,
    context: list[int],
    out: list[int],
    block: MethodBlock,
    draws: _Draws,
) -> BlockTrace:
    """A tree's (typical acceptance's, a lookup's) block record, beside the chain's fields."""
    vocab = models.vocab
    result = block.result
    room = s.tokens - len(out)
    kinds = _kinds(result)[:room]
    levels = tuple(_tree_level(models, i, level) for i, level in enumerate(block.levels))
    steps = tuple(_level_step(i, level, result) for i, level in enumerate(levels))
    rejected = result.first_rejection
    final = result.repair_token if result.repair_token is not None else result.bonus_token
    last = levels[rejected] if rejected is not None else None
    return BlockTrace(
        index=b,
        start=len(out),
        context=context_words(vocab, context),
        drafts=steps,
        result=result,
        emitted_words=tuple(vocab[t] for t in result.emitted[:room]),
        emitted_kinds=kinds,
        rejected_word=_last_tested(last).word if last is not None else None,
        final_word=vocab[final] if final is not None else None,
        u_final=float(draws.final[b]),
        focus=(rejected if rejected is not None else len(levels) - 1) if levels else None,
        bars=(),
        residual_top=last.law_top if last is not None else (),
        truncated=len(result.emitted) - len(kinds),
        levels=levels,
        depth=block.depth,
        scored=block.scored,
        lookup=_lookup(vocab, block),
    )


def _lookup(vocab: tuple[str, ...], block: MethodBlock) -> Lookup | None:
    m = block.lookup
    return None if m is None else Lookup(tuple(vocab[t] for t in m.ngram), m.start)


def _tree_level(models: TinyModels, i: int, level: Level) -> TreeLevel:
    vocab = models.vocab
    check = level.check
    tests = {t.index: t for t in check.tests} if check is not None else {}
    siblings = []
    for j, x in enumerate(level.siblings):
        t = tests.get(j)
        if t is not None:
            siblings.append(SiblingStep(j, x, vocab[x], t.p, t.q, t.u, t.accepted))
        else:  # not tested: the laws as drafted, no uniform spent on it
            siblings.append(
                SiblingStep(
                    j, x, vocab[x], float(level.law.p[x]), float(level.law.q[x]), None, None
                )
            )
    law_top: tuple[tuple[str, float], ...] = ()
    if check is not None and check.law is not None:
        order = np.argsort(-check.law, kind="stable")[:RESIDUAL_TOP]
        law_top = tuple((vocab[t], float(check.law[t])) for t in order if check.law[t] > 0)
    accepted = check.accepted if check is not None else None
    return TreeLevel(i, tuple(siblings), accepted, level.alpha, level.threshold, law_top)


def _last_tested(level: TreeLevel) -> SiblingStep:
    return [sib for sib in level.siblings if sib.accepted is not None][-1]


def _level_step(i: int, level: TreeLevel, r: BlockResult) -> DraftStep:
    """The level as one drafted position: its accepted sibling, else the last one tested
    (sibling 0 when nothing was checked)."""
    if level.accepted is not None:
        sib = level.siblings[level.accepted]
    elif r.verified:
        sib = _last_tested(level)
    else:
        sib = level.siblings[0]
    return DraftStep(
        position=i,
        token=sib.token,
        word=sib.word,
        p=sib.p,
        q=sib.q,
        ratio=sib.p / sib.q if sib.q > 0 else float("inf"),
        u=sib.u if sib.u is not None else 0.0,
        accepted=(level.accepted is not None) if r.verified else None,
        alpha=level.alpha,
    )
