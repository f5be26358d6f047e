"""The served request: real words drafted by the tiny draft model and verified by the target.

`serve_request(settings)` runs blocks until the requested number of tokens is emitted and
records everything a learner can ask about (`witness.core.trace`): per block the context, each
drafted token with p(x), q(x), the ratio and its uniform, the accepted prefix, the first
rejection, the residual that repaired it, or the bonus token; then the totals
(`witness.serve.accounting`) and the exact distribution check (`witness.serve.check`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from witness.core.distributions import sample_from_cdf
from witness.core.keys import Stream
from witness.core.modes import Mode, mode_of
from witness.core.rule import BlockResult
from witness.core.settings import Settings
from witness.core.trace import (
    Bar,
    BlockTrace,
    DraftStep,
    Kind,
    Lookup,
    RequestTrace,
    ServedPath,
    SiblingStep,
    TreeLevel,
)
from witness.methods.block import (
    Level,
    MethodBlock,
    SiblingGrids,
    compiled_chain,
    first_alpha,
    is_chain,
    level_tv,
    method_block,
)
from witness.models.cache import RequestCache
from witness.models.laws import FloatArray, Law, context_pair
from witness.models.pair import Models, models_for
from witness.serve.accounting import totals
from witness.serve.chain import serve_chains, serve_record
from witness.serve.check import distribution_check
from witness.serve.detail import RESIDUAL_TOP, context_words, repair_picture

# The served request's entry point and what callers ask of it; `Mode`, `mode_of` and
# `RequestTrace` live in witness.core.modes and witness.core.trace and are re-exported for the app,
# which imports them from here.
__all__ = ["Mode", "RequestTrace", "ServedPath", "mode_of", "serve_path", "serve_request"]


def serve_request(settings: Settings, *, cache: RequestCache | None = None) -> RequestTrace:
    """Serve one request under ``settings``: deterministic, a pure function of them.

    ``cache`` keeps laws and uniform grids for later requests; whatever it holds, the trace
    is the same. Without one, a fresh cache serves this call alone.
    """
    cache = (RequestCache() if cache is None else cache).of(settings.models)
    models = models_for(settings.models)
    prompt_ids, skipped = models.encode(settings.prompt)
    draws = _draws(cache, settings)
    if compiled_chain(settings):
        blocks, out, tvs = _chain_traces(models, cache, settings, prompt_ids, draws)
    elif is_chain(settings):
        blocks, out, tvs = _chain_traces_from_blocks(models, cache, settings, prompt_ids, draws)
    else:
        blocks, out, tvs = _method_traces(models, cache, settings, prompt_ids, draws)
    alphas = [d.alpha for b in blocks for d in b.drafts]
    return RequestTrace(
        settings=settings.model_dump(),
        prompt_words=tuple(models.vocab[i] for i in prompt_ids),
        skipped_prompt_words=tuple(skipped),
        vocab_size=models.size,
        text=models.text(out),
        blocks=tuple(blocks),
        totals=totals(settings, blocks, first_alpha(models, cache, settings, prompt_ids, alphas)),
        check=distribution_check(settings, models, prompt_ids, out, tvs, cache),
    )


def serve_path(settings: Settings, *, cache: RequestCache | None = None) -> ServedPath:
    """`serve_request`'s passes and α alone: the same blocks, none of the trace.

    The ensembles behind every verdict (`witness.judge.ensemble`) serve dozens of requests per
    state; this skips what only a learner reads (draft steps, the repair picture, the text,
    the exact check). A chain is `witness.serve.chain.serve_chains` with one seed. Always equal to
    the trace's totals.
    """
    cache = (RequestCache() if cache is None else cache).of(settings.models)
    if compiled_chain(settings):
        return serve_chains(settings, [settings.seed], cache=cache)[0]
    models = models_for(settings.models)
    prompt_ids, _ = models.encode(settings.prompt)
    alphas: list[float] = []
    blocks = draft_passes = target_passes = 0  # target passes: counted when verify is off
    scored: Counter[int] = Counter()
    draws = _draws(cache, settings)
    grids = SiblingGrids.of(settings, cache) if is_chain(settings) else None
    for b, before, block in _method_blocks(models, cache, settings, prompt_ids, draws):
        if grids is not None:  # the transformers' chain: every drafted token's α
            drafted = chain_drafts(models, cache, settings, grids, b, prompt_ids + before, block)
            alphas.extend(law.alpha for _, law in drafted)
        else:
            alphas.extend(level.alpha for level in block.levels)
        draft_passes += block.draft_passes
        target_passes += block.scored > 0
        if block.scored > 0:
            scored[block.scored] += 1
        blocks += 1
    return ServedPath(
        target_passes=blocks if settings.verify else target_passes,
        draft_passes=draft_passes,
        alphas=tuple(alphas),
        first_alpha=first_alpha(models, cache, settings, prompt_ids, alphas),
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
    """How many tokens the next block drafts (`witness.serve.chain` decides the chain's alike).

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


# ----------------------------------------------------------------------------- the chain


def _chain_traces(
    models: Models, cache: RequestCache, s: Settings, prompt: list[int], draws: _Draws
) -> tuple[list[BlockTrace], list[int], list[float]]:
    """The chain's blocks as `witness.serve.chain` served them, each read into its record; the
    output; the exact TV of the emitted law from p at every drafted position."""
    rec = serve_record(s, [s.seed], cache, detail=True)
    out: list[int] = []
    blocks: list[BlockTrace] = []
    tvs: list[float] = []
    for b in range(int(rec.blocks[0])):
        n, accepted, rejected, closing = rec.record[0, b].tolist()
        draft = rec.token[0, b, :n].tolist()
        if not s.verify:
            result = BlockResult(n, None, tuple(draft), None, None, verified=False)
        elif rejected >= 0:
            result = BlockResult(accepted, rejected, (*draft[:rejected], closing), closing, None)
        else:
            result = BlockResult(n, None, (*draft, closing), None, closing)
        u_accept = draws.accept[b]
        steps = tuple(
            _draft_step(models, i, x, p, q, a, float(u_accept[i]), result)
            for i, (x, p, q, a) in enumerate(
                zip(
                    draft,
                    rec.p_x[0, b, :n].tolist(),
                    rec.q_x[0, b, :n].tolist(),
                    rec.alpha[0, b, :n].tolist(),
                    strict=True,
                )
            )
        )
        context = prompt + out
        trace = _block_trace(models, cache, s, b, context, out, draft, steps, result, draws)
        blocks.append(trace)
        tvs.extend(rec.tv[0, b, :n].tolist())
        out.extend(result.emitted[: len(trace.emitted_words)])
    return blocks, out, tvs


def _chain_traces_from_blocks(
    models: Models, cache: RequestCache, s: Settings, prompt: list[int], draws: _Draws
) -> tuple[list[BlockTrace], list[int], list[float]]:
    """The transformers' chain, served block by block (`method_block` at width 1, whose
    sibling 0 is the chain's draw), read into the chain's records."""
    grids = SiblingGrids.of(s, cache)
    blocks: list[BlockTrace] = []
    tvs: list[float] = []
    out: list[int] = []
    for b, before, block in _method_blocks(models, cache, s, prompt, draws):
        drafted = chain_drafts(models, cache, s, grids, b, prompt + before, block)
        draft = [x for x, _ in drafted]
        result = block.result
        steps = tuple(
            _draft_step(
                models,
                i,
                x,
                float(law.p[x]),
                float(law.q[x]),
                law.alpha,
                float(grids.accept[b, i, 0]),
                result,
            )
            for i, (x, law) in enumerate(drafted)
        )
        context = prompt + before
        trace = _block_trace(models, cache, s, b, context, before, draft, steps, result, draws)
        blocks.append(trace)
        mode = mode_of(s.verify, s.repair)
        tvs.extend(law.tv(mode) for _, law in drafted)  # the chain's law, as the n-grams'
        out = before + list(result.emitted[: s.tokens - len(before)])
    return blocks, out, tvs


def chain_drafts(
    models: Models,
    cache: RequestCache,
    s: Settings,
    grids: SiblingGrids,
    b: int,
    context: list[int],
    block: MethodBlock,
) -> list[tuple[int, Law]]:
    """Every token a chain's block drafted, with the laws it was drafted from.

    `method_block` walks only as far as verification reads; a chain's draft model proposes
    all its tokens before the target's pass, so those after the first rejection are drafted
    here too, from the same keyed uniforms (each is computed, then discarded, as a server's
    draft computes and rolls them back)."""
    drafted = [(level.siblings[0], level.law) for level in block.levels]
    if block.result.first_rejection is None or len(drafted) >= block.depth:
        return drafted
    before, prev = context_pair(models, context)
    for x, _ in drafted:
        before, prev = models.advance(before, prev, x)
    for i in range(len(drafted), block.depth):
        law = cache.law(s.match, s.greedy, before, prev, s.draft_source == "adversary")
        x = sample_from_cdf(law.q, law.q_cdf, float(grids.draft[b, i, 0]))
        drafted.append((x, law))
        before, prev = models.advance(before, prev, x)
    return drafted


def _block_trace(
    models: Models,
    cache: RequestCache,
    s: Settings,
    b: int,
    context: list[int],
    out: list[int],
    draft: list[int],
    steps: tuple[DraftStep, ...],
    result: BlockResult,
    draws: _Draws,
) -> BlockTrace:
    """The block's record; its emitted tokens are cut to what the request still needs."""
    room = s.tokens - len(out)
    kinds = _kinds(result)[:room]
    # The focus is the first rejection, else the last draft; a block that drafted nothing
    # (one token left) has no focus and no repair picture.
    focus = result.first_rejection if result.first_rejection is not None else len(draft) - 1
    bars: tuple[Bar, ...] = ()
    top: tuple[tuple[str, float], ...] = ()
    if draft:
        before, prev = context_pair(models, context + draft[:focus])
        law = cache.law(s.match, s.greedy, before, prev, s.draft_source == "adversary")
        bars, top = repair_picture(models.vocab, law, draft[focus])
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
        u_final=float(draws.final[b]),
        focus=focus if draft else None,
        bars=bars,
        residual_top=top,
        truncated=len(result.emitted) - len(kinds),
        depth=len(draft),
        scored=len(draft) + 1 if s.verify else 0,
    )


def _draft_step(
    models: Models, i: int, x: int, p: float, q: float, alpha: float, u: float, r: BlockResult
) -> DraftStep:
    checked = r.verified and (r.first_rejection is None or i <= r.first_rejection)
    return DraftStep(
        position=i,
        token=x,
        word=models.vocab[x],
        p=p,
        q=q,
        ratio=p / q,
        u=u,
        accepted=(i < r.accepted) if checked else None,
        alpha=alpha,
    )


def _kinds(r: BlockResult) -> tuple[Kind, ...]:
    if not r.verified:
        return tuple("unchecked" for _ in r.emitted)
    last: Kind = "repaired" if r.first_rejection is not None else "bonus"
    accepted: tuple[Kind, ...] = tuple("accepted" for _ in range(r.accepted))
    return (*accepted, last)


# ------------------------------------------------------- trees, typical acceptance, lookup


def _method_blocks(
    models: Models, cache: RequestCache, s: Settings, prompt: list[int], draws: _Draws
) -> Iterator[tuple[int, list[int], MethodBlock]]:
    """The blocks of a tree, typical acceptance or prompt lookup: each block's index, the
    output before it, and the block (its output cut to the room is what follows it)."""
    grids = SiblingGrids.of(s, cache)
    out: list[int] = []
    b = 0
    while len(out) < s.tokens:
        before = list(out)
        block = method_block(
            models, cache, s, grids, float(draws.final[b]), b, prompt + out, _drafts(s, len(out))
        )
        yield b, before, block
        out.extend(block.result.emitted[: s.tokens - len(out)])
        b += 1


def _method_traces(
    models: Models, cache: RequestCache, s: Settings, prompt: list[int], draws: _Draws
) -> tuple[list[BlockTrace], list[int], list[float]]:
    blocks: list[BlockTrace] = []
    tvs: list[float] = []
    out: list[int] = []
    for b, before, block in _method_blocks(models, cache, s, prompt, draws):
        blocks.append(_method_trace(models, s, b, prompt + before, before, block, draws))
        tvs.extend(
            level_tv(s, level.law, x) for level, x in zip(block.levels, _copied(block), strict=True)
        )
        out = before + list(block.result.emitted[: s.tokens - len(before)])
    return blocks, out, tvs


def _copied(block: MethodBlock) -> list[int | None]:
    """Each level's copied token (prompt lookup's law depends on it); None for the others."""
    if block.lookup is None:
        return [None] * len(block.levels)
    return [level.siblings[0] for level in block.levels]


def _method_trace(
    models: Models,
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


def _tree_level(models: Models, i: int, level: Level) -> TreeLevel:
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
