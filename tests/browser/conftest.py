"""Real-browser tests: Playwright driving Debian's chromium against one live server.

Everything here is shared by the modules of tests/browser:

- every test collected under this directory gets the ``browser`` marker;
- chromium is /usr/bin/chromium (``playwright install`` is neither possible nor needed);
- one uvicorn process serves ``app.main:create_app`` for the whole session, and
  ``base_url`` points at it, so ``page.goto("/station")`` works;
- every browser context is watched: console errors, uncaught page errors, dialogs,
  requests off the server's own origin and 5xx answers fail the test at teardown;
- plain helpers (axe, screenshots, the recorded-prediction URL) are in helpers.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS, live_station
from tests.browser.helpers import BrowserMonitor, origin_of

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------- markers


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


# --------------------------------------------------------------------------- live server


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The station served by uvicorn in its own process, for the whole session."""
    # The station's links to other stations come from STATION08_* settings; the tests run
    # on the defaults so that nothing on the page points off this origin.
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATION08_")}
    # A live class keeps its classes in a database: a throwaway one per session.
    env["STATION08_DATA_DIR"] = str(tmp_path_factory.mktemp("class-data"))
    log = tmp_path_factory.mktemp("live-server") / "uvicorn.log"
    with live_station(env, log) as url:
        yield url


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    return live_server


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 1280, "height": 800}}


# --------------------------------------------------------------------------- monitor


@pytest.fixture(autouse=True)
def monitor(live_server: str) -> Iterator[BrowserMonitor]:
    """Autouse: every browser test ends with no console error, page error, dialog, request
    to another origin, or 5xx. A test may extend ``monitor.allow_console_error``."""
    watcher = BrowserMonitor(origin=origin_of(live_server))
    yield watcher
    # new_context (below) depends on this fixture, so every context is closed by now and
    # every event has been recorded.
    problems = watcher.problems()
    assert not problems, "the browser saw:\n" + "\n".join(problems)


@pytest.fixture
def new_context(
    new_context: Callable[..., BrowserContext], monitor: BrowserMonitor
) -> Callable[..., BrowserContext]:
    """pytest-playwright's context factory, with the monitor on every context it makes
    (the ``context`` and ``page`` fixtures are built on it too)."""

    def make(**kwargs: Any) -> BrowserContext:
        context = new_context(**kwargs)
        monitor.watch(context)
        return context

    return make
