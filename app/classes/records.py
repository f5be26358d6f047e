"""What the class service answers: frozen records, the same for the pages and the JSON API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.contract.route import Intervention
from app.station.state.presets import PRESETS

# What a learner may predict: the station's five interventions (skip is not a prediction).
PREDICTABLE: tuple[str, ...] = tuple(i.value for i in Intervention if i is not Intervention.SKIP)
QUESTIONS: tuple[str, ...] = tuple(p.id for p in PRESETS)
TITLES: dict[str, str] = {p.id: p.title for p in PRESETS}


@dataclass(frozen=True, slots=True)
class Opened:
    """A new class. `host_key` exists only here: the store keeps its hash."""

    code: str
    host_key: str
    join_url: str
    expires_at: datetime

    @property
    def host_url(self) -> str:
        """Where a browser takes the key to become the instructor's: the key rides after `#`,
        which a browser never sends, so it reaches no server's or proxy's log (and the page
        there drops it from the address and the history; app/classes/pages.py)."""
        base = self.join_url.removesuffix(f"/join/{self.code}")
        return f"{base}/class/{self.code}/host#key={self.host_key}"


@dataclass(frozen=True, slots=True)
class ClassInfo:
    """A class as a learner's page sees it: never its key."""

    code: str
    question: str  # a preset id (app.station.state.presets.PRESETS)
    question_title: str
    revealed: bool  # the current question's answer has been revealed
    expires_at: datetime
    answered: int  # learners with a prediction on the current question
    locked: bool = False  # closed to new learners
    tally_hidden: bool = False  # the projector shows no tally until the reveal

    @property
    def has_next(self) -> bool:
        """False on the last preset: `next_question` stops there."""
        return self.question != QUESTIONS[-1]


@dataclass(frozen=True, slots=True)
class Split:
    """How many said yes, no, or nothing to one yes/no question."""

    yes: int = 0
    no: int = 0
    unsaid: int = 0

    def add(self, said: bool | None, n: int) -> Split:
        if said is None:
            return Split(self.yes, self.no, self.unsaid + n)
        return (
            Split(self.yes + n, self.no, self.unsaid)
            if said
            else Split(self.yes, self.no + n, self.unsaid)
        )


@dataclass(frozen=True, slots=True)
class Expectations:
    """What the learners who chose one intervention expect of it."""

    faster: Split
    kept: Split


@dataclass(frozen=True, slots=True)
class Tally:
    """The class's predictions on one question. Every intervention is present, zeros included,
    in the station's order, so a chart never has to guess what is missing."""

    code: str
    question: str
    question_title: str
    answered: int
    interventions: dict[str, int]
    faster: Split
    kept: Split
    by_intervention: dict[str, Expectations]
    revealed: bool
    hidden: bool = False  # the instructor hides the tally on the dashboard until the reveal


def tally_of(
    code: str,
    question: str,
    revealed: bool,
    rows: list[tuple[str, bool | None, bool | None, int]],
    hidden: bool = False,
) -> Tally:
    """Fold (intervention, faster, kept, count) rows into a tally."""
    counts = dict.fromkeys(PREDICTABLE, 0)
    faster, kept = Split(), Split()
    each = {i: Expectations(Split(), Split()) for i in PREDICTABLE}
    for intervention, said_faster, said_kept, n in rows:
        counts[intervention] += n
        faster, kept = faster.add(said_faster, n), kept.add(said_kept, n)
        e = each[intervention]
        each[intervention] = Expectations(e.faster.add(said_faster, n), e.kept.add(said_kept, n))
    return Tally(
        code=code,
        question=question,
        question_title=TITLES[question],
        answered=sum(counts.values()),
        interventions=counts,
        faster=faster,
        kept=kept,
        by_intervention=each,
        revealed=revealed,
        hidden=hidden,
    )


@dataclass(frozen=True, slots=True)
class Learner:
    """One learner in a class, as the instructor's dashboard lists them: their random id and
    their prediction on the current question (None: none yet)."""

    learner: str
    intervention: str | None
    faster: bool | None
    kept: bool | None

    @property
    def short(self) -> str:
        """What the dashboard shows: the id's first eight characters."""
        return self.learner[:8]


@dataclass(frozen=True, slots=True)
class Learners:
    """The class's learners (at most the dashboard's share of them) and how many in all."""

    total: int
    listed: tuple[Learner, ...]
