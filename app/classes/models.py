"""The class API's payloads and answers, as types `/openapi.json` describes field by field.

Payloads refuse anything extra and every value outside its set (a 422 naming the field,
`app.classes.api` strips what was sent from it); answers are built from the service's
records (`app.classes.records`) and hold only validated values, never a learner's text.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool

from app.classes.records import PREDICTABLE, QUESTIONS, ClassInfo, Expectations, Split, Tally

# Written out so OpenAPI lists them; tests/app/classes hold it to Intervention minus skip.
Predicted = Literal["raise_match", "lengthen_k", "cheapen_draft", "skip_verify", "skip_repair"]


def _a_preset(value: str) -> str:
    if value not in QUESTIONS:
        raise ValueError("must be the id of one of the station's presets")
    return value


PresetId = Annotated[
    str,
    Field(max_length=64, json_schema_extra={"enum": list(QUESTIONS)}),
    AfterValidator(_a_preset),
]
LearnerId = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9_-]{16,64}$",
        description="A random id the learner's browser made (16-64 of A-Z a-z 0-9 _ -).",
    ),
]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OpenClass(_In):
    """Nothing to say yet: a class always starts on the first preset."""


class Prediction(_In):
    learner: LearnerId
    question: PresetId = Field(description="The preset the prediction is about.")
    intervention: Predicted
    faster: StrictBool | None = Field(None, description="Expects it faster; null: not said.")
    kept: StrictBool | None = Field(None, description="Expects p kept; null: not said.")


class QuestionChange(_In):
    preset: PresetId


class OpenedAnswer(_Out):
    code: str = Field(description="The join code: six letters and digits.")
    host_key: str = Field(description="The instructor's key, shown this once; keep it secret.")
    join_url: str = Field(description="Where a learner joins: this server's /join/{code}.")
    host_url: str = Field(
        description="Open this in the instructor's browser to hold the key there (in a cookie)"
        " and see the dashboard: /class/{code}/host#key=…, the key after '#', which a browser"
        " never sends to a server."
    )
    expires_at: datetime


class ClassAnswer(_Out):
    """What a learner's page polls: never the host key."""

    code: str
    question: str
    question_title: str
    revealed: bool = Field(description="The current question's answer has been revealed.")
    answered: int = Field(description="Learners with a prediction on the current question.")
    expires_at: datetime
    locked: bool = Field(
        description="Closed to new learners: only those with a prediction in it may send."
    )

    @classmethod
    def of(cls, info: ClassInfo) -> ClassAnswer:
        return cls(
            code=info.code,
            question=info.question,
            question_title=info.question_title,
            revealed=info.revealed,
            answered=info.answered,
            expires_at=info.expires_at,
            locked=info.locked,
        )


class Removed(_Out):
    """A learner removed: their predictions on every question of the class are deleted."""

    code: str
    removed: int = Field(description="The learner's predictions deleted (one per question).")
    answered: int = Field(description="Learners with a prediction on the current question.")


class Counted(_Out):
    counted: Literal[True]
    code: str
    question: str
    answered: int
    revealed: bool


class SplitAnswer(_Out):
    yes: int
    no: int
    unsaid: int

    @classmethod
    def of(cls, split: Split) -> SplitAnswer:
        return cls(yes=split.yes, no=split.no, unsaid=split.unsaid)


class ExpectationsAnswer(_Out):
    faster: SplitAnswer
    kept: SplitAnswer

    @classmethod
    def of(cls, e: Expectations) -> ExpectationsAnswer:
        return cls(faster=SplitAnswer.of(e.faster), kept=SplitAnswer.of(e.kept))


class TallyAnswer(_Out):
    code: str
    question: str
    question_title: str
    answered: int
    interventions: dict[str, int] = Field(
        description=f"Per intervention: {', '.join(PREDICTABLE)}."
    )
    faster: SplitAnswer
    kept: SplitAnswer
    by_intervention: dict[str, ExpectationsAnswer]
    revealed: bool

    @classmethod
    def of(cls, tally: Tally) -> TallyAnswer:
        return cls(
            code=tally.code,
            question=tally.question,
            question_title=tally.question_title,
            answered=tally.answered,
            interventions=dict(tally.interventions),
            faster=SplitAnswer.of(tally.faster),
            kept=SplitAnswer.of(tally.kept),
            by_intervention={i: ExpectationsAnswer.of(e) for i, e in tally.by_intervention.items()},
            revealed=tally.revealed,
        )


class Refusal(_Out):
    """Why a request was refused, in a sentence that echoes nothing that was sent."""

    detail: str
