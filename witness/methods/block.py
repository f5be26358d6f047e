"""One block of the served request under the methods serving systems use beside the chain.

- **Token trees** (SpecInfer, Sequoia, EAGLE-2): every node drafts ``tree_width`` siblings
  from q given its path, ``k`` levels deep; the target scores every node in one pass, and
  verification walks down from the root, testing a node's siblings in turn against the
  residual left by the ones before (`witness.methods.siblings`). A walk that rejects every sibling
  of a node ends with a token from the last residual; one that reaches a leaf, with a bonus.
- **Typical acceptance** (Medusa): the first sibling whose p(x) clears a bar set by p's
  entropy is accepted; none does, the target's argmax is emitted. Not lossless.
- **Prompt lookup**: the draft is copied from earlier in the request (`witness.methods.lookup`), a
  one-hot law, so a copied token stands with probability p(x).

Only the walked path is computed. A real system drafts the whole tree (one batched draft
pass per level) and its target scores all of it, and the witness counts that work; but a
node whose parent was rejected cannot change what is emitted, so its tokens are never
drawn here. Sibling j at depth i uses the keyed uniforms (block, i, j) of
`witness.core.keys.sibling_uniforms`: sibling 0 is the chain's own draw, so widening a chain
into a tree keeps every decision the chain made until a second sibling is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from witness.core.distributions import sample_from_cdf
from witness.core.keys import Stream, sibling_uniforms
from witness.core.rule import BlockResult
from witness.core.settings import Settings, drafted_width, tree_nodes
from witness.core.theory import total_variation_unchecked
from witness.methods.lookup import LookupMatch, lookup_draft
from witness.methods.sibling_laws import sibling_law_and_acceptance_unchecked
from witness.methods.siblings import (
    SiblingResult,
    draft_siblings_unchecked,
    verify_siblings_unchecked,
)
from witness.methods.typical import (
    typical_law_and_acceptance_unchecked,
    typical_threshold,
    verify_typical_unchecked,
)
from witness.models.cache import RequestCache
from witness.models.laws import FloatArray, Law, context_pair
from witness.models.pair import Models


def is_chain(s: Settings) -> bool:
    """Today's chain: one sampled draft per level, the exact rule (the fast path).

    One sibling drafted `distinct` is a draw from q, the chain itself; one drafted `top` is
    q's most likely token, a different draft (accepted with probability p(x)).
    """
    return (
        s.tree_width == 1
        and s.drafting != "top"
        and s.acceptance == "exact"
        and s.draft_source != "lookup"
    )


def compiled_chain(s: Settings) -> bool:
    """The chain on the n-gram tables, which the compiled loop serves
    (`witness.serve.chain`); the transformers' chain is served block by block here, as a
    tree of width 1 (sibling 0 is the chain's own draw)."""
    return is_chain(s) and s.models == "ngram"


def chain_twin(s: Settings) -> Settings:
    """The chain at the same k, the same seeds and the same switches: what a tree, typical
    acceptance or prompt lookup is set beside, at equal draft work."""
    return s.model_copy(
        update={
            "tree_width": 1,
            "drafting": "sample",
            "acceptance": "exact",
            "draft_source": "model",
        }
    )


@dataclass(frozen=True, slots=True)
class SiblingGrids:
    """The request's keyed sibling uniforms, indexed [block, depth, sibling]."""

    draft: FloatArray
    accept: FloatArray

    @classmethod
    def of(cls, s: Settings, cache: RequestCache | None = None) -> SiblingGrids:
        """The grids for ``s``, kept by ``cache`` when one is given (they depend on the
        seed, the length, k and the width alone)."""
        grid = sibling_uniforms if cache is None else cache.grids.siblings
        n, k, w = s.tokens, s.k, s.tree_width
        return cls(grid(s.seed, n, k, w, Stream.DRAFT), grid(s.seed, n, k, w, Stream.ACCEPT))


@dataclass(frozen=True, slots=True)
class Level:
    """What verification met at one depth: the siblings, their checks, the chance of one."""

    law: Law
    siblings: tuple[int, ...]
    check: SiblingResult | None  # None: verify off, nothing checked
    alpha: float
    threshold: float | None


@dataclass(frozen=True, slots=True)
class MethodBlock:
    result: BlockResult
    levels: tuple[Level, ...]
    path: tuple[int, ...]  # the drafted token at each depth reached (accepted, or sibling 0)
    lookup: LookupMatch | None
    scored: int  # tokens the target scored in the block's pass (0 with verify off)
    drafted: int  # tokens drafted: every node of the tree, or the copied tokens
    draft_passes: int  # one batched pass per level; none for prompt lookup
    depth: int  # levels drafted (the tree's depth, or how many tokens were copied)


def method_block(
    models: Models,
    cache: RequestCache,
    s: Settings,
    grids: SiblingGrids,
    u_final: float,
    b: int,
    context: list[int],
    drafts: int,
) -> MethodBlock:
    """Block ``b`` of a tree, typical acceptance or prompt lookup, drafting ``drafts`` deep."""
    if s.draft_source == "lookup":
        return _lookup_block(models, cache, s, grids.accept[b], u_final, context, drafts)
    before, prev = context_pair(models, context)
    levels: list[Level] = []
    path: list[int] = []
    for i in range(drafts):
        law = _law(cache, s, before, prev)
        siblings = draft_siblings_unchecked(
            law.q, s.tree_width, grids.draft[b, i], drafting=s.drafting, q_cdf=law.q_cdf
        )
        check = _check(s, law, siblings, grids.accept[b, i], u_final) if s.verify else None
        levels.append(Level(law, siblings, check, level_alpha(s, law), _threshold(s, law)))
        if check is not None and check.accepted is None:
            return _closed(s, levels, path, None, check.token, drafts)
        x = (
            siblings[check.accepted]
            if check is not None and check.accepted is not None
            else siblings[0]
        )
        path.append(x)
        before, prev = models.advance(before, prev, x)
    if not s.verify:
        return _unverified(levels, path, None, _drafted(s, drafts), drafts)
    bonus = _target_token(cache, s, before, prev, u_final)
    return _closed(s, levels, path, bonus, None, drafts)


def _check(
    s: Settings, law: Law, siblings: tuple[int, ...], u: FloatArray, u_final: float
) -> SiblingResult:
    if s.acceptance == "typical":
        return verify_typical_unchecked(
            law.p, law.q, siblings, drafting=s.drafting, bar=level_threshold(law)
        )
    residual0 = law.residual if s.drafting != "top" else None
    return verify_siblings_unchecked(
        law.p,
        law.q,
        siblings,
        u,
        u_final,
        drafting=s.drafting,
        repair=s.repair,
        residual0=residual0,
    )


def _closed(
    s: Settings,
    levels: list[Level],
    path: list[int],
    bonus: int | None,
    repair: int | None,
    drafts: int,
) -> MethodBlock:
    """A verified block's result: the accepted path, then the repair or the bonus token."""
    final = bonus if bonus is not None else repair
    assert final is not None
    rejected = None if bonus is not None else len(path)
    result = BlockResult(len(path), rejected, (*path, final), repair, bonus)
    drafted = _drafted(s, drafts)
    return MethodBlock(
        result, tuple(levels), tuple(path), None, 1 + drafted, drafted, drafts, drafts
    )


def _unverified(
    levels: list[Level], path: list[int], lookup: LookupMatch | None, drafted: int, passes: int
) -> MethodBlock:
    """Verify off: the drafted path stands unchecked and the target scores nothing."""
    result = BlockResult(len(path), None, tuple(path), None, None, verified=False)
    return MethodBlock(result, tuple(levels), tuple(path), lookup, 0, drafted, passes, len(path))


def _drafted(s: Settings, depth: int) -> int:
    return tree_nodes(drafted_width(s), depth)


def _law(cache: RequestCache, s: Settings, before: int, prev: int) -> Law:
    """The laws at context (before, prev) under the settings' match, mode and draft."""
    return cache.law(s.match, s.greedy, before, prev, s.draft_source == "adversary")


def _target_token(cache: RequestCache, s: Settings, before: int, prev: int, u: float) -> int:
    """The token the target draws at context (before, prev) with the uniform ``u``."""
    p = cache.target(s.greedy, before, prev)
    return sample_from_cdf(p, np.cumsum(p), u)


def _lookup_block(
    models: Models,
    cache: RequestCache,
    s: Settings,
    accept: FloatArray,
    u_final: float,
    context: list[int],
    drafts: int,
) -> MethodBlock:
    """Copy, then verify each copied token as a one-hot draft; no match: a plain pass."""
    match = lookup_draft(context, drafts)
    copied = match.continuation if match is not None else ()
    before, prev = context_pair(models, context)
    levels: list[Level] = []
    path: list[int] = []
    for i, x in enumerate(copied):
        law = _law(cache, s, before, prev)
        check = None
        if s.verify:
            check = verify_siblings_unchecked(
                law.p, law.q, (x,), accept[i, :1], u_final, drafting="top", repair=s.repair
            )
        levels.append(Level(law, (x,), check, float(law.p[x]), None))
        if check is not None and check.accepted is None:
            block = _closed(s, levels, path, None, check.token, len(copied))
            return _as_lookup(block, match, len(copied))
        path.append(x)
        before, prev = models.advance(before, prev, x)
    if not s.verify and not copied:
        # Nothing to copy and nothing to check: the block is plain decoding, a target pass.
        token = _target_token(cache, s, before, prev, u_final)
        return MethodBlock(BlockResult(0, None, (token,), None, token), (), (), None, 1, 0, 0, 0)
    if not s.verify:
        return _unverified(levels, path, match, len(copied), 0)
    bonus = _target_token(cache, s, before, prev, u_final)
    return _as_lookup(_closed(s, levels, path, bonus, None, len(copied)), match, len(copied))


def _as_lookup(block: MethodBlock, match: LookupMatch | None, copied: int) -> MethodBlock:
    return MethodBlock(block.result, block.levels, block.path, match, 1 + copied, copied, 0, copied)


def first_alpha(
    models: Models,
    cache: RequestCache,
    s: Settings,
    prompt: list[int],
    alphas: Sequence[float] = (),
) -> float:
    """α at the request's first drafted position (needed only when nothing was drafted).

    A prompt lookup that never found words to copy proposed nothing: nothing to accept."""
    if alphas:
        return alphas[0]
    if s.draft_source == "lookup":
        return 0.0
    before, prev = context_pair(models, prompt)
    law = _law(cache, s, before, prev)
    return law.alpha if is_chain(s) else level_alpha(s, law)


# ------------------------------------------------------------------------- exact, per level


def level_alpha(s: Settings, law: Law) -> float:
    """The exact chance that verification accepts one of this node's siblings.

    With repair off every sibling is tested against p, not the residual the earlier ones
    left, so the chance differs from the repaired rule's past the first sibling; with verify
    off nothing is tested and the switch does nothing: the repaired rule's chance is shown.
    """
    return level_exact(s, law)[1]


def level_exact(s: Settings, law: Law) -> tuple[FloatArray, float]:
    """The law a verified level emits and its acceptance, from one computation per `Law`.

    Both come from one call (`witness.methods.siblings.sibling_law_and_acceptance` or
    `witness.methods.typical.typical_law_and_acceptance`) and are kept in ``law.memo`` under what
    decides them: the width, the drafting, the rule and (for the exact rule) the repair.
    """
    repair = s.repair or not s.verify  # verify off: the repair switch does nothing
    key: tuple[object, ...] = (
        ("typical", s.tree_width, s.drafting)
        if s.acceptance == "typical"
        else ("exact", s.tree_width, s.drafting, repair)
    )
    found = cast("tuple[FloatArray, float] | None", law.memo.get(key))
    if found is None:
        if s.acceptance == "typical":
            found = typical_law_and_acceptance_unchecked(
                law.p, law.q, s.tree_width, drafting=s.drafting, bar=level_threshold(law)
            )
        else:
            found = sibling_law_and_acceptance_unchecked(
                law.p, law.q, s.tree_width, drafting=s.drafting, repair=repair
            )
        law.memo[key] = found
    return found


def _threshold(s: Settings, law: Law) -> float | None:
    return level_threshold(law) if s.acceptance == "typical" else None


def level_threshold(law: Law) -> float:
    """Typical acceptance's bar at this context, `typical_threshold(p)`, kept on the `Law`."""
    found = law.memo.get(("threshold",))
    if found is None:
        found = law.memo[("threshold",)] = typical_threshold(law.p)
    return float(found)  # type: ignore[arg-type]


def level_tv(s: Settings, law: Law, drafted: int | None = None) -> float:
    """Exact TV between the law this method emits at a level and p.

    Prompt lookup's law depends on the copied token ``drafted``; the others' only on the
    laws and the switches, so they are kept on the `Law`.
    """
    if s.draft_source == "lookup":
        assert drafted is not None
        return float(
            total_variation_unchecked(lookup_law(law.p, drafted, s.verify, s.repair), law.p)
        )
    key = ("tv", s.tree_width, s.drafting, s.acceptance, s.verify, s.repair)
    if key not in law.memo:
        law.memo[key] = total_variation_unchecked(method_law(s, law), law.p)
    return float(law.memo[key])  # type: ignore[arg-type]


def method_law(s: Settings, law: Law) -> FloatArray:
    """The exact law of the token a tree (or typical acceptance) emits at one level."""
    if not s.verify:  # the first sibling stands unchecked
        return unverified_law(law.q, s.drafting)
    return level_exact(s, law)[0]


def unverified_law(q: FloatArray, drafting: str) -> FloatArray:
    """Sibling 0 emitted unchecked: a draw from q, or q's argmax for top drafting."""
    if drafting != "top":
        return q
    out = np.zeros_like(q)
    out[int(np.argmax(q))] = 1.0
    return out


def lookup_law(p: FloatArray, x: int, verify: bool, repair: bool) -> FloatArray:
    """The law a copied token x leaves at its position: p when verified and repaired."""
    one = np.zeros_like(p)
    one[x] = 1.0
    if not verify:
        return one
    if repair:
        return p.copy()  # x with probability p(x), else p without x renormalised: p
    biased: FloatArray = p[x] * one + (1.0 - p[x]) * p
    return biased
