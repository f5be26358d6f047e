"""The two gates, the verdict on the learner's prediction, and the live narration.

Correctness: does the output keep the target distribution p? Savings: does it take fewer
target passes and less cost than plain decoding? Lossless needs repair; speed needs agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.contract.route import Intervention
from app.state.query import BASE_FIELDS, INTERVENTION_LABELS, Prediction
from app.views import fmt
from witness import Settings
from witness.trace import BlockTrace, RequestTrace


@dataclass(frozen=True, slots=True)
class Gate:
    name: str
    holds: bool
    status: str  # "holds" / "fails": read aloud and printed, never colour alone
    sentence: str


@dataclass(frozen=True, slots=True)
class InvariantView:
    correctness: Gate
    savings: Gate
    summary: str


def correctness_gate(trace: RequestTrace) -> Gate:
    c = trace.check
    if c.keeps_target:
        if c.greedy:
            why = "greedy verification reproduces the target's own greedy text token for token."
        elif c.mode == "no_repair":  # e.g. p = q: nothing is ever rejected, so repair is idle
            why = "no draft was ever rejected here, so the missing repair never acted."
        else:
            why = "residual repair keeps p exactly."
        return Gate("Correctness", True, "holds", f"Correctness holds: {why}")
    if c.mode == "no_repair":
        why = (
            "without repair the output over-weights what the draft likes, "
            f"TV {fmt.distance(c.tv_max)}."
        )
    else:
        why = (
            f"without target verification the output is the draft's q, TV {fmt.distance(c.tv_max)}."
        )
    return Gate("Correctness", False, "fails", f"Correctness fails: {why}")


def savings_gate(trace: RequestTrace, s: Settings) -> Gate:
    t = trace.totals
    if not s.verify:
        return Gate(
            "Savings",
            True,
            "holds",
            "Savings hold trivially: no target pass at all, "
            f"{fmt.speedup(t.speedup_measured)} — because nothing checks the draft.",
        )
    speed = t.speedup_measured or 0.0
    passes = f"{t.target_passes} target passes instead of {t.baseline_target_passes}"
    if speed > 1.0:
        return Gate(
            "Savings",
            True,
            "holds",
            f"Savings hold: {passes}, {fmt.speedup(speed)} at draft cost {s.draft_cost:.2f}.",
        )
    return Gate(
        "Savings",
        False,
        "fails",
        f"Savings fail: {passes}, but with draft cost {s.draft_cost:.2f} and mean α "
        f"{t.mean_alpha:.2f} the request costs more than plain decoding ({fmt.speedup(speed)}).",
    )


def invariant_view(trace: RequestTrace, s: Settings) -> InvariantView:
    correct, saves = correctness_gate(trace), savings_gate(trace, s)
    if correct.holds and saves.holds and s.verify:
        summary = "Both gates hold: this speedup claim stands."
    elif not correct.holds:
        summary = "Lossless needs repair: the speedup claim falls at the correctness gate."
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
    changed = [f for f in BASE_FIELDS if getattr(base, f) != getattr(now, f)]
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


def verdict_view(
    pred: Prediction, before: RequestTrace, now: RequestTrace, s: Settings
) -> VerdictView:
    if pred.intervention is Intervention.SKIP:
        recorded = "You skipped the prediction (recorded as a skip)."
    else:
        recorded = (
            f"You predicted: {INTERVENTION_LABELS[pred.intervention]}" + _expectations(pred) + "."
        )
    b, n = before.totals.speedup_measured, now.totals.speedup_measured
    kept = now.check.keeps_target
    kept_text = (
        "The distribution was kept."
        if kept
        else (f"The distribution was not kept (TV {fmt.distance(now.check.tv_max)}).")
    )
    if all(getattr(pred.base, f) == getattr(s, f) for f in BASE_FIELDS):
        sentence = (
            f"Nothing has changed since the prediction: {fmt.speedup(n)}. {kept_text} "
            "Move the instrument to test it."
        )
        faster = None
    else:
        faster, word = _compare(b, n)
        sentence = (
            f"{describe_change(pred.base, s)} made it {word}: "
            f"{fmt.speedup(b)} → {fmt.speedup(n)}. {kept_text}"
        )
    held_speed, held_correct = _held(pred, faster, kept)
    return VerdictView(
        recorded, sentence, _judgement(pred, held_speed, held_correct), held_speed, held_correct
    )


SAME_SPEED = 0.005  # below the 2-decimal display: "no faster", never "slower: 1.90× → 1.90×"


def _compare(before: float | None, now: float | None) -> tuple[bool, str]:
    """Was it faster, and the word for it; None is an unbounded (zero-cost) speedup."""
    if before is None or now is None:
        if before is None and now is None:
            return False, "no faster"
        return (True, "faster") if now is None else (False, "slower")
    if abs(now - before) < SAME_SPEED:
        return False, "no faster"
    return (True, "faster") if now > before else (False, "slower")


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


def _judgement(pred: Prediction, speed: bool | None, correct: bool | None) -> str:
    if pred.intervention is Intervention.SKIP:
        return "No prediction to judge; the gates above stand on their own."
    checks = [(g, ok) for g, ok in (("speed", speed), ("correctness", correct)) if ok is not None]
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
