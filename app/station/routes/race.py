"""The policy race on its own (`GET /station/race`): the fragment the evidence's button
fetches. The page URL it answers for has race=1, which draws the same partial inline on the
whole page (the button's link without JavaScript)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.rendering.pipeline import Context, Env, Page
from app.station.routes.pages import respond, status
from app.station.state.query import StationState
from app.station.views.race import race_fragment

router = APIRouter(include_in_schema=False)


def _race(env: Env, state: StationState, _: object) -> Context:
    view = race_fragment(state, env.witness)
    page = view.race.links.page.removesuffix("#race")
    return Context({"view": view}, status(state), (("HX-Replace-Url", page),))


RACE = Page("partials/_race.html", _race, heavy=True)  # five policies over the seeds


@router.get("/station/race")
def race(request: Request) -> Response:
    """Five draft-length policies raced on the request, judged over its seeded requests."""
    return respond(request, RACE)
