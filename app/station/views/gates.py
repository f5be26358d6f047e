"""The two gates, the verdict on the learner's prediction, and the live narration.

Correctness: does the output keep the target distribution p? Savings: does it take fewer
target passes and less cost than plain decoding? Lossless needs repair; speed needs agreement.

Correctness comes first: where no target pass checks the draft, or the exact check finds the
output's law away from p, no speed is a speedup of the target. `speed_claim` words the one
verdict on a speed claim (`witness.judge.verdict.speed_verdict`) that the savings gate, the
verdict on a prediction and the live class's reveal all state.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.contract.route import Intervention
from app.station.state.query import INTERVENTION_LABELS, RECORDED_FIELDS, Prediction
from app.station.views import fmt
from app.station.views.judgement import Savings, change_sentence, counted, savings
from app.station.views.tree_chart import ending_sentence, sibling_test
from app.words import Sentence, say
from witness import Settings
from witness.core.trace import BlockTrace, DistributionCheck, RequestTrace
from witness.cost.costing import costing
from witness.judge.ensemble import Comparison, Ensemble
from witness.judge.verdict import GateReason, speed_verdict, unearned


@dataclass(frozen=True, slots=True)
class Gate:
    name: str
    holds: bool
    status: str  # holds / fails / undecided / void: read aloud and printed, never colour alone
    sentence: str

    @property
    def mark(self) -> str:
        return GATE_MARKS[self.status]

    @property
    def word(self) -> str:
        return GATE_WORDS[self.status]


# Shape as well as colour: ✓ holds, ✗ fails, ~ within noise, – not earned (nothing verified).
GATE_MARKS = {"holds": "✓", "fails": "✗", "undecided": "~", "void": "–"}
GATE_WORDS = {"holds": "holds", "fails": "fails", "undecided": "undecided", "void": "not earned"}


@dataclass(frozen=True, slots=True)
class InvariantView:
    correctness: Gate
    savings: Gate
    summary: str


def correctness_gate(trace: RequestTrace, s: Settings) -> Gate:
    c, drafted = trace.check, trace.totals.drafted_tokens > 0
    if c.keeps_target:
        why = say(f"gates.correctness.kept.{_kept_because(s, c, drafted)}")
        return Gate("Correctness", True, "holds", say("gates.correctness.holds", reason=why))
    tv = fmt.distance(c.tv_max)
    why = say(f"gates.correctness.lost.{_lost_because(s, c)}", tv=tv)
    return Gate("Correctness", False, "fails", say("gates.correctness.fails", reason=why))


def _kept_because(s: Settings, c: DistributionCheck, drafted: bool) -> str:
    """What kept p (a mode of ``gates.correctness.kept``)."""
    if not drafted:
        return "nothing_copied" if s.draft_source == "lookup" else "nothing_drafted"
    if c.mode == "no_verify":
        return "lucky_pair"
    if c.greedy:
        return "greedy"
    if s.acceptance == "typical":
        return "typical"
    if c.mode == "no_repair":
        return "no_repair"
    if s.draft_source == "lookup":
        return "copied_one_hot"
    if s.tree_width == 1 and s.drafting == "top":
        return "top_one_hot"
    return "siblings" if s.tree_width > 1 else "residual"


def _lost_because(s: Settings, c: DistributionCheck) -> str:
    """The rule that lost p (a mode of ``gates.correctness.lost``)."""
    if c.mode == "no_verify":
        if s.draft_source == "lookup":
            return "copied_unverified"
        return "tree_unverified" if s.tree_width > 1 else "unverified"
    if s.acceptance == "typical":
        return "typical"
    if s.draft_source == "lookup":
        return "copied_no_repair"
    return "siblings_no_repair" if s.tree_width > 1 else "no_repair"


# Why a speed is no speedup of the target (a reason of `unearned`), as the mode of
# ``gates.unearned`` (with ``_lost`` where verification is off and the output is not p) and
# of ``judgement.savings.unjudged``.
UNEARNED: dict[GateReason, str] = {
    "verify off": "unverified",
    "verify off, copying": "copying",
    "not kept": "another_distribution",
}


@dataclass(frozen=True, slots=True)
class SpeedClaim:
    """The verdict on a speed claim at a state, in words: the savings gate's status and
    sentence, and where it is void, why the speed is no speedup of the target."""

    status: str  # holds / fails / undecided / void
    sentence: str  # the savings gate's sentence
    why: Sentence | None  # gates.unearned: set exactly where the status is void
    reason: GateReason | None = None  # `unearned`'s reason, where the status is void

    @property
    def earned(self) -> bool:
        return self.why is None


def unearned_why(reason: GateReason, check: DistributionCheck) -> Sentence:
    """Why the speed is no speedup of the target, in one clause (``gates.unearned``)."""
    mode = UNEARNED[reason]
    if reason != "not kept":
        if check.keeps_target:
            return say(f"gates.unearned.{mode}_kept")
        mode += "_lost"
    return say(f"gates.unearned.{mode}", tv=fmt.distance(check.tv_max))


def unearned_short(reason: GateReason) -> Sentence:
    """Why the speed is no speedup of the target, where the next words say whether p was
    kept (``gates.unearned.short``)."""
    return say(f"gates.unearned.short.{UNEARNED[reason]}")


def speed_claim(
    ens: Ensemble, s: Settings, check: DistributionCheck, judged: Savings | None = None
) -> SpeedClaim:
    """The one verdict on a speed claim at a state (`speed_verdict`), with its words.
    ``check``: the exact check of the state's served request; ``judged``: the savings
    judgement of ``ens``, when the caller has already made it."""
    gate = speed_verdict(ens, s, check)
    if gate.status == "void":
        why = unearned_why(gate.reason, check)
        return SpeedClaim("void", _unearned_sentence(gate.reason, s, check), why, gate.reason)
    judged = savings(ens, s) if judged is None else judged
    return SpeedClaim(judged.status, judged.sentence, None)


def _unearned_sentence(reason: GateReason, s: Settings, check: DistributionCheck) -> Sentence:
    """The savings gate's sentence where correctness decides it before any speed is judged."""
    if reason == "verify off":
        c = costing(s).c  # the draft model alone: one token per draft pass
        speed = fmt.speedup(1 / c if c else None)
        return say("judgement.savings.unjudged.unverified", speed=speed)
    if reason == "verify off, copying":
        return say("judgement.savings.unjudged.copying")
    return say("judgement.savings.unjudged.another_distribution", tv=fmt.distance(check.tv_max))


def savings_gate(
    ens: Ensemble, s: Settings, check: DistributionCheck, judged: Savings | None = None
) -> Gate:
    """Judged over the state's seeded requests, never from the one on screen alone, and
    not earned where correctness fails (`speed_claim`)."""
    claim = speed_claim(ens, s, check, judged)
    return Gate("Savings", claim.status == "holds", claim.status, claim.sentence)


def invariant_view(
    trace: RequestTrace, ens: Ensemble, s: Settings, *, judged: Savings | None = None
) -> InvariantView:
    correct, saves = correctness_gate(trace, s), savings_gate(ens, s, trace.check, judged)
    mode = saves.status if correct.holds else "lost"
    return InvariantView(correct, saves, say(f"gates.summary.{mode}"))


# The settings a one-slider change names with a verb (``gates.change.verb``).
VERBED = ("match", "k", "draft_cost")


def describe_change(base: Settings, now: Settings) -> Sentence:
    """'Lengthening k from 4 to 8 at match 0.60', or the list of what changed."""
    changed = [f for f in RECORDED_FIELDS if getattr(base, f) != getattr(now, f)]
    if len(changed) == 1 and changed[0] in VERBED:
        f = changed[0]
        before, after = getattr(base, f), getattr(now, f)
        verb = say(f"gates.change.verb.{f}_{'up' if after > before else 'down'}")
        at = (
            say("gates.change.at_k", k=now.k)
            if f == "match"
            else say("gates.change.at_match", match=f"{now.match:.2f}")
        )
        return say("gates.change.one", verb=verb, before=_v(before), after=_v(after), at=at)
    if changed in (["verify"], ["repair"]):
        return say(f"gates.change.{changed[0]}", now=fmt.on_off(getattr(now, changed[0])))
    parts = [
        say(
            "gates.change.field",
            name=f.replace("_", " "),
            before=_v(getattr(base, f)),
            after=_v(getattr(now, f)),
        )
        for f in changed
    ]
    return say("gates.change.many", changes=", ".join(parts))


def _v(x: object) -> str:
    if isinstance(x, bool):
        return fmt.on_off(x)
    if isinstance(x, float):
        return fmt.setting(x)
    return str(x)


@dataclass(frozen=True, slots=True)
class VerdictView:
    recorded: str  # what the learner predicted, in words
    sentence: str  # what the witness says, with the numbers
    judgement: str  # whether the prediction held, gate by gate
    held_speed: bool | None  # None: no expectation named, or nothing changed yet
    held_correctness: bool | None


def verdict_view(pred: Prediction, cmp: Comparison, now: RequestTrace, s: Settings) -> VerdictView:
    """The learner's prediction against the evidence: speed from the paired comparison of
    the prediction's base and the current state over the same seeds, by one estimator.

    Where the current state earns no speedup (`unearned`, the first rule of the one verdict
    on a speed claim), a faster run is not "faster": the sentence and the judgement say why."""
    if pred.intervention is Intervention.SKIP:
        recorded = say("gates.verdict.skipped")
    else:
        recorded = say(
            "gates.verdict.predicted",
            intervention=INTERVENTION_LABELS[pred.intervention],
            expecting=_expectations(pred),
        )
    kept = now.check.keeps_target
    kept_text = (
        say("gates.verdict.distribution.kept")
        if kept
        else say("gates.verdict.distribution.lost", tv=fmt.distance(now.check.tv_max))
    )
    reason = unearned(s, now.check)
    why = None if reason is None else unearned_short(reason)  # kept_text says whether p was
    faster: bool | None
    if all(getattr(pred.base, f) == getattr(s, f) for f in RECORDED_FIELDS):
        sentence = say(
            "gates.verdict.unchanged",
            speedup=fmt.speedup(cmp.after.mean),
            counted=counted(cmp.after),
            kept=kept_text,
        )
        faster = None
    else:
        faster = cmp.change == "faster" and why is None
        change = change_sentence(cmp.change, describe_change(pred.base, s), cmp)
        if why is None:
            sentence = say("gates.verdict.changed", change=change, kept=kept_text)
        else:
            ran = "faster" if cmp.change == "faster" else "other"
            unearned_text = say(f"gates.verdict.unearned.{ran}", why=why)
            sentence = say(
                "gates.verdict.changed_unearned",
                change=change,
                unearned=unearned_text,
                kept=kept_text,
            )
    held_speed, held_correct = _held(pred, faster, kept)
    judgement = _judgement(
        pred, held_speed, held_correct, cmp.change if faster is not None else None
    )
    if why is not None and faster is not None and pred.expect_faster and cmp.change == "faster":
        judgement = say("gates.verdict.judged.trap", judged=judgement)
    return VerdictView(recorded, sentence, judgement, held_speed, held_correct)


def _expectations(pred: Prediction) -> str:
    parts = []
    if pred.expect_faster is not None:
        parts.append(say(f"gates.verdict.{'faster' if pred.expect_faster else 'not_faster'}"))
    if pred.expect_kept is not None:
        parts.append(say(f"gates.verdict.{'kept' if pred.expect_kept else 'not_kept'}"))
    return say("gates.verdict.expecting", what=" and ".join(parts)) if parts else ""


def _held(pred: Prediction, faster: bool | None, kept: bool) -> tuple[bool | None, bool | None]:
    if pred.intervention is Intervention.SKIP:
        return None, None
    speed = None if pred.expect_faster is None or faster is None else pred.expect_faster == faster
    correct = None if pred.expect_kept is None else pred.expect_kept == kept
    return speed, correct


def _judgement(
    pred: Prediction, speed: bool | None, correct: bool | None, change: str | None
) -> Sentence:
    if pred.intervention is Intervention.SKIP:
        return say("gates.verdict.judged.skipped")
    judged = _held_words(_checks(speed, correct))
    if change == "within noise" and speed is not None:
        return say("gates.verdict.judged.noise", judged=judged)
    return judged


def _checks(speed: bool | None, correct: bool | None) -> list[tuple[str, bool]]:
    return [(g, ok) for g, ok in (("speed", speed), ("correctness", correct)) if ok is not None]


def _held_words(checks: list[tuple[str, bool]]) -> Sentence:
    if not checks:
        return say("gates.verdict.judged.nothing")
    held = [g for g, ok in checks if ok]
    missed = [g for g, ok in checks if not ok]
    if not missed:
        return say("gates.verdict.judged.held", gates=" and ".join(held))
    if not held:
        return say("gates.verdict.judged.missed", gates=" and ".join(missed))
    return say("gates.verdict.judged.mixed", held=held[0], missed=missed[0])


def narration(block: BlockTrace, s: Settings) -> str:
    """The verification step in words, for the aria-live region."""
    if block.levels:
        return _tree_narration(block, s)
    number = block.index + 1
    if not block.drafts:
        nothing = s.draft_source == "lookup" and block.start + 1 < s.tokens
        why = "nothing_to_copy" if nothing else "one_token"
        return say(f"gates.narration.{why}", number=number, word=block.final_word)
    parts: list[str] = [say("gates.narration.block", number=number)]
    source = say(f"gates.narration.{'residual' if s.repair else 'resampled'}")
    for d in block.drafts:
        if d.accepted is None:
            if not s.verify:
                parts.append(say("gates.narration.unchecked", position=d.position + 1, word=d.word))
            continue
        test = {"position": d.position + 1, "word": d.word, "u": f"{d.u:.2f}"}
        if d.accepted:
            parts.append(say("gates.narration.accepted", **test, ratio=f"{d.ratio:.2f}"))
        else:
            parts.append(
                say(
                    "gates.narration.rejected",
                    **test,
                    ratio=f"{d.ratio:.2f}",
                    source=source,
                    final=block.final_word,
                )
            )
    if s.verify and block.result.bonus_token is not None:
        parts.append(say("gates.narration.bonus", word=block.final_word))
    return " ".join(parts)


def _tree_narration(block: BlockTrace, s: Settings) -> str:
    """A tree's (typical acceptance's, a lookup's) walk: every sibling tested, depth by
    depth, then the ending, in the tree picture's own words."""
    parts: list[str] = [say("gates.narration.block", number=block.index + 1)]
    for level in block.levels:
        tests = []
        for sib in level.siblings:
            full, _ = sibling_test(sib, level.threshold)
            if full:
                verdict = "stood" if sib.accepted else "sibling_rejected"
                tests.append(say(f"gates.narration.{verdict}", word=sib.word, test=full))
        if tests:
            parts.append(
                say("gates.narration.depth", depth=level.position + 1, tests="; ".join(tests))
            )
    parts.append(ending_sentence(block, s))
    return " ".join(parts)
