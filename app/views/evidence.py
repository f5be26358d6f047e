"""The Evidence panel: the request's marked text, the selected block, passes, the checks."""

from __future__ import annotations

from dataclasses import dataclass

from app.services import BesideChain
from app.views import fmt
from app.views.charts import BarChart, Gauge, PassChart, gauge, pass_chart, repair_chart
from app.views.judgement import (
    LEVEL,
    Savings,
    alpha_over,
    counted,
    formula_gap,
    formula_speedup,
    savings,
    speedup_range,
)
from app.views.marks import MARKS, Mark
from app.views.pricing import cost_short
from app.views.tree_chart import TreeChart, ending_sentence, method_name, tree_chart
from witness import Settings
from witness.core.settings import drafted_width, tree_nodes
from witness.core.trace import BlockTrace, RequestTrace, Totals
from witness.cost.costing import costing, scored_per_sequence
from witness.judge.ensemble import Ensemble, Estimate
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
class Figure:
    label: str
    value: str
    note: str = ""


# The marks' legend: a sample word of each kind.
KINDS = ("accepted", "rejected", "repaired", "bonus", "unchecked")
LEGEND = tuple(TokenView("word", k, MARKS[k]) for k in KINDS)


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
    # Beside the chain at equal draft work: None for the chain itself (or when the caller
    # did not pass the chain twin's ensemble).
    beside_chain: ChainComparison | None = None
    pending_detail: PendingDetail | None = None


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
    verified = s.verify
    rows = []
    for d in block.drafts:
        if d.accepted is None:
            outcome, kind = ("not checked" if not verified else "not reached"), "unchecked"
        else:
            outcome, kind = ("accepted", "accepted") if d.accepted else ("rejected", "rejected")
        rows.append(
            DraftRow(
                d.position + 1,
                d.word,
                fmt.prob(d.p),
                fmt.prob(d.q),
                f"{d.ratio:.2f}",
                f"{d.u:.2f}",
                outcome,
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


def block_ending(block: BlockTrace, s: Settings) -> str:
    if not block.drafts and s.draft_source == "lookup" and s.tokens - block.start > 1:
        return (
            "Prompt lookup found no earlier occurrence of the last words, so nothing was "
            f"copied: a plain target pass gave '{block.final_word}' from p."
        )
    if not block.drafts:
        return (
            f"One token was left to generate, so nothing was drafted: a plain target pass "
            f"gave '{block.final_word}' from p."
        )
    if not s.verify:
        return (
            f"Nothing checked the {len(block.drafts)} drafted tokens: all were emitted as drafted."
        )
    if block.result.first_rejection is not None:
        rejected = f"Draft {block.result.first_rejection + 1} '{block.rejected_word}' was rejected"
        if not s.repair:
            return (
                f"{rejected}; with repair off the target resampled p and gave '{block.final_word}'."
            )
        top = ", ".join(f"'{w}' {fmt.prob(r)}" for w, r in block.residual_top[:3])
        return f"{rejected}; the residual ({top}) gave '{block.final_word}'."
    bonus = block.final_word
    drafted = f"All {len(block.drafts)} drafts were accepted"
    if block.truncated:
        return (
            f"{drafted}; the request needed no more tokens, so the bonus token '{bonus}' from "
            "the same pass was not used."
        )
    return f"{drafted}; the bonus token '{bonus}' came from p."


def first_rejection_text(trace: RequestTrace) -> str:
    repair = bool(trace.settings["repair"])
    s = Settings(**trace.settings)
    for b in trace.blocks:
        r = b.result.first_rejection
        if r is not None and b.levels:
            return f"Block {b.index + 1}, depth {r + 1}: " + ending_sentence(b, s)
        if r is not None:
            d = b.drafts[r]
            how = "repaired from the residual to" if repair else "resampled from p (repair off):"
            return (
                f"Block {b.index + 1}, draft {r + 1}: '{d.word}' with u = {d.u:.2f} ≥ "
                f"p/q = {d.ratio:.2f}; {how} '{b.final_word}'."
            )
    if not trace.settings["verify"]:
        return "None: with target verify off nothing is ever rejected (or checked)."
    if not any(b.drafts for b in trace.blocks):
        if trace.settings["draft_source"] == "lookup" and trace.settings["tokens"] > 1:
            return "None: prompt lookup never found earlier words to copy, so nothing was drafted."
        return "None: with one token to generate nothing was drafted."
    if any(b.levels for b in trace.blocks):
        return "None: at every depth every walk reached, a sibling stood."
    return "None: every drafted token in this request was accepted."


def figures(trace: RequestTrace, settings: Settings, ens: Ensemble) -> tuple[Figure, ...]:
    """The request's own counts, its speedup labelled as one request's, and the verdict's
    numbers beside it: the ensemble's speedup and the formula at the station's α."""
    if not is_chain(settings):
        return _method_figures(trace, settings, ens)
    t = trace.totals
    est = ens.speedup(costing(settings))
    drafted = f"at most k = {settings.k} per block (the last drafts only what is left)"
    return _figures(
        t,
        settings,
        est,
        passes=f"{drafted}, {t.blocks} blocks",
        per_pass_note=f"accepted drafts {t.accepted_drafts}",
        formula=fmt.speedup(formula_speedup(ens, settings)),
        formula_note=(
            f"at the station's α = {ens.alpha:.3f} (mean over {alpha_over(ens)}; this "
            f"request's own {t.mean_alpha:.3f}), {cost_short(settings)}"
        ),
    )


def _method_figures(trace: RequestTrace, s: Settings, ens: Ensemble) -> tuple[Figure, ...]:
    """`figures` for a tree, typical acceptance or prompt lookup: the same figures, with the
    draft work, the verification width and the copied draft's zero cost said."""
    t = trace.totals
    c = draft_cost(s)
    est = ens.speedup(costing(s))
    if s.draft_source == "lookup":
        passes = (
            f"prompt lookup copies its draft ({t.drafted_tokens} tokens copied): no draft "
            f"model runs, {t.blocks} blocks"
        )
    else:
        passes = (
            f"one batched pass per level, at most k = {s.k} per block; {t.drafted_tokens} "
            f"tokens drafted in {t.blocks} blocks"
        )
    scored = (
        f"; the target scored {t.scored_per_pass:.1f} tokens per pass"
        if t.scored_per_pass is not None
        else ""
    )
    formula = speedup_expected(ens.alpha, s.k, c, verify=s.verify)
    return _figures(
        t,
        s,
        est,
        passes=passes,
        per_pass_note=f"depths that stood {t.accepted_drafts}{scored}",
        formula=fmt.speedup(formula),
        formula_note=(
            f"at the station's α = {ens.alpha:.3f} (here the chance that "
            f"{'a copied token' if s.draft_source == 'lookup' else 'a level'} stands, mean "
            f"over every depth {est.n} requests reach; this request's own "
            f"{t.mean_alpha:.3f}), {cost_short(s)}"
            + (
                " (a copied draft costs nothing; the formula assumes k copied words at every "
                "block, and lookup copies only where the last words were seen before)"
                if s.draft_source == "lookup"
                else ""
            )
        ),
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
            f"plain decoding needs {t.baseline_target_passes}",
        ),
        Figure("Draft passes", f"{t.draft_passes}", passes),
        Figure("Tokens per target pass", per_pass, per_pass_note),
        Figure(
            "Speedup of this one request",
            fmt.speedup(t.speedup_measured),
            f"seed {s.seed}: one request is an example, not a verdict",
        ),
        Figure(
            f"Speedup over {counted(est, seeds=False)}",
            fmt.speedup(est.mean),
            speedup_range(est, greedy=s.greedy),
        ),
        Figure("Speedup by the formula", formula, formula_note),
        Figure(
            "Time at TPOT",
            fmt.ms(t.ms_speculative),
            f"this request; plain {fmt.ms(t.ms_baseline)} "
            f"(TTFT {s.ttft_ms:g} ms, TPOT {s.tpot_ms:g} ms)",
        ),
    )


def exact_check_text(trace: RequestTrace) -> str:
    c = trace.check
    positions = sum(len(b.drafts) for b in trace.blocks)
    if c.keeps_target:
        base = "Exact distance to p is 0 at every drafted position (max TV below 1e-12)."
    else:
        base = (
            f"Exact distance to p: max TV {fmt.distance(c.tv_max)}, mean {fmt.distance(c.tv_mean)} "
            f"over the {positions} drafted positions."
        )
    if c.matches_greedy_baseline is not None:
        same = "identical" if c.matches_greedy_baseline else "NOT identical"
        base += f" Greedy: the output is {same} token for token to plain greedy decoding."
    return base


def sampled_check_text(check: FirstTokenCheck) -> str:
    """A test that fails to reject has not shown agreement: say what it found, and what the
    exact check knows that a sample cannot."""
    found = (
        f"{check.blocks:,} sampled blocks at the first position: chi-square p-value "
        f"{fmt.p_value(check.chi_square.p_value)}, sampled TV {check.tv_empirical:.3f}"
    )
    exact_zero = check.tv_exact <= EXACT
    if not check.keeps_target and not exact_zero:
        return f"{found}: the sample rejects p at the {SIGNIFICANCE:g} level."
    if not check.keeps_target:
        return (
            f"{found}: the sample rejects p at the {SIGNIFICANCE:g} level, a false alarm: the "
            f"exact check shows TV 0 (about one seed in {1 / SIGNIFICANCE:,.0f} rejects a "
            "correct sampler)."
        )
    if exact_zero:
        return (
            f"{found}: no evidence against p, as the exact law there (TV 0) says there cannot be."
        )
    return (
        f"{found}: this sample finds no evidence against p, yet the exact law there is off "
        f"by TV {fmt.distance(check.tv_exact)}: a test that fails to reject has not shown "
        "agreement, and too few blocks miss a small bias."
    )


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
) -> EvidenceView:
    """``hrefs[i]`` is the page URL that selects block i. ``beside`` is a tree, typical or
    lookup state's chain twin and the comparison with it (`Witness.beside_chain`): with it,
    the evidence sets the method beside the chain at equal draft work. ``judged`` is the
    savings judgement of ``ens``, when the caller has made it already (the gates share it).
    ``pending`` is (block URL, page URL) where the worked block is fetched later instead of
    drawn here."""
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
    # The chain twin runs the draft model, priced on the same machine as the method.
    c_method, c_chain = costing(s), costing(s.model_copy(update={"draft_source": "model"}))
    mine, twin = ens.speedup(c_method), chain.speedup(c_chain)
    n = len(ens.seeds)
    typical = s.acceptance == "typical"
    name = "Prompt lookup" if lookup else ("Typical acceptance" if typical else "The tree")
    drafted = f"up to {k}, copied" if lookup else f"{tree_nodes(w, k)}"
    scored = f"up to {k + 1}" if lookup else f"{1 + tree_nodes(w, k)}"
    rows = (
        CompareRow(
            "Acceptance per level (the station's α)",
            f"{ens.alpha:.3f}",
            f"{chain.alpha:.3f}",
            f"pooled over every depth {n} seeded requests reach"
            + ("; a tree's: the chance that one of its siblings stands" if w > 1 else ""),
        ),
        CompareRow(
            "Tokens per target pass",
            _per_pass(ens.tokens_per_pass),
            _per_pass(chain.tokens_per_pass),
            f"pooled over the {n} requests",
        ),
        CompareRow(
            "Tokens the target scores per pass",
            scored,
            f"{k + 1}",
            f"a full block: every {'copied token' if lookup else 'drafted node'} and the last "
            "word before them (this request's "
            + (
                f"mean {trace.totals.scored_per_pass:.1f})"
                if trace.totals.scored_per_pass is not None
                else "target scored nothing: verify off)"
            ),
        ),
        CompareRow(
            "Draft passes per full block",
            "0 (no draft model)" if lookup else f"{k}",
            f"{k}",
            "one batched pass per level" if not lookup else "a copy costs string matching only",
        ),
        CompareRow(
            "Draft passes per request",
            f"{_mean(ens.draft_passes):.1f}",
            f"{_mean(chain.draft_passes):.1f}",
            "none: a copy needs no draft model"
            if lookup
            else f"mean over the {n} requests: fewer blocks, fewer passes",
        ),
        CompareRow(
            "Drafted tokens per full block",
            drafted,
            f"{k}",
            "the whole tree is drafted, whichever path the walk takes" if w > 1 else "",
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
            f"{name}: {speedup_range(mine)}; the chain: {speedup_range(twin)}",
        ),
    )
    if cmp.change == "same":
        verdict = f"{name} and the chain took the same passes on every one of the {n} requests."
    elif cmp.change == "within noise":
        verdict = (
            f"Over the same {n} seeded requests, {name.lower()} is within noise of the chain "
            f"(paired difference {cmp.difference:+.2f}×, {LEVEL} interval {cmp.ci_low:+.2f} to "
            f"{cmp.ci_high:+.2f})."
        )
    else:
        interval = (
            f"paired difference {cmp.difference:+.2f}×, {LEVEL} interval {cmp.ci_low:+.2f} to "
            f"{cmp.ci_high:+.2f}"
            if cmp.ci_low > float("-inf") and cmp.ci_high < float("inf")
            else f"faster on {cmp.faster_on}, slower on {cmp.slower_on} of {n}"
        )
        verdict = (
            f"Over the same {n} seeded requests, {name.lower()} is {cmp.change} than the chain "
            f"({interval})."
        )
    like = "plain decoding's, which scores 1" if lookup else f"one that scores {k + 1}"
    if c_method.machine is None:
        notes = [
            "The cost model counts passes: decode is memory-bound, so a target pass that "
            f"scores {scored} tokens is priced like {like}, an assumption a later station "
            "revisits.",
        ]
    else:  # a machine prices each pass by what it scores: no such assumption is made
        full = scored_per_sequence(s)
        notes = [
            f"On {c_method.machine_label} every target pass is priced by the roofline at what "
            f"it scores (batch {s.batch}): a full block's {full} tokens of each sequence cost "
            f"{c_method.verify(full):.2f} plain steps, the chain's {k + 1} cost "
            f"{c_chain.verify(k + 1):.2f}.",
        ]
    if lookup:
        notes.append(
            "Prompt lookup runs no draft model: its draft cost is 0, and it drafts only where "
            "the last words were seen before."
        )
    else:
        notes.append(
            f"The chain and the {'tree' if w > 1 else 'method'} make the same number of draft "
            f"passes per full block ({k}: one batched pass per level); over a request the one "
            "that emits more per pass needs fewer blocks, so fewer passes."
        )
    if s.acceptance == "typical":
        c = trace.check
        faster = {
            "faster": "is faster here",
            "slower": "is slower here",
            "within noise": "is within noise of the chain here",
            "same": "takes the chain's passes here",
        }[cmp.change]
        if c.keeps_target:
            keep = (
                "this request's exact check finds TV 0 at every position, because p is "
                "certain (greedy), but the rule is not lossless: where p is unsure it emits "
                "the argmax, not a draw from p"
                if s.greedy
                else "this request's exact check finds TV 0 at every position, yet the rule "
                "is not lossless: where no sibling is typical it emits the argmax, not a draw"
            )
        else:
            keep = (
                f"it does not keep p: the exact distance of its output from p reaches TV "
                f"{fmt.distance(c.tv_max)} in this request (mean {fmt.distance(c.tv_mean)})"
            )
        notes.append(f"Typical acceptance {faster} (from the {n} requests), and {keep}.")
    return ChainComparison(
        caption=f"{method_name(s)} beside the chain, k = {k}, the same {n} seeded requests",
        method=name,
        rows=rows,
        verdict=verdict,
        notes=tuple(notes),
    )
