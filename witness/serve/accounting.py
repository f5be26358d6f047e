"""What a request costs: passes, cost units, speedups and milliseconds, beside plain decoding.

One target pass is one cost unit and one draft pass costs ``c`` of it. Plain decoding pays
one target pass per token; a verified block pays one target pass and k draft passes; with
verify off a block pays only its k draft passes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from witness.core.settings import Settings, drafted_width, tree_nodes
from witness.core.theory import expected_speedup
from witness.core.trace import BlockTrace, Totals
from witness.cost.costing import Costing, costing, price


def cost_units(target_passes: int, draft_passes: int, c: float) -> float:
    """Target passes plus ``c`` per draft pass.

    Examples
    --------
    >>> cost_units(12, 48, 0.1)
    16.8
    """
    return target_passes + c * draft_passes


def measured_speedup(tokens: float, cost: float) -> float | None:
    """Tokens per cost unit against plain decoding's one; None (unbounded) at zero cost."""
    return tokens / cost if cost > 0 else None


def speedup_expected(alpha: float, k: int, c: float, *, verify: bool) -> float | None:
    """The formula's speedup; with verify off, k tokens for k draft passes: 1/c.

    Examples
    --------
    >>> speedup_expected(0.8, 4, 0.05, verify=False), speedup_expected(0.8, 4, 0.0, verify=False)
    (20.0, None)
    """
    if verify:
        return float(expected_speedup(alpha, k, c))
    return 1.0 / c if c > 0 else None  # unbounded when drafting is free


def draft_cost(s: Settings) -> float:
    """What one drafted level costs at the settings' k, in plain decoding steps: c (nothing
    when the draft is copied by prompt lookup), plus on a machine the verifying pass's
    surcharge spread over the level (`witness.cost.costing.price`)."""
    return price(s)


def priced_cost(cost: Costing, scored: Sequence[int], draft_passes: int) -> float:
    """Plain decoding steps a request spent: each target pass priced by what it scored (1 a
    pass with machine custom), plus c per draft pass.

    Examples
    --------
    >>> priced_cost(Costing(0.1), [5, 5, 3], 10)
    4.0
    """
    return sum(cost.verify(x) for x in scored) + cost.c * draft_passes


def totals(s: Settings, blocks: Sequence[BlockTrace], first_alpha: float) -> Totals:
    """The request's totals from its blocks.

    The last block drafts only what is left, so draft passes are counted block by block.
    ``mean_alpha`` is over every drafted position; a request that drafted nothing (one token
    to generate, verified) takes ``first_alpha``, the acceptance rate where it would have.
    """
    n = s.tokens
    # Verified, every block is one target pass; unverified, only a prompt lookup's block with
    # nothing to copy runs the target (plain decoding of that token).
    target_passes = len(blocks) if s.verify else sum(b.scored > 0 for b in blocks)
    # A tree drafts every node, one batched draft pass per level; prompt lookup copies its
    # draft, with no draft model to run (its cost is string matching, ~0).
    depths = [b.depth for b in blocks]
    draft_passes = 0 if s.draft_source == "lookup" else sum(depths)
    width = drafted_width(s)  # one sibling a node when greedy leaves q nothing else
    drafted = sum(tree_nodes(width, d) for d in depths)
    scored = sum(b.scored for b in blocks)
    accepted = sum(b.result.accepted for b in blocks) if s.verify else 0
    rejected = sum(b.result.first_rejection is not None for b in blocks)
    cost = priced_cost(costing(s), [b.scored for b in blocks if b.scored > 0], draft_passes)
    alphas = [d.alpha for b in blocks for d in b.drafts]
    mean_alpha = float(np.mean(alphas)) if alphas else first_alpha
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
        drafted_tokens=drafted,
        scored_per_pass=scored / target_passes if target_passes else None,
        mean_alpha=mean_alpha,
        speedup_measured=measured_speedup(n, cost),
        speedup_expected=speedup_expected(mean_alpha, s.k, draft_cost(s), verify=s.verify),
        ms_speculative=s.ttft_ms + cost * s.tpot_ms,
        ms_baseline=s.ttft_ms + n * s.tpot_ms,
    )
