"""The JSON API: the witness's own results for any settings, each with a typed response.

Every answer is computed in the app's heavy lane (app/rendering/lanes.py): one at a time, on
a thread of its own, never on the event loop and never starving a slider answer; past the
lane's queue a request is told 503 with Retry-After. Query parameters are validated by the
witness `Settings` model itself (extra="forbid"), so an out-of-range value is a 422 naming the
field and its range. What each route returns is declared in `app.station.routes.api_models`, so
`/openapi.json` describes every field and its type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError

from app.rendering.lanes import Busy, Lanes
from app.station.routes.api_models import (
    BatchTable,
    BusyAnswer,
    Distributions,
    EvaluationSlice,
    JudgedTrace,
    KSweep,
    RaceAnswer,
)
from app.station.services import Witness
from app.station.state.query import decode_query
from witness import Settings, acceptance_rate, output_distribution, residual
from witness.cost.batching import batch_table
from witness.judge.evaluation import evaluate, first_position
from witness.judge.verdict import judged_trace, verdict_of
from witness.models.pair import models_for

BUSY: dict[int | str, dict[str, Any]] = {
    503: {
        "model": BusyAnswer,
        "description": "Busy: the heavy lane's queue is full; ask again after Retry-After.",
        "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds."}},
    }
}


def well_encoded(request: Request) -> None:
    """FastAPI reads a decoded query, where ``%ZZ`` is text; the station's pages refuse a part
    that is not percent-encoded UTF-8 by name (`decode_query`), and so does the API."""
    _, problems = decode_query(request.scope["query_string"])
    if problems:
        raise RequestValidationError(
            [{"loc": ("query", p.field), "msg": p.message, "type": "value_error"} for p in problems]
        )


router = APIRouter(
    prefix="/api", tags=["witness"], responses=BUSY, dependencies=[Depends(well_encoded)]
)
SettingsQuery = Annotated[Settings, Query()]
T = TypeVar("T")


def _witness(request: Request) -> Witness:
    witness: Witness = request.app.state.witness  # the app's results and laws (create_app)
    return witness


async def _heavy(request: Request, work: Callable[[], T]) -> T:
    lanes: Lanes = request.app.state.lanes
    try:
        return await lanes.heavy.run(work)
    except Busy as busy:
        raise HTTPException(503, str(busy), {"Retry-After": str(busy.retry_after)}) from None


@router.get(
    "/trace", summary="The served request's trace and totals, and its state's verdict ensemble"
)
async def trace(request: Request, settings: SettingsQuery) -> JudgedTrace:
    def judged() -> JudgedTrace:
        witness = _witness(request)
        served = witness.trace(settings)
        verdict = verdict_of(witness.ensemble(settings), settings, served.check)
        return judged_trace(served, verdict)

    return await _heavy(request, judged)


@router.get("/sweep", summary="Speedup against draft length k, measured and expected")
async def sweep(request: Request, settings: SettingsQuery) -> KSweep:
    # Not the page's cached sweep: that one is keyed without k, and this answer names it.
    return await _heavy(request, lambda: _witness(request).sweep(settings))


@router.get("/batch", summary="Speedup against batch size: the best k per batch, by the formula")
async def batch(request: Request, settings: SettingsQuery) -> BatchTable:
    """Each batch priced on the settings' machine (`machine=custom`: every row alike), at the
    station's α over the state's seeded requests."""
    return await _heavy(
        request, lambda: batch_table(settings, _witness(request).ensemble(settings).alpha)
    )


@router.get("/race", summary="Draft-length policies raced on the request, and over its seeds")
async def race(request: Request, settings: SettingsQuery) -> RaceAnswer:
    """Fixed k, the +2/−1 heuristic, a confidence threshold, the hindsight oracle and
    recovery on the same position-keyed uniforms (docs/adaptive.md)."""
    raced, seeded = await _heavy(request, lambda: _witness(request).race(settings))
    # The memo's key leaves the workload's timings out; the answer names the query's own.
    return RaceAnswer(replace(raced, settings=settings), seeded)


@router.get("/distributions", summary="Exact laws at the request's first drafted position")
async def distributions(request: Request, settings: SettingsQuery) -> Distributions:
    return await _heavy(request, lambda: _distributions(settings))


def _distributions(settings: Settings) -> Distributions:
    p, q = first_position(settings)
    return Distributions.model_validate(
        {
            "vocab": list(models_for(settings.models).vocab),
            "alpha": float(acceptance_rate(p, q)),
            "p": p.tolist(),
            "q": q.tolist(),
            "residual": residual(p, q).tolist(),
            "output": {
                "lossless": output_distribution(p, q).tolist(),
                "no_repair": output_distribution(p, q, repair=False).tolist(),
                "no_verify": output_distribution(p, q, verify=False).tolist(),
            },
        }
    )


@router.get("/evaluation", summary="The evaluation slice: every mode's distribution check")
async def evaluation(request: Request, settings: SettingsQuery) -> EvaluationSlice:
    # Not the page's cached slice either: its settings and current mode are this query's.
    return await _heavy(request, lambda: evaluate(settings, cache=_witness(request).cache))
