"""The chain's serve loops as plainly as the rule reads, in numpy: what `witness.serve.chain` is
held to, bit for bit (tests/witness/test_chain.py).

Each drafted position asks the request cache for its `witness.models.laws.Law` (p, q, q's CDF, α)
and draws by `witness.core.distributions.sample_from_cdf`; each block is checked by
`witness.core.rule.verify_unchecked`. Nothing here is fast, and nothing in the station calls it.

- `reference_blocks`: a served request's blocks (uniforms keyed by block and position);
- `reference_path`: its passes and α, as `serve_path` returns them;
- `reference_race`: a race's policy (uniforms keyed by output position, the policies' stop
  rules), with the oracle's broken twin that peeks (``peek=True``);
- ``repair_from_p``: the broken twin of every loop here, which repairs a rejection from p.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from witness.core.distributions import sample_from_cdf
from witness.core.keys import Stream
from witness.core.rule import BlockResult, verify_unchecked
from witness.core.settings import Settings
from witness.core.trace import ServedPath
from witness.judge.adaptive import LawBlocks, Policy, PolicyRun, _Grid, _race_on
from witness.methods.block import first_alpha, is_chain
from witness.models.cache import RequestCache
from witness.models.laws import FloatArray, Law, context_pair
from witness.models.lm import tiny_models


@dataclass(frozen=True, slots=True)
class Block:
    """One block: the drafted tokens, the law at each, what verification made of them."""

    draft: list[int]
    laws: list[Law]
    result: BlockResult


def reference_blocks(
    s: Settings, cache: RequestCache, *, repair_from_p: bool = False
) -> list[Block]:
    """The chain request ``s``'s blocks, served one position at a time."""
    assert is_chain(s)
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    n, k = s.tokens, s.k
    u_draft = cache.uniforms(s.seed, n, k, Stream.DRAFT)
    u_accept = cache.uniforms(s.seed, n, k, Stream.ACCEPT)
    u_final = cache.uniforms(s.seed, n, 1, Stream.FINAL)[:, 0]
    out: list[int] = []
    blocks: list[Block] = []
    while len(out) < s.tokens:
        room = s.tokens - len(out)
        drafts = min(s.k, room - 1 if s.verify else room)
        before, prev = context_pair(models, prompt + out)
        draft: list[int] = []
        laws: list[Law] = []
        b = len(blocks)
        for i in range(drafts):  # autoregressive: each token extends the draft's context
            law = cache.law(s.match, s.greedy, before, prev, s.draft_source == "adversary")
            x = sample_from_cdf(law.q, law.q_cdf, float(u_draft[b, i]))
            draft.append(x)
            laws.append(law)
            before, prev = prev, x
        p_rows = [law.p for law in laws]
        p_rows.append(cache.target(s.greedy, before, prev))  # the bonus position, same pass
        result = verify_unchecked(
            p_rows,
            [law.q for law in laws],
            draft,
            u_accept[b],
            float(u_final[b]),
            verify=s.verify,
            repair=s.repair,
            residual_at=_residual(laws, repair_from_p),
        )
        blocks.append(Block(draft, laws, result))
        out.extend(result.emitted[:room])
    return blocks


def _residual(laws: list[Law], repair_from_p: bool) -> Callable[[int], FloatArray]:
    return (lambda i: laws[i].p) if repair_from_p else (lambda i: laws[i].residual)


def reference_path(s: Settings, cache: RequestCache, *, repair_from_p: bool = False) -> ServedPath:
    """`serve_path` of the chain request ``s``, from `reference_blocks`."""
    blocks = reference_blocks(s, cache, repair_from_p=repair_from_p)
    alphas = tuple(law.alpha for block in blocks for law in block.laws)
    scored = Counter(len(block.draft) + 1 for block in blocks) if s.verify else Counter()
    models = tiny_models()
    return ServedPath(
        target_passes=len(blocks) if s.verify else 0,
        draft_passes=sum(len(block.draft) for block in blocks),
        alphas=alphas,
        first_alpha=first_alpha(models, cache, s, models.encode(s.prompt)[0], alphas),
        scored=tuple(sorted(scored.items())),
    )


def reference_race(
    policy: Policy, s: Settings, grid: _Grid, cache: RequestCache, *, peek: bool = False
) -> PolicyRun:
    """`witness.judge.adaptive._race_on` with every block served position by position
    (`LawBlocks`; ``peek``: the oracle's twin); the planning and accounting are the race's own."""
    return _race_on(policy, s, grid, blocks=LawBlocks(policy, s, grid, cache, peek))
