"""The Evidence panel: the request's marked text, the selected block, passes, the checks."""

from __future__ import annotations

from dataclasses import dataclass

from app.station.services import BesideChain
from app.station.views import fmt
from app.station.views.charts import BarChart, Gauge, PassChart, gauge, pass_chart, repair_chart
from app.station.views.judgement import (
    Savings,
    alpha_over,
    counted,
    formula_gap,
    formula_speedup,
    paired_interval,
    savings,
    speedup_range,
)
from app.station.views.marks import MARKS, Mark
from app.station.views.pricing import cost_short
from app.station.views.tree_chart import TreeChart, ending_sentence, method_name, tree_chart
from app.words import Sentence, say
from witness import Settings
from witness.core.settings import drafted_width, tree_nodes
from witness.core.trace import BlockTrace, RequestTrace, Totals
from witness.cost.costing import Costing, costing, scored_per_sequence
from witness.judge.ensemble import Comparison, Ensemble, Estimate
from witness.judge.evaluation import SIGNIFICANCE, FirstTokenCheck
from witness.methods.block import is_chain
from witness.serve.accounting import draft_cost, speedup_expected
from witness.serve.check import EXACT


@dataclass(frozen=True, slots=True)
class TokenView:
    word: str
    kind: str  # what happened to it: accepted, rejected, repaired, bonus, unchecked
    mark: Mark  # drawn by CSS; typical acceptance's argmax is a repaired token with its own

    @property
    def style(self) -> str:
        """The token's classes after "tok--": its kind, and its mark where that differs."""
        return self.kind if self.mark.style == self.kind else f"{self.kind} tok--{self.mark.style}"


@dataclass(frozen=True, slots=True)
class BlockChip:
    """One block in the request text: its tokens, and the link that selects it."""

    index: int
    number: int
    tokens: tuple[TokenView, ...]
    selected: bool
    href: str


@dataclass(frozen=True, slots=True)
class DraftRow:
    number: int
    word: str
    p: str
    q: str
    ratio: str
    u: str
    outcome: str
    outcome_kind: str  # accepted, rejected, unchecked (not reached or not verified)


@dataclass(frozen=True, slots=True)
class BlockDetail:
    number: int
    context: str
    rows: tuple[DraftRow, ...]
    ending: str
    chart: BarChart | None  # None: the block drafted nothing (one token was left)
    gauge: Gauge | None
    # A tree's (typical acceptance's, a lookup's) walk, drawn; None for the chain, whose
    # drafts table, repair picture and gauge say it all.
    tree: TreeChart | None = None
    plain: bool = False  # a method's block that drafted nothing: no table to show


@dataclass(frozen=True, slots=True)
class PendingDetail:
    """The worked block not yet drawn: its heading, and where to fetch it (a slider's tick)."""

    number: int
    context: str
    href: str  # /station/block for this state
    page: str  # the whole page, which draws it in place (a link without JavaScript)


@dataclass(frozen=True, slots=True)
class PendingBeside:
    """The comparison with the chain not yet drawn: where to fetch it (a slider's tick)."""

    href: str  # /station/beside for this state
    page: str  # the whole page, which draws it in place (a link without JavaScript)


@dataclass(frozen=True, slots=True)
class Figure:
    label: str
    value: str
    note: str = ""


TERM_KEYS = (("u", "u"), ("residual", "residual"), ("bonus token", "bonus"))

# The marks' legend: a sample word of each kind.
KINDS = ("accepted", "rejected", "repaired", "bonus", "unchecked")
LEGEND = tuple(TokenView("word", k, MARKS[k]) for k in KINDS)

# The rule's own words, defined in plain words where the request first uses them.
TERMS = tuple((name, say(f"evidence.terms.{key}")) for name, key in TERM_KEYS)


@dataclass(frozen=True, slots=True)
class EvidenceView:
    blocks: tuple[BlockChip, ...]
    detail: BlockDetail | None  # None: drawn later, from `pending_detail`
    first_rejection: str
    passes: PassChart
    figures: tuple[Figure, ...]
    formula_gap: str  # why the measured mean sits under the formula, when it does
    alpha: float  # the station's α (witness.judge.ensemble)
    break_even_measured: float | None  # the draft cost at which this k stops paying
    break_even_formula: float | None
    exact_check: str
    sampled_check: str
    keeps_target: bool
    legend: tuple[TokenView, ...] = LEGEND
    terms: tuple[tuple[str, Sentence], ...] = TERMS
    # Beside the chain at equal draft work: None for the chain itself, or when the caller
    # did not pass the chain twin's ensemble (then `pending_beside` says where to fetch it).
    beside_chain: ChainComparison | None = None
    pending_detail: PendingDetail | None = None
    pending_beside: PendingBeside | None = None


@dataclass(frozen=True, slots=True)
class CompareRow:
    label: str
    method: str  # this method's value
    chain: str  # the chain twin's
    note: str


@dataclass(frozen=True, slots=True)
class ChainComparison:
    """This method beside the chain at the same k and the same seeded requests."""

    caption: str
    method: str  # the method in words
    rows: tuple[CompareRow, ...]
    verdict: str  # faster/slower/within noise than the chain, from the paired ensembles
    notes: tuple[str, ...]  # the cost model, draft passes, and the method's own caveat


ARGMAX = TokenView("word", "repaired", MARKS["argmax"])


def block_tokens(block: BlockTrace, typical: bool = False) -> tuple[TokenView, ...]:
    tokens = [
        _token(w, k, typical) for w, k in zip(block.emitted_words, block.emitted_kinds, strict=True)
    ]
    if block.rejected_word is not None and len(tokens) > block.result.accepted:
        tokens.insert(block.result.accepted, _token(block.rejected_word, "rejected"))
    return tuple(tokens)


def _token(word: str, kind: str, typical: bool = False) -> TokenView:
    if typical and kind == "repaired":
        return TokenView(word, kind, ARGMAX.mark)
    return TokenView(word, kind, MARKS[kind])


def legend_of(s: Settings) -> tuple[TokenView, ...]:
    """The marks' legend; typical acceptance's closing token is the argmax, not a repair."""
    if s.acceptance != "typical":
        return LEGEND
    return tuple(ARGMAX if t.kind == "repaired" else t for t in LEGEND)


def default_block(trace: RequestTrace) -> int:
    """The first block with a rejection teaches the most; else the first block."""
    for b in trace.blocks:
        if b.result.first_rejection is not None:
            return b.index
    return 0


def block_detail(block: BlockTrace, s: Settings, prompt_words: int | None = None) -> BlockDetail:
    if not is_chain(s):
        return _method_detail(block, s, prompt_words)
    rows = []
    for d in block.drafts:
        kind = _outcome_kind(d.accepted)
        mode = kind if kind != "unchecked" else ("not_reached" if s.verify else "not_checked")
        rows.append(
            DraftRow(
                d.position + 1,
                d.word,
                fmt.prob(d.p),
                fmt.prob(d.q),
                f"{d.ratio:.2f}",
                f"{d.u:.2f}",
                say(f"evidence.outcome.{mode}"),
                kind,
            )
        )
    return BlockDetail(
        number=block.index + 1,
        context=" ".join(block.context),
        rows=tuple(rows),
        ending=block_ending(block, s),
        chart=repair_chart(block, s.repair) if block.focus is not None else None,
        gauge=gauge(block.drafts[block.focus]) if block.focus is not None else None,
    )


def _outcome_kind(accepted: bool | None) -> str:
    """A draft's row class: accepted, rejected, or unchecked (not reached or not verified)."""
    if accepted is None:
        return "unchecked"
    return "accepted" if accepted else "rejected"


def _method_detail(block: BlockTrace, s: Settings, prompt_words: int | None) -> BlockDetail:
    """A tree's, typical acceptance's or a lookup's block: the walk drawn, not the chain's
    drafts table, repair picture and gauge (which read one draft per position)."""
    tree = tree_chart(block, s, prompt_words) if block.levels else None
    ending = ending_sentence(block, s) if block.levels else block_ending(block, s)
    return BlockDetail(
        number=block.index + 1,
        context=" ".join(block.context),
        rows=(),
        ending=ending,
        chart=None,
        gauge=None,
        tree=tree,
        plain=tree is None,
    )


def block_ending(block: BlockTrace, s: Settings) -> Sentence:
    """How the worked block ended: nothing drafted, nothing checked, a rejection, or a bonus."""
    final, drafted = block.final_word, len(block.drafts)
    if not block.drafts and s.draft_source == "lookup" and s.tokens - block.start > 1:
        return say("evidence.ending.lookup_no_match", word=final)
    if not block.drafts:
        return say("evidence.ending.one_token", word=final)
    if not s.verify:
        return say("evidence.ending.unverified", drafted=drafted)
    r = block.result.first_rejection
    if r is not None:
        rejected = {"position": r + 1, "word": block.rejected_word, "final": final}
        if not s.repair:
            return say("evidence.ending.resampled", **rejected)
        top = ", ".join(f"'{w}' {fmt.prob(p)}" for w, p in block.residual_top[:3])
        return say("evidence.ending.repaired", top=top, **rejected)
    mode = "bonus_unused" if block.truncated else "bonus"
    return say(f"evidence.ending.{mode}", drafted=drafted, bonus=final)


def first_rejection_text(trace: RequestTrace) -> Sentence:
    s = Settings(**trace.settings)
    for b in trace.blocks:
        r = b.result.first_rejection
        if r is not None and b.levels:
            return say(
                "evidence.first_rejection.tree",
                block=b.index + 1,
                depth=r + 1,
                ending=ending_sentence(b, s),
            )
        if r is not None:
            d = b.drafts[r]
            return say(
                f"evidence.first_rejection.{'repaired' if s.repair else 'resampled'}",
                block=b.index + 1,
                position=r + 1,
                word=d.word,
                u=f"{d.u:.2f}",
                ratio=f"{d.ratio:.2f}",
                final=b.final_word,
            )
    return say(f"evidence.first_rejection.none.{_why_no_rejection(trace, s)}")


def _why_no_rejection(trace: RequestTrace, s: Settings) -> str:
    """Why a request has no rejection (a mode of ``evidence.first_rejection.none``)."""
    if not s.verify:
        return "unverified"
    if not any(b.drafts for b in trace.blocks):
        return "lookup_no_match" if s.draft_source == "lookup" and s.tokens > 1 else "one_token"
    if any(b.levels for b in trace.blocks):
        return "sibling_stood"
    return "all_accepted"


def figures(trace: RequestTrace, settings: Settings, ens: Ensemble) -> tuple[Figure, ...]:
    """The request's own counts, its speedup labelled as one request's, and the verdict's
    numbers beside it: the ensemble's speedup and the formula at the station's α."""
    if not is_chain(settings):
        return _method_figures(trace, settings, ens)
    t = trace.totals
    est = ens.speedup(costing(settings))
    return _figures(
        t,
        settings,
        est,
        passes=say("evidence.figure.draft_passes.chain", k=settings.k, blocks=t.blocks),
        per_pass_note=say("evidence.figure.per_pass.chain", accepted=t.accepted_drafts),
        formula=fmt.speedup(formula_speedup(ens, settings)),
        formula_note=say(
            "evidence.figure.formula.chain",
            alpha=f"{ens.alpha:.3f}",
            over=alpha_over(ens),
            own=f"{t.mean_alpha:.3f}",
            cost=cost_short(settings),
        ),
    )


def _method_figures(trace: RequestTrace, s: Settings, ens: Ensemble) -> tuple[Figure, ...]:
    """`figures` for a tree, typical acceptance or prompt lookup: the same figures, with the
    draft work, the verification width and the copied draft's zero cost said."""
    t = trace.totals
    est = ens.speedup(costing(s))
    formula = speedup_expected(ens.alpha, s.k, draft_cost(s), verify=s.verify)
    return _figures(
        t,
        s,
        est,
        passes=_method_passes(t, s),
        per_pass_note=(
            say("evidence.figure.per_pass.levels", stood=t.accepted_drafts)
            if t.scored_per_pass is None
            else say(
                "evidence.figure.per_pass.scored",
                stood=t.accepted_drafts,
                scored=f"{t.scored_per_pass:.1f}",
            )
        ),
        formula=fmt.speedup(formula),
        formula_note=say(
            f"evidence.figure.formula.{'lookup' if s.draft_source == 'lookup' else 'levels'}",
            alpha=f"{ens.alpha:.3f}",
            requests=est.n,
            own=f"{t.mean_alpha:.3f}",
            cost=cost_short(s),
        ),
    )


def _method_passes(t: Totals, s: Settings) -> Sentence:
    """The draft passes' note: a copy runs no draft model; a tree drafts a level a pass."""
    if s.draft_source == "lookup":
        return say("evidence.figure.draft_passes.lookup", copied=t.drafted_tokens, blocks=t.blocks)
    return say(
        "evidence.figure.draft_passes.levels", k=s.k, drafted=t.drafted_tokens, blocks=t.blocks
    )


def _figures(
    t: Totals,
    s: Settings,
    est: Estimate,
    *,
    passes: str,
    per_pass_note: str,
    formula: str,
    formula_note: str,
) -> tuple[Figure, ...]:
    """The figures in their order; a chain and a method differ only in what they say of the
    draft passes, the tokens per pass and the formula."""
    per_pass = "—" if t.tokens_per_pass is None else f"{t.tokens_per_pass:.2f}"
    return (
        Figure(
            "Target passes",
            f"{t.target_passes}",
            say("evidence.figure.target_passes", passes=t.baseline_target_passes),
        ),
        Figure("Draft passes", f"{t.draft_passes}", passes),
        Figure("Tokens per target pass", per_pass, per_pass_note),
        Figure(
            "Speedup of this one request",
            fmt.speedup(t.speedup_measured),
            say("evidence.figure.one_request", seed=s.seed),
        ),
        Figure(
            f"Speedup over {counted(est, seeds=False)}",
            fmt.speedup(est.mean),
            speedup_range(est, greedy=s.greedy),
        ),
        Figure("Speedup by the formula", formula, formula_note),
        time_figure(t, s),
    )


def time_figure(t: Totals, s: Settings) -> Figure:
    """The request's time on one clock. A priced machine's clock is its own plain decoding
    step (`Costing.plain_seconds`), every pass priced in those steps; the workload's TTFT and
    TPOT are what machine custom prices by, and the sentence says so."""
    cost = costing(s)
    if cost.machine is None:
        return Figure(
            "Time at TPOT",
            fmt.ms(t.ms_speculative),
            say(
                "evidence.figure.time.custom",
                plain=fmt.ms(t.ms_baseline),
                ttft=f"{s.ttft_ms:g}",
                tpot=f"{s.tpot_ms:g}",
            ),
        )
    step = cost.plain_seconds * 1e3
    return Figure(
        "Decoding time on the machine",
        fmt.ms(t.cost_units * step),
        say(
            "evidence.figure.time.machine",
            units=f"{t.cost_units:.1f}",
            step=fmt.pass_ms(step),
            machine=cost.machine_label,
            plain=fmt.ms(t.baseline_cost_units * step),
            tokens=t.tokens,
        ),
    )


def exact_check_text(trace: RequestTrace) -> Sentence:
    c = trace.check
    if c.keeps_target:
        exact = say("evidence.exact.kept")
    else:
        exact = say(
            "evidence.exact.lost",
            tv_max=fmt.distance(c.tv_max),
            tv_mean=fmt.distance(c.tv_mean),
            positions=sum(len(b.drafts) for b in trace.blocks),
        )
    if c.matches_greedy_baseline is None:
        return exact
    same = "identical" if c.matches_greedy_baseline else "different"
    return say(
        "evidence.exact.with_greedy", exact=exact, greedy=say(f"evidence.exact.greedy.{same}")
    )


def sampled_check_text(check: FirstTokenCheck) -> Sentence:
    """A test that fails to reject has not shown agreement: say what it found, and what the
    exact check knows that a sample cannot."""
    found = say(
        "evidence.sampled.found",
        blocks=f"{check.blocks:,}",
        p_value=fmt.p_value(check.chi_square.p_value),
        tv=f"{check.tv_empirical:.3f}",
    )
    level = f"{SIGNIFICANCE:g}"
    exact_zero = check.tv_exact <= EXACT
    if not check.keeps_target and not exact_zero:
        return say("evidence.sampled.rejects", found=found, level=level)
    if not check.keeps_target:
        one_in = f"{1 / SIGNIFICANCE:,.0f}"
        return say("evidence.sampled.false_alarm", found=found, level=level, one_in=one_in)
    if exact_zero:
        return say("evidence.sampled.no_evidence", found=found)
    return say("evidence.sampled.missed", found=found, tv=fmt.distance(check.tv_exact))


def evidence_view(
    trace: RequestTrace,
    settings: Settings,
    selected: int,
    check: FirstTokenCheck,
    hrefs: tuple[str, ...],
    ens: Ensemble,
    *,
    beside: BesideChain | None = None,
    judged: Savings | None = None,
    pending: tuple[str, str] | None = None,
    pending_beside: tuple[str, str] | None = None,
) -> EvidenceView:
    """``hrefs[i]`` is the page URL that selects block i. ``beside`` is a tree, typical or
    lookup state's chain twin and the comparison with it (`Witness.beside_chain`): with it,
    the evidence sets the method beside the chain at equal draft work. ``judged`` is the
    savings judgement of ``ens``, when the caller has made it already (the gates share it).
    ``pending`` is (block URL, page URL) where the worked block is fetched later instead of
    drawn here; ``pending_beside`` the same for the comparison with the chain."""
    judged = savings(ens, settings) if judged is None else judged
    typical = settings.acceptance == "typical"
    chips = tuple(
        BlockChip(
            b.index, b.index + 1, block_tokens(b, typical), b.index == selected, hrefs[b.index]
        )
        for b in trace.blocks
    )
    block = trace.blocks[selected]
    return EvidenceView(
        blocks=chips,
        detail=None if pending else block_detail(block, settings, len(trace.prompt_words)),
        pending_detail=(
            PendingDetail(block.index + 1, " ".join(block.context), *pending) if pending else None
        ),
        first_rejection=first_rejection_text(trace),
        passes=pass_chart(trace.totals, costing(settings).c),
        figures=figures(trace, settings, ens),
        formula_gap=formula_gap(ens, settings),
        alpha=ens.alpha,
        break_even_measured=judged.break_even_measured,
        break_even_formula=judged.break_even_formula,
        exact_check=exact_check_text(trace),
        sampled_check=sampled_check_text(check),
        keeps_target=trace.check.keeps_target,
        legend=legend_of(settings),
        beside_chain=None if beside is None else beside_chain(trace, settings, ens, beside),
        pending_beside=PendingBeside(*pending_beside) if pending_beside else None,
    )


def _mean(xs: tuple[float, ...]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _per_pass(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def beside_chain(
    trace: RequestTrace, s: Settings, ens: Ensemble, beside: BesideChain
) -> ChainComparison:
    """This method and its chain twin over the same seeded requests, at equal draft work:
    the same k, one batched draft pass per level, the same draft cost."""
    chain, cmp = beside.chain, beside.comparison
    k, w = s.k, drafted_width(s)  # greedy leaves top and distinct one sibling a node
    lookup = s.draft_source == "lookup"
    work = "copied" if lookup else "drafted"  # a copy's notes, or a drafted method's
    # The chain twin runs the draft model, priced on the same machine as the method.
    c_method, c_chain = costing(s), costing(s.model_copy(update={"draft_source": "model"}))
    mine, twin = ens.speedup(c_method), chain.speedup(c_chain)
    n = len(ens.seeds)
    typical = s.acceptance == "typical"
    name = "Prompt lookup" if lookup else ("Typical acceptance" if typical else "The tree")
    drafted = say("evidence.beside.cell.drafted_copied", k=k) if lookup else f"{tree_nodes(w, k)}"
    scored = (
        say("evidence.beside.cell.scored_copied", scored=k + 1)
        if lookup
        else f"{1 + tree_nodes(w, k)}"
    )
    rows = (
        CompareRow(
            "Acceptance per level (the station's α)",
            f"{ens.alpha:.3f}",
            f"{chain.alpha:.3f}",
            say(f"evidence.beside.note.alpha.{'siblings' if w > 1 else 'chain'}", requests=n),
        ),
        CompareRow(
            "Tokens per target pass",
            _per_pass(ens.tokens_per_pass),
            _per_pass(chain.tokens_per_pass),
            say("evidence.beside.note.per_pass", requests=n),
        ),
        CompareRow(
            "Tokens the target scores per pass",
            scored,
            f"{k + 1}",
            say(f"evidence.beside.note.scored.{work}", own=_scored_here(trace.totals)),
        ),
        CompareRow(
            "Draft passes per full block",
            say("evidence.beside.cell.no_draft_model") if lookup else f"{k}",
            f"{k}",
            say(f"evidence.beside.note.block_passes.{work}"),
        ),
        CompareRow(
            "Draft passes per request",
            f"{_mean(ens.draft_passes):.1f}",
            f"{_mean(chain.draft_passes):.1f}",
            say("evidence.beside.note.request_passes.copied")
            if lookup
            else say("evidence.beside.note.request_passes.drafted", requests=n),
        ),
        CompareRow(
            "Drafted tokens per full block",
            drafted,
            f"{k}",
            say("evidence.beside.note.whole_tree") if w > 1 else "",
        ),
        CompareRow(
            (
                f"Speedup at c = {c_chain.c:.2f}"
                if c_method.machine is None
                else f"Speedup on {c_method.machine_label} (c = {c_chain.c:.2f})"
            )
            + (" (lookup: c = 0)" if lookup else ""),
            fmt.speedup(mine.mean),
            fmt.speedup(twin.mean),
            say(
                "evidence.beside.note.speedup",
                method=name,
                method_range=speedup_range(mine),
                chain_range=speedup_range(twin),
            ),
        ),
    )
    notes = [_cost_note(s, scored, c_method, c_chain)]
    if lookup:
        notes.append(say("evidence.beside.draft_passes.copied"))
    else:
        notes.append(say(f"evidence.beside.draft_passes.{'tree' if w > 1 else 'method'}", k=k))
    if typical:
        notes.append(_typical_note(trace, s, cmp, n))
    return ChainComparison(
        caption=say("evidence.beside.caption", method=method_name(s), k=k, requests=n),
        method=name,
        rows=rows,
        verdict=_beside_verdict(cmp, name, n),
        notes=tuple(notes),
    )


def _scored_here(t: Totals) -> Sentence:
    """What this request's target passes scored, for the note on a full block's tokens."""
    if t.scored_per_pass is None:
        return say("evidence.beside.note.scored_here.unverified")
    return say("evidence.beside.note.scored_here.mean", mean=f"{t.scored_per_pass:.1f}")


def _beside_verdict(cmp: Comparison, name: str, n: int) -> Sentence:
    """Faster, slower, within noise or the same as the chain, from the paired ensembles."""
    if cmp.change == "same":
        return say("evidence.beside.verdict.same", method=name, requests=n)
    bounded = cmp.ci_low > float("-inf") and cmp.ci_high < float("inf")
    if cmp.change == "within noise" or bounded:
        interval = paired_interval(cmp)
    else:  # an unbounded interval says nothing: the tally of requests does
        interval = say(
            "evidence.beside.verdict.interval.tally",
            faster=cmp.faster_on,
            slower=cmp.slower_on,
            requests=n,
        )
    mode = cmp.change.replace(" ", "_")
    return say(
        f"evidence.beside.verdict.{mode}", method=name.lower(), requests=n, interval=interval
    )


def _cost_note(s: Settings, scored: str, c_method: Costing, c_chain: Costing) -> Sentence:
    """How the passes are priced: by the count (custom), or by what each scores (a machine)."""
    k = s.k
    if c_method.machine is None:
        if s.draft_source == "lookup":
            return say("evidence.beside.cost.copied", scored=scored)
        return say("evidence.beside.cost.drafted", scored=scored, chain_scored=k + 1)
    # A machine prices each pass by what it scores: no such assumption is made.
    full = scored_per_sequence(s)
    return say(
        "evidence.beside.cost.machine",
        machine=c_method.machine_label,
        how=say(f"evidence.beside.cost.how.{'measured' if c_method.measured else 'roofline'}"),
        batch=s.batch,
        full=full,
        method_cost=f"{c_method.verify(full):.2f}",
        chain_scored=k + 1,
        chain_cost=f"{c_chain.verify(k + 1):.2f}",
    )


def _typical_note(trace: RequestTrace, s: Settings, cmp: Comparison, n: int) -> Sentence:
    """Typical acceptance's speed beside the chain, and what its exact check does and does not
    show: TV 0 in this request is not losslessness."""
    c = trace.check
    if c.keeps_target:
        keep = say(f"evidence.beside.typical.keep.{'greedy' if s.greedy else 'sampled'}")
    else:
        keep = say(
            "evidence.beside.typical.keep.lost",
            tv_max=fmt.distance(c.tv_max),
            tv_mean=fmt.distance(c.tv_mean),
        )
    speed = say(f"evidence.beside.typical.speed.{cmp.change.replace(' ', '_')}")
    return say("evidence.beside.typical.note", speed=speed, requests=n, keep=keep)
