"""What each JSON route returns, as types `/openapi.json` can describe field by field.

The served request (`RequestTrace`), the k sweep (`KSweep`) and the evaluation slice
(`EvaluationSlice`) are the witness's own frozen dataclasses: the routes return the
instances, FastAPI describes them from their fields and pydantic serializes them (tuples as
lists) to exactly the bytes `to_dict()` gives, without a second copy of their field lists
here. A frozen dataclass instance is not re-validated on the way out, so the big trace costs
one serialization and nothing more.

The models below exist where a dataclass cannot serve: the exact laws at the first position
were never a dataclass; the route-memory entry is a camelCase contract
(docs/route-memory.schema.json); and the manifest's parameters carry different keys in
different orders. `tests/app/station/routes/test_api_responses.py` holds each to what it mirrors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, SkipValidation
from typing_extensions import TypedDict

from app.contract.route import Intervention
from witness import RequestTrace, Settings
from witness.core.modes import Mode
from witness.cost.batching import BatchTable
from witness.judge.adaptive import Race, RaceEnsemble
from witness.judge.evaluation import EvaluationSlice
from witness.judge.sweep import KSweep
from witness.judge.verdict import JudgedTrace

__all__ = [
    "BatchTable",
    "BusyAnswer",
    "Health",
    "JudgedTrace",
    "RaceAnswer",
    "CheckpointEntry",
    "CheckpointProblems",
    "Distributions",
    "EvaluationSlice",
    "KSweep",
    "Manifest",
    "RequestTrace",
]


class _Out(BaseModel):
    """A response model: every field required, nothing extra, field order = JSON key order."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- /api/distributions ----------------------------------------------------------------------


class OutputLaws(_Out):
    """The law each mode emits at this position (exact sums over the vocabulary)."""

    lossless: list[float]
    no_repair: list[float]
    no_verify: list[float]


class Distributions(_Out):
    """Exact laws at the request's first drafted position, one entry per vocabulary word."""

    vocab: list[str]
    alpha: float = Field(description="Acceptance rate: the overlap sum of min(p, q).")
    p: list[float]
    q: list[float]
    residual: list[float] = Field(description="norm(max(0, p - q)): what a rejection samples.")
    output: OutputLaws


# --- /api/checkpoint (docs/route-memory.schema.json, camelCase by contract) -------------------


class Held(_Out):
    speed: bool | None
    correctness: bool | None


class Prediction(_Out):
    intervention: Intervention
    expectFaster: bool | None
    expectKept: bool | None
    held: Held
    sentence: str


class AcceptedPrefix(_Out):
    tokens: int
    acceptedDrafts: int
    rejectedDrafts: int
    targetPasses: int
    draftPasses: int
    baselineTargetPasses: int
    meanAlpha: float
    speedupMeasured: float | None
    speedupExpected: float | None
    msSpeculative: float
    msBaseline: float
    firstRejection: str


class Invariant(_Out):
    mode: Mode
    greedy: bool
    keepsTarget: bool
    tvMax: float
    correctness: str
    savings: str


class SpeedupBoundary(_Out):
    draftCost: float
    breakEvenAlpha: float
    meanAlpha: float
    optimalK: int
    pays: bool
    sentence: str


class Checkpoint(_Out):
    object: str
    prediction: Prediction | None
    acceptedPrefix: AcceptedPrefix
    invariant: Invariant
    speedupBoundary: SpeedupBoundary
    nextRepair: str
    settings: Settings
    url: str


class CheckpointEntry(_Out):
    """The whole localStorage entry "Save checkpoint" stores: envelope plus checkpoint."""

    version: int
    station: str
    savedAt: str = Field(json_schema_extra={"format": "date-time"})
    checkpoint: Checkpoint


class Problem(_Out):
    loc: list[str] = Field(description='["query", the field]')
    msg: str = Field(description="Names the field and its range.")
    type: str


class CheckpointProblems(_Out):
    """A state the station refuses: one problem per field, as every other 422 here."""

    detail: list[Problem]


class Health(_Out):
    """`/healthz`: the process answers, and what it last learnt of the class store."""

    status: Literal["ok"] = Field(description="Always ok: the process answers (liveness).")
    classes: Literal["ok", "unreachable", "not opened"] = Field(
        description=(
            "The live class's database as this process last found it (readiness of /class"
            " only): ok, unreachable (its last connect failed; class requests are answered"
            " 503 meanwhile), or not opened (no class request has needed it yet)."
        )
    )


class BusyAnswer(_Out):
    """The heavy lane's queue is full (app/rendering/lanes.py): ask again after Retry-After."""

    detail: str


# --- /station.json ---------------------------------------------------------------------------


class StationLink(TypedDict):
    id: str
    title: str


class RoutePlace(TypedDict):
    id: str
    position: int
    of: int
    previous: str | None
    next: str | None
    stations: list[StationLink]


class QueryParameter(TypedDict):
    """A setting carries its title and bounds; a link parameter only its kind and description."""

    name: str
    kind: str
    description: str | None
    title: NotRequired[str | None]
    default: NotRequired[bool | int | float | str]
    min: NotRequired[int | float | None]
    max: NotRequired[int | float | None]
    step: NotRequired[int | float]
    choices: NotRequired[list[str]]


class Links(TypedDict):
    station: str
    checkpoint: str
    schema: str
    manifestSchema: str
    contract: str
    openapi: str
    serving: str
    cockpit: str
    next: str | None


class Manifest(_Out):
    """docs/station-manifest.schema.json, field for field."""

    id: str
    number: int
    title: str
    object: str
    route: RoutePlace
    reads: list[str]
    writes: list[str]
    memoryVersion: int
    # Validation would rebuild each entry in declaration order; the two kinds of parameter
    # list their keys in different orders, so the entries go out as built (still described).
    queryParameters: Annotated[list[QueryParameter], SkipValidation]
    links: Links


@dataclass(frozen=True, slots=True)
class RaceAnswer:
    """The draft-length policies raced on the request, and over its seeded requests."""

    race: Race
    seeded: RaceEnsemble
