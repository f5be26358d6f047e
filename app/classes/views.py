"""The live class's view models: the projector's dashboard, its tally bars, and the reveal.

Everything here is a pure function of a class's snapshot (counts of validated enum values,
never anything a learner typed) and, for the reveal, of the app's `Witness`: the station's
own verdict on each intervention the class chose, applied to the question's preset, judged
over the preset's seeds exactly as a learner's station judges it
(`Witness.compare`, `app/station/views/judgement.py`; the distribution from the exact check of the
served request, as `app/station/views/gates.py` `verdict_view` does), and whether that speed is
a speedup at all from the one verdict on a speed claim the station's savings gate states
(`app/station/views/gates.py` `speed_claim`): where correctness fails, a faster run is the trap,
not "faster". So the projector and every learner's station say the same thing about the same
intervention.

Every sentence is written for each case it can meet: nobody, one learner, many; faster,
slower, within noise, no change; kept, not kept. The views pick the case; the words are
app/words/classes.toml's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from app.classes.contract import CLASS_INTERVENTIONS, CLASS_PRESET_BY_ID, ClassPreset
from app.contract.route import Intervention
from app.station.services import Witness
from app.station.state.interventions import apply_intervention
from app.station.state.presets import BY_ID
from app.station.state.query import INTERVENTION_LABELS
from app.station.views import fmt
from app.station.views.gates import GATE_MARKS, SpeedClaim, speed_claim, unearned_short
from app.station.views.judgement import counted, every_one_of
from app.station.views.prediction import arrows, moved
from app.words import Sentence, say
from witness.judge.ensemble import Comparison

# Bars are SVG rectangles on a 0-100 track (the CSP allows no inline style, so no width:%).
TRACK = 100


# --------------------------------------------------------------------------- the snapshot


@dataclass(frozen=True, slots=True)
class Said:
    """How many answered yes, no, or did not say, to one expectation."""

    yes: int = 0
    no: int = 0
    unsaid: int = 0

    @property
    def total(self) -> int:
        return self.yes + self.no + self.unsaid


@dataclass(frozen=True, slots=True)
class Chosen:
    """One intervention's predictions: how many chose it and what they expected."""

    intervention: Intervention
    faster: Said
    kept: Said

    @property
    def n(self) -> int:
        return self.faster.total


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A class's question and tally as the pages show them: hashable, so it keys a render."""

    code: str
    question: str  # a preset id
    revealed: bool
    answered: int
    chosen: tuple[Chosen, ...]  # one per intervention, in the station's order, zeros included
    faster: Said
    kept: Said
    tally_hidden: bool = False  # the instructor hides the tally until the reveal

    @property
    def version(self) -> str:
        """Changes whenever anything the dashboard shows changes (the poll's 'seen')."""
        # Not hash(): str hashes differ per process, and every worker must agree.
        return hashlib.blake2b(repr(self).encode(), digest_size=8).hexdigest()


def snapshot(
    code: str,
    question: str,
    revealed: bool,
    by_intervention: dict[str, tuple[Said, Said]],
    *,
    tally_hidden: bool = False,
) -> Snapshot:
    """A snapshot from per-intervention counts; the totals are their sums, so the bars and
    the answered count can never disagree."""
    chosen = tuple(
        Chosen(i, *by_intervention.get(i.value, (Said(), Said()))) for i in CLASS_INTERVENTIONS
    )
    return Snapshot(
        code=code,
        question=question,
        revealed=revealed,
        answered=sum(c.n for c in chosen),
        chosen=chosen,
        faster=Said(*(sum(getattr(c.faster, f) for c in chosen) for f in ("yes", "no", "unsaid"))),
        kept=Said(*(sum(getattr(c.kept, f) for c in chosen) for f in ("yes", "no", "unsaid"))),
        tally_hidden=tally_hidden,
    )


# --------------------------------------------------------------------------- sentences


def learners(n: int) -> Sentence:
    return say("classes.learners.one") if n == 1 else say("classes.learners.many", n=n)


def answered_sentence(n: int) -> Sentence:
    if n == 0:
        return say("classes.answered.nobody")
    return say("classes.answered.one") if n == 1 else say("classes.answered.many", n=n)


def _others(said: Said) -> str:
    """Those who did not say yes, for the brackets: "3 said no, 2 did not say"."""
    parts = []
    if said.no:
        parts.append(say("classes.others.no", n=said.no))
    if said.unsaid:
        parts.append(say("classes.others.unsaid", n=said.unsaid))
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Expectation:
    """One expectation in words: what yes says, what no says, and the open question."""

    yes: str
    no: str
    whether: str


def expectation(name: str) -> Expectation:
    """The words of one expectation ("faster" or "kept")."""
    return Expectation(
        *(say(f"classes.expectation.{name}.{part}") for part in ("yes", "no", "whether"))
    )


FASTER = expectation("faster")
KEPT = expectation("kept")


def expected(said: Said, e: Expectation) -> Sentence:
    """'7 of 12 expected it faster (3 said no, 2 did not say)', true for every count:
    never '0 of 1 expected …', and one learner is one learner."""
    m = said.total
    if m == 1:
        if said.unsaid:
            return say("classes.expected.one_unsaid", whether=e.whether)
        return say("classes.expected.one", expectation=e.yes if said.yes else e.no)
    if said.unsaid == m:
        return say("classes.expected.none_said", m=m, whether=e.whether)
    if said.yes == m:
        return say("classes.expected.all", m=m, expectation=e.yes)
    if said.no == m:
        return say("classes.expected.all", m=m, expectation=e.no)
    # Past here some said yes and some did not, or nobody did and the rest are mixed: either
    # way the others are never empty.
    if said.yes == 0:
        return say("classes.expected.none", m=m, expectation=e.yes, others=_others(said))
    return say("classes.expected.some", yes=said.yes, m=m, expectation=e.yes, others=_others(said))


def _mode(change: str) -> str:
    """A speed verdict (faster / slower / within noise / same) as a mode of the words."""
    return change.replace(" ", "_")


def faster_sentence(said: Said, change: str, why: Sentence | None = None) -> Sentence:
    """'7 of 12 expected it faster (3 said no); it was slower.' ``why``: why the state earns
    no speedup (`SpeedClaim.why`), where it earns none: then a faster run is the trap."""
    if why is None:
        truth = say(f"classes.truth.speed.{_mode(change)}")
    else:
        ran = say(f"classes.ran.{_mode(change)}")
        truth = say(f"classes.truth.unearned.{_ran(change)}", ran=ran, why=why)
    return say("classes.truth.faster", expected=expected(said, FASTER), truth=truth)


def _ran(change: str) -> str:
    """How an unearned speed's clause joins its change: 'but' after faster, else 'anyway'."""
    return "faster" if change == "faster" else "other"


def kept_sentence(said: Said, kept: bool, tv: float) -> Sentence:
    """'31 of 40 expected the distribution kept; it was not (TV 0.310).'"""
    if kept:
        truth = say("classes.truth.distribution.kept")
    else:
        truth = say("classes.truth.distribution.lost", tv=fmt.distance(tv))
    return say("classes.truth.kept", expected=expected(said, KEPT), truth=truth)


def chosen_sentence(n: int, answered: int) -> Sentence:
    if n == 0:
        return say("classes.chosen.nobody")
    if answered == 1:
        return say("classes.chosen.one")
    if n == answered:
        return say("classes.chosen.all", answered=answered)
    return say("classes.chosen.some", n=n, answered=answered)


def speed_words(cmp: Comparison, why: Sentence | None = None) -> Sentence:
    """The station's speed verdict in one clause, with the means it rests on; where the
    state earns no speedup (``why``), what it ran and why that is not a speedup."""
    b, a = cmp.before, cmp.after
    means = say(
        "classes.speed.means",
        before=fmt.speedup(b.mean),
        after=fmt.speedup(a.mean),
        counted=counted(a),
    )
    if why is not None:
        ran = say(f"classes.ran.{_mode(cmp.change)}")
        return say(f"classes.speed.unearned.{_ran(cmp.change)}", ran=ran, means=means, why=why)
    if cmp.change in ("faster", "slower", "within noise"):
        return say(f"classes.speed.{_mode(cmp.change)}", means=means)
    return say("classes.speed.same", every=every_one_of(a), mean=fmt.speedup(a.mean))


# --------------------------------------------------------------------------- view models


@dataclass(frozen=True, slots=True)
class Bar:
    key: str  # the data-testid suffix
    label: str
    count: int
    width: float  # of TRACK
    text: str  # the number, in words and digits: the bar is readable without its rectangle


@dataclass(frozen=True, slots=True)
class BarGroup:
    key: str
    title: str
    bars: tuple[Bar, ...]


def bar(key: str, label: str, count: int, answered: int) -> Bar:
    share = count / answered if answered else 0.0
    text = f"{count} of {answered} ({share:.0%})" if answered else "0"
    return Bar(key, label, count, round(TRACK * share, 2), text)


def said_bars(key: str, title: str, said: Said, answered: int) -> BarGroup:
    return BarGroup(
        key,
        title,
        tuple(
            bar(f"{key}-{answer}", say(f"classes.tally.said.{answer}"), count, answered)
            for answer, count in (("yes", said.yes), ("no", said.no), ("unsaid", said.unsaid))
        ),
    )


@dataclass(frozen=True, slots=True)
class TallyView:
    answered: int
    answered_sentence: Sentence
    interventions: BarGroup
    faster: BarGroup
    kept: BarGroup


def tally_view(snap: Snapshot) -> TallyView:
    n = snap.answered
    return TallyView(
        answered=n,
        answered_sentence=answered_sentence(n),
        interventions=BarGroup(
            "intervention",
            say("classes.tally.intervention"),
            tuple(
                bar(c.intervention.value, INTERVENTION_LABELS[c.intervention], c.n, n)
                for c in snap.chosen
            ),
        ),
        faster=said_bars("faster", say("classes.tally.faster"), snap.faster, n),
        kept=said_bars("kept", say("classes.tally.kept"), snap.kept, n),
    )


@dataclass(frozen=True, slots=True)
class Witnessed:
    """The station's verdict on one intervention, applied to the question's preset."""

    intervention: Intervention
    change: str  # faster / slower / within noise / same: how the speed moved
    claim: SpeedClaim  # the station's savings gate at the state after it
    speed: Sentence
    kept: bool
    tv: float
    moves: str  # "k 4 → 8", or "" where the intervention changes nothing here
    means: str  # the mean speedup before → after, over the preset's seeds

    @property
    def verdict(self) -> str:
        """The speed verdict the reveal gives: the change, or "void" where the state after
        it earns no speedup (the savings gate's void), whatever the change."""
        return self.change if self.claim.earned else "void"


def witnessed(preset_id: str, intervention: Intervention, witness: Witness) -> Witnessed:
    """What a learner's station says when this intervention is recorded at the preset: the
    paired change over the preset's seeds, and the one verdict on a speed claim at the state
    after it (`speed_claim`, as the station's savings gate states it)."""
    base = BY_ID[preset_id].settings
    after = apply_intervention(base, intervention)
    cmp = witness.compare(base, after)
    check = witness.trace(after).check
    claim = speed_claim(witness.ensemble(after), after, check)
    # The reveal's own sentence says whether p was kept, so its reason is the short one.
    short = None if claim.reason is None else unearned_short(claim.reason)
    moves = arrows(moved(base, after), base, after)
    means = f"{fmt.speedup(cmp.before.mean)} → {fmt.speedup(cmp.after.mean)}"
    return Witnessed(
        intervention,
        cmp.change,
        claim,
        speed_words(cmp, short),
        check.keeps_target,
        check.tv_max,
        moves,
        means,
    )


def speed_chart_words(w: Witnessed) -> Sentence:
    """The station's answer to "faster?", short, with its mark: ▲ faster, ▼ slower, = no
    change, and where the state earns no speedup the savings gate's own mark for it."""
    if w.claim.why is not None:
        return say("classes.reveal.chart.speed.void", mark=GATE_MARKS["void"], means=w.means)
    return say(f"classes.reveal.chart.speed.{_mode(w.change)}", means=w.means)


@dataclass(frozen=True, slots=True)
class Answer:
    """One expectation as a chart: how those who chose an intervention answered (yes, no, did
    not say, as bars of their number) beside the station's answer, which marks its bar."""

    key: str  # the data-testid suffix: the intervention, then "faster" or "kept"
    title: str
    bars: tuple[Bar, ...]
    right: str  # the bar's answer the station gives: "yes" or "no"
    station: str  # the station's answer, short, with its mark


def answer_chart(intervention: str, kind: str, said: Said, right: bool, station: str) -> Answer:
    key = f"{intervention}-{kind}"
    group = said_bars(key, say(f"classes.reveal.chart.{kind}"), said, said.total)
    return Answer(key, group.title, group.bars, "yes" if right else "no", station)


@dataclass(frozen=True, slots=True)
class RevealRow:
    key: str
    label: str
    moves: str
    chosen: Bar
    chosen_sentence: Sentence
    station: Sentence  # the station's verdict, speed and distribution
    verdict: str  # faster / slower / within noise / same, or void: no speedup is earned
    faster_sentence: Sentence
    kept_sentence: Sentence
    answers: tuple[Answer, Answer]  # the two sentences above, drawn


@dataclass(frozen=True, slots=True)
class RevealView:
    lede: str
    rows: tuple[RevealRow, ...]  # one per intervention somebody chose
    nobody: str  # "" unless nobody answered


def reveal_view(snap: Snapshot, witness: Witness) -> RevealView:
    """Beside the class's predictions, the station's evidence for each intervention chosen."""
    lede = say("classes.reveal.lede")
    if snap.answered == 0:
        return RevealView(lede, (), say("classes.reveal.nobody"))
    rows = []
    for c in snap.chosen:
        if c.n == 0:
            continue
        w = witnessed(snap.question, c.intervention, witness)
        kept = say(f"classes.reveal.distribution.{'kept' if w.kept else 'lost'}")
        moves = w.moves or say("classes.reveal.unmoved")
        rows.append(
            RevealRow(
                key=c.intervention.value,
                label=INTERVENTION_LABELS[c.intervention],
                moves=moves,
                chosen=bar(c.intervention.value, learners(c.n), c.n, snap.answered),
                chosen_sentence=chosen_sentence(c.n, snap.answered),
                station=say("classes.reveal.station", speed=w.speed, distribution=kept),
                verdict=w.verdict,
                faster_sentence=faster_sentence(c.faster, w.change, w.claim.why),
                kept_sentence=kept_sentence(c.kept, w.kept, w.tv),
                answers=(
                    answer_chart(
                        c.intervention.value,
                        "faster",
                        c.faster,
                        w.verdict == "faster",
                        speed_chart_words(w),
                    ),
                    answer_chart(
                        c.intervention.value,
                        "kept",
                        c.kept,
                        w.kept,
                        say("classes.reveal.chart.kept_yes")
                        if w.kept
                        else say("classes.reveal.chart.kept_no", tv=fmt.distance(w.tv)),
                    ),
                ),
            )
        )
    return RevealView(lede, tuple(rows), "")


@dataclass(frozen=True, slots=True)
class QuestionView:
    id: str
    number: int
    title: str  # held back (numbered) until the reveal when the name gives the answer away
    question: str  # the prompt (which change, faster, p kept); once revealed, its situation
    url: str
    last: bool  # no preset follows this one
    explore: str  # the preset's own question, shown from the reveal on ("" before it)


def question_view(preset_id: str, revealed: bool) -> QuestionView:
    p: ClassPreset = CLASS_PRESET_BY_ID[preset_id]
    asked: str
    if revealed:  # answered: the situation stays, and the preset's own question follows it
        title, asked, explore = p.title, say(f"classes.question.situation.{p.id}"), p.explore
    else:
        title, asked, explore = p.shown_title, p.question, ""
    return QuestionView(p.id, p.number, title, asked, p.url, p.number == len(BY_ID), explore)


@dataclass(frozen=True, slots=True)
class LiveClassView:
    """The dashboard's live part, polled: question, answered count, tally, and the reveal.
    While the instructor hides the tally (until the reveal), it holds only the count."""

    code: str
    version: str
    question: QuestionView
    revealed: bool
    answered: int
    answered_sentence: Sentence
    tally: TallyView | None  # None while hidden, and once revealed (the reveal shows it all)
    hidden: Sentence | None  # the note in the tally's place while it is hidden
    reveal: RevealView | None
    poll: str  # the fragment's own address, with the version it shows


def live_class_view(snap: Snapshot, witness: Witness) -> LiveClassView:
    return LiveClassView(
        code=snap.code,
        version=snap.version,
        question=question_view(snap.question, snap.revealed),
        revealed=snap.revealed,
        answered=snap.answered,
        answered_sentence=answered_sentence(snap.answered),
        tally=None if snap.revealed or snap.tally_hidden else tally_view(snap),
        hidden=say("classes.tally.hidden") if snap.tally_hidden and not snap.revealed else None,
        reveal=reveal_view(snap, witness) if snap.revealed else None,
        poll=f"/class/{snap.code}/live?seen={snap.version}",
    )
