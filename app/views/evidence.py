"""The Evidence panel: the request's marked text, the selected block, passes, the checks."""

from __future__ import annotations

from dataclasses import dataclass

from app.views import fmt
from app.views.charts import BarChart, Gauge, PassChart, gauge, pass_chart, repair_chart
from app.views.judgement import formula_gap, formula_speedup, savings, speedup_range
from witness import Settings
from witness.check import EXACT
from witness.ensemble import Ensemble
from witness.evaluation import SIGNIFICANCE, FirstTokenCheck
from witness.trace import BlockTrace, RequestTrace

# Shape and words as well as colour: a learner who cannot tell the colours apart still reads
# which token was kept, thrown away, repaired or given as a bonus.
KIND_MARK = {"accepted": "✓", "rejected": "✗", "repaired": "R", "bonus": "+", "unchecked": "?"}
KIND_LABEL = {
    "accepted": "accepted",
    "rejected": "rejected draft",
    "repaired": "repaired from the residual",
    "bonus": "bonus from p",
    "unchecked": "unchecked draft",
}


@dataclass(frozen=True, slots=True)
class TokenView:
    word: str
    kind: str
    mark: str
    label: str


@dataclass(frozen=True, slots=True)
class BlockChip:
    """One block in the request text: its tokens, and the link that selects it."""

    index: int
    number: int
    tokens: tuple[TokenView, ...]
    selected: bool
    href: str
    fragment_href: str


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


@dataclass(frozen=True, slots=True)
class Figure:
    label: str
    value: str
    note: str = ""


# The marks' legend: a sample word of each kind, in the order of KIND_MARK.
LEGEND = tuple(TokenView("word", k, m, KIND_LABEL[k]) for k, m in KIND_MARK.items())


@dataclass(frozen=True, slots=True)
class EvidenceView:
    blocks: tuple[BlockChip, ...]
    detail: BlockDetail
    first_rejection: str
    passes: PassChart
    figures: tuple[Figure, ...]
    formula_gap: str  # why the measured mean sits under the formula, when it does
    alpha: float  # the station's α (witness.ensemble)
    break_even_measured: float | None  # the draft cost at which this k stops paying
    break_even_formula: float | None
    exact_check: str
    sampled_check: str
    keeps_target: bool
    legend: tuple[TokenView, ...] = LEGEND


def block_tokens(block: BlockTrace) -> tuple[TokenView, ...]:
    tokens = [_token(w, k) for w, k in zip(block.emitted_words, block.emitted_kinds, strict=True)]
    if block.rejected_word is not None and len(tokens) > block.result.accepted:
        tokens.insert(block.result.accepted, _token(block.rejected_word, "rejected"))
    return tuple(tokens)


def _token(word: str, kind: str) -> TokenView:
    return TokenView(word, kind, KIND_MARK[kind], KIND_LABEL[kind])


def default_block(trace: RequestTrace) -> int:
    """The first block with a rejection teaches the most; else the first block."""
    for b in trace.blocks:
        if b.result.first_rejection is not None:
            return b.index
    return 0


def block_detail(block: BlockTrace, s: Settings) -> BlockDetail:
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


def block_ending(block: BlockTrace, s: Settings) -> str:
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
    for b in trace.blocks:
        r = b.result.first_rejection
        if r is not None:
            d = b.drafts[r]
            how = "repaired from the residual to" if repair else "resampled from p (repair off):"
            return (
                f"Block {b.index + 1}, draft {r + 1}: '{d.word}' with u = {d.u:.2f} ≥ "
                f"p/q = {d.ratio:.2f}; {how} '{b.final_word}'."
            )
    if not trace.settings["verify"]:
        return "None: with target verify off nothing is ever rejected (or checked)."
    if trace.totals.draft_passes == 0:
        return "None: with one token to generate nothing was drafted."
    return "None: every drafted token in this request was accepted."


def figures(trace: RequestTrace, settings: Settings, ens: Ensemble) -> tuple[Figure, ...]:
    """The request's own counts, its speedup labelled as one request's, and the verdict's
    numbers beside it: the mean over the seeded requests and the formula at the station's α."""
    t = trace.totals
    per_pass = "—" if t.tokens_per_pass is None else f"{t.tokens_per_pass:.2f}"
    est = ens.speedup(settings.draft_cost)
    drafted = f"at most k = {settings.k} per block (the last drafts only what is left)"
    return (
        Figure(
            "Target passes",
            f"{t.target_passes}",
            f"plain decoding needs {t.baseline_target_passes}",
        ),
        Figure("Draft passes", f"{t.draft_passes}", f"{drafted}, {t.blocks} blocks"),
        Figure("Tokens per target pass", per_pass, f"accepted drafts {t.accepted_drafts}"),
        Figure(
            "Speedup of this one request",
            fmt.speedup(t.speedup_measured),
            f"seed {settings.seed}: one request is an example, not a verdict",
        ),
        Figure(
            f"Speedup over {est.n} seeded requests",
            fmt.speedup(est.mean),
            speedup_range(est),
        ),
        Figure(
            "Speedup by the formula",
            fmt.speedup(formula_speedup(ens, settings)),
            f"at the station's α = {ens.alpha:.3f} (mean over every drafted position of "
            f"{est.n} requests; this request's own {t.mean_alpha:.3f}), c = "
            f"{settings.draft_cost:.2f}",
        ),
        Figure(
            "Time at TPOT",
            fmt.ms(t.ms_speculative),
            f"this request; plain {fmt.ms(t.ms_baseline)} "
            f"(TTFT {settings.ttft_ms:g} ms, TPOT {settings.tpot_ms:g} ms)",
        ),
    )


def exact_check_text(trace: RequestTrace) -> str:
    c = trace.check
    if c.keeps_target:
        base = "Exact distance to p is 0 at every drafted position (max TV below 1e-12)."
    else:
        base = (
            f"Exact distance to p: max TV {fmt.distance(c.tv_max)}, mean {fmt.distance(c.tv_mean)} "
            f"over the {trace.totals.draft_passes} drafted positions."
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
            f"{found}: no evidence against p, as the exact law there (TV 0) says there "
            "cannot be."
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
    hrefs: tuple[tuple[str, str], ...],
    ens: Ensemble,
) -> EvidenceView:
    """``hrefs[i]`` is (page URL, fragment URL) that selects block i."""
    judged = savings(ens, settings)
    chips = tuple(
        BlockChip(b.index, b.index + 1, block_tokens(b), b.index == selected, *hrefs[b.index])
        for b in trace.blocks
    )
    return EvidenceView(
        blocks=chips,
        detail=block_detail(trace.blocks[selected], settings),
        first_rejection=first_rejection_text(trace),
        passes=pass_chart(trace.totals, settings.draft_cost),
        figures=figures(trace, settings, ens),
        formula_gap=formula_gap(ens, settings),
        alpha=ens.alpha,
        break_even_measured=judged.break_even_measured,
        break_even_formula=judged.break_even_formula,
        exact_check=exact_check_text(trace),
        sampled_check=sampled_check_text(check),
        keeps_target=trace.check.keeps_target,
    )
