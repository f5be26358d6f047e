"""The two gates, the verdict on the learner's prediction, and the live narration.

Correctness: does the output keep the target distribution p? Savings: does it take fewer
target passes and less cost than plain decoding? Lossless needs repair; speed needs agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.contract.route import Intervention
from app.state.query import INTERVENTION_LABELS, RECORDED_FIELDS, Prediction
from app.views import fmt
from app.views.judgement import Savings, change_sentence, counted, savings
from app.views.tree_chart import ending_sentence, sibling_test
from witness import Settings
from witness.core.trace import BlockTrace, DistributionCheck, RequestTrace
from witness.judge.ensemble import Comparison, Ensemble


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
        return Gate(
            "Correctness", True, "holds", f"Correctness holds: {_kept_because(s, c, drafted)}"
        )
    return Gate("Correctness", False, "fails", f"Correctness fails: {_lost_because(s, c)}")


def _kept_because(s: Settings, c: DistributionCheck, drafted: bool) -> str:
    if not drafted:
        if s.draft_source == "lookup":
            return "nothing was copied, so every token came from a plain target pass: p itself."
        return "nothing was drafted (one token to generate), so the token came from p itself."
    if c.mode == "no_verify":
        return (
            "nothing was verified, but here the draft's q equals p, so its output is p by "
            "luck of the pair, not by the method."
        )
    if c.greedy:
        return "greedy verification reproduces the target's own greedy text token for token."
    if s.acceptance == "typical":
        return (
            "typical acceptance is not lossless in general, but at every position here its "
            "law equals p (exact TV below 10⁻¹²)."
        )
    if c.mode == "no_repair":
        return (
            "p = q at every drafted position, so no draft can be rejected and the missing "
            "repair never acts."
        )
    if s.draft_source == "lookup" or (s.tree_width == 1 and s.drafting == "top"):
        what = "a copied token" if s.draft_source == "lookup" else "q's most likely token"
        return (
            f"{what} is a one-hot draft: it stands with probability p(x), and a "
            "rejection is repaired from p without it, which is p exactly."
        )
    if s.tree_width > 1:
        return (
            "each sibling is tested against the residual the ones before it left (recursive "
            "rejection sampling), and the last residual repairs the rest: p exactly."
        )
    return "residual repair keeps p exactly."


def _lost_because(s: Settings, c: DistributionCheck) -> str:
    tv = f"TV {fmt.distance(c.tv_max)}"
    if c.mode == "no_verify":
        if s.draft_source == "lookup":
            return f"without target verification the copied text is emitted as it was, {tv}."
        what = "the tree's first branch, drafted from q" if s.tree_width > 1 else "the draft's q"
        return f"without target verification the output is {what}, {tv}."
    if s.acceptance == "typical":
        return (
            "typical acceptance keeps any draft p rates above its bar and emits p's argmax "
            f"when none is: fast, not lossless, {tv}."
        )
    if s.draft_source == "lookup":
        return (
            "without repair a rejected copy is resampled from p, which can draw it again: "
            f"the output over-weights the copied words, {tv}."
        )
    if s.tree_width > 1:
        return (
            "without repair every sibling is tested against p itself, not the residual the "
            f"ones before it left: the output over-weights what the draft likes, {tv}."
        )
    return f"without repair the output over-weights what the draft likes, {tv}."


def savings_gate(ens: Ensemble, s: Settings, judged: Savings | None = None) -> Gate:
    """Judged over the state's seeded requests, never from the one on screen alone
    (``judged``: that judgement, when the caller has already made it)."""
    judged = savings(ens, s) if judged is None else judged
    return Gate("Savings", judged.status == "holds", judged.status, judged.sentence)


def invariant_view(
    trace: RequestTrace, ens: Ensemble, s: Settings, *, judged: Savings | None = None
) -> InvariantView:
    correct, saves = correctness_gate(trace, s), savings_gate(ens, s, judged)
    if not correct.holds:
        summary = "Lossless needs repair: the speedup claim falls at the correctness gate."
    elif saves.status == "void":
        summary = (
            "Nothing was verified: there is no speculative speedup to claim, only the draft "
            "model running alone."
        )
    elif saves.status == "holds":
        summary = "Both gates hold: this speedup claim stands."
    elif saves.status == "undecided":
        summary = (
            "Speed needs agreement: the savings are within noise of plain decoding, so the "
            "claim is not shown."
        )
    else:
        summary = "Speed needs agreement: the claim falls at the savings gate."
    return InvariantView(correct, saves, summary)


PHRASES = {
    "match": ("Raising match", "Lowering match", "match"),
    "k": ("Lengthening k", "Shortening k", "k"),
    "draft_cost": ("Raising the draft cost", "Cheapening the draft", "draft cost"),
}


def describe_change(base: Settings, now: Settings) -> str:
    """'Lengthening k from 4 to 8 at match 0.60', or the list of what changed."""
    changed = [f for f in RECORDED_FIELDS if getattr(base, f) != getattr(now, f)]
    if len(changed) == 1 and changed[0] in PHRASES:
        f = changed[0]
        up, down, name = PHRASES[f]
        before, after = getattr(base, f), getattr(now, f)
        verb = up if after > before else down
        at = f"at match {now.match:.2f}" if f != "match" else f"at k = {now.k}"
        return f"{verb} from {_v(before)} to {_v(after)} {at}"
    if changed == ["verify"]:
        return "Switching target verification " + fmt.on_off(now.verify)
    if changed == ["repair"]:
        return "Switching sampling repair " + fmt.on_off(now.repair)
    parts = [
        f"{f.replace('_', ' ')} {_v(getattr(base, f))} → {_v(getattr(now, f))}" for f in changed
    ]
    return "Changing " + ", ".join(parts)


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
    the prediction's base and the current state over the same seeds, by one estimator."""
    if pred.intervention is Intervention.SKIP:
        recorded = "You skipped the prediction (recorded as a skip)."
    else:
        recorded = (
            f"You predicted: {INTERVENTION_LABELS[pred.intervention]}" + _expectations(pred) + "."
        )
    kept = now.check.keeps_target
    kept_text = (
        "The distribution was kept."
        if kept
        else (f"The distribution was not kept (TV {fmt.distance(now.check.tv_max)}).")
    )
    faster: bool | None
    if all(getattr(pred.base, f) == getattr(s, f) for f in RECORDED_FIELDS):
        sentence = (
            f"Nothing has changed since the prediction ({fmt.speedup(cmp.after.mean)}, the "
            f"mean over {counted(cmp.after)}). {kept_text} Move the instrument to test it."
        )
        faster = None
    else:
        faster = cmp.change == "faster"
        sentence = f"{change_sentence(cmp.change, describe_change(pred.base, s), cmp)} {kept_text}"
    held_speed, held_correct = _held(pred, faster, kept)
    return VerdictView(
        recorded,
        sentence,
        _judgement(pred, held_speed, held_correct, cmp.change if faster is not None else None),
        held_speed,
        held_correct,
    )


def _expectations(pred: Prediction) -> str:
    parts = []
    if pred.expect_faster is not None:
        parts.append("faster" if pred.expect_faster else "not faster")
    if pred.expect_kept is not None:
        parts.append("distribution kept" if pred.expect_kept else "distribution not kept")
    return f", expecting {' and '.join(parts)}" if parts else ""


def _held(pred: Prediction, faster: bool | None, kept: bool) -> tuple[bool | None, bool | None]:
    if pred.intervention is Intervention.SKIP:
        return None, None
    speed = None if pred.expect_faster is None or faster is None else pred.expect_faster == faster
    correct = None if pred.expect_kept is None else pred.expect_kept == kept
    return speed, correct


def _judgement(
    pred: Prediction, speed: bool | None, correct: bool | None, change: str | None
) -> str:
    if pred.intervention is Intervention.SKIP:
        return "No prediction to judge; the gates above stand on their own."
    noise = (
        " (The speed change is within noise, so it does not count as faster.)"
        if change == "within noise" and speed is not None
        else ""
    )
    return _held_words(_checks(speed, correct)) + noise


def _checks(speed: bool | None, correct: bool | None) -> list[tuple[str, bool]]:
    return [(g, ok) for g, ok in (("speed", speed), ("correctness", correct)) if ok is not None]


def _held_words(checks: list[tuple[str, bool]]) -> str:
    if not checks:
        return "You named no expectation that the evidence can judge yet."
    held = [g for g, ok in checks if ok]
    missed = [g for g, ok in checks if not ok]
    if not missed:
        return f"Your prediction held on {' and '.join(held)}."
    if not held:
        return f"Your prediction missed on {' and '.join(missed)}."
    return f"Your prediction held on {held[0]} but missed on {missed[0]}."


def narration(block: BlockTrace, s: Settings) -> str:
    """The verification step in words, for the aria-live region."""
    parts = [f"Block {block.index + 1}."]
    if block.levels:
        return _tree_narration(block, s)
    if not block.drafts:
        why = (
            "Nothing earlier to copy"
            if s.draft_source == "lookup" and block.start + 1 < s.tokens
            else "One token left, so nothing was drafted"
        )
        return (
            f"Block {block.index + 1}. {why}: a plain target pass gave '{block.final_word}' from p."
        )
    source = "the residual" if s.repair else "resampling from p"
    for d in block.drafts:
        if d.accepted is None:
            if not s.verify:
                parts.append(f"Draft {d.position + 1} '{d.word}' emitted unchecked.")
            continue
        relation, outcome = ("<", "accepted") if d.accepted else ("≥", "rejected")
        sentence = (
            f"Draft {d.position + 1} '{d.word}' {outcome}: "
            f"u = {d.u:.2f} {relation} p/q = {d.ratio:.2f}"
        )
        if not d.accepted:
            sentence += f"; {source} gave '{block.final_word}'"
        parts.append(sentence + ".")
    if s.verify and block.result.bonus_token is not None:
        parts.append(f"All accepted; bonus '{block.final_word}' from p.")
    return " ".join(parts)


def _tree_narration(block: BlockTrace, s: Settings) -> str:
    """A tree's (typical acceptance's, a lookup's) walk: every sibling tested, depth by
    depth, then the ending, in the tree picture's own words."""
    parts = [f"Block {block.index + 1}."]
    for level in block.levels:
        tests = []
        for sib in level.siblings:
            full, _ = sibling_test(sib, level.threshold)
            if full:
                verdict = "stood" if sib.accepted else "rejected"
                tests.append(f"'{sib.word}' {verdict}: {full}")
        if tests:
            parts.append(f"Depth {level.position + 1}: " + "; ".join(tests) + ".")
    parts.append(ending_sentence(block, s))
    return " ".join(parts)
