"""The step-through of one verification step: the selected block, one sub-step at a time.

The sub-steps of a block follow the rule exactly as the witness applied it:

0. the draft proposes x1..xk from q;
1. the target computes p at all k+1 positions in ONE pass (with verify off: no pass at all);
2. one sub-step per checked draft: u_i against min(1, p/q), accepted or rejected, stopping at
   the first rejection;
3. the ending: the residual repair, the resample from p (repair off), the bonus token from p
   (all accepted) or, with verify off, the k drafts emitted unchecked.

So a block has ``2 + checked drafts + 1`` sub-steps. For a request the tiny transformers
served, sub-step 1 also draws the verifying pass over its k + 1 positions, and the ending the
rows each KV cache keeps and discards (stepthrough_kv.py); the n-grams' ending says they have
no cache. Every number is formatted here and every
link is built here; the template only places them. The block is the evidence panel's
selection (``state.block`` when it names a block of the request, else ``default_block``), so
the step-through always walks the block the evidence shows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.station.state.query import StationState
from app.station.views import fmt
from app.station.views import stepthrough_words as words
from app.station.views.charts import Gauge, gauge
from app.station.views.evidence import TokenView, block_tokens, default_block
from app.station.views.marks import MARKS
from app.station.views.stepthrough_kv import KvView, VerifyPass, kv_view, ngram_note, pass_of
from app.station.views.tree_chart import below_count, ending_kind, sibling_test, versus
from app.words import Sentence, say
from witness import Settings
from witness.core.settings import tree_nodes
from witness.core.trace import BlockTrace, DraftStep, RequestTrace
from witness.methods.block import is_chain

ANCHOR = "#stepthrough"
FRAGMENT_PATH = "/station/step"

# Shape and words as well as colour: where each sub-step stands.
STATUS_MARK = {"done": "✓", "current": "▶", "todo": "○"}
STATUS_TEXT = {"done": "done", "current": "current", "todo": "to come"}


@dataclass(frozen=True, slots=True)
class SubStep:
    index: int  # 0-based, the value of ?sub=
    number: int  # 1-based, for people
    kind: str  # draft, target, no_target, check, repair, resample, bonus, unchecked
    title: str
    lane: str  # which lane of the selected object acts: Draft lane, Target verifier, Repair lane
    narration: str
    status: str  # done, current, todo (printed and marked, never colour alone)
    mark: str
    status_text: str
    href: str  # the full page at this sub-step (works without JavaScript)
    fragment_href: str  # the step-through alone, for htmx


@dataclass(frozen=True, slots=True)
class StepRow:
    """One drafted token as the current sub-step knows it; "" is a value not known yet."""

    number: int
    word: str
    q: str
    p: str
    ratio: str
    threshold: str
    u: str
    outcome: str
    outcome_kind: str  # accepted, rejected, unchecked, pending
    current: bool


@dataclass(frozen=True, slots=True)
class Ending:
    kind: str  # repair, resample, bonus, unchecked
    heading: str
    sentence: str
    residual: tuple[tuple[str, str, bool], ...]  # (word, probability, the token drawn)
    token: str
    draw: str  # how the token was drawn, e.g. "u = 0.42 picks 'and' by inverse CDF"
    identity: str = ""  # min(p, q) + (1 − α)·residual = p at the rejected token, in numbers


@dataclass(frozen=True, slots=True)
class NavLink:
    label: str
    href: str  # "" where the control does not apply (Back at the first sub-step)
    fragment_href: str


@dataclass(frozen=True, slots=True)
class StepThroughView:
    revealed: bool  # a prediction is recorded: the step-through shows (prediction first)
    open: bool  # a sub-step is on screen (?sub= is in the URL)
    page_url: str  # the full page URL of exactly this state (the JS compares it)
    block_number: int
    context: str
    mode: str
    intro: str
    steps: tuple[SubStep, ...]
    current: SubStep | None
    progress: str  # "Step 3 of 7"
    rows: tuple[StepRow, ...]
    p_known: bool  # the target pass has run (p columns are filled in)
    p_missing: str  # what an empty p cell means: "not yet", or "not computed" (verify off)
    output: tuple[TokenView, ...]  # what the block has emitted so far
    output_note: str
    gauge: Gauge | None  # u against min(1, p/q) at a check sub-step
    ending: Ending | None  # at the last sub-step
    back: NavLink
    next: NavLink  # "Start" while the step-through is closed
    reset: NavLink
    close: NavLink
    problems: tuple[str, ...]  # shown in place; the fragment route answers 422 with them
    narration: str  # the current sub-step's sentence ("" when closed or not yet revealed)
    # A tree, typical acceptance or prompt lookup walks sibling by sibling: its table has a
    # row per sibling met (the chain's `rows` is then empty).
    tree: bool = False
    tree_rows: tuple[TreeStepRow, ...] = ()
    test_kind: str = "u"  # "u": u against p′/q′; "bar": p(x) against typical's bar
    # A chain the tiny transformers served: its verifying pass at the target's sub-step, and
    # at the ending the rows each KV cache keeps and discards (stepthrough_kv.py); for the
    # n-grams, at the ending, the sentence that they have no cache.
    verify_pass: VerifyPass | None = None
    caches: KvView | None = None
    cache_note: str = ""


@dataclass(frozen=True, slots=True)
class TreeStepRow:
    """One sibling as the current sub-step knows it; "" is a value not known yet."""

    depth: int
    number: int
    word: str
    q: str
    p: str
    test: str
    outcome: str
    outcome_kind: str  # accepted, rejected, unchecked, pending
    current: bool


@dataclass(frozen=True, slots=True)
class Plan:
    """One sub-step of a walk; at a method's sibling test, which sibling (level, sibling)."""

    kind: str
    title: str
    narration: str
    level: int = -1
    sibling: int = -1


def selected_block(state: StationState, trace: RequestTrace) -> int:
    """The evidence panel's rule: ``state.block`` if it names a block, else the default."""
    if state.block is not None and state.block < len(trace.blocks):
        return state.block
    return default_block(trace)


def stepthrough_view(
    state: StationState,
    trace: RequestTrace,
    selected: int,
    *,
    all_problems: bool = False,
    clamp_quietly: bool = False,
) -> StepThroughView:
    """The step-through of block ``selected`` at sub-step ``state.options.sub``.

    ``all_problems``: the fragment route shows every problem of the query in place (it is the
    only part of the page that changes); the full page shows the others at the top, so there
    only the sub-step's own problems are repeated here.

    A sub-step past the block's last one is shown as the last one, and said so in place;
    ``clamp_quietly`` leaves the message out, for the refresh that follows a slider move
    (a shorter k is the learner's move, not a bad link).
    """
    s = state.settings
    block = trace.blocks[selected]
    if not is_chain(s):
        return _method_view(state, block, all_problems, clamp_quietly)
    kinds = _kinds(block, s.verify, s.repair)
    plan = tuple(
        Plan(
            kind,
            words.title(block, kind, i),
            words.narration(block, s.verify, s.repair, s.greedy, kind, i),
        )
        for i, kind in enumerate(kinds)
    )
    count = len(plan)
    sub, problems = _shown_sub(state, block, count, all_problems, clamp_quietly)
    at_end = sub == count - 1
    return _view(
        state,
        block,
        plan,
        sub,
        problems,
        verify_pass=pass_of(trace, block) if sub is not None and kinds[sub] == "target" else None,
        caches=kv_view(trace, block, s.verify) if at_end else None,
        cache_note=ngram_note(trace) if at_end else "",
        mode=words.mode_text(s.verify, s.repair, s.greedy),
        intro=words.intro(block, s.verify, count),
        rows=_rows(block, s.verify, kinds, sub),
        output=_output(block, s.verify, kinds, sub),
        output_note=_output_note(block, count, sub),
        gauge=_gauge(block, kinds, sub),
        ending=_ending(block, s.verify, s.repair) if at_end else None,
    )


def _shown_sub(
    state: StationState, block: BlockTrace, count: int, all_problems: bool, clamp_quietly: bool
) -> tuple[int | None, tuple[str, ...]]:
    """The sub-step on screen, clamped to the block's last, and the problems shown with it."""
    problems = [p.message for p in state.problems if all_problems or p.field == "sub"]
    sub = state.options.sub
    if sub is not None and sub >= count and not clamp_quietly:
        problems.append(
            say(
                "stepthrough.problem.past_end",
                last=count - 1,
                number=block.index + 1,
                count=count,
                sub=sub,
            )
        )
    if sub is not None and sub >= count:
        sub = count - 1
    return sub, tuple(problems)


def _link(state: StationState, label: str, sub: int | None) -> NavLink:
    """The full page and the fragment at sub-step ``sub`` (None: the step-through closed)."""
    at = replace(state, options=replace(state.options, sub=sub))
    return NavLink(label, at.url() + ANCHOR, at.url(FRAGMENT_PATH))


def _view(
    state: StationState,
    block: BlockTrace,
    plan: tuple[Plan, ...],
    sub: int | None,
    problems: tuple[str, ...],
    *,
    mode: str,
    intro: str,
    output: tuple[TokenView, ...],
    output_note: str,
    gauge: Gauge | None,
    ending: Ending | None,
    rows: tuple[StepRow, ...] = (),
    tree: bool = False,
    tree_rows: tuple[TreeStepRow, ...] = (),
    test_kind: str = "u",
    verify_pass: VerifyPass | None = None,
    caches: KvView | None = None,
    cache_note: str = "",
) -> StepThroughView:
    """What a chain and a method's walk show alike: the sub-step list, the progress, the
    navigation and the current narration; the tables, output and ending come from the walk."""
    s = state.settings
    count = len(plan)
    revealed = state.prediction is not None
    none = NavLink("", "", "")
    steps = tuple(
        _sub_step(i, p.kind, p.title, p.narration, _status(i, sub), _link(state, "", i))
        for i, p in enumerate(plan)
    )
    return StepThroughView(
        revealed=revealed,
        open=sub is not None,
        page_url=state.url(),
        block_number=block.index + 1,
        context=" ".join(block.context),
        mode=mode,
        intro=intro,
        steps=steps,
        current=steps[sub] if sub is not None else None,
        progress=say("stepthrough.progress.at", number=sub + 1, count=count)
        if sub is not None
        else say("stepthrough.progress.closed", count=count),
        rows=rows,
        p_known=sub is not None and sub >= 1 and s.verify,
        p_missing="not yet" if s.verify else "not computed",
        output=output,
        output_note=output_note,
        gauge=gauge,
        ending=ending,
        back=_link(state, "Back", sub - 1) if sub is not None and sub > 0 else none,
        next=(
            _link(state, "Next", sub + 1)
            if sub is not None and sub < count - 1
            else (_link(state, "Start", 0) if sub is None else none)
        ),
        reset=_link(state, "Reset", 0),
        close=_link(state, "Close", None),
        problems=problems,
        narration=plan[sub].narration if sub is not None and revealed else "",
        tree=tree,
        tree_rows=tree_rows,
        test_kind=test_kind,
        verify_pass=verify_pass,
        caches=caches,
        cache_note=cache_note,
    )


# --------------------------------------------------------------------------- sub-steps


def _kinds(block: BlockTrace, verify: bool, repair: bool) -> tuple[str, ...]:
    if not verify:
        return ("draft", "no_target", "unchecked")
    checks = tuple("check" for d in block.drafts if d.accepted is not None)
    if block.result.first_rejection is None:
        end = "bonus"
    else:
        end = "repair" if repair else "resample"
    return ("draft", "target", *checks, end)


def _status(i: int, sub: int | None) -> str:
    if sub is None or i > sub:
        return "todo"
    return "current" if i == sub else "done"


LANES = {
    "draft": "Draft lane",
    "target": "Target verifier",
    "no_target": "Target verifier",
    "check": "Target verifier",
    "repair": "Repair lane",
    "resample": "Repair lane",
    "bonus": "Target verifier",
    "argmax": "Target verifier",
    "unchecked": "Draft lane",
}


def _sub_step(i: int, kind: str, title: str, narration: str, status: str, link: NavLink) -> SubStep:
    return SubStep(
        index=i,
        number=i + 1,
        kind=kind,
        title=title,
        lane=LANES[kind],
        narration=narration,
        status=status,
        mark=STATUS_MARK[status],
        status_text=STATUS_TEXT[status],
        href=link.href,
        fragment_href=link.fragment_href,
    )


# --------------------------------------------------------------------------- what is on screen


def _checks_shown(kinds: tuple[str, ...], sub: int | None) -> int:
    """How many drafts have been checked by sub-step ``sub``."""
    if sub is None:
        return 0
    return sum(1 for k in kinds[: sub + 1] if k == "check")


def _rows(
    block: BlockTrace, verify: bool, kinds: tuple[str, ...], sub: int | None
) -> tuple[StepRow, ...]:
    shown = _checks_shown(kinds, sub)
    p_known = verify and sub is not None and sub >= 1
    at_end = sub == len(kinds) - 1
    checking = sub is not None and kinds[sub] == "check"
    rows = []
    for d in block.drafts:
        i = d.position
        u = ""
        if not verify:
            outcome, kind = (
                ("emitted unchecked", "unchecked") if at_end else ("not checked", "unchecked")
            )
            if sub is None or sub < 1:
                outcome, kind = "waiting", "pending"
        elif i < shown:
            outcome, kind = ("accepted", "accepted") if d.accepted else ("rejected", "rejected")
            u = f"{d.u:.2f}"
        elif d.accepted is None and at_end:
            outcome, kind = "not reached", "unchecked"
        else:
            outcome, kind = "waiting", "pending"
        rows.append(
            StepRow(
                number=i + 1,
                word=d.word,
                q=fmt.prob(d.q),
                p=fmt.prob(d.p) if p_known else "",
                ratio=f"{d.ratio:.2f}" if p_known else "",
                threshold=f"{min(1.0, d.ratio):.2f}" if p_known else "",
                u=u,
                outcome=outcome,
                outcome_kind=kind,
                current=checking and i == shown - 1,
            )
        )
    return tuple(rows)


def _gauge(block: BlockTrace, kinds: tuple[str, ...], sub: int | None) -> Gauge | None:
    if sub is None or kinds[sub] != "check":
        return None
    return gauge(block.drafts[_checks_shown(kinds, sub) - 1])


def _token(word: str, kind: str) -> TokenView:
    return TokenView(word, kind, MARKS[kind])


def _output(
    block: BlockTrace, verify: bool, kinds: tuple[str, ...], sub: int | None
) -> tuple[TokenView, ...]:
    if sub is None or sub < 1:
        return ()
    if (
        sub == len(kinds) - 1
    ):  # the ending: exactly what the block emitted, as the evidence marks it
        tokens = [
            _token(w, k) for w, k in zip(block.emitted_words, block.emitted_kinds, strict=True)
        ]
        if block.rejected_word is not None and len(tokens) > block.result.accepted:
            tokens.insert(block.result.accepted, _token(block.rejected_word, "rejected"))
        return tuple(tokens)
    if not verify:
        return ()
    shown = _checks_shown(kinds, sub)
    out = []
    for d in block.drafts[:shown]:
        out.append(_token(d.word, "accepted" if d.accepted else "rejected"))
    return tuple(out)


def _output_note(block: BlockTrace, steps: int, sub: int | None, rejected: str = "draft") -> str:
    """The note over the output row: ``steps`` sub-steps in all, a rejected ``rejected``
    ("draft", or "sibling" in a tree's walk) struck through."""
    if sub is None:
        return ""
    if sub == steps - 1:
        tokens = words.n_of(len(block.emitted_words), "token")
        return say("stepthrough.output_note.emitted", number=block.index + 1, tokens=tokens)
    if sub < 2:
        return say("stepthrough.output_note.nothing_yet")
    return say("stepthrough.output_note.so_far", rejected=rejected)


def _draw(block: BlockTrace) -> Sentence:
    """How the block's last token was drawn: its uniform, by inverse CDF."""
    return say(
        "stepthrough.draw.inverse_cdf", u=f"{block.u_final:.2f}", word=block.final_word or ""
    )


def _ending(block: BlockTrace, verify: bool, repair: bool) -> Ending:
    k = len(block.drafts)
    if not verify:
        drafts = words.n_of(k, "drafted token")
        sentence = say("stepthrough.ending.unchecked", drafts=drafts)
        return Ending("unchecked", say("stepthrough.heading.unchecked"), sentence, (), "", "")
    final = block.final_word or ""
    if block.result.first_rejection is None:
        sentence = say("stepthrough.ending.bonus", position=k + 1, word=final)
        heading = say("stepthrough.heading.bonus")
        return Ending("bonus", heading, sentence, (), final, _draw(block))
    r = block.result.first_rejection + 1
    if not repair:
        return Ending(
            "resample",
            say("stepthrough.heading.resample"),
            say("stepthrough.ending.resample", draft=r, word=final),
            (),
            final,
            _draw(block),
            words.identity(block, repair=False),
        )
    return Ending(
        "repair",
        say("stepthrough.heading.repair"),
        say("stepthrough.ending.repair", draft=r, word=final),
        tuple((w, fmt.prob(x), w == final) for w, x in block.residual_top),
        final,
        _draw(block),
        words.identity(block, repair=True),
    )


# ------------------------------------------------- trees, typical acceptance, prompt lookup


def tree_plan(block: BlockTrace, s: Settings) -> tuple[Plan, ...]:
    """The sub-steps of a method's block: draft, one target pass, one per sibling tested,
    the ending; with verify off draft, no target pass, emitted unchecked."""
    if not block.levels:  # nothing drafted: one token left, or nothing to copy
        lookup = s.draft_source == "lookup" and s.tokens - block.start > 1
        kinds = ("draft", "target", "bonus")
        if lookup:
            titles = (
                say("stepthrough.title.plain.copy"),
                say("stepthrough.title.target"),
                say("stepthrough.title.plain.token"),
            )
            return tuple(
                Plan(k, ti, words.lookup_plain(block, k))
                for k, ti in zip(kinds, titles, strict=True)
            )
        return tuple(
            Plan(
                k, words.title(block, k, i), words.narration(block, True, s.repair, s.greedy, k, i)
            )
            for i, k in enumerate(kinds)
        )
    lookup = s.draft_source == "lookup"
    plan = [Plan("draft", _walk_draft_title(block, s), words.tree_draft_sentence(block, s))]
    if not s.verify:
        unchecked = say(f"stepthrough.no_target.{'copied' if lookup else 'tree'}")
        plan.append(Plan("no_target", say("stepthrough.title.no_target"), unchecked))
        title = say("stepthrough.walk_title.unchecked")
        plan.append(Plan("unchecked", title, words.tree_unchecked_sentence(block)))
        return tuple(plan)
    title = say("stepthrough.walk_title.target", scored=block.scored)
    plan.append(Plan("target", title, words.tree_target_sentence(block, s)))
    for i, lv in enumerate(block.levels):
        for sib in lv.siblings:
            if sib.accepted is None:
                continue
            plan.append(
                Plan(
                    "check",
                    _walk_check_title(i, len(lv.siblings), sib.index, sib.word),
                    words.tree_check_sentence(block, s, i, sib.index, below_count(s, block, i)),
                    i,
                    sib.index,
                )
            )
    kind = ending_kind(block, s)
    kind = "bonus" if kind == "unused" else kind
    title = say(f"stepthrough.walk_title.ending.{kind}")
    plan.append(Plan(kind, title, words.tree_ending_sentence(block, s)))
    return tuple(plan)


def _walk_draft_title(block: BlockTrace, s: Settings) -> Sentence:
    depth = block.depth
    if s.draft_source == "lookup":
        return say("stepthrough.walk_title.copy", words=words.n_of(depth, "word"))
    if s.tree_width == 1:
        return say("stepthrough.title.draft", tokens=words.n_of(depth, "token"))
    return say("stepthrough.walk_title.tree", nodes=tree_nodes(s.tree_width, depth))


def _walk_check_title(level: int, width: int, sibling: int, word: str) -> Sentence:
    """The sibling a check sub-step tests: its depth, and its place where it has siblings."""
    if width > 1:
        return say(
            "stepthrough.walk_title.sibling", depth=level + 1, sibling=sibling + 1, word=word
        )
    return say("stepthrough.walk_title.depth", depth=level + 1, word=word)


def _method_view(
    state: StationState, block: BlockTrace, all_problems: bool, clamp_quietly: bool
) -> StepThroughView:
    s = state.settings
    plan = tree_plan(block, s)
    count = len(plan)
    sub, problems = _shown_sub(state, block, count, all_problems, clamp_quietly)
    return _view(
        state,
        block,
        plan,
        sub,
        problems,
        mode=words.method_mode_text(s),
        intro=words.tree_intro(block, s, count),
        output=_tree_output(block, s, plan, sub),
        output_note=_output_note(block, count, sub, "sibling"),
        gauge=_tree_gauge(block, plan, sub),
        ending=_tree_ending(block, s) if sub == count - 1 else None,
        tree=True,
        tree_rows=_tree_rows(block, s, plan, sub),
        test_kind="bar" if s.acceptance == "typical" else "u",
    )


def _tested_at(plan: tuple[Plan, ...]) -> dict[tuple[int, int], int]:
    return {(p.level, p.sibling): i for i, p in enumerate(plan) if p.kind == "check"}


def _level_done_at(plan: tuple[Plan, ...], level: int) -> int | None:
    """The sub-step at which ``level``'s walk is decided (its last test)."""
    steps = [i for i, p in enumerate(plan) if p.kind == "check" and p.level == level]
    return steps[-1] if steps else None


def _tree_rows(
    block: BlockTrace, s: Settings, plan: tuple[Plan, ...], sub: int | None
) -> tuple[TreeStepRow, ...]:
    tested = _tested_at(plan)
    at_end = sub is not None and sub == len(plan) - 1
    rows = []
    for i, lv in enumerate(block.levels):
        done = _level_done_at(plan, i)
        for sib in lv.siblings:
            step = tested.get((i, sib.index))
            p = test = ""
            if not s.verify:
                if sub is None or sub < 1:
                    outcome, kind = "waiting", "pending"
                elif at_end and sib.index == 0:
                    outcome, kind = "emitted unchecked", "unchecked"
                else:
                    outcome, kind = "not checked", "unchecked"
            elif step is not None and sub is not None and sub >= step:
                outcome, kind = (
                    ("accepted", "accepted") if sib.accepted else ("rejected", "rejected")
                )
                p = fmt.prob(sib.p)
                test = sibling_test(sib, lv.threshold)[1]
            elif step is None and (
                at_end or (done is not None and sub is not None and sub >= done)
            ):
                outcome, kind = "never tested", "unchecked"
            else:
                outcome, kind = "waiting", "pending"
            rows.append(
                TreeStepRow(
                    depth=i + 1,
                    number=sib.index + 1,
                    word=sib.word,
                    q=fmt.prob(sib.q),
                    p=p,
                    test=test,
                    outcome=outcome,
                    outcome_kind=kind,
                    current=sub is not None and step == sub,
                )
            )
    return tuple(rows)


def _tree_gauge(block: BlockTrace, plan: tuple[Plan, ...], sub: int | None) -> Gauge | None:
    """u against min(1, p′/q′) at an exact sibling test; none for typical's bar."""
    if sub is None or plan[sub].kind != "check":
        return None
    lv = block.levels[plan[sub].level]
    if lv.threshold is not None:
        return None
    sib = lv.siblings[plan[sub].sibling]
    assert sib.u is not None
    r = sib.p / sib.q if sib.q > 0 else float("inf")
    g = gauge(
        DraftStep(
            plan[sub].level, sib.token, sib.word, sib.p, sib.q, r, sib.u, sib.accepted, lv.alpha
        )
    )
    threshold = min(1.0, r)
    u, th = versus(sib.u, threshold)
    outcome = "accepted" if g.accepted else "rejected"
    summary = say(
        f"stepthrough.walk_gauge.{outcome}",
        depth=plan[sub].level + 1,
        sibling=sib.index + 1,
        word=sib.word,
        u=u,
        threshold=th,
    )
    return replace(g, u_text=f"u = {u}", threshold_text=f"min(1, p′/q′) = {th}", summary=summary)


def _tree_output(
    block: BlockTrace, s: Settings, plan: tuple[Plan, ...], sub: int | None
) -> tuple[TokenView, ...]:
    if sub is None or sub < 1:
        return ()
    if sub == len(plan) - 1:
        return block_tokens(block, s.acceptance == "typical")
    if not s.verify:
        return ()
    out = []
    for p in plan[: sub + 1]:
        if p.kind != "check":
            continue
        sib = block.levels[p.level].siblings[p.sibling]
        out.append(_token(sib.word, "accepted" if sib.accepted else "rejected"))
    return tuple(out)


def _tree_ending(block: BlockTrace, s: Settings) -> Ending:
    final = block.final_word or ""
    if not block.levels:
        heading = say("stepthrough.heading.token")
        return Ending("bonus", heading, plan_last(block, s), (), final, _draw(block))
    kind = ending_kind(block, s)
    if kind == "unchecked":
        heading, sentence = (
            say("stepthrough.heading.unchecked"),
            words.tree_unchecked_sentence(block),
        )
        return Ending("unchecked", heading, sentence, (), "", "")
    sentence = words.tree_ending_sentence(block, s)
    if kind in ("bonus", "unused"):
        return Ending("bonus", say("stepthrough.heading.bonus"), sentence, (), final, _draw(block))
    if kind == "argmax":
        heading, draw = say("stepthrough.heading.argmax"), say("stepthrough.draw.argmax")
        return Ending("argmax", heading, sentence, (), final, draw)
    residual = tuple((w, fmt.prob(x), w == final) for w, x in block.levels[-1].law_top)
    heading = (
        say("stepthrough.heading.last_repair")
        if kind == "repair"
        else say("stepthrough.heading.resample")
    )
    return Ending(kind, heading, sentence, residual, final, _draw(block))


def plan_last(block: BlockTrace, s: Settings) -> str:
    return tree_plan(block, s)[-1].narration
