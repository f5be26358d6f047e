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
- the optimum says when it sits at or past the slider's edge, or does not exist
  (`witness.judge.optimum`); the formula gap says where the mean sits against the formula
  (`witness.judge.formula_gap`).

The witness judges; this module picks each judgement's sentence (app/words/judgement.toml)
and formats its numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.station.views import fmt
from app.station.views.pricing import cost_name, cost_now, cost_short, priced
from app.words import Sentence, say
from witness import Settings
from witness.core.theory import Optimum
from witness.cost.costing import costing, price
from witness.judge import formula_gap as gap
from witness.judge.ensemble import CONFIDENCE, Comparison, Ensemble, Estimate
from witness.judge.optimum import OptimumVerdict, optimum_verdict
from witness.judge.verdict import GateReason, savings_gate

LEVEL = f"{CONFIDENCE:.0%}"
EXACT = "exact-given-text"


def exact(e: Estimate | Ensemble) -> bool:
    """Whether ``e`` was judged exactly given the target's texts."""
    return e.estimator == EXACT


def counted(e: Estimate | Ensemble, *, seeds: bool = True) -> Sentence:
    """What a verdict averages over: '32 seeded requests', '32 target texts', or greedy
    decoding's one text (the target writes the same text whatever the seed; ``seeds``
    says so in brackets, where no other sentence beside it does)."""
    n = e.n if isinstance(e, Estimate) else len(e.seeds)
    if exact(e) and e.texts == 1 and n > 1:
        if seeds:
            return say("judgement.counted.one_text_at_seeds", n=n)
        return say("judgement.counted.one_text")
    return say(f"judgement.counted.{'texts' if exact(e) else 'requests'}", n=n)


def every_one_of(e: Estimate | Ensemble) -> Sentence:
    """'every one of 32 seeded requests', or greedy decoding's one text as `counted` says it."""
    what = counted(e)
    if what.mode.startswith("one_text"):
        return what
    return say("judgement.every_one_of.many", counted=what)


def speedup_range(e: Estimate, *, greedy: bool = False) -> Sentence:
    """'mean 2.13× over 32 target texts, … (99% interval 2.09–2.17×; one text 1.97–2.35×)'.

    ``greedy``: the state decodes greedily, so its texts are one text at every seed."""
    speedup = fmt.speedup(e.mean)
    if exact(e) and greedy:
        return say("judgement.speedup_range.greedy", speedup=speedup)
    if e.sd == 0.0:
        mode = "exact_same" if exact(e) else "same"
        return say(f"judgement.speedup_range.{mode}", speedup=speedup, every=every_one_of(e))
    return say(
        f"judgement.speedup_range.{'exact' if exact(e) else 'served'}",
        speedup=speedup,
        counted=counted(e),
        level=LEVEL,
        low=f"{e.ci_low:.2f}",
        high=f"{e.ci_high:.2f}",
        lowest=f"{e.low:.2f}",
        highest=f"{e.high:.2f}",
    )


def alpha_over(ens: Ensemble) -> Sentence:
    """Where the station's α is averaged: every position of the texts, or every position the
    served requests draft at."""
    return say(f"judgement.alpha_over.{'texts' if exact(ens) else 'served'}", counted=counted(ens))


def formula_speedup(ens: Ensemble, s: Settings) -> float | None:
    """The formula at the station's α: the 'expected' speedup quoted everywhere
    (`witness.judge.formula_gap.formula_speedup`)."""
    return gap.formula_speedup(ens, s)


def formula_gap(ens: Ensemble, s: Settings) -> str:
    """Why the measured mean may sit under (or over) the formula, in one sentence ("" where
    there is no formula to set beside it)."""
    found = gap.formula_gap_of(ens, s)
    if found is None:
        return ""
    formula = fmt.speedup(found.formula)
    if found.side == "agrees":
        return say("judgement.formula_gap.agrees", formula=formula)
    why = (
        say(
            "judgement.formula_gap.why.alpha_varies",
            low=f"{found.alpha_low:.2f}",
            high=f"{found.alpha_high:.2f}",
        )
        if found.cause == "alpha_varies"
        else say("judgement.formula_gap.why.last_block")
    )
    return say(f"judgement.formula_gap.sits.{found.side}", why=why, formula=formula)


@dataclass(frozen=True, slots=True)
class Savings:
    """The savings gate's judgement at the current state."""

    status: str  # "holds", "fails", "undecided" (within noise), "void" (nothing verified)
    sentence: str
    break_even_measured: float | None
    break_even_formula: float | None


# Why a gate was decided before its speed was judged: the mode of ``judgement.savings.unjudged``.
UNJUDGED = {
    "verify off, copying": "copying",
    "nothing copied": "nothing_copied",
    "nothing drafted": "nothing_drafted",
}


def savings(ens: Ensemble, s: Settings) -> Savings:
    """The savings gate in words (`witness.judge.verdict.savings_gate` judges it)."""
    gate = savings_gate(ens, s)
    measured, formula = gate.break_even_measured, gate.break_even_formula
    if gate.reason != "judged":
        return Savings(gate.status, _unjudged(gate.reason, s), measured, formula)
    # A judged gate has both (`savings_gate`).
    assert gate.speedup is not None
    assert formula is not None
    where = (
        say("judgement.savings.where.lookup")
        if s.draft_source == "lookup"
        else break_even_sentence(s, measured, formula)
    )
    sentence = say(
        f"judgement.savings.judged.{gate.status}",
        speed=speedup_range(gate.speedup, greedy=s.greedy),
        where=where,
    )
    return Savings(gate.status, sentence, measured, formula)


def _unjudged(reason: GateReason, s: Settings) -> Sentence:
    """The gate's sentence where nothing was verified, drafted or copied."""
    if reason == "verify off":
        c = costing(s).c  # the draft model alone: one token per draft pass
        speed = fmt.speedup(1 / c if c else None)
        return say("judgement.savings.unjudged.unverified", speed=speed)
    return say(f"judgement.savings.unjudged.{UNJUDGED[reason]}")


def break_even_sentence(s: Settings, measured: float | None, formula: float) -> Sentence:
    """The cost at which the current k stops paying, measured and by the formula."""
    under = measured is not None and price(s) < measured
    pays_while = say(
        "judgement.break_even.pays_while",
        k=s.k,
        cost=cost_name(s),
        measured=_cost(measured),
        formula=f"{formula:.2f}",
    )
    stands = say(
        f"judgement.break_even.stands.{'under' if under else 'past'}", cost_now=cost_now(s)
    )
    if s.k == 1:
        return say("judgement.break_even.at_k_one", pays_while=pays_while, stands=stands)
    rule = say(f"judgement.break_even.rule.{priced(s)}")
    return say("judgement.break_even.past_k_one", pays_while=pays_while, stands=stands, rule=rule)


def _cost(c: float | None) -> str:
    return "—" if c is None else f"{c:.2f}"


def optimum_sentence(alpha: float, s: Settings, optimum: Optimum) -> Sentence:
    """The formula's best k, honest about the slider's edge and about α = 1
    (`witness.judge.optimum.optimum_verdict` judges which)."""
    v = optimum_verdict(alpha, s, optimum)
    best = fmt.speedup(v.best)
    if v.mode == "none_pays":
        return say("judgement.optimum.none_pays", alpha=f"{alpha:.2f}", cost=cost_short(s, 1))
    if v.mode == "unbounded":
        return say(
            "judgement.optimum.unbounded",
            why=say(f"judgement.optimum.why.{v.cause}"),
            toward=_toward(v),
            edge=v.k_max,
            best=best,
        )
    if v.mode == "past_edge":
        return say("judgement.optimum.past_edge", best_k=v.unconstrained, edge=v.k_max, best=best)
    return say("judgement.optimum.within", k=v.k, best=best)


def _toward(v: OptimumVerdict) -> Sentence:
    """What an unbounded speedup rises toward: a limit, or none."""
    if v.limit is None or math.isinf(v.limit):
        return say("judgement.optimum.toward.unbounded")
    return say("judgement.optimum.toward.limit", limit=fmt.speedup(v.limit))


def paired_interval(cmp: Comparison) -> Sentence:
    """A paired comparison's difference and its interval: 'paired difference +0.24×, …'."""
    return say(
        "judgement.change.interval",
        difference=f"{cmp.difference:+.2f}",
        level=LEVEL,
        low=f"{cmp.ci_low:+.2f}",
        high=f"{cmp.ci_high:+.2f}",
    )


def change_sentence(change: str, described: str, cmp: Comparison) -> Sentence:
    """'Lengthening k … made it faster: mean 2.17× → 2.41× over 32 seeded requests …'."""
    b, a = cmp.before, cmp.after
    if change == "same":
        each = "texts" if exact(a) else "requests"
        return say(f"judgement.change.same.{each}", described=described, speed=fmt.speedup(a.mean))
    means = say(
        "judgement.change.means",
        before=fmt.speedup(b.mean),
        after=fmt.speedup(a.mean),
        counted=counted(a),
    )
    tally = say(
        "judgement.change.tally", faster=cmp.faster_on, slower=cmp.slower_on, equal=cmp.equal_on
    )
    mode = change.replace(" ", "_")
    if not math.isfinite(cmp.ci_low) or not math.isfinite(cmp.ci_high):  # one side unbounded
        return say(
            f"judgement.change.unbounded.{mode}", described=described, means=means, tally=tally
        )
    interval = paired_interval(cmp)
    return say(
        f"judgement.change.paired.{mode}",
        described=described,
        means=means,
        interval=interval,
        tally=tally,
    )
