"""Rendering a station state, once.

A page or fragment is a pure function of (template, state, app settings), so the rendered
text is kept in an LRU cache: a class of a hundred learners on the same preset, or one
learner dragging a slider back and forth, costs one render per distinct state. The cached
response still tells Starlette's test client which template and context made it, exactly as
a TemplateResponse does, so client-level tests read the view models.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from fastapi.templating import Jinja2Templates
from starlette.background import BackgroundTask
from starlette.responses import HTMLResponse
from starlette.types import Receive, Scope, Send

from app.config import AppSettings
from app.state import StationState
from app.views.station import StationView, station_view

LIVE_FRAGMENTS = frozenset({"fragments_evidence.html"})
RENDER_CACHE = 512  # states; each is ~30 KB of HTML, so ~15 MB at most


class RenderedPage(HTMLResponse):
    """An HTML response that also reports its template and context to test clients."""

    def __init__(
        self,
        body: str,
        template: str,
        context: dict[str, Any],
        status_code: int = 200,
        headers: dict[str, str] | None = None,
        background: BackgroundTask | None = None,
    ) -> None:
        super().__init__(body, status_code, headers, background=background)
        self.template_name, self.context = template, context

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if "http.response.debug" in scope.get("extensions", {}):
            info = {"template": _Named(self.template_name), "context": self.context}
            await send({"type": "http.response.debug", "info": info})
        await super().__call__(scope, receive, send)


class _Named:
    """What the test client exposes as `response.template`: something with a `.name`."""

    def __init__(self, name: str) -> None:
        self.name = name


Renderer = Callable[[str, StationState, bool], tuple[str, StationView]]


def make_renderer(templates: Jinja2Templates, settings: AppSettings) -> Renderer:
    @lru_cache(maxsize=RENDER_CACHE)
    def render(template: str, state: StationState, include_seed: bool) -> tuple[str, StationView]:
        # Fragments answer a slider move: the sweep (sixteen served requests) follows in a
        # request of its own, so only whole pages and the sweep itself draw it.
        view = station_view(state, settings, with_sweep=template not in LIVE_FRAGMENTS)
        body = templates.get_template(template).render(view=view, include_seed=include_seed)
        return body, view

    return render
