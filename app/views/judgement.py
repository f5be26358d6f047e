"""The station's judgements in words, drawn from many seeded requests and the formula.

Every panel that says "faster", "pays", "optimal" or "break-even" takes its sentence from
here, so the gate, the verdict, the sweep's caption, the readout, the checkpoint and the
worksheet say the same thing with the same numbers:

- speed comes from the state's ensemble, a ratio of means with its interval: for the lossless
  chain the exact expectation given each of the target's texts (`witness.judge.expected`), else
  the request on screen and the next seeds served (`witness.judge.ensemble`); "within noise" when
  the interval does not decide, and the sentence names which of the two it averages over;
- α is the station's α: the mean acceptance rate over the positions of those texts, or over
  every position the served requests draft at;
- break-even is per k (`break_even_cost`); "α > c" is named as the k = 1 rule it is;
- the optimum says when it sits at or past the slider's edge, or does not exist.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.views import fmt
from app.views.pricing import cost_name, cost_now, cost_short
from witness import Settings
from witness.core.theory import Optimum, expected_speedup, speculation_pays
from witness.cost.costing import costing, price
from witness.judge.ensemble import CONFIDENCE, Comparison, Ensemble, Estimate
from witness.judge.verdict import savings_gate
from witness.serve.accounting import draft_cost, speedup_expected

LEVEL = f"{CONFIDENCE:.0%}"
EXACT = "exact-given-text"
# A gap between the formula and the measured mean is worth a sentence past this spread of
# α over positions (below it the formula's one-α assumption is close to true).
ALPHA_SPREAD = 0.05


def exact(e: Estimate | Ensemble) -> bool:
    """Whether ``e`` was judged exactly given the target's texts."""
    return e.estimator == EXACT


def counted(e: Estimate | Ensemble, *, seeds: bool = True) -> str:
    """What a verdict averages over: '32 seeded requests', '32 target texts', or greedy
    decoding's one text (the target writes the same text whatever the seed; ``seeds``
    says so in brackets, where no other sentence beside it does)."""
    n = e.n if isinstance(e, Estimate) else len(e.seeds)
    if exact(e) and e.texts == 1 and n > 1:
        one = "greedy decoding's one text"
        return f"{one} (the same at all {n} seeds)" if seeds else one
    return f"{n} target texts" if exact(e) else f"{n} seeded requests"


def every_one_of(e: Estimate | Ensemble) -> str:
    """'every one of 32 seeded requests', or greedy decoding's one text as `counted` says it."""
    what = counted(e)
    return what if what.startswith("greedy") else f"every one of {what}"


def speedup_range(e: Estimate, *, greedy: bool = False) -> str:
    """'mean 2.13× over 32 target texts, … (99% interval 2.09–2.17×; one text 1.97–2.35×)'.

    ``greedy``: the state decodes greedily, so its texts are one text at every seed."""
    if exact(e) and greedy:
        return (
            f"{fmt.speedup(e.mean)} at every seed, the exact expectation given greedy "
            "decoding's one text (the target writes the same text whatever the seed)"
        )
    if exact(e) and e.sd == 0.0:
        return (
            f"{fmt.speedup(e.mean)} expected on {every_one_of(e)} (each the exact "
            "expectation given the text)"
        )
    if e.sd == 0.0:
        return f"{fmt.speedup(e.mean)} for {every_one_of(e)}"
    if exact(e):
        return (
            f"mean {fmt.speedup(e.mean)} over {counted(e)}, each the exact expectation given "
            f"the text ({LEVEL} interval {e.ci_low:.2f}–{e.ci_high:.2f}×; one text's "
            f"expectation ranges {e.low:.2f}–{e.high:.2f}×)"
        )
    return (
        f"mean {fmt.speedup(e.mean)} over {counted(e)} ({LEVEL} interval "
        f"{e.ci_low:.2f}–{e.ci_high:.2f}×; one request alone ranges "
        f"{e.low:.2f}–{e.high:.2f}×)"
    )


def alpha_over(ens: Ensemble) -> str:
    """Where the station's α is averaged: every position of the texts, or every position the
    served requests draft at."""
    if exact(ens):
        return f"every position of {counted(ens)}"
    return f"every drafted position of {counted(ens)}"


def formula_speedup(ens: Ensemble, s: Settings) -> float | None:
    """The formula at the station's α: the 'expected' speedup quoted everywhere.

    For a tree, α is the acceptance per level (one draft pass each, whatever the width);
    prompt lookup runs no draft model, so its draft passes cost nothing."""
    return speedup_expected(ens.alpha, s.k, draft_cost(s), verify=s.verify)


def formula_gap(ens: Ensemble, s: Settings) -> str:
    """Why the measured mean may sit under (or over) the formula, in one sentence."""
    if not s.verify:
        return ""
    est, formula = ens.speedup(costing(s)), formula_speedup(ens, s)
    if formula is None:
        return ""
    spread = (
        f"α varies from position to position (from {ens.alpha_low:.2f} to "
        f"{ens.alpha_high:.2f}, 10th to 90th percentile)"
    )
    if est.ci_low <= formula <= est.ci_high or est.sd == 0.0 and abs(est.mean - formula) < 5e-3:
        return f"The measured mean agrees with the formula ({fmt.speedup(formula)}) within noise."
    where = "under" if est.mean < formula else "over"
    why = (
        f"The formula assumes one α at every position; here {spread}, and a block's run of "
        "acceptances stops at its first low-α position"
        if ens.alpha_high - ens.alpha_low > ALPHA_SPREAD
        else "The formula counts whole blocks of k drafts; the request's last block drafts "
        "only what is left"
    )
    return f"{why}, so the measured mean sits {where} the formula's {fmt.speedup(formula)}."


@dataclass(frozen=True, slots=True)
class Savings:
    """The savings gate's judgement at the current state."""

    status: str  # "holds", "fails", "undecided" (within noise), "void" (nothing verified)
    sentence: str
    break_even_measured: float | None
    break_even_formula: float | None


def savings(ens: Ensemble, s: Settings) -> Savings:
    """The savings gate in words (`witness.judge.verdict.savings_gate` judges it)."""
    gate = savings_gate(ens, s)
    measured, formula = gate.break_even_measured, gate.break_even_formula
    if gate.reason == "verify off, copying":
        sentence = (
            "Savings are not earned: with target verification off the copied words are "
            "emitted unchecked, so the speed is text copying, not a speedup of the target."
        )
    elif gate.reason == "verify off":
        c = costing(s).c
        sentence = (
            "Savings are not earned: with target verification off no pass checks the draft, so "
            f"the speed ({fmt.speedup(1 / c if c else None)}) is the draft model's own, not a "
            "speedup of the target."
        )
    elif gate.reason == "nothing copied":
        sentence = (
            "No savings: no request found earlier words to copy, so every block was a plain "
            "target pass (1.00×)."
        )
    elif gate.reason == "nothing drafted":
        sentence = (
            "No savings: with one token to generate nothing is drafted, and the one target "
            "pass is what plain decoding pays (1.00×)."
        )
    else:
        # A judged gate has both (`savings_gate`).
        assert gate.speedup is not None
        assert formula is not None
        said = speedup_range(gate.speedup, greedy=s.greedy)
        where = (
            "Prompt lookup runs no draft model, so the draft cost c does not enter: the speed "
            "is the tokens each target pass emits."
            if s.draft_source == "lookup"
            else break_even_sentence(s, measured, formula)
        )
        sentence = {
            "holds": f"Savings hold: {said}. {where}",
            "fails": f"Savings fail: {said}, slower than plain decoding. {where}",
            "undecided": f"Savings undecided: {said}, within noise of plain decoding (1×). {where}",
        }[gate.status]
    return Savings(gate.status, sentence, measured, formula)


def break_even_sentence(s: Settings, measured: float | None, formula: float) -> str:
    """The cost at which the current k stops paying, measured and by the formula."""
    now = "under it" if measured is not None and price(s) < measured else "past it"
    first = (
        f"At k = {s.k} speculation pays while {cost_name(s)} stays under "
        f"{_cost(measured)} (measured; {formula:.2f} by the formula)"
    )
    # On a machine the k = 1 rule holds α against k = 1's price per draft, not the bare c.
    held = "c" if s.machine == "custom" else "the price per draft at k = 1"
    rule = "" if s.k == 1 else f"; the 'α > {held}' rule is the break-even of k = 1 only"
    return f"{first}; {cost_now(s)} is {now}{rule}."


def _cost(c: float | None) -> str:
    return "—" if c is None else f"{c:.2f}"


def optimum_sentence(alpha: float, s: Settings, optimum: Optimum) -> str:
    """The formula's best k, honest about the slider's edge and about α = 1."""
    edge, c = optimum.k_max, price(s, 1)
    best = fmt.speedup(float(expected_speedup(alpha, optimum.k, price(s, optimum.k))))
    if not speculation_pays(alpha, c):
        return (
            f"No k pays by the formula: α = {alpha:.2f} ≤ {cost_short(s, 1)} is the k = 1 "
            "break-even, and every longer draft breaks even at a lower cost still."
        )
    if optimum.unconstrained is None:
        limit = optimum.limit
        toward = (
            "without bound"
            if limit is None or math.isinf(limit)
            else f"toward {fmt.speedup(limit)}"
        )
        why = "every draft is accepted (α = 1)" if alpha >= 1.0 else "drafting is free (c = 0)"
        return (
            f"Here {why}: the formula's speedup rises with k {toward} and has no finite "
            f"optimum; k = {edge} is only the slider's edge ({best} expected)."
        )
    if optimum.unconstrained > edge:
        return (
            f"The formula's best k is {optimum.unconstrained}, past the slider's range; "
            f"within it k = {edge} is best ({best} expected)."
        )
    return f"The formula's optimum is k = {optimum.k} ({best} expected)."


def change_sentence(change: str, described: str, cmp: Comparison) -> str:
    """'Lengthening k … made it faster: mean 2.17× → 2.41× over 32 seeded requests …'."""
    b, a = cmp.before, cmp.after
    means = f"mean {fmt.speedup(b.mean)} → {fmt.speedup(a.mean)} over {counted(a)}"
    tally = f"faster on {cmp.faster_on}, slower on {cmp.slower_on}, equal on {cmp.equal_on}"
    if change == "same":
        each = "every target text expects" if exact(a) else "every seeded request took"
        return (
            f"{described} made no difference to the speed: {each} the same passes "
            f"({fmt.speedup(a.mean)})."
        )
    if not math.isfinite(cmp.ci_low) or not math.isfinite(cmp.ci_high):  # one side unbounded
        return f"{described} made it {change}: {means} ({tally})."
    interval = (
        f"paired difference {cmp.difference:+.2f}×, "
        f"{LEVEL} interval {cmp.ci_low:+.2f} to {cmp.ci_high:+.2f}"
    )
    if change == "within noise":
        return (
            f"{described} changed the speed by no more than noise: {means} ({interval}; {tally})."
        )
    return f"{described} made it {change}: {means} ({interval}; {tally})."
