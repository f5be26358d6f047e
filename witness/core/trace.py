"""The served request's trace: frozen records of what each block did, and their JSON.

`witness.serve.request.serve_request` builds them; `RequestTrace.to_dict()` is exactly what the
JSON API returns, so a field added here is a field added to the API.
"""

from __future__ import annotations

from dataclasses import Field, asdict, dataclass
from typing import Any, ClassVar, Literal

from witness.core.modes import Mode
from witness.core.rule import BlockResult

Kind = Literal["accepted", "repaired", "bonus", "unchecked"]


def plain(x: Any) -> Any:
    """Tuples to lists, recursively: every result's `to_dict()`, as the JSON API returns it."""
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [plain(v) for v in x]
    return x


class JsonRecord:
    """A frozen result whose `to_dict()` is what the JSON API returns: its fields, nested
    records as dicts and tuples as lists. Every subclass is a dataclass."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = plain(asdict(self))
        return out


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
    """One token of the repair picture at a block's focus position.

    The picture is a stack: ``overlap`` = min(p, q), what an accepted draft gives the token,
    under the mass a rejection gives it. With repair on that is ``repair_mass`` =
    (1 − α)·residual, and the two add up to ``p`` (the identity that makes the method
    lossless); with repair off a rejection resamples p, so it is ``resample_mass`` =
    (1 − α)·p, and the stack is the biased law, not p. ``residual`` is the normalised one.
    """

    word: str
    p: float
    q: float
    overlap: float
    residual: float
    repair_mass: float
    resample_mass: float


@dataclass(frozen=True, slots=True)
class SiblingStep:
    """One sibling of a tree level and its check (``accepted`` None: never tested).

    Exact acceptance tests ``u < p/q`` with the laws as they stood at this sibling (p′ after
    the earlier siblings' residuals, q′ as drafted); typical acceptance has no uniform and
    tests ``p > threshold`` (its level's)."""

    index: int
    token: int
    word: str
    p: float
    q: float
    u: float | None
    accepted: bool | None


@dataclass(frozen=True, slots=True)
class TreeLevel:
    """The siblings verification met at one depth of the walked path.

    ``alpha`` is the exact chance that one of them is accepted there; ``threshold`` is
    typical acceptance's bar on p(x) (None for the exact rule); ``law_top`` is the law the
    closing token was drawn from when every sibling failed (the last residual)."""

    position: int
    siblings: tuple[SiblingStep, ...]
    accepted: int | None
    alpha: float
    threshold: float | None
    law_top: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class Lookup:
    """A prompt-lookup block's source: the words matched and where they were seen before."""

    ngram: tuple[str, ...]
    # Where the earlier occurrence starts, as an index into the whole request so far (the
    # prompt's kept words, then the text emitted before this block), not into the six
    # words of `BlockTrace.context`.
    start: int


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
    focus: int | None  # None: the block drafted nothing (one token was left)
    bars: tuple[Bar, ...]
    residual_top: tuple[tuple[str, float], ...]
    truncated: int
    # A tree's (or typical acceptance's) levels, one per drafted depth reached; empty for an
    # exact chain, whose `drafts` say it all. `scored`: tokens the target scored this pass.
    levels: tuple[TreeLevel, ...] = ()
    # How deep the block drafted: a chain records every draft, a tree only the levels its
    # walk reached, yet it drafted (and the target scored) the whole tree to this depth.
    depth: int = 0
    scored: int = 0
    lookup: Lookup | None = None


@dataclass(frozen=True, slots=True)
class Totals:
    """What the request cost and emitted, beside plain decoding (see `witness.serve.accounting`)."""

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
    # Draft work and verification width: every node of a tree is drafted (one batched draft
    # pass per level) and scored in the block's one target pass.
    drafted_tokens: int
    scored_per_pass: float | None
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
class RequestTrace(JsonRecord):
    settings: dict[str, Any]
    prompt_words: tuple[str, ...]
    skipped_prompt_words: tuple[str, ...]
    vocab_size: int
    text: str
    blocks: tuple[BlockTrace, ...]
    totals: Totals
    check: DistributionCheck


@dataclass(frozen=True, slots=True)
class ServedPath:
    """What a request did, without its trace: enough to price it and to pool its α."""

    target_passes: int
    draft_passes: int
    alphas: tuple[float, ...]  # α at every drafted position, in order
    first_alpha: float  # α where the first draft is (or would be) made
    # Tokens each target pass scored for its sequence, as (scored, passes) pairs: what a
    # machine prices a pass by (`witness.cost.costing`).
    scored: tuple[tuple[int, int], ...] = ()
